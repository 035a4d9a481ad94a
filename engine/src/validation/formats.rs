//! The string formats the apiserver checks (kube-openapi `strfmt` registry as apiextensions
//! configures it).

/// Whether `value` is valid for `format`; unknown formats accept everything.
pub fn check_format(_format: &str, _value: &str) -> bool {
    true
}
