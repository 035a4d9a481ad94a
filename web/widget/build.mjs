// Builds the docs-page widget (scripts/build-widget runs the first form, engine/npm/build.sh
// the second):
//
//   node web/widget/build.mjs OUT_DIR NPM_WEB_DIR
//     OUT_DIR/crdlab-widget.js        this folder's crdlab-widget.js, minified by esbuild (ES module)
//     OUT_DIR/crdlab-editor.js        web/editor's CodeMirror bundle (loaded lazily)
//     OUT_DIR/crdlab-engine/          the npm package's web build: crdlab.js, crdlab_glue.js,
//                                     crdlab_bg.wasm (loaded lazily)
//   node web/widget/build.mjs --npm NPM_WEB_DIR
//     NPM_WEB_DIR/widget.js and crdlab-editor.js, the engine beside them (`crdlab/widget.js`),
//     both listed in its package.json
//
// Offline. Prints the gzip sizes: what a page downloads before the engine loads (the widget
// module), and what it loads later.
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..', '..');
const args = process.argv.slice(2);
const npmMode = args[0] === '--npm';
if (args.length !== 2) {
  console.error('usage: node web/widget/build.mjs OUT_DIR NPM_WEB_DIR | --npm NPM_WEB_DIR');
  process.exit(2);
}
const npmWeb = path.resolve(args[1]);
const out = npmMode ? npmWeb : path.resolve(args[0]);
const engineDir = npmMode ? '' : 'crdlab-engine/';
const widgetName = npmMode ? 'widget.js' : 'crdlab-widget.js';
const engineFiles = ['crdlab.js', 'crdlab_glue.js', 'crdlab_bg.wasm'];
for (const f of engineFiles) {
  if (!fs.existsSync(path.join(npmWeb, f))) {
    console.error(`web/widget: ${path.join(npmWeb, f)} is missing: run engine/npm/build.sh first`);
    process.exit(1);
  }
}

let esbuild;
try {
  esbuild = createRequire(path.join(root, 'tools', 'package.json'))('esbuild');
} catch (e) {
  console.error(`web/widget: cannot load esbuild (${e.code || e.message}); run scripts/install-tools first`);
  process.exit(1);
}

fs.mkdirSync(path.join(out, engineDir), { recursive: true });
await esbuild.build({
  entryPoints: [path.join(here, 'crdlab-widget.js')],
  outfile: path.join(out, widgetName),
  define: { __CRDLAB_ENGINE_DIR__: JSON.stringify(engineDir) },
  bundle: false,
  format: 'esm',
  platform: 'browser',
  target: ['es2022'],
  minify: true,
  legalComments: 'none',
  charset: 'utf8',
  logLevel: 'warning',
});
execFileSync(process.execPath, [path.join(root, 'web', 'editor', 'build.mjs'), path.join(out, 'crdlab-editor.js')], { stdio: 'inherit' });
if (npmMode) {
  // The package lists its files; the widget defines a custom element when imported.
  const pkgPath = path.join(out, 'package.json');
  const pkg = JSON.parse(fs.readFileSync(pkgPath, 'utf8'));
  pkg.files = [...new Set([...(pkg.files || []), 'widget.js', 'crdlab-editor.js'])];
  pkg.sideEffects = [...new Set([...(pkg.sideEffects || []), './widget.js', './crdlab-editor.js'])];
  fs.writeFileSync(pkgPath, JSON.stringify(pkg, null, 2) + '\n');
} else {
  for (const f of engineFiles) fs.copyFileSync(path.join(npmWeb, f), path.join(out, engineDir, f));
}

const gz = (f) => zlib.gzipSync(fs.readFileSync(path.join(out, f)), { level: 9 }).length;
const before = gz(widgetName);
const after = ['crdlab-editor.js', ...engineFiles.map((f) => `${engineDir}${f}`)].map((f) => [f, gz(f)]);
const kb = (n) => `${(n / 1024).toFixed(1)} KiB`;
console.log(`web/widget: before the engine loads: ${widgetName} ${before} bytes gzip (${kb(before)}; budget 20 KiB)`);
for (const [f, n] of after) console.log(`web/widget: loaded later: ${f} ${n} bytes gzip (${kb(n)})`);
const total = after.reduce((s, [, n]) => s + n, 0);
console.log(`web/widget: loaded later in all: ${total} bytes gzip (${kb(total)})`);
if (before > 20 * 1024) {
  console.error(`web/widget: ${widgetName} is over its 20 KiB gzip budget`);
  process.exit(1);
}
