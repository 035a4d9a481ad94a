// Builds the docs-page widget into OUT_DIR (scripts/build-widget runs it):
//   OUT_DIR/crdlab-widget.js          this folder's crdlab-widget.js, minified by esbuild (ES module)
//   OUT_DIR/crdlab-editor.js          web/editor's CodeMirror bundle (loaded lazily)
//   OUT_DIR/crdlab-engine/            the npm package's web build: crdlab.js, crdlab_glue.js,
//                                     crdlab_bg.wasm (loaded lazily)
//
//   node web/widget/build.mjs OUT_DIR NPM_WEB_DIR
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
const [outArg, npmArg] = process.argv.slice(2);
if (!outArg || !npmArg) {
  console.error('usage: node web/widget/build.mjs OUT_DIR NPM_WEB_DIR');
  process.exit(2);
}
const out = path.resolve(outArg);
const npmWeb = path.resolve(npmArg);
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

fs.mkdirSync(path.join(out, 'crdlab-engine'), { recursive: true });
await esbuild.build({
  entryPoints: [path.join(here, 'crdlab-widget.js')],
  outfile: path.join(out, 'crdlab-widget.js'),
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
for (const f of engineFiles) fs.copyFileSync(path.join(npmWeb, f), path.join(out, 'crdlab-engine', f));

const gz = (f) => zlib.gzipSync(fs.readFileSync(path.join(out, f)), { level: 9 }).length;
const before = gz('crdlab-widget.js');
const after = ['crdlab-editor.js', ...engineFiles.map((f) => `crdlab-engine/${f}`)].map((f) => [f, gz(f)]);
const kb = (n) => `${(n / 1024).toFixed(1)} KiB`;
console.log(`web/widget: before the engine loads: crdlab-widget.js ${before} bytes gzip (${kb(before)}; budget 20 KiB)`);
for (const [f, n] of after) console.log(`web/widget: loaded later: ${f} ${n} bytes gzip (${kb(n)})`);
const total = after.reduce((s, [, n]) => s + n, 0);
console.log(`web/widget: loaded later in all: ${total} bytes gzip (${kb(total)})`);
if (before > 20 * 1024) {
  console.error('web/widget: crdlab-widget.js is over its 20 KiB gzip budget');
  process.exit(1);
}
