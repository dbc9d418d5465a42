/* SPDX-License-Identifier: MIT */
/*
 * hpm_sysinfo__read against recorded sysfs/procfs trees of other machines
 * (tests/data), trees written here for one fact each, and, without
 * asserting machine-specific values, the machine the test runs on.
 */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include <hpmon/hpmon.h>
#include <hpmon/sysinfo.h>

#define DATA HPM_TEST_DATA
#define UNKNOWN HPM_SYSINFO_UNKNOWN

static struct hpm_sysinfo *read_tree(const char *sysfs, const char *procfs,
				     const char *tracefs)
{
	struct hpm_ctx_opts o = {
		.sz = sizeof(o), .sysfs_root = sysfs, .procfs_root = procfs,
		.tracefs_root = tracefs,
	};
	struct hpm_ctx *ctx = hpm_ctx__new(&o);
	assert_non_null(ctx);
	struct hpm_sysinfo_opts so = { .sz = sizeof(so), .flags = 0 };
	struct hpm_sysinfo *si = hpm_sysinfo__read(ctx, &so);
	assert_non_null(si);
	hpm_ctx__free(ctx); /* the facts do not refer to the context */
	return si;
}

/* ---- scratch trees ---- */

static char scratch[PATH_MAX];

static void put(const char *rel, const char *text, size_t len)
{
	char path[PATH_MAX * 2];
	snprintf(path, sizeof(path), "%s/%s", scratch, rel);
	for (char *p = path + strlen(scratch) + 1; (p = strchr(p, '/')); p++) {
		*p = '\0';
		mkdir(path, 0755);
		*p = '/';
	}
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(fwrite(text, 1, len, f), len);
	fclose(f);
}

static void puts_(const char *rel, const char *text)
{
	put(rel, text, strlen(text));
}

static int mk_scratch(void **state)
{
	(void)state;
	snprintf(scratch, sizeof(scratch), "%s/hpmon-sysinfo.XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	assert_non_null(mkdtemp(scratch));
	return 0;
}

static int rm_scratch(void **state)
{
	char cmd[PATH_MAX + 16];
	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", scratch);
	return system(cmd) == 0 ? 0 : -1;
}

static char *in_scratch(const char *rel)
{
	static char path[PATH_MAX * 2];
	snprintf(path, sizeof(path), "%s/%s", scratch, rel);
	return path;
}

/* ---- recorded machines ---- */

static void test_x86_vm_nopmu(void **state)
{
	(void)state;
	struct hpm_sysinfo *si = read_tree(DATA "/sysfs-x86-vm-nopmu",
					   DATA "/procfs-x86-vm", DATA "/tracefs");

	assert_string_equal(si->arch, "x86_64");
	assert_string_equal(si->cpu_vendor, "GenuineIntel");
	assert_string_equal(si->cpu_model, "Intel(R) Xeon(R) Processor");
	assert_int_equal(si->cpu_family, 6);
	assert_int_equal(si->cpu_model_nr, 207);
	assert_int_equal(si->cpu_stepping, 2);
	assert_true(si->midr == 0);
	assert_int_equal(si->nr_cpus_online, 2);
	assert_string_equal(si->kernel_release, "6.18.44-fc-v657");
	assert_int_equal(si->hypervisor, HPM_YES);
	assert_string_equal(si->hypervisor_how, "cpuinfo flag");
	assert_int_equal(si->perf_event_paranoid, 2);
	assert_int_equal(si->perf_event_max_sample_rate, 100000);
	assert_int_equal(si->perf_event_mlock_kb, 516);
	assert_int_equal(si->nmi_watchdog, 0);
	assert_int_equal(si->perf_user_access, UNKNOWN);
	/* recorded as root */
	assert_int_equal(si->cap_perfmon, HPM_YES);
	assert_int_equal(si->cap_sys_admin, HPM_YES);
	assert_true(si->allow_open && si->allow_kernel && si->allow_cpu_wide &&
		    si->allow_raw_tp);
	assert_string_equal(si->tracefs, DATA "/tracefs");
	assert_true(si->tracefs_readable);
	/* nothing was opened */
	assert_int_equal(si->rdpmc, HPM_UNKNOWN);
	assert_int_equal(si->rdpmc_sysfs, UNKNOWN);

	assert_int_equal(si->nr_core_pmus, 0);
	assert_int_equal(si->nr_pmus, 6);
	const struct hpm_pmu_info *sw = hpm_sysinfo__pmu(si, "software");
	assert_non_null(sw);
	assert_int_equal(sw->type, 1);
	assert_false(sw->core);
	assert_int_equal(sw->source, HPM_COUNTERS_NONE);
	const struct hpm_pmu_info *msr = hpm_sysinfo__pmu(si, "msr");
	assert_non_null(msr);
	assert_int_equal(msr->nr_aliases, 2); /* smi, tsc */
	assert_null(hpm_sysinfo__pmu(si, "cpu"));
	hpm_sysinfo__free(si);
}

static void test_arm_n1(void **state)
{
	(void)state;
	struct hpm_sysinfo *si = read_tree(DATA "/sysfs-arm-n1",
					   DATA "/procfs-arm-n1", NULL);

	assert_string_equal(si->arch, "aarch64");
	assert_string_equal(si->cpu_vendor, "ARM");
	assert_string_equal(si->cpu_model, "Neoverse N1 r3p1");
	assert_true(si->midr == 0x413fd0c1);
	assert_int_equal(si->cpu_family, UNKNOWN);
	assert_int_equal(si->nr_cpus_online, 80);
	assert_string_equal(si->kernel_release, "6.8.0-49-generic");
	/* no cpuinfo flag, devicetree or DMI says either way */
	assert_int_equal(si->hypervisor, HPM_UNKNOWN);
	assert_int_equal(si->nmi_watchdog, UNKNOWN);
	assert_int_equal(si->perf_user_access, 0);
	/* paranoid 4, no capabilities: nothing at all */
	assert_int_equal(si->perf_event_paranoid, 4);
	assert_int_equal(si->cap_perfmon, HPM_NO);
	assert_int_equal(si->cap_sys_admin, HPM_NO);
	assert_false(si->allow_open);
	assert_false(si->allow_kernel);
	assert_false(si->allow_cpu_wide);
	assert_string_equal(si->tracefs, "");
	assert_false(si->tracefs_readable);

	assert_int_equal(si->nr_core_pmus, 1);
	const struct hpm_pmu_info *p = &si->pmus[0]; /* core PMUs first */
	assert_string_equal(p->name, "armv8_pmuv3_0");
	assert_true(p->core);
	assert_string_equal(p->cpus, "0-79");
	assert_int_equal(p->nr_aliases, 45);
	/* arm64 caps/ (slots, bus_slots, bus_width) state no counters */
	assert_int_equal(p->source, HPM_COUNTERS_UNKNOWN);
	assert_int_equal(p->nr_general, UNKNOWN);
	const struct hpm_pmu_info *spe = hpm_sysinfo__pmu(si, "arm_spe_0");
	assert_non_null(spe);
	assert_false(spe->core);
	assert_int_equal(spe->source, HPM_COUNTERS_UNKNOWN);
	hpm_sysinfo__free(si);
}

static void test_intel_skl(void **state)
{
	(void)state;
	struct hpm_sysinfo *si = read_tree(DATA "/sysfs-intel-skl",
					   DATA "/procfs-x86-vm", NULL);
	const struct hpm_pmu_info *cpu = hpm_sysinfo__pmu(si, "cpu");

	assert_int_equal(si->nr_core_pmus, 1);
	assert_ptr_equal(cpu, &si->pmus[0]);
	assert_int_equal(cpu->type, 4);
	assert_true(cpu->core);
	assert_string_equal(cpu->caps_name, "skylake");
	assert_int_equal(cpu->max_precise, 3);
	assert_string_equal(cpu->cpus, "");
	assert_int_equal(cpu->source, HPM_COUNTERS_UNKNOWN);
	assert_int_equal(si->rdpmc_sysfs, 1);
	assert_int_equal(hpm_sysinfo__pmu(si, "uncore_imc")->source,
			 HPM_COUNTERS_UNKNOWN);
	assert_int_equal(hpm_sysinfo__pmu(si, "power")->source, HPM_COUNTERS_NONE);
	hpm_sysinfo__free(si);
}

static void test_intel_adl_hybrid(void **state)
{
	(void)state;
	struct hpm_sysinfo *si = read_tree(DATA "/sysfs-intel-adl",
					   DATA "/procfs-x86-vm", NULL);

	assert_int_equal(si->nr_core_pmus, 2);
	assert_string_equal(si->pmus[0].name, "cpu_atom");
	assert_string_equal(si->pmus[0].cpus, "16-23");
	assert_int_equal(si->pmus[0].type, 10);
	assert_string_equal(si->pmus[1].name, "cpu_core");
	assert_string_equal(si->pmus[1].cpus, "0-15");
	assert_int_equal(si->pmus[1].type, 4);
	assert_false(si->pmus[2].core);
	hpm_sysinfo__free(si);
}

/* ---- one fact per scratch tree ---- */

static const struct {
	int line;
	const char *paranoid; /* NULL: file absent */
	const char *capeff;
	bool open, kernel, cpu_wide, raw_tp;
} access_rows[] = {
	{ __LINE__, "-1", "0000000000000000", true, true, true, true },
	{ __LINE__, "0", "0000000000000000", true, true, true, false },
	{ __LINE__, "1", "0000000000000000", true, true, false, false },
	{ __LINE__, "2", "0000000000000000", true, false, false, false },
	{ __LINE__, "3", "0000000000000000", false, false, false, false },
	/* unreadable: the kernel default, 2 */
	{ __LINE__, NULL, "0000000000000000", true, false, false, false },
	/* CAP_PERFMON (bit 38) lifts every limit */
	{ __LINE__, "3", "0000004000000000", true, true, true, true },
	/* so does CAP_SYS_ADMIN (bit 21) */
	{ __LINE__, "2", "0000000000200000", true, true, true, true },
};

static void test_access_table(void **state)
{
	char status[256];
	(void)state;

	for (size_t i = 0; i < sizeof(access_rows) / sizeof(access_rows[0]); i++) {
		rm_scratch(NULL);
		mk_scratch(NULL);
		if (access_rows[i].paranoid)
			puts_("proc/sys/kernel/perf_event_paranoid", access_rows[i].paranoid);
		snprintf(status, sizeof(status), "Name:\tx\nCapInh:\t0\nCapEff:\t%s\n",
			 access_rows[i].capeff);
		puts_("proc/self/status", status);
		mkdir(in_scratch("sys"), 0755);
		char sys[PATH_MAX * 2], proc[PATH_MAX * 2];
		snprintf(sys, sizeof(sys), "%s", in_scratch("sys"));
		snprintf(proc, sizeof(proc), "%s", in_scratch("proc"));
		struct hpm_sysinfo *si = read_tree(sys, proc, NULL);
		bool got[4] = { si->allow_open, si->allow_kernel, si->allow_cpu_wide,
				si->allow_raw_tp };
		hpm_sysinfo__free(si);
		if (got[0] != access_rows[i].open || got[1] != access_rows[i].kernel ||
		    got[2] != access_rows[i].cpu_wide || got[3] != access_rows[i].raw_tp)
			fail_msg("row at line %d: got open %d kernel %d cpu-wide %d raw-tp %d",
				 access_rows[i].line, got[0], got[1], got[2], got[3]);
	}
}

static void test_caps_counters(void **state)
{
	(void)state;
	puts_("sys/bus/event_source/devices/cpu/type", "4\n");
	puts_("sys/bus/event_source/devices/cpu/caps/num_counters", "8\n");
	puts_("sys/bus/event_source/devices/cpu/caps/num_counters_fixed", "4\n");
	puts_("proc/sys/kernel/nmi_watchdog", "1\n");
	char sys[PATH_MAX * 2], proc[PATH_MAX * 2];
	snprintf(sys, sizeof(sys), "%s", in_scratch("sys"));
	snprintf(proc, sizeof(proc), "%s", in_scratch("proc"));
	struct hpm_sysinfo *si = read_tree(sys, proc, NULL);

	assert_int_equal(si->nr_pmus, 1);
	assert_int_equal(si->pmus[0].source, HPM_COUNTERS_CAPS);
	assert_int_equal(si->pmus[0].nr_general, 8);
	assert_int_equal(si->pmus[0].nr_fixed, 4);
	assert_int_equal(si->nmi_watchdog, 1);
	/* no procfs facts at all: unknown, not failure */
	assert_int_equal(si->perf_event_paranoid, UNKNOWN);
	assert_string_equal(si->kernel_release, "");
	assert_int_equal(si->cap_perfmon, HPM_UNKNOWN);
	assert_int_equal(si->nr_cpus_online, UNKNOWN);
	hpm_sysinfo__free(si);
}

static void test_arm_guest_devicetree(void **state)
{
	(void)state;
	/* QEMU's "virt" board, Cortex-A72 r0p3, cpuinfo unreadable */
	static const char compat[] = "linux,dummy-virt";
	put("sys/firmware/devicetree/base/compatible", compat, sizeof(compat));
	puts_("sys/devices/system/cpu/cpu0/regs/identification/midr_el1",
	      "0x00000000410fd083\n");
	puts_("sys/devices/system/cpu/online", "0-3\n");
	char sys[PATH_MAX * 2];
	snprintf(sys, sizeof(sys), "%s", in_scratch("sys"));
	struct hpm_sysinfo *si = read_tree(sys, in_scratch("proc"), NULL);

	assert_string_equal(si->arch, "aarch64");
	assert_string_equal(si->cpu_model, "Cortex-A72 r0p3");
	assert_string_equal(si->cpu_vendor, "ARM");
	assert_int_equal(si->nr_cpus_online, 4);
	assert_int_equal(si->hypervisor, HPM_YES);
	assert_non_null(strstr(si->hypervisor_how, "dummy-virt"));
	assert_int_equal(si->nr_pmus, 0);
	hpm_sysinfo__free(si);
}

static void test_unknown_arm_part(void **state)
{
	(void)state;
	/* QEMU's "max" CPU: implementer 0, part 0x051 */
	puts_("sys/devices/system/cpu/cpu0/regs/identification/midr_el1",
	      "0x00000000000f0510\n");
	char sys[PATH_MAX * 2];
	snprintf(sys, sizeof(sys), "%s", in_scratch("sys"));
	struct hpm_sysinfo *si = read_tree(sys, in_scratch("proc"), NULL);

	assert_string_equal(si->cpu_model, "part 0x051 r0p0");
	assert_string_equal(si->cpu_vendor, "software-defined");
	hpm_sysinfo__free(si);
}

static void test_opts(void **state)
{
	(void)state;
	struct hpm_ctx *ctx = hpm_ctx__new(NULL);
	struct hpm_sysinfo_opts bad = { .sz = 1 };

	assert_non_null(ctx);
	errno = 0;
	assert_null(hpm_sysinfo__read(ctx, &bad));
	assert_int_equal(errno, EINVAL);
	hpm_sysinfo__free(NULL);
	assert_string_equal(hpm_counters_source__str(HPM_COUNTERS_PROBED), "probed");
	assert_string_equal(hpm_counters_source__str((enum hpm_counters_source)99),
			    "unknown");
	hpm_ctx__free(ctx);
}

/*
 * One event probed on this thread: a software clock opens at any paranoid
 * level when user mode only; an unknown type and unknown flags do not.
 * The attribute is left as it was given.
 */
static void test_probe(void **state)
{
	(void)state;
	struct perf_event_attr a = { .size = sizeof(a), .type = PERF_TYPE_SOFTWARE,
				     .config = PERF_COUNT_SW_TASK_CLOCK };
	bool user_only = false;

	assert_int_equal(hpm_sysinfo__probe(&a, 0, -1, HPM_PROBE_USER_ONLY, &user_only), 0);
	assert_true(user_only);
	assert_int_equal(a.exclude_kernel, 0);
	assert_int_equal(hpm_sysinfo__probe(&a, 0, -1, HPM_PROBE_FALLBACK_USER, NULL), 0);
	assert_int_equal(hpm_sysinfo__probe(&a, 0, -1, 0x80, NULL), -EINVAL);
	struct perf_event_attr bad = a;
	bad.type = 0x7fffffff;
	assert_true(hpm_sysinfo__probe(&bad, 0, -1, HPM_PROBE_USER_ONLY, NULL) < 0);
}

/*
 * The machine the test runs on, probes included: only what holds
 * everywhere (a VM without a PMU, the arm64 guest, bare metal).
 */
static void test_live(void **state)
{
	(void)state;
	struct hpm_ctx *ctx = hpm_ctx__new(NULL);
	struct hpm_sysinfo_opts so = {
		.sz = sizeof(so),
		.flags = HPM_SYSINFO_PROBE_RDPMC | HPM_SYSINFO_PROBE_COUNTERS,
	};
	assert_non_null(ctx);
	struct hpm_sysinfo *si = hpm_sysinfo__read(ctx, &so);
	assert_non_null(si);

	assert_true(si->kernel_release[0] != '\0');
	assert_true(si->arch[0] != '\0');
	assert_true(si->nr_cpus_online >= 1);
	assert_true(si->cap_perfmon != HPM_UNKNOWN);
	assert_non_null(hpm_sysinfo__pmu(si, "software"));
	if (si->nr_core_pmus == 0) {
		assert_int_equal(si->rdpmc, HPM_NO);
		assert_int_equal(si->rdpmc_err, -ENODEV);
	}
	for (size_t i = 0; i < si->nr_pmus; i++) {
		const struct hpm_pmu_info *p = &si->pmus[i];
		if (!p->core)
			continue;
		print_message("%s: %d general + %d fixed (%s) err %d\n", p->name,
			      p->nr_general, p->nr_fixed,
			      hpm_counters_source__str(p->source), p->probe_err);
		/* probed, read from caps/CPUID, or the probe said why not */
		assert_true(p->source != HPM_COUNTERS_UNKNOWN || p->probe_err);
		if (p->source == HPM_COUNTERS_PROBED) {
			assert_true(p->nr_general >= 1);
			assert_true(p->nr_fixed >= 0);
		}
	}
	hpm_sysinfo__free(si);
	hpm_ctx__free(ctx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_x86_vm_nopmu),
		cmocka_unit_test(test_arm_n1),
		cmocka_unit_test(test_intel_skl),
		cmocka_unit_test(test_intel_adl_hybrid),
		cmocka_unit_test_setup_teardown(test_access_table, mk_scratch, rm_scratch),
		cmocka_unit_test_setup_teardown(test_caps_counters, mk_scratch, rm_scratch),
		cmocka_unit_test_setup_teardown(test_arm_guest_devicetree, mk_scratch, rm_scratch),
		cmocka_unit_test_setup_teardown(test_unknown_arm_part, mk_scratch, rm_scratch),
		cmocka_unit_test(test_opts),
		cmocka_unit_test(test_probe),
		cmocka_unit_test(test_live),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
