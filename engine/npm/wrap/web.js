/* @ts-self-types="./crdlab.d.ts" */
// The package's entry point (web build): the wasm-bindgen glue (crdlab_glue.js; `init()`
// fetches and instantiates crdlab_bg.wasm) behind crdlab's recovery layer. A crash
// re-instantiates the already compiled WebAssembly.Module, synchronously
// (`__crdlab_restart`, added to the glue by engine/npm/package.mjs).
import * as glueModule from './crdlab_glue.js';
import initGlue, { initSync as initSyncGlue } from './crdlab_glue.js';

let glue = glueModule;

function restartEngine() {
  glueModule.__crdlab_restart();
  return glueModule;
}

//@@CORE@@

/** Fetches and instantiates crdlab_bg.wasm (or what `module_or_path` gives); once, before any other call. */
export default function init(moduleOrPath) {
  return initGlue(moduleOrPath);
}
/** `init`, synchronously, from bytes or a `WebAssembly.Module`. */
export function initSync(module) {
  return initSyncGlue(module);
}
export { InternalError, CompiledCrd, Expression };
//@@EXPORTS@@
