#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Write crafted hpmon profiles (docs/profile-format.md) that stress what a
reader keeps in memory: records that cost a few bytes on disk but ask the
report to hold much more. Used by tests/e2e/report-bounds.sh, bench/diff.sh
and to make fuzz/corpus/profile/crafted-*.

  gen-profile.py SHAPE OUT [--samples N] [--chunk BYTES] [--stored] [--alternate]

Shapes:
  unmapped  N samples at one address no mapping covers (all kept aside
            until the end, each a few bytes); with --alternate, at two
            addresses in turn (no sample repeats the one before)
  chains    the same with a 4096-entry call chain repeated by reference
            (a chain costs 2 bytes on disk, 32 KiB in memory)
  pids      every sample of a new process with no mapping (one row per
            process with --sort pid)
  ips       every sample at a new unmapped address (one symbol each)
  graph     every sample at a new unmapped address, called from another
            new one: two symbols and a call-graph edge each
  mmaps     N executable mappings of one process, then N samples: every
            lookup walks the mappings
  rows      N samples spread over --rows distinct addresses of one mapped file
            (--object, default /nonexistent/big), for diff (two files
            differ by --seed)
  chainends samples in --object (mapped at 0x400000 from offset 0) whose
            call chains end as the kernel's can: --ips LEAF,CALLER,OUTER
            (file offsets; CALLER and OUTER are return addresses). 3
            samples whose user chain ends with a zero return address and
            a word after it, 4 whose zero comes before OUTER, 2 with a
            word in the markers' range that is no marker (-1) before OUTER
  callers   a call graph whose first-seen callers and callees have the
            smaller shares: a leaf at 0x400000 called from 0x500010 (1
            sample), 0x600010 (3), 0x700010 (2) and 0x680010 (2); a caller
            at 0x800010 of 0x410000 (1) and 0x420000 (3). --samples is
            ignored
  timeline  a timeline (10 ms readings, minor version 2) of a process named
            --comm (pid 100) and two threads that never named themselves:
            101, forked by 100, and 102, of which no record but its
            readings and samples speaks; of two events, cpu-clock (a
            software event) and cycles (hardware, not sampling), each
            reading counted half of the time it was enabled. --samples
            is the readings per thread (default here 10: give --samples 10)
  names     N samples of a task named --comm (a COMM record) in --object
            (an MMAP record), of an event named --event: names that a
            text output must escape (any bytes, as the arguments give
            them)

Payloads are zstd-compressed with the zstd program when it is there
(--stored writes them uncompressed, codec 0). Prints the bytes of records
(the file's uncompressed size).
"""
import argparse
import os
import random
import shutil
import struct
import subprocess
import sys

MAGIC = b"HPMPROF\0"
CHUNK_MAGIC = 0x4B484348
SAMPLE_IP, SAMPLE_TID, SAMPLE_TIME, SAMPLE_READ = 1, 2, 4, 16
SAMPLE_CALLCHAIN, SAMPLE_CPU, SAMPLE_PERIOD = 32, 128, 256
TAG_SAMPLE, TAG_MMAP, TAG_COMM, TAG_FORK, TAG_TOTALS, TAG_TIMELINE = 1, 2, 3, 4, 9, 12
TF_FINAL, TF_RUN_ALL = 0x10, 0x80
SF_TASK, SF_CPUEV, SF_PERIOD, SF_MODE = 0x10, 0x20, 0x40, 0x80


def fnv(b):
    h = 2166136261
    for x in b:
        h = ((h ^ x) * 16777619) & 0xFFFFFFFF
    return h


def var(v):
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        if v:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def zz(v):
    return var(((v << 1) ^ (v >> 63)) & 0xFFFFFFFFFFFFFFFF)


def s(text):
    b = text if isinstance(text, bytes) else os.fsencode(text)
    return var(len(b)) + b


def meta(sample_type, callchain, event="cpu-clock"):
    m = bytearray()
    m += var(1 << 1 | 1) + s("crafted")
    m += var(3 << 1 | 1) + s("x86_64")
    m += var(7 << 1) + var(callchain)
    m += var(8 << 1) + var(4096)
    m += var(16 << 1 | 1) + s(event)
    m += var(17 << 1) + var(1) + var(18 << 1) + var(0)
    m += var(21 << 1) + var(4000) + var(22 << 1) + var(1)
    m += var(23 << 1) + var(1) + var(25 << 1) + var(sample_type)
    return bytes(m)


class Writer:
    def __init__(self, out, chunk, stored):
        self.f = out
        self.chunk = chunk
        self.zstd = None if stored else shutil.which("zstd")
        self.buf = bytearray()
        self.nrec = 0
        self.samples = 0
        self.first = True
        self.pid = self.ip = 0
        self.raw_bytes = 0

    def header(self, m, minor=0):
        self.f.write(MAGIC + struct.pack("<HHIII", 1, minor, len(m), fnv(m), 0) + m)

    def add(self, rec, sample=True):
        self.buf += rec
        self.nrec += 1
        self.samples += sample
        if len(self.buf) >= self.chunk:
            self.flush()

    def sample(self, pid, ip, chain=0):
        """A sample of @pid at @ip, coded as a delta from the chunk's
        previous one (every chunk decodes on its own: its first sets the
        task, CPU, event, period and mode again). @chain: that many
        entries, all repeated from the previous sample but the first time
        in the chunk."""
        tag = TAG_SAMPLE
        rec = bytearray()
        if self.first:
            tag |= SF_TASK | SF_CPUEV | SF_PERIOD | SF_MODE
            rec += var(pid) + var(pid) + var(0) + var(0) + var(1000) + bytes([2])
            self.ip = 0
        elif pid != self.pid:
            tag |= SF_TASK
            rec += var(pid) + var(pid)
        rec += zz(1) + zz(ip - self.ip)
        if chain and self.first:
            rec += var(chain) + var(0) + zz(0) * chain
        elif chain:
            rec += var(chain) + var(chain)
        self.first = False
        self.pid, self.ip = pid, ip
        self.add(bytes([tag]) + rec)

    def sample_chain(self, pid, ip, chain):
        """A user-mode sample of @pid at @ip with the call chain @chain
        (the kernel's entries, markers included), written in full: the
        first of its chunk, so that nothing refers to another sample."""
        self.flush()
        tag = TAG_SAMPLE | SF_TASK | SF_CPUEV | SF_PERIOD | SF_MODE
        rec = var(pid) + var(pid) + var(0) + var(0) + var(1000) + bytes([2])
        rec += zz(1) + zz(ip)
        rec += var(len(chain)) + var(0)
        prev = ip
        for e in chain:
            d = (e - prev) & 0xFFFFFFFFFFFFFFFF
            if d >= 1 << 63:
                d -= 1 << 64
            rec += zz(d)
            prev = e
        self.first = False
        self.add(bytes([tag]) + rec)
        self.flush()

    def sample_called(self, pid, ip, caller):
        """A user-mode sample of @pid at @ip called from @caller, every
        field given (nothing taken from the sample before but the ip the
        delta is from)."""
        if self.first:
            self.ip = 0
        tag = TAG_SAMPLE | SF_TASK | SF_CPUEV | SF_PERIOD | SF_MODE
        rec = var(pid) + var(pid) + var(0) + var(0) + var(1000) + bytes([2])
        rec += zz(1) + zz(ip - self.ip)
        rec += var(3) + var(0)
        prev = ip
        for e in ((1 << 64) - 512, ip, caller):  # the user part's marker, then the chain
            d = (e - prev) & 0xFFFFFFFFFFFFFFFF
            rec += zz(d - (1 << 64) if d >= 1 << 63 else d)
            prev = e
        self.first = False
        self.pid, self.ip = pid, ip
        self.add(bytes([tag]) + rec)

    def emit(self, kind, raw, nrec):
        self.raw_bytes += len(raw)
        codec, payload = 0, bytes(raw)
        if self.zstd and raw:
            payload = subprocess.run([self.zstd, "-q", "-19", "-c"], input=payload,
                                     stdout=subprocess.PIPE, check=True).stdout
            codec = 1
        self.f.write(struct.pack("<IBBHIIII", CHUNK_MAGIC, kind, codec, 0, len(raw),
                                 len(payload), nrec, fnv(payload)) + payload)

    def flush(self):
        if self.nrec:
            self.emit(1, self.buf, self.nrec)
        self.buf = bytearray()
        self.nrec = 0
        self.first = True

    def close(self):
        self.flush()
        end = bytes([TAG_TOTALS]) + var(self.samples) + var(0) * 4 + zz(-1)
        self.emit(2, end, 1)


def mmap_rec(pid, start, length, name, time=0):
    return (bytes([TAG_MMAP]) + var(pid) + var(pid) + zz(time) + var(start) + var(length)
            + var(0) + var(5) + var(2) + bytes([0]) + s(name))


def timeline(w, a):
    """The timeline shape (above)."""
    m = bytearray(meta(SAMPLE_IP | SAMPLE_TID | SAMPLE_TIME | SAMPLE_CPU | SAMPLE_PERIOD, 0))
    m += var(13 << 1) + var(10000000) + var(14 << 1) + var(1000)
    m += var(16 << 1 | 1) + s("cycles") + var(17 << 1) + var(0) + var(18 << 1) + var(0)
    m += var(23 << 1) + var(0)
    w.header(bytes(m), minor=2)
    t0, step = 1000000000, 10000000  # ns: the first reading, the interval
    now = 0

    def at(t):  # the zigzag delta of the chunk's time to t
        nonlocal now
        d, now = t - now, t
        return zz(d)

    w.add(bytes([TAG_COMM]) + var(100) + var(100) + at(t0 - step) + s(a.comm), sample=False)
    w.add(bytes([TAG_FORK]) + var(100) + var(100) + var(101) + var(100) + at(t0 - step),
          sample=False)
    tids = (100, 101, 102)
    ip = 0
    for k in range(a.samples):  # a sample of each thread in each interval
        for tid in tids:
            tag = TAG_SAMPLE | SF_TASK | SF_CPUEV | SF_PERIOD | SF_MODE
            rec = var(100) + var(tid) + var(0) + var(0) + var(step // 2) + bytes([2])
            w.add(bytes([tag]) + rec + at(t0 - step + k * step + tid) + zz(0x400000 - ip))
            ip = 0x400000
    # the readings: each thread's, each event's, at the end of each
    # interval; enabled 10 ms, running 5 ms
    prev_t, prev_en, prev_v = 0, 0, [0, 0]
    for tid in tids:
        for ev in (0, 1):
            for k in range(a.samples):
                t = (t0 + k * step) // 1000  # us
                start = t - step // 1000
                en, off = step // 1000, step // 2000
                v = step // 2 if ev == 0 else 3 * step
                tag = TAG_TIMELINE | (TF_FINAL if k == a.samples - 1 else 0)
                rec = var(100) + var(tid) + var(0) + var(ev)
                rec += zz(t - prev_t) + zz(start - prev_t)
                rec += zz(en - prev_en) + var(off)
                rec += var(1) + var(0) + zz(v - prev_v[ev])
                prev_t, prev_en, prev_v[ev] = t, en, v
                w.add(bytes([tag]) + rec, sample=False)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("shape", choices=["unmapped", "chains", "pids", "ips", "mmaps", "rows",
                                      "chainends", "graph", "names", "callers",
                                      "timeline"])
    ap.add_argument("out")
    ap.add_argument("--samples", type=int, default=200000)
    ap.add_argument("--chunk", type=int, default=1 << 20)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--stored", action="store_true")
    ap.add_argument("--rows", type=int, default=0,
                    help="distinct addresses of the rows shape (default: --samples)")
    ap.add_argument("--object", default="/nonexistent/big",
                    help="the file the rows and chainends shapes map")
    ap.add_argument("--alternate", action="store_true",
                    help="unmapped, chains: every other sample 64 bytes further, so that "
                         "no sample repeats the one before")
    ap.add_argument("--comm", default="crafted", help="names: the task's name")
    ap.add_argument("--event", default="cpu-clock", help="names: the event's name")
    ap.add_argument("--ips", default="",
                    help="chainends: LEAF,CALLER,OUTER offsets in --object")
    a = ap.parse_args()

    st = SAMPLE_IP | SAMPLE_TID | SAMPLE_TIME | SAMPLE_CPU | SAMPLE_PERIOD
    if a.shape in ("chains", "chainends", "graph", "callers"):
        st |= SAMPLE_CALLCHAIN
    with open(a.out, "wb") as f:
        w = Writer(f, a.chunk, a.stored)
        if a.shape == "timeline":
            timeline(w, a)
            w.close()
            print(w.raw_bytes)
            return 0
        w.header(meta(st, 1 if a.shape in ("chains", "chainends", "graph", "callers") else 0,
                      a.event if a.shape == "names" else "cpu-clock"))
        chain = 4096 if a.shape == "chains" else 0
        if a.shape in ("unmapped", "chains"):
            # time +1, ip +0: 3 bytes a sample (5 with the chain's n and k)
            for i in range(a.samples):
                w.sample(100, 0x400000 + (64 * (i & 1) if a.alternate else 0), chain)
        elif a.shape == "pids":
            for i in range(a.samples):
                w.sample(1000 + i % 4000000, 0x400000)
        elif a.shape == "ips":
            for i in range(a.samples):
                w.sample(100, 0x400000 + i)
        elif a.shape == "graph":
            for i in range(a.samples):
                w.sample_called(100, 0x400000 + 16 * i, 0x40000000 + 16 * i)
        elif a.shape == "chainends":
            base, user, bad = 0x400000, (1 << 64) - 512, (1 << 64) - 1
            leaf, caller, outer = (base + int(x, 0) for x in a.ips.split(","))
            w.add(bytes([TAG_COMM]) + var(100) + var(100) + zz(0) + s("calltree"), sample=False)
            w.add(mmap_rec(100, base, 1 << 30, a.object), sample=False)
            for _ in range(3):
                w.sample_chain(100, leaf, [user, leaf, caller, outer, 0, base + 0x10])
            for _ in range(4):
                w.sample_chain(100, leaf, [user, leaf, caller, 0, outer])
            for _ in range(2):
                w.sample_chain(100, leaf, [user, leaf, caller, bad, outer])
        elif a.shape == "callers":
            for ip, caller, n in ((0x400000, 0x500010, 1), (0x400000, 0x600010, 3),
                                  (0x400000, 0x700010, 2), (0x400000, 0x680010, 2),
                                  (0x410000, 0x800010, 1), (0x420000, 0x800010, 3)):
                for _ in range(n):
                    w.sample_called(100, ip, caller)
        elif a.shape == "names":
            w.add(bytes([TAG_COMM]) + var(100) + var(100) + zz(0) + s(a.comm), sample=False)
            w.add(mmap_rec(100, 0x400000, 1 << 20, a.object), sample=False)
            for i in range(a.samples):
                w.sample(100, 0x400000 + 16 * (i % 4))
        elif a.shape == "mmaps":
            for i in range(a.samples):
                w.add(mmap_rec(100, 0x10000000 + i * 0x2000, 0x1000, "/nonexistent/lib.so"),
                      sample=False)
            for i in range(a.samples):
                w.sample(100, 0x400000)
        else:  # rows: a.samples samples over distinct addresses of one object
            rng = random.Random(a.seed)
            w.add(mmap_rec(100, 0x400000, 1 << 36, a.object), sample=False)
            for _ in range(a.samples):
                w.sample(100, 0x400000 + rng.randrange(a.rows or a.samples) * 64)
        w.close()
    print(w.raw_bytes)
    return 0


if __name__ == "__main__":
    sys.exit(main())
