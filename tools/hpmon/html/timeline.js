// Time: the samples of event S.ev per time bin (D.bins: each leaf's
// samples and period per bin), drawn as a strip; dragging over it
// chooses a range, and the flame graph and the table then count only the
// samples in it.
const STRIP_H = 48;

// Per bin, the period of event e's samples.
function binTotals(e) {
  const v = D.bins.v[e] || [];
  const t = new Float64Array(D.bins.n);
  for (let i = 0; i < v.length; i += 4) t[v[i + 1]] += v[i + 3];
  return t;
}

// The tree's values in the range: each node's own bins, then its kids'.
function applyRange() {
  const nodes = S.nodes;
  for (const n of nodes) {
    if (S.range) { n.v = 0; n.n = 0; } else { n.v = n.v0; n.n = n.n0; }
  }
  if (!S.range) return;
  const v = D.bins.v[S.ev] || [];
  const [b0, b1] = S.range;
  for (let i = 0; i < v.length; i += 4) {
    if (v[i + 1] < b0 || v[i + 1] >= b1) continue;
    const n = nodes[v[i]];
    if (n) { n.v += v[i + 3]; n.n += v[i + 2]; }
  }
  for (let k = nodes.length - 1; k > 0; k--) { // children come after their parents
    const n = nodes[k];
    if (n.parent) { n.parent.v += n.v; n.parent.n += n.n; }
  }
}

const fmtTime = (ns) => (ns / 1e9).toFixed(ns < 1e8 ? 4 : 3) + ' s';

function strip() {
  const c = $('strip');
  const W = c.clientWidth;
  c.width = W;
  c.height = STRIP_H;
  const g = c.getContext('2d');
  g.clearRect(0, 0, W, STRIP_H);
  const t = binTotals(S.ev);
  let max = 0;
  for (const x of t) if (x > max) max = x;
  const bw = W / Math.max(1, t.length);
  if (S.range) {
    g.fillStyle = '#dde8ff';
    g.fillRect(S.range[0] * bw, 0, (S.range[1] - S.range[0]) * bw, STRIP_H);
  }
  g.fillStyle = '#c63';
  for (let i = 0; i < t.length; i++) {
    if (!t[i]) continue;
    const h = Math.max(1, (STRIP_H - 2) * t[i] / max);
    g.fillRect(i * bw, STRIP_H - h, Math.max(1, bw - (bw > 3 ? 1 : 0)), h);
  }
  const w = D.bins.width;
  $('range').textContent = S.range
    ? 'range: ' + fmtTime(S.range[0] * w) + ' to ' + fmtTime(S.range[1] * w) + ' of ' + fmtTime(t.length * w) +
      ' (' + fmtPct(pct(S.root.v, D.events[S.ev].period)) + ' of the samples)'
    : 'the whole run: ' + fmtTime(t.length * w) + ', bins of ' + fmtTime(w) + '; drag to choose a range';
}

function stripEvents(onRange) {
  const c = $('strip');
  let from = null;
  const bin = (e) => {
    const r = c.getBoundingClientRect();
    const x = Math.min(Math.max(0, e.clientX - r.left), r.width - 1e-6);
    return Math.floor((x / r.width) * D.bins.n);
  };
  c.addEventListener('mousedown', (e) => { from = bin(e); e.preventDefault(); });
  window.addEventListener('mousemove', (e) => {
    if (from === null) return;
    const b = bin(e);
    S.range = [Math.min(from, b), Math.max(from, b) + 1];
    strip();
  });
  window.addEventListener('mouseup', (e) => {
    if (from === null) return;
    const b = bin(e);
    S.range = [Math.min(from, b), Math.max(from, b) + 1];
    from = null;
    onRange();
  });
}
