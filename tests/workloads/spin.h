/* SPDX-License-Identifier: MIT */
/*
 * SPIN(n): n steps of a chain of dependent multiply-adds on the volatile
 * `sink` the including workload defines: CPU time in proportion to n,
 * which the compiler can neither drop nor shorten. One definition for the
 * workloads whose functions share time in known ratios (calltree, ratio,
 * ratio-times, renames, spinners).
 */
#ifndef HPMON_TEST_WORKLOAD_SPIN_H
#define HPMON_TEST_WORKLOAD_SPIN_H

#define SPIN(n)                                                    \
	do {                                                       \
		unsigned long x_ = sink;                           \
		for (unsigned long i_ = 0; i_ < (n); i_++)         \
			x_ = x_ * 2862933555777941757ul + i_;      \
		sink = x_;                                         \
	} while (0)

#endif
