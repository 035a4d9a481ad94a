// The npm package after a panic (a bug in crdlab: in WebAssembly it aborts the instance with
// a trap): every function and method throws `InternalError` (name CrdlabInternalError, the
// panic's text in the message), the module is re-created, the next call answers exactly as
// before the crash, and compiled CRDs of the crashed instance throw a clear error. The panic
// is forced with the hidden test hook `__crdlabPanicOnNextCall(text)`: the next call of the
// API panics with that text. Run for the nodejs build (ESM and CommonJS: the same instance)
// for the bundler build, imported in Node (it reads its wasm from its file URL), and for the
// web build initialized with initSync; both are also tested in Chromium (browser.test.mjs).
//
// Run from the repo root: node --test tests/npm/
// Env: CRDLAB_NPM_DIR (default target/npm).

import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import fs from 'node:fs';
import path from 'node:path';
import v8 from 'node:v8';
import vm from 'node:vm';
import { pathToFileURL } from 'node:url';
import { importInstalled, installInto } from './load.mjs';
import { widgetsCrd } from '../support/widgets.mjs';

const CRD = widgetsCrd();
const OBJECT = 'apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\nspec: {replicas: 5, maxReplicas: 2, extra: 1}\n';
const NEW_CRD = CRD.replace('minimum: 1', 'minimum: 2');

const DEAD = 'this compiled CRD belonged to an engine instance that crashed; compile it again';
const DEAD_EXPRESSION = 'this compiled expression belonged to an engine instance that crashed; compile it again';

let gc;
before(() => {
  v8.setFlagsFromString('--expose-gc');
  gc = vm.runInNewContext('gc');
});

/** What the package answers on a healthy instance: compared before and after each crash. */
function answers(c) {
  const crd = c.compile(CRD);
  const out = {
    crdErrors: crd.crdErrors,
    rules: crd.rules,
    versions: crd.versions,
    storageVersion: crd.storageVersion,
    validate: crd.validate(OBJECT),
    update: crd.validate(OBJECT, OBJECT),
    costs: crd.explainCosts(),
    matrix: crd.versionMatrix(),
    request: c.validate({ crd: CRD, object: OBJECT, kubernetesVersion: '1.31' }),
    evaluate: c.evaluate('x.map(v, v * 2)', { x: [1, 2] }, { varTypes: { x: 'list(int)' } }),
    expression: c.compileExpression('x.map(v, v * 2)', { varTypes: { x: 'list(int)' } }).evaluate({ x: [1, 2] }),
    diff: c.diff(CRD, NEW_CRD),
    version: c.version(),
  };
  crd.free();
  return out;
}

/** Every kind of call path of the package: functions, a method, getters. */
const PATHS = {
  'compile()': (c) => c.compile(CRD),
  'validate()': (c) => c.validate({ crd: CRD, object: OBJECT }),
  'evaluate()': (c) => c.evaluate('1 + 1'),
  'compileExpression()': (c) => c.compileExpression('1 + 1'),
  'Expression.evaluate()': (c, crd, expr) => expr.evaluate({ x: 1 }),
  'Expression.compileError': (c, crd, expr) => expr.compileError,
  'diff()': (c) => c.diff(CRD, NEW_CRD),
  'version()': (c) => c.version(),
  'CompiledCrd.validate()': (c, crd) => crd.validate(OBJECT),
  'CompiledCrd.rules': (c, crd) => crd.rules,
  'CompiledCrd.crdErrors': (c, crd) => crd.crdErrors,
  'CompiledCrd.explainCosts()': (c, crd) => crd.explainCosts(),
  'CompiledCrd.versionMatrix()': (c, crd) => crd.versionMatrix(),
};

function checkRecovery(c, label) {
  const baseline = answers(c);
  for (const [name, call] of Object.entries(PATHS)) {
    const crd = c.compile(CRD); // compiled on the instance about to crash
    const expr = c.compileExpression('x + 1', { varTypes: { x: 'int' } });
    const text = `forced by the recovery test through ${name} (${label}) «ünïcode»`;
    c.__crdlabPanicOnNextCall(text);
    let thrown;
    try {
      call(c, crd, expr);
    } catch (e) {
      thrown = e;
    }
    assert.ok(thrown, `${name}: expected a throw`);
    assert.ok(thrown instanceof c.InternalError, `${name}: ${thrown}`);
    assert.ok(thrown instanceof Error);
    assert.equal(thrown.name, 'CrdlabInternalError');
    assert.ok(thrown.message.startsWith('crdlab internal error (the engine was restarted): panicked at '), thrown.message);
    assert.ok(thrown.message.endsWith(text), thrown.message);
    assert.match(thrown.panic, /^panicked at engine\/src\/wasm\.rs:\d+:\d+:\n/);
    assert.ok(thrown.cause instanceof WebAssembly.RuntimeError, String(thrown.cause));
    // The next calls answer exactly as before.
    assert.deepEqual(answers(c), baseline, `${name}: answers after the restart`);
    // The crashed instance's compiled CRD: a clear error, on every member; free() is harmless.
    for (const use of [() => crd.validate(OBJECT), () => crd.rules, () => crd.versions, () => crd.crdWarnings, () => crd.explainCosts()]) {
      assert.throws(use, (e) => e instanceof Error && !(e instanceof c.InternalError) && e.message === DEAD);
    }
    crd.free();
    crd[Symbol.dispose]?.();
    for (const use of [() => expr.evaluate({ x: 1 }), () => expr.compileError]) {
      assert.throws(use, (e) => e instanceof Error && !(e instanceof c.InternalError) && e.message === DEAD_EXPRESSION);
    }
    expr.free();
  }
}

test('nodejs build: every call path recovers from a panic (ESM and CommonJS)', () => {
  return importInstalled('nodejs').then(({ esm, cjs }) => {
    checkRecovery(esm, 'nodejs esm');
    // The CommonJS require is the same module: it answers after the restarts too, and its
    // InternalError is the same class.
    assert.equal(cjs.InternalError, esm.InternalError);
    checkRecovery(cjs, 'nodejs cjs');
  });
});

test('bundler build (imported in Node): every call path recovers from a panic', async () => {
  checkRecovery(await bundler(), 'bundler');
});

async function bundler() {
  const project = installInto('bundler');
  return import(pathToFileURL(path.join(project, 'node_modules', 'crdlab', 'crdlab.js')).href);
}

/** The web build in Node: initialized from the bytes, as `initSync` allows. */
async function web() {
  const project = installInto('web');
  const dir = path.join(project, 'node_modules', 'crdlab');
  const c = await import(pathToFileURL(path.join(dir, 'crdlab.js')).href);
  c.initSync({ module: fs.readFileSync(path.join(dir, 'crdlab_bg.wasm')) });
  return c;
}

test('web build (initSync in Node): every call path recovers from a panic', async () => {
  checkRecovery(await web(), 'web');
});

const load = { nodejs: async () => (await importInstalled('nodejs')).esm, bundler, web };

for (const target of ['nodejs', 'bundler', 'web']) test(`${target} build: compiled CRDs and expressions of a crashed instance are never freed into the new one`, async () => {
  // (bundler, web: the glue is shared by the instances, so a finalizer of an old handle
  // would free its pointer in the new instance; nodejs: in the dead one, which must not throw.)
  const c = await load[target]();
  const expected = c.compile(CRD).validate(OBJECT);
  // Many handles on the instance about to crash, dropped after it: their finalizers must not
  // free their pointers in the new instance (which would corrupt the handles made there).
  let old = Array.from({ length: 200 }, () => c.compile(CRD));
  let oldExpressions = Array.from({ length: 200 }, () => c.compileExpression('x + 1', { varTypes: { x: 'int' } }));
  c.__crdlabPanicOnNextCall('crash with live handles');
  assert.throws(() => c.version(), c.InternalError);
  const fresh = Array.from({ length: 50 }, () => c.compile(NEW_CRD.replace('minimum: 2', 'minimum: 1')));
  old = null;
  oldExpressions = null;
  const freshExpression = c.compileExpression('x + 1', { varTypes: { x: 'int' } });
  for (let i = 0; i < 5; i++) {
    gc();
    await sleep(20);
  }
  for (const crd of fresh) assert.deepEqual(crd.validate(OBJECT), expected);
  assert.deepEqual(freshExpression.evaluate({ x: 1 }), c.evaluate('x + 1', { x: 1 }, { varTypes: { x: 'int' } }));
  freshExpression.free();
  fresh.forEach((crd) => crd.free());
  for (let i = 0; i < 3; i++) {
    gc();
    await sleep(10);
  }
  assert.deepEqual(c.compile(CRD).validate(OBJECT), expected);
});

test('CompiledCrd cannot be constructed; InternalError is an Error subclass', async () => {
  const { esm: c } = await importInstalled('nodejs');
  assert.throws(() => new c.CompiledCrd(), /made by compile\(\)/);
  const e = new c.InternalError('x');
  assert.ok(e instanceof Error);
  assert.equal(e.name, 'CrdlabInternalError');
  assert.equal(e.message, 'crdlab internal error (the engine was restarted): x');
  assert.ok(c.compile(CRD) instanceof c.CompiledCrd);
});
