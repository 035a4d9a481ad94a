//! The npm package `crdlab`: links the engine's wasm API ([`crdlab::wasm`], feature `wasm`)
//! into the cdylib that wasm-pack builds (engine/npm/build.sh). The engine itself stays an
//! rlib: a cdylib crate type would be linked, at some cost, by every build of it.
pub use crdlab::wasm::*;
