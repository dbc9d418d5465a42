// SPDX-License-Identifier: MIT
// A function's annotate data (hpmon annotate's, for the functions with
// the most self samples of the main event): its source lines with their
// samples, the hottest line marked, and its hottest instructions. Shown
// when its row of the table is clicked.
function showAnno(sym) {
  const box = $('anno');
  box.textContent = '';
  box.hidden = false;
  const a = (D.annotate || []).find((x) => x.sym === sym);
  const name = D.syms[sym];
  const h = el('div', 'bar');
  h.appendChild(el('h2', '', 'Annotate: ' + name));
  const close = el('button', '', 'close');
  close.type = 'button';
  close.id = 'anno-close';
  close.addEventListener('click', () => { box.hidden = true; });
  h.appendChild(close);
  box.appendChild(h);
  if (!a) {
    box.appendChild(el('p', 'note', 'The page annotates the ' + D.annotate_top + ' functions with the most ' +
      'self samples of ' + D.events[D.main].name + ' (whose code could be read); ' +
      'hpmon annotate ' + name + ' shows any.'));
    return;
  }
  box.appendChild(el('p', 'note', a.samples + ' samples of ' + D.events[D.main].name + ' in its instructions'));
  if (a.lines.length) {
    let hot = null;
    for (const l of a.lines) if (!hot || l[2] > hot[2]) hot = l;
    const t = el('table', 'src');
    t.id = 'anno-lines';
    const hr = el('tr');
    for (const c of ['line', 'samples', '%', 'source']) hr.appendChild(el('th', c === 'source' ? '' : 'num', c));
    t.appendChild(hr);
    let file = -1;
    for (const l of a.lines) {
      if (l[0] !== file) {
        file = l[0];
        const fr = el('tr', 'file');
        const td = el('td', '', a.files[file] || '?');
        td.colSpan = 4;
        fr.appendChild(td);
        t.appendChild(fr);
      }
      const tr = el('tr', l === hot && l[2] ? 'hot' : '');
      tr.appendChild(el('td', 'num', String(l[1])));
      tr.appendChild(el('td', 'num', l[2] ? String(l[2]) : ''));
      tr.appendChild(el('td', 'num', l[2] ? fmtPct(pct(l[2], a.samples)) : ''));
      tr.appendChild(el('td', 'code', l[3]));
      tr.dataset.line = l[1];
      t.appendChild(tr);
    }
    box.appendChild(t);
  } else {
    box.appendChild(el('p', 'note', 'No source lines: the object has no line information (DWARF).'));
  }
  if (a.hot.length) {
    box.appendChild(el('h3', '', 'Hottest instructions'));
    const t = el('table', 'src');
    t.id = 'anno-hot';
    for (const [addr, n, text, line] of a.hot) {
      const tr = el('tr');
      tr.appendChild(el('td', 'num', addr));
      tr.appendChild(el('td', 'num', String(n)));
      tr.appendChild(el('td', 'num', fmtPct(pct(n, a.samples))));
      tr.appendChild(el('td', 'code', text));
      tr.appendChild(el('td', 'num', line ? 'line ' + line : ''));
      t.appendChild(tr);
    }
    box.appendChild(t);
  }
  box.scrollIntoView({ block: 'nearest' });
}
