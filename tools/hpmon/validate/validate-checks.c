/* SPDX-License-Identifier: MIT */
/*
 * What each benchmark of hpmon validate must count, and why. Hardware
 * events are counted in user mode (:u): the benchmark's answer is about
 * its own instructions, and an interrupt's kernel work would otherwise
 * land in the count. The event spellings are tried in order; the ones
 * this machine does not know (another vendor's native names) are skipped.
 * "mem:{target}:x" stands for an execute breakpoint on the benchmark's
 * called function.
 *
 * The machine's own names: Intel's as libpfm4 spells them (Skylake and
 * later), Arm's the architected PMUv3 events as the kernel names them.
 */
#include "validate/validate.h"

const struct vcheck vchecks[] = {
	{ "instructions", "loop", 8, 0, 0, false,
	  "the loop's 8 instructions (inline assembly)", NULL,
	  { "instructions:u", "PAPI_TOT_INS:u", "INST_RETIRED:ANY_P:u", "inst_retired:u" } },
	{ "cycles", "loop", 6, 8, 0.05, false,
	  "a chain of 6 dependent one-cycle adds, the loop's branch overlapped",
	  "one instruction a cycle (an in-order single-issue core, or an emulator)",
	  { "cycles:u", "PAPI_TOT_CYC:u", "cpu_cycles:u" } },
	{ "branches", "loop", 1, 0, 0, false,
	  "one conditional branch per iteration", NULL,
	  { "branches:u", "PAPI_BR_INS:u", "BR_INST_RETIRED:ALL_BRANCHES:u", "br_retired:u" } },
	{ "conditional branches", "loop", 1, 0, 0, false,
	  "one conditional branch per iteration", NULL,
	  { "PAPI_BR_CN:u", "BR_INST_RETIRED:CONDITIONAL:u" } },
	{ "taken branches", "loop", 1, 0, 0, false,
	  "the loop's branch is taken on every iteration but the last", NULL,
	  { "PAPI_BR_TKN:u", "BR_INST_RETIRED:NEAR_TAKEN:u" } },
	{ "loads", "mem", 2, 0, 0, false,
	  "two loads per iteration (inline assembly)", NULL,
	  { "PAPI_LD_INS:u", "L1-dcache-loads:u", "MEM_INST_RETIRED:ALL_LOADS:u",
	    "ld_retired:u" } },
	{ "stores", "mem", 1, 0, 0, false,
	  "one store per iteration (inline assembly)", NULL,
	  { "PAPI_SR_INS:u", "L1-dcache-stores:u", "MEM_INST_RETIRED:ALL_STORES:u",
	    "st_retired:u" } },
	{ "floating-point operations", "fp", 4, 0, 0, false,
	  "four scalar double-precision additions per iteration", NULL,
	  { "PAPI_DP_OPS:u", "PAPI_FP_OPS:u", "FP_ARITH:SCALAR_DOUBLE:u", "vfp_spec:u" } },
	{ "mispredictions, random", "branch-random", 0.5, 0, 0.10, false,
	  "a branch on random bits: half of them go against any prediction", NULL,
	  { "branch-misses:u", "PAPI_BR_MSP:u", "BR_MISP_RETIRED:ALL_BRANCHES:u",
	    "br_mis_pred_retired:u" } },
	{ "mispredictions, fixed", "branch-fixed", 0, 0, 0.01, false,
	  "the same branch always taken: a predictor learns it", NULL,
	  { "branch-misses:u", "PAPI_BR_MSP:u", "BR_MISP_RETIRED:ALL_BRANCHES:u",
	    "br_mis_pred_retired:u" } },
	{ "L1 data misses", "chase-l1", 1, 0, 0.15, false,
	  "a random pointer chase over 8 times the L1 data cache", NULL,
	  { "L1-dcache-load-misses:u", "PAPI_L1_DCM:u", "L1D:REPLACEMENT:u",
	    "l1d_cache_refill:u" } },
	{ "L2 misses", "chase-l2", 1, 0, 0.20, false,
	  "a random pointer chase over 8 times the L2 cache", NULL,
	  { "PAPI_L2_DCM:u", "L2_RQSTS:DEMAND_DATA_RD_MISS:u", "l2d_cache_refill:u" } },
	{ "last-level misses", "chase-llc", 1, 0, 0.20, false,
	  "a random pointer chase over 4 times the last-level cache", NULL,
	  { "LLC-load-misses:u", "PAPI_L3_TCM:u", "LONGEST_LAT_CACHE:MISS:u",
	    "ll_cache_miss_rd:u" } },
	{ "dTLB misses", "tlb", 1, 0, 0.20, false,
	  "a random walk over 16384 pages, one access each", NULL,
	  { "dTLB-load-misses:u", "PAPI_TLB_DM:u", "DTLB_LOAD_MISSES:WALK_COMPLETED:u",
	    "dtlb_walk:u" } },
	{ "page faults", "faults", 1, 0, 0, false,
	  "each fresh anonymous 4 KiB page touched once faults once", NULL,
	  { "page-faults", "minor-faults" } },
	{ "major page faults", "faults", 0, 0, 0, false,
	  "anonymous memory needs no disk", NULL,
	  { "major-faults" } },
	{ "context switches", "sleeps", 0, 0, 0, true,
	  "the thread's switches as the kernel counts them in rusage (each 1 us "
	  "sleep blocks once; preemptions besides)", NULL,
	  { "context-switches" } },
	{ "breakpoint hits", "calls", 1, 0, 0, false,
	  "an execute breakpoint on a function called once per unit", NULL,
	  { "mem:{target}:x" } },
};

const size_t vchecks_nr = sizeof(vchecks) / sizeof(vchecks[0]);
