//! A CustomResourceDefinition: its typed model ([`model`]), loading ([`load`]), the
//! apiserver's create checks ([`validation`]) and the compile that validation reuses
//! ([`compiled`]).

pub mod compiled;
pub(crate) mod gojson;
pub mod load;
pub mod model;
pub mod validation;

pub use compiled::{CompileCache, CompiledCrd, CompiledVersion};
pub use load::decode_crd;
