// SPDX-License-Identifier: MIT
// The flame graph (icicle: the root at the top) of event S.ev: its call
// tree, the frames' colours (by name; by a ratio of counts read from
// groups or a metric; in diff's page by the change of share), zoom and
// search.
const FRAME_H = 17;
const MIN_PX = 0.5; // narrower frames are not drawn (their share stays in the parent)

// The call tree of event e from its nodes in depth-first order (D.trees[e]:
// per node its parent's depth + 1 - its depth, what zigzagged, samples,
// and its period unless D.tree_each[e] gives each sample's; what: a
// symbol, or -1 - the task's index): root, then the task, then the
// frames from the outermost. v: period, n: samples (of the range and
// the tasks chosen; v0, n0: of the whole profile).
function build(e) {
  const t = ulebs(D.trees[e]);
  const q = D.tree_each ? D.tree_each[e] : null;
  const path = [];
  const nodes = [];
  const nr = D.read.length;
  const nm = D.metrics.length;
  let d = -1;
  for (let i = 0; i < t.length;) {
    const k = nodes.length;
    d = d + 1 - t[i];
    const z = t[i + 1], w = z % 2 ? -(z + 1) / 2 : z / 2, ns = t[i + 2];
    const v = q ? ns * q : t[i + 3];
    i += q ? 3 : 4;
    const n = { v, n: ns, kids: [], parent: d ? path[d - 1] : null, k, sym: -1, d };
    n.v0 = n.v; n.n0 = n.n;
    n.th = d > 1 ? n.parent.th : -1; // the task it ran in
    if (!d) { n.name = 'all'; n.dso = ''; }
    else if (w < 0) { n.name = TASKS[-1 - w].name; n.dso = ''; n.th = -1 - w; }
    else { n.name = D.syms[w]; n.dso = D.dsos[D.symdso[w]]; n.sym = w; }
    if (nr && D.reads[e].length) n.reads = D.reads[e].slice(k * nr, (k + 1) * nr);
    if (nm && D.nmetrics[e].length) n.metrics = D.nmetrics[e].slice(k * nm, (k + 1) * nm);
    if (DIFF) n.base = D.base[k];
    if (n.parent) n.parent.kids.push(n);
    path[d] = n;
    nodes.push(n);
  }
  for (const n of nodes)
    n.kids.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  S.nodes = nodes;
  return nodes[0] || { name: 'all', dso: '', v: 0, n: 0, v0: 0, n0: 0, kids: [], parent: null, k: 0, sym: -1 };
}

function nameColour(name) {
  let h = 0;
  for (let i = 0; i < name.length; i++) h = (h * 31 + name.charCodeAt(i)) >>> 0;
  return 'hsl(' + (10 + (h % 40)) + ',' + (70 + (h >> 8) % 20) + '%,' + (60 + (h >> 16) % 15) + '%)';
}
// x in [-1, 1]: blue (less, lower) through white to red (more, higher)
function scaleColour(x) {
  const a = Math.min(1, Math.abs(x));
  const l = 96 - 46 * a;
  return x >= 0 ? 'hsl(0,' + (20 + 70 * a) + '%,' + l + '%)' : 'hsl(220,' + (20 + 70 * a) + '%,' + l + '%)';
}

// The colour choices besides the name: in a diff, the change; ratios of
// the counts read from groups (x per y, as cycles per instruction); the
// metrics (-M).
function colourChoices() {
  const c = [];
  if (DIFF) { c.push(['diff', 'change of share (red: more in B, blue: less)']); return c; }
  c.push(['name', 'function name']);
  const r = D.read;
  for (let a = 0; a < r.length; a++)
    for (let b = 0; b < r.length; b++)
      if (a !== b && (r.length <= 4 || b === 0))
        c.push(['r:' + a + ':' + b, D.events[r[a]].name + ' per ' + D.events[r[b]].name]);
  D.metrics.forEach((m, i) => c.push(['m:' + i, 'metric ' + m.name]));
  return c;
}

// The value a node's colour follows (null: none), and the scale of the
// drawn frames: the diff's change in points, or the values' range.
function colourValue(n) {
  const c = S.colour;
  if (c === 'diff') return pct(n.v0, S.root.v0) - pct(n.base, D.base_total);
  if (c.startsWith('r:')) {
    if (!n.reads) return null;
    const [a, b] = c.slice(2).split(':').map(Number);
    return n.reads[b] > 0 ? n.reads[a] / n.reads[b] : null;
  }
  if (c.startsWith('m:')) return n.metrics ? n.metrics[Number(c.slice(2))] : null;
  return null;
}
function colourScale(drawn) {
  let lo = Infinity, hi = -Infinity;
  for (const n of drawn) {
    if (n === S.root || n.v0 < S.root.v0 / 1000) continue; // too small to set the scale
    const v = colourValue(n);
    if (v === null || !isFinite(v)) continue;
    if (v < lo) lo = v;
    if (v > hi) hi = v;
  }
  if (S.colour === 'diff') { const m = Math.max(Math.abs(lo), Math.abs(hi), 1e-9); return [-m, m]; }
  return lo <= hi ? [lo, hi] : null;
}
function frameColour(n, scale) {
  if (S.colour === 'name' || !scale) return nameColour(n.name);
  const v = colourValue(n);
  if (v === null || !isFinite(v)) return '#eee';
  if (S.colour === 'diff') return scaleColour(v / scale[1]);
  const [lo, hi] = scale;
  return scaleColour(hi > lo ? (2 * (v - lo)) / (hi - lo) - 1 : 0);
}

function draw() {
  const box = $('flame');
  box.textContent = '';
  const W = box.clientWidth;
  const total = S.root.v;
  const z = S.zoom || S.root;
  let maxd = 0;
  const frag = document.createDocumentFragment();
  // the zoomed node's ancestors, full width above it
  const chain = [];
  for (let p = z.parent; p; p = p.parent) chain.unshift(p);
  const placed = [];
  chain.forEach((p, d) => placed.push([p, 0, W, d, true]));
  const todo = [[z, 0, W, chain.length]];
  while (todo.length) {
    const [n, x, w, d] = todo.pop();
    placed.push([n, x, w, d, false]);
    if (d > maxd) maxd = d;
    let cx = x;
    for (const c of n.kids) {
      const cw = n.v > 0 ? (w * c.v) / n.v : 0;
      if (cw >= MIN_PX) todo.push([c, cx, cw, d + 1]);
      cx += cw;
    }
  }
  const scale = S.colour === 'name' ? null : colourScale(placed.map((p) => p[0]));
  for (const [n, x, w, d, above] of placed) {
    const f = frame(n, x, w, d, total, above ? '#ddd' : frameColour(n, scale));
    if (!above && S.search && S.search.test(n.name)) f.classList.add('hl');
    frag.appendChild(f);
  }
  box.style.height = (maxd + 1) * FRAME_H + 'px';
  box.appendChild(frag);
  $('match').textContent = S.search ? 'matched: ' + fmtPct(pct(searchShare(z), total)) : '';
  $('crumbs').textContent = chain.concat([z]).map((p) => p.name).join(' \u203a ');
  legend(scale);
}
function legend(scale) {
  const g = $('legend');
  if (!scale) { g.textContent = ''; return; }
  const what = colourChoices().find((c) => c[0] === S.colour);
  g.textContent = S.colour === 'diff'
    ? 'blue: up to ' + scale[1].toFixed(2) + ' points less in B; red: up to ' + scale[1].toFixed(2) + ' points more'
    : (what ? what[1] : '') + ': blue ' + fmtNum(scale[0]) + ' \u2026 red ' + fmtNum(scale[1]);
}
function frame(n, x, w, d, total, bg) {
  const f = el('div', 'fr', n.name);
  f.style.left = x + 'px';
  f.style.width = w + 'px';
  f.style.top = d * FRAME_H + 'px';
  f.style.background = bg;
  f.dataset.name = n.name;
  f.dataset.samples = n.n;
  f.dataset.percent = pct(n.v, total).toFixed(2);
  if (S.colour !== 'name') {
    const v = colourValue(n);
    f.dataset.value = v === null ? '' : String(v);
  }
  f._node = n;
  return f;
}
// Period under frames that match, each counted once (not under a match).
function searchShare(n) {
  if (S.search.test(n.name)) return n.v;
  let s = 0;
  for (const c of n.kids) s += searchShare(c);
  return s;
}

function tip(ev_) {
  const t = $('tip');
  const f = ev_.target.closest('.fr');
  if (!f) { t.hidden = true; return; }
  const n = f._node;
  let s = n.name + (n.dso ? ' (' + n.dso + ')' : '') + ': ' + n.n + ' samples, ' +
    fmtPct(pct(n.v, S.root.v)) + ' of ' + D.events[S.ev].name;
  if (DIFF) s += ' (A: ' + fmtPct(pct(n.base, D.base_total)) + ')';
  if (n.reads) s += '; ' + D.read.map((e, i) => D.events[e].name + ' ' + n.reads[i]).join(', ');
  if (S.colour !== 'name' && S.colour !== 'diff') s += '; ' + fmtNum(colourValue(n));
  t.textContent = s;
  t.hidden = false;
  t.style.left = Math.min(ev_.clientX + 12, window.innerWidth - t.offsetWidth - 4) + 'px';
  t.style.top = ev_.clientY + 14 + 'px';
}
