/* SPDX-License-Identifier: MIT */
/*
 * Where `hpmon validate --calibrate` keeps the costs it measured, and
 * where `-M cost` looks for them: $XDG_DATA_HOME/hpmon (or
 * ~/.local/share/hpmon), one file per CPU model, costs-KEY.txt, in the
 * format of data/costs-*.txt.
 * Room: tools/hpmon/counting/ owns the counting options, default events, calibrated costs and rows of system-wide accounting; may use output.
 * Ownership: the path is written into the caller's buffer.
 */
#ifndef HPMON_TOOL_COSTS_FILE_H
#define HPMON_TOOL_COSTS_FILE_H

#include <stddef.h>

struct hpm_ctx;

/* The user's data folder ($XDG_DATA_HOME, else ~/.local/share), which
 * hpmon.c reads from the environment; NULL: none. Copied. */
void costs_file_set_data_home(const char *dir);

/* The file of this machine's CPU model into @buf; with @dir, the folder
 * alone. 0, or -ENOENT when there is no data folder (no HOME). */
int costs_file_path(struct hpm_ctx *ctx, char *buf, size_t len, char *dir, size_t dlen);

#endif
