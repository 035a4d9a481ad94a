// The one static server and the one browser launcher of crdlab's JavaScript tests: the
// playground's (tests/browser: dist/, the editor demo) and the npm package's (tests/npm: the
// example page). Env: CHROMIUM (default /usr/bin/chromium).

import http from 'node:http';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const executablePath = process.env.CHROMIUM || '/usr/bin/chromium';
export const WAIT = 30_000; // every single wait is bounded by this

const MIME = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.wasm': 'application/wasm',
  '.json': 'application/json',
  '.ts': 'text/plain; charset=utf-8',
  '.md': 'text/plain; charset=utf-8',
  '.yaml': 'text/plain; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
};

/**
 * Serves folders on 127.0.0.1 (`port` 0: a free one); resolves to `{ server, url }`.
 * `mounts`: `[urlPrefix, dir]` pairs, the first whose prefix starts the path answers (so list
 * `/` last). A path ending in `/` gets `index` (`/` alone gets `home` when given). Nothing
 * outside the mounted folders is served, and nothing is cached. `headers(path)`, when given,
 * returns extra response headers for a served path (e.g. a Content-Security-Policy).
 */
export function serveStatic(mounts, { port = 0, index = 'index.html', home, headers } = {}) {
  return new Promise((resolve, reject) => {
    const server = http.createServer((req, res) => {
      let rel = decodeURIComponent(new URL(req.url, 'http://localhost').pathname);
      if (rel === '/' && home) rel = home;
      else if (rel.endsWith('/')) rel += index;
      const mount = mounts.find(([prefix]) => rel.startsWith(prefix));
      if (!mount) {
        res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
        return;
      }
      const [prefix, dir] = mount;
      const file = path.resolve(dir, '.' + rel.slice(prefix.length - 1));
      if (!file.startsWith(dir + path.sep)) {
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
          ...(headers ? headers(rel) : {}),
        });
        res.end(data);
      });
    });
    server.on('error', reject);
    server.listen(port, '127.0.0.1', () => resolve({ server, url: `http://127.0.0.1:${server.address().port}/` }));
  });
}

/** Stops a server of serveStatic, open connections too. */
export async function stopServer(server) {
  if (!server) return;
  await new Promise((resolve) => server.close(() => resolve()));
  server.closeAllConnections?.();
}

/**
 * Headless Debian Chromium through playwright-core, in a throwaway profile; resolves to
 * `{ context, close }`. `options` go to launchPersistentContext (e.g. `viewport`).
 * playwright-core is imported here, not at the top, so that a test can skip with a message
 * when the npm packages are not installed.
 */
export async function launchBrowser(options = {}) {
  if (!fs.existsSync(executablePath)) throw new Error(`no Chromium at ${executablePath}`);
  const { chromium } = await import('playwright-core');
  const userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'crdlab-chromium-'));
  let context;
  try {
    context = await chromium.launchPersistentContext(userDataDir, {
      executablePath,
      headless: true,
      timeout: WAIT,
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
      ...options,
    });
  } catch (e) {
    fs.rmSync(userDataDir, { recursive: true, force: true });
    throw e;
  }
  context.setDefaultTimeout(WAIT);
  const close = async () => {
    await context.close().catch(() => {});
    fs.rmSync(userDataDir, { recursive: true, force: true });
  };
  return { context, close };
}

/**
 * A new page at `url`, loaded; its uncaught exceptions and console messages of the given
 * types go to `pageErrors`, and every URL it requests to `requests`.
 */
export async function openPage(context, url, { consoleTypes = ['error'] } = {}) {
  const page = await context.newPage();
  const pageErrors = [];
  const requests = [];
  page.on('pageerror', (e) => pageErrors.push(String(e)));
  page.on('console', (m) => {
    if (consoleTypes.includes(m.type())) pageErrors.push(m.text());
  });
  page.on('request', (r) => requests.push(r.url()));
  await page.goto(url, { waitUntil: 'load', timeout: WAIT });
  return { page, pageErrors, requests };
}
