/* SPDX-License-Identifier: MIT */
/*
 * Room: lib/location/ owns exec: locations and their resolution; may use symbols, core, sys.
 *
 * Location events (exec:...): executions of a place in a program's code,
 * counted by a hardware breakpoint or a uprobe (lib/location/location.c parses
 * and resolves; lib/attach/attach.c chooses the mechanism and attaches
 * to the target, for counting sessions through lib/count/location-session.c
 * and for sampling sessions, lib/sample/record-open.c).
 *
 * The parser only checks the form; the place is resolved against the
 * target program when a session opens (lib/attach/attach.c calls in here), and
 * its runtime address, for breakpoints in position-independent code, is
 * read from the process's mappings once it has exec'd.
 *
 * Ownership: locations and results are values in the caller's storage;
 * the environment's strings are borrowed for the call.
 */
#ifndef HPM_LOCATION_INTERNAL_H
#define HPM_LOCATION_INTERNAL_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>


#define HPM_LOC_NAME_MAX 256

enum hpm_loc_kind {
	HPM_LOC_FUNC,   /* exec:[OBJECT:]FUNC[%return] */
	HPM_LOC_LINE,   /* exec:[OBJECT:]FILE:LINE */
	HPM_LOC_ADDR,   /* exec:[OBJECT:]0xADDR[%return], a link-time address */
};

enum hpm_loc_mech {
	HPM_LOC_AUTO,   /* breakpoints while slots last, then uprobes */
	HPM_LOC_BP,     /* :bp */
	HPM_LOC_UPROBE, /* :uprobe */
};

struct hpm_location {
	enum hpm_loc_kind kind;
	enum hpm_loc_mech mech;
	bool ret;                          /* %return: the returns */
	char object[HPM_LOC_NAME_MAX];     /* "" for the program itself */
	char func[HPM_LOC_NAME_MAX];
	char file[HPM_LOC_NAME_MAX];
	unsigned line;
	uint64_t addr;
};

/*
 * Parse the location event @s (@len bytes, starting "exec:"). 0, or a
 * negative HPM_ERR_* with *@errpos (offset into @s) and @msg set.
 */
int hpm__loc_parse(const char *s, size_t len, struct hpm_location *loc, size_t *errpos,
		   char *msg, size_t msglen);

/* Where to look for the program's objects. */
struct hpm_loc_env {
	const char *program;   /* the executable's path */
	const char *lib_path;  /* extra library directories, ':'-separated */
	const char *debug_dir; /* separate debug files, default /usr/lib/debug */
};

/* A location resolved in one object. */
struct hpm_loc_result {
	char path[PATH_MAX];   /* the object */
	uint64_t addr;         /* link-time address */
	uint64_t offset;       /* file offset (a uprobe's config2) */
	bool dyn;              /* ET_DYN: loaded at a base only known at run time */
	bool in_program;       /* the object is the program, not a library */
	bool entry;            /* the first instruction of a function */
	char where[192];       /* "hpm_work+0x0 in calls", for messages */
};

/* Resolve @loc in @env. 0, or -errno / -HPM_ERR_* with @msg saying why. */
int hpm__loc_resolve(const struct hpm_location *loc, const struct hpm_loc_env *env,
		     struct hpm_loc_result *out, char *msg, size_t msglen);
/*
 * Runtime address of @r in process @pid (its mappings under @procfs):
 * 0, or -ENOENT when the object is not mapped (yet).
 */
int hpm__loc_runtime_addr(const struct hpm_loc_result *r, const char *procfs, pid_t pid,
			  uint64_t *addr);

#endif
