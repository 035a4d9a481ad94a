// Smoke test of the playground: serves dist/ (built by `trunk build --release`) on a free
// localhost port, drives it in headless Debian Chromium through playwright-core, and checks
// that editing the CRD and object textareas updates the errors live.
//
// Run from the repo root: node --test tests/browser/
// Env: CHROMIUM (default /usr/bin/chromium), DIST (default dist).

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..', '..');
const dist = path.resolve(root, process.env.DIST || 'dist');
const executablePath = process.env.CHROMIUM || '/usr/bin/chromium';

const WAIT = 30_000; // every single wait is bounded by this

const MIME = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.wasm': 'application/wasm',
  '.json': 'application/json',
  '.yaml': 'text/plain; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
};

const CRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: gadgets.test.example.com
spec:
  group: test.example.com
  names: {kind: Gadget, listKind: GadgetList, plural: gadgets, singular: gadget}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              replicas: {type: integer, minimum: 1}
`;

const objectWith = (replicas) => `apiVersion: test.example.com/v1
kind: Gadget
metadata: {name: g1, namespace: default}
spec:
  replicas: ${replicas}
`;

let server;
let baseUrl;
let context;
let userDataDir;

function serveDist() {
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

before(async () => {
  assert.ok(
    fs.existsSync(path.join(dist, 'index.html')),
    `${dist}/index.html is missing: run \`trunk build --release\` first`,
  );
  assert.ok(fs.existsSync(executablePath), `no Chromium at ${executablePath}`);
  server = await serveDist();
  baseUrl = `http://127.0.0.1:${server.address().port}/`;
  userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'crdlab-chromium-'));
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
  });
  context.setDefaultTimeout(WAIT);
});

after(async () => {
  await context?.close().catch(() => {});
  await new Promise((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server?.closeAllConnections?.();
  if (userDataDir) fs.rmSync(userDataDir, { recursive: true, force: true });
});

// A new page on the playground; its uncaught exceptions and console errors go to pageErrors.
async function openPlayground() {
  const page = await context.newPage();
  const pageErrors = [];
  page.on('pageerror', (e) => pageErrors.push(String(e)));
  page.on('console', (m) => {
    if (m.type() === 'error') pageErrors.push(m.text());
  });
  await page.goto(baseUrl, { waitUntil: 'load', timeout: WAIT });
  return { page, pageErrors };
}

test('playground reports request and metadata errors', { timeout: 120_000 }, async () => {
  const { page, pageErrors } = await openPlayground();
  await page.locator('#summary').waitFor({ state: 'visible' });
  await page.locator('#crd').fill(CRD);

  // Not an object at all: a request-level error.
  await page.locator('#object').fill('just text');
  await page.locator('#request-error').waitFor({ state: 'visible' });
  assert.match(await page.locator('#summary').textContent(), /^request error: /);

  // A bad metadata.name: an object error.
  await page.locator('#object').fill(objectWith('3').replace('name: g1', 'name: Bad_Name'));
  const nameError = page.locator('#errors li.error', { hasText: 'metadata.name: Invalid value: "Bad_Name"' });
  await nameError.first().waitFor({ state: 'visible' });
  assert.equal(await nameError.first().getAttribute('data-field'), 'metadata.name');

  // Fixed: the list empties and the summary says valid.
  await page.locator('#object').fill(objectWith('3'));
  await page.waitForFunction(
    () => document.querySelectorAll('#errors li').length === 0 &&
      document.querySelector('#summary')?.textContent === 'valid',
    null,
    { timeout: WAIT },
  );

  assert.deepEqual(pageErrors, []);
  await page.close();
});

test('playground shows live schema validation errors', { timeout: 120_000 }, async () => {
  const { page, pageErrors } = await openPlayground();

  // The app renders the preloaded example.
  await page.locator('#summary').waitFor({ state: 'visible' });

  // Replace the CRD and the object with our own.
  await page.locator('#crd').fill(CRD);
  await page.locator('#object').fill(objectWith('"three"'));
  const typeError = page.locator('#errors li.error', { hasText: 'must be of type integer' });
  await typeError.first().waitFor({ state: 'visible' });
  const text = await typeError.first().textContent();
  assert.match(text, /^spec\.replicas: Invalid value: "string": spec\.replicas in body must be of type integer: "string"$/);
  assert.match(await page.locator('#summary').textContent(), /1 error/);

  // Fix the object: no errors left, summary says valid.
  await page.locator('#object').fill(objectWith('3'));
  await page.waitForFunction(
    () => document.querySelectorAll('#errors li.error').length === 0 &&
      document.querySelector('#summary')?.textContent === 'valid',
    null,
    { timeout: WAIT },
  );
  assert.equal(await page.locator('#errors li').count(), 0);

  // A value below the minimum is caught too (the same compiled CRD, from the engine's cache).
  await page.locator('#object').fill(objectWith('0'));
  await page.locator('#errors li.error', { hasText: 'should be greater than or equal to 1' }).first().waitFor({ state: 'visible' });

  assert.deepEqual(pageErrors, []);
  await page.close();
});
