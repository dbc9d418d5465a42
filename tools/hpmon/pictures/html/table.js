// SPDX-License-Identifier: MIT
// The table of functions: self (the frame is the leaf) and total (the
// frame is anywhere in the stack, once per stack: recursion counts once),
// with the metrics of each function (-M); in diff's page, diff's rows.
// Sortable by any column, filterable; a click on a function shows its
// annotate data (annotate.js).
let rows = [], cols = [], sortK = 'self', sortDir = -1;
// The rows drawn at most (the first in the order chosen): a table of
// thousands of long names costs the browser seconds to lay out.
const TABLE_ROWS = 400;

function columns() {
  if (DIFF) {
    sortK = 'order'; // diff's own: the largest change first
    sortDir = 1;
    return [['name', 'function'], ['dso', 'object'], ['a', 'samples A', 1], ['b', 'samples B', 1],
            ['delta', 'delta', 1], ['ratio', 'ratio', 1], ['pa', '% A', 1], ['pb', '% B', 1],
            ['points', 'points', 1]];
  }
  const c = [['name', 'function'], ['dso', 'object'], ['self', 'self %', 1], ['selfn', 'self samples', 1],
             ['total', 'total %', 1], ['totaln', 'total samples', 1]];
  D.metrics.forEach((m, i) => c.push(['m' + i, m.name + (m.unit ? ' (' + m.unit + ')' : ''), 1]));
  return c;
}
function tableHead() {
  cols = columns();
  const tr = document.querySelector('#funcs thead tr');
  tr.textContent = '';
  for (const [k, label, num] of cols) {
    const th = el('th', num ? 'num' : '', label);
    th.dataset.k = k;
    tr.appendChild(th);
  }
}

// Each function's self and total in the range, from the tree (a frame
// left out of the page's tree counts in its caller's self).
function rangeFuncs() {
  const acc = new Map();
  const on = new Map();
  const walk = (n) => {
    if (n.sym >= 0) {
      let a = acc.get(n.sym);
      if (!a) acc.set(n.sym, (a = { sn: 0, sp: 0, tn: 0, tp: 0 }));
      let kv = 0, kn = 0;
      for (const c of n.kids) { kv += c.v; kn += c.n; }
      a.sp += n.v - kv; a.sn += n.n - kn;
      const o = on.get(n.sym) || 0;
      if (!o) { a.tn += n.n; a.tp += n.v; }
      on.set(n.sym, o + 1);
    }
    for (const c of n.kids) walk(c);
    if (n.sym >= 0) on.set(n.sym, on.get(n.sym) - 1);
  };
  walk(S.root);
  return acc;
}

function table() {
  rows = [];
  if (DIFF) {
    D.diff.rows.forEach(([name, dso, a, b, pa, pb], order) => {
      rows.push({ name, dso, a, b, delta: b - a, ratio: a ? b / a : null, pa, pb, points: pb - pa, order });
    });
    fillTable();
    return;
  }
  const metrics = new Map();
  const nm = D.metrics.length;
  for (let i = 0; nm && i < D.fmetrics.length; i += nm + 1)
    metrics.set(D.fmetrics[i], D.fmetrics.slice(i + 1, i + 1 + nm));
  const part = S.range || S.threads; // else the exact totals of the whole profile
  const total = part ? S.root.v : D.events[S.ev].period;
  const add = (s, sn, sp, tn, tp) => {
    const r = { name: D.syms[s], dso: D.dsos[D.symdso[s]], sym: s, self: pct(sp, total), selfn: sn,
                total: pct(tp, total), totaln: tn };
    const m = metrics.get(s);
    for (let i = 0; i < nm; i++) r['m' + i] = m ? m[i] : null;
    rows.push(r);
  };
  if (part) {
    for (const [s, a] of rangeFuncs()) if (a.tn) add(s, a.sn, a.sp, a.tn, a.tp);
  } else {
    const f = D.funcs[S.ev];
    for (let i = 0; i < f.length; i += 5) add(f[i], f[i + 1], f[i + 2], f[i + 3], f[i + 4]);
  }
  fillTable();
}

function cell(r, k) {
  const v = r[k];
  if (k === 'name' || k === 'dso') return v;
  if (DIFF) {
    if (k === 'ratio') return v === null ? (r.b ? 'new' : '-') : v.toFixed(3);
    if (k === 'delta') return (v > 0 ? '+' : '') + v;
    if (k === 'pa' || k === 'pb') return fmtPct(v);
    if (k === 'points') return (v >= 0 ? '+' : '') + v.toFixed(2);
    return String(v);
  }
  if (k === 'self' || k === 'total') return fmtPct(v);
  if (k[0] === 'm') return fmtNum(v);
  return String(v);
}

function fillTable() {
  const q = $('filter').value.toLowerCase();
  const k = sortK, dir = sortDir;
  const vis = rows.filter((r) => !q || r.name.toLowerCase().includes(q) || r.dso.toLowerCase().includes(q));
  const key = (r) => (r[k] === null || r[k] === undefined ? -Infinity : r[k]);
  vis.sort((a, b) => {
    const x = key(a), y = key(b);
    if (x < y) return -dir;
    if (x > y) return dir;
    return a.name < b.name ? -1 : 1;
  });
  const body = document.querySelector('#funcs tbody');
  body.textContent = '';
  const frag = document.createDocumentFragment();
  for (const r of vis.slice(0, TABLE_ROWS)) {
    const tr = el('tr');
    for (const [c, , num] of cols) {
      const td = el('td', c === 'name' ? 'name' : num ? 'num' : '', cell(r, c));
      if (DIFF && c === 'points') td.classList.add(r.points > 0 ? 'up' : r.points < 0 ? 'down' : 'same');
      tr.appendChild(td);
    }
    tr.dataset.name = r.name;
    if (r.sym !== undefined) {
      tr.dataset.sym = r.sym;
      const sw = el('span', 'sw', '\u21c5');
      sw.title = 'the sandwich of ' + r.name;
      tr.cells[0].appendChild(sw);
    }
    frag.appendChild(tr);
  }
  if (vis.length > TABLE_ROWS) {
    const tr = el('tr', 'more');
    const td = el('td', '', (vis.length - TABLE_ROWS) + ' more functions: sort or filter to see them');
    td.colSpan = cols.length;
    tr.appendChild(td);
    frag.appendChild(tr);
  }
  body.appendChild(frag);
  for (const th of document.querySelectorAll('#funcs th')) {
    th.classList.toggle('asc', th.dataset.k === k && dir > 0);
    th.classList.toggle('desc', th.dataset.k === k && dir < 0);
  }
}
