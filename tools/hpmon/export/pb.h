/* SPDX-License-Identifier: MIT */
/*
 * A protocol-buffer encoder for what pprof's profile.proto uses (varints,
 * and length-delimited strings, packed arrays and nested messages), with
 * the result gzipped on the way to its stream. Why not protobuf-c:
 * docs/formats.md.
 *
 * A nested message is written in place and its length put in front of it
 * when it closes; a top-level field, once closed, is compressed and
 * written out when the buffer is large, so the buffer holds one top-level
 * field at a time (and then at most 64 KiB more).
 *
 * Room: tools/hpmon/export/ owns report's samples as pprof, trace-event and speedscope; may use report, output.
 * Ownership: struct pb is the caller's; pb_start borrows @f, which must
 * outlive pb_finish; pb_free frees what it holds (accepts one never
 * started).
 */
#ifndef HPMON_TOOL_EXPORT_PB_H
#define HPMON_TOOL_EXPORT_PB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <zlib.h>

#define PB_MAX_DEPTH 4

struct pb {
	uint8_t *b;
	size_t n, cap;
	size_t open[PB_MAX_DEPTH]; /* where each open message's bytes begin */
	int depth;
	int err;                   /* the first error, -errno */
	FILE *f;
	z_stream z;
	bool z_up;
};

/* Start a gzip stream to @f. 0 or -ENOMEM. */
int pb_start(struct pb *p, FILE *f);
/* Field @field as a varint; omitted when 0 (proto3's default). */
void pb_uint(struct pb *p, unsigned field, uint64_t v);
void pb_int(struct pb *p, unsigned field, int64_t v);
/* A string or bytes field, written even when empty. */
void pb_bytes(struct pb *p, unsigned field, const void *s, size_t len);
/* A packed repeated varint field of @n values; nothing when @n is 0. */
void pb_packed(struct pb *p, unsigned field, const uint64_t *v, size_t n);
void pb_packed_int(struct pb *p, unsigned field, const int64_t *v, size_t n);
/* A nested message: its fields go between pb_open and pb_close. */
void pb_open(struct pb *p, unsigned field);
void pb_close(struct pb *p);
/* The end: everything compressed and written. 0 or the first error. */
int pb_finish(struct pb *p);
void pb_free(struct pb *p);

#endif
