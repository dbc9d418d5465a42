/* SPDX-License-Identifier: MIT */
/*
 * The processes a command started: when hpmon ends a command early, its
 * children end too, and none runs on orphaned.
 *
 * Room: tools/hpmon/launch/ owns launching the measured command, its signals and process tree, and the target options; may use libc only.
 * Ownership: nothing is kept between calls.
 */
#ifndef HPMON_TOOL_PROCTREE_H
#define HPMON_TOOL_PROCTREE_H

#include <sys/types.h>

/* Send @sig to @root and every process below it (found in /proc, up to
 * 4096 of them). */
void proctree_signal(pid_t root, int sig);

#endif
