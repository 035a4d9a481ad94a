/* @ts-self-types="./crdlab.d.ts" */
// The package's entry point (bundler build): the wasm-bindgen glue (crdlab_bg.js) behind
// crdlab's recovery layer. The module is not imported as a WebAssembly ES module (an
// instance that cannot be re-created) but fetched from `new URL('./crdlab_bg.wasm',
// import.meta.url)`, which bundlers emit as an asset, and compiled once with top-level
// await; a crash instantiates it again, synchronously. Under Node (tests, SSR) the file URL
// is read from disk.
import * as bg from './crdlab_bg.js';

const wasmUrl = new URL('./crdlab_bg.wasm', import.meta.url);

async function compileWasm() {
  if (wasmUrl.protocol === 'file:') {
    const fs = await import(/* webpackIgnore: true */ /* @vite-ignore */ 'node:fs/promises');
    return WebAssembly.compile(await fs.readFile(wasmUrl));
  }
  const response = await fetch(wasmUrl);
  if (!response.ok) throw new Error(`crdlab: cannot fetch ${wasmUrl}: ${response.status} ${response.statusText}`);
  if (typeof WebAssembly.compileStreaming === 'function' && response.headers.get('content-type') === 'application/wasm') {
    return WebAssembly.compileStreaming(response);
  }
  return WebAssembly.compile(await response.arrayBuffer());
}

const wasmModule = await compileWasm();

function instantiate() {
  const imports = {};
  for (const { module } of WebAssembly.Module.imports(wasmModule)) {
    if (module !== './crdlab_bg.js') throw new Error(`crdlab: unexpected import module ${module}`);
    imports[module] = bg;
  }
  const instance = new WebAssembly.Instance(wasmModule, imports);
  bg.__crdlab_set_instance(instance.exports);
  instance.exports.__wbindgen_start();
  return bg;
}

let glue = instantiate();
const restartEngine = instantiate;

//@@CORE@@

export { InternalError, CompiledCrd, Expression };
//@@EXPORTS@@
