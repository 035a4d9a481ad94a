// Finishes one target folder of the npm package after wasm-pack: the entry point crdlab.js
// (wasm-bindgen's glue behind the recovery layer of wrap/: a panic re-creates the module and
// throws InternalError; see wrapEntry), package.json (named crdlab rather than after the
// crate, with the README listed) and the README for that target (README.md here, with the
// target's own usage first).
//
//   node engine/npm/package.mjs OUT_DIR/TARGET TARGET
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const [dir, target] = process.argv.slice(2);
const targets = ['web', 'bundler', 'nodejs'];
if (!dir || !targets.includes(target)) {
  console.error('usage: node engine/npm/package.mjs DIR web|bundler|nodejs');
  process.exit(2);
}
const here = path.dirname(fileURLToPath(import.meta.url));

wrapEntry(dir, target);

const pkgPath = path.join(dir, 'package.json');
const generated = JSON.parse(fs.readFileSync(pkgPath, 'utf8'));
// wasm-pack names the package after the crate (crdlab-npm); the package is crdlab.
const pkg = { name: 'crdlab', ...generated };
pkg.name = 'crdlab';
pkg.keywords = ['kubernetes', 'crd', 'customresourcedefinition', 'openapi', 'cel', 'validation', 'webassembly'];
pkg.files = [...new Set([...(pkg.files || []), ...(target === 'bundler' ? [] : ['crdlab_glue.js']), 'README.md'])];
if (target !== 'nodejs') pkg.sideEffects = [...new Set(['./crdlab.js', ...(pkg.sideEffects || [])])];
if (target === 'nodejs') pkg.engines = { node: '>=18' };
fs.writeFileSync(pkgPath, JSON.stringify(pkg, null, 2) + '\n');

// README.md holds one section per target between `<!-- target: NAME -->` markers; the
// target's section comes first, the others after "Other builds".
const readme = fs.readFileSync(path.join(here, 'README.md'), 'utf8');
const parts = readme.split(/^<!-- target: (\w+) -->\n/m);
const head = parts[0];
const sections = {};
for (let i = 1; i < parts.length; i += 2) sections[parts[i]] = parts[i + 1];
const tail = sections.end || '';
const out = [
  head.replaceAll('{{TARGET}}', target),
  sections[target],
  '## Other builds\n\nThe same package is built for the other targets too (`engine/npm/build.sh OUT_DIR`):\n\n',
  ...targets.filter((t) => t !== target).map((t) => sections[t].replace(/^## /m, '### ')),
  tail,
].join('');
fs.writeFileSync(path.join(dir, 'README.md'), out);

/** Fails the build: the glue wasm-bindgen wrote is not the one this script knows. */
function mismatch(file, what) {
  console.error(`engine/npm/package.mjs: ${file} does not have ${what}: wasm-bindgen's glue changed (pinned =0.2.130); update wrap/ and this script`);
  process.exit(1);
}

/** Appends `code` to a glue file after checking that it declares what the code uses. */
function patchGlue(file, needles, code) {
  const text = fs.readFileSync(file, 'utf8');
  for (const n of needles) if (!text.includes(n)) mismatch(file, JSON.stringify(n));
  fs.writeFileSync(file, text + code);
  return text;
}

/** Statements resetting the glue's cached views of the wasm memory (stale after a restart). */
function cacheResets(text) {
  return [...text.matchAll(/^let (cached\w+Memory\w*) = null;$/gm)].map((m) => `    ${m[1]} = null;\n`).join('');
}

/**
 * The entry point crdlab.js: wrap/TARGET.js with wrap/core.js inside, exporting each function
 * of the glue through `wrapFunction` (compile, compileExpression, validate, evaluate, diff, runSuite,
 * version, and the test hook __crdlabPanicOnNextCall), CompiledCrd, Expression and InternalError; InternalError added to
 * crdlab.d.ts. The glue is kept as crdlab_glue.js (web, nodejs) or crdlab_bg.js (bundler),
 * patched where a restart needs it: web gets `__crdlab_restart` (a fresh instance of the
 * compiled module through its own initSync), bundler `__crdlab_set_instance`.
 */
function wrapEntry(dir, target) {
  const entry = path.join(dir, 'crdlab.js');
  let glueFile;
  if (target === 'bundler') {
    glueFile = path.join(dir, 'crdlab_bg.js');
    const text = fs.readFileSync(glueFile, 'utf8');
    patchGlue(glueFile, ['let wasm;\nexport function __wbg_set_wasm(val) {'],
      `\n// Added by engine/npm/package.mjs: a new instance after a crash (crdlab.js).\nexport function __crdlab_set_instance(exports) {\n    wasm = exports;\n${cacheResets(text)}}\n`);
  } else {
    glueFile = path.join(dir, 'crdlab_glue.js');
    fs.renameSync(entry, glueFile);
    if (target === 'web') {
      const text = fs.readFileSync(glueFile, 'utf8');
      patchGlue(glueFile, ['let wasmModule, wasmInstance, wasm;', 'function initSync(module) {\n    if (wasm !== undefined) return wasm;', 'function __wbg_finalize_init(instance, module) {'],
        `\n// Added by engine/npm/package.mjs: a new instance of the compiled module after a crash (crdlab.js).\nexport function __crdlab_restart() {\n    if (wasmModule === undefined) throw new Error('crdlab: init() has not run');\n    const module = wasmModule;\n    wasm = undefined;\n${cacheResets(text)}    return initSync({ module });\n}\n`);
    }
  }
  const glueText = fs.readFileSync(glueFile, 'utf8');
  const names = target === 'nodejs'
    ? [...glueText.matchAll(/^exports\.(\w+) = \1;$/gm)].map((m) => m[1])
    : [...glueText.matchAll(/^export function (\w+)\(/gm)].map((m) => m[1]);
  for (const cls of ['CompiledCrd', 'Expression']) if (!glueText.includes(`class ${cls} {`)) mismatch(glueFile, `class ${cls}`);
  const api = names.filter((n) => /^[a-z]\w*$/.test(n) && n !== 'initSync');
  for (const n of ['compile', 'compileExpression', 'validate', 'evaluate', 'version', '__crdlabPanicOnNextCall']) {
    if (!names.includes(n)) mismatch(glueFile, `an export ${n}`);
  }
  if (!names.includes('__crdlabLastPanic')) mismatch(glueFile, 'an export __crdlabLastPanic');
  api.push('__crdlabPanicOnNextCall');
  const exportsCode = target === 'nodejs'
    ? api.map((n) => `exports.${n} = wrapFunction('${n}');`).join('\n')
    : api.map((n) => `export const ${n} = wrapFunction('${n}');`).join('\n');
  const core = fs.readFileSync(path.join(here, 'wrap', 'core.js'), 'utf8');
  const header = fs.readFileSync(path.join(here, 'wrap', `${target}.js`), 'utf8');
  if (!header.includes('//@@CORE@@\n') || !header.includes('//@@EXPORTS@@\n')) mismatch(`wrap/${target}.js`, 'its markers');
  fs.writeFileSync(entry, header.replace('//@@CORE@@\n', core).replace('//@@EXPORTS@@\n', exportsCode + '\n'));

  const dts = path.join(dir, 'crdlab.d.ts');
  fs.appendFileSync(dts, `
/**
 * Thrown when crdlab hit an internal error (a bug in crdlab: a panic, or another WebAssembly
 * trap). The engine was re-created: the next call works, but compiled CRDs made before it
 * throw and must be compiled again. Please report it with \`panic\`.
 */
export class InternalError extends Error {
  name: "CrdlabInternalError";
  /** Where in crdlab's source it happened, and what (\`panicked at FILE:LINE:COL:\\nMESSAGE\`). */
  readonly panic: string;
}
`);
}
