// The npm package's `runSuite`: a CRD test suite (crdlab test's format) run in Node against
// a CRD given as text, answered with `crdlab test -o json`'s report. The etcd example suite
// passes on 1.30 and 1.37; an edited expectedError fails with the apiserver's message; bad
// input throws a clear JS Error and the module keeps working.
//
// Run from the repo root: node --test tests/npm/suite.test.mjs
// Env: CRDLAB_NPM_DIR (default target/npm), CRDLAB_BIN (default target/release/crdlab, for
// the comparison with `crdlab test -o json`; skipped when the binary is missing).

import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { importInstalled, root } from './load.mjs';

const dir = path.join(root, 'static', 'examples', 'etcd');
const SUITE = fs.readFileSync(path.join(dir, 'suite.yaml'), 'utf8');
const CRD = fs.readFileSync(path.join(dir, 'crd.yaml'), 'utf8');
const TEST_COUNT = (SUITE.match(/^  - name: /gm) || []).length;

let crdlab;

before(async () => {
  ({ esm: crdlab } = await importInstalled('nodejs'));
});

/** Every case's status on each release: `[[line, name, [status...]], ...]`. */
const statuses = (report) => report.suites[0].cases.map((c) => [c.line, c.name, c.results.map((r) => r.status)]);

test('the etcd example suite passes on 1.30 and on 1.37', () => {
  for (const v of ['1.30', '1.37']) {
    const r = crdlab.runSuite(SUITE, CRD, { kubernetesVersion: v });
    assert.deepEqual(r.kubernetesVersions, [v]);
    assert.equal(r.suites[0].error, null);
    assert.equal(r.summary.tests, TEST_COUNT);
    assert.equal(r.summary.failed, 0, JSON.stringify(r, null, 1));
    assert.equal(r.suites[0].name, 'Etcd');
    assert.ok(r.suites[0].cases.every((c) => c.passed && c.results[0].status === 'pass'));
    assert.equal(r.suites[0].cases[0].line, 9, 'the line of the first test in the suite');
  }
  const both = crdlab.runSuite(SUITE, CRD, { kubernetesVersions: ['1.37', '1.30'] });
  assert.deepEqual(both.kubernetesVersions, ['1.30', '1.37']);
  assert.ok(statuses(both).every(([, , s]) => s.join() === 'pass,pass'));
  // The suite holds on >=1.30: on 1.29 its tests are skipped, not failed.
  const old = crdlab.runSuite(SUITE, CRD, { kubernetesVersions: '1.29-1.30' });
  assert.ok(statuses(old).every(([, , s]) => s.join() === 'skip,pass'));
});

test('a changed expectedError fails with the apiserver\'s message', () => {
  const edited = SUITE.replace('Replicas can either be increased or be downscaled to 0', 'Replicas must never change');
  const r = crdlab.runSuite(edited, CRD, { kubernetesVersion: '1.37' });
  assert.equal(r.summary.failed, 1);
  const c = r.suites[0].cases.find((c) => !c.passed);
  assert.equal(c.name, 'Should not allow scaling down');
  assert.equal(c.kind, 'onUpdate');
  const f = c.results[0].failure;
  assert.equal(c.results[0].status, 'fail');
  assert.equal(f.expected, 'Replicas must never change');
  assert.match(f.actual, /^Etcd\.druid\.example\.com "test-\w+" is invalid: .*Replicas can either be increased or be downscaled to 0/);
  assert.ok(f.text.startsWith(`${f.step}: `));
});

test('the suite may carry its CRD inline under crd:', () => {
  // (A function as the replacement: the CRD's patterns hold `$'`, a replacement pattern.)
  const indented = CRD.split('\n').filter((l) => !l.startsWith('#') && l !== '---').map((l) => '  ' + l).join('\n');
  const inline = SUITE.replace(/^crd: crd\.yaml$/m, () => 'crd:\n' + indented);
  const r = crdlab.runSuite(inline);
  assert.equal(r.suites[0].error, null);
  assert.equal(r.summary.tests, TEST_COUNT);
  assert.equal(r.summary.failed, 0);
});

test('the CRD may be an object', (t) => {
  let YAML;
  try {
    YAML = createRequire(path.join(root, 'tests', 'package.json'))('yaml'); // yaml-language-server's
  } catch {
    return t.skip('the yaml package is not installed in tests/node_modules');
  }
  const r = crdlab.runSuite(SUITE, YAML.parse(CRD), { kubernetesVersion: '1.37' });
  assert.equal(r.summary.failed, 0);
  assert.equal(r.suites[0].cases[0].crdFile, 'crd.yaml', 'the file the suite names');
});

test('bad input throws a clear Error, and the module keeps working', () => {
  const cases = [
    [() => crdlab.runSuite(42, CRD), /^suite must be YAML text, not a number$/, 'suite'],
    [() => crdlab.runSuite('kind: Foo\n', CRD), /^not a test suite: /, 'suite'],
    [() => crdlab.runSuite('tests: [\n', CRD), /line/, 'suite'],
    [() => crdlab.runSuite(SUITE, 'a: [\n'), /./, 'crd'],
    [() => crdlab.runSuite(SUITE), /^no CRD: /, 'crd'],
    [() => crdlab.runSuite(SUITE, CRD, { kubernetesVersion: '1.2' }), /1\.2/, 'options'],
    [() => crdlab.runSuite(SUITE, CRD, { kubernetesVersions: [7] }), /^options: invalid type: floating point `7(\.0)?`, expected a string$/, 'options'],
    [() => crdlab.runSuite(SUITE, CRD, { kubernetesVersion: '1.30', kubernetesVersions: ['1.31'] }), /not both/, 'options'],
    [() => crdlab.runSuite(SUITE, CRD, 'fast'), /options must be an object/, 'options'],
  ];
  for (const [fn, pattern, input] of cases) {
    let thrown;
    try {
      fn();
    } catch (e) {
      thrown = e;
    }
    assert.ok(thrown instanceof Error, `throws an Error for ${fn}`);
    assert.ok(!(thrown instanceof WebAssembly.RuntimeError), 'not a trap');
    assert.notEqual(thrown.name, 'CrdlabInternalError');
    assert.match(thrown.message, pattern);
    assert.equal(thrown.input, input, thrown.message);
  }
  // A suite whose tests are nonsense still answers: each failure is in the report.
  const r = crdlab.runSuite('tests:\n  onCreate:\n  - name: x\n    initial: "kind: [1"\n', CRD);
  assert.equal(r.summary.failed, 1);
  assert.equal(crdlab.runSuite(SUITE, CRD).summary.failed, 0, 'the module still works');
});

test('the report is the one crdlab test -o json prints', (t) => {
  const bin = process.env.CRDLAB_BIN || path.join(root, 'target', 'release', 'crdlab');
  if (!fs.existsSync(bin)) return t.skip(`${bin} is missing`);
  const cli = spawnSync(bin, ['test', '-o', 'json', '--kubernetes-version', '1.30,1.37', path.join(dir, 'suite.yaml')], { encoding: 'utf8' });
  const want = JSON.parse(cli.stdout);
  const got = crdlab.runSuite(SUITE, CRD, { kubernetesVersions: ['1.30', '1.37'] });
  for (const r of [want, got]) {
    r.summary.seconds = 0;
    for (const s of r.suites) s.file = '';
  }
  assert.deepEqual(got, want);
});
