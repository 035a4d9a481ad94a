// Reads the `BENCH PART CASE METRIC ENGINE NS` lines of scripts/bench's parts (cargo bench
// -p crdlab --bench engine, tests/bench/cel-compare.mjs, tests/browser/latency.bench.mjs)
// from the files given and prints them as one Markdown table: crdlab's median, the two JS CEL
// engines' beside it where they ran the same case, and the ratios (crdlab's time ÷ the
// other's: below 1 is faster), then the issue 18 target where one is set. The `cel` rows:
// crdlab is the npm package in node (wasm; compileExpression, Expression.evaluate), crdlab
// native the same compile and run in Rust (cargo bench).
//
//   node tests/bench/table.mjs FILE...
import fs from 'node:fs';

const OTHERS = ['@marcbachmann/cel-js', '@bufbuild/cel'];
// Issue 18's targets (ns), for the postgres-operator CRD and the playground.
const TARGETS = {
  // Issue 18 defines it in one fresh `crdlab batch` process, start-up subtracted.
  'cargo postgres-operator_postgresclusters compile_process': 30e6,
  'cargo postgres-operator_postgresclusters recompile': 8e6,
  'browser postgresclusters object_edit': 4e6,
  'browser postgresclusters crd_edit': 16e6,
  // Native evaluation: ≥ 8 M/s and ≥ 30 k/s.
  'cel arithmetic program': 125,
  'cel exists_over_1000_ints program': 1e9 / 30e3,
};
const LABELS = {
  compile: 'compile',
  'cargo compile': 'compile (in process)',
  compile_process: 'create in a fresh `crdlab batch` process, start-up subtracted',
  read_yaml: '↳ of which reading the YAML',
  recompile: 're-compile after a one-rule edit',
  recompile_value: '↳ the edited JSON compiled through the cache alone, no nodes kept',
  playground_edit: "playground CRD edit (view::Workspace, native)",
  playground_edit_rules: "↳ the same with the rules pane shown (its rules and schema nodes)",
  validate: 'validate an example object',
  evaluate: 'evaluate',
  program: 'evaluate, the program alone (no answer built)',
  object_edit: 'object edit → results on screen',
  crd_edit: 'CRD edit → results on screen',
  compile_in_page: 'compile the CRD (wasm, in the engine worker)',
  page_keystroke_object: "the page thread's own work per keystroke in the object",
  page_keystroke_crd: "the page thread's own work per keystroke in the CRD",
};

const rows = new Map(); // "part case metric" -> { part, case, metric, engines: {name: ns} }
for (const file of process.argv.slice(2)) {
  if (!fs.existsSync(file)) continue;
  for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
    const m = /^BENCH (\S+) (\S+) (\S+) (\S+) (\d+(?:\.\d+)?)$/.exec(line.trim());
    if (!m) continue;
    const [, part, name, metric, engine, ns] = m;
    const key = `${part} ${name} ${metric}`;
    if (!rows.has(key)) rows.set(key, { part, name, metric, engines: {} });
    rows.get(key).engines[engine] = Number(ns);
  }
}

function fmt(ns) {
  if (ns == null) return '';
  if (ns < 1e3) return `${ns.toFixed(0)} ns`;
  if (ns < 1e6) return `${(ns / 1e3).toFixed(ns < 1e4 ? 2 : 1)} µs`;
  return `${(ns / 1e6).toFixed(ns < 1e7 ? 2 : 1)} ms`;
}
const ratio = (a, b) => (a != null && b ? `${(a / b).toFixed(2)}×` : '');

console.log(`| part | benchmark | crdlab | crdlab native | ${OTHERS.join(' | ')} | crdlab ÷ cel-js | crdlab ÷ bufbuild | target | crdlab ÷ target |`);
console.log('|---|---|---:|---:|---:|---:|---:|---:|---:|---:|');
for (const [key, r] of rows) {
  const mine = r.engines.crdlab;
  const target = TARGETS[key];
  const what = `${r.name.replaceAll('_', ' ')}: ${LABELS[`${r.part} ${r.metric}`] || LABELS[r.metric] || r.metric}`;
  console.log(`| ${r.part} | ${what} | ${fmt(mine)} | ${fmt(r.engines['crdlab-native'])} | ${OTHERS.map((o) => fmt(r.engines[o])).join(' | ')} | ${ratio(mine, r.engines[OTHERS[0]])} | ${ratio(mine, r.engines[OTHERS[1]])} | ${target ? `≤ ${fmt(target)}` : ''} | ${ratio(mine ?? r.engines['crdlab-native'], target)} |`);
}
if (rows.size === 0) console.log('| | (no figures) | | | | | | | | |');
