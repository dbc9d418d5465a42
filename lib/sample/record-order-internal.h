/* SPDX-License-Identifier: MIT */
/*
 * Room: lib/sample/ owns sampling sessions; may use attach, events, location, symbols, core, sys.
 *
 * The time-ordering queue of a sampling session (lib/sample/record-order.c).
 *
 * The kernel writes one ring buffer per CPU, each roughly in time order,
 * and the reader drains them one after the other. The queue takes copies
 * of the parsed records of a drain round and hands out, sorted by time,
 * those that no buffer can still precede; lib/sample/record.c drives it:
 * Ownership: the queue owns its copies of the records; a record handed to
 * the flush callback is borrowed for the call only.
 *
 *   hpm__order_begin(q, now)        before the buffers are read
 *   hpm__order_add(q, src, rec) ... every record read, src = its buffer
 *   hpm__order_end(q, now)          after the last buffer was read
 *   hpm__order_flush(q, all, fn)    hand out what is safe (all: every record)
 *
 * Times are the records' own (perf clock, ns); @now is CLOCK_MONOTONIC
 * in ns, used only for intervals. The reasoning is in record-order.c.
 */
#ifndef HPM_RECORD_ORDER_INTERNAL_H
#define HPM_RECORD_ORDER_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <hpmon/record.h>

struct hpm_order;

struct hpm_order_stats {
	uint64_t queued;      /* records in the queue now */
	uint64_t bytes;       /* their memory, copies included */
	uint64_t max_bytes;   /* the most it held */
	uint64_t early;       /* records handed out before they were known to be
				 safe, because the queue reached its byte limit */
	uint64_t late;        /* records that came after a later one had been
				 handed out (their place was already gone) */
};

/*
 * A queue for @nr_src buffers. The records up to the newest time read by
 * round k are safe once a round begins at least @gap_ns after round k
 * ended (the reasoning is in record-order.c); @max_bytes caps the memory
 * (copies included): beyond it the oldest records are handed out early.
 * NULL and errno on failure.
 */
struct hpm_order *hpm__order_new(size_t nr_src, uint64_t gap_ns, size_t max_bytes);
/* Frees the queue and every record still in it. Accepts NULL. */
void hpm__order_free(struct hpm_order *q);

/* A drain round starts at @now: the buffers have not been read yet. */
void hpm__order_begin(struct hpm_order *q, uint64_t now);
/*
 * Queue a deep copy of @rec (call chain, group values, registers, stack
 * and strings are copied: @rec may point into a ring buffer) read from
 * buffer @src. A record without a time (0) keeps its place after the
 * record read before it from the same buffer, or goes out next when that
 * one went out already. 0, -ENOMEM, or -EINVAL for a buffer out of range.
 */
int hpm__order_add(struct hpm_order *q, size_t src, const struct hpm_prec *rec);
/* The round's last buffer was read at @now. */
void hpm__order_end(struct hpm_order *q, uint64_t now);
/*
 * Hand the records that are safe (every record with @all) to @fn in time
 * order, records of equal times in the order they were added. Stops at
 * the first negative value of @fn and returns it (that record is
 * consumed, the rest stay queued); else the number handed out.
 */
int hpm__order_flush(struct hpm_order *q, bool all, hpm_record_fn fn, void *arg);

/* What the queue holds and held, and the records it could not order. */
void hpm__order_stats(const struct hpm_order *q, struct hpm_order_stats *out);

#endif
