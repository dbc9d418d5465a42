#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Location events (exec:...) as sampling triggers: one sample per
# execution, exactly, with a hardware breakpoint and with a uprobe, in a
# position-independent program, one that is not and a shared library;
# call chains (-g, --call-graph dwarf) that name the callers; returns,
# lines, threads and processes; a location next to cpu-clock; running
# processes and system-wide; the errors stat gives; and no uprobe left in
# tracefs after a run, also after Ctrl-C.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/record-lib.sh"
. "$(dirname "$0")/user-lib.sh"

calls=$WORKLOADS/calls
LC_ALL=C readelf -h "$calls" | grep -q 'Type:[[:space:]]*DYN' ||
	fail "$calls should be position independent (Debian's default)"

uprobe_events=
for f in /sys/kernel/tracing/uprobe_events /sys/kernel/debug/tracing/uprobe_events; do
	[ -r "$f" ] && uprobe_events=$f && break
done

# no_probes_left PID: hpmon PID defined its uprobes as hpmon_PID/...; none
# may be left once it ended (other tests' hpmons may have theirs)
no_probes_left() {
	[ -z "$uprobe_events" ] && return 0
	! grep -q "hpmon_$1/" "$uprobe_events" ||
		fail "uprobes of hpmon $1 left in tracefs: $(grep "hpmon_$1/" "$uprobe_events")"
}

# rec ARGS...: hpmon record ARGS (as hpm does), its pid in $REC_PID, and
# check that it left no uprobe behind; its stderr kept in $E2E_TMP/rec.err
rec() {
	HPM_STATUS=0
	# shellcheck disable=SC2016 # the inner shell expands them
	timeout -k 5 "$E2E_TIMEOUT" sh -c 'echo $$ >"$0"; exec "$@"' "$E2E_TMP/pid" \
		"$HPMON" record "$@" >"$E2E_TMP/out" 2>"$E2E_TMP/err" </dev/null || HPM_STATUS=$?
	[ "$HPM_STATUS" -ne 124 ] || fail "timed out after ${E2E_TIMEOUT}s: hpmon record $*"
	REC_PID=$(cat "$E2E_TMP/pid")
	cp "$E2E_TMP/err" "$E2E_TMP/rec.err"
	no_probes_left "$REC_PID"
}

rec_ok() {
	rec "$@"
	[ "$HPM_STATUS" -eq 0 ] || fail "hpmon record $* exited $HPM_STATUS, stderr:
$(cat "$E2E_TMP/err")"
}

# total: the samples of the main event in $E2E_TMP/rep.json
total() {
	json "$E2E_TMP/rep.json" "j['events'][0]['samples']"
}

# folded PROFILE: hpmon report --folded into $E2E_TMP/folded
folded() {
	hpm_ok report -i "$1" --folded
	cp "$E2E_TMP/out" "$E2E_TMP/folded"
}

# stack_count REGEX: the samples of the folded stacks matching REGEX
stack_count() {
	awk -v re="$1" '$1 ~ re { s += $NF } END { print s + 0 }' "$E2E_TMP/folded"
}

mechs=()
if host_bp_fires; then
	mechs+=(bp)
else
	# breakpoints that never fire: ':bp' is refused before anything runs
	rec -e exec:hpm_work:bp -c 1 -o "$E2E_TMP/p.prof" -- "$calls" 1
	expect_bp_refused "exec:hpm_work:bp"
	expect_grep "exec:hpm_work:bp: the alternative" "write ':uprobe' instead of ':bp'" \
		"$E2E_TMP/err"
fi
if can_uprobe; then
	mechs+=(uprobe)
else
	note "not root: uprobes are checked for their error only"
fi

# -- exactly one sample per call --
for m in "${mechs[@]}"; do
	for k in 1 777 5000; do
		rec_ok -q -e "exec:hpm_work:$m" -c 1 -o "$E2E_TMP/p.prof" -- "$calls" $k
		report_json "$E2E_TMP/p.prof"
		expect_eq "exec:hpm_work:$m, $k calls: samples of hpm_work" $k "$(samples hpm_work)"
		expect_eq "exec:hpm_work:$m, $k calls: samples in all" $k "$(total)"
	done
	# no call, no sample: the summary and the report say so
	rec_ok -e "exec:hpm_work:$m" -c 1 -o "$E2E_TMP/p.prof" -- "$calls" 0
	expect_grep "exec:hpm_work:$m, no call" '^hpmon record: 0 samples written' "$E2E_TMP/err"
	hpm_ok report -i "$E2E_TMP/p.prof"
	expect_grep "exec:hpm_work:$m, no call: the report says so" '0 samples, period 1, total 0' "$E2E_TMP/out"
done
# hpmon's choice (a breakpoint) and its period (every call), which -F and
# -c do not change
# (a uprobe where breakpoints do not fire, and one line says why)
if host_bp_fires; then
	rec_ok -e exec:hpm_work -o "$E2E_TMP/p.prof" -- "$calls" 321
	expect_grep "how exec:hpm_work samples" \
		'^hpmon record: exec:hpm_work: breakpoint at 0x[0-9a-f]+ \(hpm_work\+0x0 in calls\)$' "$E2E_TMP/err"
elif can_uprobe; then
	rec_ok -e exec:hpm_work -o "$E2E_TMP/p.prof" -- "$calls" 321
	expect_grep "how exec:hpm_work samples" \
		'^hpmon record: exec:hpm_work: uprobe at .*/calls:0x[0-9a-f]+ \(hpm_work\+0x0 in calls\)$' "$E2E_TMP/err"
	expect_eq "the note on breakpoints, once" 1 \
		"$(grep -c '^hpmon record: note: hardware breakpoints do not fire on this host .*: 1 exec: event is counted with uprobes instead$' "$E2E_TMP/err")"
else
	skip "breakpoints do not fire here and uprobes need root: nothing samples exec: events"
fi
report_json "$E2E_TMP/p.prof"
expect_eq "exec:hpm_work, default period: samples" 321 "$(samples hpm_work)"
rec_ok -q -F 99 -e exec:hpm_work -o "$E2E_TMP/p.prof" -- "$calls" 322
report_json "$E2E_TMP/p.prof"
expect_eq "exec:hpm_work with -F 99: samples" 322 "$(samples hpm_work)"
rec_ok -q -c 100 -e exec:hpm_work -o "$E2E_TMP/p.prof" -- "$calls" 1000
report_json "$E2E_TMP/p.prof"
expect_eq "exec:hpm_work with -c 100: samples, calls they stand for" "1000 1000" \
	"$(samples hpm_work) $(json "$E2E_TMP/rep.json" "j['events'][0]['period']")"

# a program that is not position independent
gcc -O1 -g -fno-inline -no-pie -fno-pie -o "$E2E_TMP/calls-nopie" "$SRCDIR/tests/workloads/calls.c" ||
	fail "cannot build calls without PIE"
for m in "${mechs[@]}"; do
	rec_ok -q -e "exec:hpm_work:$m" -c 1 -o "$E2E_TMP/p.prof" -- "$E2E_TMP/calls-nopie" 555
	report_json "$E2E_TMP/p.prof"
	expect_eq "exec:hpm_work:$m (no PIE): samples" 555 "$(samples hpm_work)"
done

# a line in main's loop (the call of hpm_work), sampled in main
line=$(grep -n 'hpm_work((unsigned long)i);' "$SRCDIR/tests/workloads/calls.c" | cut -d: -f1)
[ -n "$line" ] || fail "no call of hpm_work in calls.c"
rec_ok -q -e "exec:calls.c:$line" -c 1 -o "$E2E_TMP/p.prof" -- "$calls" 999
report_json "$E2E_TMP/p.prof"
expect_eq "exec:calls.c:$line: samples in main" 999 "$(samples main)"
expect_eq "exec:calls.c:$line: samples in all" 999 "$(total)"

# returns: a uretprobe's sample is where the function returns to
if can_uprobe; then
	rec_ok -q -e 'exec:hpm_work%return' -c 1 -o "$E2E_TMP/p.prof" -- "$calls" 4321
	report_json "$E2E_TMP/p.prof"
	expect_eq "exec:hpm_work%return: samples in main" 4321 "$(samples main)"
	expect_eq "exec:hpm_work%return: samples in all" 4321 "$(total)"
fi

# -- where the calls came from --
# calltree 10: tree_end is called 10 times each from tree_b (under tree_a),
# tree_c (under tree_a) and tree_d (under main). A sample at a function's
# first instruction comes before the function saved its frame: the chain
# must still name the caller.
for m in "${mechs[@]}"; do
	for cg in -g "--call-graph dwarf"; do
		# shellcheck disable=SC2086 # $cg is one or two words
		rec_ok -q $cg -e "exec:tree_end:$m" -o "$E2E_TMP/c.prof" -- "$WORKLOADS/calltree" 10
		folded "$E2E_TMP/c.prof"
		for path in "main;tree_a;tree_b;tree_end" "main;tree_a;tree_c;tree_end" "main;tree_d;tree_end"; do
			expect_eq "exec:tree_end:$m, $cg: stacks ...;$path" 10 \
				"$(stack_count ";$path\$")"
		done
		expect_eq "exec:tree_end:$m, $cg: samples in all" 30 "$(stack_count .)"
		report_json "$E2E_TMP/c.prof" -g
		expect_eq "exec:tree_end:$m, $cg: callers of tree_end" \
			"[('tree_b', 33.33), ('tree_c', 33.33), ('tree_d', 33.33)]" \
			"$(json "$E2E_TMP/rep.json" "sorted((c['sym'], round(e['percent'], 2)) for c in j['callgraph'] for e in c['callees'] if e['sym'] == 'tree_end')")"
	done
	# a function that saves its frame first (the kernel may then add the
	# caller itself: it must not come twice)
	rec_ok -q -g -e "exec:tree_b:$m" -o "$E2E_TMP/c.prof" -- "$WORKLOADS/calltree" 10
	folded "$E2E_TMP/c.prof"
	expect_eq "exec:tree_b:$m, -g: stacks ...;main;tree_a;tree_b" 10 "$(stack_count ';main;tree_a;tree_b$')"
	expect_no_grep "exec:tree_b:$m, -g: no caller twice" 'tree_a;tree_a' "$E2E_TMP/folded"
	# a program without frame pointers: the caller still
	rec_ok -q -g -e "exec:hpm_work:$m" -o "$E2E_TMP/c.prof" -- "$calls" 50
	folded "$E2E_TMP/c.prof"
	expect_eq "exec:hpm_work:$m, -g: stacks ...;main;hpm_work" 50 "$(stack_count ';main;hpm_work$')"
done

# -- a shared library, through RUNPATH --
src=$SRCDIR/tests/workloads/user
mkdir -p "$E2E_TMP/lib" "$E2E_TMP/bin"
gcc -O1 -g -fno-inline -shared -fPIC -o "$E2E_TMP/lib/libuser.so" "$src/libuser.c" ||
	fail "cannot build libuser.so"
# shellcheck disable=SC2016 # $ORIGIN is the dynamic loader's
gcc -O1 -g -o "$E2E_TMP/bin/libcaller" "$src/libcaller.c" -L"$E2E_TMP/lib" -luser \
	-Wl,-rpath,'$ORIGIN/../lib' || fail "cannot build libcaller"
for m in "${mechs[@]}"; do
	rec_ok -q -g -e "exec:libuser:lib_work:$m" -c 1 -o "$E2E_TMP/l.prof" -- "$E2E_TMP/bin/libcaller" 2500
	report_json "$E2E_TMP/l.prof"
	expect_eq "exec:libuser:lib_work:$m: samples of lib_work" 2500 "$(samples lib_work)"
	expect_eq "exec:libuser:lib_work:$m: samples in all" 2500 "$(total)"
	folded "$E2E_TMP/l.prof"
	expect_eq "exec:libuser:lib_work:$m: stacks ...;main;lib_work" 2500 "$(stack_count ';main;lib_work$')"
done

# -- threads and child processes: inherited, exact per thread --
for m in "${mechs[@]}"; do
	rec_ok -q -e "exec:hpm_tick:$m" -o "$E2E_TMP/t.prof" -- "$WORKLOADS/tcalls" 3 2 100
	report_json "$E2E_TMP/t.prof" --sort tid
	expect_eq "exec:hpm_tick:$m: samples per thread" "[100, 100, 200, 300, 400, 500]" \
		"$(json "$E2E_TMP/rep.json" "sorted(r['events'][0]['samples'] for r in j['rows'])")"
done

# exact_or_lost WHAT EXPECTED GOT: GOT is EXPECTED, or less by no more
# than the samples the kernel could not write ($E2E_TMP/rep.json's count),
# and then the recorder said so ($E2E_TMP/rec.err). A burst of samples larger than
# the ring buffer (100,000 breakpoint samples in a few milliseconds, about
# 4 MiB, against 512 KiB per CPU) loses samples whenever the recorder does
# not get the CPU to drain it in time: on a loaded machine it once kept
# 98,888 of 100,000. The kernel cannot make the workload wait; what hpmon
# promises is that no sample goes missing silently.
exact_or_lost() {
	local what=$1 want=$2 got=$3 lost
	lost=$(json "$E2E_TMP/rep.json" "j['lost_samples'] or j['lost']")
	[ "$got" = "$want" ] && return 0
	note "$what: $got of $want, $lost samples lost and reported"
	expect_in "$what: samples" $((want - lost)) $((want - 1)) "$got"
	expect_grep "$what: the loss said" '^hpmon record: warning: [0-9]+ samples lost' "$E2E_TMP/rec.err"
}

# -- next to cpu-clock, first or second --
for events in "exec:hpm_work,cpu-clock" "cpu-clock,exec:hpm_work"; do
	rec_ok -q -e "$events" -o "$E2E_TMP/m.prof" -- "$calls" 100000
	report_json "$E2E_TMP/m.prof"
	exact_or_lost "$events: samples of exec:hpm_work" 100000 \
		"$(json "$E2E_TMP/rep.json" "[e['samples'] for e in j['events'] if e['name'] == 'exec:hpm_work'][0]")"
	expect_in "$events: samples of cpu-clock" 1 1000000 \
		"$(json "$E2E_TMP/rep.json" "[e['samples'] for e in j['events'] if e['name'] == 'cpu-clock'][0]")"
	exact_or_lost "$events: samples of exec:hpm_work in hpm_work" 100000 \
		"$(json "$E2E_TMP/rep.json" "sum(e['samples'] for r in j['rows'] if r.get('sym') == 'hpm_work' for e in r['events'] if e['name'] == 'exec:hpm_work')")"
done
# the same loss made certain (a buffer of one page), to see it is counted
rec_ok -q -m 1 -e exec:hpm_work -o "$E2E_TMP/m.prof" -- "$calls" 100000
report_json "$E2E_TMP/m.prof"
got=$(json "$E2E_TMP/rep.json" "j['events'][0]['samples']")
expect_in "one page: samples lost" 1 99999 "$((100000 - got))"
exact_or_lost "one page: samples of exec:hpm_work" 100000 "$got"
# from Linux 6.0 the kernel counts each event's lost samples
# (PERF_FORMAT_LOST): with one event, kept and lost make every call
lost=$(json "$E2E_TMP/rep.json" "j['lost_samples']")
if [ "$lost" -gt 0 ]; then
	expect_eq "one page: samples kept and lost" 100000 "$((got + lost))"
fi

# -- running processes, and system-wide --
# (a copy of the program of its own: uprobes watch the file, and other
# tests run $WORKLOADS/calls at the same time)
cp "$calls" "$E2E_TMP/calls-own"
m=${mechs[-1]}
bg "$E2E_TMP/calls-own" 3000000000
# the program itself, not the shell forked to start it: on a loaded
# machine the fork runs a while before its exec, and hpmon -p would look
# for hpm_work in bash
runs() { [ "$(readlink "/proc/$1/exe")" = "$2" ]; }
wait_for "calls-own to run" 10 runs "$BG_PID" "$E2E_TMP/calls-own"
setsid "$HPMON" record -q -p "$BG_PID" -e "exec:hpm_work:$m" -o "$E2E_TMP/a.prof" \
	>"$E2E_TMP/out" 2>"$E2E_TMP/err" </dev/null &
rpid=$!
# the profile is started once the location is open
sampling() {
	# (ended: gone, or a zombie not yet waited for)
	[ "$(awk '{ print $3 }' "/proc/$rpid/stat" 2>/dev/null)" = Z ] || [ ! -e "/proc/$rpid" ] &&
		fail "hpmon record -p ended before it sampled: $(cat "$E2E_TMP/err")"
	test -s "$E2E_TMP/a.prof"
}
wait_for "hpmon $rpid to sample" 20 sampling
sleep 0.3
kill -INT "$rpid"
HPM_STATUS=0
wait "$rpid" || HPM_STATUS=$?
expect_eq "-p $BG_PID, exec:hpm_work:$m, Ctrl-C: exit status" 0 "$HPM_STATUS"
no_probes_left "$rpid"
report_json "$E2E_TMP/a.prof"
expect_in "-p, exec:hpm_work:$m: samples" 1 1000000000 "$(total)"
expect_eq "-p, exec:hpm_work:$m: all in hpm_work" "$(total)" "$(samples hpm_work)"
kill "$BG_PID"
wait "$BG_PID" 2>/dev/null || true # gone before the system-wide run
if can_uprobe; then
	rec_ok -q -a -e "exec:$E2E_TMP/calls-own:hpm_work" -o "$E2E_TMP/a.prof" -- "$E2E_TMP/calls-own" 1234
	report_json "$E2E_TMP/a.prof"
	expect_eq "-a, exec:PATH:hpm_work: samples" 1234 "$(samples hpm_work)"
fi

# -- Ctrl-C: the uprobes go too --
if can_uprobe; then
	setsid "$HPMON" record -q -e exec:hpm_work:uprobe -o "$E2E_TMP/i.prof" -- "$calls" 3000000000 \
		>"$E2E_TMP/out" 2>"$E2E_TMP/err" </dev/null &
	rpid=$!
	wait_for "the uprobe of hpmon $rpid" 10 grep -q "hpmon_$rpid/" "$uprobe_events"
	sleep 0.3
	kill -INT -- "-$rpid"
	HPM_STATUS=0
	wait "$rpid" || HPM_STATUS=$?
	expect_eq "Ctrl-C: exit status" 130 "$HPM_STATUS"
	no_probes_left "$rpid"
	report_json "$E2E_TMP/i.prof"
	expect_in "Ctrl-C: samples" 1 3000000000 "$(total)"
	expect_eq "Ctrl-C: all in hpm_work" "$(total)" "$(samples hpm_work)"
fi

# -- errors: as stat gives them, before the command runs (status 129) --
# expect_usage WHAT REGEX HPMON-RECORD-ARGS...
expect_usage() {
	local what=$1 re=$2
	shift 2
	rm -f "$E2E_TMP/e.prof"
	rec -o "$E2E_TMP/e.prof" "$@"
	expect_eq "$what: exit status" 129 "$HPM_STATUS"
	expect_grep "$what: message" "$re" "$E2E_TMP/err"
	[ ! -e "$E2E_TMP/e.prof" ] || fail "$what: a profile was written"
}
expect_usage "no such function" \
	"^hpmon record: exec:no_such_fn: no function 'no_such_fn' in .*/calls or its libraries$" \
	-e exec:no_such_fn -- "$calls" 1
expect_usage "returns with a breakpoint" "a breakpoint cannot count a function's returns" \
	-e 'exec:hpm_work%return:bp' -- "$calls" 1
expect_usage "in a group" "cannot be in a group" -e '{cpu-clock,exec:hpm_work}' -- "$calls" 1
host_bp_fires || note "breakpoints do not fire here: the breakpoints' slots are not checked"
case $(host_bp_fires && uname -m) in
x86_64 | i?86)
	many=$(printf 'exec:hpm_work:bp,%.0s' $(seq 5))
	expect_usage "out of breakpoints" \
		"^hpmon record: exec:hpm_work:bp: no hardware breakpoint left: this CPU gives each thread 4 .*':uprobe'" \
		-e "${many%,}" -- "$calls" 1
	if can_uprobe; then
		# hpmon's choice: breakpoints while they last, then uprobes
		many=$(printf 'exec:hpm_work,%.0s' $(seq 6))
		rec_ok -e "${many%,}" -o "$E2E_TMP/p.prof" -- "$calls" 31
		expect_eq "beyond the breakpoints: how" "4 2" \
			"$(grep -c 'exec:hpm_work: breakpoint at' "$E2E_TMP/err") $(grep -c 'exec:hpm_work: uprobe at' "$E2E_TMP/err")"
		report_json "$E2E_TMP/p.prof"
		expect_eq "beyond the breakpoints: samples per event" "[31, 31, 31, 31, 31, 31]" \
			"$(json "$E2E_TMP/rep.json" "[e['samples'] for e in j['events']]")"
	fi
	;;
esac

# a library the program does not load by its entry point cannot have a
# breakpoint: known only at the exec stop, it ends the run (status 1, the
# command killed), and the uprobes defined by then go too
libm=$(gcc -print-file-name=libm.so.6)
if [ -f "$libm" ]; then
	events="exec:$libm:sqrt:bp"
	can_uprobe && events="exec:hpm_work:uprobe,$events"
	rec -o "$E2E_TMP/e.prof" -e "$events" -- "$calls" 5
	expect_eq "a library not loaded: exit status" 1 "$HPM_STATUS"
	if host_bp_fires; then
		expect_grep "a library not loaded: message" \
			"^hpmon record: cannot sample 'exec:$libm:sqrt:bp': .* is not loaded by the time the program starts .*':uprobe'$" \
			"$E2E_TMP/err"
	else
		expect_bp_refused "a library's function with ':bp'"
	fi
else
	note "gcc knows no libm.so.6: the case of a library not loaded is skipped"
fi

# without privilege: breakpoints sample one's own command, uprobes are
# refused with the reason
if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null; then
	dir=$E2E_TMP/nobody
	mkdir -m 777 "$dir"
	chmod 755 "$E2E_TMP"
	cp "$HPMON" "$calls" "$dir/"
	chmod 755 "$dir/hpmon" "$dir/calls"
	as_nobody() {
		HPM_STATUS=0
		(cd "$dir" && timeout -k 5 "$E2E_TIMEOUT" setpriv --reuid=nobody --regid=nogroup \
			--clear-groups -- "$@") >"$E2E_TMP/out" 2>"$E2E_TMP/err" </dev/null ||
			HPM_STATUS=$?
	}
	as_nobody ./hpmon record -q -g -e exec:hpm_work -o n.prof -- ./calls 64
	if host_bp_fires; then
		expect_eq "breakpoint as nobody: exit status" 0 "$HPM_STATUS"
		report_json "$dir/n.prof"
		expect_eq "breakpoint as nobody: samples" 64 "$(samples hpm_work)"
	else
		# neither mechanism is there for nobody: said, status 1
		expect_bp_refused "exec:hpm_work as nobody"
		expect_grep "exec:hpm_work as nobody: uprobes" "uprobes need root" "$E2E_TMP/err"
	fi
	as_nobody ./hpmon record -e exec:hpm_work:uprobe -o n.prof -- ./calls 1
	expect_eq "uprobe as nobody: exit status (not permitted)" 1 "$HPM_STATUS"
	expect_grep "uprobe as nobody: message" "^hpmon record: exec:hpm_work:uprobe: uprobes need root" \
		"$E2E_TMP/err"
else
	note "not root: the unprivileged cases are skipped"
fi
echo "PASS: $E2E_NAME"
