// SPDX-License-Identifier: MIT
// The browser tests' puppeteer-core driver (tests/e2e/html-views.sh):
// Debian's chromium, headless, through puppeteer-core from npm (the test
// installs it; NODE_PATH names its node_modules).
//
//   node page-driver.mjs PAGE STEPS.json OUT.json
//
// opens PAGE (a file, with an optional #fragment), waits for the page's
// code to have drawn it (document.body.dataset.ready), then runs STEPS in
// order, each one of
//   {"eval": "JS expression"}           its value
//   {"click": "CSS selector"}           a real click at the element's centre
//   {"type": ["CSS selector", "text"]}  focus the input and type the text
//   {"drag": ["CSS selector", f0, f1]}  press at fraction f0 of the element's
//                                       width, move to f1 in steps, release
//   {"goto": "#fragment"}               open PAGE again with that fragment
//   {"hash": "#fragment"}               set location.hash (a link followed
//                                       within the page)
// and writes OUT: {"results": [...], "console": [errors and warnings],
// "exceptions": [...], "requests": [URLs other than PAGE's], "url": the
// page's URL at the end}.
import { createRequire } from 'node:module';
import { readFileSync, writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const require = createRequire(join(process.env.NODE_PATH || '.', 'x.js'));
const puppeteer = require('puppeteer-core');
const [page0, stepsFile, outFile] = process.argv.slice(2);
const hashAt = page0.indexOf('#');
const base = pathToFileURL(resolve(hashAt < 0 ? page0 : page0.slice(0, hashAt))).href;
const url0 = base + (hashAt < 0 ? '' : page0.slice(hashAt));
const steps = JSON.parse(readFileSync(stepsFile, 'utf8'));
const out = { results: [], console: [], exceptions: [], requests: [] };

const browser = await puppeteer.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  headless: true,
  userDataDir: mkdtempSync(join(tmpdir(), 'pptr-')),
  args: ['--no-sandbox', '--disable-gpu', '--proxy-server=127.0.0.1:9', '--proxy-bypass-list=<-loopback>',
         '--no-first-run', '--disable-extensions', '--disable-background-networking'],
  defaultViewport: { width: 1280, height: 900 },
});
try {
  const page = await browser.newPage();
  page.on('console', (m) => { if (m.type() === 'error' || m.type() === 'warn') out.console.push(m.text()); });
  page.on('pageerror', (e) => out.exceptions.push(String(e)));
  page.on('request', (r) => { if (!r.url().startsWith(base) && !r.url().startsWith('data:')) out.requests.push(r.url()); });
  const open = async (u) => {
    await page.goto(u, { waitUntil: 'load' });
    await page.waitForFunction(() => document.body.dataset.ready === '1', { timeout: 60000 });
  };
  await open(url0);
  for (const s of steps) {
    if (s.eval !== undefined) {
      out.results.push(await page.evaluate(s.eval));
    } else if (s.click !== undefined) {
      await page.click(s.click);
    } else if (s.type !== undefined) {
      await page.click(s.type[0]);
      await page.type(s.type[0], s.type[1]);
    } else if (s.drag !== undefined) {
      const [sel, f0, f1] = s.drag;
      const el = await page.$(sel);
      await el.scrollIntoView();
      const b = await el.boundingBox();
      const y = b.y + b.height / 2;
      await page.mouse.move(b.x + f0 * b.width, y);
      await page.mouse.down();
      for (let i = 1; i <= 10; i++) await page.mouse.move(b.x + (f0 + ((f1 - f0) * i) / 10) * b.width, y);
      await page.mouse.up();
    } else if (s.goto !== undefined) {
      await page.goto('about:blank'); // else a new fragment is no new load
      await open(base + s.goto);
    } else if (s.hash !== undefined) {
      await page.evaluate((h) => { location.hash = h; }, s.hash);
      await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => r())));
    } else {
      throw new Error('a step of no known kind: ' + JSON.stringify(s));
    }
  }
  out.url = page.url();
} finally {
  await browser.close();
}
writeFileSync(outFile, JSON.stringify(out));
