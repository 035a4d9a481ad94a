// The npm package in headless Chromium: the web build of engine/npm/build.sh OUT_DIR, loaded
// by the example page (static/npm-example.html, served by serve.mjs) and imported directly.
// Checks that the diagnostics are underlined where they came from, live, and that bad input
// throws an Error in the browser too.
//
// Run from the repo root: node --test tests/npm/
// Env: CRDLAB_NPM_DIR (default target/npm), CHROMIUM (default /usr/bin/chromium).

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { launchBrowser, openPage, stopServer } from '../support/harness.mjs';
import { serveExample } from './serve.mjs';

let server;
let baseUrl;
let browser;

before(async () => {
  ({ server, url: baseUrl } = await serveExample());
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await stopServer(server);
});

/** The example page, ready; its uncaught exceptions and console errors go to pageErrors. */
async function openExample() {
  const { page, pageErrors } = await openPage(browser.context, baseUrl);
  await page.locator('#status[data-ready="true"]').waitFor({ state: 'attached' });
  return { page, pageErrors };
}

/** The marks of an editor's backdrop: text, class, line, column and the text before them. */
function marks(page, id) {
  return page.evaluate((id) => {
    const backdrop = document.getElementById(`${id}-backdrop`);
    const ta = document.getElementById(id);
    return [...backdrop.querySelectorAll('mark')].map((m) => {
      const before = document.createRange();
      before.setStart(backdrop, 0);
      before.setEndBefore(m);
      const box = m.getBoundingClientRect();
      const area = ta.getBoundingClientRect();
      return {
        text: m.textContent,
        cls: m.className,
        line: Number(m.dataset.line),
        column: Number(m.dataset.column),
        offset: before.toString().length,
        value: ta.value,
        // Where the mark is drawn, from the textarea's content box (8px 10px padding, 20px lines).
        top: box.top - area.top - 8 + ta.scrollTop,
        left: box.left - area.left - 10 + ta.scrollLeft,
      };
    });
  }, id);
}

test('the example page underlines diagnostics where they came from, live', { timeout: 120_000 }, async () => {
  const { page, pageErrors } = await openExample();
  assert.match(await page.locator('#version').textContent(), /crdlab \d+\.\d+\.\d+/);

  // The example object: replicas below the minimum, an unsupported enum value, an unknown
  // field, and (on the object itself: its first line) the CEL rules left unchecked.
  const m = await marks(page, 'object');
  const byText = Object.fromEntries(m.map((x) => [x.text, x]));
  assert.deepEqual(Object.keys(byText).sort(), ['0', 'apiVersion: example.com/v1', 'colour', 'huge']);
  assert.equal(byText['0'].cls, 'error');
  assert.equal(byText.huge.cls, 'error');
  assert.equal(byText.colour.cls, 'info');
  for (const x of m) {
    // The mark stands over the same characters of the textarea...
    assert.equal(x.value.slice(x.offset, x.offset + x.text.length), x.text);
    // ...at its line and column: drawn where the textarea draws them.
    const lines = x.value.slice(0, x.offset).split('\n');
    assert.equal(lines.length, x.line);
    assert.equal(lines.at(-1).length + 1, x.column);
    assert.ok(Math.abs(x.top - (x.line - 1) * 20) <= 4, `${x.text}: drawn at y=${x.top}, line ${x.line}`);
    const charWidth = await page.evaluate(() => {
      const s = document.createElement('span');
      s.style.font = '13px/20px ui-monospace, SFMono-Regular, Menlo, Consolas, "Liberation Mono", monospace';
      s.textContent = 'x'.repeat(100);
      document.body.append(s);
      const w = s.getBoundingClientRect().width / 100;
      s.remove();
      return w;
    });
    assert.ok(Math.abs(x.left - (x.column - 1) * charWidth) <= 2, `${x.text}: drawn at x=${x.left}, column ${x.column}`);
  }
  const replicas = page.locator('#diagnostics li.error', { hasText: 'spec.replicas: Invalid value: 0' });
  assert.match(await replicas.textContent(), /^object 6:13 {2}spec\.replicas: Invalid value: 0: spec\.replicas in body should be greater than or equal to 1$/);

  // Clicking a diagnostic selects its range in the textarea.
  await replicas.click();
  assert.deepEqual(
    await page.evaluate(() => {
      const ta = document.getElementById('object');
      return ta.value.slice(ta.selectionStart, ta.selectionEnd);
    }),
    '0',
  );

  // Fix the object: only the unknown field is left.
  const object = page.locator('#object');
  await object.fill((await object.inputValue()).replace('replicas: 0', 'replicas: 2').replace('size: huge', 'size: large'));
  await page.waitForFunction(() => document.getElementById('status').textContent === 'valid');
  assert.deepEqual((await marks(page, 'object')).map((x) => x.text), ['colour']);

  // Break the CRD's rule: the compile error is underlined at the rule, in the CRD.
  const crd = page.locator('#crd');
  await crd.fill((await crd.inputValue()).replace('self.replicas <= self.maxReplicas', 'self.replicas <= self.maxReplica'));
  const broken = page.locator('#diagnostics li.error[data-input="crd"]');
  await broken.first().waitFor({ state: 'visible' });
  assert.match(await broken.first().textContent(), /^crd 25:21 {2}.*x-kubernetes-validations\[0\]\.rule: Invalid value: .*compilation failed/);
  assert.deepEqual((await marks(page, 'crd')).map((x) => [x.text, x.line, x.column]), [['self.replicas <= self.maxReplica', 25, 21]]);

  // YAML that cannot be read: the thrown error's place is underlined.
  await crd.fill((await crd.inputValue()).replace('self.maxReplica', 'self.maxReplicas'));
  await page.waitForFunction(() => document.getElementById('status').textContent === 'valid');
  await object.fill('apiVersion: example.com/v1\nkind: Widget\nspec: [1, 2\n');
  const unreadable = page.locator('#diagnostics li.error', { hasText: 'cannot read object' });
  await unreadable.waitFor({ state: 'visible' });
  assert.equal(await unreadable.getAttribute('data-line'), String((await marks(page, 'object'))[0].line));

  assert.deepEqual(pageErrors, []);
  await page.close();
});

test('the web build imported in the browser: answers with ranges, errors thrown', { timeout: 120_000 }, async () => {
  const { page, pageErrors } = await openExample();
  const result = await page.evaluate(async () => {
    // The page has run init(); the same module instance answers here.
    const m = await import('./crdlab/crdlab.js');
    const crd = document.getElementById('crd').value;
    const object = 'apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\nspec: {replicas: 5, maxReplicas: 2}\n';
    const a = m.validate({ crd, object });
    const caught = [];
    for (const f of [() => m.compile(42), () => m.compile('a: [1'), () => m.validate({ crd, object: { spec: { n: 1n } } })]) {
      try {
        f();
        caught.push('no throw');
      } catch (e) {
        caught.push({ isError: e instanceof Error, trap: e instanceof WebAssembly.RuntimeError, message: e.message, input: e.input, line: e.line });
      }
    }
    return {
      errors: a.errors.map((e) => ({ message: e.message, text: object.slice(e.range.startOffset, e.range.endOffset) })),
      rules: a.rules.map((r) => crd.slice(r.range.startOffset, r.range.endOffset)),
      caught,
      works: m.compile(crd).validate(object).errors.length,
    };
  });
  assert.equal(result.errors.length, 1);
  assert.match(result.errors[0].message, /replicas must not exceed maxReplicas/);
  assert.equal(result.errors[0].text, 'spec');
  assert.deepEqual(result.rules, ['self.replicas <= self.maxReplicas']);
  for (const c of result.caught) {
    assert.equal(c.isError, true, JSON.stringify(c));
    assert.equal(c.trap, false);
  }
  assert.match(result.caught[0].message, /crd must be YAML\/JSON text or an object, not a number/);
  assert.match(result.caught[1].message, /^cannot read CRD: /);
  assert.equal(result.caught[1].input, 'crd');
  assert.equal(result.caught[1].line, 1);
  assert.match(result.caught[2].message, /^request cannot be converted to JSON: .*BigInt/);
  assert.equal(result.works, 1);
  assert.deepEqual(pageErrors, []);
  await page.close();
});

/** In the page: forces a panic through each call path of a build; what was thrown and answered. */
async function crashAndRecover(page, url) {
  return page.evaluate(async (url) => {
    const m = await import(url);
    const crd = document.getElementById('crd').value;
    const object = 'apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\nspec: {replicas: 5, maxReplicas: 2}\n';
    const answer = () => JSON.stringify([m.validate({ crd, object }), m.compile(crd).validate(object), m.evaluate('[1, 2].map(x, x * 2)')]);
    const before = answer();
    const paths = {
      compile: () => m.compile(crd),
      validate: () => m.validate({ crd, object }),
      evaluate: () => m.evaluate('1'),
      compileExpression: () => m.compileExpression('1'),
      'Expression.evaluate': (h, x) => x.evaluate(),
      'CompiledCrd.validate': (h) => h.validate(object),
      'CompiledCrd.rules': (h) => h.rules,
    };
    const out = [];
    for (const [name, call] of Object.entries(paths)) {
      const h = m.compile(crd);
      const x = m.compileExpression('1 + 1');
      m.__crdlabPanicOnNextCall(`forced in the browser through ${name}`);
      let thrown;
      try {
        call(h, x);
      } catch (e) {
        thrown = e;
      }
      let old;
      try {
        h.validate(object);
      } catch (e) {
        old = e.message;
      }
      out.push({
        name,
        internal: thrown instanceof m.InternalError,
        errorName: thrown?.name,
        message: thrown?.message,
        trap: thrown?.cause instanceof WebAssembly.RuntimeError,
        same: answer() === before,
        old,
      });
    }
    return out;
  }, url);
}

for (const [build, url] of [['web', './crdlab/crdlab.js'], ['bundler', './crdlab-bundler/crdlab.js']]) {
  test(`${build} build in the browser: a panic re-creates the module, the next call answers`, { timeout: 120_000 }, async () => {
    const { page, pageErrors } = await openExample();
    for (const r of await crashAndRecover(page, url)) {
      assert.equal(r.internal, true, JSON.stringify(r));
      assert.equal(r.errorName, 'CrdlabInternalError');
      assert.match(r.message, new RegExp(`^crdlab internal error \\(the engine was restarted\\): panicked at .*\\n?forced in the browser through ${r.name.replace('.', '\\.')}$`));
      assert.equal(r.trap, true);
      assert.equal(r.same, true, `${r.name}: the answers after the restart`);
      assert.equal(r.old, 'this compiled CRD belonged to an engine instance that crashed; compile it again');
    }
    // The panic hook's report on the console, nothing else.
    assert.ok(pageErrors.length > 0 && pageErrors.every((e) => e.startsWith('crdlab: internal error, the module cannot continue')), pageErrors.join('\n'));
    await page.close();
  });
}

test('the example page shows an internal error and answers the next edit', { timeout: 120_000 }, async () => {
  const { page } = await openExample();
  const object = page.locator('#object');
  const text = await object.inputValue();
  await page.evaluate(async () => (await import('./crdlab/crdlab.js')).__crdlabPanicOnNextCall('forced by the example page test'));
  // One edit: one input event (fill may send more than one).
  await object.evaluate((ta, t) => {
    ta.value = t;
    ta.dispatchEvent(new Event('input'));
  }, text.replace('replicas: 0', 'replicas: 2'));
  const internal = page.locator('#diagnostics li.error', { hasText: 'crdlab internal error (the engine was restarted)' });
  await internal.waitFor({ state: 'visible' });
  assert.match(await internal.textContent(), /forced by the example page test/);
  // The next edit compiles the CRD again on the new instance and validates.
  await object.fill(text.replace('replicas: 0', 'replicas: 2').replace('size: huge', 'size: large'));
  await page.waitForFunction(() => document.getElementById('status').textContent === 'valid');
  await page.close();
});
