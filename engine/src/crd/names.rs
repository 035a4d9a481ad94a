//! Moved to [`crate::k8s::names`] and [`crate::go::neturl`]; the importers are rewritten in
//! the last commit of issue 14.
pub use crate::go::neturl::{parse_go_url, GoUrl};
pub use crate::k8s::names::*;
