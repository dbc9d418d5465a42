/* SPDX-License-Identifier: MIT */
/*
 * Room: lib/sys/ owns perf_event_open, the ring reader, options; may use libc only.
 *
 * Options structs, one way: every public `struct hpm_*_opts` starts with
 * `size_t sz`, which the caller sets to sizeof the struct as its header
 * declared it. A caller built against an older header passes a smaller
 * size: the fields it does not know take their defaults. A caller built
 * against a newer header passes a larger one: the bytes this library does
 * not know must be zero, or the call fails with -EINVAL, since they ask
 * for something it cannot do.
 *
 *   if (!HPM_OPTS_VALID(opts, hpm_session_opts))
 *           return -EINVAL;
 *   bool track = HPM_OPTS_GET(opts, track_tasks, false);
 *
 * A NULL @opts is valid and gives every default. Header only: the runtime
 * uses it too. Nothing here keeps or takes ownership of anything.
 */
#ifndef HPM_SYS_OPTS_H
#define HPM_SYS_OPTS_H

#include <stdbool.h>
#include <stddef.h>

/* Whether @opts (of @user_sz bytes; this library knows @known) is valid. */
static inline bool hpm__opts_valid(const void *opts, size_t user_sz, size_t known)
{
	if (!opts)
		return true;
	if (user_sz < sizeof(size_t))
		return false;
	for (size_t i = known; i < user_sz; i++)
		if (((const unsigned char *)opts)[i])
			return false;
	return true;
}

/* The caller's sz; 0 for NULL. Every options struct starts with it. */
static inline size_t hpm__opts_sz(const void *opts)
{
	return opts ? *(const size_t *)opts : 0;
}

#define HPM_OPTS_VALID(opts, type)                                              \
	hpm__opts_valid((opts), hpm__opts_sz(opts), sizeof(struct type))

/* Whether the caller's struct reaches past @field (never for NULL). */
#define HPM_OPTS_HAS(opts, field)                                               \
	(hpm__opts_sz(opts) >= offsetof(__typeof__(*(opts)), field) +           \
				   sizeof((opts)->field))

/* @field, or @def when @opts is NULL or too short to hold it. */
#define HPM_OPTS_GET(opts, field, def) (HPM_OPTS_HAS(opts, field) ? (opts)->field : (def))

/*
 * Copy the caller's @opts into @dst (@dst_sz bytes, this library's size):
 * the part the caller knows, zeros (every field's default) for the rest,
 * and dst's sz set to @dst_sz. For structs whose defaults are all zero.
 */
static inline void hpm__opts_copy(void *dst, size_t dst_sz, const void *opts)
{
	size_t n = hpm__opts_sz(opts);

	if (n > dst_sz)
		n = dst_sz;
	for (size_t i = 0; i < dst_sz; i++)
		((unsigned char *)dst)[i] = i < n ? ((const unsigned char *)opts)[i] : 0;
	*(size_t *)dst = dst_sz;
}

#endif
