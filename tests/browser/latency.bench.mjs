// Playground latency benchmark (issue: ≤ 16 ms from edit to updated results for the
// postgres-operator postgresclusters CRD). Loads that CRD (../shared/crds, 2.8 MB of YAML)
// and an example object from the vectors into the release build in headless Chromium, then
// types into the object editor and into a rule of the CRD, and prints the app's own timings
// (window.__crdlabTimings: performance.now() from the editor's change to the results on
// screen). Prints figures; never fails on timing.
//
// Run from the repo root after `trunk build --release`: node tests/browser/latency.bench.mjs

import fs from 'node:fs';
import path from 'node:path';
import { launch, openPlayground, setEditor, root, WAIT } from './lib.mjs';

const shared = path.resolve(root, process.env.SHARED || '../shared');
const crdPath = path.join(shared, 'crds/postgres-operator/config/crd/bases/postgres-operator.crunchydata.com_postgresclusters.yaml');
const vectors = path.join(shared, 'vectors/postgres-operator/postgres-operator.crunchydata.com_postgresclusters.jsonl');
if (!fs.existsSync(crdPath)) {
  console.log(`latency benchmark skipped: ${crdPath} not found`);
  process.exit(0);
}
const crd = fs.readFileSync(crdPath, 'utf8');
const example = fs
  .readFileSync(vectors, 'utf8')
  .split('\n')
  .filter(Boolean)
  .map((l) => JSON.parse(l))
  .find((v) => v.request?.object && typeof v.request.object === 'object').request.object;
// The object as YAML-compatible JSON text, one field per line, with a counter to edit.
example.metadata = { ...(example.metadata || {}), annotations: { 'bench/counter': '0' } };
const objectText = JSON.stringify(example, null, 2);

const stats = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const q = (p) => s[Math.min(s.length - 1, Math.floor(p * s.length))];
  return `median ${q(0.5).toFixed(2)} ms, p90 ${q(0.9).toFixed(2)} ms, max ${s[s.length - 1].toFixed(2)} ms (n=${s.length})`;
};

const env = await launch();
try {
  const { page } = await openPlayground(env.context, env.baseUrl);
  const t0 = Date.now();
  await setEditor(page, 'crd-editor', crd);
  await setEditor(page, 'object-editor', objectText);
  await page.waitForFunction(() => document.querySelector('[data-testid=summary]')?.textContent.includes('hippo') ||
    document.querySelector('[data-testid=summary]')?.textContent.includes('PostgresCluster'), null, { timeout: 120_000 });
  console.log(`postgresclusters CRD (${(crd.length / 1e6).toFixed(1)} MB) loaded and first results in ${Date.now() - t0} ms`);
  const timings = async (kind) => (await page.evaluate(() => window.__crdlabTimings || [])).filter((t) => t.kind === kind).map((t) => t.ms);
  await page.evaluate(() => { window.__crdlabTimings = []; });

  // 1. Typing in the object: the compiled CRD is reused; every keystroke re-validates.
  const ed = page.getByTestId('object-editor');
  await ed.click();
  await page.keyboard.press('Control+End');
  for (let i = 0; i < 60; i++) {
    await page.keyboard.type(i % 2 ? ' ' : 'x');
    await page.waitForTimeout(20);
  }
  await page.waitForTimeout(500);
  const obj = await timings('object');
  console.log(`edit object → updated results: ${stats(obj)}  (target ≤ 16 ms)`);

  // 2. Editing a rule's message in the CRD text: the CRD is recompiled (debounced while
  //    compiling takes longer than a frame), figures include the wait.
  await page.evaluate(() => { window.__crdlabTimings = []; });
  for (let i = 0; i < 5; i++) {
    await setEditor(page, 'crd-editor', crd.replace('message: ', `message: edit${i} `));
    await page.waitForTimeout(1500);
  }
  const compile = await timings('compile');
  const crdEdit = await timings('crd');
  console.log(`compile the CRD in the page (wasm): ${stats(compile)}`);
  console.log(`edit CRD → updated results (incl. debounce): ${stats(crdEdit)}`);
  console.log(`figures: ${JSON.stringify({ objectEditMedianMs: +stats(obj).split(' ')[1], compileMedianMs: compile.length ? +stats(compile).split(' ')[1] : null })}`);
  // For scripts/bench (tests/bench/table.mjs): medians in ns.
  const med = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  for (const [metric, xs] of [['object_edit', obj], ['crd_edit', crdEdit], ['compile_in_page', compile]]) {
    if (xs.length) console.log(`BENCH browser postgresclusters ${metric} crdlab ${Math.round(med(xs) * 1e6)}`);
  }
  await page.close();
} finally {
  await env.close();
}
