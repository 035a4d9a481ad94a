// The JSON Schemas of `crdlab schema` in a real consumer: ajv (draft-07, with ajv-formats)
// judges the object vectors of ../shared/vectors whose expected errors are all schema-keyword
// errors (phase `schema`; creates, not status updates: ratcheting and the status subresource
// are not JSON Schema's), and its verdict must equal the apiserver's on at least 99 % of them.
//
// The apiserver's verdict is taken as kubectl sends objects: with strict field validation
// (kubectl's default), so a vector that prunes unknown fields is a rejection, as the exported
// `additionalProperties: false` says.
//
// Needs target/release/crdlab (cargo build --release) or CRDLAB_BIN. Prints the mismatches
// by kind of disagreement, which is what the README's list of what JSON Schema cannot
// express is drawn from.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { root } from '../support/harness.mjs';

const require = createRequire(import.meta.url);
const Ajv = require('ajv');
const addFormats = require('ajv-formats');

const shared = path.resolve(root, '../shared');
const vectorsDir = path.join(shared, 'vectors');
const crdsDir = path.join(shared, 'crds');
const bin = process.env.CRDLAB_BIN || path.join(root, 'target/release/crdlab');

function* vectors() {
  for (const folder of fs.readdirSync(vectorsDir).sort()) {
    const dir = path.join(vectorsDir, folder);
    if (!fs.statSync(dir).isDirectory()) continue;
    for (const file of fs.readdirSync(dir).filter((f) => f.endsWith('.jsonl')).sort()) {
      for (const line of fs.readFileSync(path.join(dir, file), 'utf8').split('\n')) {
        if (line.trim()) yield JSON.parse(line);
      }
    }
  }
}

// The schemas of one CRD file, by `{kind}_{version}` (one `crdlab schema` run per file).
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'crdlab-schema-'));
const cache = new Map();
function schemasOf(crdFile, release) {
  const key = `${crdFile}@${release}`;
  if (cache.has(key)) return cache.get(key);
  const out = path.join(tmp, String(cache.size));
  let schemas = null;
  try {
    execFileSync(bin, ['schema', '--crds', path.join(crdsDir, crdFile), '-o', out, '--kubernetes-version', release], { stdio: 'pipe' });
    schemas = new Map();
    for (const f of fs.readdirSync(out)) {
      if (f !== 'catalog.json' && f.endsWith('.json')) schemas.set(f, JSON.parse(fs.readFileSync(path.join(out, f), 'utf8')));
    }
  } catch {
    schemas = null; // a CRD the apiserver refuses, or one crdlab cannot read: not this test's
  }
  cache.set(key, schemas);
  return schemas;
}

test('ajv agrees with the apiserver on the schema-keyword vectors', { skip: !fs.existsSync(bin) && `no ${bin}: cargo build --release first` }, () => {
  const ajv = new Ajv({ strict: false, allErrors: false, unicodeRegExp: true });
  addFormats(ajv);
  const compiled = new Map();
  let judged = 0;
  let agreed = 0;
  const disagreements = new Map();
  for (const v of vectors()) {
    const r = v.request;
    const e = v.expect;
    if (!r.object || r.oldObject || r.subresource || !r.crdFile || e.error) continue;
    if (!(e.errors || []).every((x) => x.phase === 'schema')) continue;
    // The batch protocol's default release is 1.36 (vector-format.md).
    const release = r.kubernetesVersion || '1.36';
    const schemas = schemasOf(r.crdFile, release);
    const kind = r.object?.kind;
    if (!schemas || typeof kind !== 'string' || !r.version) continue;
    const name = `${kind.toLowerCase()}_${r.version.toLowerCase()}.json`;
    const schema = schemas.get(name);
    if (!schema) continue;
    const key = `${r.crdFile}@${release}#${name}`;
    if (!compiled.has(key)) compiled.set(key, ajv.compile(schema));
    const validate = compiled.get(key);
    const ours = validate(r.object);
    const theirs = (e.errors || []).length === 0 && (e.unknownFields || []).length === 0;
    judged++;
    if (ours === theirs) {
      agreed++;
    } else {
      const why = ours
        ? `apiserver rejects, ajv accepts: ${(e.errors[0]?.type || 'unknown field')}`
        : `apiserver accepts, ajv rejects: ${validate.errors?.[0]?.keyword}`;
      const list = disagreements.get(why) || [];
      list.push(`${v.id}: ${ours ? e.errors[0]?.message || e.unknownFields?.[0] : JSON.stringify(validate.errors?.[0])}`);
      disagreements.set(why, list);
    }
  }
  const share = agreed / judged;
  console.log(`ajv agrees with the apiserver on ${agreed} of ${judged} schema-keyword vectors (${(100 * share).toFixed(2)} %), ${cache.size} CRD files`);
  for (const [why, list] of [...disagreements].sort((a, b) => b[1].length - a[1].length)) {
    console.log(`  ${list.length} × ${why}`);
    for (const x of list.slice(0, 3)) console.log(`      ${x.slice(0, 300)}`);
  }
  assert.ok(judged > 5000, `only ${judged} vectors judged`);
  assert.ok(share >= 0.99, `ajv agrees on ${(100 * share).toFixed(2)} % only`);
  fs.rmSync(tmp, { recursive: true, force: true });
});
