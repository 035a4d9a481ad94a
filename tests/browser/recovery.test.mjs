// The playground under a crash and under hostile input (issue 16, items 3 and 5), end to end
// in headless Chromium (dist/ from `trunk build --release`):
// - a panic (forced through the hidden hook `window.wasmBindings.__crdlabPanicOnNextAnalysis`:
//   the next analysis panics in the engine worker) shows a banner with the texts kept, the
//   worker restarts (the page is not reloaded), nothing is analysed until the next edit, and
//   the next edit (or "Try again") is answered; a panic on the page's own thread reloads the
//   page with the texts kept;
// - hostile input pasted into the editors (a 3 MiB string, an object nested 600 deep, a CEL
//   rule 300 parentheses deep, a YAML alias bomb) is answered within a few seconds with an
//   error in the results, and the next ordinary edit is answered correctly. (Invalid UTF-8
//   cannot be typed into an editor; the docs page widget gets the same inputs in widget.test.mjs.)
//
// Run from the repo root: node --test tests/browser/

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { launch, openPlayground, setEditor, editorText, dist } from './lib.mjs';
import { widgetsCrd } from '../support/widgets.mjs';

/** "Within a few seconds": each hostile input must be answered this fast. */
const ANSWER_MS = 10_000;

const crdWithRule = (rule) => widgetsCrd(JSON.stringify(rule), 'the rule failed');
const GOOD_CRD = crdWithRule('self.replicas < 100');
const object = (replicas, name = 'w') => `apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: ${name}}\nspec: {replicas: ${replicas}}\n`;
const minimum = (n) => `spec.replicas: Invalid value: ${n}: spec.replicas in body should be greater than or equal to 1`;

let env;
before(async () => {
  env = await launch();
});
after(async () => env?.close());

const results = (page) => page.getByTestId('results');

/** Waits until the results pane's text satisfies `pred`; returns the text and how long it took. */
async function waitForResults(page, pred, what, timeout = ANSWER_MS) {
  const t0 = Date.now();
  let text = '';
  while (Date.now() - t0 < timeout) {
    text = (await results(page).textContent({ timeout })) ?? '';
    if (pred(text)) return { text, ms: Date.now() - t0 };
    await page.waitForTimeout(50);
  }
  assert.fail(`results never showed ${what} within ${timeout} ms; they show:\n${text.slice(0, 2000)}`);
}

/** The playground with the test CRD and an object whose one error is the minimum. */
async function ready() {
  const opened = await openPlayground(env.context, env.baseUrl);
  await setEditor(opened.page, 'crd-editor', GOOD_CRD);
  await setEditor(opened.page, 'object-editor', object(0));
  await waitForResults(opened.page, (t) => t.includes(minimum(0)), 'the minimum', 30_000);
  return opened;
}

test('a panic in the engine worker: a banner, the texts kept, the worker restarted; the next edit is answered', { timeout: 180_000 }, async () => {
  const { page } = await ready();

  // Forced in the next analysis: the edit below panics, the app saves and reloads itself.
  const crdText = await editorText(page, 'crd-editor');
  await page.evaluate(() => window.wasmBindings.__crdlabPanicOnNextAnalysis('forced by the recovery test'));
  const edited = object(0, 'w2').trimEnd();
  // The panic is the engine worker's: the page keeps running, the worker is replaced.
  let loads = 0;
  page.on('load', () => loads++);
  await setEditor(page, 'object-editor', edited);
  const banner = page.getByTestId('crash-banner');
  await banner.waitFor({ state: 'visible' });
  assert.equal(loads, 0, 'the page is not reloaded');
  assert.match(await banner.textContent(), /^crdlab hit an internal error and restarted; your texts are kept: panicked at .*forced by the recovery test\s*Try again$/s);
  await page.locator('.cm-content').first().waitFor({ state: 'visible' });
  assert.equal(await editorText(page, 'crd-editor'), crdText);
  assert.equal(await editorText(page, 'object-editor'), edited);
  // Nothing analysed: the restored state could be what panicked.
  assert.ok(!(await results(page).textContent()).includes(minimum(0)));
  assert.equal(await page.evaluate(() => sessionStorage.getItem('crdlab-crash')), null, 'no record is left');

  // The next edit is answered, and the banner goes.
  await setEditor(page, 'object-editor', object(-1));
  await waitForResults(page, (t) => t.includes(minimum(-1)), 'the next edit');
  await banner.waitFor({ state: 'detached' });

  // Again, then "Try again" instead of an edit.
  await page.evaluate(() => window.wasmBindings.__crdlabPanicOnNextAnalysis('forced again'));
  await setEditor(page, 'object-editor', object(-2).trimEnd());
  await banner.waitFor({ state: 'visible' });
  assert.match(await page.getByTestId('crash-panic').textContent(), /forced again$/);
  assert.equal(await editorText(page, 'object-editor'), object(-2).trimEnd());
  await page.getByTestId('crash-retry').click();
  await waitForResults(page, (t) => t.includes(minimum(-2)), 'Try again');
  await banner.waitFor({ state: 'detached' });
  await page.close();
});

test("a panic on the page's own thread reloads it with the texts kept", { timeout: 120_000 }, async () => {
  const { page } = await ready();
  const crdText = await editorText(page, 'crd-editor');
  const objectText = await editorText(page, 'object-editor');
  const reloaded = page.waitForEvent('load');
  await page.evaluate(() => {
    try {
      window.wasmBindings.__crdlabPanicNow('on the page');
    } catch {
      // The trap.
    }
  });
  await reloaded;
  const banner = page.getByTestId('crash-banner');
  await banner.waitFor({ state: 'visible' });
  assert.match(await page.getByTestId('crash-panic').textContent(), /on the page$/);
  await page.locator('.cm-content').first().waitFor({ state: 'visible' });
  assert.equal(await editorText(page, 'crd-editor'), crdText);
  assert.equal(await editorText(page, 'object-editor'), objectText);
  assert.equal(await page.evaluate(() => sessionStorage.getItem('crdlab-crash')), null, 'the record is read once');
  await page.getByTestId('crash-retry').click();
  await waitForResults(page, (t) => t.includes(minimum(0)), 'Try again');
  await banner.waitFor({ state: 'detached' });
  await page.close();
});

test('a second panic before any edit after the restart does not reload again', { timeout: 120_000 }, async () => {
  const { page } = await ready();
  await page.evaluate(() => window.wasmBindings.__crdlabPanicOnNextAnalysis('the first'));
  await setEditor(page, 'object-editor', object(5).trimEnd());
  await page.getByTestId('crash-banner').waitFor({ state: 'visible' });
  // Nothing analysed since the restart: a panic now (the restored workspace could be what
  // makes the page panic as it starts) stops the page with a message instead of reloading.
  let loads = 0;
  page.on('load', () => loads++);
  await page.evaluate(() => {
    try {
      window.wasmBindings.__crdlabPanicNow('the second');
    } catch {
      // The trap.
    }
  });
  const fatal = page.getByTestId('crash-fatal');
  await fatal.waitFor({ state: 'visible' });
  assert.match(await fatal.textContent(), /^crdlab hit an internal error again and stopped; reload the page to try again: panicked at .*the second$/s);
  await page.waitForTimeout(1500);
  assert.equal(loads, 0, 'no reload');
  // The record is kept: reloading by hand restores the texts again.
  assert.match(await page.evaluate(() => sessionStorage.getItem('crdlab-crash')), /the second/);
  await page.reload();
  await page.getByTestId('crash-banner').waitFor({ state: 'visible' });
  assert.equal(await editorText(page, 'object-editor'), object(5).trimEnd());
  await page.close();
});

/** The YAML reader refuses alias bombs (the "limits" branch of issue 16): its message is in the app. */
function readerRefusesAliasBombs() {
  const wasm = fs.readdirSync(dist).find((f) => f.endsWith('.wasm'));
  return wasm && fs.readFileSync(path.join(dist, wasm)).includes('document contains excessive aliasing');
}

// go-yaml's "billion laughs": ten levels of ten aliases each (10^10 strings expanded).
function aliasBomb() {
  const names = 'abcdefghij';
  const lines = [`${names[0]}: &${names[0]} [${Array(10).fill('"lol"').join(',')}]`];
  for (let i = 1; i < names.length; i++) lines.push(`${names[i]}: &${names[i]} [${Array(10).fill(`*${names[i - 1]}`).join(',')}]`);
  return lines.join('\n') + '\n';
}

const HOSTILE = [
  {
    name: 'a 3 MiB string value',
    editor: 'object-editor',
    text: `apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\nspec: {replicas: 1, name: "${'a'.repeat(3 << 20)}"}\n`,
    // The schema's maxLength, or the apiserver's 3 MiB request limit.
    answered: (t) => t.includes('spec.name: Too long: may not be more than 5 bytes') || /[Rr]equest entity too large/.test(t),
  },
  {
    name: 'an object nested 600 deep',
    editor: 'object-editor',
    text: '{"a":'.repeat(600) + '1' + '}'.repeat(600),
    answered: (t) => t.includes('nesting deeper than 512 levels'),
  },
  {
    name: 'a CEL rule 300 parentheses deep',
    editor: 'crd-editor',
    text: crdWithRule('('.repeat(300) + 'self.replicas' + ')'.repeat(300) + ' > 0'),
    answered: (t) => t.includes('expression recursion limit exceeded: 250'),
  },
  {
    name: 'a YAML alias bomb nested 10 levels',
    editor: 'object-editor',
    text: aliasBomb(),
    answered: (t) => t.includes('yaml: document contains excessive aliasing'),
    needsAliasLimit: true,
  },
  {
    name: 'a YAML alias bomb in the CRD',
    editor: 'crd-editor',
    text: GOOD_CRD + aliasBomb().replace(/^/gm, '  ').replace(/^  a:/, 'x-bomb:\n  a:'),
    answered: (t) => t.includes('yaml: document contains excessive aliasing'),
    needsAliasLimit: true,
  },
];

for (const h of HOSTILE) {
  test(`hostile input: ${h.name} is answered, and so is the next edit`, { timeout: 180_000 }, async (t) => {
    if (h.needsAliasLimit && !readerRefusesAliasBombs()) {
      // Without the limit the reader expands it (gigabytes, minutes): not run on a shared machine.
      t.skip('the YAML reader of this build has no alias limit yet (issue 16, the "limits" branch)');
      return;
    }
    const { page } = await ready();
    await setEditor(page, h.editor, h.text);
    const { ms } = await waitForResults(page, h.answered, `the answer to ${h.name}`);
    t.diagnostic(`${h.name}: answered in ${ms} ms`);
    // The next ordinary edit is answered correctly.
    if (h.editor === 'crd-editor') await setEditor(page, 'crd-editor', GOOD_CRD);
    await setEditor(page, 'object-editor', object(-3));
    await waitForResults(page, (x) => x.includes(minimum(-3)) && !h.answered(x), 'the next edit');
    assert.equal(await page.getByTestId('crash-banner').count(), 0, 'no crash');
    await page.close();
  });
}
