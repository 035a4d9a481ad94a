// `crdlab validate --crds` in CI formats: `-o sarif` against the SARIF 2.1.0 JSON schema (the
// one @microsoft/jest-sarif ships, schemastore's sarif-2.1.0-rtm.5, draft-04, read by
// ajv-draft-04), `-o github` as GitHub's runner reads workflow commands, `-o tap` and
// `-o junit` by tap-parser and junit2json.
//
// Needs target/release/crdlab (cargo build --release) or CRDLAB_BIN.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { Parser } from 'tap-parser';
import { parse as parseJunit } from 'junit2json';
import { root } from '../support/harness.mjs';
import { widgetsCrd } from '../support/widgets.mjs';

const require = createRequire(import.meta.url);
const Ajv04 = require('ajv-draft-04');
const bin = process.env.CRDLAB_BIN || path.join(root, 'target/release/crdlab');
const skip = !fs.existsSync(bin) && `no ${bin}: cargo build --release first`;

// The shared widgets CRD (replicas ≥ 1, required), with a mode enum.
const CRD = widgetsCrd('self.replicas < 100', 'fewer than 100', '              mode: {type: string, enum: [fast, slow]}\n');
// Two invalid fields, at lines 6 and 7 of the second document (lines 10 and 11 of the file).
const OBJECTS = `apiVersion: example.com/v1
kind: Widget
metadata: {name: ok}
spec: {replicas: 1}
---
apiVersion: example.com/v1
kind: Widget
metadata: {name: bad}
spec:
  replicas: 0
  mode: "turbo, fast"
  extra: 1
`;

function run(format) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'crdlab-ci-'));
  fs.writeFileSync(path.join(dir, 'crd.yaml'), CRD);
  fs.mkdirSync(path.join(dir, 'deploy'));
  fs.writeFileSync(path.join(dir, 'deploy', 'widgets.yaml'), OBJECTS);
  const r = spawnSync(bin, ['validate', '--crds', 'crd.yaml', 'deploy', '-o', format], { cwd: dir, encoding: 'utf8' });
  fs.rmSync(dir, { recursive: true, force: true });
  return r;
}

test('-o sarif is valid SARIF 2.1.0 with each error at its line', { skip }, () => {
  const r = run('sarif');
  assert.equal(r.status, 1, r.stderr);
  const log = JSON.parse(r.stdout);
  const schema = JSON.parse(fs.readFileSync(require.resolve('@microsoft/jest-sarif/lib/schemas/sarif-2.1.0-rtm.5.json'), 'utf8'));
  // The schema's own patterns are written for non-Unicode regexes.
  const ajv = new Ajv04({ strict: false, allErrors: true, unicodeRegExp: false });
  const validate = ajv.compile(schema);
  assert.ok(validate(log), JSON.stringify(validate.errors, null, 1));
  const results = log.runs[0].results;
  const errors = results.filter((x) => x.level === 'error');
  assert.deepEqual(
    errors.map((x) => [x.locations[0].physicalLocation.artifactLocation.uri, x.locations[0].physicalLocation.region.startLine]),
    [['deploy/widgets.yaml', 6], ['deploy/widgets.yaml', 10], ['deploy/widgets.yaml', 11]],
  );
  // The rule on spec did not run: the apiserver says so at the object.
  assert.match(errors[0].message.text, /some validation rules were not checked because the object was invalid/);
  assert.match(errors[1].message.text, /^The Widget.example.com "bad" is invalid: spec.replicas: Invalid value: 0: spec.replicas in body should be greater than or equal to 1$/);
  // The pruned field is a warning, as kubectl prints it.
  assert.ok(results.some((x) => x.level === 'warning' && /unknown field "spec.extra"/.test(x.message.text)), JSON.stringify(results));
});

test('-o github writes one annotation per finding, escaped as the runner reads them', { skip }, () => {
  const r = run('github');
  assert.equal(r.status, 1, r.stderr);
  const lines = r.stdout.split('\n').filter((l) => l.startsWith('::'));
  assert.equal(lines.length, 4, r.stdout);
  // In the file's line order: at the object (line 6) the unchecked rules and the pruned
  // field's warning, then lines 10 and 11.
  assert.match(lines[0], /^::error file=deploy\/widgets\.yaml,line=6,col=1,title=crdlab%3A Invalid value::.*some validation rules were not checked/);
  assert.match(lines[2], /^::error file=deploy\/widgets\.yaml,line=10,col=13,title=crdlab%3A Invalid value::The Widget\.example\.com "bad" is invalid: spec\.replicas: /);
  const m = /^::error file=deploy\/widgets\.yaml,line=11,col=(\d+),title=crdlab%3A Unsupported value::(.*)$/.exec(lines[3]);
  assert.ok(m, lines[3]);
  // A message's own `,` stays (only properties escape it); `%` would be %25.
  assert.match(m[2], /spec\.mode: Unsupported value: "turbo, fast": supported values: "fast", "slow"/);
  assert.match(lines[1], /^::warning file=deploy\/widgets\.yaml,line=6,col=1,title=crdlab%3A Warning::unknown field "spec\.extra"$/);
});

test('-o tap and -o junit give a case per object, read by tap-parser and junit2json', { skip }, async () => {
  const tap = run('tap');
  assert.equal(tap.status, 1, tap.stderr);
  const failures = [];
  const results = await new Promise((resolve) => {
    const p = new Parser((r) => resolve(r));
    p.on('assert', (a) => { if (!a.ok) failures.push(a); });
    p.end(tap.stdout);
  });
  assert.equal(results.count, 2);
  assert.equal(results.fail, 1);
  assert.equal(failures[0].diag.at.file, 'deploy/widgets.yaml');
  assert.equal(failures[0].diag.at.line, 6);
  assert.match(failures[0].diag.message, /^The Widget\.example\.com "bad" is invalid: spec\.mode: Unsupported value/);
  assert.match(failures[0].diag.details, /deploy\/widgets\.yaml:10:13: spec\.replicas: Invalid value: 0/);

  const junit = run('junit');
  assert.equal(junit.status, 1, junit.stderr);
  const doc = await parseJunit(junit.stdout);
  assert.equal(doc.tests, 2);
  assert.equal(doc.failures, 1);
  const failed = doc.testsuite[0].testcase.filter((c) => c.failure);
  assert.equal(failed[0].line, 6);
  assert.equal(failed[0].name, 'Widget bad (document 2)');
});
