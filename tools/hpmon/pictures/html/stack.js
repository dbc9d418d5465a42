// SPDX-License-Identifier: MIT
// The stack chart: one task's samples along time (D.stacks: each sample's
// time, to PAGE_STACK_TICK ns, and its leaf in the page's tree; see
// picture-stack.c for the encoding), each drawn as its stack, the
// outermost frame at the top, from its time until the task's next
// sample (at most the task's usual interval between samples), frames of
// one node in a row merged. It shows the range when one is chosen.
const SC_MAX_H = 6000;
const fmtDur = (ns) => (ns < 1e3 ? ns + ' ns' : ns < 1e6 ? +(ns / 1e3).toPrecision(3) + ' \u00b5s'
  : ns < 1e9 ? +(ns / 1e6).toPrecision(3) + ' ms' : +(ns / 1e9).toPrecision(4) + ' s');
const stackCache = new Map();

// Event e's samples: times (ns) and leaves (indexes of the page's nodes).
function stackSamples(e) {
  if (stackCache.has(e)) return stackCache.get(e);
  const bin = atob((D.stacks.v[e] || ''));
  const t = [], k = [];
  let i = 0, tk = 0, last = 0;
  const uleb = () => {
    let v = 0, m = 1, b;
    do { b = bin.charCodeAt(i++); v += (b & 0x7f) * m; m *= 128; } while (b & 0x80);
    return v;
  };
  while (i < bin.length) {
    const x = uleb();
    tk += Math.floor(x / 2);
    if (!(x & 1)) last = uleb();
    t.push(D.stacks.t0 + tk * D.stacks.tick);
    k.push(last);
  }
  const r = { t: Float64Array.from(t), k: Uint32Array.from(k) };
  stackCache.set(e, r);
  return r;
}

// The task the chart shows: the first chosen, else the one with the
// most samples in the range.
function stackTask() {
  let best = null;
  for (const c of S.root.kids)
    if (taskOn(c.th) && (!best || c.n > best.n)) best = c;
  return best;
}

let SC = null; // the boxes drawn, for the tooltip and clicks
function stackChart() {
  const box = $('stack');
  const note = $('stack-note');
  const c = $('stack-canvas');
  SC = null;
  if (!D.stacks) { note.textContent = 'No stack chart: the samples have no time.'; c.height = 0; return; }
  const task = stackTask();
  if (!task) { note.textContent = 'No samples in the tasks and range chosen.'; c.height = 0; return; }
  const all = stackSamples(S.ev);
  const nodes = S.nodes;
  const a = S.sel ? S.sel[0] : AX.t0, b = S.sel ? S.sel[1] : AX.t1;
  // this task's samples in [a, b)
  const idx = [];
  for (let i = 0; i < all.t.length; i++) {
    const n = nodes[all.k[i]];
    if (n && n.th === task.th && all.t[i] >= a && all.t[i] < b) idx.push(i);
  }
  const gaps = [];
  for (let j = 1; j < idx.length; j++) gaps.push(all.t[idx[j]] - all.t[idx[j - 1]]);
  gaps.sort((x, y) => x - y);
  const step = gaps.length ? Math.max(D.stacks.tick, gaps[gaps.length >> 1]) : D.stacks.tick;
  note.textContent = task.name + ': ' + idx.length + ' samples of ' + D.events[S.ev].name +
    ', each at its time to ' + fmtDur(D.stacks.tick) +
    ' (the resolution the page keeps), drawn until the next (at most ' + fmtDur(step) + ')' +
    (D.stacks.stride > 1 ? '; the page keeps one sample in ' + D.stacks.stride + ' of so long a run' : '') +
    (D.stacks.left ? '; ' + D.stacks.left + ' samples are not in the chart' : '') +
    '. Choose a task with the selector above for another.';
  const W = box.clientWidth;
  let maxd = 0;
  for (const i of idx) maxd = Math.max(maxd, nodes[all.k[i]].d);
  const H = Math.min(SC_MAX_H, Math.max(1, maxd - 1) * FRAME_H);
  c.width = W;
  c.height = H;
  c.style.height = H + 'px';
  const g = c.getContext('2d');
  g.font = '11px ui-monospace, monospace';
  g.textBaseline = 'middle';
  const X = (t) => ((t - a) / (b - a)) * W;
  const boxes = [];
  const cur = []; // per row: [node, x0, x1]
  const flush = (d) => {
    const o = cur[d];
    if (!o) return;
    cur[d] = null;
    const w = o[2] - o[1];
    if (w < 0.3) return;
    const y = (d - 2) * FRAME_H;
    if (y + FRAME_H > H) return;
    g.fillStyle = nameColour(o[0].name);
    g.fillRect(o[1], y, Math.max(w - 0.5, 0.5), FRAME_H - 1);
    if (w > 30) {
      g.fillStyle = '#222';
      g.save();
      g.beginPath();
      g.rect(o[1], y, w - 2, FRAME_H);
      g.clip();
      g.fillText(o[0].name, o[1] + 3, y + FRAME_H / 2);
      g.restore();
    }
    if (w >= 1) boxes.push([o[1], o[2], d, o[0]]);
  };
  const path = [];
  for (let j = 0; j < idx.length; j++) {
    const i = idx[j];
    const t0 = all.t[i];
    const t1 = j + 1 < idx.length ? Math.min(all.t[idx[j + 1]], t0 + step) : t0 + step;
    const x0 = X(t0), x1 = X(Math.min(t1, b));
    path.length = 0;
    for (let n = nodes[all.k[i]]; n && n.d >= 2; n = n.parent) path.push(n);
    path.reverse();
    for (let d = 2; d < path.length + 2; d++) {
      const n = path[d - 2], o = cur[d];
      if (o && o[0] === n && x0 - o[2] < 0.5) { o[2] = x1; continue; }
      for (let dd = d; dd < cur.length; dd++) flush(dd);
      cur[d] = [n, x0, x1];
    }
    for (let dd = path.length + 2; dd < cur.length; dd++) flush(dd);
  }
  for (let d = 0; d < cur.length; d++) flush(d);
  c.dataset.task = task.name;
  c.dataset.samples = idx.length;
  c.dataset.boxes = boxes.length;
  SC = { boxes, a, b };
}
// The box under the mouse, or null.
function stackBox(e) {
  if (!SC) return null;
  const r = $('stack-canvas').getBoundingClientRect();
  const x = e.clientX - r.left, d = Math.floor((e.clientY - r.top) / FRAME_H) + 2;
  for (const bx of SC.boxes) if (bx[2] === d && x >= bx[0] && x < bx[1]) return bx;
  return null;
}
function stackTip(e) {
  const t = $('tip'), bx = stackBox(e);
  if (!bx) { t.hidden = true; return; }
  const span = ((bx[1] - bx[0]) / $('stack-canvas').width) * (SC.b - SC.a);
  t.textContent = bx[3].name + (bx[3].dso ? ' (' + bx[3].dso + ')' : '') + ': ' + (span / 1e6).toFixed(3) +
    ' ms from ' + fmtTime(SC.a + (bx[0] / $('stack-canvas').width) * (SC.b - SC.a) - AX.t0);
  t.hidden = false;
  t.style.left = Math.min(e.clientX + 12, window.innerWidth - t.offsetWidth - 4) + 'px';
  t.style.top = e.clientY + 14 + 'px';
}
