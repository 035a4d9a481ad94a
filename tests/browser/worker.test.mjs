// The playground's engine runs in a Web Worker (issue 18, item 4): typing never waits on an
// analysis. With the postgres-operator postgresclusters CRD (2.9 MB of YAML, a few hundred
// milliseconds to compile in wasm) in the editor, keystrokes typed into the CRD are applied to
// the editor while the worker analyses (the results still show an older text), the page's
// thread never runs an analysis (every task over 50 ms the Long Tasks API reports while typing
// is shorter than the longest compile the worker reports — a compile on the page's thread would
// be a task at least that long — and the app's own work per keystroke takes under a frame at
// the median, and never as long as a compile), and
// the results shown at the end are those of the final text.
//
// Run from the repo root after `trunk build --release`: node --test tests/browser/worker.test.mjs

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { launch, openPlayground, setEditor, root } from './lib.mjs';

const shared = path.resolve(root, process.env.SHARED || '../shared');
const crdPath = path.join(shared, 'crds/postgres-operator/config/crd/bases/postgres-operator.crunchydata.com_postgresclusters.yaml');
const NAME_LINE = '\n  name: postgresclusters.postgres-operator.crunchydata.com\n';
/** How many characters are typed into the CRD. */
const TYPED = 12;
/** The Long Tasks API's threshold. */
const LONG_TASK_MS = 50;
/** A frame. */
const FRAME_MS = 16;


let env;
before(async () => {
  env = await launch();
});
after(async () => env?.close());

const results = (page) => page.getByTestId('results');

async function waitForResults(page, pred, what, timeout = 60_000) {
  const t0 = Date.now();
  let text = '';
  while (Date.now() - t0 < timeout) {
    text = (await results(page).textContent()) ?? '';
    if (pred(text)) return text;
    await page.waitForTimeout(50);
  }
  assert.fail(`results never showed ${what}; they show:\n${text.slice(0, 2000)}`);
}

test('the engine runs in a worker', { timeout: 60_000 }, async () => {
  const { page, pageErrors } = await openPlayground(env.context, env.baseUrl);
  await page.waitForFunction(() => document.body.dataset.engine === 'worker');
  assert.deepEqual(pageErrors, []);
  await page.close();
});

test('typing into a 2.9 MB CRD never waits on the engine; the results follow the final text', { timeout: 300_000 }, async (t) => {
  if (!fs.existsSync(crdPath)) {
    t.skip(`${crdPath} not found`);
    return;
  }
  const crd = fs.readFileSync(crdPath, 'utf8');
  assert.ok(crd.includes(NAME_LINE), 'the CRD gives its name on one line');
  const { page, pageErrors } = await openPlayground(env.context, env.baseUrl);
  await page.waitForFunction(() => document.body.dataset.engine === 'worker');
  await setEditor(page, 'object-editor', '');
  await setEditor(page, 'crd-editor', crd);
  // An accepted CRD: kubectl's summary names it.
  await waitForResults(page, (x) => x.includes('postgresclusters.postgres-operator.crunchydata.com created'), 'the CRD accepted', 120_000);

  // The caret at the end of metadata.name (the fourth line).
  assert.ok(crd.startsWith('apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:' + NAME_LINE));
  await page.getByTestId('crd-editor').click();
  await page.keyboard.press('Control+Home');
  for (let i = 0; i < 3; i++) await page.keyboard.press('ArrowDown');
  await page.keyboard.press('End');
  const nameLine = page.locator('[data-testid=crd-editor] .cm-line', { hasText: 'name: postgresclusters.' }).first();
  await page.evaluate((limit) => {
    window.__longTasks = [];
    window.__observer = new PerformanceObserver((list) => {
      for (const e of list.getEntries()) if (e.duration > limit) window.__longTasks.push(Math.round(e.duration));
    });
    window.__observer.observe({ type: 'longtask' });
    window.__crdlabTimings = [];
  }, LONG_TASK_MS);

  // Each keystroke is in the editor as soon as it was dispatched, analyses running or not.
  let behind = 0;
  for (let i = 1; i <= TYPED; i++) {
    await page.keyboard.type('x');
    const seen = await nameLine.textContent();
    assert.ok(seen.endsWith(`crunchydata.com${'x'.repeat(i)}`), `keystroke ${i} not in the editor: ${seen}`);
    // The results still show an older text: the engine is working while the keys arrive.
    const shown = (await results(page).textContent()) ?? '';
    if (!shown.includes(`crunchydata.com${'x'.repeat(i)}"`)) behind++;
    await page.waitForTimeout(20);
  }
  t.diagnostic(`keystrokes typed while the results showed an older text: ${behind}/${TYPED}`);
  assert.ok(behind > 0, 'the keystrokes waited for the analyses');

  // The final results are those of the final text: the name ends in exactly TYPED x's (and
  // no longer matches the plural and group: the apiserver's message quotes it).
  const name = `postgresclusters.postgres-operator.crunchydata.com${'x'.repeat(TYPED)}`;
  const text = await waitForResults(page, (x) => x.includes(`metadata.name: Invalid value: "${name}"`), `the name ${name}`);
  assert.ok(!text.includes(`${name}x`), 'no later text than the editor holds');
  assert.equal(await nameLine.textContent(), `  name: ${name}`);

  const { longTasks, timings } = await page.evaluate(() => ({ longTasks: window.__longTasks, timings: window.__crdlabTimings }));
  const ui = timings.filter((x) => x.kind === 'ui-crd').map((x) => x.ms);
  const compile = timings.filter((x) => x.kind === 'compile').map((x) => x.ms);
  const of = (k) => JSON.stringify(timings.filter((x) => x.kind === k).map((x) => Math.round(x.ms)));
  t.diagnostic(`page thread per keystroke (app): max ${Math.max(...ui).toFixed(1)} ms; compiles in the worker: ${compile.map((m) => m.toFixed(0)).join(', ')} ms; answers read ${of('answer-read')} ms, ${of('answer-bytes')} bytes, rendered ${of('ui-answer')} ms; long tasks: ${JSON.stringify(longTasks)}`);
  assert.equal(ui.length, TYPED, 'every keystroke rendered');
  // Before the worker, a compile ran on the page's thread: a task at least as long as it.
  assert.ok(compile.length > 0, 'the CRD was compiled');
  const longest = Math.max(...compile);
  const median = [...ui].sort((a, b) => a - b)[Math.floor(ui.length / 2)];
  assert.ok(median < FRAME_MS && Math.max(...ui) < longest, `the app's work per keystroke: ${JSON.stringify(ui)}`);
  assert.ok(longTasks.every((d) => d < longest), `a task as long as a compile (${longest.toFixed(0)} ms) ran on the page's thread: ${JSON.stringify(longTasks)}`);
  assert.deepEqual(pageErrors, []);
  await page.close();
});
