// Bundles src/index.js (CodeMirror 6 + window.CrdlabEditor) into one minified IIFE.
//
//   node web/editor/build.mjs OUTFILE
//   node web/editor/build.mjs --trunk-staging NAME   (writes $TRUNK_STAGING_DIR/NAME)
//
// Offline and quick (~0.35 s): node_modules here (CodeMirror) and in tools/ (esbuild) are
// installed by scripts/install-tools (npm ci).
// Trunk runs the second form as a pre_build hook (Trunk.toml): hook arguments are not expanded
// by a shell, so the staging dir comes from the environment Trunk sets for hooks. Trunk moves
// the staging dir to dist/, so the bundle lands next to index.html; dist/ is not watched, so
// `trunk serve` does not rebuild in a loop. Prints the raw and gzip size.

import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const usage = 'usage: node web/editor/build.mjs OUTFILE | --trunk-staging NAME';
const args = process.argv.slice(2);
let outfile;
if (args.length === 1 && !args[0].startsWith('--')) {
  outfile = path.resolve(args[0]);
} else if (args.length === 2 && args[0] === '--trunk-staging' && !args[1].includes('/')) {
  const staging = process.env.TRUNK_STAGING_DIR;
  if (!staging) {
    console.error('web/editor: --trunk-staging needs TRUNK_STAGING_DIR (set by Trunk for hooks)');
    process.exit(2);
  }
  outfile = path.join(staging, args[1]);
} else {
  console.error(usage);
  process.exit(2);
}

// esbuild is a build tool of the repository (tools/package.json), not a package of the bundle:
// it is loaded from tools/node_modules; the CodeMirror packages it bundles come from here.
let esbuild;
try {
  esbuild = createRequire(path.join(here, '..', '..', 'tools', 'package.json'))('esbuild');
} catch (e) {
  console.error(
    `web/editor: cannot load esbuild (${e.code || e.message}); run scripts/install-tools ` +
      '(or `npm ci` in tools/ and web/editor/) first',
  );
  process.exit(1);
}

const result = await esbuild
  .build({
    absWorkingDir: here,
    entryPoints: [path.join(here, 'src', 'index.js')],
    outfile,
    write: false, // written below, with the licence notices appended
    bundle: true,
    format: 'iife',
    platform: 'browser',
    target: ['es2020'],
    minify: true,
    legalComments: 'none', // the packages carry none; their LICENSE files are appended instead
    charset: 'utf8',
    logLevel: 'warning',
    metafile: true,
  })
  .catch(() => null); // esbuild has already printed the errors
if (!result) process.exit(1);

// The MIT licences ask for their notice in every copy: append each bundled package's LICENSE
// text once (most are the same text), with the packages it covers.
function licenceNotices(metafile) {
  const roots = new Set();
  for (const input of Object.keys(metafile.inputs)) {
    const m = /^(.*node_modules\/(?:@[^/]+\/)?[^/]+)\//.exec(input.split(path.sep).join('/'));
    if (m) roots.add(m[1]);
  }
  const byText = new Map();
  for (const root of [...roots].sort()) {
    const dir = path.resolve(here, root);
    const pkg = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'));
    const file = fs.readdirSync(dir).find((f) => /^licen[cs]e/i.test(f));
    const text = file
      ? fs.readFileSync(path.join(dir, file), 'utf8').trim().replace(/\*\//g, '* /')
      : `${pkg.license || 'see the package'}`;
    if (!byText.has(text)) byText.set(text, []);
    byText.get(text).push(`${pkg.name}@${pkg.version}`);
  }
  const parts = [...byText].map(([text, pkgs]) => `${pkgs.join(', ')}:\n\n${text}`);
  return `/*! crdlab-editor bundles these npm packages under their licences.\n\n${parts.join('\n\n---\n\n')}\n*/\n`;
}

const out = result.outputFiles.find((f) => f.path === outfile) || result.outputFiles[0];
const code = Buffer.concat([Buffer.from(out.contents), Buffer.from(licenceNotices(result.metafile))]);
fs.mkdirSync(path.dirname(outfile), { recursive: true });
fs.writeFileSync(outfile, code);
const gz = zlib.gzipSync(code, { level: 9 }).length;
console.log(
  `web/editor: ${outfile}: ${code.length} bytes raw (${(code.length / 1024).toFixed(1)} KiB), ` +
    `${gz} bytes gzip (${(gz / 1024).toFixed(1)} KiB)`,
);
