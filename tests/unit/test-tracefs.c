// SPDX-License-Identifier: MIT
/*
 * tracefs beyond its root: the uprobes killed hpmons left behind (which
 * are listed, which are removed, which never are), and that the context
 * mounts tracefs only at the machine's default place. Against a made-up
 * tracefs and procfs in a temporary directory.
 */
#include <dirent.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include <hpmon/event.h>
#include <hpmon/hpmon.h>
#include <hpmon/sysinfo.h>
#include "attach/attach-internal.h"
#include "core/ctx-internal.h"
#include "core/tracefs-internal.h"

static char dir[64];

static void put(const char *rel, const char *text)
{
	char path[256];
	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

static void mk(const char *rel)
{
	char path[256];
	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	assert_int_equal(mkdir(path, 0700), 0);
}

static void link_to(const char *target, const char *rel)
{
	char path[256];
	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	assert_int_equal(symlink(target, path), 0);
}

static char uprobe_events[4096];

/*
 * Groups hpmon_1 (no such process), hpmon_2 (a live hpmon), other_3 (not
 * hpmon's), hpmon_4 (its pid now runs bash, holding no perf event),
 * hpmon_5 (bash holding a perf event: maybe a program using libhpmon),
 * hpmon_6 (runs the caller's program under another name), malformed
 * groups, and the caller's own.
 */
static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/hpm-tracefs.XXXXXX");
	assert_non_null(mkdtemp(dir));
	mk("t");
	mk("t/events");
	mk("p");
	mk("p/self");
	put("p/self/comm", "hpmon\n");
	link_to("/usr/bin/hpmon", "p/self/exe");
	mk("p/2");
	put("p/2/comm", "hpmon\n");
	mk("p/4");
	put("p/4/comm", "bash\n");
	mk("p/4/fd");
	link_to("/dev/null", "p/4/fd/0");
	link_to("pipe:[123]", "p/4/fd/1");
	mk("p/5");
	put("p/5/comm", "bash\n");
	mk("p/5/fd");
	link_to("anon_inode:[perf_event]", "p/5/fd/3");
	mk("p/6");
	put("p/6/comm", "renamed\n");
	link_to("/usr/bin/hpmon", "p/6/exe");
	snprintf(uprobe_events, sizeof(uprobe_events),
		 "p:hpmon_1/s1_0 /bin/true:0x0000000000001000\n"
		 "r:hpmon_2/s2_0 /bin/true:0x0000000000001000\n"
		 "p:other_3/s3_0 /bin/true:0x0000000000001000\n"
		 "r:hpmon_4/s4_1 /usr/bin/a\\ b:0x0000000000002000\n"
		 "p:hpmon_5/s5_0 /bin/true:0x0000000000001000\n"
		 "p:hpmon_6/s6_0 /bin/true:0x0000000000001000\n"
		 "p:hpmon_x/s7_0 /bin/true:0x0000000000001000\n"
		 "p:hpmon_/s8_0 /bin/true:0x0000000000001000\n"
		 "p:hpmon_99999999999/s9_0 /bin/true:0x0000000000001000\n"
		 "p:hpmon_%d/own_0 /bin/true:0x0000000000001000\n",
		 (int)getpid());
	put("t/uprobe_events", uprobe_events);
	return 0;
}

static int teardown(void **state)
{
	char cmd[128];
	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

static struct hpm_ctx *fake_ctx(void)
{
	char t[128], p[128];
	snprintf(t, sizeof(t), "%s/t", dir);
	snprintf(p, sizeof(p), "%s/p", dir);
	struct hpm_ctx_opts o = { .sz = sizeof(o), .sysfs_root = dir, .procfs_root = p,
				  .tracefs_root = t, .mount_tracefs = true };
	struct hpm_ctx *ctx = hpm_ctx__new(&o);
	assert_non_null(ctx);
	return ctx;
}

struct seen {
	char text[1024];
	size_t len;
};

static int note(void *arg, const char *probe, int pid, const char *target)
{
	struct seen *s = arg;
	s->len += (size_t)snprintf(s->text + s->len, sizeof(s->text) - s->len, "%s %d %s\n",
				   probe, pid, target);
	return 0;
}

static void test_leftovers_listed(void **state)
{
	struct hpm_ctx *ctx = fake_ctx();
	struct seen s = { .len = 0 };
	(void)state;

	assert_int_equal(hpm__uprobe_leftovers(ctx, note, &s), 0);
	assert_string_equal(s.text, "hpmon_1/s1_0 1 /bin/true:0x0000000000001000\n"
				    "hpmon_4/s4_1 4 /usr/bin/a\\\n");
	hpm_ctx__free(ctx);
}

static int stop_at_first(void *arg, const char *probe, int pid, const char *target)
{
	(void)probe;
	(void)target;
	*(int *)arg = pid;
	return 7;
}

static void test_leftovers_stop(void **state)
{
	struct hpm_ctx *ctx = fake_ctx();
	int pid = 0;
	(void)state;

	assert_int_equal(hpm__uprobe_leftovers(ctx, stop_at_first, &pid), 7);
	assert_int_equal(pid, 1);
	hpm_ctx__free(ctx);
}

static void test_leftovers_sysinfo(void **state)
{
	struct hpm_ctx *ctx = fake_ctx();
	struct hpm_sysinfo *si = hpm_sysinfo__read(ctx, NULL);
	char want[256];
	(void)state;

	assert_non_null(si);
	assert_int_equal(si->uprobe_leftovers_err, 0);
	assert_int_equal(si->nr_uprobe_leftovers, 2);
	assert_string_equal(si->uprobe_leftovers[0].probe, "hpmon_1/s1_0");
	assert_int_equal(si->uprobe_leftovers[0].pid, 1);
	assert_string_equal(si->uprobe_leftovers[0].target, "/bin/true:0x0000000000001000");
	assert_string_equal(si->uprobe_leftovers[1].probe, "hpmon_4/s4_1");
	assert_int_equal(si->uprobe_leftovers[1].pid, 4);
	snprintf(want, sizeof(want), "%s/t/uprobe_events", dir);
	assert_string_equal(si->uprobe_events, want);
	hpm_sysinfo__free(si);
	hpm_ctx__free(ctx);
}

/* The removal writes one "-:GROUP/EVENT" line per leftover, nothing else
 * (the made-up uprobe_events is a plain file: what is written is
 * appended). */
static void test_sweep_removes_only_leftovers(void **state)
{
	struct hpm_ctx *ctx = fake_ctx();
	char path[256], got[4096], want[4200];
	(void)state;

	assert_int_equal(hpm__uprobes_sweep(ctx), 0);
	snprintf(path, sizeof(path), "%s/t/uprobe_events", dir);
	FILE *f = fopen(path, "r");
	assert_non_null(f);
	size_t n = fread(got, 1, sizeof(got) - 1, f);
	got[n] = '\0';
	fclose(f);
	snprintf(want, sizeof(want), "%s-:hpmon_1/s1_0\n-:hpmon_4/s4_1\n", uprobe_events);
	assert_string_equal(got, want);
	put("t/uprobe_events", uprobe_events);
	hpm_ctx__free(ctx);
}

/* uprobe_events absent (no uprobes in this kernel): said, not hidden. */
static void test_leftovers_no_file(void **state)
{
	struct hpm_ctx *ctx = fake_ctx();
	char path[256];
	struct seen s = { .len = 0 };
	(void)state;

	snprintf(path, sizeof(path), "%s/t/uprobe_events", dir);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(hpm__uprobe_leftovers(ctx, note, &s), -ENOENT);
	assert_int_equal(s.len, 0);
	put("t/uprobe_events", uprobe_events);
	hpm_ctx__free(ctx);
}

/* mount_tracefs never mounts anything in a tree the context was pointed
 * at: its kernel/tracing stays an empty directory. */
static void test_no_mount_outside_default(void **state)
{
	char p[128], tracing[160];
	(void)state;

	snprintf(p, sizeof(p), "%s/p", dir);
	mk("kernel");
	mk("kernel/tracing");
	struct hpm_ctx_opts o = { .sz = sizeof(o), .sysfs_root = dir, .procfs_root = p,
				  .mount_tracefs = true };
	struct hpm_ctx *ctx = hpm_ctx__new(&o);
	assert_non_null(ctx);
	assert_null(hpm__ctx_tracefs(ctx));
	assert_int_equal(hpm__ctx_tracefs_err(ctx), -ENOENT);
	snprintf(tracing, sizeof(tracing), "%s/kernel/tracing", dir);
	DIR *d = opendir(tracing);
	assert_non_null(d);
	struct dirent *de;
	int entries = 0;
	while ((de = readdir(d)))
		entries += de->d_name[0] != '.';
	closedir(d);
	assert_int_equal(entries, 0);
	hpm_ctx__free(ctx);
}

/* A tracepoint (or a pattern) where tracefs cannot be found: the error
 * names the path looked for, never "unknown event". Under a sysfs root
 * that is not /sys (a recorded tree) without a tracefs, and with a tracefs
 * root that has no events/. */
static void test_missing_root_named(void **state)
{
	char p[128], want[256];
	struct hpm_parse_error err;
	struct hpm_evlist *l = NULL;
	(void)state;

	snprintf(p, sizeof(p), "%s/p", dir);
	struct hpm_ctx_opts o = { .sz = sizeof(o), .sysfs_root = dir, .procfs_root = p };
	struct hpm_ctx *ctx = hpm_ctx__new(&o);
	assert_non_null(ctx);
	assert_int_equal(hpm_evlist__parse(ctx, "sched:sched_switch", &l, &err), -ENOENT);
	snprintf(want, sizeof(want), "cannot tell whether 'sched:sched_switch' is a tracepoint: "
		 "the sysfs root %s has none (looked for "
		 "kernel/tracing/events and kernel/debug/tracing/events under it)", dir);
	assert_string_equal(err.msg, want);
	assert_int_equal(hpm_evlist__parse(ctx, "task-clock,sched:*:u", &l, &err), -ENOENT);
	snprintf(want, sizeof(want), "tracepoint pattern 'sched:*' needs tracefs: the sysfs "
		 "root %s has none (looked for kernel/tracing/events and "
		 "kernel/debug/tracing/events under it)", dir);
	assert_string_equal(err.msg, want);
	assert_int_equal(err.pos, 11);
	hpm_ctx__free(ctx);

	/* a tracefs root given, without events/ */
	o.tracefs_root = p;
	ctx = hpm_ctx__new(&o);
	assert_non_null(ctx);
	assert_int_equal(hpm_evlist__parse(ctx, "sched:sched_switch", &l, &err), -ENOENT);
	snprintf(want, sizeof(want), "cannot tell whether 'sched:sched_switch' is a tracepoint: "
		 "the tracefs root %s has no events/ directory", p);
	assert_string_equal(err.msg, want);
	assert_int_equal(hpm_evlist__parse(ctx, "sched:sched_*", &l, &err), -ENOENT);
	snprintf(want, sizeof(want), "tracepoint pattern 'sched:sched_*' needs tracefs: the "
		 "tracefs root %s has no events/ directory", p);
	assert_string_equal(err.msg, want);
	/* with one, an unknown name is just unknown, and a pattern that
	 * matches nothing says where it looked */
	hpm_ctx__free(ctx);
	snprintf(p, sizeof(p), "%s/t", dir);
	ctx = hpm_ctx__new(&o);
	assert_non_null(ctx);
	assert_int_equal(hpm_evlist__parse(ctx, "sched:sched_switch", &l, &err),
			 -HPM_ERR_UNKNOWN_EVENT);
	assert_non_null(strstr(err.msg, "unknown event 'sched:sched_switch'"));
	assert_int_equal(hpm_evlist__parse(ctx, "sched:sched_*", &l, &err), -HPM_ERR_UNKNOWN_EVENT);
	snprintf(want, sizeof(want), "no tracepoint under %s/events matches 'sched:sched_*' (see "
		 "'hpmon list tracepoint')", p);
	assert_string_equal(err.msg, want);
	hpm_ctx__free(ctx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_leftovers_listed),
		cmocka_unit_test(test_leftovers_stop),
		cmocka_unit_test(test_leftovers_sysinfo),
		cmocka_unit_test(test_sweep_removes_only_leftovers),
		cmocka_unit_test(test_leftovers_no_file),
		cmocka_unit_test(test_no_mount_outside_default),
		cmocka_unit_test(test_missing_root_named),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
