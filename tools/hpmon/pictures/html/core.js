// SPDX-License-Identifier: MIT
// hpmon report --html and diff --html: the page's code, in the order
// picture-html.c joins the files: core.js (the data, helpers, the state),
// flame.js (the flame graph and its colours), table.js (the functions),
// annotate.js (a function's lines and instructions), timeline.js (time
// bins and the range), app.js (the header and the wiring). The data is
// the JSON block #data (docs/hpmon-report.md says its fields). No
// library, no network.
'use strict';
const D = JSON.parse(document.getElementById('data').textContent);
const $ = (id) => document.getElementById(id);
const el = (tag, cls, text) => {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
};
const pct = (v, t) => (t > 0 ? (100 * v) / t : 0);
const fmtPct = (p) => p.toFixed(2) + '%';
const fmtNum = (v) => (v === null || v === undefined || !isFinite(v) ? 'n/a'
  : Math.abs(v) >= 1000 ? v.toFixed(0) : Math.abs(v) >= 10 ? v.toFixed(2) : v.toFixed(3));
const DIFF = D.mode === 'diff';
// The numbers of a compact member (base64 of unsigned LEB128 numbers:
// D.trees' strings), as a Float64Array.
function ulebs(b64) {
  const bin = atob(b64 || '');
  const out = new Float64Array(bin.length);
  let k = 0, v = 0, m = 1;
  for (let i = 0; i < bin.length; i++) {
    const b = bin.charCodeAt(i);
    v += (b & 0x7f) * m;
    if (b & 0x80) { m *= 128; continue; }
    out[k++] = v; v = 0; m = 1;
  }
  return out.subarray(0, k);
}
const CHARTS = D.mode === 'timeline'; // a stat -I file's charts alone

// The tasks of the trees' second level: comm/tid per thread (a
// single-threaded process's tid is its pid), or the name alone in diff's
// page, whose trees merge the tasks of one name.
const TASKS = (D.comms || []).map((c, i) => {
  const tid = D.tids ? D.tids[i] : -1;
  return { name: tid >= 0 ? c + '/' + tid : c, comm: c, tid, k: i };
});
// What the page shows now.
const S = {
  ev: D.main,        // the event that weights the graph and the table
  root: null,        // its call tree (flame.js)
  nodes: [],         // its nodes in the page's order
  zoom: null,        // the node shown at full width
  search: null,      // a RegExp
  colour: DIFF ? 'diff' : 'name',  // what the frames' colours follow
  sel: null,         // the time range chosen, [from, to] in ns, or null
  range: null,       // the bins it covers, [first, last + 1) (timeline.js)
  threads: null,     // the tasks chosen (a Set of indexes into TASKS), or null: all
  view: 'flame',     // flame, calltree, inverted, sandwich, stackchart (views.js)
  fn: null,          // the sandwich's function (a symbol's index)
};
// Whether task k (an index into TASKS; -1: none) is among those chosen.
const taskOn = (k) => !S.threads || S.threads.has(k);
