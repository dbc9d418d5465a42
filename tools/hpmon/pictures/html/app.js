// SPDX-License-Identifier: MIT
// The header, the controls and their wiring; then the first drawing.
function header() {
  const h = $('head');
  h.appendChild(el('h1', '', DIFF ? 'hpmon diff' : 'hpmon report'));
  const dl = el('dl');
  const row = (k, v, cls) => {
    dl.appendChild(el('dt', '', k));
    dl.appendChild(el('dd', cls || '', v));
  };
  if (CHARTS) {
    const T = D.timeline;
    row('file', D.file + ' (hpmon stat -I --json)');
    row('series', Array.from(seriesByEvent().keys()).join(', '));
    row('intervals', T.n + ' bins of ' + fmtTime(T.width));
    h.appendChild(dl);
    return;
  }
  if (DIFF) {
    row('A (before)', D.diff.a + ': ' + D.diff.a_command + ', ' + D.diff.a_samples + ' samples of ' + D.diff.a_event);
    row('B (after)', D.diff.b + ': ' + D.command + ', ' + D.events[D.main].samples + ' samples of ' +
        D.events[D.main].name);
    row('graph', 'B\u2019s stacks; each frame red where its share grew from A, blue where it shrank');
  } else {
    row('command', D.command);
  }
  row('machine', D.host + ' (' + D.arch + ', ' + (D.cpu || 'CPU model unknown') + '), kernel ' + D.kernel);
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

function redraw() {
  applyRange();
  showView();
  table();
  strip();
  saveState();
}

function choose(e) {
  S.ev = e;
  S.root = build(e);
  S.zoom = null;
  redraw();
}

header();
if (CHARTS) { // a stat -I file: its charts alone
  $('flame-sec').hidden = true;
  $('table-sec').hidden = true;
  $('tasks-bar').hidden = true; // no samples, no tasks to choose
  makeLanes();
  stripEvents(strip);
  $('clear').addEventListener('click', () => { S.sel = null; strip(); });
  window.addEventListener('resize', strip);
  strip();
} else {
tableHead();
const sel = $('event');
D.events.forEach((e, i) => {
  if (!e.trigger || !(D.trees[i] || []).length) return;
  const o = el('option', '', e.name);
  o.value = i;
  sel.appendChild(o);
});
sel.value = String(S.ev);
sel.disabled = sel.options.length < 2 || DIFF;
sel.addEventListener('change', () => choose(Number(sel.value)));
const csel = $('colour');
for (const [k, label] of colourChoices()) {
  const o = el('option', '', label);
  o.value = k;
  csel.appendChild(o);
}
csel.value = S.colour;
csel.disabled = csel.options.length < 2;
csel.addEventListener('change', () => { S.colour = csel.value; draw(); });
$('views').addEventListener('click', (e) => {
  const b = e.target.closest('button');
  if (!b) return;
  S.view = b.dataset.view;
  showView();
  saveState();
});
$('tree').addEventListener('click', treeClick);
$('stack-canvas').addEventListener('mousemove', stackTip);
$('stack-canvas').addEventListener('mouseleave', () => { $('tip').hidden = true; });
$('stack-canvas').addEventListener('click', (e) => { const bx = stackBox(e); if (bx && bx[3].sym >= 0) sandwich(bx[3].sym); });
$('flame').addEventListener('click', (e) => {
  const f = e.target.closest('.fr');
  if (!f) return;
  S.zoom = f._node === S.root ? null : f._node;
  draw();
});
$('flame').addEventListener('mousemove', tip);
$('flame').addEventListener('mouseleave', () => { $('tip').hidden = true; });
$('reset').addEventListener('click', () => { S.zoom = null; draw(); });
$('search').addEventListener('input', () => {
  const q = $('search').value;
  try { S.search = q ? new RegExp(q, 'i') : null; } catch (err) { S.search = null; }
  showView();
  saveState();
});
$('filter').addEventListener('input', fillTable);
document.querySelector('#funcs thead').addEventListener('click', (e) => {
  const th = e.target.closest('th');
  if (!th) return;
  if (sortK === th.dataset.k) sortDir = -sortDir;
  else { sortK = th.dataset.k; sortDir = th.dataset.k === 'name' || th.dataset.k === 'dso' ? 1 : -1; }
  fillTable();
});
document.querySelector('#funcs tbody').addEventListener('click', (e) => {
  const tr = e.target.closest('tr');
  if (tr && tr.dataset.sym !== undefined && e.target.classList.contains('sw')) {
    sandwich(Number(tr.dataset.sym));
    return;
  }
  if (tr && tr.dataset.sym !== undefined) showAnno(Number(tr.dataset.sym));
});
if (DIFF || !AX) {
  $('time-sec').hidden = true;
} else {
  makeLanes();
  stripEvents(redraw);
  $('clear').addEventListener('click', () => { S.sel = null; redraw(); });
}
window.addEventListener('resize', () => { showView(); if (!DIFF) strip(); });
if (DIFF) { // one task per name, and no times: no tasks' selector, no stack chart
  $('threads').hidden = true;
  document.querySelector('#views button[data-view=stackchart]').hidden = true;
}
S.root = build(S.ev);
makeThreads();
loadState(location.hash);
window.addEventListener('hashchange', () => { loadState(location.hash); redraw(); });
choose(S.ev);
}
// the time to interactive, for tests and bench/html.sh: ms since navigation
window.hpmonReady = performance.now();
document.body.dataset.ready = '1';
