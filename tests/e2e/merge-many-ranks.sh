#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A merge of many ranks whose details pass report's memory cap: the rank
# and host tables stay exact whatever the cap folds, since they are the
# reason a merge exists. 1000 ranks, each a process with 400 mappings (the
# detail the cap folds) and 10 to 22 samples, on hosts of 64 ranks, are
# merged; `report --sort rank` and `--sort host` give every rank and every
# host its exact samples, no sample is without a rank ("-") or in a
# "[memory cap]" row, and the header counts every rank and host. Before,
# the RANK records read after the cap was reached were left out: less than half of
# the 1000 ranks were counted (435), and most samples went to rank and host "-".
. "$(dirname "$0")/lib.sh"

gen="$SRCDIR/fuzz/gen-profile.py"
[ -f "$gen" ] || fail "no $gen"
N=1000
mkdir "$E2E_TMP/ranks"

# The ranks' profiles (docs/profile-format.md): fuzz/gen-profile.py's
# writer, with the rank keys in the header; 5 bodies, one per number of
# samples.
python3 - "$gen" "$E2E_TMP/ranks" "$N" <<'EOF' || fail "cannot write the ranks' profiles"
import importlib.util, io, os, sys
spec = importlib.util.spec_from_file_location("gp", sys.argv[1])
gp = importlib.util.module_from_spec(spec)
spec.loader.exec_module(gp)
var, s, zz = gp.var, gp.s, gp.zz
out, n = sys.argv[2], int(sys.argv[3])
st = gp.SAMPLE_IP | gp.SAMPLE_TID | gp.SAMPLE_TIME | gp.SAMPLE_CPU | gp.SAMPLE_PERIOD

def meta(rank):
    m = bytearray()
    m += var(1 << 1 | 1) + s("./app") + var(2 << 1 | 1) + s("node%03d" % (rank // 64))
    m += var(3 << 1 | 1) + s("x86_64") + var(7 << 1) + var(0) + var(8 << 1) + var(4096)
    m += var(9 << 1) + var(rank) + var(10 << 1) + var(n) + var(11 << 1 | 1) + s("77")
    m += var(16 << 1 | 1) + s("cpu-clock") + var(17 << 1) + var(1) + var(18 << 1) + var(0)
    m += var(21 << 1) + var(4000) + var(22 << 1) + var(1) + var(23 << 1) + var(1)
    m += var(25 << 1) + var(st)
    return bytes(m)

bodies = []
for k in range(5):
    b = io.BytesIO()
    w = gp.Writer(b, 1 << 20, True)
    w.add(bytes([gp.TAG_COMM]) + var(1000) + var(1000) + zz(0) + s("app"), sample=False)
    for i in range(400):
        w.add(gp.mmap_rec(1000, 0x10000000 + i * 0x10000, 0x10000, "/nonexistent/lib%d.so" % i),
              sample=False)
    for i in range(10 + 3 * k):
        w.sample(1000, 0x10000000 + i * 0x10000 + 0x40)
    w.close()
    bodies.append(b.getvalue())
for r in range(n):
    with open(os.path.join(out, "prof.%04d" % r), "wb") as f:
        gp.Writer(f, 0, True).header(meta(r))
        f.write(bodies[r % 5])
EOF
# rank r: 10 + 3 * (r % 5) samples; host h: the sum of its ranks'
samples_of() { echo $((10 + 3 * ($1 % 5))); }

hpm_ok merge -q -o "$E2E_TMP/job.prof" "$E2E_TMP"/ranks/prof.*

hpm_ok report -i "$E2E_TMP/job.prof" --sort rank
expect_grep "the cap is reached (else this test shows nothing)" "asks for more memory than its size justifies" "$E2E_TMP/err"
expect_grep "every rank and host in the header" "^# merged: $N ranks of $N on 16 hosts, job 77\$" "$E2E_TMP/out"

hpm_ok report -i "$E2E_TMP/job.prof" --sort rank --csv
python3 - "$E2E_TMP/out" "$N" <<'EOF' || fail "the rank table is not exact: $(head -5 "$E2E_TMP/out")"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
n = int(sys.argv[2])
got = {r["rank"]: int(r["cpu-clock_samples"]) for r in rows}
want = {str(k): 10 + 3 * (k % 5) for k in range(n)}
bad = {k: got.get(k) for k in set(got) | set(want) if got.get(k) != want.get(k)}
if bad:
    print("FAIL: rank: got != expected samples for %d ranks, e.g. %s" % (len(bad), sorted(bad.items())[:6]),
          file=sys.stderr)
    sys.exit(1)
EOF

hpm_ok report -i "$E2E_TMP/job.prof" --sort host --csv
python3 - "$E2E_TMP/out" "$N" <<'EOF' || fail "the host table is not exact: $(head -5 "$E2E_TMP/out")"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
n = int(sys.argv[2])
got = {r["host"]: int(r["cpu-clock_samples"]) for r in rows}
want = {}
for k in range(n):
    h = "node%03d" % (k // 64)
    want[h] = want.get(h, 0) + 10 + 3 * (k % 5)
bad = {k: (got.get(k), want.get(k)) for k in set(got) | set(want) if got.get(k) != want.get(k)}
if bad:
    print("FAIL: host: (got, expected) samples: %s" % sorted(bad.items())[:6], file=sys.stderr)
    sys.exit(1)
EOF

# both keys at once: a row per rank, on its host
hpm_ok report -i "$E2E_TMP/job.prof" --sort rank,host --csv
expect_eq "rows of --sort rank,host" "$N" "$(tail -n +2 "$E2E_TMP/out" | grep -c ',node[0-9]*$')"
expect_no_grep "no sample without a rank or host" ',(-|\[memory cap\])(,|$)' "$E2E_TMP/out"
echo "PASS: $E2E_NAME"
