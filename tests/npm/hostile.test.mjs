// The hostile-input catalogue (issue 16, item 4) in WebAssembly: every entry of
// engine/tests/data/hostile/catalogue.json through the nodejs build of the npm package,
// imported as a user does. Each entry must not trap (no WebAssembly.RuntimeError), must end in
// its error class or answer, and the catalogue's followUp requests (the widgets CRD compiled,
// a valid and an invalid object validated, `1 + 1`) must then get their exact answers from
// the same module. engine/tests/hostile.rs runs the same file natively (with time and memory
// figures); `expand`, `facts` and `matches` here are the twins of its functions, and both
// compare the SHA-256 of each expanded input with engine/tests/data/hostile/expanded.sha256.
//
// Prints ms per entry and the wasm memory after the run (also written to
// target/hostile-wasm-figures.txt).
//
// Run from the repo root: node --test tests/npm/   (after engine/npm/build.sh target/npm)
// Env: CRDLAB_NPM_DIR (default target/npm); CRDLAB_CATALOGUE_ONLY=id,id runs only those.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { importInstalled, root } from './load.mjs';

// The package instantiates its module itself; remember the instance to read its memory.
const instances = [];
const Instance = WebAssembly.Instance;
WebAssembly.Instance = new Proxy(Instance, {
  construct(target, args) {
    const instance = Reflect.construct(target, args);
    instances.push(instance);
    return instance;
  },
});

const dir = path.join(root, 'engine/tests/data/hostile');
const catalogue = JSON.parse(fs.readFileSync(path.join(dir, 'catalogue.json'), 'utf8'));
const defs = catalogue.defs || {};

// ------------------------------------------------------------------------------------------
// The generator vocabulary (engine/tests/hostile.rs `expand`).

function text(g, v) {
  if (typeof v !== 'string') throw new Error(`${g}: expected a string, got ${JSON.stringify(v)}`);
  return v;
}

function expand(v) {
  if (Array.isArray(v)) return v.map(expand);
  if (v === null || typeof v !== 'object') return v;
  const g = Object.keys(v).find((k) => k.startsWith('$'));
  if (g === undefined) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, expand(x)]));
  const arg = expand(v[g]);
  const param = (k) => {
    if (!(k in v)) throw new Error(`${g}: missing ${k}`);
    return expand(v[k]);
  };
  switch (g) {
    case '$ref':
      if (!(arg in defs)) throw new Error(`$ref: no def ${arg}`);
      return expand(defs[arg]);
    case '$lines':
      return arg.map((l) => text(g, l) + '\n').join('');
    case '$concat':
      return arg.map((p) => text(g, p)).join('');
    case '$repeat': {
      const unit = text(g, arg);
      const times = param('times');
      const sep = 'sep' in v ? text(g, expand(v.sep)) : '';
      const marker = 'index' in v ? text(g, expand(v.index)) : null;
      const parts = new Array(times);
      for (let i = 0; i < times; i++) parts[i] = marker === null ? unit : unit.split(marker).join(String(i));
      return parts.join(sep);
    }
    case '$nest': {
      const depth = param('depth');
      const inner = 'inner' in v ? text(g, expand(v.inner)) : '';
      return text(g, param('open')).repeat(depth) + inner + text(g, param('close')).repeat(depth);
    }
    case '$replace':
      return text(g, arg).split(text(g, param('from'))).join(text(g, param('to')));
    case '$utf8lossy':
      return new TextDecoder('utf-8', { fatal: false, ignoreBOM: true }).decode(Buffer.from(text(g, arg), 'hex'));
    case '$list':
      return Array.from({ length: param('times') }, () => arg);
    case '$range':
      return Array.from({ length: arg }, (_, i) => i);
    default:
      throw new Error(`unknown generator ${g}`);
  }
}

/** JSON with sorted keys (engine/tests/hostile.rs `canonical`). */
function canonical(v) {
  if (Array.isArray(v)) return '[' + v.map(canonical).join(',') + ']';
  if (v !== null && typeof v === 'object') {
    return '{' + Object.keys(v).sort().map((k) => JSON.stringify(k) + ':' + canonical(v[k])).join(',') + '}';
  }
  return JSON.stringify(v);
}

// ------------------------------------------------------------------------------------------
// Facts and expectations (engine/tests/hostile.rs `facts`, `matches`, `check`).

function facts(answer) {
  const out = {};
  for (const [k, v] of Object.entries(answer)) {
    if (['crdErrors', 'errors', 'warnings'].includes(k) && Array.isArray(v)) out[k] = v.map((d) => d.message);
    else if (k === 'findings' && Array.isArray(v)) out[k] = v.map((d) => `${d.check ?? ''}: ${d.message ?? ''}`);
    else if (k === 'rules' && Array.isArray(v)) out[k] = v.length;
    else out[k] = v;
  }
  return out;
}

function matches(want, actual) {
  if (want !== null && typeof want === 'object' && !Array.isArray(want)) {
    if ('$prefix' in want) return typeof actual === 'string' && actual.startsWith(want.$prefix);
    if ('$regex' in want) return typeof actual === 'string' && new RegExp(want.$regex).test(actual);
    if ('$len' in want) return (Array.isArray(actual) || typeof actual === 'string') && actual.length === want.$len;
    if (actual === null || typeof actual !== 'object' || Array.isArray(actual)) return false;
    return Object.entries(want).every(([k, w]) => matches(w, actual[k]));
  }
  if (Array.isArray(want)) {
    return Array.isArray(actual) && want.length === actual.length && want.every((w, i) => matches(w, actual[i]));
  }
  try {
    assert.deepStrictEqual(actual, want);
    return true;
  } catch {
    return false;
  }
}

function shown(outcome) {
  const cut = (v) => {
    if (typeof v === 'string' && [...v].length > 600) return `${v.slice(0, 300)}…${v.slice(-200)} (${Buffer.byteLength(v)} bytes)`;
    if (Array.isArray(v)) return v.length > 20 ? `[${v.length} items: ${JSON.stringify(cut(v[0]))}, …]` : v.map(cut);
    if (v !== null && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, cut(x)]));
    return v;
  };
  return 'error' in outcome ? `error ${JSON.stringify(cut(outcome.error))}` : `ok ${JSON.stringify(cut(facts(outcome.ok)))}`;
}

function check(expect, outcome) {
  if ('error' in expect && 'error' in outcome && matches(expect.error, outcome.error)) return null;
  if ('ok' in expect && 'ok' in outcome && matches(expect.ok, facts(outcome.ok))) return null;
  return `expected ${JSON.stringify(expect)}, got ${shown(outcome)}`;
}

// ------------------------------------------------------------------------------------------
// The calls.

function run(crdlab, call, input) {
  const kube = input.kubernetesVersion ? { kubernetesVersion: input.kubernetesVersion } : undefined;
  try {
    switch (call) {
      case 'compile': {
        const h = crdlab.compile(input.crd, kube);
        try {
          return { ok: { crdErrors: h.crdErrors, crdWarnings: h.crdWarnings, rules: h.rules, versions: h.versions } };
        } finally {
          h.free();
        }
      }
      case 'validateObject': {
        const h = crdlab.compile(input.crd, kube);
        try {
          return { ok: h.validate(input.object, input.oldObject ?? undefined, input.options ?? undefined) };
        } finally {
          h.free();
        }
      }
      case 'validate':
        return { ok: crdlab.validate(input.request) };
      case 'evaluate':
        return {
          ok: crdlab.evaluate(input.expr, input.vars ?? undefined, {
            varTypes: input.varTypes ?? undefined,
            kubernetesVersion: input.kubernetesVersion ?? undefined,
          }),
        };
      case 'diff':
        return { ok: crdlab.diff(input.old, input.new) };
      default:
        throw new Error(`unknown call ${call}`);
    }
  } catch (e) {
    if (e instanceof WebAssembly.RuntimeError) return { trap: `${e.name}: ${e.message}` };
    if (e instanceof RangeError) return { trap: `${e.name}: ${e.message}` };
    return { error: e instanceof Error ? e.message : String(e) };
  }
}

test('the hostile catalogue: no trap, the error class, and the next request answered', async () => {
  const { esm: crdlab } = await importInstalled('nodejs');
  const only = process.env.CRDLAB_CATALOGUE_ONLY ? process.env.CRDLAB_CATALOGUE_ONLY.split(',') : null;
  assert.ok(catalogue.entries.length >= 60, `${catalogue.entries.length} entries`);

  // Same bytes as the native test's expansion.
  const hashes = catalogue.entries
    .map((e) => `${e.id} ${crypto.createHash('sha256').update(canonical(expand(e.input)), 'utf8').digest('hex')}\n`)
    .join('');
  assert.equal(hashes, fs.readFileSync(path.join(dir, 'expanded.sha256'), 'utf8'), 'the expansions differ from the native test\'s');

  const followUp = catalogue.followUp.map((f) => ({ call: f.call, input: expand(f.input), expect: f.expect }));
  const failures = [];
  const rows = [];
  for (const e of catalogue.entries) {
    if (only && !only.includes(e.id)) continue;
    const input = expand(e.input);
    const start = performance.now();
    const outcome = run(crdlab, e.call, input);
    const ms = performance.now() - start;
    if (outcome.trap) {
      failures.push(`${e.id}: trapped: ${outcome.trap}`);
    } else {
      const m = check(e.expect, outcome);
      if (m) failures.push(`${e.id}: ${m}`);
    }
    for (const f of followUp) {
      const o = run(crdlab, f.call, f.input);
      const m = o.trap ? `trapped: ${o.trap}` : check(f.expect, o);
      if (m) failures.push(`${e.id}: the follow-up ${f.call} failed: ${m}`);
    }
    rows.push({ id: e.id, ms, answer: outcome.trap ? 'trap' : 'error' in outcome ? 'error' : 'ok' });
    if (process.env.CRDLAB_CATALOGUE_SHOW === '1') console.log(`SHOW ${e.id} ${outcome.trap ? 'trap ' + outcome.trap : shown(outcome)}`);
  }

  const memory = instances.map((i) => i.exports.memory).filter(Boolean).at(-1);
  const mb = memory ? memory.buffer.byteLength / (1 << 20) : NaN;
  let table = `${'id'.padEnd(40)} ${'ms'.padStart(10)}  answer\n`;
  for (const r of rows) table += `${r.id.padEnd(40)} ${r.ms.toFixed(1).padStart(10)}  ${r.answer}\n`;
  const maxMs = Math.max(0, ...rows.map((r) => r.ms));
  table += `${rows.length} entries run; max ${maxMs.toFixed(1)} ms; wasm memory after the run ${mb.toFixed(1)} MB (${instances.length} instance(s))\n`;
  console.log(table);
  fs.mkdirSync(path.join(root, 'target'), { recursive: true });
  fs.writeFileSync(path.join(root, 'target', 'hostile-wasm-figures.txt'), table);
  assert.deepEqual(failures, [], `${failures.length} of ${rows.length} entries failed:\n${failures.join('\n')}`);
});
