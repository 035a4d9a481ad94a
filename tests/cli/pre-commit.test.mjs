// The pre-commit hooks of .pre-commit-hooks.yaml as pre-commit runs them: `crdlab validate`
// with the hook's args and the changed files, and scripts/pre-commit-crd-diff on a CRD
// whose staged change removes an enum value (breaking: exit 1) or adds a field (exit 0).
//
// Needs target/release/crdlab (cargo build --release) or CRDLAB_BIN.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync, execFileSync } from 'node:child_process';
import { root } from '../support/harness.mjs';
import { widgetsCrd } from '../support/widgets.mjs';

const bin = process.env.CRDLAB_BIN || path.join(root, 'target/release/crdlab');
const skip = !fs.existsSync(bin) && `no ${bin}: cargo build --release first`;

test('the hooks run crdlab on the changed files', { skip }, () => {
  const hooks = fs.readFileSync(path.join(root, '.pre-commit-hooks.yaml'), 'utf8');
  for (const id of ['crdlab-validate', 'crdlab-test', 'crdlab-diff']) assert.match(hooks, new RegExp(`- id: ${id}\\n`));
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'crdlab-hooks-'));
  const git = (...args) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd: dir, encoding: 'utf8' });
  git('init', '-q');
  const crd = widgetsCrd('self.replicas < 100', 'fewer than 100', '              mode: {type: string, enum: [fast, slow]}\n');
  fs.writeFileSync(path.join(dir, 'crd.yaml'), crd);
  fs.writeFileSync(path.join(dir, 'w.yaml'), 'apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\nspec: {replicas: 0}\n');
  git('add', '.');
  git('commit', '-qm', 'one');
  // crdlab-validate: entry + args + filenames.
  const v = spawnSync(bin, ['validate', '--crds', 'crd.yaml', 'w.yaml', 'crd.yaml'], { cwd: dir, encoding: 'utf8' });
  assert.equal(v.status, 1, v.stdout + v.stderr);
  assert.match(v.stdout, /spec\.replicas: Invalid value: 0/);
  // crdlab-diff: a staged change that removes an enum value is breaking.
  const script = path.join(root, 'scripts/pre-commit-crd-diff');
  const env = { ...process.env, CRDLAB: bin };
  fs.writeFileSync(path.join(dir, 'crd.yaml'), crd.replace('enum: [fast, slow]', 'enum: [fast]'));
  let d = spawnSync(script, ['crd.yaml', 'w.yaml'], { cwd: dir, encoding: 'utf8', env });
  assert.equal(d.status, 1, d.stdout + d.stderr);
  assert.match(d.stdout, /allowed enum values removed/);
  // Adding an optional field is not.
  fs.writeFileSync(path.join(dir, 'crd.yaml'), crd.replace('enum: [fast, slow]}', 'enum: [fast, slow]}\n              color: {type: string}'));
  d = spawnSync(script, ['crd.yaml'], { cwd: dir, encoding: 'utf8', env });
  assert.equal(d.status, 0, d.stdout + d.stderr);
  fs.rmSync(dir, { recursive: true, force: true });
});
