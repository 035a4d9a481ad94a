//! The CEL environment: declared functions (with cel-go's overload ids, signatures and
//! implementations), variables and parser macros, assembled per Kubernetes compatibility
//! version as apiserver `pkg/cel/environment/base.go` does.

use crate::cel::hash::FastMap;
use crate::cel::types::Type;
use crate::cel::value::{EvalResult, Val};
use std::collections::HashMap;
use std::sync::Arc;
use crate::version::Feature;

/// An implementation: receives the arguments (receiver first for member calls).
pub type Impl = for<'a> fn(&[Val<'a>]) -> EvalResult<'a>;

/// One overload of a function.
#[derive(Clone)]
pub struct Overload {
    /// cel-go's overload id (`add_int64`, `string_contains_string`, ...): the key the cost
    /// estimator and the runtime cost use.
    pub id: &'static str,
    /// Receiver-style (`x.f(y)`): `params[0]` is the receiver.
    pub member: bool,
    pub params: Vec<Type>,
    pub result: Type,
    /// `None` for operators the interpreter evaluates itself (`_&&_`, `_||_`, `_?_:_`,
    /// `@not_strictly_false`, optional selection...).
    pub imp: Option<Impl>,
    /// Whether a type parameter occurs in the signature: the checker instantiates only
    /// these with fresh variables (computed once here, not per call checked).
    pub generic: bool,
    /// How many fresh variables instantiating it draws: its distinct type parameters.
    pub fresh: usize,
}

impl Overload {
    pub fn global(id: &'static str, params: Vec<Type>, result: Type, imp: Impl) -> Overload {
        Overload::new(id, false, params, result, Some(imp))
    }
    pub fn member(id: &'static str, params: Vec<Type>, result: Type, imp: Impl) -> Overload {
        Overload::new(id, true, params, result, Some(imp))
    }
    /// Declared for the checker only; the interpreter handles the call.
    pub fn special(id: &'static str, member: bool, params: Vec<Type>, result: Type) -> Overload {
        Overload::new(id, member, params, result, None)
    }
    fn new(id: &'static str, member: bool, params: Vec<Type>, result: Type, imp: Option<Impl>) -> Overload {
        let fresh = {
            let mut names = Vec::new();
            for t in params.iter().chain([&result]) {
                t.param_names(&mut names);
            }
            // A signature has a few parameters: the distinct ones counted without a sort
            // (one instantiated for `&str` costs the npm module's size budget).
            names.iter().enumerate().filter(|(i, n)| !names[..*i].contains(n)).count()
        };
        Overload { id, member, params, result, imp, generic: fresh > 0, fresh }
    }
}

/// A function and its overloads.
#[derive(Clone)]
pub struct Function {
    pub name: &'static str,
    pub overloads: Vec<Overload>,
}

impl Function {
    pub fn new(name: &'static str, overloads: Vec<Overload>) -> Function {
        Function { name, overloads }
    }
}

/// The last compatibility version at which anything changes (lists extension v3 at 1.34):
/// every library gate (`opts.compat_minor` in `cel/library/*`, the checker's keyword field
/// names) and every [`crate::version::Gate::Compatibility`] feature is at or below it; a
/// test holds them to it.
pub const LAST_COMPAT_GATE: u32 = 34;

/// Environment options that change parsing and checking.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct EnvOptions {
    /// The Kubernetes compatibility version (minor) the libraries are chosen for.
    pub compat_minor: u32,
    /// The Kubernetes release (minor) whose server binary compiles and runs the program:
    /// its cel-go and apiserver code parse and check (grammar, lexer, checker messages),
    /// declare and evaluate the library functions (`first()` arriving with cel-go v0.23,
    /// `%e` printing, the `format` call validator, ...) and decide the static and runtime
    /// cost figures ([`crate::cel::cost_model::CostModel`]), whatever the compatibility
    /// version.
    pub release_minor: u32,
    /// Optional syntax (`?.`, `[?]`, `{?k: v}`) — on with the optional library (1.28+).
    pub optional_syntax: bool,
    /// Cross-type numeric comparisons (1.28+).
    pub cross_type_numeric: bool,
    /// Duration/timestamp/regex literals are checked at compile time (1.29+).
    pub literal_validators: bool,
    /// cel-go extension libraries the apiserver never installs (`ext.Math`,
    /// `ext.Encoders`): only the CEL conformance harness turns them on. Never set for CRD
    /// rules or expression-mode requests.
    pub conformance_extensions: bool,
}

impl EnvOptions {
    /// Whether the release whose code implements the libraries ([`Self::release_minor`]) has
    /// `f` (a [`crate::version::Gate::Release`] feature of cel-go or the apiserver's
    /// libraries).
    pub fn code_has(&self, f: Feature) -> bool {
        f.enabled_at(self.release_minor)
    }

    /// The options of the environment new expressions compile in at `compat_minor`: the
    /// new-expressions environment of release `compat_minor + 1`.
    pub fn for_version(compat_minor: u32) -> EnvOptions {
        EnvOptions::with_release(compat_minor, compat_minor + 1)
    }

    /// The options of release `release_minor`'s stored-expressions environment: every
    /// library of the release (compatibility version = the release itself).
    pub fn stored(release_minor: u32) -> EnvOptions {
        EnvOptions::with_release(release_minor, release_minor)
    }

    fn with_release(compat_minor: u32, release_minor: u32) -> EnvOptions {
        // Compatibility versions past the last gate build the same environment: clamping
        // makes their options equal, so a release whose new- and stored-expressions
        // environments coincide (1.35 on) compiles its rules once, not once per environment.
        let compat_minor = compat_minor.min(LAST_COMPAT_GATE);
        EnvOptions {
            compat_minor,
            release_minor,
            optional_syntax: Feature::OptionalSyntax.enabled_at(compat_minor),
            cross_type_numeric: Feature::OptionalSyntax.enabled_at(compat_minor),
            literal_validators: Feature::LiteralValidators.enabled_at(compat_minor),
            conformance_extensions: false,
        }
    }
}

/// A built environment, shared (`Arc`) by every program compiled in it.
pub struct Env {
    pub options: EnvOptions,
    /// Shared (`Arc`) with every environment derived from the same base: adding variables
    /// for a rule never copies the function tables.
    pub functions: Arc<FastMap<&'static str, Function>>,
    /// Names the request chooses: the std map's keyed hash, which no choice of names floods.
    pub variables: HashMap<String, Type>,
    /// Overload id → implementation, for the interpreter.
    pub impls: Arc<FastMap<&'static str, Option<Impl>>>,
    /// Overload id → parameter types, for runtime dispatch among several candidates.
    pub params: Arc<FastMap<&'static str, Vec<Type>>>,
}

impl Env {
    /// An environment without functions or variables; the Kubernetes base environment is
    /// [`crate::cel::environment::base_env`].
    pub fn empty(options: EnvOptions) -> Env {
        Env {
            options,
            functions: Arc::new(FastMap::default()),
            variables: HashMap::new(),
            impls: Arc::new(FastMap::default()),
            params: Arc::new(FastMap::default()),
        }
    }

    /// Adds a function; overloads of an existing function are merged.
    pub fn add_function(&mut self, f: Function) {
        let impls = Arc::make_mut(&mut self.impls);
        let params = Arc::make_mut(&mut self.params);
        for o in &f.overloads {
            impls.insert(o.id, o.imp);
            params.insert(o.id, o.params.clone());
        }
        let functions = Arc::make_mut(&mut self.functions);
        match functions.get_mut(f.name) {
            Some(existing) => existing.overloads.extend(f.overloads),
            None => {
                functions.insert(f.name, f);
            }
        }
    }

    pub fn add_variable(&mut self, name: &str, t: Type) {
        self.variables.insert(name.to_string(), t);
    }

    pub fn function(&self, name: &str) -> Option<&Function> {
        self.functions.get(name)
    }

    pub fn into_shared(self) -> Arc<Env> {
        Arc::new(self)
    }
}

/// A copy of `base` with extra variables (the function tables stay shared).
pub fn env_with_variables(base: &Env, vars: &[(String, Type)]) -> Env {
    let mut env = Env {
        options: base.options.clone(),
        functions: base.functions.clone(),
        variables: base.variables.clone(),
        impls: base.impls.clone(),
        params: base.params.clone(),
    };
    for (n, t) in vars {
        env.add_variable(n, t.clone());
    }
    env
}

#[cfg(test)]
mod compat_gate_tests {
    use super::LAST_COMPAT_GATE;
    use crate::version::{Feature, Gate};

    /// Clamping the compatibility version is only sound while no gate lies beyond
    /// [`LAST_COMPAT_GATE`]: the compatibility-gated features and the numeric gates written
    /// in the library files.
    #[test]
    fn no_compatibility_gate_lies_beyond_the_last() {
        for f in Feature::ALL {
            if f.gate() == Gate::Compatibility {
                assert!(f.since() <= LAST_COMPAT_GATE, "{:?} gates at {}", f, f.since());
            }
        }
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/src/cel");
        let mut files = vec![format!("{}/checker.rs", dir)];
        for e in std::fs::read_dir(format!("{}/library", dir)).unwrap() {
            files.push(e.unwrap().path().to_string_lossy().into_owned());
        }
        for f in files {
            let text = std::fs::read_to_string(&f).unwrap();
            for (i, _) in text.match_indices("compat_minor") {
                let rest = &text[i + "compat_minor".len()..];
                let rest = rest.trim_start_matches([' ', '<', '>', '=']);
                let digits: String = rest.chars().take_while(|c| c.is_ascii_digit()).collect();
                if let Ok(n) = digits.parse::<u32>() {
                    assert!(n <= LAST_COMPAT_GATE, "{} gates at compatibility {}", f, n);
                }
            }
        }
        assert!(crate::cel::checker::KEYWORD_FIELD_NAMES_SINCE <= LAST_COMPAT_GATE);
    }
}
