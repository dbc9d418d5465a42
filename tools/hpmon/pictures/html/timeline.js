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
function binEntries(e, fn) {
  const v = D.bins.v[e] || [], q = D.bins.each[e];
  if (q) for (let i = 0; i < v.length; i += 3) fn(v[i], v[i + 1], v[i + 2], v[i + 2] * q);
  else for (let i = 0; i < v.length; i += 4) fn(v[i], v[i + 1], v[i + 2], v[i + 3]);
}
// Per bin, the period of event e's samples.
function binTotals(e) {
  const t = new Float64Array(D.bins.n);
  binEntries(e, (node, b, n, p) => { t[b] += p; });
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

// The tree's values in the range: each node's own bins, then its kids'.
function applyRange() {
  selToRange();
  const nodes = S.nodes;
  for (const n of nodes) {
    if (S.range) { n.v = 0; n.n = 0; } else { n.v = n.v0; n.n = n.n0; }
  }
  if (!S.range) return;
  const [b0, b1] = S.range;
  binEntries(S.ev, (k, b, cnt, p) => {
    const n = nodes[k];
    if (n && b >= b0 && b < b1) { n.v += p; n.n += cnt; }
  });
  for (let k = nodes.length - 1; k > 0; k--) { // children come after their parents
    const n = nodes[k];
    if (n.parent) { n.parent.v += n.v; n.parent.n += n.n; }
  }
}

// One lane: values per bin (bin 0 at start, each width ns), bars scaled
// to the lane's maximum; where cover[i] < 1 the bar is hatched.
function paint(c, vals, start, width, h, colour, cover) {
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
  let max = 0;
  for (const x of vals) if (x > max) max = x;
  for (let i = 0; i < vals.length; i++) {
    if (!(vals[i] > 0) || !max) continue;
    const x0 = X(start + i * width), x1 = X(start + (i + 1) * width);
    const bh = Math.max(1, ((h - 2) * vals[i]) / max);
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
}

function laneRow(box, label, note, h, cls) {
  const row = el('div', 'lane' + (cls ? ' ' + cls : ''));
  const lab = el('div', 'lab', label);
  lab.title = label;
  row.appendChild(lab);
  const c = el('canvas', 'lc');
  c.style.height = h + 'px';
  row.appendChild(c);
  row.appendChild(el('div', 'val', note));
  box.appendChild(row);
  return c;
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
  if (!s.coverage) return '';
  let lo = 1, k = 0;
  s.coverage.forEach((c, i) => { if (s.count[i] > 0 && c < 0.999) { k++; lo = Math.min(lo, c); } });
  return k ? '; scaled in ' + k + (k > 1 ? ' bins' : ' bin') + ' (counted ' + (100 * lo).toFixed(0) + '% of the time at least)' : '';
}

// The lanes, made once; painted again when the event or range changes.
let lanes = [];
function makeLanes() {
  const box = $('lanes');
  box.textContent = '';
  lanes = [];
  if (D.bins && D.bins.n) {
    const c = laneRow(box, 'samples', '', LANE_H, 'samples');
    c.id = 'strip';
    lanes.push({ c, h: LANE_H, draw: () => {
      paint(c, binTotals(S.ev), D.bins.t0, D.bins.width, LANE_H, '#c63', null);
      c.parentNode.firstChild.textContent = 'samples of ' + D.events[S.ev].name;
    } });
  }
  const T = D.timeline;
  if (!T || !T.n) return;
  const secs = T.width / 1e9;
  for (const [name, ss] of seriesByEvent()) {
    const grp = el('details', 'tl-event');
    grp.open = true;
    grp.dataset.event = name;
    grp.appendChild(el('summary', '', name + (ss[0].metric ? ' (metric)' : '') + (ss[0].unit ? ', ' + ss[0].unit : '')));
    box.appendChild(grp);
    ss.forEach((s, i) => {
      const all = s.tid === -1;
      const vals = s.metric ? s.count : s.count.map((x) => x / secs);
      const mean = s.metric ? s.total : s.total / (T.n * secs);
      const note = (s.metric ? 'mean ' + fmtNum(mean) : 'mean ' + fmtRate(mean) + (s.unit || '') + '/s') +
        coverNote(s);
      const c = laneRow(grp, s.thread, note, all ? LANE_H : SWIM_H, all ? 'all' : 'thread');
      c.dataset.event = s.event;
      c.dataset.thread = s.thread;
      c.dataset.total = s.total;
      lanes.push({ c, draw: () => paint(c, vals, T.start, T.width, all ? LANE_H : SWIM_H,
                                         all ? (s.metric ? '#484' : '#36a') : '#89b', s.coverage) });
      if (!all && i === 1 && ss.length > 2) grp.dataset.threads = ss.length - 1;
    });
  }
}

function strip() {
  for (const l of lanes) l.draw();
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
