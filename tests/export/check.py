#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Checks of hpmon report's exports (tests/e2e/report-export-*.sh).

  check.py folded-eq FOLDED OTHER KIND [EVENT [PERIOD]]
      the stacks and sample counts of OTHER equal those of `report
      --folded` (FOLDED), exactly; KIND is pprof (OTHER: pprof-summary.js's
      JSON), speedscope or trace (the files). pprof and trace keep the
      task's name as the stack's first frame, as --folded does; speedscope
      has none, so its stacks are compared without it, and its samples
      are weights: the profile must have the fixed PERIOD.
  check.py trace FILE
      FILE follows the Trace Event Format's documented rules (below).
  check.py trace-page FILE HTML
      write a page that parses FILE in a browser and writes its verdict
      into the element #verdict.

Prints what differs and exits 1 on failure.
"""
import base64
import collections
import json
import sys


def fail(msg):
    print("FAIL: " + msg, file=sys.stderr)
    sys.exit(1)


def folded(path):
    out = collections.Counter()
    with open(path, encoding="utf-8") as f:
        for line in f:
            stack, _, n = line.rstrip("\n").rpartition(" ")
            out[stack] += int(n)
    return out


def pprof_stacks(path, event):
    j = json.load(open(path, encoding="utf-8"))
    out = collections.Counter()
    for s in j["samples"]:
        if s["labels"].get("event") != event:
            continue
        out[";".join([s["labels"]["comm"]] + s["stack"])] += s["values"][0]
    return out


def speedscope_stacks(path, event, period):
    """Samples per stack: a run of samples of one stack is one entry
    weighing their sum, so with a fixed period, weight / period."""
    j = json.load(open(path, encoding="utf-8"))
    frames = [f["name"] for f in j["shared"]["frames"]]
    out = collections.Counter()
    for p in j["profiles"]:
        if not p["name"].endswith(" " + event):
            continue
        if len(p["samples"]) != len(p["weights"]):
            fail(f"profile {p['name']}: {len(p['samples'])} samples, {len(p['weights'])} weights")
        if p["endValue"] - p["startValue"] != sum(p["weights"]):
            fail(f"profile {p['name']}: endValue - startValue is not the sum of the weights")
        for s, w in zip(p["samples"], p["weights"]):
            if w % period:
                fail(f"profile {p['name']}: weight {w} is not a multiple of the period {period}")
            out[";".join(frames[i] for i in s)] += w // period
    return out


def trace_stacks(path):
    j = json.load(open(path, encoding="utf-8"))
    frames = j.get("stackFrames", {})
    names = {}
    for e in j["traceEvents"]:
        if e["ph"] == "M" and e["name"] == "thread_name":
            names[(e["pid"], e["tid"])] = e["args"]["name"]
    out = collections.Counter()
    for e in j["traceEvents"]:
        if e["ph"] != "i" or e.get("cat") != "sample":
            continue
        stack, sf = [], str(e["sf"])
        while sf is not None:
            stack.append(frames[sf]["name"])
            sf = frames[sf].get("parent")
        out[";".join([names[(e["pid"], e["tid"])]] + stack[::-1])] += 1
    return out


def folded_eq(args):
    want = folded(args[0])
    kind, event = args[2], args[3] if len(args) > 3 else None
    if kind == "pprof":
        got = pprof_stacks(args[1], event)
    elif kind == "speedscope":
        got = speedscope_stacks(args[1], event, int(args[4]))
        stripped = collections.Counter()
        for k, v in want.items():
            stripped[k.split(";", 1)[1] if ";" in k else ""] += v
        want = stripped
    elif kind == "trace":
        got = trace_stacks(args[1])
    else:
        fail("unknown kind " + kind)
    if sum(want.values()) == 0:
        fail("--folded has no samples")
    if got != want:
        for k in sorted(set(want) | set(got)):
            if want[k] != got[k]:
                print(f"  {kind} {got[k]:6d}  folded {want[k]:6d}  {k}", file=sys.stderr)
        fail(f"{kind}: the stacks differ from --folded "
             f"({sum(got.values())} samples, folded {sum(want.values())})")
    print(f"{kind}: {len(got)} stacks, {sum(got.values())} samples, equal to --folded")


# The Trace Event Format's rules (the format's document, "Trace Event
# Format", and its JSON Object Format), for the phases hpmon writes and
# the fields every event has.
PHASES = set("BEXiIbneCMsftNODPRcOv(),=TpSmlrG")
META_NAMES = {"process_name", "process_labels", "process_sort_index", "thread_name",
              "thread_sort_index"}


def is_num(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def check_trace(args):
    j = json.load(open(args[0], encoding="utf-8"))
    if not isinstance(j, dict) or not isinstance(j.get("traceEvents"), list):
        fail("the JSON Object Format needs a traceEvents array")
    if j.get("displayTimeUnit", "ms") not in ("ms", "ns"):
        fail("displayTimeUnit is 'ms' or 'ns'")
    frames = j.get("stackFrames", {})
    if not isinstance(frames, dict):
        fail("stackFrames is an object")
    for k, f in frames.items():
        if not isinstance(f, dict) or not isinstance(f.get("name"), str):
            fail(f"stack frame {k} has no name")
        seen, p = {k}, f.get("parent")
        while p is not None:
            if not isinstance(p, str) or p not in frames:
                fail(f"stack frame {k}: parent {p!r} is not a frame")
            if p in seen:
                fail(f"stack frame {k}: its parents loop")
            seen.add(p)
            p = frames[p].get("parent")
    counts = collections.Counter()
    for i, e in enumerate(j["traceEvents"]):
        where = f"event {i} ({json.dumps(e)[:120]})"
        ph = e.get("ph")
        if not isinstance(ph, str) or ph not in PHASES:
            fail(f"{where}: unknown phase")
        counts[ph] += 1
        if not isinstance(e.get("name"), str):
            fail(f"{where}: no name")
        if not (is_num(e.get("pid")) and is_num(e.get("tid"))):
            fail(f"{where}: pid and tid are numbers")
        if "args" in e and not isinstance(e["args"], dict):
            fail(f"{where}: args is an object")
        if ph != "M" and not is_num(e.get("ts")):
            fail(f"{where}: ts (microseconds) is a number")
        if ph in "iI":
            if e.get("s", "t") not in ("g", "p", "t"):
                fail(f"{where}: an instant's scope is g, p or t")
        if ph == "C":
            if not e.get("args") or not all(is_num(v) for v in e["args"].values()):
                fail(f"{where}: a counter's args are its series' numbers")
        if ph == "M":
            if e["name"] not in META_NAMES:
                fail(f"{where}: unknown metadata event")
            if e["name"].endswith("_name") and not isinstance(e.get("args", {}).get("name"), str):
                fail(f"{where}: a name's metadata has args.name")
        if "sf" in e and str(e["sf"]) not in frames:
            fail(f"{where}: sf {e['sf']} is not in stackFrames")
    print("trace: " + ", ".join(f"{n} '{ph}'" for ph, n in sorted(counts.items())))


PAGE = """<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>trace check</title></head>
<body><pre id="verdict">not run</pre>
<script>
'use strict';
const out = document.getElementById('verdict');
try {
  const bytes = Uint8Array.from(atob('%s'), (c) => c.charCodeAt(0));
  const t = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  if (!Array.isArray(t.traceEvents)) throw new Error('no traceEvents array');
  const frames = t.stackFrames || {};
  const n = {};
  for (const e of t.traceEvents) {
    if (typeof e.ph !== 'string' || typeof e.name !== 'string') throw new Error('event without ph or name');
    if (e.ph !== 'M' && typeof e.ts !== 'number') throw new Error('event without ts');
    if (e.sf !== undefined && !(String(e.sf) in frames)) throw new Error('sf ' + e.sf + ' unknown');
    n[e.ph] = (n[e.ph] || 0) + 1;
  }
  out.textContent = 'ok ' + t.traceEvents.length + ' events ' + JSON.stringify(n);
} catch (err) {
  out.textContent = 'error ' + err;
}
</script></body></html>
"""


def trace_page(args):
    data = base64.b64encode(open(args[0], "rb").read()).decode()
    with open(args[1], "w", encoding="utf-8") as f:
        f.write(PAGE % data)


def main():
    if len(sys.argv) < 3:
        fail(__doc__)
    cmd, args = sys.argv[1], sys.argv[2:]
    {"folded-eq": folded_eq, "trace": check_trace, "trace-page": trace_page}[cmd](args)


if __name__ == "__main__":
    main()
