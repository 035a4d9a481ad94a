//! Moved to [`crate::go`]; the importers are rewritten in the last commit of issue 14.
pub use crate::go::fmt::{format_float_v, go_sharp_v, go_v, go_v_into};
pub use crate::go::json::{format_float_json, json_marshal, json_string, to_json_string, unstructured_numbers};
pub use crate::go::strconv::quote;
pub use crate::go::unicode::is_print;
