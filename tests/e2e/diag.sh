#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# hpmon diag: one fact per line, a line per PMU, then each problem with
# its fix; --json holds the same facts; recorded trees of other machines
# give their facts and their problems.
. "$(dirname "$0")/lib.sh"

: "${TESTDATA:?TESTDATA must name tests/data}"
devices=/sys/bus/event_source/devices

# ---- this machine ----
hpm_ok diag
out=$E2E_TMP/out
expect_grep "CPU line" '^CPU: +[^ ]' "$out"
expect_grep "kernel release" "^Kernel: +$(uname -r)\$" "$out"
expect_grep "paranoid and what it allows" \
	"^perf_event_paranoid: +$(cat /proc/sys/kernel/perf_event_paranoid) \\(for you: " "$out"
expect_grep "capabilities" '^Capabilities: +CAP_PERFMON (yes|no), CAP_SYS_ADMIN (yes|no)$' "$out"
expect_grep "NMI watchdog" '^NMI watchdog: ' "$out"
expect_grep "rdpmc" '^rdpmc: ' "$out"
expect_grep "hypervisor" '^Hypervisor: +(yes|no|unknown)' "$out"
expect_grep "tracefs" '^tracefs: ' "$out"
expect_grep "problems section" '^Problems and fixes:$' "$out"

# Every PMU of sysfs has its line, with its type and where its counter
# count came from.
for d in "$devices"/*; do
	name=${d##*/}
	type=$(cat "$d/type")
	expect_grep "line of PMU $name" \
		"^PMU $name \\(type $type\\): .*\\(source: (caps|cpuid|probed|unknown|none)\\)\$" "$out"
done

core=
for d in "$devices"/*; do
	case ${d##*/} in cpu | cpu_core | cpu_atom) core=${d##*/} ;; esac
	[ -n "$core" ] || [ ! -e "$d/cpus" ] || core=${d##*/}
done
if [ -z "$core" ]; then
	# No core PMU: said to be the problem it is, with a fix, and the core
	# PMU does not appear in the list.
	if grep -qw hypervisor /proc/cpuinfo; then
		# what works, as measured: breakpoints only where they fire
		works="software events, breakpoints, tracepoints and uprobes"
		host_bp_fires || works="software events, tracepoints and uprobes"
		expect_grep "no-PMU problem" \
			"^  - this machine exposes no hardware PMU \\(virtual machine without PMU passthrough\\): hardware events cannot be counted; $works work\$" "$out"
		grep -A1 'exposes no hardware PMU' "$out" | grep -q '^    fix: ' ||
			fail "the no-PMU problem has no fix line: $(cat "$out")"
	fi
	expect_grep "no core PMU counted" '^PMUs: +[0-9]+, 0 core$' "$out"
	expect_grep "rdpmc without a PMU" '^rdpmc: +no: no hardware PMU$' "$out"
else
	expect_grep "core PMU counters" \
		"^PMU $core \\(type [0-9]+\\): [0-9]+ general counters? .*\\(source: (caps|cpuid|probed)\\)\$" "$out"
	expect_no_grep "no-PMU problem with a PMU" 'exposes no hardware PMU' "$out"
fi

# Breakpoints as measured, the same as perf finds them here.
if host_bp_fires; then
	expect_grep "breakpoints fire" '^Breakpoints: +on code: fire \(3 of 3 uses counted\); on data: ' "$out"
	expect_no_grep "no breakpoint problem" 'breakpoints do not fire' "$out"
else
	expect_grep "breakpoints do not fire" '^Breakpoints: +on code: do not fire \(0 of 3 uses counted\)' "$out"
	expect_grep "the breakpoint problem" "^  - hardware breakpoints do not fire on this host .*hpmon counts exec: events with uprobes" "$out"
fi

# The vdso's functions, as the kernel's image itself lists them: dumped
# from this shell's python, read by readelf (the same image in every
# process); none on some kernels, where perf names none either.
python3 - "$E2E_TMP/vdso.so" <<'PY'
import re, sys
for l in open("/proc/self/maps"):
    if l.rstrip().endswith("[vdso]"):
        lo, hi = (int(x, 16) for x in l.split()[0].split("-"))
        try:
            with open("/proc/self/mem", "rb") as m:
                m.seek(lo)
                open(sys.argv[1], "wb").write(m.read(hi - lo))
        except OSError:
            pass
PY
if [ -s "$E2E_TMP/vdso.so" ] && command -v readelf >/dev/null; then
	want=$(readelf -W --syms "$E2E_TMP/vdso.so" 2>/dev/null |
		awk '$4 == "FUNC" && $7 != "UND"' | wc -l)
	if [ "$want" -eq 0 ]; then
		expect_grep "vdso without symbols" '^vdso symbols: +none: its samples are named \[vdso\] alone' "$out"
	else
		expect_grep "vdso functions, as readelf counts them" "^vdso symbols: +$want functions\$" "$out"
	fi
else
	note "no vdso to dump here: its line is not checked"
fi
# What samples carry, measured: said either way, never assumed.
expect_grep "user stacks, measured" '^User stacks: +(copied|not copied) into samples' "$out"
expect_grep "kernel call chains, measured" '^Kernel call chains: +(kernel frames in samples|no kernel frame in samples|not asked for)' "$out"

# --no-probe opens nothing, so rdpmc is not known.
hpm_ok diag --no-probe
expect_grep "rdpmc not probed" '^rdpmc: +(sysfs rdpmc=[0-9]+ )?\(?not probed\)?$' "$E2E_TMP/out"

# ---- JSON ----
hpm_ok diag --json
json "$E2E_TMP/out" 'j' >/dev/null
expect_eq "JSON kernel release" "$(uname -r)" "$(json "$E2E_TMP/out" 'j["kernel"]["release"]')"
expect_eq "JSON paranoid" "$(cat /proc/sys/kernel/perf_event_paranoid)" \
	"$(json "$E2E_TMP/out" 'j["kernel"]["perf_event_paranoid"]')"
expect_eq "JSON PMUs" "$(ls "$devices" | sort | tr '\n' ' ')" \
	"$(json "$E2E_TMP/out" '" ".join(sorted(p["name"] for p in j["pmus"])) + " "')"
expect_eq "JSON problems have a fix" True \
	"$(json "$E2E_TMP/out" 'all(p["problem"] and p["fix"] for p in j["problems"])')"
expect_eq "JSON keys" "breakpoints caller cpu hypervisor kernel pmus problems rdpmc samples tracefs uprobe_leftovers uprobes vdso" \
	"$(json "$E2E_TMP/out" '" ".join(sorted(j))')"
fires=False
host_bp_fires && fires=True
expect_eq "JSON breakpoints on code as measured" "$fires" \
	"$(json "$E2E_TMP/out" 'j["breakpoints"]["code"]["fires"]')"
if [ -z "$core" ]; then
	expect_eq "JSON no-PMU problem" True \
		"$(json "$E2E_TMP/out" 'any("no hardware PMU" in p["problem"] for p in j["problems"])')"
fi

# ---- recorded machines ----
# Neoverse N1 server, an unprivileged user at Ubuntu's paranoid level 4.
HPMON_SYSFS_ROOT=$TESTDATA/sysfs-arm-n1 HPMON_PROCFS_ROOT=$TESTDATA/procfs-arm-n1 hpm_ok diag
out=$E2E_TMP/out
expect_grep "N1 CPU" '^CPU: +Neoverse N1 r3p1 \(ARM, MIDR 0x00000000413fd0c1\)$' "$out"
expect_grep "N1 arch" '^Architecture: +aarch64$' "$out"
expect_grep "N1 CPUs" '^CPUs online: +80$' "$out"
expect_grep "N1 kernel" '^Kernel: +6\.8\.0-49-generic$' "$out"
expect_grep "N1 paranoid" '^perf_event_paranoid: +4 \(for you: unprivileged users may not use perf_event_open at all\)$' "$out"
expect_grep "N1 core PMU" '^PMU armv8_pmuv3_0 \(type 10\): counters unknown \(source: unknown\)$' "$out"
expect_grep "N1 paranoid problem" '^  - perf_event_paranoid is 4: unprivileged users may not open any counter$' "$out"
expect_grep "N1 paranoid fix" '^    fix: sysctl -w kernel.perf_event_paranoid=2 .*CAP_PERFMON' "$out"
# CAP_PERFMON is offered with its risk and the group recipe of the
# kernel's perf-security documentation
expect_grep "N1 CAP_PERFMON warning" "CAP_PERFMON for one group only, as it lets them read other users' memory" "$out"
expect_grep "N1 CAP_PERFMON recipe" 'groupadd perf_users; chgrp perf_users HPMON; chmod o-rwx HPMON; setcap cap_perfmon,cap_sys_ptrace,cap_syslog=ep HPMON \(HPMON: \$\(command -v hpmon\); docs/hpmon-diag.md\)$' "$out"
expect_grep "N1 tracefs problem" '^  - tracefs is not mounted' "$out"
expect_no_grep "N1 has a PMU" 'exposes no hardware PMU' "$out"

# The development VM as recorded, as root, with its tracepoints.
HPMON_SYSFS_ROOT=$TESTDATA/sysfs-x86-vm-nopmu HPMON_PROCFS_ROOT=$TESTDATA/procfs-x86-vm \
	HPMON_TRACEFS_ROOT=$TESTDATA/tracefs hpm_ok diag
out=$E2E_TMP/out
expect_grep "VM CPU" '^CPU: +Intel\(R\) Xeon\(R\) Processor \(GenuineIntel, family 6 model 207 stepping 2\)$' "$out"
expect_grep "VM hypervisor" '^Hypervisor: +yes \(cpuinfo flag\)$' "$out"
expect_grep "VM paranoid as root" '^perf_event_paranoid: +2 \(for you: everything: you have CAP_PERFMON\)$' "$out"
expect_grep "VM PMU line" '^PMU msr \(type 10\): no counters to allocate \(source: none\)$' "$out"
expect_grep "VM tracefs" "^tracefs: +$TESTDATA/tracefs \\(readable\\)\$" "$out"
expect_grep "VM no-PMU problem" '^  - this machine exposes no hardware PMU \(virtual machine without PMU passthrough\)' "$out"
expect_no_grep "root has no paranoid problem" 'needs perf_event_paranoid' "$out"

# The same VM as an unprivileged user, with the NMI watchdog on and a core
# PMU (Skylake's sysfs): paranoid 2 problems and the watchdog's counter.
proc=$E2E_TMP/proc
cp -r "$TESTDATA/procfs-x86-vm" "$proc"
echo 1 >"$proc/sys/kernel/nmi_watchdog"
printf 'Name:\tx\nCapEff:\t0000000000000000\n' >"$proc/self/status"
HPMON_SYSFS_ROOT=$TESTDATA/sysfs-intel-skl HPMON_PROCFS_ROOT=$proc hpm_ok diag
out=$E2E_TMP/out
expect_grep "user paranoid 2" '^perf_event_paranoid: +2 \(for you: your own processes in user mode only' "$out"
expect_grep "kernel-mode problem" '^  - perf_event_paranoid is 2: kernel-mode counting \(:k\) needs perf_event_paranoid <= 1' "$out"
expect_grep "system-wide problem" '^  - system-wide counting \(-a\) needs perf_event_paranoid <= 0$' "$out"
expect_grep "system-wide fix" "^    fix: sysctl -w kernel.perf_event_paranoid=0 or CAP_PERFMON for one group only \\(docs/hpmon-diag.md: it lets them read other users' memory\\)\$" "$out"
expect_grep "watchdog problem" '^  - the NMI watchdog holds one counter$' "$out"
expect_grep "watchdog fix" '^    fix: sysctl -w kernel.nmi_watchdog=0$' "$out"
expect_grep "Skylake core PMU" '^PMU cpu \(type 4\): counters unknown \(source: unknown\)$' "$out"
expect_no_grep "Skylake has a PMU" 'exposes no hardware PMU' "$out"

# ---- usage ----
hpm diag --bogus
expect_eq "exit status of a bad option" 129 "$HPM_STATUS"
expect_grep "bad option named" "^hpmon diag: unknown option '--bogus'$" "$E2E_TMP/err"
hpm_ok diag --help
expect_grep "help" '^usage: hpmon diag' "$E2E_TMP/out"
note "ok"
