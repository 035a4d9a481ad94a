// The playground's engine runs in a Web Worker (issue 18, item 4): typing never waits on an
// analysis. With the postgres-operator postgresclusters CRD (2.9 MB of YAML, a few hundred
// milliseconds to compile in wasm) in the editor, keystrokes typed into the CRD are applied to
// the editor at once, whether the worker is analysing or not, the page's
// thread never runs an analysis (every compile's answer came from the worker, with the time
// the worker spent, and the app's own work per keystroke takes under a frame at the median,
// and never as long as a compile), and
// the results shown at the end are those of the final text.
//
// Run from the repo root after `trunk build --release`: node --test tests/browser/worker.test.mjs

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { launch, openPlayground, setEditor, root } from './lib.mjs';
import { widgetsCrd } from '../support/widgets.mjs';

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
  // How many results lagged depends on the machine: a re-compile after a keystroke now
  // takes 5 to 45 ms, and on a loaded machine the test's own round trips to the page take
  // longer (CI saw 0/12). That typing never waits on an analysis is asserted below: the
  // app's work per keystroke, and every compile in the worker.
  t.diagnostic(`keystrokes typed while the results showed an older text: ${behind}/${TYPED}`);

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
  // Every compile was the worker's: it reported its engine time with each answer (an engine
  // on the page's thread reports none). Long tasks can no longer tell: the re-compiles after
  // a keystroke take 5 to 45 ms, under the API's 50 ms, while the editor's own work on a
  // 2.9 MB document makes a task or several of 50 to 90 ms (they stay in the diagnostic).
  const inWorker = timings.filter((x) => x.kind === 'worker-analysis').length;
  assert.ok(compile.length >= 2 && inWorker >= compile.length, `${compile.length} compiles, ${inWorker} answers from the worker`);
  assert.deepEqual(pageErrors, []);
  await page.close();
});

// A CRD small enough to type against: the object's edits reuse its compiled form.
const WIDGETS = widgetsCrd('self.replicas <= 5', 'at most five');

// Typing in the object with the CRD compiled: the answers are right either way; on a
// cross-origin isolated page they come through the worker's shared mailbox (taken before
// the frame), elsewhere by message.
async function typeIntoObject(context, baseUrl) {
  const { page, pageErrors } = await openPlayground(context, baseUrl);
  await page.waitForFunction(() => document.body.dataset.engine === 'worker');
  await setEditor(page, 'crd-editor', WIDGETS);
  await setEditor(page, 'object-editor', 'apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w1, namespace: default}\nspec:\n  replicas: 3\n');
  await waitForResults(page, (x) => x.includes('widget.example.com/w1 created'), 'the create');
  await page.evaluate(() => { window.__crdlabTimings = []; });
  await page.getByTestId('object-editor').click();
  await page.keyboard.press('Control+End');
  // `replicas: 3` becomes 9, then a new line (indented by the editor) gets an unknown field.
  for (const key of ['Backspace', 'Backspace', '9', 'Enter', 'bogus: 1']) {
    if (key.length > 1 && !key.includes(' ')) await page.keyboard.press(key);
    else await page.keyboard.type(key, { delay: 20 });
    await page.waitForTimeout(20);
  }
  // A burst faster than the round trip: a job waits while another is in the worker, and
  // the messages of answers already taken from the mailbox arrive after later ones.
  await page.keyboard.type('  # typed in a burst, one key right after another', { delay: 0 });
  await waitForResults(page, (x) => x.includes('at most five') && x.includes('Warning: unknown field "spec.bogus"'), 'the rule and the unknown field');
  const seen = await page.evaluate(() => ({ isolated: globalThis.crossOriginIsolated, kinds: (window.__crdlabTimings || []).map((t) => t.kind) }));
  assert.deepEqual(pageErrors, []);
  await page.close();
  return { isolated: seen.isolated, mailed: seen.kinds.filter((k) => k === 'mailbox-wait').length, keystrokes: seen.kinds.filter((k) => k === 'ui-object').length };
}

test('object edits: answered through the shared mailbox on an isolated page, by message elsewhere', { timeout: 120_000 }, async (t) => {
  const isolated = await typeIntoObject(env.context, env.baseUrl);
  t.diagnostic(`isolated: ${JSON.stringify(isolated)}`);
  assert.equal(isolated.isolated, true, 'the page is cross-origin isolated');
  assert.ok(isolated.mailed > 0, `no answer was taken from the mailbox over ${isolated.keystrokes} keystrokes`);

  const plain = await launch({ isolated: false });
  try {
    const open = await typeIntoObject(plain.context, plain.baseUrl);
    t.diagnostic(`not isolated: ${JSON.stringify(open)}`);
    assert.equal(open.isolated, false);
    assert.equal(open.mailed, 0);
  } finally {
    await plain.close();
  }
});
