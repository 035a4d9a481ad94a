/* @ts-self-types="./crdlab.d.ts" */
// The package's entry point (nodejs build): the wasm-bindgen glue (crdlab_glue.js, which
// loads crdlab_bg.wasm when required) behind crdlab's recovery layer. A crash re-requires the
// glue: a fresh module and instance.
'use strict';

const gluePath = require('path').join(__dirname, 'crdlab_glue.js');
let glue = require(gluePath);

function restartEngine() {
  delete require.cache[require.resolve(gluePath)];
  return require(gluePath);
}

//@@CORE@@

exports.InternalError = InternalError;
exports.CompiledCrd = CompiledCrd;
exports.Expression = Expression;
//@@EXPORTS@@
