# SPDX-License-Identifier: MIT
# Samples in the vdso (the kernel's code mapped into every process, where
# glibc's clock_gettime runs without a system call) are named by the
# vdso's own symbols when the report runs on the kernel that recorded the
# profile; an address no symbol of it covers is [vdso]+0xOFFSET
# (docs/hpmon-report.md). The clocks workload reads CLOCK_MONOTONIC in a
# loop.
#
# What the vdso holds is the host's: its image is read here as the kernel
# maps it (/proc/self/mem at this process's [vdso], the same image in every
# process), and its symbol table decides which names hpmon must give; a
# vdso without symbols gets offsets. How much of clocks' time is in the vdso
# (nearly all where the clock source can be read from user space; little
# where glibc falls back to the system call) is perf's answer on the same
# host: hpmon's share must be perf's within binomial bounds, function by
# function.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/record-lib.sh"

hpm_ok record -q -e cpu-clock:u -c 100003 -o "$E2E_TMP/v.prof" -- "$WORKLOADS/clocks" 5000000
report_json "$E2E_TMP/v.prof" --sort dso,sym

# the vdso as the kernel maps it: its function symbols, "OFFSET SIZE NAME"
# (OFFSET in the image), from the ELF symbol tables that tools read
recpy - "$E2E_TMP/vdso.syms" <<'PY' || fail "cannot read this process's vdso (above)"
import struct, sys
lo = hi = None
for line in open("/proc/self/maps"):
    if line.rstrip().endswith("[vdso]"):
        lo, hi = (int(x, 16) for x in line.split()[0].split("-"))
out = open(sys.argv[1], "w")
if lo is None:
    print("record-vdso: this process has no [vdso] mapping")
    sys.exit(0)
with open("/proc/self/mem", "rb") as m:
    m.seek(lo)
    img = m.read(hi - lo)
if img[:4] != b"\x7fELF":
    print("record-vdso: the [vdso] mapping is not an ELF image")
    sys.exit(0)
c64 = img[4] == 2
end = "<" if img[5] == 1 else ">"
H = end + ("16xHHIQQQIHHHHHH" if c64 else "16xHHIIIIIHHHHHH")
(_, _, _, _, phoff, shoff, _, _, phentsize, phnum, shentsize, shnum, _) = struct.unpack_from(H, img)
# offset in the image of a link-time address: by the first PT_LOAD
bias = 0
for i in range(phnum):
    o = phoff + i * phentsize
    if c64:
        p_type, _, p_offset, p_vaddr = struct.unpack_from(end + "IIQQ", img, o)
    else:
        p_type, p_offset, p_vaddr = struct.unpack_from(end + "III", img, o)
    if p_type == 1:
        bias = p_vaddr - p_offset
        break
SH = end + ("IIQQQQIIQQ" if c64 else "IIIIIIIIII")
secs = []
for i in range(shnum if shoff and shoff + shnum * shentsize <= len(img) else 0):
    secs.append(struct.unpack_from(SH, img, shoff + i * shentsize))
n = 0
for s in secs:
    if s[1] not in (2, 11):  # SHT_SYMTAB, SHT_DYNSYM
        continue
    off, size, link, entsize = s[4], s[5], s[6], s[9] or (24 if c64 else 16)
    stroff = secs[link][4]
    for k in range(size // entsize):
        o = off + k * entsize
        if c64:
            name, info, _, shndx, value, sz = struct.unpack_from(end + "IBBHQQ", img, o)
        else:
            name, value, sz, info, _, shndx = struct.unpack_from(end + "IIIBBH", img, o)
        if info & 0xF != 2 or not shndx or not value:  # STT_FUNC, defined
            continue
        nm = img[stroff + name:img.index(b"\0", stroff + name)].decode(errors="replace")
        out.write("%d %d %s\n" % (value - bias, sz, nm))
        n += 1
print("record-vdso: the vdso here (%d bytes) has %d function symbols" % (hi - lo, n))
PY

# perf's samples of the same run, where perf can record them
perf_ref=no
: >"$E2E_TMP/p.script"
if have_perf; then
	perf_record -e cpu-clock:u -c 100003 -o "$E2E_TMP/p.data" -- "$WORKLOADS/clocks" 5000000
	[ "$PERF_STATUS" -eq 0 ] || fail "perf record failed here: $(tail -n 3 "$E2E_TMP/perf.err")"
	perf_script "$E2E_TMP/p.data" "$E2E_TMP/p.script"
	perf_ref=yes
else
	note "perf cannot record here: the share in the vdso is not compared with perf's"
fi

st=0
recpy - "$E2E_TMP/rep.json" "$E2E_TMP/vdso.syms" "$E2E_TMP/p.script" "$perf_ref" <<'PY' || st=$?
import collections, json, re, sys, reclib
rep, syms, pscript, perf_ref = sys.argv[1:5]
j = json.load(open(rep))
funcs = []  # (offset, size, name)
for line in open(syms):
    o, sz, name = line.split(None, 2)
    funcs.append((int(o), int(sz), name.strip()))
start_of = {}  # name -> the function's offset (aliases share it)
for o, sz, name in funcs:
    start_of.setdefault(name, o)
def covering(off):
    return [f for f in funcs if f[0] <= off < f[0] + max(f[1], 1)]
say = lambda m: print("record-vdso: " + m)
bad = []

total = j["events"][0]["samples"]
rows = [r for r in j["rows"] if r["dso"] == "[vdso]"]
n_vdso = sum(r["events"][0]["samples"] for r in rows)
say("hpmon: %d of %d samples in the vdso: %s" % (n_vdso, total,
    ", ".join("%s %d" % (r["sym"], r["events"][0]["samples"]) for r in rows)))
by_func = collections.Counter()
for r in rows:
    s, n = r["sym"], r["events"][0]["samples"]
    m = re.fullmatch(r"\[vdso\]\+0x([0-9a-f]+)", s)
    if m:
        off = int(m.group(1), 16)
        if covering(off):
            bad.append("%s is not named, and the vdso's %s covers it" % (s, covering(off)[0][2]))
        by_func["(none)"] += n
    elif s in start_of:
        by_func[start_of[s]] += n
    else:
        bad.append("the vdso row %s is no function of this vdso (its functions: %s)"
                   % (s, sorted(start_of)))

if perf_ref == "yes":
    ps = [s for s in reclib.samples(pscript) if s.comm == "clocks" and s.frames]
    pv = [s.frames[0] for s in ps if s.frames[0].dso == "[vdso]"]
    say("perf:  %d of %d samples in the vdso: %s" % (len(pv), len(ps),
        dict(collections.Counter(f.sym for f in pv))))
    if n_vdso == 0 and not pv:
        sys.exit(77)
    ok, d, b = reclib.shares_close(n_vdso, total, len(pv), len(ps))
    say("share in the vdso: %+.2f points from perf's, bound %.2f" % (100 * d, 100 * b))
    if not ok:
        bad.append("hpmon's share of samples in the vdso is not perf's")
    p_func = collections.Counter()
    for f in pv:
        p_func[start_of.get(f.sym, "(none)")] += 1
    if funcs and not p_func.keys() - {"(none)"}:
        say("perf names no function of the vdso here, which has symbols: hpmon's names are checked against them alone")
    elif not funcs and p_func.keys() - {"(none)"}:
        say("perf names vdso functions the image's symbol tables do not have: hpmon gives offsets, as documented")
    else:
        # function by function (aliases as one): the same shares as perf's
        for k in set(by_func) | set(p_func):
            if by_func[k] < 0.05 * max(n_vdso, 1) and p_func[k] < 0.05 * max(len(pv), 1):
                continue
            name = k if k == "(none)" else "/".join(sorted(set(f[2] for f in funcs if f[0] == k)))
            ok, d, b = reclib.shares_close(by_func[k], total, p_func[k], len(ps))
            say("%s: hpmon %d, perf %d samples: %+.2f points, bound %.2f" % (name, by_func[k], p_func[k], 100 * d, 100 * b))
            if not ok:
                bad.append("the samples of %s in the vdso: hpmon's share is not perf's" % name)
elif n_vdso == 0:
    sys.exit(78)
for m in bad:
    print("FAIL: record-vdso: " + m, file=sys.stderr)
sys.exit(1 if bad else 0)
PY
cs=$(cat /sys/devices/system/clocksource/clocksource0/current_clocksource 2>/dev/null || echo unknown)
[ "$st" -ne 77 ] || skip "clocks runs no code in the vdso here, by perf's record as by hpmon's (clock source $cs): nothing to name"
[ "$st" -ne 78 ] || skip "no sample in the vdso (clock source $cs), and perf cannot record here to tell whether glibc uses it"
[ "$st" -eq 0 ] || fail "the vdso's samples (above)"
echo "PASS: $E2E_NAME"
