// SPDX-License-Identifier: MIT
/*
 * Location events in sampling sessions, through the public API
 * (include/hpmon/record.h): refused without stop_at_exec; with it, one
 * sample per call of hpm_work in `calls 777`, with a breakpoint and (as
 * root) with a uprobe that is gone from tracefs once the session is
 * freed; side-band records from the exec on although the only event
 * opens at the exec stop; and frame-pointer chains of samples at a
 * function's entry completed with the caller, main.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/personality.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>
#include "host.h"
#include "skip.h"

#include <linux/perf_event.h>

#include <hpmon/record.h>

#define CALLS HPM_TEST_WORKLOADS "/calls"
#define NR_CALLS 777

/* The child, waiting to exec `calls NR_CALLS` without randomisation. */
static pid_t start_calls(int *go_fd)
{
	int go[2];
	assert_int_equal(pipe(go), 0);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		char c, n[16], *argv[] = { (char *)CALLS, n, NULL };
		snprintf(n, sizeof(n), "%d", NR_CALLS);
		personality(ADDR_NO_RANDOMIZE);
		close(go[1]);
		if (read(go[0], &c, 1) != 1)
			_exit(127);
		execv(argv[0], argv);
		_exit(127);
	}
	close(go[0]);
	*go_fd = go[1];
	return pid;
}

/* Root, with tracefs: uprobes can be defined. */
static bool can_uprobe(void)
{
	return geteuid() == 0 && access("/sys/kernel/tracing/uprobe_events", W_OK) == 0;
}

/* A number a shell command prints (nm, the workload's own --base). */
static uint64_t shell_number(const char *cmd)
{
	char buf[64] = "";
	FILE *f = popen(cmd, "r");
	assert_non_null(f);
	assert_non_null(fgets(buf, sizeof(buf), f));
	pclose(f);
	return strtoull(buf, NULL, 16);
}

struct seen {
	const struct hpm_record *r;
	uint64_t samples, mmaps, comms, other_ev;
	uint64_t main_lo, main_hi; /* main's runtime addresses */
	uint64_t callers_in_main, completed;
};

static int on_rec(const struct hpm_prec *p, void *arg)
{
	struct seen *s = arg;
	s->mmaps += p->type == HPM_PREC_MMAP;
	s->comms += p->type == HPM_PREC_COMM;
	if (p->type != HPM_PREC_SAMPLE)
		return 0;
	s->samples++;
	s->other_ev += p->sample.ev != 0;
	struct hpm_sample fixed;
	uint64_t buf[1100];
	const struct hpm_sample *smp = &p->sample;
	if (hpm_record__entry_chain(s->r, smp, &fixed, buf, 1100)) {
		s->completed++;
		smp = &fixed;
		assert_int_equal(fixed.stack_len, 0); /* the copy is dropped */
	}
	/* PERF_CONTEXT_USER, hpm_work, then its caller */
	for (uint32_t k = 0; k + 2 < smp->nr_chain; k++)
		if (smp->chain[k] == (uint64_t)PERF_CONTEXT_USER) {
			uint64_t caller = smp->chain[k + 2];
			s->callers_in_main += caller > s->main_lo && caller <= s->main_hi;
			break;
		}
	return 0;
}

/* Record `calls NR_CALLS` sampling @spec; *@s gets what was seen. */
static void record_calls(const char *spec, enum hpm_callchain cc, struct seen *s)
{
	struct hpm_ctx *ctx = hpm_ctx__new(NULL);
	struct hpm_evlist *list;
	int go, status;

	assert_int_equal(hpm_evlist__parse(ctx, spec, &list, NULL), 0);
	pid_t pid = start_calls(&go);
	struct hpm_record_opts o = { .sz = sizeof(o), .target = HPM_TARGET_EXEC, .ids = &pid,
				     .nr_ids = 1, .callchain = cc, .stop_at_exec = true };
	struct hpm_record *r = hpm_record__new(list, &o);
	assert_non_null(r);
	s->r = r;
	assert_int_equal(hpm_record__open(r), 0);
	assert_null(hpm_record__event_how(r, 0)); /* not before the exec */
	assert_int_equal(write(go, "g", 1), 1);
	close(go);
	assert_int_equal(hpm_record__complete_exec(r), 0);
	assert_non_null(hpm_record__event_how(r, 0));
	assert_null(hpm_record__event_message(r, 0));
	assert_int_equal(hpm_record__attr(r, 0)->sample_period, 1);
	while (waitpid(pid, &status, WNOHANG) == 0) {
		assert_true(hpm_record__drain(r, on_rec, s) >= 0);
		usleep(1000);
	}
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	hpm_record__disable(r);
	assert_true(hpm_record__drain(r, on_rec, s) >= 0);
	struct hpm_record_stats st;
	hpm_record__stats(r, &st);
	assert_int_equal(st.lost + st.lost_samples, 0);
	hpm_record__free(r);
	hpm_evlist__free(list);
	hpm_ctx__free(ctx);
}

static void test_needs_stop_at_exec(void **state)
{
	(void)state;
	struct hpm_ctx *ctx = hpm_ctx__new(NULL);
	struct hpm_evlist *list;
	int go, status;

	assert_int_equal(hpm_evlist__parse(ctx, "cpu-clock,exec:hpm_work", &list, NULL), 0);
	pid_t pid = start_calls(&go);
	struct hpm_record_opts o = { .sz = sizeof(o), .target = HPM_TARGET_EXEC, .ids = &pid,
				     .nr_ids = 1 };
	struct hpm_record *r = hpm_record__new(list, &o);
	assert_non_null(r);
	assert_int_equal(hpm_record__open(r), -EOPNOTSUPP);
	assert_int_equal(hpm_record__failed_event(r), 1);
	assert_non_null(strstr(hpm_record__event_message(r, 1), "stop_at_exec"));
	assert_null(hpm_record__event_message(r, 0));
	close(go); /* it exits 127 without exec'ing */
	assert_int_equal(waitpid(pid, &status, 0), pid);
	hpm_record__free(r);
	hpm_evlist__free(list);
	hpm_ctx__free(ctx);
}

static void test_breakpoint(void **state)
{
	(void)state;
	if (!host_bp_fires())
		hpm_skip_test("hardware breakpoints do not fire here (e2e/record-exec checks that "
			      "':bp' is refused)");
	struct seen s = { 0 };
	record_calls("exec:hpm_work:bp", HPM_CALLCHAIN_NONE, &s);
	assert_int_equal(s.samples, NR_CALLS);
	assert_int_equal(s.other_ev, 0);
	assert_int_equal(s.completed, 0); /* no chains asked for */
	/* the side band from the exec on: a dummy carries it */
	assert_true(s.mmaps >= 2); /* the program and the dynamic loader at least */
	assert_true(s.comms >= 1);
}

static void test_entry_chain(void **state)
{
	(void)state;
	uint64_t base = shell_number("setarch $(uname -m) -R " CALLS " --base");
	uint64_t lo = shell_number("nm " CALLS " | awk '$3 == \"main\" { print $1 }'");
	uint64_t size = shell_number("nm -S " CALLS " | awk '$4 == \"main\" { print $2 }'");
	assert_true(lo && size);
	/* a PIE's base, or 0 when linked where it runs */
	if (lo >= base)
		base = 0;
	if (!host_bp_fires() && !can_uprobe())
		hpm_skip_test("hardware breakpoints do not fire here and uprobes need root");
	for (int k = host_bp_fires() ? 0 : 1; k < (can_uprobe() ? 2 : 1); k++) {
		struct seen s = { .main_lo = base + lo, .main_hi = base + lo + size };
		record_calls(k ? "exec:hpm_work:uprobe" : "exec:hpm_work:bp", HPM_CALLCHAIN_FP, &s);
		assert_int_equal(s.samples, NR_CALLS);
		assert_int_equal(s.completed, NR_CALLS);
		assert_int_equal(s.callers_in_main, NR_CALLS);
	}
}

static void test_uprobe(void **state)
{
	(void)state;
	char line[512], mine[64];
	if (!can_uprobe()) {
		skip();
		return;
	}
	struct seen s = { 0 };
	record_calls("exec:hpm_work:uprobe", HPM_CALLCHAIN_NONE, &s);
	assert_int_equal(s.samples, NR_CALLS);
	/* the session's uprobe went with it */
	snprintf(mine, sizeof(mine), "hpmon_%d/", (int)getpid());
	FILE *f = fopen("/sys/kernel/tracing/uprobe_events", "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f))
		assert_null(strstr(line, mine));
	fclose(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_needs_stop_at_exec),
		cmocka_unit_test(test_breakpoint),
		cmocka_unit_test(test_uprobe),
		cmocka_unit_test(test_entry_chain),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
