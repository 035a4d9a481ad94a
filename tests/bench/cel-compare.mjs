// CEL in node: crdlab's npm package (compileExpression, then Expression.evaluate) against
// @marcbachmann/cel-js (an Environment with the variables' types, parse and check, then the
// parsed function) and @bufbuild/cel (plan(celEnv(), parse(expr)), then the planned function), on expressions all three support: arithmetic,
// strings, list macros over 10/100/1,000 items, maps. Compile and evaluate are timed
// separately (medians, after a warm-up of every case); the answers of the three are compared first (a case they disagree
// on is reported and left out). crdlab also type-checks and tracks cel-go's cost on every
// call, which the two others do not. Prints a Markdown table and `BENCH cel ...` lines (for
// scripts/bench); never fails on timing.
//
//   node tests/bench/cel-compare.mjs [--quick]
// Env: CRDLAB_NPM_DIR (the built package, default target/npm: engine/npm/build.sh target/npm).

import { createRequire } from 'node:module';
import path from 'node:path';
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import * as celJs from '@marcbachmann/cel-js';
import * as buf from '@bufbuild/cel';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const npmDir = path.resolve(root, process.env.CRDLAB_NPM_DIR || 'target/npm');
const entry = path.join(npmDir, 'nodejs', 'crdlab.js');
if (!fs.existsSync(entry)) {
  console.log(`cel comparison skipped: ${entry} is missing (engine/npm/build.sh ${path.relative(root, npmDir)})`);
  process.exit(0);
}
const crdlab = createRequire(import.meta.url)(entry);
const quick = process.argv.includes('--quick');

const ints = (n) => Array.from({ length: n }, (_, i) => (i * 7919) % 1000);

/**
 * The cases (tests/bench/cel-cases.json, which engine/benches/engine.rs runs natively): the
 * expression, crdlab's variable types, and the variables as JSON (ints as numbers); the JS
 * engines get ints as bigints (their CEL int) and maps as `Map`s where they need them.
 */
const expand = (v) => {
  if (v && typeof v === 'object' && !Array.isArray(v)) {
    if ('$ints' in v) return ints(v.$ints);
    if ('$intMap' in v) return Object.fromEntries(ints(v.$intMap).map((x, i) => [`k${i}`, x]));
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, expand(x)]));
  }
  return v;
};
const CASES = JSON.parse(fs.readFileSync(path.join(root, 'tests/bench/cel-cases.json'), 'utf8')).cases.map((c) => ({ ...c, vars: expand(c.vars) }));

/** JSON variables as the JS engines take them: ints as bigints; `Map`s for @bufbuild/cel. */
function jsVars(vars, types, maps) {
  const conv = (v, t) => {
    if (t === 'int') return BigInt(v);
    const list = /^list\((.*)\)$/.exec(t);
    if (list) return v.map((x) => conv(x, list[1]));
    const map = /^map\(string, (.*)\)$/.exec(t);
    if (map) {
      const entries = Object.entries(v).map(([k, x]) => [k, conv(x, map[1])]);
      return maps ? new Map(entries) : Object.fromEntries(entries);
    }
    return v;
  };
  return Object.fromEntries(Object.entries(vars).map(([k, v]) => [k, conv(v, types[k])]));
}

/** A CEL type as @marcbachmann/cel-js writes it: `list<int>`, `map<string, int>`. */
const celJsType = (t) => t.replace(/(list|map)\(/g, '$1<').replace(/\)/g, '>');

/** A JS engine's answer in crdlab's plain JSON form (bigints as numbers). */
function plain(v) {
  if (typeof v === 'bigint') return Number(v);
  if (Array.isArray(v)) return v.map(plain);
  return v;
}

const ENGINES = {
  crdlab: {
    compile: (c) => crdlab.compileExpression(c.expr, { varTypes: c.types }),
    vars: (c) => c.vars,
    run: (compiled, vars) => compiled.evaluate(vars),
    value: (out) => ('value' in out ? out.value : { error: out.evalError || out.compileError }),
    free: (compiled) => compiled.free(),
  },
  '@marcbachmann/cel-js': {
    // Its environment with the variables' types, then parse and type-check (crdlab's compile
    // does both, and costs the expression); its plain parse() leaves the check to the first
    // evaluation.
    compile: (c) => {
      const env = new celJs.Environment();
      for (const [name, t] of Object.entries(c.types)) env.registerVariable(name, celJsType(t));
      const f = env.parse(c.expr);
      const checked = f.check();
      if (!checked.valid) throw checked.error;
      return f;
    },
    vars: (c) => jsVars(c.vars, c.types, false),
    run: (compiled, vars) => compiled(vars),
    value: plain,
    free: () => {},
  },
  '@bufbuild/cel': {
    compile: (c) => buf.plan(buf.celEnv(), buf.parse(c.expr)),
    vars: (c) => jsVars(c.vars, c.types, true),
    run: (compiled, vars) => compiled(vars),
    value: (out) => (buf.isCelError(out) ? { error: String(out.message || out) } : plain(out)),
    free: () => {},
  },
};

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
};

/** Median time of one call of `f` in ns: batches of calls long enough for the clock. */
function time(f, samples) {
  let batch = 1;
  for (;;) {
    const t = process.hrtime.bigint();
    for (let i = 0; i < batch; i++) f();
    const ns = Number(process.hrtime.bigint() - t);
    if (ns > (quick ? 2e5 : 1e6) || batch >= 1 << 20) break;
    batch *= 2;
  }
  const out = [];
  for (let s = 0; s < samples; s++) {
    const t = process.hrtime.bigint();
    for (let i = 0; i < batch; i++) f();
    out.push(Number(process.hrtime.bigint() - t) / batch);
  }
  return median(out);
}

// Warm-up: every engine compiles and evaluates every case first, so that the JIT has seen all
// of them before any is timed (otherwise the first cases are measured cold).
for (let round = 0; round < (quick ? 20 : 100); round++) {
  for (const c of CASES) {
    for (const e of Object.values(ENGINES)) {
      try {
        const compiled = e.compile(c);
        e.run(compiled, e.vars(c));
        e.free(compiled);
      } catch {
        // Reported by the comparison below.
      }
    }
  }
}

const samples = quick ? 5 : 21;
const results = []; // { case, engine, compile, evaluate } in ns
for (const c of CASES) {
  const answers = {};
  for (const [name, e] of Object.entries(ENGINES)) {
    try {
      const compiled = e.compile(c);
      answers[name] = JSON.stringify(e.value(e.run(compiled, e.vars(c))));
      e.free(compiled);
    } catch (err) {
      answers[name] = `throws ${err.message}`;
    }
  }
  const distinct = new Set(Object.values(answers));
  if (distinct.size !== 1) {
    console.log(`case ${JSON.stringify(c.name)} left out: the engines disagree: ${JSON.stringify(answers)}`);
    continue;
  }
  for (const [name, e] of Object.entries(ENGINES)) {
    const compile = time(() => e.free(e.compile(c)), samples);
    const compiled = e.compile(c);
    const vars = e.vars(c);
    const evaluate = time(() => e.run(compiled, vars), samples);
    e.free(compiled);
    results.push({ case: c.name, engine: name, compile, evaluate });
    for (const [metric, ns] of [['compile', compile], ['evaluate', evaluate]]) {
      console.log(`BENCH cel ${c.name.replaceAll(' ', '_')} ${metric} ${name} ${Math.round(ns)}`);
    }
  }
}

function fmt(ns) {
  if (ns == null) return '';
  if (ns < 1e3) return `${ns.toFixed(0)} ns`;
  if (ns < 1e6) return `${(ns / 1e3).toFixed(ns < 1e4 ? 2 : 1)} µs`;
  return `${(ns / 1e6).toFixed(ns < 1e7 ? 2 : 1)} ms`;
}

const names = Object.keys(ENGINES);
console.log(`\n| expression | step | ${names.join(' | ')} | crdlab ÷ cel-js | crdlab ÷ bufbuild |`);
console.log(`|---|---|${names.map(() => '---:').join('|')}|---:|---:|`);
for (const c of CASES) {
  for (const step of ['compile', 'evaluate']) {
    const row = Object.fromEntries(results.filter((r) => r.case === c.name).map((r) => [r.engine, r[step]]));
    if (!row.crdlab) continue;
    const ratio = (other) => (row[other] ? `${(row.crdlab / row[other]).toFixed(2)}×` : '');
    console.log(`| \`${c.expr.replaceAll("|", "\\|")}\`${c.name.match(/\d+ (ints|keys)/) ? ` (${c.name.match(/\d+ (ints|keys)/)[0]})` : ''} | ${step} | ${names.map((n) => fmt(row[n])).join(' | ')} | ${ratio('@marcbachmann/cel-js')} | ${ratio('@bufbuild/cel')} |`);
  }
}
