/* SPDX-License-Identifier: MIT */
/*
 * A CPU-time limit per input, for every fuzzer: libFuzzer's -timeout
 * counts wall-clock seconds, which a loaded machine stretches, so
 * scripts/fuzz gives it a wide margin (for hangs, which burn no CPU) and
 * this counts what an input really costs: more than FUZZ_CPU_SECONDS of
 * the thread's CPU time raises SIGXCPU, whose handler here says so and
 * aborts: libFuzzer reports the abort as a crash and saves the input.
 *
 * A fuzzer defines fuzz_one() and includes this after it: this defines
 * LLVMFuzzerTestOneInput around it. Nothing to free: one timer for the
 * process's life.
 */
#ifndef HPMON_FUZZ_CPU_H
#define HPMON_FUZZ_CPU_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define FUZZ_CPU_SECONDS 10

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fuzz_cpu_expired(int sig)
{
	static const char m[] = "\n==fuzz-cpu: this input took more than 10 s of CPU time\n";
	(void)sig;
	if (write(STDERR_FILENO, m, sizeof(m) - 1) < 0)
		abort();
	abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static timer_t timer;
	static int ready; /* 0 not yet, 1 armed each input, -1 no timer */

	if (!ready) {
		struct sigaction sa = { .sa_handler = fuzz_cpu_expired };
		sigaction(SIGXCPU, &sa, NULL);
		struct sigevent ev = { .sigev_notify = SIGEV_SIGNAL, .sigev_signo = SIGXCPU };
		ready = timer_create(CLOCK_THREAD_CPUTIME_ID, &ev, &timer) ? -1 : 1;
	}
	struct itimerspec on = { .it_value = { FUZZ_CPU_SECONDS, 0 } }, off = { 0 };
	if (ready > 0)
		timer_settime(timer, 0, &on, NULL);
	int rc = fuzz_one(data, size);
	if (ready > 0)
		timer_settime(timer, 0, &off, NULL);
	return rc;
}

#endif
