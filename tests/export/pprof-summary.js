// SPDX-License-Identifier: MIT
// Decode a gzipped pprof profile with npm's pprof-format (a decoder hpmon
// did not write) and print what the tests check, as JSON:
//   node pprof-summary.js NODE_MODULES_DIR FILE
'use strict';
const fs = require('fs');
const path = require('path');
const zlib = require('zlib');
const { Profile } = require(path.join(process.argv[2], 'pprof-format'));

const p = Profile.decode(zlib.gunzipSync(fs.readFileSync(process.argv[3])));
const S = (i) => p.stringTable.strings[Number(i)];
const N = (v) => Number(v);
const fn = new Map(p.function.map((f) => [N(f.id), f]));
const loc = new Map(p.location.map((l) => [N(l.id), l]));

const out = {
  sampleType: p.sampleType.map((t) => [S(t.type), S(t.unit)]),
  defaultSampleType: S(p.defaultSampleType),
  periodType: p.periodType ? [S(p.periodType.type), S(p.periodType.unit)] : null,
  period: N(p.period),
  timeNanos: String(p.timeNanos),
  durationNanos: N(p.durationNanos),
  comments: p.comment.map(S),
  totals: p.sampleType.map(() => 0),
  mappings: p.mapping.map((m) => ({
    id: N(m.id), start: String(m.memoryStart), limit: String(m.memoryLimit),
    offset: String(m.fileOffset), filename: S(m.filename), buildId: S(m.buildId),
    hasFunctions: !!m.hasFunctions, hasFilenames: !!m.hasFilenames,
    hasLineNumbers: !!m.hasLineNumbers, hasInlineFrames: !!m.hasInlineFrames,
  })),
  functions: p.function.map((f) => ({
    id: N(f.id), name: S(f.name), systemName: S(f.systemName),
    filename: S(f.filename), startLine: N(f.startLine),
  })),
  locations: p.location.map((l) => ({
    id: N(l.id), mappingId: N(l.mappingId), address: String(l.address),
    // innermost first, as the format orders a location's lines
    lines: l.line.map((ln) => ({ function: S(fn.get(N(ln.functionId)).name), line: N(ln.line) })),
  })),
  samples: [],
};
for (const s of p.sample) {
  const labels = {};
  for (const l of s.label) labels[S(l.key)] = N(l.str) ? S(l.str) : N(l.num);
  // root first; a location's function is the last of its lines (the one
  // the others are inlined into), as a symbol table names it
  const stack = s.locationId.map((id) => {
    const ls = loc.get(N(id)).line;
    return S(fn.get(N(ls[ls.length - 1].functionId)).name);
  }).reverse();
  const values = s.value.map(N);
  values.forEach((v, i) => { out.totals[i] += v; });
  out.samples.push({ stack, values, labels });
}
process.stdout.write(JSON.stringify(out));
