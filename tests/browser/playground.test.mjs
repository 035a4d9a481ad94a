// End-to-end tests of the playground (dist/ from `trunk build --release`, served on
// 127.0.0.1, driven in headless Debian Chromium through playwright-core): every example shows
// the apiserver messages its manifest expects, rule edits re-judge the object, the old object
// makes transition rules fire, share links restore the state, and no request leaves the page.
// Screenshots of every example go to target/screenshots/ (docs/playground.png is one of them).
//
// Run from the repo root: node --test tests/browser/

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { launch, openPlayground, setEditor, root, WAIT } from './lib.mjs';

const examples = JSON.parse(fs.readFileSync(path.join(root, 'static/examples/index.json'), 'utf8'));
const shots = path.join(root, 'target', 'screenshots');

let env;
before(async () => {
  env = await launch();
  fs.mkdirSync(shots, { recursive: true });
});
after(async () => env?.close());

const results = (page) => page.getByTestId('results');

// Waits until the results pane's text satisfies `pred` (a function of the text).
async function waitForResults(page, pred, what) {
  const deadline = Date.now() + WAIT;
  let text = '';
  while (Date.now() < deadline) {
    text = (await results(page).textContent()) ?? '';
    if (pred(text)) return text;
    await page.waitForTimeout(50);
  }
  assert.fail(`results never showed ${what}; they show:\n${text}`);
}

function assertLocal(requests, baseUrl) {
  const outside = requests.filter((u) => !u.startsWith(baseUrl) && !u.startsWith('data:') && !u.startsWith('blob:'));
  assert.deepEqual(outside, [], 'requests left 127.0.0.1');
}

test('every example shows the errors and costs its manifest expects', { timeout: 300_000 }, async () => {
  const { page, pageErrors, requests } = await openPlayground(env.context, env.baseUrl);
  const loaded = requests.length;
  for (const ex of examples) {
    await page.getByTestId('example-picker').selectOption(ex.id);
    const expect = ex.expect;
    const all = [...expect.crdErrors, ...expect.errors, ...(expect.warnings || [])];
    const text = await waitForResults(page, (t) => all.every((m) => t.includes(m)), `the messages of ${ex.id}`);
    for (const m of all) assert.ok(text.includes(m), `${ex.id}: missing ${m}`);
    // The error list holds exactly the expected object errors.
    const listed = await page.locator('[data-testid=results] ul.messages li.error .message').allTextContents();
    assert.deepEqual([...listed].sort(), [...expect.errors].sort(), `${ex.id}: error list`);
    // kubectl's summary names the verdict.
    const summary = await page.getByTestId('summary').textContent();
    if (expect.crdErrors.length) assert.match(summary, /The CustomResourceDefinition ".*" is invalid/);
    else if (expect.errors.length) assert.match(summary, /is invalid/);
    else assert.match(summary, / (created|configured)/);
    await page.screenshot({ path: path.join(shots, `${ex.id}.png`) });

    if ((expect.ruleCosts || []).length) {
      await page.getByTestId('tab-rules').click();
      await page.getByTestId('rules').waitFor();
      for (const rc of expect.ruleCosts) {
        const card = page.locator(`[data-testid=rule][data-schema-path="${rc.schemaPath}"]`);
        await card.waitFor();
        const cost = await card.getByTestId('rule-cost').textContent();
        const shown = /estimated cost ([\d,]+) of 10,000,000/.exec(cost);
        assert.ok(shown, `${ex.id} ${rc.rule}: ${cost}`);
        // Compared as JS numbers: a saturated cost (2^64-1) is rounded the same way on both sides.
        assert.equal(Number(shown[1].replace(/,/g, '')), rc.estimatedCost, `${ex.id} ${rc.rule}: ${cost}`);
      }
      // Answers outside the rules pane leave the rules out and say how many there are: the
      // tab's count covers every version, the pane lists the chosen one's.
      const cards = await page.locator('[data-testid=rule]').count();
      const label = /Rules \((\d+)\)/.exec(await page.getByTestId('tab-rules').textContent());
      assert.ok(label && cards > 0 && Number(label[1]) >= cards, `${ex.id}: tab ${label?.[0]}, ${cards} rule cards`);
      await page.screenshot({ path: path.join(shots, `${ex.id}-rules.png`) });
      await page.getByTestId('tab-results').click();
    }
  }
  assert.equal(requests.length, loaded, `requests after load: ${requests.slice(loaded).join(', ')}`);
  assertLocal(requests, env.baseUrl);
  assert.deepEqual(pageErrors, []);
  await page.close();
});

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
            x-kubernetes-validations:
            - rule: self.replicas <= 5
              message: at most five
            properties:
              replicas: {type: integer, minimum: 1}
              mode:
                type: string
                x-kubernetes-validations:
                - rule: self == oldSelf
                  message: mode is immutable
              items:
                type: array
                items: {type: string}
                x-kubernetes-validations:
                - rule: self.all(a, self.all(b, a.size() + b.size() < 100))
`;

const object = (replicas, mode = 'fast') => `apiVersion: test.example.com/v1
kind: Gadget
metadata: {name: g1, namespace: default}
spec:
  replicas: ${replicas}
  mode: ${mode}
`;

test('typing, rule edits, transition rules, fixes and bad input', { timeout: 240_000 }, async () => {
  const { page, pageErrors, requests } = await openPlayground(env.context, env.baseUrl);
  const loaded = requests.length;
  await setEditor(page, 'crd-editor', CRD);
  await setEditor(page, 'object-editor', object(3));
  await waitForResults(page, (t) => t.includes('gadget.test.example.com/g1 created'), 'the create');

  // A person's typing: a schema error appears at once.
  await page.getByTestId('object-editor').click();
  await page.keyboard.press('Control+End');
  await page.keyboard.type('  bogus: 1\n');
  await waitForResults(page, (t) => t.includes('Warning: unknown field "spec.bogus"'), 'the pruned field');
  await setEditor(page, 'object-editor', object(0));
  await waitForResults(page, (t) => t.includes('spec.replicas: Invalid value: 0: spec.replicas in body should be greater than or equal to 1'), 'the minimum');
  // The error is underlined in the editor.
  await page.locator('[data-testid=object-editor] .cm-lintRange-error').first().waitFor();

  // A rule over its limit: fix it in one click, the CRD text gains the bound.
  await page.keyboard.press('Alt+Shift+5');
  await page.getByTestId('rules').waitFor();
  const costly = page.locator('[data-testid=rule][data-schema-path$="properties[items].x-kubernetes-validations[0]"]');
  await costly.getByTestId('apply-fix').first().waitFor();
  const fixText = await costly.getByTestId('apply-fix').first().textContent();
  assert.match(fixText, /apply maxItems: \d+ at spec\.items|apply maxLength: \d+ at spec\.items\[\*\]/);
  await costly.getByTestId('apply-fix').first().click();
  await page.waitForFunction(() => !document.querySelector('[data-testid=apply-fix]'), null, { timeout: WAIT });
  const crdText = await page.getByTestId('crd-editor').innerText();
  assert.match(crdText, /max(Items|Length): \d+/);

  // Edit a rule in the rules panel: the object's verdict changes.
  await setEditor(page, 'object-editor', object(4));
  await page.keyboard.press('Alt+Shift+4');
  await waitForResults(page, (t) => t.includes('gadget.test.example.com/g1 created'), 'valid with 4');
  await page.keyboard.press('Alt+Shift+5');
  const first = page.locator('[data-testid=rule]').first();
  await first.getByTestId('rule-text').fill('self.replicas <= 3');
  await page.waitForFunction(() => document.querySelector('[data-testid=crd-editor]')?.innerText.includes('self.replicas <= 3'), null, { timeout: WAIT });
  await page.keyboard.press('Alt+Shift+4');
  await waitForResults(page, (t) => t.includes('spec: Invalid value: at most five'), 'the edited rule failing');
  // A compile error shows on the rule.
  await page.keyboard.press('Alt+Shift+5');
  await first.getByTestId('rule-text').fill('self.replicas <= "x"');
  await first.getByTestId('rule-error').waitFor();
  assert.match(await first.getByTestId('rule-error').textContent(), /found no matching overload for '_<=_' applied to '\(int, string\)'/);
  await first.getByTestId('rule-text').fill('self.replicas <= 5');
  await page.keyboard.press('Alt+Shift+4');

  // The old object makes it an update: the transition rule fires.
  await page.getByTestId('old-object-toggle').check();
  await setEditor(page, 'old-object-editor', object(4, 'slow'));
  await waitForResults(page, (t) => t.includes('spec.mode: Invalid value: "fast": mode is immutable'), 'the transition rule');
  await page.getByTestId('old-object-toggle').uncheck();
  await waitForResults(page, (t) => !t.includes('mode is immutable'), 'the create again');

  // Bad input: a clear error with its place, no crash.
  await setEditor(page, 'object-editor', 'spec: [1, 2\n');
  await waitForResults(page, (t) => /Object: cannot read object: .*line 2/.test(t) || /cannot read object/.test(t), 'the read error');
  await setEditor(page, 'crd-editor', 'kind: [');
  await waitForResults(page, (t) => t.includes('error: '), 'the CRD read error');

  // Theme switch.
  const before = await page.evaluate(() => document.body.dataset.theme);
  await page.getByTestId('theme').click();
  assert.notEqual(await page.evaluate(() => document.body.dataset.theme), before);

  assert.equal(requests.length, loaded, `requests after load: ${requests.slice(loaded).join(', ')}`);
  assertLocal(requests, env.baseUrl);
  assert.deepEqual(pageErrors, []);
  await page.close();
});

// A rule edit is answered with the CRD text the engine made; a job asked while it was in the
// worker (an object edit here; the rules tab's version matrix, on its timer, in the test
// above) was asked with the text from before the edit. That job goes with the edited text:
// sent as asked, it put the old rule back in the engine while the editor showed the new one,
// and every answer after it judged by the old rule.
async function ruleEditWithAJobBehind(context, baseUrl, engine) {
  const { page, pageErrors } = await openPlayground(context, baseUrl);
  await page.waitForFunction((e) => document.body.dataset.engine === e, engine);
  await setEditor(page, 'crd-editor', CRD);
  await setEditor(page, 'object-editor', object(4));
  await waitForResults(page, (t) => t.includes('gadget.test.example.com/g1 created'), 'valid with 4');
  await page.keyboard.press('Alt+Shift+5');
  const rule = page.locator('[data-testid=rule]').first().getByTestId('rule-text');
  await rule.waitFor();
  await page.getByTestId('object-editor').click();
  await page.keyboard.press('Control+End');
  // Both in one task: the rule edit goes to the idle worker, the object edit (typed into
  // the focused editor) waits for it.
  await page.evaluate(() => {
    const text = document.querySelector('[data-testid=rule] [data-testid=rule-text]');
    text.value = 'self.replicas <= 3';
    text.dispatchEvent(new Event('input', { bubbles: true }));
    document.execCommand('insertText', false, '# edited while the rule edit was in the worker\n');
  });
  await page.waitForFunction(() => document.querySelector('[data-testid=crd-editor]')?.innerText.includes('self.replicas <= 3'), null, { timeout: WAIT });
  await page.keyboard.press('Alt+Shift+4');
  await waitForResults(page, (t) => t.includes('spec: Invalid value: at most five'), 'the edited rule failing');
  // And the engine holds the edited text for the edits after it.
  await page.getByTestId('object-editor').click();
  await page.keyboard.press('Control+End');
  await page.keyboard.type('  bogus: 1\n');
  await waitForResults(page, (t) => t.includes('Warning: unknown field "spec.bogus"') && t.includes('spec: Invalid value: at most five'), 'the edited rule failing after another edit');
  assert.deepEqual(pageErrors, []);
  await page.close();
}

test('a job asked while a rule edit is in the worker keeps the edit', { timeout: 120_000 }, async () => {
  await ruleEditWithAJobBehind(env.context, env.baseUrl, 'worker');
});

// Without workers the engine runs on the page's thread, one job after another as in the
// worker: the same race, the same answer.
test("without a worker, the engine on the page's thread keeps a rule edit too", { timeout: 120_000 }, async () => {
  const plain = await launch();
  try {
    await plain.context.addInitScript(() => {
      window.Worker = undefined;
    });
    await ruleEditWithAJobBehind(plain.context, plain.baseUrl, 'page');
  } finally {
    await plain.close();
  }
});

test('large texts with characters beyond ASCII reach the engine intact', { timeout: 120_000 }, async () => {
  // Over 16 KiB, the page and the engine worker read texts through TextEncoder.encodeInto
  // (web/src/main.rs js_text), in more than one step when the text is not ASCII.
  const long = 'Beschreibung mit Umlauten äöü und 😀 '.repeat(800);
  // The gadgets CRD with a long description before a rule on a value beyond ASCII.
  const withRule = CRD.replace(
    '                - rule: self == oldSelf\n',
    "                - rule: self != 'löschen😀'\n                  message: mode löschen😀 is forbidden\n                - rule: self == oldSelf\n",
  );
  const crd = withRule.replace('        type: object\n        properties:\n', `        type: object\n        description: "${long}"\n        properties:\n`);
  const obj = object(3, 'löschen😀').replace('metadata: {name: g1, namespace: default}', `metadata: {name: g1, namespace: default, annotations: {note: "${long}"}}`);
  assert.ok(withRule !== CRD && crd !== withRule && obj.includes(long));
  assert.ok(crd.length > 20_000 && obj.length > 20_000);
  const { page, pageErrors } = await openPlayground(env.context, env.baseUrl);
  await setEditor(page, 'crd-editor', crd);
  await setEditor(page, 'object-editor', obj);
  await waitForResults(page, (t) => t.includes('spec.mode: Invalid value: "löschen😀": mode löschen😀 is forbidden'), 'the rule on the non-ASCII value');
  assert.deepEqual(pageErrors, []);
  await page.close();
});

test('a share link restores the whole state', { timeout: 120_000 }, async () => {
  const { page, requests } = await openPlayground(env.context, env.baseUrl);
  await setEditor(page, 'crd-editor', CRD);
  await setEditor(page, 'object-editor', object(9));
  await page.getByTestId('k8s-version').selectOption('1.30');
  await waitForResults(page, (t) => t.includes('at most five'), 'the rule failing');
  // Counted from the click: a resource the page loads late (CI once saw a seventh request
  // before the click) is not the share's.
  const loaded = requests.length;
  await page.getByTestId('share').click();
  const url = await page.getByTestId('share-url').inputValue();
  assert.ok(url.startsWith(env.baseUrl + '#s=1.'), url);
  assert.equal(requests.length, loaded, 'sharing sends nothing');
  await page.close();

  const { page: p2, pageErrors, requests: r2 } = await openPlayground(env.context, env.baseUrl, url.slice(env.baseUrl.length));
  await waitForResults(p2, (t) => t.includes('spec: Invalid value: "object": at most five'), 'the restored state (1.30 prints the type)');
  assert.equal(await p2.getByTestId('k8s-version').inputValue(), '1.30');
  assert.ok((await p2.getByTestId('crd-editor').innerText()).includes('gadgets.test.example.com'));
  assertLocal(r2, env.baseUrl);
  assert.deepEqual(pageErrors, []);
  await p2.close();

  // A damaged link: a notice, and the page still works.
  const { page: p3 } = await openPlayground(env.context, env.baseUrl, '#s=1.AAAA');
  assert.match(await p3.getByTestId('notice').textContent(), /cannot open the shared link/);
  await p3.close();
});

test('the diff tab shows findings per field', { timeout: 120_000 }, async () => {
  const { page, pageErrors, requests } = await openPlayground(env.context, env.baseUrl);
  const loaded = requests.length;
  await setEditor(page, 'crd-editor', CRD);
  await setEditor(page, 'object-editor', object(4));
  await page.keyboard.press('Alt+Shift+6');
  await page.getByTestId('diff').waitFor();
  await page.getByTestId('diff-copy').click();
  await page.getByTestId('diff-summary').waitFor();
  assert.match(await page.getByTestId('diff-summary').textContent(), /No findings/);
  // Tighten the bound and the rule in the new CRD: both break existing objects.
  await setEditor(page, 'crd-editor', CRD.replace('minimum: 1}', 'minimum: 1, maximum: 3}').replace('self.replicas <= 5', 'self.replicas <= 2'));
  await page.waitForFunction(() => /Breaking/.test(document.querySelector('[data-testid=diff-summary]')?.textContent || ''), null, { timeout: WAIT });
  const groups = await page.locator('.finding-group').evaluateAll((els) => els.map((e) => e.dataset.field));
  assert.ok(groups.includes('^.spec.replicas'), groups.join(', '));
  const checks = await page.getByTestId('finding').evaluateAll((els) => els.map((e) => e.dataset.check));
  assert.ok(checks.includes('maximum'), checks.join(', '));
  const text = await page.getByTestId('diff').textContent();
  assert.match(text, /self\.replicas <= 2/);
  assert.equal(requests.length, loaded);
  assert.deepEqual(pageErrors, []);
  await page.close();
});

test('the ratcheting toggle follows the Kubernetes version until it is clicked', { timeout: 120_000 }, async () => {
  const { page, pageErrors } = await openPlayground(env.context, env.baseUrl);
  // The PGO example's update leaves an invalid field unchanged: 1.37 lets it through.
  await page.getByTestId('example-picker').selectOption('pgo');
  const warning = 'syncPeriodSeconds (40) must be less than leaderLeaseDurationSeconds (30)';
  await waitForResults(page, (t) => t.includes('Let through by ratcheting') && t.includes(warning), 'the ratcheted rule on 1.37');
  const toggle = page.getByTestId('ratcheting');
  assert.equal(await toggle.isChecked(), true);
  // 1.29 has ratcheting only behind a feature gate, off by default: the failure is an error.
  // The CRD write would reject the messageExpression (format() is new for rules in 1.30), but
  // objects are checked in the stored-expressions environment, which has 1.29's format().
  await page.getByTestId('k8s-version').selectOption('1.29');
  const failure = `spec.patroni: Invalid value: "object": ${warning}`;
  await waitForResults(page, (t) => !t.includes('Let through by ratcheting') && t.includes(failure), 'the rule failing on 1.29');
  assert.equal(await toggle.isChecked(), false);
  assert.equal(await toggle.isDisabled(), false);
  // Turning the gate on ratchets again; before 1.28 the toggle cannot be used.
  await toggle.check();
  await waitForResults(page, (t) => t.includes('Let through by ratcheting'), 'the gate turned on');
  await page.getByTestId('k8s-version').selectOption('1.27');
  await waitForResults(page, (t) => !t.includes('Let through by ratcheting'), 'no ratcheting on 1.27');
  assert.equal(await toggle.isDisabled(), true);
  assert.deepEqual(pageErrors, []);
  await page.close();
});

test('several releases: a verdict per release and what differs', { timeout: 120_000 }, async () => {
  const { page, pageErrors } = await openPlayground(env.context, env.baseUrl);
  // ip() is new for rules in 1.31; 1.32 rewords Too long.
  const crd = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: gadgets.test.example.com}
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
              name: {type: string, maxLength: 5}
              addr:
                type: string
                maxLength: 64
                x-kubernetes-validations:
                - rule: ip(self).family() == 4
`;
  await setEditor(page, 'crd-editor', crd);
  await setEditor(page, 'object-editor', 'apiVersion: test.example.com/v1\nkind: Gadget\nmetadata: {name: g1, namespace: default}\nspec:\n  name: toolong\n  addr: 10.0.0.1\n');
  await waitForResults(page, (t) => t.includes('spec.name: Too long: may not be more than 5 bytes'), 'the 1.37 answer');
  assert.equal(await page.getByTestId('releases').count(), 0, 'one release: no comparison');
  await page.getByTestId('k8s-compare').locator('summary').click();
  assert.equal(await page.getByTestId('k8s-compare-1.37').isChecked(), true);
  assert.equal(await page.getByTestId('k8s-compare-1.37').isDisabled(), true, 'the target release stays selected');
  await page.getByTestId('k8s-compare-1.29').check();
  const block = page.getByTestId('releases');
  await block.waitFor({ state: 'visible', timeout: WAIT });
  const verdicts = await block.locator('.verdicts li').allTextContents();
  assert.deepEqual(verdicts, ['1.29: CRD rejected (1 error), object invalid (2 errors)', '1.37: CRD accepted, object invalid (2 errors)']);
  const differs = await block.locator('.differs li').allTextContents();
  assert.ok(differs.includes('1.29: invalid: spec.name: Too long: may not be longer than 5'), differs.join('\n'));
  assert.ok(differs.includes('1.37: invalid: spec.name: Too long: may not be more than 5 bytes'), differs.join('\n'));
  assert.ok(differs.some((d) => d.startsWith("1.29: CRD error: ") && d.includes("undeclared reference to 'ip'")), differs.join('\n'));
  // The summary and the panes still show the target release.
  assert.match(await page.getByTestId('summary').textContent(), /The Gadget "g1" is invalid/);
  assert.match(await page.getByTestId('k8s-compare').locator('summary').textContent(), /\+ 1\.29/);
  // A share link keeps the selection.
  await page.getByTestId('share').click();
  const url = await page.getByTestId('share-url').inputValue();
  const { page: p2 } = await openPlayground(env.context, env.baseUrl, url.slice(env.baseUrl.length));
  await p2.getByTestId('releases').waitFor({ state: 'visible', timeout: WAIT });
  assert.equal((await p2.getByTestId('releases').locator('.verdicts li').allTextContents()).length, 2);
  await p2.close();
  await page.getByTestId('k8s-compare-1.29').uncheck();
  await block.waitFor({ state: 'detached', timeout: WAIT });
  assert.deepEqual(pageErrors, []);
  await page.close();
});
