//! The Kubernetes CEL base environment, assembled per compatibility version as apiserver
//! `pkg/cel/environment/base.go` does: every function library and parser macro of
//! [`crate::cel::library`], each gating itself on the version. Above the libraries (which
//! declare their functions with [`crate::cel::env`]'s types) so that neither imports the
//! other back.

use crate::cel::env::{Env, EnvOptions, Function};
use crate::cel::library::{
    cidr, comprehensions, format, ip, lists, listsext, optional, quantity, regex, semver, sets,
    stdlib, strings, urls,
};
#[cfg(feature = "conformance")]
use crate::cel::library::{encoders, math};
use std::sync::{Arc, Mutex};

/// Every function available at the environment's compatibility version.
/// Each library gates itself on `opts.compat_minor` (apiserver `environment/base.go`).
pub fn library_functions(opts: &EnvOptions) -> Vec<Function> {
    let mut out = stdlib::functions(opts);
    for lib in [
        strings::functions,
        regex::functions,
        lists::functions,
        listsext::functions,
        sets::functions,
        quantity::functions,
        ip::functions,
        cidr::functions,
        urls::functions,
        semver::functions,
        format::functions,
        optional::functions,
        comprehensions::functions,
    ] {
        out.extend(lib(opts));
    }
    // Off in every Kubernetes environment; on only for the conformance harness, and not
    // compiled into the wasm builds (feature `conformance`).
    #[cfg(feature = "conformance")]
    if opts.conformance_extensions {
        out.extend(math::functions(opts));
        out.extend(encoders::functions(opts));
    }
    out
}

/// Parser macros added by the libraries at this version (`cel.bind`, optional `optMap`,
/// two-variable comprehensions, ...).
pub fn library_macros(opts: &EnvOptions) -> Vec<cel::parser::Macro> {
    let mut out = optional::macros(opts);
    out.extend(comprehensions::macros(opts));
    out.extend(listsext::macros(opts));
    #[cfg(feature = "conformance")]
    out.extend(math::macros(opts));
    out
}

/// A new base environment at a compatibility version, without variables (the uncached
/// form of [`base_env`]).
pub fn build_base_env(options: EnvOptions) -> Env {
    let mut env = Env::empty(options);
    for f in library_functions(&env.options) {
        env.add_function(f);
    }
    env
}

/// The base environment (no variables) at a compatibility version, shared.
pub fn base_env(opts: &EnvOptions) -> Arc<Env> {
    // A list searched in order, not a hash map: it holds one entry per (release,
    // compatibility) pair ever asked, a few, and every expression compiled asks it (the
    // std map's SipHash of the options cost more than the search).
    static CACHE: Mutex<Vec<(EnvOptions, Arc<Env>)>> = Mutex::new(Vec::new());
    let mut guard = match CACHE.lock() {
        Ok(g) => g,
        Err(p) => p.into_inner(),
    };
    if let Some((_, env)) = guard.iter().find(|(o, _)| o == opts) {
        return env.clone();
    }
    let env = Arc::new(build_base_env(opts.clone()));
    guard.push((opts.clone(), env.clone()));
    env
}
