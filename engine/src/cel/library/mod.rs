//! The function libraries of the Kubernetes CEL environment, one file per library (as
//! cel-go's `ext` and apiserver's `pkg/cel/library` split them), and the time/encoding
//! helpers several of them share.

pub(crate) mod cidr;
pub(crate) mod comprehensions;
pub(crate) mod cost;
#[cfg(feature = "conformance")]
pub(crate) mod encoders;
pub(crate) mod format;
pub(crate) mod ip;
pub(crate) mod lists;
pub(crate) mod listsext;
#[cfg(feature = "conformance")]
pub(crate) mod math;
pub(crate) mod optional;
pub(crate) mod quantity;
pub(crate) mod regex;
pub(crate) mod semver;
pub(crate) mod sets;
pub(crate) mod stdlib;
pub(crate) mod strings;
pub(crate) mod urls;
pub(crate) mod validators;

#[cfg(test)]
mod tests {
    use crate::cel::value::{parse_duration, parse_timestamp, Duration, Timestamp};

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
