//! CEL as the apiserver runs it for `x-kubernetes-validations`, split the way cel-go
//! splits itself: the `cel` crate's parser with our macros ([`parser`]), [`checker`] (types
//! and overload resolution), [`interpreter`] (evaluation and runtime cost), [`library`]
//! (one file per function library) over [`types`]/[`value`]/[`env`], assembled per version
//! by [`environment`] and driven by [`compile`]; the static cost ([`cost`], [`cost_model`],
//! [`schema_sizes`]). Generic: schemas are seen only through [`schema::Schema`].
//! [`crate::schema::cel`] compiles a CRD's rules and runs them on objects; [`eval`] is the expression mode of
//! `crdlab batch`.

pub(crate) mod checker;
pub(crate) mod compile;
pub(crate) mod config;
pub(crate) mod cost;
pub(crate) mod cost_model;
pub mod env;
pub(crate) mod environment;
pub mod eval;
pub(crate) mod hash;
pub(crate) mod interpreter;
pub(crate) mod library;
pub(crate) mod parse_limits;
pub(crate) mod parser;
pub(crate) mod schema;
pub(crate) mod schema_sizes;
pub(crate) mod time_format;
pub mod types;
pub mod value;

pub use compile::{compile, compile_program, CompileError, Issues};
pub use config::PER_CALL_LIMIT;
pub use env::env_with_variables;
pub use environment::base_env;
pub use parser::parse;
#[doc(hidden)]
pub use parser::{parse_with, Backend, Parsed};
