#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Uprobes a killed hpmon left behind. hpmon names its uprobes after its
# pid (hpmon_PID/...) and removes them when it ends; killed with SIGKILL
# it cannot, and a uprobe left behind keeps its file's filesystem busy.
# Then: the leftover is still in tracefs, `hpmon diag` lists it with the
# command that removes it, and the next hpmon that defines a uprobe
# removes it, along with those of a pid that now runs another program,
# but never those of a live hpmon nor another tool's.
. "$(dirname "$0")/lib.sh"

[ "$(id -u)" -eq 0 ] || skip "needs root: only root may define uprobes"
uprobe_events=/sys/kernel/tracing/uprobe_events
[ -w "$uprobe_events" ] || skip "no $uprobe_events (tracefs not mounted, or no CONFIG_UPROBE_EVENTS)"

sleeper=$WORKLOADS/sleeper
off=$(nm "$sleeper" | awk '$3 == "main" { print $1 }')
[ -n "$off" ] || fail "no main in $sleeper"

# Every group this test may leave, removed whatever happens.
groups=()
cleanup() {
	local g p
	for g in "${groups[@]}"; do
		for p in $(grep -o "^[pr]:$g/[^ ]*" "$uprobe_events" 2>/dev/null | cut -c3-); do
			echo "-:$p" >>"$uprobe_events" 2>/dev/null || true
		done
	done
	e2e_cleanup
}
trap cleanup EXIT

# 1. A hpmon whose uprobe is defined, killed with SIGKILL.
bg "$HPMON" stat -e exec:main:uprobe -- "$sleeper" 60000
hpid=$BG_PID
groups+=("hpmon_$hpid")
wait_for "the uprobe of hpmon $hpid" 20 grep -q "hpmon_$hpid/" "$uprobe_events"
wait_for "the sleeper under hpmon $hpid" 20 descendant "$hpid" sleeper >/dev/null
child=$(descendant "$hpid" sleeper)
kill -9 "$hpid"
wait "$hpid" 2>/dev/null || true
kill "$child" 2>/dev/null || true
probe=$(grep -o "^p:hpmon_$hpid/[^ ]*" "$uprobe_events" | cut -c3-) ||
	fail "hpmon $hpid removed its uprobe though killed with SIGKILL: this test checks nothing"
[ "$(echo "$probe" | wc -l)" -eq 1 ] || fail "hpmon $hpid left several uprobes: $probe"

# 2. diag lists it, with the command that removes it.
hpm_ok diag --no-probe
expect_grep "diag lists the leftover" "^  $probe at $sleeper:0x0*$off \(hpmon process $hpid no longer runs\)" "$E2E_TMP/out"
expect_grep "diag says how to remove it" "^    remove: echo '-:$probe' >> $uprobe_events\$" "$E2E_TMP/out"
expect_grep "diag counts it as a problem" "uprobes? left in tracefs by hpmon processes that no longer run" "$E2E_TMP/out"
hpm_ok diag --json --no-probe
expect_eq "diag --json lists the leftover" "['$probe']" \
	"$(json "$E2E_TMP/out" "[p['probe'] for p in j['uprobe_leftovers']['probes'] if p['pid'] == $hpid]")"
expect_eq "diag --json: its removal" "echo '-:$probe' >> $uprobe_events" \
	"$(json "$E2E_TMP/out" "[p['remove'] for p in j['uprobe_leftovers']['probes'] if p['pid'] == $hpid][0]")"

# 3. Probes made up for the pid rules: hpmon_REUSED, whose pid now runs
# sleep; hpmon_LIVE, a live process named hpmon (a hpmon may still use
# it); hpmonx_REUSED, not hpmon's group.
bg sleep 60
reused=$BG_PID
cp "$sleeper" "$E2E_TMP/hpmon"
bg "$E2E_TMP/hpmon" 60000
live=$BG_PID
wait_for "a process named hpmon" 10 grep -qx hpmon "/proc/$live/comm"
groups+=("hpmon_$reused" "hpmon_$live" "hpmonx_$reused")
echo "p:hpmon_$reused/t1 $sleeper:0x$off" >>"$uprobe_events"
echo "p:hpmon_$live/t2 $sleeper:0x$off" >>"$uprobe_events"
echo "p:hpmonx_$reused/t3 $sleeper:0x$off" >>"$uprobe_events"

# 4. The next hpmon that defines a uprobe removes what is left over.
hpm_ok stat -x, -e exec:hpm_work:uprobe -- "$WORKLOADS/calls" 3
expect_eq "count of the run that cleans up" 3 "$(csv "$E2E_TMP/err" , "num(ev('exec:hpm_work:uprobe')[0][0])")"
expect_no_grep "the killed hpmon's uprobe is gone" "hpmon_$hpid/" "$uprobe_events"
expect_no_grep "the uprobe of a reused pid is gone" "hpmon_$reused/t1 " "$uprobe_events"
expect_grep "the uprobe of a live hpmon stays" "^p:hpmon_$live/t2 " "$uprobe_events"
expect_grep "another group's uprobe stays" "^p:hpmonx_$reused/t3 " "$uprobe_events"

# 5. diag no longer lists them.
hpm_ok diag --json --no-probe
expect_eq "diag after the cleanup" "[]" \
	"$(json "$E2E_TMP/out" "[p for p in j['uprobe_leftovers']['probes'] if p['pid'] in ($hpid, $reused)]")"
echo "PASS: $E2E_NAME"
