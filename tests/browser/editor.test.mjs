// Tests the CodeMirror editor bundle (web/editor) on its own, without the playground: builds
// the bundle into a temp dir with web/editor/build.mjs, serves it with web/editor/demo.html on
// 127.0.0.1, and drives the demo page in headless Debian Chromium through playwright-core.
//
// Run from the repo root: node --test tests/browser/
// Env: CHROMIUM (default /usr/bin/chromium).
// Skips (with a message) only when the npm packages are not installed (scripts/install-tools).

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { executablePath, launchBrowser, openPage, root, serveStatic, stopServer } from '../support/harness.mjs';

const editorDir = path.join(root, 'web', 'editor');

const missing = [
  [path.join(editorDir, 'node_modules', '@codemirror'), 'web/editor/node_modules'],
  [path.join(root, 'tools', 'node_modules', 'esbuild'), 'tools/node_modules'],
  [path.join(root, 'tests', 'node_modules', 'playwright-core'), 'tests/node_modules'],
]
  .filter(([dir]) => !fs.existsSync(dir))
  .map(([, name]) => name);
const skip = missing.length
  ? `${missing.join(' and ')} missing: run scripts/install-tools (npm ci) first`
  : false;

let server;
let baseUrl;
let browser;
let context;
let siteDir;
let requests = []; // every URL any page of the test asked for

before(async () => {
  if (skip) return;
  assert.ok(fs.existsSync(executablePath), `no Chromium at ${executablePath}`);
  // The page as web/editor/demo.html expects it: ./demo.html and ./dist/crdlab-editor.js.
  siteDir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'crdlab-editor-')));
  fs.copyFileSync(path.join(editorDir, 'demo.html'), path.join(siteDir, 'demo.html'));
  execFileSync(process.execPath, [path.join(editorDir, 'build.mjs'), path.join(siteDir, 'dist', 'crdlab-editor.js')], {
    stdio: ['ignore', 'inherit', 'inherit'],
    timeout: 120_000,
  });
  ({ server, url: baseUrl } = await serveStatic([['/', siteDir]]));
  browser = await launchBrowser();
  context = browser.context;
  context.on('request', (r) => requests.push(r.url()));
});

after(async () => {
  await browser?.close();
  await stopServer(server);
  if (siteDir) fs.rmSync(siteDir, { recursive: true, force: true });
});

// The demo page; its uncaught exceptions and console errors and warnings go to pageErrors.
async function openDemo() {
  const { page, pageErrors } = await openPage(context, baseUrl + 'demo.html', { consoleTypes: ['error', 'warning'] });
  await page.getByTestId('yaml-editor').waitFor({ state: 'visible' });
  return { page, pageErrors };
}

// The text logic on its own (web/editor/src/text.js), with CodeMirror's Text as the document.
async function textModule() {
  const { Text } = await import(path.join(editorDir, 'node_modules', '@codemirror', 'state', 'dist', 'index.js'));
  const text = await import(path.join(editorDir, 'src', 'text.js'));
  return { ...text, docOf: (s) => Text.of(text.splitLines(s)) };
}

test('single-line flattening: breaks become one space, none at the edges', { skip }, async () => {
  const { flattenInsert, toSingleLine } = await textModule();
  assert.equal(flattenInsert('no breaks ', 'a', 'b'), 'no breaks ');
  assert.equal(flattenInsert('self.a > 0 &&\n    self.b < 3\n', '', ''), 'self.a > 0 && self.b < 3');
  assert.equal(flattenInsert('a\n\n  \n\tb', '', ''), 'a b');
  // After text, a leading break separates; after whitespace or at the start it vanishes.
  assert.equal(flattenInsert('\nb', 'a', ''), ' b');
  assert.equal(flattenInsert('\nb', ' ', ''), 'b');
  assert.equal(flattenInsert('\nb', '', ''), 'b');
  // Before text, a trailing break separates; at the end it vanishes.
  assert.equal(flattenInsert('foo\n', 'x', 'y'), 'foo ');
  assert.equal(flattenInsert('foo\n', 'x', ''), 'foo');
  assert.equal(flattenInsert('\n', 'a', 'b'), ' ');
  assert.equal(flattenInsert('\n', 'a', ''), '');
  assert.equal(toSingleLine('  x \r\n\r y\n'), '  x y');
  assert.equal(toSingleLine('one line'), 'one line');
});

test('auto language and diagnostic ranges: clamped, widened, surrogate-safe', { skip }, async () => {
  const { sniffLanguage, toLintDiagnostic, clampPos, docOf } = await textModule();
  assert.equal(sniffLanguage(docOf('')), 'yaml');
  assert.equal(sniffLanguage(docOf('\n  \n\t [1]')), 'json');
  assert.equal(sniffLanguage(docOf('  {"a": 1}')), 'json');
  assert.equal(sniffLanguage(docOf('# {\n{')), 'yaml');

  const doc = docOf('ab\n\ncd😀\n😀x');
  const d = (startLine, startColumn, endLine, endColumn, severity = 'error') =>
    toLintDiagnostic(doc, { startLine, startColumn, endLine, endColumn, severity, message: 'm' });
  const span = (x) => [x.from, x.to, doc.sliceString(x.from, x.to)];
  assert.deepEqual(span(d(1, 1, 1, 3)), [0, 2, 'ab']);
  assert.deepEqual(span(d(1, 2, 1, 2)), [1, 2, 'b']); // empty: the next character
  assert.deepEqual(span(d(1, 3, 1, 3)), [1, 2, 'b']); // empty at the line end: the previous one
  // Offsets: line 1 `ab` 0..2, line 2 empty at 3, line 3 `cd😀` 4..8, line 4 `😀x` 9..12.
  assert.deepEqual(span(d(2, 1, 2, 1)), [3, 3, '']); // an empty line stays a point
  assert.deepEqual(span(d(3, 3, 3, 3)), [6, 8, '😀']); // never half a surrogate pair, forward
  assert.deepEqual(span(d(3, 5, 3, 5)), [6, 8, '😀']); // nor backward from the line end
  assert.deepEqual(span(d(4, 1, 4, 1)), [9, 11, '😀']);
  assert.deepEqual(span(d(3, 99, 3, 99)), [6, 8, '😀']); // clamped to the line end, widened back
  assert.deepEqual(span(d(0, -4, 1, 2)), [0, 1, 'a']); // clamped to line 1, column 1
  assert.deepEqual(span(d(9, 1, 12, 1)), [9, 11, '😀']); // clamped to the last line
  assert.deepEqual(span(d(1, 3, 1, 1)), [1, 2, 'b']); // an end before the start: empty, widened
  assert.equal(d(1, 1, 1, 2, 'warning').severity, 'warning');
  assert.equal(d(1, 1, 1, 2, 'bogus').severity, 'info');
  assert.equal(toLintDiagnostic(doc, { startLine: 1, startColumn: 1 }).message, '');
  assert.equal(clampPos(doc, NaN, 2), 1);
});

test('sharedEnds: common prefix and suffix, never overlapping, never half a surrogate pair', { skip }, async () => {
  const { sharedEnds } = await textModule();
  assert.deepEqual(sharedEnds('abc', 'abc'), { prefix: 3, suffix: 0 });
  assert.deepEqual(sharedEnds('abc', 'abXc'), { prefix: 2, suffix: 1 });
  assert.deepEqual(sharedEnds('', 'x'), { prefix: 0, suffix: 0 });
  assert.deepEqual(sharedEnds('aaaa', 'aa'), { prefix: 2, suffix: 0 });
  assert.deepEqual(sharedEnds('ab', 'b'), { prefix: 0, suffix: 1 });
  // 😀 and 😁 share their high half: the prefix stops before it, the suffix after the pair.
  assert.deepEqual(sharedEnds('x😀y', 'x😁y'), { prefix: 1, suffix: 1 });
  assert.deepEqual(sharedEnds('😀', '😀x'), { prefix: 2, suffix: 0 });
  assert.deepEqual(sharedEnds('a😀', 'b😀'), { prefix: 0, suffix: 2 });
  // Across the block size, with the difference at every offset near a block's edge.
  const big = 'line of text\n'.repeat(2000);
  for (const at of [0, 1, 4095, 4096, 4097, 8191, big.length - 4097, big.length - 1]) {
    const edited = big.slice(0, at) + 'XY' + big.slice(at + 1);
    const { prefix, suffix } = sharedEnds(big, edited);
    assert.equal(big.slice(0, prefix), edited.slice(0, prefix));
    assert.equal(big.slice(big.length - suffix), edited.slice(edited.length - suffix));
    assert.ok(prefix + suffix <= big.length && prefix + suffix <= edited.length);
    assert.equal(prefix, at + (big[at] === 'X' ? 1 : 0));
    assert.equal(prefix + suffix, big.length - 1, `at ${at}`);
  }
});

const getDoc = (page, name) => page.evaluate((n) => window.editors[n].getDoc(), name);
// After input events the editor may apply a change a moment later (DOM observation): wait
// (bounded) until the doc is `expected`, then assert, so a mismatch reports both texts.
async function expectDoc(page, name, expected) {
  await page
    .waitForFunction(([n, e]) => window.editors[n].getDoc() === e, [name, expected], { timeout: 5_000 })
    .catch(() => {});
  assert.equal(await getDoc(page, name), expected);
}
const changes = (page, name) => page.evaluate((n) => window.changes[n].slice(), name);

test('the bundle defines window.CrdlabEditor and an editor shows its doc with line numbers', { skip, timeout: 120_000 }, async () => {
  const { page, pageErrors } = await openDemo();
  assert.deepEqual(await page.evaluate(() => Object.keys(window.CrdlabEditor)), ['create']);
  const content = page.getByTestId('yaml-editor');
  assert.equal(await content.getAttribute('contenteditable'), 'true');
  assert.equal(await content.getAttribute('aria-label'), 'Object');
  assert.equal(await content.getAttribute('role'), 'textbox');
  const lines = await page.locator('#yaml .cm-line').allTextContents();
  assert.deepEqual(lines, [
    'apiVersion: test.example.com/v1',
    'kind: Gadget',
    'metadata:',
    '  name: g1',
    'spec:',
    '  replicas: "three"',
    '',
  ]);
  const numbers = await page.locator('#yaml .cm-lineNumbers .cm-gutterElement').allTextContents();
  for (const n of ['1', '2', '3', '4', '5', '6', '7']) assert.ok(numbers.includes(n), `line number ${n} in ${numbers}`);
  // YAML is highlighted: the key "kind" sits in a styled token span, not bare text.
  assert.ok(await page.locator('#yaml .cm-line span', { hasText: 'kind' }).count() > 0);
  // The single-line editor has no gutter at all.
  assert.equal(await page.locator('#cel .cm-gutters').count(), 0);
  assert.equal(await page.getByTestId('cel-editor').getAttribute('aria-multiline'), 'false');
  assert.deepEqual(await changes(page, 'yaml'), [], 'creating an editor reports no edit');
  assert.deepEqual(pageErrors, []);
  await page.close();
});

test('fill() and typing change the doc and call onChange with exactly the text', { skip, timeout: 120_000 }, async () => {
  const { page, pageErrors } = await openDemo();
  const yamlEditor = page.getByTestId('yaml-editor');

  const text = 'a:\n  b: [1, {c: "d"}]\n  e: (f)\n';
  await yamlEditor.fill(text);
  await expectDoc(page, 'yaml', text);
  assert.equal((await changes(page, 'yaml')).at(-1), text);

  // Typed key by key: no bracket or quote is inserted by the editor.
  await yamlEditor.click();
  await page.keyboard.press('Control+A');
  const typed = `{"k": [1, (2), {'x': "y"}]}`;
  await page.keyboard.type(typed);
  await expectDoc(page, 'yaml', typed);
  const seen = await changes(page, 'yaml');
  assert.equal(seen.at(-1), typed);
  // One onChange per keystroke, each a prefix of the typed text (the first replaces the selection).
  const tail = seen.slice(-typed.length);
  tail.forEach((doc, i) => assert.equal(doc, typed.slice(0, i + 1)));

  // Undo goes back through the typing and reports it as an edit too.
  await page.keyboard.press('Control+Z');
  await page.waitForFunction((t) => window.editors.yaml.getDoc() !== t, typed);
  assert.equal((await changes(page, 'yaml')).at(-1), await getDoc(page, 'yaml'));

  // setDoc replaces the content without calling onChange.
  const before = (await changes(page, 'yaml')).length;
  await page.evaluate(() => window.editors.yaml.setDoc('x: 1\ny: 2\n'));
  assert.equal(await getDoc(page, 'yaml'), 'x: 1\ny: 2\n');
  assert.deepEqual(await page.locator('#yaml .cm-line').allTextContents(), ['x: 1', 'y: 2', '']);
  assert.equal((await changes(page, 'yaml')).length, before);
  assert.deepEqual(pageErrors, []);
  await page.close();
});

// The playground reads a big CRD's edits this way: the changes, applied to the text before
// (UTF-16 positions, as JavaScript slices), give the text after, whatever made the edit.
test('onChanges reports each edit as its changes, which rebuild the text', { skip, timeout: 120_000 }, async () => {
  const { page, pageErrors } = await openDemo();
  await page.evaluate(() => {
    const host = document.createElement('div');
    document.body.append(host);
    window.deltas = [];
    let known = 'foo: 1\nfoo: 2\n';
    window.setKnown = (t) => { known = t; };
    window.deltaEditor = window.CrdlabEditor.create(host, {
      doc: known,
      language: 'yaml',
      testid: 'delta-editor',
      onChanges: (changes, length, doc) => {
        let rebuilt = '';
        let kept = 0;
        for (let i = 0; i < changes.length; i += 3) {
          rebuilt += known.slice(kept, changes[i]) + changes[i + 2];
          kept = changes[i + 1];
        }
        rebuilt += known.slice(kept);
        const whole = doc();
        window.deltas.push({ count: changes.length / 3, rebuilt: rebuilt === whole, length: length === whole.length, whole });
        known = whole;
      },
    });
  });
  const editor = page.getByTestId('delta-editor');
  await editor.click();
  await page.keyboard.press('Control+End');
  await page.keyboard.type('bar: ü😀');
  await page.keyboard.press('Backspace');
  // Tab over every line: one edit, a change per line.
  await page.keyboard.press('Control+a');
  await page.keyboard.press('Tab');
  await page.keyboard.press('Control+z');
  // A paste over a selection.
  await page.keyboard.press('Control+Home');
  await page.keyboard.press('Shift+ArrowDown');
  await editor.evaluate((el) => {
    const data = new DataTransfer();
    data.setData('text/plain', 'pasted:\n  - 😀 ✓\n');
    el.dispatchEvent(new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true }));
  });
  // setDoc reports nothing; edits after it are changes of the text it set.
  const before = await page.evaluate(() => window.deltas.length);
  await page.evaluate(() => { window.deltaEditor.setDoc('set: 1\n'); window.setKnown('set: 1\n'); });
  assert.equal(await page.evaluate(() => window.deltas.length), before);
  await page.keyboard.press('Control+End');
  await page.keyboard.type('z');
  const deltas = await page.evaluate(() => window.deltas);
  assert.ok(deltas.length >= 12, `${deltas.length} edits reported`);
  for (const d of deltas) assert.ok(d.rebuilt && d.length, JSON.stringify(d));
  assert.ok(deltas.some((d) => d.count >= 3), `an edit with a change per line: ${JSON.stringify(deltas.map((d) => d.count))}`);
  assert.equal(deltas.at(-1).whole, 'set: 1\nz');
  assert.deepEqual(pageErrors, []);
  await page.close();
});

test('pasting an edited copy over the whole document changes only what differs', { skip, timeout: 120_000 }, async () => {
  const { page, pageErrors } = await openDemo();
  const lines = Array.from({ length: 600 }, (_, i) => `key${i}: value ${i}`);
  const original = lines.join('\n') + '\n';
  await page.evaluate((t) => window.editors.yaml.setDoc(t), original);
  // Underlines on line 1 and line 600, both outside the edit.
  await page.evaluate(() =>
    window.editors.yaml.setDiagnostics([
      { startLine: 1, startColumn: 1, endLine: 1, endColumn: 5, severity: 'error', message: 'first' },
      { startLine: 600, startColumn: 1, endLine: 600, endColumn: 7, severity: 'warning', message: 'last' },
    ]),
  );
  const edited = original.replace('value 300', 'value three hundred');
  const before = (await changes(page, 'yaml')).length;
  // Select all and paste, as Ctrl+A, Ctrl+V do; read what the editor holds in the same task.
  const editor = page.getByTestId('yaml-editor');
  await editor.click();
  await page.keyboard.press('Control+A');
  const doc = await editor.evaluate((el, t) => {
    const data = new DataTransfer();
    data.setData('text/plain', t);
    el.dispatchEvent(new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true }));
    return window.editors.yaml.getDoc();
  }, edited);
  assert.equal(doc, edited);
  assert.equal((await changes(page, 'yaml')).at(-1), edited);
  assert.equal((await changes(page, 'yaml')).length, before + 1);
  // The underlines outside the change survived it (a whole replacement drops them).
  assert.deepEqual(await page.locator('#yaml .cm-lintRange-warning').allTextContents(), ['key599']);
  // The cursor ends after the pasted text, as for any paste.
  await page.keyboard.type('Z');
  await expectDoc(page, 'yaml', edited + 'Z');
  // Undo takes back the typing, then the paste in one step.
  await page.keyboard.press('Control+Z');
  await expectDoc(page, 'yaml', edited);
  await page.keyboard.press('Control+Z');
  await expectDoc(page, 'yaml', original);
  assert.deepEqual(pageErrors, []);
  await page.close();
});

test('"auto" switches between YAML and JSON as the first character changes', { skip, timeout: 120_000 }, async () => {
  const { page, pageErrors } = await openDemo();
  // Observable through the language's comment syntax: Ctrl-/ comments a YAML line with `#`,
  // and does nothing in JSON, which has no comments.
  const yamlEditor = page.getByTestId('yaml-editor');
  await page.evaluate(() => window.editors.yaml.setDoc('  {"a": 1}'));
  await yamlEditor.click();
  await page.keyboard.press('Control+/');
  assert.equal(await getDoc(page, 'yaml'), '  {"a": 1}');
  await yamlEditor.fill('a: 1');
  await expectDoc(page, 'yaml', 'a: 1');
  await page.keyboard.press('Control+/');
  await expectDoc(page, 'yaml', '# a: 1');
  await yamlEditor.fill('[1]');
  await expectDoc(page, 'yaml', '[1]');
  await page.keyboard.press('Control+/');
  assert.equal(await getDoc(page, 'yaml'), '[1]');
  assert.deepEqual(pageErrors, []);
  await page.close();
});

test('setDiagnostics underlines the given ranges, clamps and widens them, and the lint panel lists them', { skip, timeout: 120_000 }, async () => {
  const { page, pageErrors } = await openDemo();
  await page.evaluate(() =>
    window.editors.yaml.setDiagnostics([
      // line 6 is `  replicas: "three"`: columns 13..20 (end exclusive) are `"three"`.
      { startLine: 6, startColumn: 13, endLine: 6, endColumn: 20, severity: 'error', message: 'must be of type integer' },
      // An empty range in `  name: g1` before `g`: widened to `g`.
      { startLine: 4, startColumn: 9, endLine: 4, endColumn: 9, severity: 'warning', message: 'empty' },
      // Out of range columns on line 2 (`kind: Gadget`): clamped to the line, empty at its end, widened back to `t`.
      { startLine: 2, startColumn: 99, endLine: 2, endColumn: 120, severity: 'info', message: 'past the end' },
    ]),
  );
  const error = page.locator('#yaml .cm-lintRange-error');
  await error.first().waitFor({ state: 'visible' });
  assert.deepEqual(await error.allTextContents(), ['"three"']);
  assert.deepEqual(await page.locator('#yaml .cm-lintRange-warning').allTextContents(), ['g']);
  assert.deepEqual(await page.locator('#yaml .cm-lintRange-info').allTextContents(), ['t']);
  // The lint gutter marks the lines.
  assert.ok(await page.locator('#yaml .cm-lint-marker-error').count() >= 1);

  // Lines out of range clamp onto the last line instead of throwing.
  await page.evaluate(() =>
    window.editors.yaml.setDiagnostics([
      { startLine: 0, startColumn: 0, endLine: 1, endColumn: 5, severity: 'error', message: 'first' },
      { startLine: 500, startColumn: 1, endLine: 900, endColumn: 1, severity: 'error', message: 'last' },
    ]),
  );
  assert.deepEqual(await error.allTextContents(), ['apiV']);
  assert.equal(await page.locator('#yaml .cm-lintRange-warning').count(), 0);

  // Ctrl-Shift-M opens the lint panel (the screen-reader friendly list).
  await page.getByTestId('yaml-editor').click();
  await page.keyboard.press('Control+Shift+M');
  const panel = page.locator('#yaml .cm-panel.cm-panel-lint');
  await panel.waitFor({ state: 'visible' });
  assert.match(await panel.textContent(), /first/);

  // An empty list removes the underlines.
  await page.evaluate(() => window.editors.yaml.setDiagnostics([]));
  assert.equal(await page.locator('#yaml .cm-lintRange').count(), 0);
  assert.deepEqual(pageErrors, []);
  await page.close();
});

test('setTheme switches between the light and one-dark themes', { skip, timeout: 120_000 }, async () => {
  const { page, pageErrors } = await openDemo();
  const background = () => page.locator('#yaml .cm-editor').evaluate((e) => getComputedStyle(e).backgroundColor);
  const light = await background();
  await page.evaluate(() => window.editors.yaml.setTheme(true));
  assert.equal(await background(), 'rgb(40, 44, 52)'); // one-dark's #282c34
  await page.evaluate(() => window.editors.yaml.setTheme(false));
  assert.equal(await background(), light);
  assert.notEqual(light, 'rgb(40, 44, 52)');
  assert.deepEqual(pageErrors, []);
  await page.close();
});

test('a single-line editor refuses newlines and joins pasted lines', { skip, timeout: 120_000 }, async () => {
  const { page, pageErrors } = await openDemo();
  const cel = page.getByTestId('cel-editor');
  await cel.fill('self.a > 0');
  await expectDoc(page, 'cel', 'self.a > 0');
  await page.keyboard.press('End');
  await page.keyboard.press('Enter');
  await page.keyboard.type(' && true');
  await expectDoc(page, 'cel', 'self.a > 0 && true');
  assert.equal((await changes(page, 'cel')).at(-1), 'self.a > 0 && true');

  // Multi-line text (as a paste inserts it): lines joined with one space.
  await cel.fill('self.a > 0 &&\n    self.b < 3\n');
  await expectDoc(page, 'cel', 'self.a > 0 && self.b < 3');
  assert.equal((await changes(page, 'cel')).at(-1), 'self.a > 0 && self.b < 3');
  // Text arriving in pieces (as typed or inserted): a break after text still separates.
  await cel.fill('a');
  await expectDoc(page, 'cel', 'a');
  await page.keyboard.press('End');
  await page.keyboard.insertText('\nb');
  await expectDoc(page, 'cel', 'a b');
  await page.keyboard.insertText('\n');
  await expectDoc(page, 'cel', 'a b');

  const before = (await changes(page, 'cel')).length;
  await page.evaluate(() => window.editors.cel.setDoc('x\ny'));
  assert.equal(await getDoc(page, 'cel'), 'x y');
  assert.equal((await changes(page, 'cel')).length, before, 'setDoc is not reported');
  // Pushing the same multi-line text again changes nothing (not even the undo history).
  await page.evaluate(() => window.editors.cel.setDoc('x\ny'));
  await page.getByTestId('cel-editor').click();
  await page.keyboard.press('Control+Z');
  await expectDoc(page, 'cel', 'a b');
  assert.equal(await page.locator('#cel .cm-line').count(), 1);
  assert.deepEqual(pageErrors, []);
  await page.close();
});

test('Tab indents, Escape then Tab leaves the editor; revealLine moves the cursor', { skip, timeout: 120_000 }, async () => {
  const { page, pageErrors } = await openDemo();
  const yamlEditor = page.getByTestId('yaml-editor');
  await yamlEditor.fill('a:\nb');
  await expectDoc(page, 'yaml', 'a:\nb');
  await page.keyboard.press('Tab');
  await expectDoc(page, 'yaml', 'a:\n  b');
  const inYaml = () => page.evaluate(() => !!document.activeElement?.closest('#yaml'));
  assert.ok(await inYaml());
  await page.keyboard.press('Escape');
  await page.keyboard.press('Tab');
  assert.equal(await inYaml(), false, 'focus left the editor');
  assert.equal(await getDoc(page, 'yaml'), 'a:\n  b');

  await page.evaluate(() => window.editors.yaml.revealLine(2, 3));
  assert.ok(await inYaml());
  await page.keyboard.type('X');
  await expectDoc(page, 'yaml', 'a:\n  Xb'); // line 2, column 3 is before `b`

  // A single-line editor lets Tab move the focus straight away.
  await page.getByTestId('cel-editor').click();
  await page.keyboard.press('Tab');
  assert.equal(await page.evaluate(() => !!document.activeElement?.closest('#cel')), false);
  assert.deepEqual(pageErrors, []);
  await page.close();
});

test('a read-only editor ignores typing; Ctrl-F opens the search panel', { skip, timeout: 120_000 }, async () => {
  const { page, pageErrors } = await openDemo();
  await page.evaluate(() => {
    const div = document.createElement('div');
    div.id = 'ro';
    document.body.append(div);
    window.roChanges = [];
    window.ro = CrdlabEditor.create(div, {
      doc: 'kind: Fixed\n',
      language: 'yaml',
      testid: 'ro-editor',
      label: 'Read-only',
      dark: true,
      readOnly: true,
      onChange: (d) => window.roChanges.push(d),
    });
  });
  const ro = page.getByTestId('ro-editor');
  assert.equal(await ro.getAttribute('aria-readonly'), 'true');
  await ro.click();
  await page.keyboard.type('zz');
  await page.keyboard.press('Backspace');
  assert.equal(await page.evaluate(() => window.ro.getDoc()), 'kind: Fixed\n');
  assert.deepEqual(await page.evaluate(() => window.roChanges), []);
  // setDoc still works on it.
  await page.evaluate(() => window.ro.setDoc('kind: Other\n'));
  assert.equal(await page.evaluate(() => window.ro.getDoc()), 'kind: Other\n');

  await page.getByTestId('yaml-editor').click();
  await page.keyboard.press('Control+F');
  await page.locator('#yaml .cm-search input[name=search]').waitFor({ state: 'visible' });
  assert.deepEqual(pageErrors, []);
  await page.close();
});

test('CEL is highlighted and a destroyed editor leaves the page', { skip, timeout: 120_000 }, async () => {
  const { page, pageErrors } = await openDemo();
  // Token spans carry highlight classes: a string, a number and a keyword-like literal.
  const colorOf = (text) =>
    page.locator('#cel .cm-line span', { hasText: text }).first().evaluate((e) => getComputedStyle(e).color);
  const lineColor = await page.locator('#cel .cm-line').evaluate((e) => getComputedStyle(e).color);
  assert.notEqual(await colorOf("'g'"), lineColor);
  assert.notEqual(await colorOf('0x1Fu'), lineColor);
  assert.notEqual(await colorOf('2.5e3'), lineColor);

  await page.evaluate(() => window.editors.cel.destroy());
  assert.equal(await page.locator('#cel .cm-editor').count(), 0);
  assert.deepEqual(pageErrors, []);
  await page.close();
});

test('no request leaves 127.0.0.1', { skip, timeout: 30_000 }, () => {
  assert.ok(requests.length > 0, 'the other tests loaded pages');
  const foreign = requests.filter((u) => !u.startsWith(baseUrl));
  assert.deepEqual(foreign, []);
});
