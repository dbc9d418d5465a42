// SPDX-License-Identifier: MIT
/*
 * Room: tests/shims/ (the fake PMU of the parity harness), libc only.
 * Ownership: fake-pmu.c owns the fake events and the lock; clock.c owns
 * the fake clock and the workload's end. Nothing here is exported: the
 * shim's only interface is the libc functions it replaces.
 */
#ifndef HPM_TESTS_FAKE_PMU_H
#define HPM_TESTS_FAKE_PMU_H

#include <pthread.h>
#include <stdint.h>

#define FP_HIDDEN __attribute__((visibility("hidden")))

/* fake-pmu.c: guards the events and the clock */
extern pthread_mutex_t fp_lock FP_HIDDEN;
/* fake-pmu.c: libc's @name (the next in the lookup order); aborts if none */
FP_HIDDEN void *fp_real(const char *name);
/* fake-pmu.c, under fp_lock: @n workloads of @d ns in all have ended; the
 * enabled events gain their time and counts */
FP_HIDDEN void fp_advance_locked(uint64_t d, int n);
/* clock.c, under fp_lock: applies the ends of workloads seen since */
FP_HIDDEN void fp_catch_up_locked(void);

#endif
