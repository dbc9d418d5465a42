// SPDX-License-Identifier: MIT
// Time: lanes on one time axis. The first is the samples of event S.ev
// per time bin (D.bins: each leaf's samples and period per bin); with a
// timeline (D.timeline: hpmon's timeline model, from the profile or a
// stat -I file), each event's and metric's rate over time in total and
// per thread (swimlanes), bins whose counts were scaled (multiplexed)
// drawn hatched with their coverage. Dragging over any lane chooses a
// range; the flame graph and the table then count only the samples in it.
const LANE_H = 40, SWIM_H = 18;
const fmtTime = (ns) => (ns / 1e9).toFixed(Math.abs(ns) < 1e8 ? 4 : 3) + ' s';
const fmtRate = (v) => {
  const a = Math.abs(v);
  return a >= 1e9 ? (v / 1e9).toFixed(2) + ' G' : a >= 1e6 ? (v / 1e6).toFixed(2) + ' M'
    : a >= 1e3 ? (v / 1e3).toFixed(2) + ' k' : fmtNum(v) + ' ';
};

// The axis all lanes share, in ns: the bins' and the timeline's.
const AX = (() => {
  let t0 = Infinity, t1 = -Infinity;
  if (D.bins && D.bins.n) { t0 = D.bins.t0; t1 = D.bins.t0 + D.bins.n * D.bins.width; }
  const T = D.timeline;
  if (T && T.n) { t0 = Math.min(t0, T.start); t1 = Math.max(t1, T.start + T.n * T.width); }
  return t0 < t1 ? { t0, t1 } : null;
})();

// Event e's bins as [node, bin, samples, period] each: D.bins.v[e] has
// four numbers an entry, or three when every sample has the period
// D.bins.each[e].
// D.bins.v null: the bins are the stack chart's samples' (stack.js), each
// of the period D.bins.each[e].
function binEntries(e, fn) {
  if (!D.bins.v) {
    const s = stackSamples(e), q = D.bins.each[e], w = D.bins.width;
    for (let i = 0; i < s.t.length; i++) {
      const b = Math.min(D.bins.n - 1, Math.max(0, Math.floor((s.t[i] - D.bins.t0) / w)));
      fn(s.k[i], b, 1, q);
    }
    return;
  }
  const v = D.bins.v[e] || [], q = D.bins.each[e];
  if (q) for (let i = 0; i < v.length; i += 3) fn(v[i], v[i + 1], v[i + 2], v[i + 2] * q);
  else for (let i = 0; i < v.length; i += 4) fn(v[i], v[i + 1], v[i + 2], v[i + 3]);
}
// Per bin, the period of event e's samples.
function binTotals(e) {
  const t = new Float64Array(D.bins.n);
  const nodes = e === S.ev ? S.nodes : [];
  binEntries(e, (node, b, n, p) => { if (!nodes[node] || taskOn(nodes[node].th)) t[b] += p; });
  return t;
}

// The selection (ns) as the bins it covers (a bin is in when it overlaps).
function selToRange() {
  if (!S.sel || !D.bins || !D.bins.n) { S.range = null; return; }
  const w = D.bins.width;
  const b0 = Math.max(0, Math.floor((S.sel[0] - D.bins.t0) / w));
  const b1 = Math.min(D.bins.n, Math.ceil((S.sel[1] - D.bins.t0) / w));
  S.range = [b0, Math.max(b0 + 1, b1)];
}

// The tree's values in the range and the tasks chosen: without a range
// each node's whole values, else its own bins, then its kids'.
function applyRange() {
  selToRange();
  const nodes = S.nodes;
  if (!nodes.length) return;
  if (!S.range) {
    for (const n of nodes) {
      const on = n.th < 0 || taskOn(n.th);
      n.v = on ? n.v0 : 0; n.n = on ? n.n0 : 0;
    }
    if (S.threads) {
      const r = nodes[0];
      r.v = 0; r.n = 0;
      for (const c of r.kids) { r.v += c.v; r.n += c.n; }
    }
    return;
  }
  for (const n of nodes) { n.v = 0; n.n = 0; }
  const [b0, b1] = S.range;
  binEntries(S.ev, (k, b, cnt, p) => {
    const n = nodes[k];
    if (n && b >= b0 && b < b1 && taskOn(n.th)) { n.v += p; n.n += cnt; }
  });
  for (let k = nodes.length - 1; k > 0; k--) { // children come after their parents
    const n = nodes[k];
    if (n.parent) { n.parent.v += n.v; n.parent.n += n.n; }
  }
}

// Units. cpu-clock and task-clock count ns of CPU time (msec in a stat
// file): a bin's count over its width is the CPUs in use. Other events
// read in events per second; a metric in its own unit. Software events
// count whenever the task runs: never scaled.
const CLOCK = /^(cpu-clock|task-clock)(:[a-zA-Z]*)?$/;
const SOFTWARE = /^(cpu-clock|task-clock|page-faults|faults|minor-faults|major-faults|context-switches|cs|cpu-migrations|migrations|alignment-faults|emulation-faults|dummy|bpf-output)(:[a-zA-Z]*)?$/;
function unitOf(event, unit, metric) {
  if (metric) return { f: 1, u: unit || '', rate: false };
  if (CLOCK.test(event)) return { f: unit === 'msec' ? 1e6 : 1, u: 'CPUs', rate: false };
  return { f: 1, u: (unit ? unit : 'events') + '/s', rate: true };
}
// Per bin of width ns: the value in the unit (CPUs, per second, as is).
const inUnit = (u, x, width) => (u.u === 'CPUs' ? (x * u.f) / width : u.rate ? x / (width / 1e9) : x);
const fmtVal = (v, u) => (u.u === 'CPUs' ? v.toFixed(v >= 10 ? 1 : 2) + ' CPUs' : (fmtRate(v).trim() + ' ' + u.u).trim());

// The time ticks: a step of 1, 2 or 5 times a power of ten seconds,
// about one per 100 px.
function ticks(W) {
  const span = (AX.t1 - AX.t0) / 1e9;
  const raw = span / Math.max(1, W / 100);
  const p = Math.pow(10, Math.floor(Math.log10(raw)));
  const step = [1, 2, 5, 10].map((m) => m * p).find((x) => x >= raw) * 1e9;
  const out = [];
  for (let t = 0; t <= AX.t1 - AX.t0 + 1; t += step) out.push(t);
  return out;
}
const fmtTick = (ns) => { const s = ns / 1e9; return (s >= 1 || s === 0 ? +s.toFixed(3) : +s.toPrecision(3)) + ' s'; };

// One lane: values per bin (bin 0 at start, each width ns), bars scaled
// to @max (the lane's, or its group's), its value written at the top
// left; the time ticks as faint lines; where cover[i] < 1 the bar is
// hatched.
function paint(c, vals, start, width, h, colour, cover, max, label) {
  const W = c.clientWidth;
  c.width = W;
  c.height = h;
  const g = c.getContext('2d');
  g.clearRect(0, 0, W, h);
  const span = AX.t1 - AX.t0;
  const X = (t) => ((t - AX.t0) / span) * W;
  if (S.sel) {
    g.fillStyle = '#dde8ff';
    g.fillRect(X(S.sel[0]), 0, X(S.sel[1]) - X(S.sel[0]), h);
  }
  g.fillStyle = '#eee';
  for (const t of ticks(W)) g.fillRect(Math.round(X(AX.t0 + t)), 0, 1, h);
  for (let i = 0; i < vals.length; i++) {
    if (!(vals[i] > 0) || !max) continue;
    const x0 = X(start + i * width), x1 = X(start + (i + 1) * width);
    const bh = Math.max(1, Math.min(h - 2, ((h - 2) * vals[i]) / max));
    const bw = Math.max(1, x1 - x0 - (x1 - x0 > 3 ? 1 : 0));
    g.fillStyle = colour;
    g.fillRect(x0, h - bh, bw, bh);
    if (cover && cover[i] < 0.999) { // scaled: lighter, hatched
      g.fillStyle = 'rgba(255,255,255,0.55)';
      g.fillRect(x0, h - bh, bw, bh);
      g.fillStyle = '#a40';
      for (let y = h - bh; y < h; y += 4) g.fillRect(x0, y, bw, 1);
    }
  }
  g.font = '10px system-ui, sans-serif';
  g.fillStyle = '#333';
  g.textBaseline = 'top';
  g.fillText(label, 3, 1);
  c.dataset.max = max;
}

// The axis of time above the lanes: ticks and their seconds from the start.
function paintAxis(c) {
  const W = c.clientWidth, h = 18;
  c.width = W;
  c.height = h;
  const g = c.getContext('2d');
  g.font = '10px system-ui, sans-serif';
  g.fillStyle = '#555';
  g.textBaseline = 'top';
  const ts = ticks(W);
  c.dataset.ticks = ts.map(fmtTick).join(',');
  for (const t of ts) {
    const x = Math.round((t / (AX.t1 - AX.t0)) * W);
    g.fillRect(x, 10, 1, 8);
    const s = fmtTick(t);
    const tw = g.measureText(s).width;
    g.fillText(s, Math.min(Math.max(0, x - tw / 2), W - tw), 0);
  }
}

function laneRow(box, label, note, h, cls) {
  const row = el('div', 'lane' + (cls ? ' ' + cls : ''));
  const lab = el('div', 'lab', label);
  lab.title = label;
  row.appendChild(lab);
  const c = el('canvas', 'lc');
  c.style.height = h + 'px';
  row.appendChild(c);
  const val = el('div', 'val', note);
  row.appendChild(val);
  box.appendChild(row);
  return c;
}
// A lane's "own scale" box: off, the lane shares its group's scale.
function ownScale(c, l) {
  const lab = el('label', 'own');
  const b = el('input');
  b.type = 'checkbox';
  b.title = 'this lane on its own scale';
  b.addEventListener('change', () => { l.own = b.checked; strip(); });
  lab.appendChild(b);
  lab.appendChild(document.createTextNode('own scale'));
  c.parentNode.appendChild(lab);
}

// The timeline's series grouped by event (or metric), "all" first.
function seriesByEvent() {
  const m = new Map();
  for (const s of D.timeline.series) {
    if (!m.has(s.event)) m.set(s.event, []);
    m.get(s.event).push(s);
  }
  return m;
}
function coverNote(s) {
  if (!s.coverage || SOFTWARE.test(s.event)) return '';
  let lo = 1, k = 0;
  s.coverage.forEach((c, i) => { if (s.count[i] > 0 && c < 0.999) { k++; lo = Math.min(lo, c); } });
  return k ? '; scaled in ' + k + (k > 1 ? ' bins' : ' bin') + ' (counted ' + (100 * lo).toFixed(0) + '% of the time at least)' : '';
}
// A lane's name: the timeline's (comm/tid, comm/pid for a process), or
// the trees' name of that tid when the timeline knew only the number.
function laneName(s) {
  if (s.tid >= 0 && /^\d+$/.test(s.thread)) {
    const t = TASKS.find((x) => x.tid === s.tid);
    if (t) return t.name;
  }
  return s.thread;
}

// The lanes, made once; painted again when the event, range or tasks
// change. Lanes of one group share its largest value as their scale,
// unless a lane's "own scale" is ticked.
let lanes = [];
function makeLanes() {
  const box = $('lanes');
  box.textContent = '';
  lanes = [];
  const ax = el('canvas', 'axis');
  ax.id = 'axis';
  const axr = el('div', 'lane axis-row');
  axr.appendChild(el('div', 'lab', ''));
  axr.appendChild(ax);
  axr.appendChild(el('div', 'val', ''));
  box.appendChild(axr);
  lanes.push({ axis: true, draw: () => paintAxis(ax) });
  if (D.bins && D.bins.n) {
    const c = laneRow(box, 'samples', '', LANE_H, 'samples');
    c.id = 'strip';
    const l = { c, group: 'samples', own: false };
    l.vals = () => {
      const e = D.events[S.ev];
      const u = unitOf(e.name, '', false);
      l.u = u;
      return Array.from(binTotals(S.ev), (x) => inUnit(u, x, D.bins.width));
    };
    l.draw = (max) => {
      paint(c, l.cur, D.bins.t0, D.bins.width, LANE_H, '#c63', null, max, fmtVal(max, l.u));
      c.parentNode.firstChild.textContent = 'samples of ' + D.events[S.ev].name;
      c.parentNode.querySelector('.val').textContent = l.u.u === 'CPUs' ? 'CPU time of the samples' : l.u.u;
    };
    lanes.push(l);
  }
  const T = D.timeline;
  if (!T || !T.n) return;
  for (const [name, ss] of seriesByEvent()) {
    const grp = el('details', 'tl-event');
    grp.open = true;
    grp.dataset.event = name;
    const u = unitOf(name, ss[0].unit, ss[0].metric);
    grp.appendChild(el('summary', '', name + (ss[0].metric ? ' (metric)' : '') + ' in ' + (u.u || 'its values') +
      (ss.length > 1 ? '; the lanes share one scale' : '')));
    box.appendChild(grp);
    ss.forEach((s, i) => {
      const all = s.tid === -1;
      const vals = s.count.map((x) => inUnit(u, x, T.width));
      const mean = s.metric ? s.total : inUnit(u, s.total, T.n * T.width);
      const note = 'mean ' + fmtVal(mean, u) + coverNote(s);
      const c = laneRow(grp, laneName(s), note, all ? LANE_H : SWIM_H, all ? 'all' : 'thread');
      c.dataset.event = s.event;
      c.dataset.thread = laneName(s);
      c.dataset.tid = s.tid;
      c.dataset.total = s.total;
      c.dataset.mean = mean;
      c.dataset.unit = u.u;
      const cover = SOFTWARE.test(s.event) ? null : s.coverage;
      const l = { c, group: name, own: false, tid: s.tid, vals: () => vals, u };
      l.draw = (max) => paint(c, l.cur, T.start, T.width, all ? LANE_H : SWIM_H,
                              all ? (s.metric ? '#484' : '#36a') : '#89b', cover, max, fmtVal(max, u));
      ownScale(c, l);
      lanes.push(l);
      if (!all && i === 1 && ss.length > 2) grp.dataset.threads = ss.length - 1;
    });
  }
}

function strip() {
  const gmax = new Map();
  for (const l of lanes) {
    if (l.axis) continue;
    l.cur = l.vals();
    l.max = 0;
    for (const x of l.cur) if (x > l.max) l.max = x;
    gmax.set(l.group, Math.max(gmax.get(l.group) || 0, l.max));
  }
  for (const l of lanes) {
    if (l.axis) { l.draw(); continue; }
    l.c.parentNode.classList.toggle('off', l.tid >= 0 && !!S.threads &&
      !TASKS.some((t) => t.tid === l.tid && S.threads.has(t.k)));
    l.draw(l.own ? l.max : gmax.get(l.group));
  }
  if (!AX) return;
  const tot = AX.t1 - AX.t0;
  $('range').textContent = S.sel
    ? 'range: ' + fmtTime(S.sel[0] - AX.t0) + ' to ' + fmtTime(S.sel[1] - AX.t0) + ' of ' + fmtTime(tot) +
      (S.root && D.bins.n ? ' (' + fmtPct(pct(S.root.v, D.events[S.ev].period)) + ' of the samples)' : '')
    : 'the whole run: ' + fmtTime(tot) + (D.bins && D.bins.n ? ', bins of ' + fmtTime(D.bins.width) : '') +
      '; drag over a lane to choose a range';
}

function stripEvents(onRange) {
  let from = null, canvas = null;
  const at = (e) => {
    const r = canvas.getBoundingClientRect();
    const x = Math.min(Math.max(0, e.clientX - r.left), r.width);
    return AX.t0 + (x / r.width) * (AX.t1 - AX.t0);
  };
  $('lanes').addEventListener('mousedown', (e) => {
    if (!e.target.classList.contains('lc')) return;
    canvas = e.target;
    from = at(e);
    e.preventDefault();
  });
  const to = (e) => {
    const t = at(e);
    S.sel = [Math.min(from, t), Math.max(from, t)];
    if (S.sel[1] - S.sel[0] < (AX.t1 - AX.t0) / 2000) // a click: one bin's worth
      S.sel = [S.sel[0], S.sel[0] + (D.bins && D.bins.n ? D.bins.width : D.timeline.width)];
  };
  window.addEventListener('mousemove', (e) => {
    if (from === null) return;
    to(e);
    strip();
  });
  window.addEventListener('mouseup', (e) => {
    if (from === null) return;
    to(e);
    from = null;
    onRange();
  });
}
