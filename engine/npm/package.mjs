// Finishes one target folder of the npm package after wasm-pack: package.json (named
// crdlab rather than after the crate, with the README listed) and the README for that target (README.md here, with the
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

const pkgPath = path.join(dir, 'package.json');
const generated = JSON.parse(fs.readFileSync(pkgPath, 'utf8'));
// wasm-pack names the package after the crate (crdlab-npm); the package is crdlab.
const pkg = { name: 'crdlab', ...generated };
pkg.name = 'crdlab';
pkg.keywords = ['kubernetes', 'crd', 'customresourcedefinition', 'openapi', 'cel', 'validation', 'webassembly'];
pkg.files = [...new Set([...(pkg.files || []), 'README.md'])];
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
