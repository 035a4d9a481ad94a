// The npm package in Node: the nodejs build of engine/npm/build.sh OUT_DIR, installed into a
// throwaway project and imported as `crdlab`, the way a user does. Validates a CRD and
// objects, reads the positions of errors, and checks that bad input throws a JS Error (the
// module keeps working) rather than trapping.
//
// Run from the repo root: node --test tests/npm/
// Env: CRDLAB_NPM_DIR (default target/npm), CRDLAB_BIN (default target/release/crdlab, for
// the comparison with `crdlab batch`; that test is skipped when the binary is missing).

import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { inspect } from 'node:util';
import { importInstalled, outDir, root } from './load.mjs';
import { widgetsCrd } from '../support/widgets.mjs';

const CRD = widgetsCrd();

const OBJECT = `apiVersion: example.com/v1
kind: Widget
metadata:
  name: w1
spec:
  replicas: 0
  maxReplicas: 3
  name: "héllo😀 wörld"
  tags: [a, 7]
  extra: true
`;

let crdlab; // the ES module namespace of the installed package
let cjs; // require('crdlab')

before(async () => {
  ({ esm: crdlab, cjs } = await importInstalled('nodejs'));
});

/** The text a range covers (offsets count UTF-16 code units, like JS string indices). */
const slice = (text, r) => text.slice(r.startOffset, r.endOffset);

/** The line/column form of a range, checked against its offsets. */
function lineCol(text, r) {
  const lines = text.split('\n');
  const offsetOf = (line, col) => lines.slice(0, line - 1).reduce((n, l) => n + l.length + 1, 0) + col - 1;
  assert.equal(offsetOf(r.startLine, r.startColumn), r.startOffset, 'start line/column agree with the offset');
  assert.equal(offsetOf(r.endLine, r.endColumn), r.endOffset, 'end line/column agree with the offset');
  return [r.startLine, r.startColumn, r.endLine, r.endColumn];
}

/** Runs `fn`, which must throw a JS Error (not a WebAssembly trap), and returns it. */
function throwsError(fn, pattern) {
  let thrown;
  try {
    fn();
  } catch (e) {
    thrown = e;
  }
  assert.ok(thrown, 'expected a throw');
  assert.ok(thrown instanceof Error, `expected an Error, got ${thrown}`);
  assert.ok(!(thrown instanceof WebAssembly.RuntimeError), `a wasm trap: ${thrown}`);
  assert.match(thrown.message, pattern);
  return thrown;
}

test('the package is importable as ESM and CommonJS, and reports its version', () => {
  for (const m of [crdlab, cjs]) {
    for (const f of ['validate', 'compile', 'evaluate', 'compileExpression', 'version']) assert.equal(typeof m[f], 'function', f);
    assert.equal(typeof m.CompiledCrd, 'function');
  }
  const v = crdlab.version();
  assert.match(v.crdlab, /^\d+\.\d+\.\d+/);
  assert.ok(v.kubernetesVersions.includes('1.25') && v.kubernetesVersions.includes(v.defaultKubernetesVersion));
  const dts = fs.readFileSync(path.join(outDir, 'nodejs', 'crdlab.d.ts'), 'utf8');
  for (const t of ['interface Answer', 'interface Diagnostic', 'interface Range', 'class CompiledCrd', 'interface ValidateRequest']) {
    assert.ok(dts.includes(t), `crdlab.d.ts declares ${t}`);
  }
  assert.match(dts, /export function compile\(crd: Document, options\?: CompileOptions \| null\): CompiledCrd;/);
  assert.match(dts, /validate\(object: Document, oldObject\?: Document \| null, options\?: ValidateOptions \| null\): Answer;/);
});

test('compile once, validate objects: errors with the apiserver text and their ranges', () => {
  const crd = crdlab.compile(CRD);
  assert.deepEqual(crd.crdErrors, []);
  assert.deepEqual(crd.versions, ['v1']);
  assert.equal(crd.storageVersion, 'v1');
  assert.equal(crd.name, 'widgets.example.com');
  assert.equal(crd.kubernetesVersion, crdlab.version().defaultKubernetesVersion);

  const rules = crd.rules;
  assert.equal(rules.length, 1);
  assert.equal(rules[0].schemaPath, 'openAPIV3Schema.properties[spec].x-kubernetes-validations[0]');
  assert.equal(slice(CRD, rules[0].range), 'self.replicas <= self.maxReplicas');
  assert.deepEqual(lineCol(CRD, rules[0].range), [21, 21, 21, 54]);

  const a = crd.validate(OBJECT);
  const byField = Object.fromEntries(a.errors.map((e) => [e.field, e]));
  assert.deepEqual(Object.keys(byField).sort(), ['<nil>', 'spec.name', 'spec.replicas', 'spec.tags[1]']);

  const replicas = byField['spec.replicas'];
  assert.equal(replicas.message, 'spec.replicas: Invalid value: 0: spec.replicas in body should be greater than or equal to 1');
  assert.equal(slice(OBJECT, replicas.range), '0');
  assert.deepEqual(lineCol(OBJECT, replicas.range), [6, 13, 6, 14]);
  assert.equal(replicas.exact, true);

  // UTF-16 columns: é is one code unit, 😀 two.
  const name = byField['spec.name'];
  assert.equal(slice(OBJECT, name.range), '"héllo😀 wörld"');
  assert.deepEqual(lineCol(OBJECT, name.range), [8, 9, 8, 24]);

  assert.equal(slice(OBJECT, byField['spec.tags[1]'].range), '7');
  // The schema errors stop CEL: an error on the root, which underlines the first line.
  assert.match(byField['<nil>'].message, /some validation rules were not checked/);
  assert.equal(slice(OBJECT, byField['<nil>'].range), 'apiVersion: example.com/v1');

  // The pruned field, by its key.
  assert.deepEqual(a.unknownFields, ['spec.extra']);
  assert.equal(slice(OBJECT, a.unknownFieldRanges[0]), 'extra');
  assert.equal(a.defaulted.spec.extra, undefined);
  assert.deepEqual(a.warnings, []);
  crd.free();
});

test('a missing required field points at its closest ancestor', () => {
  const crd = crdlab.compile(CRD);
  const text = 'apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\nspec:\n  maxReplicas: 1\n';
  const [e] = crd.validate(text).errors;
  assert.equal(e.message, 'spec.replicas: Required value');
  assert.equal(e.exact, false);
  assert.equal(slice(text, e.range), 'spec');
});

test('JSON text and parsed objects', () => {
  const crd = crdlab.compile(CRD);
  const json = JSON.stringify({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' }, spec: { replicas: 5, maxReplicas: 2 } }, null, 2);
  const a = crd.validate(json);
  assert.equal(a.errors.length, 1);
  assert.match(a.errors[0].message, /^spec: Invalid value: .*replicas must not exceed maxReplicas$/);
  assert.equal(slice(json, a.errors[0].range), '"spec"');
  // A parsed object: the same answer, without ranges.
  const b = crd.validate(JSON.parse(json));
  assert.deepEqual(b.errors.map((e) => e.message), a.errors.map((e) => e.message));
  assert.equal(b.errors[0].range, undefined);
  // An update: the rule fails for the new object too, so it is not ratcheted.
  const old = JSON.parse(json);
  const c = crd.validate(json, old);
  assert.equal(c.errors.length + c.warnings.length, 1);
});

test('CRD errors point at the CRD text: a CEL rule that does not compile', () => {
  const broken = CRD.replace('self.replicas <= self.maxReplicas', 'self.replicas <= self.nope');
  const crd = crdlab.compile(broken);
  assert.equal(crd.crdErrors.length, 1);
  const [e] = crd.crdErrors;
  assert.match(e.field, /x-kubernetes-validations\[0\]\.rule$/);
  assert.match(e.message, /compilation failed/);
  assert.equal(slice(broken, e.range), 'self.replicas <= self.nope');
  // And a create check on names.
  const badNames = CRD.replace('plural: widgets,', 'plural: Widgets,');
  const n = compileErrors(badNames).find((x) => x.field === 'spec.names.plural');
  assert.match(n.message, /^spec\.names\.plural: Invalid value: "Widgets"/);
  assert.equal(slice(badNames, n.range), 'Widgets');
});

function compileErrors(text) {
  return crdlab.compile(text).crdErrors;
}

test('validate(request) answers like `crdlab batch`, plus ranges', (t) => {
  const request = { id: 'r1', crd: CRD, object: OBJECT, kubernetesVersion: '1.31' };
  const a = crdlab.validate(request);
  assert.equal(a.id, 'r1');
  assert.deepEqual(a.crdErrors, []);
  assert.equal(a.errors.length, 4);
  assert.equal(slice(OBJECT, a.errors.find((e) => e.field === 'spec.replicas').range), '0');
  assert.equal(slice(CRD, a.rules[0].range), 'self.replicas <= self.maxReplicas');
  // The CRD as an object: no ranges in the CRD, the object's still there.
  const crdObject = { ...request, crd: yamlCrdAsObject() };
  const b = crdlab.validate(crdObject);
  assert.equal(b.rules[0].range, undefined);
  assert.deepEqual(b.errors.map((e) => e.message), a.errors.map((e) => e.message));

  const bin = process.env.CRDLAB_BIN || path.join(root, 'target/release/crdlab');
  if (!fs.existsSync(bin)) {
    t.skip(`${bin} is missing (cargo build --release)`);
    return;
  }
  const requests = [request, { id: 2, crd: CRD }, { id: 3, mode: 'eval', expr: '[1, 2].map(x, x * 2)' }];
  const out = spawnSync(bin, ['batch'], { input: requests.map((r) => JSON.stringify(r)).join('\n') + '\n', encoding: 'utf8' });
  assert.equal(out.status, 0, out.stderr);
  const batch = out.stdout.trim().split('\n').map((l) => JSON.parse(l));
  requests.forEach((r, i) => assert.deepEqual(withoutPositions(crdlab.validate(r)), batch[i]));
});

function yamlCrdAsObject() {
  // The CRD above as JSON, written out by hand (no YAML parser in the tests).
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'widgets.example.com' },
    spec: {
      group: 'example.com',
      names: { kind: 'Widget', listKind: 'WidgetList', plural: 'widgets', singular: 'widget' },
      scope: 'Namespaced',
      versions: [{
        name: 'v1', served: true, storage: true,
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: {
                type: 'object',
                required: ['replicas'],
                'x-kubernetes-validations': [{ rule: 'self.replicas <= self.maxReplicas', message: 'replicas must not exceed maxReplicas' }],
                properties: {
                  replicas: { type: 'integer', minimum: 1 },
                  maxReplicas: { type: 'integer' },
                  name: { type: 'string', maxLength: 5 },
                  tags: { type: 'array', items: { type: 'string' } },
                },
              },
            },
          },
        },
      }],
    },
  };
}

/** An answer of the package with what it adds to the batch answer left out. */
function withoutPositions(a) {
  const copy = structuredClone(a);
  delete copy.unknownFieldRanges;
  for (const k of ['crdErrors', 'errors', 'warnings']) {
    for (const e of copy[k] || []) {
      delete e.range;
      delete e.exact;
    }
  }
  for (const r of copy.rules || []) {
    delete r.range;
    delete r.version;
  }
  return copy;
}

test('evaluate: expression mode', () => {
  const r = crdlab.evaluate('x.map(v, v * 2)', { x: [1, 2] }, { varTypes: { x: 'list(int)' } });
  assert.equal(r.outputType, 'list(int)');
  assert.deepEqual(r.value, [2, 4]);
  assert.ok(r.estimatedCost.max >= r.estimatedCost.min);
  assert.equal(typeof r.actualCost, 'number');
  assert.equal(crdlab.evaluate('null').value, null);
  assert.match(crdlab.evaluate('1 +').compileError, /Syntax error/);
  assert.match(crdlab.evaluate("'a'.matches('[')").compileError, /invalid matches argument/);
  assert.match(crdlab.evaluate('1 / 0').evalError, /division by zero/);
  assert.equal(crdlab.evaluate('x + 1', { x: 'a' }, { varTypes: { x: 'int' } }).evalError, 'no such overload');
  throwsError(() => crdlab.evaluate('t', { t: 'noon' }, { varTypes: { t: 'timestamp' } }), /variable t: bad timestamp "noon"/);
  throwsError(() => crdlab.evaluate('1', [1]), /vars must be an object, not an array/);
  throwsError(() => crdlab.evaluate('x', { x: 1 }, { varTypes: { x: 'tuple' } }), /unknown variable type/);
});

test('compileExpression: compiled once, evaluated many times, answers as evaluate', () => {
  const cases = [
    ['x + y * 3 - x / 2 > 10', { x: 'int', y: 'int' }, [{ x: 7, y: 5 }, { x: 1, y: 1 }, { x: -4, y: 9 }]],
    ["s.startsWith('a') ? s.size() : -1", { s: 'string' }, [{ s: 'abc' }, { s: 'xyz' }, { s: '' }]],
    ['xs.exists(v, v < 0)', { xs: 'list(int)' }, [{ xs: [] }, { xs: [1, 2, -3] }, { xs: Array.from({ length: 1000 }, (_, i) => i) }]],
    ["m['a'] + size(m)", { m: 'map(string, int)' }, [{ m: { a: 1 } }, { m: { a: 2, b: 3 } }]],
    // A runtime error: the same evalError and cost as the one-shot call.
    ['10 / x', { x: 'int' }, [{ x: 2 }, { x: 0 }]],
    // A variable of type dyn, and one not given (cel-go's missing attribute at run time).
    ['d == 1 || has(d.a)', { d: 'dyn' }, [{ d: 1 }, { d: { a: 1 } }]],
  ];
  for (const [expr, varTypes, runs] of cases) {
    const compiled = crdlab.compileExpression(expr, { varTypes, kubernetesVersion: '1.33' });
    assert.ok(compiled instanceof crdlab.Expression);
    assert.equal(compiled.compileError, undefined);
    for (const vars of runs) {
      assert.deepEqual(compiled.evaluate(vars), crdlab.evaluate(expr, vars, { varTypes, kubernetesVersion: '1.33' }), `${expr} ${JSON.stringify(vars)}`);
    }
    compiled.free();
  }
  const div = crdlab.compileExpression('10 / x', { varTypes: { x: 'int' } });
  assert.equal(div.evaluate({ x: 0 }).evalError, 'division by zero');
  assert.match(div.evaluate({}).evalError, /no such attribute/);
  // Many evaluations of one compiled expression.
  const sum = crdlab.compileExpression('xs.map(v, v * k).size() == size(xs) ? k * size(xs) : 0', { varTypes: { xs: 'list(int)', k: 'int' } });
  for (let i = 0; i < 2000; i++) assert.equal(sum.evaluate({ xs: [1, 2, 3], k: i }).value, 3 * i);
  sum.free();
  // A compile error is not thrown: every evaluate answers it as evaluate does.
  for (const expr of ['1 +', "'a'.matches('[')", 'x.nope']) {
    const bad = crdlab.compileExpression(expr, { varTypes: { x: 'int' } });
    const expected = crdlab.evaluate(expr, { x: 1 }, { varTypes: { x: 'int' } });
    assert.ok(expected.compileError, expr);
    assert.equal(bad.compileError, expected.compileError);
    assert.deepEqual(bad.evaluate({ x: 1 }), expected);
    assert.deepEqual(bad.evaluate(), expected);
    bad.free();
  }
  // Bad options and variables throw, as evaluate's do.
  throwsError(() => crdlab.compileExpression('x', { varTypes: { x: 'tuple' } }), /varTypes\.x: unknown variable type "tuple"/);
  throwsError(() => crdlab.compileExpression('1', { kubernetesVersion: '1.2' }), /./);
  const t = crdlab.compileExpression('t', { varTypes: { t: 'timestamp' } });
  throwsError(() => t.evaluate({ t: 'noon' }), /variable t: bad timestamp "noon"/);
  throwsError(() => t.evaluate([1]), /vars must be an object, not an array/);
  throwsError(() => t.evaluate({ u: 1 }), /variable u is not declared in varTypes/);
  // free() then evaluate throws; free() again is harmless.
  t.free();
  assert.throws(() => t.evaluate({ t: '2024-01-01T00:00:00Z' }), /null pointer|already|freed|moved/i);
  t.free();
  assert.throws(() => new crdlab.Expression(), /made by compileExpression\(\)/);
});

test('compileExpression packs its options, answering exactly as the module reading them itself', () => {
  // Plain options are packed by the package's JavaScript layer (engine/npm/wrap/core.js);
  // an options object that is not plain (here: one inheriting the same options) is read by
  // the module through Reflect. Both must give the same expression or the same error.
  const outcome = (f) => {
    try {
      const e = f();
      const out = { compileError: e.compileError, answer: e.evaluate({}) };
      e.free();
      return out;
    } catch (err) {
      return { thrown: String(err && err.message) };
    }
  };
  const cases = [
    ['1'],
    ['1', null],
    ['x + 1', { varTypes: { x: 'int' } }],
    ['x + 1', { varTypes: { x: 'int' }, kubernetesVersion: null }],
    ['x + 1', { varTypes: { x: 'int' }, kubernetesVersion: '1.30' }],
    ['size(é) + size(b)', { varTypes: { é: 'list(int)', b: 'string' } }],
    ['x', { varTypes: null }],
    ['x', { varTypes: {} }],
    ['x', { varTypes: { '': 'int', x: 'dyn' } }],
    ['x', { varTypes: { x: 'int\0' } }],
    ['x', { varTypes: { 'x\0y': 'int' } }],
    ['x', { varTypes: { x: '\uD800' } }],
    ['x', { varTypes: { '\uDC00': 'int' } }],
    ['x', { varTypes: { x: 3 } }],
    ['x', { varTypes: ['int'] }],
    ['x', { varTypes: 'int' }],
    ['x', { kubernetesVersion: 1.3 }],
    ['x', { kubernetesVersion: '1.2' }],
    ['x', { kubernetesVersion: '\uD800' }],
    ['x +', { varTypes: { x: 'int' } }],
  ];
  for (const [expr, options] of cases) {
    const packed = outcome(() => crdlab.compileExpression(expr, options));
    const read = outcome(() => crdlab.compileExpression(expr, options == null ? options : Object.create(options)));
    assert.deepEqual(packed, read, `${expr} ${inspect(options)}`);
  }
  assert.ok(outcome(() => crdlab.compileExpression('x', { varTypes: { x: 3 } })).thrown.includes('expected a string'));
  // Each option is read once, whether it packs or not.
  for (const t of ['int', 3]) {
    const reads = { varTypes: 0, x: 0 };
    const varTypes = {};
    Object.defineProperty(varTypes, 'x', { enumerable: true, get: () => (reads.x++, t) });
    const options = {};
    Object.defineProperty(options, 'varTypes', { enumerable: true, get: () => (reads.varTypes++, varTypes) });
    outcome(() => crdlab.compileExpression('x', options));
    assert.deepEqual(reads, { varTypes: 1, x: 1 }, inspect(t));
  }
});

test('Expression.evaluate packs plain variables without JSON, answering exactly as the JSON route', () => {
  // The one-shot evaluate takes the JSON route (JSON.stringify, read back in the module);
  // Expression.evaluate packs what it can (engine/npm/wrap/core.js). Every value below, packed
  // or not, must give the same answer or the same error; -0 and 0 are told apart.
  const holes = [1, , 3]; // eslint-disable-line no-sparse-arrays
  const nullProto = Object.assign(Object.create(null), { b: 2, a: 1 });
  class Box { constructor() { this.a = 1; } }
  const withToJSON = { a: 1, toJSON: () => ({ a: 5 }) };
  const scalars = [0, -0, 1, -1, 0.5, -2.5, 1e-7, 1e300, 2 ** 53 - 1, -(2 ** 53 - 1), 2 ** 53, 2 ** 60, -(2 ** 63), 2 ** 64, 1e21,
    NaN, Infinity, -Infinity, '', '7', 'h€llo 🙂', '🙂🙂', 'é', 'ascii then é', '\uD800', 'a\uDC00', '🙂\uD83D', 'x\u0000y\n"\\',
    '\u007f\u0080\u07ff\u0800\uffff', 'x'.repeat(300), 'é'.repeat(200), true, false, null, 12n];
  const composites = [[], [1, 2, 3], [1.5, -0], holes, [1, undefined], ['a', 'b🙂'], [[1], []], { b: 2, a: 1, 10: 3, 2: 4, é: 5 }, {},
    nullProto, new Box(), withToJSON, { a: undefined }, { a: [1, 'x'] }, new Map([['a', 1]]), { a: ['x', 'y'], '': [] },
    { 'é🙂': ['\uD800'] }, { 'k\uDFFF': [] }];
  const types = ['int', 'uint', 'double', 'bool', 'string', 'list(int)', 'list(double)', 'list(string)', 'list(list(int))',
    'map(string, int)', 'map(string, list(string))', 'dyn', 'list(dyn)'];
  const run = (f) => {
    try {
      return { answer: f() };
    } catch (e) {
      return { thrown: String(e && e.message) };
    }
  };
  let packedCalls = 0;
  for (const type of types) {
    for (const expr of ['x', 'y == 0 ? x : x']) {
      const compiled = crdlab.compileExpression(expr, { varTypes: { x: type, y: 'int' } });
      for (const x of [...scalars, ...composites]) {
        const vars = { x, y: 0 };
        const label = `${type} ${expr} ${inspect(x)}`;
        const viaJson = run(() => crdlab.evaluate(expr, vars, { varTypes: { x: type, y: 'int' } }));
        const viaHandle = run(() => compiled.evaluate(vars));
        assert.deepStrictEqual(viaHandle, viaJson, label);
        packedCalls++;
      }
      compiled.free();
    }
  }
  assert.ok(packedCalls > 500);
  // The variables JSON.stringify writes are the own enumerable ones that are not undefined:
  // the packed route sees the same (hidden, inherited and undefined ones are not given).
  const hidden = Object.defineProperty({ y: 1 }, 'x', { value: 7, enumerable: false });
  const inherited = Object.assign(Object.create({ x: 7 }), { y: 1 });
  const pollutedKey = '__crdlabTestPollution';
  const sum = crdlab.compileExpression('x + y', { varTypes: { x: 'int', y: 'int' } });
  const onlyY = sum.evaluate({ y: 1 });
  assert.equal(onlyY.evalError, 'no such attribute(s): x');
  for (const [label, vars, want] of [
    ['hidden', hidden, onlyY], ['inherited', inherited, onlyY], ['undefined', { x: undefined, y: 1 }, onlyY],
    ['undeclared undefined', { x: 2, y: 1, z: undefined }, { ...onlyY, evalError: undefined, value: 3 }],
    ['undeclared', { x: 2, y: 1, z: 3 }, 'variable z is not declared in varTypes'],
    ['none', {}, sum.evaluate(JSON.parse('{}'))], ['null', null, sum.evaluate(JSON.parse('{}'))],
  ]) {
    const expected = typeof want === 'string' ? { thrown: want } : { answer: sum.evaluate(JSON.parse(JSON.stringify(vars))) };
    if (typeof want !== 'string' && want.value !== undefined) assert.equal(expected.answer.value, want.value, label);
    else if (typeof want !== 'string') assert.deepStrictEqual(expected.answer, want, label);
    assert.deepStrictEqual(run(() => sum.evaluate(vars)), expected, label);
    // An enumerable property put on Object.prototype is not the variables' own.
    Object.prototype[pollutedKey] = 1; // eslint-disable-line no-extend-native
    let polluted;
    try {
      polluted = run(() => sum.evaluate(vars));
    } finally {
      delete Object.prototype[pollutedKey];
    }
    assert.deepStrictEqual(polluted, expected, `${label}, polluted`);
  }
  sum.free();
  // Strings in and out, ASCII or not, short or long, through the packed route.
  for (const s of ['', 'a', 'é', '🙂', 'a'.repeat(31) + 'é', 'x'.repeat(5000), '€'.repeat(3000) + '🙂']) {
    const varTypes = { s: 'string', m: 'map(string, string)' };
    const compiled = crdlab.compileExpression("s + m[s] + '|' + s", { varTypes });
    const vars = { s, m: { [s]: s + '!' } };
    const answer = compiled.evaluate(vars);
    assert.deepStrictEqual(answer, crdlab.evaluate("s + m[s] + '|' + s", vars, { varTypes }), s.slice(0, 40));
    assert.equal(answer.value, s + s + '!|' + s);
    compiled.free();
  }
  // Results of every plain kind, errors and costs, through the packed route.
  for (const [expr, varTypes, vars] of [
    ['x * 2', { x: 'int' }, { x: 21 }],
    ['u + 1u', { u: 'uint' }, { u: 41 }],
    ['d * -1.0', { d: 'double' }, { d: 0 }],
    ['d / 3.0', { d: 'double' }, { d: 1 }],
    ['d / 0.0', { d: 'double' }, { d: 1 }],
    ["s + '!'", { s: 'string' }, { s: 'hé🙂' }],
    ['b ? null : 1', { b: 'bool' }, { b: true }],
    ['m.a / m.b', { m: 'map(string, int)' }, { m: { a: 1, b: 0 } }],
    ['9223372036854775807 + x', { x: 'int' }, { x: 0 }],
    ['xs.all(v, v > 0)', { xs: 'list(int)' }, { xs: Array.from({ length: 100 }, (_, i) => i + 1) }],
    ['duration(s)', { s: 'string' }, { s: '90m' }],
    ['xs.map(v, v + 1)', { xs: 'list(int)' }, { xs: [1, 2] }],
  ]) {
    const compiled = crdlab.compileExpression(expr, { varTypes });
    assert.deepStrictEqual(compiled.evaluate(vars), crdlab.evaluate(expr, vars, { varTypes }), expr);
    compiled.free();
  }
});

test('Expression.evaluate writes its numbers in the module\'s memory: growth, a grown memory, nested evaluations', () => {
  // The packed numbers go into a buffer of the module's memory through a Float64Array
  // (engine/npm/wrap/core.js): the buffer grows, the view is made again when the memory grew
  // (during the packing or the evaluation), and an evaluation from a getter of the variables
  // does not write over the one being packed. Each answers as the JSON route.
  const varTypes = { xs: 'list(int)', k: 'int' };
  const exprs = ['xs.map(v, v * k)', 'xs.exists(v, v == k)', 'size(xs) + k'];
  for (const n of [0, 1, 253, 254, 1000, 70_000, 76_920, 76_921, 80_000]) {
    const xs = Array.from({ length: n }, (_, i) => (i * 7919) % 1000);
    for (const expr of exprs) {
      const compiled = crdlab.compileExpression(expr, { varTypes });
      for (const k of [3, -1]) {
        assert.deepStrictEqual(compiled.evaluate({ xs, k }), crdlab.evaluate(expr, { xs, k }, { varTypes }), `${expr} ${n} ${k}`);
      }
      compiled.free();
    }
  }
  const add = crdlab.compileExpression('x + 1', { varTypes: { x: 'int' } });
  const outer = crdlab.compileExpression('x * 2 + size(xs)', { varTypes: { x: 'int', xs: 'list(int)' } });
  let calls = 0;
  const vars = {
    get x() {
      calls++;
      // Nested: an evaluation, and enough allocation that the memory may grow.
      const big = crdlab.compileExpression('xs.map(v, v + 1)', { varTypes: { xs: 'list(int)' } });
      big.evaluate({ xs: Array.from({ length: 50_000 }, (_, i) => i) });
      big.free();
      return add.evaluate({ x: 20 }).value;
    },
    xs: Array.from({ length: 300 }, (_, i) => i),
  };
  const viaHandle = outer.evaluate(vars);
  assert.ok(calls > 0);
  // (The JSON route reads a getter from inside the module, where calling it again cannot work.)
  assert.deepStrictEqual(viaHandle, crdlab.evaluate('x * 2 + size(xs)', { x: 21, xs: vars.xs }, { varTypes: { x: 'int', xs: 'list(int)' } }));
  assert.equal(viaHandle.value, 342);
  // The buffer still answers after all that.
  assert.equal(add.evaluate({ x: 1 }).value, 2);
  add.free();
  outer.free();
});

test('malformed input throws a clear Error, never traps; the module keeps working', () => {
  const crd = crdlab.compile(CRD);

  // Texts that cannot be read: the place of the problem.
  let e = throwsError(() => crdlab.compile('apiVersion: v1\nspec: [1, 2\nkind: {'), /^cannot read CRD: /);
  assert.equal(e.input, 'crd');
  assert.equal(typeof e.line, 'number');
  assert.equal(e.range.startLine, e.line);
  e = throwsError(() => crd.validate('kind: Widget\nspec:\n  replicas: 1\n replicas: 2\n'), /^cannot read object: /);
  assert.equal(e.input, 'object');
  assert.ok(e.line >= 3, `line ${e.line}`);
  e = throwsError(() => crd.validate('{"spec": {"replicas": 1,}}'), /^cannot read object: .*invalid JSON/);
  assert.deepEqual([e.line, e.column], [1, 25]);
  e = throwsError(() => crdlab.validate({ crd: CRD, object: 'a: [1' }), /^cannot read object: /);
  assert.equal(e.input, 'object');
  assert.equal(e.line, 1);
  e = throwsError(() => crdlab.validate({ crd: 'spec: [', object: 'a: 1' }), /^cannot read CRD: /);
  assert.equal(e.input, 'crd');

  // Not a CRD, not an object.
  throwsError(() => crdlab.compile('apiVersion: v1\nkind: ConfigMap\n'), /no CustomResourceDefinition found.*ConfigMap/);
  throwsError(() => crdlab.compile(''), /no CustomResourceDefinition found: the document is empty/);
  throwsError(() => crdlab.compile(CRD.replace('apiextensions.k8s.io/v1', 'apiextensions.k8s.io/v1beta1')), /unsupported apiVersion/);
  throwsError(() => crdlab.compile(42), /crd must be YAML\/JSON text or an object, not a number/);
  throwsError(() => crdlab.compile(null), /crd must be YAML\/JSON text or an object, not null/);
  throwsError(() => crdlab.compile([1]), /not an array/);
  throwsError(() => crd.validate(undefined), /object must be YAML\/JSON text or an object, not a undefined/);
  throwsError(() => crd.validate('just text'), /\S/);
  throwsError(() => crdlab.validate('just a string'), /the request must be an object/);
  throwsError(() => crdlab.validate({ object: OBJECT }), /names no CRD/);
  throwsError(() => crdlab.validate({ crdFile: '/etc/passwd' }), /crdFile is not available/);

  // Bad options.
  throwsError(() => crdlab.compile(CRD, { kubernetesVersion: '1.99' }), /not supported/);
  throwsError(() => crdlab.compile(CRD, 'fast'), /options must be an object, not a string/);
  throwsError(() => crdlab.compile(CRD, { kubernetesVersion: 5 }), /^options: invalid type: floating point `5(\.0)?`, expected a string$/);
  throwsError(() => crd.validate(OBJECT, null, { version: 'v9' }), /the CRD has no version "v9" \(it has v1\)/);
  throwsError(() => crd.validate(OBJECT, null, { subresource: 'scale' }), /unsupported subresource "scale"/);
  throwsError(() => crdlab.validate({ crd: CRD, kubernetesVersion: 'latest' }), /is not a Kubernetes version/);

  // Objects JSON cannot hold, and hostile nesting.
  const circular = { spec: {} };
  circular.spec.self = circular;
  throwsError(() => crd.validate(circular), /object cannot be converted to JSON/);
  throwsError(() => crd.validate({ spec: { replicas: 1n } }), /object cannot be converted to JSON.*BigInt/);
  let deep = {};
  for (let i = 0; i < 100_000; i++) deep = { a: deep };
  throwsError(() => crd.validate(deep), /object cannot be converted to JSON|nesting deeper than/);
  let over = {};
  for (let i = 0; i < 600; i++) over = { a: over };
  throwsError(() => crd.validate(over), /nesting deeper than 512 levels/);
  throwsError(() => crd.validate('['.repeat(100_000)), /nesting deeper than 512 levels/);
  throwsError(() => crd.validate('a:\n' + Array.from({ length: 3000 }, (_, i) => ' '.repeat(i + 1) + 'a:\n').join('')), /nesting deeper than/);

  // After all that, the same handle and new ones still work.
  assert.equal(crd.validate(OBJECT).errors.length, 4);
  assert.equal(crdlab.validate({ crd: CRD, object: OBJECT }).errors.length, 4);
});

test('the deepest input the engine accepts runs within the wasm stack', () => {
  // 500 levels (the readers stop at 512) through pruning, defaulting, validation and CEL.
  const preserve = CRD.replace(
    '              tags:\n',
    '              deep:\n                type: object\n                x-kubernetes-preserve-unknown-fields: true\n' +
      '                x-kubernetes-validations: [{rule: "self == self"}]\n              tags:\n',
  );
  const crd = crdlab.compile(preserve);
  assert.deepEqual(crd.crdErrors, []);
  let deep = 1;
  for (let i = 0; i < 495; i++) deep = i % 2 ? { a: deep } : [deep];
  const obj = { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' }, spec: { replicas: 1, maxReplicas: 1, deep: { x: deep } } };
  const a = crd.validate(obj);
  assert.deepEqual(a.errors, []);
  const text = JSON.stringify(obj);
  assert.deepEqual(crd.validate(text, text).errors, []);
  const b = crdlab.compile(CRD).validate({ ...obj, spec: { ...obj.spec, extra: { x: deep } } });
  assert.deepEqual(b.unknownFields, ['spec.deep', 'spec.extra']);
  // Long and deep expressions: the engine answers (cel-go's limits), nothing overflows.
  for (const n of [100, 1000, 24_000]) {
    const r = crdlab.evaluate('1' + ' + 1'.repeat(n));
    assert.ok(r.value === n + 1 || /max recursion depth exceeded/.test(r.compileError), JSON.stringify(r).slice(0, 200));
  }
  assert.match(crdlab.evaluate('1' + ' + 1'.repeat(30_000)).compileError, /expression code point size exceeds limit/);
  assert.match(crdlab.evaluate('('.repeat(5000) + '1' + ')'.repeat(5000)).compileError, /[Rr]ecursion (limit|depth)/);
});

test('a call that overflows the JavaScript stack leaves no corrupt module: the next call gets a new one', () => {
  // Calls made from ever shallower points of a recursion that reached V8's stack limit: some
  // overflow inside the module, which V8 then unwinds itself, skipping the module's clean-up.
  // From then on the module refuses calls with a clear Error, and the process lives on (the
  // finalizers of compiled CRDs still run). In a child process, so that this module instance
  // stays usable.
  const script = `
    import { importInstalled } from ${JSON.stringify(new URL('./load.mjs', import.meta.url).href)};
    const { esm: c } = await importInstalled();
    let crd = c.compile(${JSON.stringify(CRD)});
    const object = ${JSON.stringify(OBJECT)};
    const outcomes = new Set();
    let done = false;
    function down() {
      try { down(); } catch (e) { if (!(e instanceof RangeError)) throw e; }
      if (done) return;
      try { crd.validate(object); done = true; outcomes.add('ok'); }
      catch (e) { outcomes.add(e.constructor.name + ': ' + e.message); }
    }
    down();
    let after;
    try { c.version(); after = 'ok'; } catch (e) { after = e.constructor.name + ': ' + e.message; }
    crd = null;
    globalThis.gc?.();
    console.log(JSON.stringify({ outcomes: [...outcomes], after }));
  `;
  const out = spawnSync(process.execPath, ['--expose-gc', '--input-type=module', '-e', script], { encoding: 'utf8', timeout: 120_000 });
  assert.equal(out.status, 0, out.stderr);
  const { outcomes, after } = JSON.parse(out.stdout.trim().split('\n').pop());
  // The package re-creates the module at the next call: the compiled CRD of the abandoned
  // instance throws the clear error, and new calls work.
  const dead = 'Error: this compiled CRD belonged to an engine instance that crashed; compile it again';
  assert.ok(outcomes.includes('RangeError: Maximum call stack size exceeded'), outcomes.join('\n'));
  for (const o of outcomes) assert.ok(['RangeError: Maximum call stack size exceeded', 'ok', dead].includes(o), o);
  assert.equal(after, 'ok');
});

test('revalidating with a compiled CRD does not recompile', () => {
  const crd = crdlab.compile(CRD);
  const n = 300;
  let t0 = performance.now();
  for (let i = 0; i < n; i++) crd.validate(OBJECT.replace('replicas: 0', `replicas: ${i % 3}`));
  const handle = (performance.now() - t0) / n;
  t0 = performance.now();
  for (let i = 0; i < 30; i++) crdlab.compile(CRD + `\n# ${i}\n`).free();
  const compile = (performance.now() - t0) / 30;
  console.log(`# per validation with a compiled CRD: ${handle.toFixed(3)} ms; per compile: ${compile.toFixed(3)} ms`);
});

test('diff reports a removed enum value as breaking, with crdify check names', () => {
  const base = {
    apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition',
    metadata: { name: 'things.example.com' },
    spec: { group: 'example.com', names: { kind: 'Thing', listKind: 'ThingList', plural: 'things', singular: 'thing' },
      scope: 'Namespaced', versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: {
        type: 'object', properties: { spec: { type: 'object', properties: { mode: { type: 'string', enum: ['A', 'B'] } } } } } } }] },
  };
  const narrowed = structuredClone(base);
  narrowed.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.mode.enum = ['A'];
  const same = crdlab.diff(JSON.stringify(base), JSON.stringify(base));
  assert.equal(same.breaking, false);
  assert.deepEqual(same.findings, []);
  const r = crdlab.diff(JSON.stringify(base), JSON.stringify(narrowed));
  assert.equal(r.breaking, true);
  const f = r.findings.find((x) => x.check === 'enum');
  assert.ok(f, JSON.stringify(r));
  assert.equal(f.validator, 'sameVersion');
  assert.equal(f.field, '^.spec.mode');
  assert.equal(f.severity, 'error');
  assert.match(f.message, /allowed enum values removed/);
  assert.throws(() => crdlab.diff('not: [yaml', JSON.stringify(base)), (e) => e instanceof Error && /crd/i.test(e.message + e.input));
});

test('a compiled CRD explains rule costs and gives the version matrix', () => {
  const crd = {
    apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition',
    metadata: { name: 'nets.example.com' },
    spec: { group: 'example.com', names: { kind: 'Net', listKind: 'NetList', plural: 'nets', singular: 'net' },
      scope: 'Namespaced', versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: {
        type: 'object', properties: { spec: { type: 'object', properties: {
          addr: { type: 'string', maxLength: 64, 'x-kubernetes-validations': [{ rule: 'isIP(self)' }] },
          names: { type: 'array', items: { type: 'string' },
            'x-kubernetes-validations': [{ rule: 'self.all(x, self.all(y, x == y || !x.startsWith(y)))' }] } } } } } } }] },
  };
  const handle = crdlab.compile(crd);
  const costs = handle.explainCosts();
  assert.equal(costs.version, 'v1');
  const names = costs.rules.find((r) => r.field === 'spec.names');
  assert.ok(names.overLimit);
  assert.ok(names.fixes.length > 0 || (names.combinedFix ?? []).length > 0, JSON.stringify(names));
  const matrix = handle.versionMatrix();
  const ip = matrix.find((r) => r.rule === 'isIP(self)');
  assert.equal(ip.lowestVersion, '1.31');
  assert.match(ip.reason, /1\.31|ip/i);
});
