// Shared by the playground's browser tests and benchmarks: serves dist/ (built by
// `trunk build --release`) on a free 127.0.0.1 port and launches headless Debian Chromium
// through playwright-core. Env: CHROMIUM (default /usr/bin/chromium), DIST (default dist).

import http from 'node:http';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const here = path.dirname(fileURLToPath(import.meta.url));
export const root = path.resolve(here, '..', '..');
export const dist = path.resolve(root, process.env.DIST || 'dist');
export const executablePath = process.env.CHROMIUM || '/usr/bin/chromium';
export const WAIT = 30_000; // every single wait is bounded by this

const MIME = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.wasm': 'application/wasm',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
};

export function serveDist() {
  return new Promise((resolve, reject) => {
    const srv = http.createServer((req, res) => {
      const url = new URL(req.url, 'http://localhost');
      let rel = decodeURIComponent(url.pathname);
      if (rel.endsWith('/')) rel += 'index.html';
      const file = path.resolve(dist, '.' + rel);
      if (!file.startsWith(dist + path.sep)) {
        res.writeHead(403).end();
        return;
      }
      fs.readFile(file, (err, data) => {
        if (err) {
          res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
          return;
        }
        res.writeHead(200, {
          'content-type': MIME[path.extname(file)] || 'application/octet-stream',
          'cache-control': 'no-store',
        });
        res.end(data);
      });
    });
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => resolve(srv));
  });
}

export async function launch() {
  if (!fs.existsSync(path.join(dist, 'index.html'))) {
    throw new Error(`${dist}/index.html is missing: run \`trunk build --release\` first`);
  }
  if (!fs.existsSync(executablePath)) throw new Error(`no Chromium at ${executablePath}`);
  const server = await serveDist();
  const baseUrl = `http://127.0.0.1:${server.address().port}/`;
  const userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'crdlab-chromium-'));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath,
    headless: true,
    timeout: WAIT,
    viewport: { width: 1280, height: 800 },
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  context.setDefaultTimeout(WAIT);
  const close = async () => {
    await context.close().catch(() => {});
    await new Promise((r) => server.close(() => r()));
    server.closeAllConnections?.();
    fs.rmSync(userDataDir, { recursive: true, force: true });
  };
  return { context, baseUrl, close };
}

// A new page on the playground (optionally with a #fragment). Records page errors and every
// request, so tests can assert that nothing leaves 127.0.0.1 and nothing is fetched after load.
export async function openPlayground(context, baseUrl, fragment = '') {
  const page = await context.newPage();
  const pageErrors = [];
  const requests = [];
  page.on('pageerror', (e) => pageErrors.push(String(e)));
  page.on('console', (m) => {
    if (m.type() === 'error') pageErrors.push(m.text());
  });
  page.on('request', (r) => requests.push(r.url()));
  await page.goto(baseUrl + fragment, { waitUntil: 'load', timeout: WAIT });
  await page.getByTestId('results').waitFor({ state: 'visible' });
  await page.locator('.cm-content').first().waitFor({ state: 'visible' });
  return { page, pageErrors, requests };
}

// Replaces an editor's whole text as a person would: click, select all, then type it in
// (short texts) or paste it (long ones: a clipboard paste event, as Ctrl+V delivers; typing
// megabytes through the DOM would take minutes).
export async function setEditor(page, testid, text) {
  const ed = page.getByTestId(testid);
  await ed.click();
  await page.keyboard.press('Control+A');
  if (text === '') await page.keyboard.press('Delete');
  else if (text.length < 20_000) await page.keyboard.insertText(text);
  else {
    await ed.evaluate((el, t) => {
      const data = new DataTransfer();
      data.setData('text/plain', t);
      el.dispatchEvent(new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true }));
    }, text);
  }
}

export async function editorText(page, testid) {
  return page.getByTestId(testid).evaluate((el) => el.cmView?.view?.state?.doc?.toString() ?? el.innerText);
}
