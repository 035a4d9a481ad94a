// The playground's Tests tab (dist/ from `trunk build --release`, headless Chromium): the etcd
// example's suite runs against the CRD in the editor and passes; an edited expectedError fails
// with the apiserver's answer; clicking a test loads its objects into the editors; the suite
// travels in share links.
//
// Run from the repo root: node --test tests/browser/tests-tab.test.mjs

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { launch, openPlayground, setEditor, editorText, root, WAIT } from './lib.mjs';

const SUITE = fs.readFileSync(path.join(root, 'static/examples/etcd/suite.yaml'), 'utf8');
const TESTS = (SUITE.match(/^  - name: /gm) || []).length;

let env;
before(async () => {
  env = await launch();
});
after(async () => env?.close());

/** Waits until the tests summary's text matches `re`, and returns it. */
async function summary(page, re) {
  await page.waitForFunction((src) => new RegExp(src).test(document.querySelector('[data-testid=tests-summary]')?.textContent || ''), re.source, { timeout: WAIT });
  return page.getByTestId('tests-summary').textContent();
}

test('the tests tab runs the etcd suite, shows a failing edit, loads a test\'s objects, and shares', { timeout: 180_000 }, async () => {
  const { page, pageErrors, requests } = await openPlayground(env.context, env.baseUrl);
  const loaded = requests.length;
  await page.getByTestId('example-picker').selectOption('etcd');
  await page.keyboard.press('Alt+Shift+7');
  await page.getByTestId('tests').waitFor();
  await page.getByTestId('tests-example').click();
  const ok = await summary(page, /passed/);
  assert.match(ok, new RegExp(`Etcd: ${TESTS} tests on 1\\.\\d+: ${TESTS} passed, 0 failed`));
  const lines = await page.getByTestId('test').evaluateAll((els) => els.map((e) => [e.dataset.status, Number(e.dataset.line)]));
  assert.equal(lines.length, TESTS);
  assert.ok(lines.every(([s]) => s === 'pass'), JSON.stringify(lines));
  assert.equal(lines[0][1], 9, 'the first test\'s line in the suite');

  // An edited expectation fails, with the apiserver's answer beside it.
  await setEditor(page, 'suite-editor', SUITE.replace('Replicas can either be increased or be downscaled to 0', 'Replicas must never change'));
  await summary(page, /1 failed/);
  const failed = page.locator('[data-testid=test][data-status=fail]');
  assert.equal(await failed.count(), 1);
  assert.match(await failed.textContent(), /Should not allow scaling down/);
  assert.equal(await failed.getByTestId('test-expected').textContent(), 'Replicas must never change');
  assert.match(await failed.getByTestId('test-actual').textContent(), /is invalid: .*Replicas can either be increased or be downscaled to 0/);
  assert.match(await page.getByTestId('tab-tests').textContent(), /1 failed/);

  // Clicking the update test loads `updated` as the object and `initial` as the old one.
  await failed.getByTestId('test-load').click();
  await page.waitForFunction(() => /replicas: 2/.test(document.querySelector('[data-testid=object-editor]')?.innerText || ''), null, { timeout: WAIT });
  assert.match(await editorText(page, 'old-object-editor'), /replicas: 3/);
  assert.equal(await page.getByTestId('old-object-toggle').isChecked(), true);

  // The share link carries the suite (shared from the results tab: the page opens on it).
  await page.getByTestId('tab-results').click();
  await page.getByTestId('share').click();
  const url = await page.getByTestId('share-url').inputValue();
  assert.equal(requests.length, loaded, 'nothing leaves the page');
  assert.deepEqual(pageErrors, []);
  await page.close();
  const { page: p2, pageErrors: e2 } = await openPlayground(env.context, env.baseUrl, url.slice(env.baseUrl.length));
  await p2.getByTestId('tab-tests').click();
  await p2.getByTestId('tests').waitFor();
  await summary(p2, /1 failed/);
  // (The editor renders only the lines in view: the edit is checked through its failure.)
  assert.equal(await p2.locator('[data-testid=test][data-status=fail]').getByTestId('test-expected').textContent(), 'Replicas must never change');
  assert.deepEqual(e2, []);
  await p2.close();
});
