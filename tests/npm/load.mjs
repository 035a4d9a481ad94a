// Helpers of the npm package tests: where the built package is (engine/npm/build.sh
// OUT_DIR; env CRDLAB_NPM_DIR, default target/npm) and importing it the way a user does.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const outDir = path.resolve(root, process.env.CRDLAB_NPM_DIR || 'target/npm');

export function assertBuilt(target) {
  const pkg = path.join(outDir, target, 'package.json');
  if (!fs.existsSync(pkg)) {
    throw new Error(`${pkg} is missing: run engine/npm/build.sh ${path.relative(root, outDir) || '.'} first`);
  }
}

/** A throwaway project (a temporary folder) with the package installed, as `npm i OUT_DIR/TARGET` does. */
export function installInto(target = 'nodejs') {
  assertBuilt(target);
  const project = fs.mkdtempSync(path.join(os.tmpdir(), 'crdlab-npm-user-'));
  fs.mkdirSync(path.join(project, 'node_modules'));
  fs.symlinkSync(path.join(outDir, target), path.join(project, 'node_modules', 'crdlab'), 'dir');
  fs.writeFileSync(path.join(project, 'package.json'), '{"type": "module", "dependencies": {"crdlab": "*"}}\n');
  return project;
}

// A throwaway project with the package installed as `npm i OUT_DIR/nodejs` installs a
// folder (a symlink in node_modules), and a module of that project that imports 'crdlab'.
// Returns the ES module namespace and the CommonJS `require('crdlab')`.
export async function importInstalled(target = 'nodejs') {
  const project = installInto(target);
  fs.writeFileSync(path.join(project, 'user.mjs'), "export * from 'crdlab';\n");
  const esm = await import(pathToFileURL(path.join(project, 'user.mjs')).href);
  const cjs = createRequire(path.join(project, 'user.cjs'))('crdlab');
  return { esm, cjs, project };
}
