//! Shared by the integration tests: the widgets CRD fixtures (one text, in
//! `engine/src/testing.rs`, which the unit tests use too) and a one-version CRD to put schema
//! properties and rules in.

// Each integration test uses only part of this module.
#![allow(dead_code, unused_imports)]

#[path = "../../src/testing.rs"]
mod testing;

pub use testing::{widgets_json, widgets_spec, widgets_yaml, WIDGETS_HEAD};

/// The widgets CRD whose `spec` has `props` (YAML lines indented 14 spaces) and `spec`-level
/// `rules` (x-kubernetes-validations entries, 12 spaces).
pub fn crd(props: &str, rules: &str) -> String {
    widgets_spec(&format!(
        "            properties:\n{}\n            x-kubernetes-validations:\n{}\n",
        props, rules
    ))
}
