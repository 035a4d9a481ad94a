// The docs-page widget's suite block (`<script type="application/yaml" data-crdlab="suite">`):
// the etcd example's suite runs against the widget's CRD, its results show under the answer
// (and in `result.suite`), and an edit of the suite that breaks a test shows the failure.
// Built like tests/browser/widget.test.mjs (web/widget/build.mjs from CRDLAB_NPM_DIR).
//
// Run from the repo root: node --test tests/browser/widget-suite.test.mjs

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { launchBrowser, openPage, root, serveStatic, stopServer, WAIT } from '../support/harness.mjs';
import { buildWidget } from '../support/widgets.mjs';

const etcd = (f) => fs.readFileSync(path.join(root, 'static', 'examples', 'etcd', f), 'utf8');
const SUITE = etcd('suite.yaml');
const TESTS = (SUITE.match(/^  - name: /gm) || []).length;

let out;
let server;
let baseUrl;
let browser;

before(async () => {
  out = fs.mkdtempSync(path.join(os.tmpdir(), 'crdlab-widget-suite-'));
  buildWidget(out);
  ({ server, url: baseUrl } = await serveStatic([['/widget/', out], ['/', path.join(root, 'tests', 'widget')]], { home: '/page.html' }));
  browser = await launchBrowser({ viewport: { width: 1280, height: 800 } });
});

after(async () => {
  await browser?.close();
  await stopServer(server);
  if (out) fs.rmSync(out, { recursive: true, force: true });
});

/** Adds a widget with the etcd CRD, object and `suite`, loaded at once; returns its id. */
async function addWidget(page, suite) {
  await page.evaluate(({ crd, object, suite }) => {
    const w = document.createElement('crdlab-example');
    w.id = 'suite-widget';
    w.setAttribute('load', 'eager');
    w.setAttribute('kubernetes-version', '1.37');
    for (const [role, text] of [['crd', crd], ['object', object], ['suite', suite]]) {
      const s = document.createElement('script');
      s.type = 'application/yaml';
      s.dataset.crdlab = role;
      s.textContent = text;
      w.append(s);
    }
    document.body.prepend(w);
  }, { crd: etcd('crd.yaml'), object: etcd('object.yaml'), suite });
}

test('the widget shows a suite\'s results', { timeout: 120_000 }, async () => {
  const { page, pageErrors } = await openPage(browser.context, baseUrl);
  await addWidget(page, SUITE);
  await page.waitForFunction(() => document.querySelector('#suite-widget')?.result?.suite, null, { timeout: WAIT });
  const report = await page.evaluate(() => document.querySelector('#suite-widget').result.suite);
  assert.equal(report.summary.tests, TESTS);
  assert.equal(report.summary.failed, 0);
  const summary = page.locator('#suite-widget [data-testid=suite-summary] > summary');
  assert.equal(await summary.textContent(), `Tests: ${TESTS} of ${TESTS} passed`);
  assert.equal(await page.locator('#suite-widget [data-testid=suite] li[data-status=pass]').count(), TESTS);
  // The suite is a tab of the widget, editable like the object.
  assert.ok((await page.locator('#suite-widget').evaluate((w) => [...w.shadowRoot.querySelectorAll('[role=tab]')].map((b) => b.textContent))).includes('Tests'));
  await page.evaluate(() => document.querySelector('#suite-widget').remove());

  // A failing test: its failure text (the apiserver's answer) is shown, the list open.
  await addWidget(page, SUITE.replace('Replicas can either be increased or be downscaled to 0', 'Replicas must never change'));
  await page.waitForFunction(() => document.querySelector('#suite-widget')?.result?.suite, null, { timeout: WAIT });
  assert.equal(await summary.textContent(), `Tests: ${TESTS - 1} of ${TESTS} passed, 1 failed`);
  const failed = page.locator('#suite-widget [data-testid=suite] li[data-status=fail]');
  assert.match(await failed.textContent(), /Should not allow scaling down[\s\S]*Replicas can either be increased or be downscaled to 0/);
  assert.deepEqual(pageErrors, []);
  await page.close();
});
