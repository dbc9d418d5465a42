// SPDX-License-Identifier: MIT
// The views' tabs, the tasks' selector, and the page's state in the URL's
// fragment, so that a link opens the same view:
//   #view=calltree | inverted | sandwich&fn=NAME | stackchart | flame
//   &thread=TID[,TID...]   the tasks chosen (by tid; a process's is its pid)
//   &range=T0-T1           the range, in seconds from the start
//   &q=REGEX               the search
// Each value is percent-encoded where it must be (encodeURIComponent's
// way, ',', ':', '/' left as they are); '+' is a plus.
const VIEWS = ['flame', 'calltree', 'inverted', 'sandwich', 'stackchart'];

const enc = (s) => encodeURIComponent(s).replace(/%(2C|3A|2F|40|24)/gi, (m) => decodeURIComponent(m));
const num = (x) => String(+x.toFixed(6));
function fragment() {
  const f = ['view=' + S.view];
  if (S.view === 'sandwich' && S.fn !== null) f.push('fn=' + enc(D.syms[S.fn]));
  if (S.threads) f.push('thread=' + Array.from(new Set(Array.from(S.threads, (k) => TASKS[k].tid))).join(','));
  if (S.sel && AX) f.push('range=' + num((S.sel[0] - AX.t0) / 1e9) + '-' + num((S.sel[1] - AX.t0) / 1e9));
  if (S.search) f.push('q=' + enc(S.search.source));
  return f.join('&');
}
function saveState() {
  const f = fragment();
  if (decodeURIComponent(location.hash.slice(1)) !== decodeURIComponent(f))
    history.replaceState(null, '', '#' + f);
}
// The fragment @h as the page's state; what it names that the page does
// not have is said in #state-note.
function loadState(h) {
  const p = new Map();
  for (const kv of h.replace(/^#/, '').split('&')) {
    if (!kv) continue;
    const i = kv.indexOf('=');
    let v = i < 0 ? '' : kv.slice(i + 1);
    try { v = decodeURIComponent(v); } catch (e) { /* as written */ }
    p.set(i < 0 ? kv : kv.slice(0, i), v);
  }
  const bad = [];
  const v = p.get('view');
  S.view = VIEWS.includes(v) ? v : 'flame';
  if (v !== undefined && !VIEWS.includes(v)) bad.push('no view "' + v + '"');
  S.fn = null;
  if (p.has('fn')) {
    const k = D.syms.indexOf(p.get('fn'));
    if (k >= 0) S.fn = k; else bad.push('no function "' + p.get('fn') + '"');
  }
  S.threads = null;
  if (p.has('thread')) {
    const tids = p.get('thread').split(',').map(Number);
    const ks = TASKS.filter((t) => tids.includes(t.tid)).map((t) => t.k);
    if (ks.length) S.threads = new Set(ks);
    else bad.push('no task ' + p.get('thread'));
  }
  S.sel = null;
  const m = /^([0-9.e+-]+)-([0-9.e+]+)$/.exec(p.get('range') || '');
  if (m && AX) S.sel = [AX.t0 + Number(m[1]) * 1e9, AX.t0 + Number(m[2]) * 1e9];
  else if (p.has('range')) bad.push('no range "' + p.get('range') + '"');
  S.search = null;
  $('search').value = p.get('q') || '';
  if (p.get('q')) {
    try { S.search = new RegExp(p.get('q'), 'i'); } catch (e) { bad.push('no regexp "' + p.get('q') + '"'); }
  }
  $('state-note').textContent = bad.length ? 'The link names ' + bad.join(', ') + '.' : '';
  S.zoom = null;
  threadBoxes();
}

// The tasks' selector: a box per task of the trees, with its share.
function makeThreads() {
  const list = $('thread-list');
  list.textContent = '';
  const root = S.nodes[0];
  const all = root ? root.n0 : 0;
  const tasks = root ? root.kids.slice().sort((a, b) => b.n0 - a.n0) : [];
  for (const t of tasks) {
    const lab = el('label', 'task');
    const b = el('input');
    b.type = 'checkbox';
    b.value = t.th;
    b.dataset.tid = TASKS[t.th].tid;
    b.dataset.name = t.name;
    lab.appendChild(b);
    lab.appendChild(document.createTextNode(t.name + ' (' + fmtPct(pct(t.n0, all)) + ')'));
    list.appendChild(lab);
  }
  list.addEventListener('change', () => {
    const ks = Array.from(list.querySelectorAll('input:checked'), (b) => Number(b.value));
    S.threads = ks.length && ks.length < tasks.length ? new Set(ks) : null;
    threadBoxes();
    S.zoom = null;
    redraw();
  });
  $('thread-all').addEventListener('click', () => { S.threads = null; threadBoxes(); S.zoom = null; redraw(); });
}
function threadBoxes() {
  for (const b of document.querySelectorAll('#thread-list input'))
    b.checked = !!S.threads && S.threads.has(Number(b.value));
  $('threads-sum').textContent = !S.threads ? 'tasks: all' : 'tasks: ' +
    Array.from(S.threads, (k) => TASKS[k].name).join(', ');
}

// The view shown: its tab marked, its box alone visible, then drawn.
function showView() {
  for (const b of document.querySelectorAll('#views button'))
    b.classList.toggle('on', b.dataset.view === S.view);
  const flame = S.view === 'flame';
  for (const id of ['flame', 'crumbs', 'legend', 'reset', 'colour-lab'])
    $(id).hidden = !flame;
  $('tree').hidden = !['calltree', 'inverted', 'sandwich'].includes(S.view);
  $('stack').hidden = S.view !== 'stackchart';
  $('sec-title').textContent = { flame: 'Flame graph', calltree: 'Call tree', inverted: 'Inverted tree',
    sandwich: 'Sandwich', stackchart: 'Stack chart' }[S.view];
  if (flame) draw();
  else if (S.view === 'stackchart') stackChart();
  else trees();
}
function sandwich(sym) {
  S.view = 'sandwich';
  S.fn = sym;
  showView();
  saveState();
}
