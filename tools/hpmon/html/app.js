// hpmon report --html: the page's code (tools/hpmon/html/app.js).
// Reads the profile's summary from the JSON block #data (written by
// tools/hpmon/picture-html.c: docs/hpmon-report.md says its fields), and
// draws the header, an icicle flame graph and a table of functions, for
// the event chosen in the selector. No library, no network.
'use strict';
(function () {
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
  const FRAME_H = 17;
  const MIN_PX = 0.5; // narrower frames are not drawn (their share stays in the parent)

  let ev = 0;       // the event that weights the graph and the table
  let root = null;  // the call tree of ev
  let zoom = null;  // the node shown at full width
  let search = null;

  function header() {
    const h = $('head');
    h.appendChild(el('h1', '', 'hpmon report'));
    const dl = el('dl');
    const row = (k, v, cls) => {
      dl.appendChild(el('dt', '', k));
      dl.appendChild(el('dd', cls || '', v));
    };
    row('command', D.command);
    row('machine', D.host + ' (' + D.arch + ', ' + (D.cpu || 'CPU model unknown') +
        '), kernel ' + D.kernel);
    for (const e of D.events)
      row('event', e.trigger ? e.name + ': ' + e.samples + ' samples, total ' + e.period
                             : e.name + ': read at the samples of its group');
    row('lost samples', String(D.lost_samples) + ' (' + D.lost + ' records lost)',
        D.lost || D.lost_samples ? 'warn' : '');
    row('throttled', String(D.throttled), D.throttled ? 'warn' : '');
    if (!D.chains) row('call chains', 'none: record with -g for callers');
    if (!D.complete) row('warning', 'the profile is incomplete', 'warn');
    if (D.capped) row('memory cap', D.capped + ' details left out (stacks among them): totals stay exact', 'warn');
    h.appendChild(dl);
  }

  // The call tree of event e, from its nodes in depth-first order
  // ([depth, what, samples, period] each; what: a symbol, or -1 - the
  // task's name): root, then the task's name, then the frames from the
  // outermost. v: period, n: samples.
  function build(e) {
    const t = D.trees[e];
    const path = [];
    let r = null;
    for (let i = 0; i < t.length; i += 4) {
      const d = t[i], w = t[i + 1];
      const n = { v: t[i + 3], n: t[i + 2], kids: new Map(), parent: d ? path[d - 1] : null };
      if (!d) { n.name = 'all'; n.dso = ''; r = n; }
      else if (w < 0) { n.name = D.comms[-1 - w]; n.dso = ''; }
      else { n.name = D.syms[w]; n.dso = D.dsos[D.symdso[w]]; }
      if (n.parent) n.parent.kids.set(i, n);
      path[d] = n;
    }
    return r || { name: 'all', dso: '', v: 0, n: 0, kids: new Map(), parent: null };
  }
  function colour(name) {
    let h = 0;
    for (let i = 0; i < name.length; i++) h = (h * 31 + name.charCodeAt(i)) >>> 0;
    return 'hsl(' + (10 + (h % 40)) + ',' + (70 + (h >> 8) % 20) + '%,' + (60 + (h >> 16) % 15) + '%)';
  }

  function draw() {
    const box = $('flame');
    box.textContent = '';
    const W = box.clientWidth;
    const total = root.v;
    const z = zoom || root;
    let depth0 = 0;
    for (let p = z.parent; p; p = p.parent) depth0++;
    let maxd = 0, matched = 0;
    const frag = document.createDocumentFragment();
    // the zoomed node's ancestors, full width above it
    const chain = [];
    for (let p = z.parent; p; p = p.parent) chain.unshift(p);
    chain.forEach((p, d) => frag.appendChild(frame(p, 0, W, d, total, true)));
    const todo = [[z, 0, W, depth0]];
    while (todo.length) {
      const [n, x, w, d] = todo.pop();
      const f = frame(n, x, w, d, total, false);
      if (search && search.test(n.name)) { f.classList.add('hl'); }
      frag.appendChild(f);
      if (d > maxd) maxd = d;
      let cx = x;
      const kids = Array.from(n.kids.values()).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      for (const c of kids) {
        const cw = n.v > 0 ? (w * c.v) / n.v : 0;
        if (cw >= MIN_PX) todo.push([c, cx, cw, d + 1]);
        cx += cw;
      }
    }
    if (search) matched = searchShare(z);
    box.style.height = (maxd + 1) * FRAME_H + 'px';
    box.appendChild(frag);
    $('match').textContent = search ? 'matched: ' + fmtPct(pct(matched, total)) : '';
    $('crumbs').textContent = chain.concat([z]).map((p) => p.name).join(' \u203a ');
  }
  function frame(n, x, w, d, total, above) {
    const f = el('div', 'fr', n.name);
    f.style.left = x + 'px';
    f.style.width = w + 'px';
    f.style.top = d * FRAME_H + 'px';
    f.style.background = above ? '#ddd' : colour(n.name);
    f.dataset.name = n.name;
    f.dataset.samples = n.n;
    f.dataset.percent = pct(n.v, total).toFixed(2);
    f._node = n;
    return f;
  }
  // Period under frames that match, each counted once (not under a match).
  function searchShare(n) {
    if (search.test(n.name)) return n.v;
    let s = 0;
    for (const c of n.kids.values()) s += searchShare(c);
    return s;
  }

  function tip(ev_) {
    const t = $('tip');
    const f = ev_.target.closest('.fr');
    if (!f) { t.hidden = true; return; }
    const n = f._node;
    const p = pct(n.v, root.v);
    t.textContent = n.name + (n.dso ? ' (' + n.dso + ')' : '') + ': ' + n.n + ' samples, ' +
      fmtPct(p) + ' of ' + D.events[ev].name;
    t.hidden = false;
    t.style.left = Math.min(ev_.clientX + 12, window.innerWidth - t.offsetWidth - 4) + 'px';
    t.style.top = ev_.clientY + 14 + 'px';
  }

  // The table: self (the frame is the leaf) and total (the frame is
  // anywhere in the stack, once per stack: recursion counts once).
  let rows = [], sortK = 'self', sortDir = -1;
  function table() {
    const f = D.funcs[ev];
    const total = D.events[ev].period;
    rows = [];
    for (let i = 0; i < f.length; i += 5) {
      rows.push({ name: D.syms[f[i]], dso: D.dsos[D.symdso[f[i]]], self: pct(f[i + 2], total),
                  selfn: f[i + 1], total: pct(f[i + 4], total), totaln: f[i + 3] });
    }
    fillTable();
  }
  function fillTable() {
    const q = $('filter').value.toLowerCase();
    const k = sortK, dir = sortDir;
    const vis = rows.filter((r) => !q || r.name.toLowerCase().includes(q) || r.dso.toLowerCase().includes(q));
    vis.sort((a, b) => {
      const x = a[k], y = b[k];
      if (x < y) return -dir;
      if (x > y) return dir;
      return a.name < b.name ? -1 : 1;
    });
    const body = document.querySelector('#funcs tbody');
    body.textContent = '';
    const frag = document.createDocumentFragment();
    for (const r of vis.slice(0, 2000)) {
      const tr = el('tr');
      tr.appendChild(el('td', 'name', r.name));
      tr.appendChild(el('td', '', r.dso));
      tr.appendChild(el('td', 'num', fmtPct(r.self)));
      tr.appendChild(el('td', 'num', String(r.selfn)));
      tr.appendChild(el('td', 'num', fmtPct(r.total)));
      tr.appendChild(el('td', 'num', String(r.totaln)));
      tr.dataset.name = r.name;
      frag.appendChild(tr);
    }
    body.appendChild(frag);
    for (const th of document.querySelectorAll('#funcs th')) {
      th.classList.toggle('asc', th.dataset.k === k && dir > 0);
      th.classList.toggle('desc', th.dataset.k === k && dir < 0);
    }
  }

  function choose(e) {
    ev = e;
    root = build(ev);
    zoom = null;
    draw();
    table();
  }

  header();
  const sel = $('event');
  D.events.forEach((e, i) => {
    if (!e.trigger) return;
    const o = el('option', '', e.name);
    o.value = i;
    sel.appendChild(o);
  });
  sel.disabled = sel.options.length < 2;
  sel.addEventListener('change', () => choose(Number(sel.value)));
  $('flame').addEventListener('click', (e) => {
    const f = e.target.closest('.fr');
    if (!f) return;
    zoom = f._node === root ? null : f._node;
    draw();
  });
  $('flame').addEventListener('mousemove', tip);
  $('flame').addEventListener('mouseleave', () => { $('tip').hidden = true; });
  $('reset').addEventListener('click', () => { zoom = null; draw(); });
  $('search').addEventListener('input', () => {
    const q = $('search').value;
    try { search = q ? new RegExp(q, 'i') : null; } catch (err) { search = null; }
    draw();
  });
  $('filter').addEventListener('input', fillTable);
  document.querySelector('#funcs thead').addEventListener('click', (e) => {
    const th = e.target.closest('th');
    if (!th) return;
    if (sortK === th.dataset.k) sortDir = -sortDir;
    else { sortK = th.dataset.k; sortDir = th.dataset.k === 'name' || th.dataset.k === 'dso' ? 1 : -1; }
    fillTable();
  });
  window.addEventListener('resize', draw);
  choose(D.main);
  // the time to interactive, for tests and bench/html.sh: ms since navigation
  window.hpmonReady = performance.now();
  document.body.dataset.ready = '1';
})();
