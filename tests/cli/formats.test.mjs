// `crdlab test -o tap` and `-o junit`, read by real parsers (tap-parser, junit2json):
// the example etcd suite with one test broken on purpose, so both a pass and a failure
// (with its file and line) go through each format.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync, copyFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Parser } from 'tap-parser';
import { parse as parseJunit } from 'junit2json';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
// The binary `cargo test --release` built (CRDLAB names another).
const bin = process.env.CRDLAB ?? join(process.env.CARGO_TARGET_DIR ?? join(repo, 'target'), 'release', 'crdlab');

function fixture() {
  const dir = mkdtempSync(join(tmpdir(), 'crdlab-cli-'));
  copyFileSync(join(repo, 'static/examples/etcd/crd.yaml'), join(dir, 'crd.yaml'));
  const suite = readFileSync(join(repo, 'static/examples/etcd/suite.yaml'), 'utf8')
    .replace('expectedError: "etcd.spec.storageClass is an immutable field"', 'expectedError: "no such text"');
  writeFileSync(join(dir, 'suite.yaml'), suite);
  return dir;
}

function run(dir, format) {
  const r = spawnSync(bin, ['test', '--kubernetes-version', '1.32', '-o', format, 'suite.yaml'], { cwd: dir, encoding: 'utf8' });
  assert.equal(r.status, 1, r.stderr);
  return r.stdout;
}

test('TAP output is TAP a parser reads', async () => {
  const out = run(fixture(), 'tap');
  const failures = [];
  const done = new Promise((resolve) => {
    const p = new Parser((results) => resolve(results));
    p.on('assert', (a) => { if (!a.ok) failures.push(a); });
    p.end(out);
  });
  const results = await done;
  assert.equal(results.ok, false);
  assert.equal(results.count, 6);
  assert.equal(results.pass, 5);
  assert.equal(results.fail, 1);
  assert.equal(failures.length, 1);
  assert.match(failures[0].name, /onUpdate: Should not allow changing the storage class$/);
  assert.equal(failures[0].diag.at.file, 'suite.yaml');
  assert.equal(failures[0].diag.at.line, 67);
  assert.match(failures[0].diag.details, /actual: +Etcd\.druid\.example\.com "test-bcdfg" is invalid: .*immutable field/);
});

test('JUnit output is XML a JUnit parser reads', async () => {
  const out = run(fixture(), 'junit');
  const doc = await parseJunit(out);
  assert.equal(doc.tests, 6);
  assert.equal(doc.failures, 1);
  const suite = doc.testsuite[0];
  assert.equal(suite.name, 'Etcd (suite.yaml)');
  const failed = suite.testcase.filter((c) => c.failure);
  assert.equal(failed.length, 1);
  assert.equal(failed[0].file, 'suite.yaml');
  assert.equal(failed[0].line, 67);
  assert.match(failed[0].failure[0].inner, /expected: no such text/);
});
