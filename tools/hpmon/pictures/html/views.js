// SPDX-License-Identifier: MIT
// The trees over the flame graph's nodes, as the range and the tasks
// chosen weight them (timeline.js, applyRange): the call tree
// (top-down, the tasks' stacks merged from the outermost function), the
// inverted tree (each function by its self, expanding to its callers),
// and a function's sandwich (its callers above, its callees below, each
// merged over the graph, recursion counted once: from its outermost
// frames). A row of a tree is a group of the flame graph's nodes with
// one path of functions; it expands lazily.
const TREE_MAX_ROWS = 5000; // rows drawn at most; the rest are counted

// A group: items [node, period, samples] of one name; up: it expands to
// the nodes' callers (else to their callees).
function group(sym, items, up) {
  const g = { sym, name: D.syms[sym], items, up, kids: null, open: false, v: 0, n: 0, sv: 0, sn: 0 };
  for (const [t, v, n] of items) {
    g.v += v; g.n += n;
    if (!up) { // self: the node's own, a frame left out of the page's included
      let kv = 0, kn = 0;
      for (const c of t.kids) { kv += c.v; kn += c.n; }
      g.sv += v - kv; g.sn += n - kn;
    }
  }
  return g;
}
// Items grouped by their node's symbol, as groups, heaviest first.
function groups(items, up) {
  const m = new Map();
  for (const it of items) {
    const s = it[0].sym;
    if (!m.has(s)) m.set(s, []);
    m.get(s).push(it);
  }
  const out = [];
  for (const [s, its] of m) out.push(group(s, its, up));
  out.sort((a, b) => b.v - a.v || b.n - a.n || (a.name < b.name ? -1 : 1));
  return out;
}
function expand(g) {
  if (g.kids) return g.kids;
  const next = [];
  if (g.up) {
    for (const [t, v, n] of g.items)
      if (t.parent && t.parent.sym >= 0) next.push([t.parent, v, n]);
  } else {
    for (const [t] of g.items)
      for (const c of t.kids) if (c.v > 0 || c.n > 0) next.push([c, c.v, c.n]);
  }
  g.kids = groups(next, g.up);
  return g.kids;
}
// The heaviest path from the top, opened, as Firefox Profiler opens its trees.
function openHeaviest(tops) {
  let list = tops;
  for (let d = 0; d < 256 && list.length; d++) {
    const g = list[0];
    g.open = true;
    list = expand(g);
  }
}

// The roots of each tree.
function callTreeRoots() {
  const items = [];
  for (const task of S.root.kids)
    for (const c of task.kids) if (c.v > 0 || c.n > 0) items.push([c, c.v, c.n]);
  return groups(items, false);
}
function invertedRoots() {
  const items = [];
  for (const t of S.nodes) {
    if (t.sym < 0) continue;
    let kv = 0, kn = 0;
    for (const c of t.kids) { kv += c.v; kn += c.n; }
    if (t.n - kn > 0 || t.v - kv > 0) items.push([t, t.v - kv, t.n - kn]);
  }
  const r = groups(items, true);
  for (const g of r) { g.sv = g.v; g.sn = g.n; } // a root's self is its total
  return r;
}
// The outermost frames of function @sym (none of its callers is @sym).
function outermost(sym) {
  const out = [];
  for (const t of S.nodes) {
    t.inF = !!t.parent && (t.parent.inF || t.parent.sym === sym);
    if (t.sym === sym && !t.inF && (t.v > 0 || t.n > 0)) out.push([t, t.v, t.n]);
  }
  return out;
}

// The rows of the open groups, depth first.
function treeRows(tops, tbody, total, opts) {
  tbody.textContent = '';
  const frag = document.createDocumentFragment();
  let count = 0, left = 0;
  const todo = tops.map((g) => [g, 0]).reverse();
  while (todo.length) {
    const [g, d] = todo.pop();
    if (count >= TREE_MAX_ROWS) { left++; continue; }
    count++;
    const tr = el('tr');
    const leaf = g.kids ? !g.kids.length : !expand(g).length;
    tr.appendChild(el('td', 'num', fmtPct(pct(g.v, total))));
    tr.appendChild(el('td', 'num', opts.self(g, d) ? fmtPct(pct(g.sv, total)) : ''));
    tr.appendChild(el('td', 'num', String(g.n)));
    tr.appendChild(el('td', 'num', opts.self(g, d) ? String(g.sn) : ''));
    const td = el('td', 'name');
    td.style.paddingLeft = 4 + 14 * d + 'px';
    const tog = el('span', 'tog', leaf ? '\u00a0' : g.open ? '\u25be' : '\u25b8');
    td.appendChild(tog);
    td.appendChild(el('span', 'fn', g.name));
    const sw = el('span', 'sw', '\u21c5');
    sw.title = 'the sandwich of ' + g.name;
    td.appendChild(sw);
    tr.appendChild(td);
    if (S.search && S.search.test(g.name)) tr.classList.add('hl');
    tr.dataset.name = g.name;
    tr.dataset.sym = g.sym;
    tr.dataset.depth = d;
    tr.dataset.total = pct(g.v, total).toFixed(2);
    tr.dataset.n = g.n;
    if (opts.self(g, d)) tr.dataset.selfn = g.sn;
    tr.dataset.open = g.open ? '1' : '0';
    tr._g = g;
    frag.appendChild(tr);
    if (g.open) {
      const kids = expand(g);
      for (let i = kids.length - 1; i >= 0; i--) todo.push([kids[i], d + 1]);
    }
  }
  tbody.appendChild(frag);
  if (left) {
    const tr = el('tr', 'more');
    const td = el('td', '', left + ' more rows not shown: close some');
    td.colSpan = 5;
    tr.appendChild(td);
    tbody.appendChild(tr);
  }
}

// A table of a tree, with its heading.
function treeTable(id, caption) {
  const t = el('table', 'tree');
  t.id = id;
  if (caption) t.appendChild(el('caption', '', caption));
  const hr = el('tr');
  for (const [c, num] of [['total', 1], ['self', 1], ['total samples', 1], ['self samples', 1], ['function', 0]])
    hr.appendChild(el('th', num ? 'num' : '', c));
  const th = el('thead');
  th.appendChild(hr);
  t.appendChild(th);
  t.appendChild(el('tbody'));
  return t;
}

// The view's trees, kept while the data they weight stays (redrawn
// when it changes: trees()).
let TV = null;
function trees() {
  const box = $('tree');
  box.textContent = '';
  const total = S.root.v;
  const selfAll = () => true;
  const selfTop = (g, d) => d === 0;
  if (S.view === 'calltree') {
    const tops = callTreeRoots();
    openHeaviest(tops);
    TV = [{ id: 'calltree', tops, self: selfAll }];
  } else if (S.view === 'inverted') {
    const tops = invertedRoots();
    openHeaviest(tops);
    TV = [{ id: 'inverted', tops, self: selfTop }];
  } else { // sandwich
    if (S.fn === null) {
      box.appendChild(el('p', 'note', 'Choose a function: the \u21c5 of a row of a tree, or of the table.'));
      TV = [];
      return;
    }
    const items = outermost(S.fn);
    const callers = items.length ? [group(S.fn, items, true)] : [];
    const callees = items.length ? [group(S.fn, items, false)] : [];
    openHeaviest(callers);
    openHeaviest(callees);
    for (const g of callers) { g.sv = callees[0].sv; g.sn = callees[0].sn; }
    box.appendChild(el('h3', '', 'Sandwich of ' + D.syms[S.fn] +
      (items.length ? ': ' + fmtPct(pct(callers[0].v, total)) + ' of the samples in all' : ': no samples here')));
    TV = [{ id: 'callers', tops: callers, self: selfTop, caption: 'callers (who calls it, from the function up)' },
          { id: 'callees', tops: callees, self: selfAll, caption: 'callees (what it calls)' }];
  }
  for (const v of TV) {
    const t = treeTable(v.id, v.caption);
    box.appendChild(t);
    v.body = t.tBodies[0];
    treeRows(v.tops, v.body, total, v);
  }
}
// A click on a row's arrow opens or closes it; on its sandwich mark,
// the sandwich of its function.
function treeClick(e) {
  const tr = e.target.closest('tr');
  if (!tr || !tr._g) return;
  if (e.target.classList.contains('sw')) { sandwich(tr._g.sym); return; }
  const v = TV.find((x) => x.id === tr.closest('table').id);
  tr._g.open = !tr._g.open;
  treeRows(v.tops, v.body, S.root.v, v);
}
