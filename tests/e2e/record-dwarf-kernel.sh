# SPDX-License-Identifier: MIT
# DWARF call chains keep the kernel's part, as perf shows them (perf record
# --call-graph dwarf, perf script): a sample taken in a system call is the
# kernel's chain (PERF_SAMPLE_CALLCHAIN, kernel part only) above the user
# stack unwound from the copy. zeroread spends most of its time in read(2)
# of /dev/zero, called from zero_reader(): its stacks must read, root
# first, main -> zero_reader -> libc's read -> the kernel's chain, in
# script, in --folded and in report -g.
#
# The kernel's chain is the host's: which entry frames it has (entry_SYSCALL_64
# and do_syscall_64 on most x86_64 kernels; others on FRED, Xen PV or
# older kernels, or none) and what read(2) of /dev/zero calls are asked of
# the host, not written here: perf on the same machine records the same
# workload, and hpmon's kernel chains must be perf's (the same root, the
# same frames and calls in the same shares, within binomial bounds), and
# their names must be the kernel's own (/proc/kallsyms). Where perf cannot
# record, the kernel's symbols and hpmon's own consistency are checked.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/record-lib.sh"

[ "$(id -u)" -eq 0 ] || skip "kernel samples and their symbols need root here"

hpm_ok record -q --call-graph dwarf -e task-clock -o "$E2E_TMP/k.prof" -- "$WORKLOADS/zeroread" 3000
hpm_script "$E2E_TMP/k.prof" "$E2E_TMP/h.script"
hpm_ok report -i "$E2E_TMP/k.prof" --folded
cp "$E2E_TMP/out" "$E2E_TMP/folded"

# perf's samples of the same workload, where perf can record them here
: >"$E2E_TMP/p.script"
perf_ref=no
if have_perf; then
	perf_record --call-graph dwarf -e task-clock -o "$E2E_TMP/p.data" -- "$WORKLOADS/zeroread" 3000
	if [ "$PERF_STATUS" -eq 0 ]; then
		perf_script "$E2E_TMP/p.data" "$E2E_TMP/p.script"
		perf_ref=yes
	else
		note "perf record --call-graph dwarf fails here ($(tail -n 1 "$E2E_TMP/perf.err")): no comparison with perf"
	fi
else
	note "perf cannot record here: no comparison with perf"
fi
grep -E '^[0-9a-f]+ [tTwW] ' /proc/kallsyms | awk '{ print $3 }' | sort -u >"$E2E_TMP/ksyms"
[ -s "$E2E_TMP/ksyms" ] || skip "/proc/kallsyms lists no kernel text here: kernel frames cannot be named"

# The analysis: prints notes and FAIL lines, and the names the report
# checks below use into $E2E_TMP/names, a line each: the user function that
# enters the kernel, then hpmon's most common kernel chain under main ->
# zero_reader, root first; exit 1 on a failed check, 77 where the host delivers no
# kernel chain of a system call (perf shows none either).
st=0
recpy - "$E2E_TMP/h.script" "$E2E_TMP/p.script" "$perf_ref" "$E2E_TMP/ksyms" \
	"$E2E_TMP/folded" "$E2E_TMP/names" <<'PY' || st=$?
import collections, sys, reclib

hfile, pfile, perf_ref, ksyms, folded, names_out = sys.argv[1:7]
ksyms = set(open(ksyms).read().split())
bad = []

def analyse(path):
    a = dict(total=0, zr=0, inside=0, interleaved=0, main=0,
             roots=collections.Counter(), frames=collections.Counter(),
             edges=collections.Counter(), chains=collections.Counter(),
             enter=collections.Counter(), enter_dso=collections.Counter(),
             konly=collections.Counter(), root_of=[], samples=[])
    for s in reclib.samples(path):
        if s.comm != "zeroread":
            continue
        a["total"] += 1
        fr = s.frames
        i = 0
        while i < len(fr) and fr[i].kernel:
            i += 1
        kpart, upart = fr[:i], fr[i:]
        if any(f.kernel for f in upart):
            a["interleaved"] += 1
        if kpart and not upart:
            a["konly"][kpart[-1].sym] += 1
        names = [f.sym for f in upart]
        if "main" in names:
            a["main"] += 1
        # under main -> zero_reader: zero_reader called from main
        j = next((j for j in range(len(names) - 1)
                  if names[j] == "zero_reader" and names[j + 1] == "main"), None)
        if j is None:
            continue
        a["zr"] += 1
        if not kpart:
            continue
        a["inside"] += 1
        root = kpart[-1].sym
        a["roots"][root] += 1
        for n in set(f.sym for f in kpart):
            a["frames"][n] += 1
        for e in set((c.sym, d.sym) for c, d in zip(kpart[1:], kpart)):
            a["edges"][e] += 1
        a["chains"][tuple(f.sym for f in reversed(kpart))] += 1
        # the user frame that entered the kernel, and what called it
        a["root_of"].append((root, upart[0], upart[:j]))
    return a

h = analyse(hfile)
p = analyse(pfile) if perf_ref == "yes" else None
say = lambda m: print("record-dwarf-kernel: " + m)
say("hpmon: %d samples, %d under main -> zero_reader, %d of them with a kernel chain; roots %s"
    % (h["total"], h["zr"], h["inside"], dict(h["roots"].most_common(3))))
if p:
    say("perf:  %d samples, %d under main -> zero_reader, %d of them with a kernel chain; roots %s"
        % (p["total"], p["zr"], p["inside"], dict(p["roots"].most_common(3))))

if h["total"] == 0:
    print("FAIL: record-dwarf-kernel: hpmon script shows no sample of zeroread", file=sys.stderr)
    sys.exit(1)
if h["inside"] == 0:
    if p is not None and p["inside"] == 0 and p["total"] > 0 and not any(
            f for s in reclib.samples(pfile) for f in s.frames if f.kernel):
        say("perf records no kernel frame of zeroread either")
        sys.exit(77)
    print("FAIL: record-dwarf-kernel: no sample under main -> zero_reader has a kernel chain"
          + ("" if p is None else " (perf: %d of %d)" % (p["inside"], p["zr"])), file=sys.stderr)
    sys.exit(1)

# the kernel's part is above the user part, never inside it
if h["interleaved"]:
    bad.append("%d stacks have kernel frames below user frames" % h["interleaved"])
R = h["roots"].most_common(1)[0][0]
# a sample in a system call always has its user part (the registers at
# the entry): no stack is the kernel's part alone
if h["konly"][R]:
    bad.append("%d stacks are the kernel's part alone (root %s)" % (h["konly"][R], R))
# the system call is entered from a library (libc's read), called by
# zero_reader: never from zeroread's own code
syscall = [(u, between) for r, u, between in h["root_of"] if r == R]
odd = [u for u, between in syscall if not between or u.dso.endswith("/zeroread")]
if odd:
    bad.append("%d of %d samples entered %s from zeroread itself, not a library: %s"
               % (len(odd), len(syscall), R, odd[:3]))
enter = collections.Counter(u.sym for u, _ in syscall).most_common(1)[0][0]
enter_dso = collections.Counter(u.dso for u, _ in syscall).most_common(1)[0][0]
chain = list(h["chains"].most_common(1)[0][0])
say("hpmon's kernel chain, most often: %s, entered from %s (%s)" % (" -> ".join(chain), enter, enter_dso))
if p is not None:
    # (what perf cannot name either is compared with perf below)
    ksyms |= {n for n in p["frames"] if n == "[unknown]"}
    if p["inside"] == 0:
        say("perf shows no kernel chain under main -> zero_reader: its user stacks are not unwound here")
    else:
        Rp = p["roots"].most_common(1)[0][0]
        if Rp != R:
            bad.append("the kernel chain's root: hpmon %s, perf %s" % (R, Rp))
        pdso = collections.Counter(u.dso for r, u, _ in p["root_of"] if r == Rp)
        if pdso and pdso.most_common(1)[0][0] != enter_dso:
            bad.append("the object that enters the kernel: hpmon %s, perf %s"
                       % (enter_dso, pdso.most_common(1)[0][0]))
        # every frame and call that either tool has in a fifth of its
        # chains: in the same share of perf's
        for kind in ("frames", "edges"):
            keys = [k for k in set(h[kind]) | set(p[kind])
                    if h[kind][k] >= 0.2 * h["inside"] or p[kind][k] >= 0.2 * p["inside"]]
            for k in sorted(keys):
                ok, d, b = reclib.shares_close(h[kind][k], h["inside"], p[kind][k], p["inside"])
                say("%s %s: hpmon %.1f %%, perf %.1f %% (bound %.1f points)"
                    % (kind[:-1], "->".join(k) if kind == "edges" else k,
                       100 * h[kind][k] / h["inside"], 100 * p[kind][k] / p["inside"], 100 * b))
                if not ok:
                    bad.append("%s %s: hpmon's share differs from perf's" % (kind[:-1], k))
    # the share of samples unwound to main -> zero_reader with their kernel
    # chain: as perf's, where perf unwinds user stacks here
    if p["main"]:
        ok, d, b = reclib.shares_close(h["inside"], h["total"], p["inside"], p["total"])
        say("samples in the kernel under main -> zero_reader: hpmon %.1f %%, perf %.1f %% (bound %.1f points)"
            % (100 * h["inside"] / h["total"], 100 * p["inside"] / p["total"], 100 * b))
        if not ok:
            bad.append("the share of samples with both parts differs from perf's")
    else:
        say("perf unwinds no user stack here (no frame of main): shares not compared")

# --folded holds the same stacks: as many under main -> zero_reader -> ...
# -> the root as script shows
n_script = sum(1 for r, u, _ in h["root_of"] if r == R)
n_folded = 0
for line in open(folded):
    stack, _, n = line.rstrip("\n").rpartition(" ")
    f = stack.split(";")
    for j in range(1, len(f) - 2):
        if f[j] == "main" and f[j + 1] == "zero_reader" and R in f[j + 2:]:
            n_folded += int(n)
            break
if n_folded != n_script:
    bad.append("--folded has %d samples under main -> zero_reader -> ... -> %s, script %d"
               % (n_folded, R, n_script))

# the names are the kernel's own
unknown = sorted(n for n in set(chain) if n not in ksyms)
if unknown:
    bad.append("kernel frames named as /proc/kallsyms does not: %s" % unknown)

with open(names_out, "w") as o:
    o.write("".join(n + "\n" for n in [enter] + chain))
for b in bad:
    print("FAIL: record-dwarf-kernel: " + b, file=sys.stderr)
sys.exit(1 if bad else 0)
PY
[ "$st" -ne 77 ] || skip "the kernel gives no kernel call chain of zeroread's system calls here (perf records none either)"
[ "$st" -eq 0 ] || fail "the kernel chains differ (above)"
enter=$(head -n 1 "$E2E_TMP/names")
mapfile -t chain < <(tail -n +2 "$E2E_TMP/names")

# report -g: the callers, as the chains have them, and the objects
hpm_ok report -i "$E2E_TMP/k.prof" -g
# callers FUNC: the lines of FUNC's entry in the call graph
callers() {
	awk -v f="$1" '/^ +[0-9.]+% +[0-9.]+% / { on = ($3 == f); next } on' "$E2E_TMP/out"
}
re() { printf '%s' "$1" | sed 's/[][\.*^$+?(){}|/]/\\&/g'; }
expect_grep "zero_reader's caller" '^ +<- +[0-9.]+% +main$' <(callers zero_reader)
expect_grep "zero_reader's object" '^ +[0-9.]+% +[0-9.]+% +zero_reader +\[zeroread\]$' "$E2E_TMP/out"
# the kernel's root is called from the library function that entered it
expect_grep "${chain[0]}'s caller" "^ +<- +[0-9.]+% +$(re "$enter")\$" <(callers "${chain[0]}")
# every call of the kernel's chain, and every frame's object: a kernel
# function's is [kernel.kallsyms], as in the flat listing
for ((i = 0; i < ${#chain[@]}; i++)); do
	f=${chain[i]}
	expect_grep "$f's object" "^ +[0-9.]+% +[0-9.]+% +$(re "$f") +\\[kernel\\.kallsyms\\]\$" "$E2E_TMP/out"
	[ "$i" -eq 0 ] ||
		expect_grep "$f's caller" "^ +<- +[0-9.]+% +$(re "${chain[i - 1]}")\$" <(callers "$f")
done
echo "PASS: $E2E_NAME"
