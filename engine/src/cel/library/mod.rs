//! The function libraries of the Kubernetes CEL environment, one file per library (as
//! cel-go's `ext` and apiserver's `pkg/cel/library` split them), and the time/encoding
//! helpers several of them share.

pub mod cidr;
pub mod comprehensions;
pub mod cost;
#[cfg(feature = "conformance")]
pub mod encoders;
pub mod format;
pub mod ip;
pub mod lists;
pub mod listsext;
#[cfg(feature = "conformance")]
pub mod math;
pub mod optional;
pub mod quantity;
pub mod regex;
pub mod semver;
pub mod sets;
pub mod stdlib;
pub mod strings;
pub mod urls;
pub mod validators;

use super::env::{EnvOptions, Function};
use super::value::{Duration, Timestamp};

/// Every function available at the environment's compatibility version.
/// Each library gates itself on `opts.compat_minor` (apiserver `environment/base.go`).
pub fn functions(opts: &EnvOptions) -> Vec<Function> {
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

/// Go's `time.ParseDuration` (`1h30m`, `-1.5s`, `300ms`, `2us`, `1ns`) as a CEL duration.
pub fn parse_duration(s: &str) -> Option<Duration> {
    crate::go::time::parse_duration(s).map(Duration)
}

/// RFC 3339 timestamps (`2006-01-02T15:04:05.999999999Z07:00`) as CEL timestamps; `time.Parse`
/// keeps the written offset (the apiserver converts date-time fields with strfmt, which
/// parses the same way).
pub fn parse_timestamp(s: &str) -> Option<Timestamp> {
    let (secs, nanos, offset) = crate::go::time::parse_rfc3339(s)?;
    Some(Timestamp { secs, nanos, offset })
}

/// `2006-01-02` dates (format `date`), at midnight UTC.
pub fn parse_date(s: &str) -> Option<Timestamp> {
    if s.len() != 10 {
        return None;
    }
    parse_timestamp(&format!("{}T00:00:00Z", s))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_parse_like_go() {
        assert_eq!(parse_duration("1h30m"), Some(Duration(5_400_000_000_000)));
        assert_eq!(parse_duration("-1.5s"), Some(Duration(-1_500_000_000)));
        assert_eq!(parse_duration("300ms"), Some(Duration(300_000_000)));
        assert_eq!(parse_duration("0"), Some(Duration(0)));
        assert_eq!(parse_duration("1"), None);
        assert_eq!(parse_duration("1d"), None);
    }

    #[test]
    fn timestamps_parse_rfc3339() {
        assert_eq!(
            parse_timestamp("1970-01-01T00:00:01Z"),
            Some(Timestamp::utc(1, 0))
        );
        assert_eq!(
            parse_timestamp("1970-01-01T01:00:00+01:00"),
            Some(Timestamp::utc(0, 0))
        );
        assert_eq!(
            parse_timestamp("1970-01-01T01:00:00+01:00").map(|t| t.offset),
            Some(3600)
        );
        assert_eq!(
            parse_timestamp("1970-01-01T00:00:00-02:30").map(|t| t.offset),
            Some(-9000)
        );
        assert_eq!(parse_timestamp("2024-02-30T00:00:00Z"), None);
        assert_eq!(
            parse_timestamp("2024-01-01T00:00:00.5Z").map(|t| t.nanos),
            Some(500_000_000)
        );
    }
}

/// Parser macros added by the libraries at this version (`cel.bind`, optional `optMap`,
/// two-variable comprehensions, ...).
pub fn macros(opts: &EnvOptions) -> Vec<cel::parser::Macro> {
    let mut out = optional::macros(opts);
    out.extend(comprehensions::macros(opts));
    out.extend(listsext::macros(opts));
    #[cfg(feature = "conformance")]
    out.extend(math::macros(opts));
    out
}
