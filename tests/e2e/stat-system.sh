#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# System-wide counting: -a -C 0 -A prints CPU 0 alone, -a sums every
# online CPU, -A splits them; cpu-clock of a CPU is the wall-clock time
# the command ran.
. "$(dirname "$0")/lib.sh"

[ "$(id -u)" -eq 0 ] || [ "$(cat /proc/sys/kernel/perf_event_paranoid)" -le 0 ] ||
	skip "system-wide counting needs root or perf_event_paranoid <= 0"

ncpu=$(getconf _NPROCESSORS_ONLN)

hpm_ok stat -a -C 0 -A -x, -e cpu-clock,context-switches -- sleep 0.3
cp "$E2E_TMP/err" "$E2E_TMP/a.csv"
expect_eq "lines of -a -C 0 -A" 2 "$(grep -c . "$E2E_TMP/a.csv")"
expect_eq "CPU column" "CPU0 CPU0" "$(cut -d, -f1 "$E2E_TMP/a.csv" | xargs)"
expect_in "cpu-clock (msec) of CPU0 over 300 ms" 250 800 \
	"$(csv "$E2E_TMP/a.csv" , "num(ev('cpu-clock')[0][1])")"
expect_eq "CPU0 line has 8 fields" 8 "$(csv "$E2E_TMP/a.csv" , "len(ev('cpu-clock')[0])")"

if [ "$ncpu" -ge 2 ]; then
	hpm_ok stat -a -C 0,1 -A -x, -e cpu-clock -- sleep 0.2
	expect_eq "CPU column of -C 0,1 -A" "CPU0 CPU1" "$(cut -d, -f1 "$E2E_TMP/err" | xargs)"
	hpm_ok stat -a -C 0-1 -x, -e cpu-clock -- sleep 0.2
	expect_eq "lines of -a -C 0-1 without -A" 1 "$(grep -c . "$E2E_TMP/err")"
	expect_in "cpu-clock (msec) of 2 CPUs over 200 ms" 330 1200 \
		"$(csv "$E2E_TMP/err" , "num(ev('cpu-clock')[0][0])")"
fi

hpm_ok stat -a -x, -e cpu-clock -- sleep 0.2
expect_in "cpu-clock (msec) of all $ncpu CPUs over 200 ms" $((ncpu * 170)) $((ncpu * 600)) \
	"$(csv "$E2E_TMP/err" , "num(ev('cpu-clock')[0][0])")"

# JSON: a cpus array, each CPU with its events.
hpm_ok stat -a -A --json -o "$E2E_TMP/a.json" -e cpu-clock -- sleep 0.2
expect_eq "JSON cpus" "$(seq -s, 0 $((ncpu - 1)))" \
	"$(json "$E2E_TMP/a.json" "','.join(str(c['cpu']) for c in j['cpus'])")"
expect_eq "JSON cpu-clock of CPUs add up to the total" True \
	"$(json "$E2E_TMP/a.json" "abs(sum(event(c, 'cpu-clock')['count'] for c in j['cpus']) - event(j, 'cpu-clock')['count']) <= 1")"

# -I with -A: timestamp, then CPU.
hpm_ok stat -a -C 0 -A -I 100 -x, -e cpu-clock -- sleep 0.25
cp "$E2E_TMP/err" "$E2E_TMP/ia.csv"
expect_grep "-I -A layout" '^ *[0-9]+\.[0-9]{9},CPU0,[0-9.]+,msec,cpu-clock,' "$E2E_TMP/ia.csv"

if have_perf; then
	perf stat -a -C 0 -A -x, -e cpu-clock,context-switches -- sleep 0.3 2>"$E2E_TMP/p-a.csv"
	same_layout "-a -C 0 -A -x," "$E2E_TMP/a.csv" "$E2E_TMP/p-a.csv" , cpu-clock,context-switches
	perf stat -a -C 0 -A -I 100 -x, -e cpu-clock -- sleep 0.25 2>"$E2E_TMP/p-ia.csv"
	same_layout "-a -C 0 -A -I 100 -x," "$E2E_TMP/ia.csv" "$E2E_TMP/p-ia.csv" , cpu-clock
fi

# A CPU that does not exist: an error that names it.
hpm stat -a -C 4096 -e cpu-clock -- true
[ "$HPM_STATUS" -ne 0 ] || fail "-C 4096 succeeded"
expect_grep "message for -C 4096" '4096' "$E2E_TMP/err"
echo "PASS: $E2E_NAME"
