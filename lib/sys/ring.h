/* SPDX-License-Identifier: MIT */
/*
 * Room: lib/sys/ owns perf_event_open, the ring reader, options; may use libc only.
 *
 * The one reader of the kernel's perf ring buffers, for every session
 * that maps one (lib/count/tasks.c, lib/sample/record-open.c maps the
 * sampling session's and lib/sample/record.c reads them).
 *
 * Protocol, one read round at a time:
 *
 *	hpm_ring__read_init(&ring);        take data_head once (acquire)
 *	while ((rc = hpm_ring__next(&ring, scratch, len, &h)) == 0) {
 *		... use h, h->size bytes: valid until the next call ...
 *		hpm_ring__consume(&ring);  done with h: step past it
 *	}
 *	hpm_ring__read_done(&ring);        publish data_tail (release)
 *
 * The kernel writes only between data_head and data_tail, so a record
 * stays put until read_done hands its space back; what the kernel adds
 * after read_init waits for the next round. A record that wraps around
 * the end of the buffer is copied whole into the caller's @scratch, of
 * at least HPM_RING_RECORD_MAX bytes to take any record; every other
 * record is read in place. The buffer is written by the kernel and is
 * untrusted: a record shorter than its header, or that claims more than
 * the kernel has written, is an error (-EIO), never read past.
 *
 * A buffer whose records come from several CPUs at once (inherited
 * per-task events redirected into one buffer, lib/count/tasks.c) can
 * stall: the kernel keeps writing records but stops moving data_head
 * (its writers' nesting count is per-CPU, not atomic). For such a buffer
 * hpm_ring__map_shadowed() keeps a copy of every byte read (the data area
 * cannot be written from user space, so it cannot be cleared): past
 * data_head, data that differs from the copy was written by the kernel
 * without being published, and hpm_ring__read_unpublished() reads it
 * once no one writes any more.
 *
 * Ownership: a mapped ring owns its mapping and its copy
 * (hpm_ring__unmap() releases both) but not the event file descriptor it was mapped from, which must
 * outlive it. No state outside the struct.
 */
#ifndef HPM_SYS_RING_H
#define HPM_SYS_RING_H

#include <stddef.h>
#include <stdint.h>
#include <linux/perf_event.h>

/* The largest record the kernel writes (perf_event_header.size is 16 bits). */
#define HPM_RING_RECORD_MAX 65536u

struct hpm_ring {
	void *base;            /* the mapping: one metadata page, then data; NULL: none */
	size_t mmap_len;       /* page + data_len */
	size_t data_len;       /* the data area's size */
	uint64_t head, tail;   /* this round's: data_head as taken, our position */
	size_t cur;            /* the size of the record hpm_ring__next() gave */
	uint64_t done;         /* data_tail as published last */
	unsigned char *shadow; /* [data_len]: the data as read, or NULL */
	int unpublished;       /* this round reads past data_head */
};

/*
 * Map the ring buffer of event @fd: a metadata page of @page bytes and
 * @data_len bytes of data (@page times a power of two). 0 or -errno, with
 * @r unmapped.
 */
int hpm_ring__map(struct hpm_ring *r, int fd, size_t page, size_t data_len);
/* The same, for a buffer whose unpublished records may be read: every
 * round copies what it consumed (see the top). */
int hpm_ring__map_shadowed(struct hpm_ring *r, int fd, size_t page, size_t data_len);
/* Unmap (a ring never mapped, zeroed, is fine). */
void hpm_ring__unmap(struct hpm_ring *r);

/* Start a round: take data_head once, with acquire ordering, so that the
 * records before it are visible. */
void hpm_ring__read_init(struct hpm_ring *r);
/* Start a round over what the kernel wrote past data_head without
 * publishing it (a ring mapped with hpm_ring__map_shadowed() only: -EINVAL
 * otherwise). Call it only when nothing writes into the buffer any more
 * (the events are disabled and their tasks have exited): a record still
 * being written could be read half-done. The round ends at the first
 * record that is the same as what was read there before (or zero, as
 * the buffer starts); the caller checks each record, which is untrusted. */
int hpm_ring__read_unpublished(struct hpm_ring *r);
/*
 * The next record of the round into *@h: 0; 1 when the round has no more;
 * -EIO for a malformed record (the round stops there: see
 * hpm_ring__discard()); -EMSGSIZE when a wrapped record does not fit in
 * @scratch (@len bytes).
 */
int hpm_ring__next(struct hpm_ring *r, void *scratch, size_t len,
		   const struct perf_event_header **h);
/* Step past the record hpm_ring__next() returned last. */
void hpm_ring__consume(struct hpm_ring *r);
/* Give up the rest of the round: records cannot be told apart after a
 * malformed one, so everything up to the head taken is dropped. */
void hpm_ring__discard(struct hpm_ring *r);
/* End the round: publish data_tail, with release ordering, so that the
 * kernel reuses the space only after the records were read. */
void hpm_ring__read_done(struct hpm_ring *r);

#endif
