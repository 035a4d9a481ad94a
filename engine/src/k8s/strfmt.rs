//! The string formats the apiserver checks: kube-openapi's `strfmt.Default` registry, as
//! apiextensions restricts it (`pkg/apiserver/validation/formats.go`: formats a CRD may use
//! at the compatibility version; others are stripped from the schema and accept anything).
//!
//! Each checker re-expresses the Go function the registry uses: `net.ParseIP` (sloppy for
//! ipv4/cidr), `net.ParseMAC`, `url.ParseRequestURI`, `net/mail.ParseAddress`,
//! `time.Parse`, `time.ParseDuration` plus strfmt's lenient durations,
//! `resource.ParseQuantity`, govalidator's regular expressions. The Go parsers live in
//! [`crate::go`] (netip, neturl, mail, time, regexp), shared with the CEL libraries.

use crate::go::mail::parse_address_ok;
use crate::go::netip::{is_cidr_sloppy, is_mac, parse_ip, parse_ip_sloppy};
use crate::go::neturl::{parse_request_uri_with, HostRules};
use crate::go::regexp::compile_re2;
use crate::go::time::{days_in_month, parse_duration};
use crate::version::KubeVersion;
use regex::Regex;
use std::sync::OnceLock;

/// Formats a string schema may use at compatibility version 1.35 (a 1.36 server), with
/// go-openapi's name normalization (dashes removed): apiextensions'
/// `supportedVersionedFormats`. The two 1.34 names count from compatibility version 1.34
/// ([`is_supported_string_format_at`]).
const SUPPORTED: &[&str] = &[
    // 1.0
    "bsonobjectid",
    "uri",
    "email",
    "hostname",
    "ipv4",
    "ipv6",
    "cidr",
    "mac",
    "uuid",
    "uuid3",
    "uuid4",
    "uuid5",
    "isbn",
    "isbn10",
    "isbn13",
    "creditcard",
    "ssn",
    "hexcolor",
    "rgbcolor",
    "byte",
    "password",
    "date",
    "duration",
    "datetime",
    // 1.34
    "k8sshortname",
    "k8slongname",
];

/// The formats introduced at compatibility version 1.34.
const SINCE_1_34: &[&str] = &["k8sshortname", "k8slongname"];

/// go-openapi's `DefaultNameNormalizer`: removes all dashes.
pub fn normalize(format: &str) -> std::borrow::Cow<'_, str> {
    if format.contains('-') {
        std::borrow::Cow::Owned(format.replace('-', ""))
    } else {
        std::borrow::Cow::Borrowed(format)
    }
}

/// Whether `format` survives `StripUnsupportedFormatsPostProcess` on a string (or
/// untyped, or int-or-string) schema, i.e. whether the apiserver validates it.
pub fn is_supported_string_format(format: &str) -> bool {
    is_supported_string_format_at(format, KubeVersion::LATEST)
}

/// [`is_supported_string_format`] on a release: apiextensions checks formats at the
/// compatibility version (the release before), so `k8s-short-name` counts from 1.35.
pub fn is_supported_string_format_at(format: &str, kube: KubeVersion) -> bool {
    if format.is_empty() {
        return false;
    }
    let n = normalize(format);
    SUPPORTED.contains(&&*n) && (kube.minor.saturating_sub(1) >= 34 || !SINCE_1_34.contains(&&*n))
}

/// The format kube-openapi validates a node with on `kube`: what apiextensions'
/// `StripUnsupportedFormatsPostProcessorForVersion` leaves of `format` ("" when stripped).
/// Before 1.36 every format outside the string list is stripped, whatever the type; from
/// 1.36 (kubernetes PR 136582) integers keep `int32`/`int64` and numbers `float`/`double`,
/// and other non-string types lose every format. `schema_type` is "" for untyped and
/// int-or-string nodes.
pub fn validation_format<'f>(format: &'f str, schema_type: &str, kube: KubeVersion) -> &'f str {
    let keep = if !kube.at_least(NUMERIC_FORMATS_SINCE) {
        is_supported_string_format_at(format, kube)
    } else {
        match schema_type {
            "" | "string" => is_supported_string_format_at(format, kube),
            "integer" => format == "int32" || format == "int64",
            "number" => format == "float" || format == "double",
            _ => false,
        }
    };
    if keep {
        format
    } else {
        ""
    }
}

/// The release that keeps numeric formats and checks their ranges.
pub const NUMERIC_FORMATS_SINCE: u32 = crate::version::Feature::NumericFormats.since();

/// Whether `value` is valid for `format`; unknown formats accept everything.
pub fn check_format(format: &str, value: &str) -> bool {
    let n = normalize(format);
    match &*n {
        "bsonobjectid" => is_bson_object_id(value),
        "uri" => is_request_uri(value),
        "email" => is_email(value),
        "hostname" => is_hostname(value),
        "ipv4" => parse_ip_sloppy(value).is_some() && value.contains('.'),
        "ipv6" => parse_ip(value).is_some() && value.contains(':'),
        "cidr" => is_cidr_sloppy(value),
        "mac" => is_mac(value),
        "uuid" => re(&UUID, UUID_PATTERN).is_match(value),
        "uuid3" => re(&UUID3, UUID3_PATTERN).is_match(value),
        "uuid4" => re(&UUID4, UUID4_PATTERN).is_match(value),
        "uuid5" => re(&UUID5, UUID5_PATTERN).is_match(value),
        "isbn" => is_isbn(value, 10) || is_isbn(value, 13),
        "isbn10" => is_isbn(value, 10),
        "isbn13" => is_isbn(value, 13),
        "creditcard" => is_credit_card(value),
        "ssn" => value.len() == 11 && re(&SSN, r"^\d{3}[- ]?\d{2}[- ]?\d{4}$").is_match(value),
        "hexcolor" => re(&HEXCOLOR, r"^#?([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$").is_match(value),
        "rgbcolor" => re(&RGBCOLOR, RGB_PATTERN).is_match(value),
        "byte" => re(&BASE64, BASE64_PATTERN).is_match(value),
        "password" => true,
        "date" => is_date(value),
        "datetime" => is_date_time(value),
        "duration" => is_duration(value),
        "k8sshortname" => {
            value.len() <= 63 && re(&SHORT_NAME, r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$").is_match(value)
        }
        "k8slongname" => {
            value.len() <= 253
                && re(
                    &LONG_NAME,
                    r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$",
                )
                .is_match(value)
        }
        _ => true,
    }
}

static UUID: OnceLock<Regex> = OnceLock::new();
static UUID3: OnceLock<Regex> = OnceLock::new();
static UUID4: OnceLock<Regex> = OnceLock::new();
static UUID5: OnceLock<Regex> = OnceLock::new();
static SSN: OnceLock<Regex> = OnceLock::new();
static HEXCOLOR: OnceLock<Regex> = OnceLock::new();
static RGBCOLOR: OnceLock<Regex> = OnceLock::new();
static BASE64: OnceLock<Regex> = OnceLock::new();
static SHORT_NAME: OnceLock<Regex> = OnceLock::new();
static LONG_NAME: OnceLock<Regex> = OnceLock::new();
static ISBN10: OnceLock<Regex> = OnceLock::new();
static ISBN13: OnceLock<Regex> = OnceLock::new();
static CREDIT_CARD: OnceLock<Regex> = OnceLock::new();
static DATE_TIME: OnceLock<Regex> = OnceLock::new();
static DURATION_VALIDATOR: OnceLock<Regex> = OnceLock::new();
static DURATION_MATCHER: OnceLock<Regex> = OnceLock::new();

const UUID_PATTERN: &str =
    r"(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$";
const UUID3_PATTERN: &str =
    r"(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?3[0-9a-f]{3}-?[0-9a-f]{4}-?[0-9a-f]{12}$";
const UUID4_PATTERN: &str =
    r"(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?4[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$";
const UUID5_PATTERN: &str =
    r"(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?5[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$";
const RGB_PATTERN: &str = r"^rgb\(\s*(0|[1-9]\d?|1\d\d?|2[0-4]\d|25[0-5])\s*,\s*(0|[1-9]\d?|1\d\d?|2[0-4]\d|25[0-5])\s*,\s*(0|[1-9]\d?|1\d\d?|2[0-4]\d|25[0-5])\s*\)$";
const BASE64_PATTERN: &str =
    r"^(?:[A-Za-z0-9+\/]{4})*(?:[A-Za-z0-9+\/]{2}==|[A-Za-z0-9+\/]{3}=|[A-Za-z0-9+\/]{4})$";
/// strfmt's hostname pattern: [`hostname_shape`] decides it without building it (a test
/// compares the two).
#[cfg_attr(not(test), allow(dead_code))]
const HOSTNAME_PATTERN: &str = r"^([a-zA-Z0-9\p{S}\p{L}]((-?[a-zA-Z0-9\p{S}\p{L}]{0,62})?)|([a-zA-Z0-9\p{S}\p{L}](([a-zA-Z0-9-\p{S}\p{L}]{0,61}[a-zA-Z0-9\p{S}\p{L}])?)(\.)){1,}([a-zA-Z\p{L}]){2,63})$";
const CREDIT_CARD_PATTERN: &str = r"^(?:4[0-9]{12}(?:[0-9]{3})?|5[1-5][0-9]{14}|6(?:011|5[0-9][0-9])[0-9]{12}|3[47][0-9]{13}|3(?:0[0-5]|[68][0-9])[0-9]{11}|(?:2131|1800|35\d{3})\d{11})$";

/// A fixed pattern (Go syntax), compiled once.
fn re(cell: &'static OnceLock<Regex>, pattern: &str) -> &'static Regex {
    cell.get_or_init(|| match compile_re2(pattern) {
        Ok(r) => r,
        // The fixed patterns above all compile; never match rather than panic.
        Err(_) => Regex::new(r"[^\x00-\x{10FFFF}]").unwrap_or_else(|_| unreachable_regex()),
    })
}

fn unreachable_regex() -> Regex {
    // `a\A` can never match; both forms compile, so this is never reached in practice.
    Regex::new(r"a\A").expect("static regex")
}

// ---------------------------------------------------------------------------------------
// hostname, isbn, credit card, bson

/// strfmt `IsHostname`.
pub fn is_hostname(s: &str) -> bool {
    if !hostname_shape(s) {
        return false;
    }
    if s.len() > 255 {
        return false;
    }
    s.split('.').all(|p| p.len() <= 63)
}

/// Whether `s` matches [`HOSTNAME_PATTERN`], decided label by label. The pattern repeats
/// Unicode classes sixty times; built as an automaton it takes about 100 ms (far more in
/// wasm), paid by the first object with a `hostname` field. The pattern reads: one label
/// `A(-?A{0,62})?`, or labels `A([A-]{0,61}A)?` each followed by `.`, then 2 to 63
/// letters, where `A` is `[a-zA-Z0-9\p{S}\p{L}]`; no class holds `.`, so the dots split
/// the name one way only. The classes are the `regex` crate's (the tables the pattern
/// used), and a test compares both on generated names.
fn hostname_shape(s: &str) -> bool {
    let (a, letter) = hostname_classes();
    let label_char = |c: char| a.contains(c);
    let mut parts: Vec<&str> = s.split('.').collect();
    let Some(last) = parts.pop() else { return false };
    if parts.is_empty() {
        // `A(-?A{0,62})?`
        let mut cs = last.chars();
        let Some(first) = cs.next() else { return false };
        let rest = cs.as_str();
        let rest = rest.strip_prefix('-').unwrap_or(rest);
        return label_char(first) && rest.chars().count() <= 62 && rest.chars().all(label_char);
    }
    let label_ok = |l: &str| {
        let n = l.chars().count();
        let (Some(first), Some(end)) = (l.chars().next(), l.chars().next_back()) else { return false };
        (1..=63).contains(&n) && label_char(first) && label_char(end) && l.chars().all(|c| c == '-' || label_char(c))
    };
    let tld = last.chars().count();
    parts.iter().all(|l| label_ok(l)) && (2..=63).contains(&tld) && last.chars().all(|c| letter.contains(c))
}

/// Sorted, disjoint character ranges.
struct CharClass(Vec<(char, char)>);

impl CharClass {
    /// The class of a bracket expression, from the `regex` crate's Unicode tables.
    fn of(class: &str) -> CharClass {
        let ranges = match regex_syntax::parse(class).map(|h| h.into_kind()) {
            Ok(regex_syntax::hir::HirKind::Class(regex_syntax::hir::Class::Unicode(u))) => {
                u.ranges().iter().map(|r| (r.start(), r.end())).collect()
            }
            _ => Vec::new(),
        };
        CharClass(ranges)
    }

    fn contains(&self, c: char) -> bool {
        self.0
            .binary_search_by(|&(lo, hi)| {
                if hi < c {
                    std::cmp::Ordering::Less
                } else if lo > c {
                    std::cmp::Ordering::Greater
                } else {
                    std::cmp::Ordering::Equal
                }
            })
            .is_ok()
    }
}

/// `[a-zA-Z0-9\p{S}\p{L}]` and `[a-zA-Z\p{L}]`, built once.
fn hostname_classes() -> &'static (CharClass, CharClass) {
    static CLASSES: OnceLock<(CharClass, CharClass)> = OnceLock::new();
    CLASSES.get_or_init(|| (CharClass::of(r"[a-zA-Z0-9\p{S}\p{L}]"), CharClass::of(r"[a-zA-Z\p{L}]")))
}

fn is_isbn(s: &str, version: u32) -> bool {
    // whiteSpacesAndMinus = [\s-]+ (ASCII \s)
    let sanitized: String = s
        .chars()
        .filter(|c| !matches!(c, '\t' | '\n' | '\x0c' | '\r' | ' ' | '-'))
        .collect();
    let b = sanitized.as_bytes();
    if version == 10 {
        if !re(&ISBN10, r"^(?:[0-9]{9}X|[0-9]{10})$").is_match(&sanitized) {
            return false;
        }
        let mut checksum: i32 = 0;
        for (i, c) in b.iter().take(9).enumerate() {
            checksum += (i as i32 + 1) * (*c as i32 - '0' as i32);
        }
        if b[9] == b'X' {
            checksum += 100;
        } else {
            checksum += 10 * (b[9] as i32 - '0' as i32);
        }
        checksum % 11 == 0
    } else {
        if !re(&ISBN13, r"^(?:[0-9]{13})$").is_match(&sanitized) {
            return false;
        }
        let factor = [1, 3];
        let mut checksum: i32 = 0;
        for i in 0..12 {
            checksum += factor[i % 2] * (b[i] as i32 - '0' as i32);
        }
        (b[12] as i32 - '0' as i32) - ((10 - (checksum % 10)) % 10) == 0
    }
}

fn is_credit_card(s: &str) -> bool {
    let sanitized: String = s.chars().filter(|c| c.is_ascii_digit()).collect();
    if !re(&CREDIT_CARD, CREDIT_CARD_PATTERN).is_match(&sanitized) {
        return false;
    }
    let mut sum = 0i64;
    let mut double = false;
    for c in sanitized.bytes().rev() {
        let mut d = (c - b'0') as i64;
        if double {
            d *= 2;
            if d >= 10 {
                sum += (d % 10) + 1;
            } else {
                sum += d;
            }
        } else {
            sum += d;
        }
        double = !double;
    }
    sum % 10 == 0
}

fn is_bson_object_id(s: &str) -> bool {
    s.len() == 24 && s.bytes().all(|b| b.is_ascii_hexdigit())
}

// ---------------------------------------------------------------------------------------
// IP addresses, CIDRs, MACs


// ---------------------------------------------------------------------------------------
// URIs (url.ParseRequestURI)

/// `url.ParseRequestURI` succeeds (govalidator `IsRequestURI`), with the apiserver's host
/// rules ([`HostRules::Lenient`]).
pub fn is_request_uri(raw: &str) -> bool {
    parse_request_uri_with(raw, HostRules::Lenient).is_ok()
}

/// strfmt `IsEmail`: `mail.ParseAddress` succeeds with a single address.
pub fn is_email(s: &str) -> bool {
    parse_address_ok(s)
}

// ---------------------------------------------------------------------------------------
// date, date-time, duration

/// `time.Parse("2006-01-02", s)` succeeds.
pub fn is_date(s: &str) -> bool {
    let b = s.as_bytes();
    if b.len() != 10 || b[4] != b'-' || b[7] != b'-' {
        return false;
    }
    let digits = |r: std::ops::Range<usize>| -> Option<u32> {
        let mut v = 0u32;
        for &c in &b[r] {
            if !c.is_ascii_digit() {
                return None;
            }
            v = v * 10 + (c - b'0') as u32;
        }
        Some(v)
    };
    let (Some(y), Some(m), Some(d)) = (digits(0..4), digits(5..7), digits(8..10)) else {
        return false;
    };
    (1..=12).contains(&m) && d >= 1 && d as i64 <= days_in_month(y as i64, m as i64)
}

/// strfmt `IsDateTime`.
pub fn is_date_time(s: &str) -> bool {
    if s.len() < 4 {
        return false;
    }
    let lower = s.to_lowercase();
    let mut parts = lower.split('t');
    let (Some(date), Some(time)) = (parts.next(), parts.next()) else {
        return false;
    };
    if !is_date(date) {
        return false;
    }
    let rx = re(
        &DATE_TIME,
        r"^([0-9]{2}):([0-9]{2}):([0-9]{2})(.[0-9]+)?(z|([+-][0-9]{2}:[0-9]{2}))$",
    );
    let Some(m) = rx.captures(time) else {
        return false;
    };
    let g = |i: usize| m.get(i).map(|x| x.as_str()).unwrap_or("");
    g(1) <= "23" && g(2) <= "59" && g(3) <= "59"
}

/// strfmt `IsDuration`: Go durations, or the lenient "3 days 2h" form.
pub fn is_duration(s: &str) -> bool {
    if parse_duration(s).is_some() {
        return true;
    }
    if !re(&DURATION_VALIDATOR, r"^\s*(?:\d+\s*[A-Za-zµ]+\s*)+$").is_match(s) {
        return false;
    }
    const UNITS: &[&[&str]] = &[
        &["ns", "nano"],
        &["us", "µs", "micro"],
        &["ms", "milli"],
        &["s", "sec"],
        &["m", "min"],
        &["h", "hr", "hour"],
        &["d", "day"],
        &["w", "wk", "week"],
    ];
    let mut ok = false;
    for m in re(&DURATION_MATCHER, r"((\d+)\s*([A-Za-zµ]+))").captures_iter(s) {
        let factor = m.get(2).map(|x| x.as_str()).unwrap_or("");
        if factor.parse::<i64>().is_err() {
            return false;
        }
        let unit = m
            .get(3)
            .map(|x| x.as_str())
            .unwrap_or("")
            .trim()
            .to_lowercase();
        for variants in UNITS {
            let last = variants.len() - 1;
            for (i, v) in variants.iter().enumerate() {
                if (i == last && unit.starts_with(v))
                    || v.eq_ignore_ascii_case(&unit)
                    || **v == unit
                {
                    ok = true;
                }
            }
        }
    }
    ok
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::k8s::quantity::is_quantity;

    #[test]
    fn hostname_shape_is_the_hostname_pattern() {
        let pattern = compile_re2(HOSTNAME_PATTERN).unwrap();
        // Letters (ASCII, Latin, Greek, CJK), digits, symbols of several categories (`€`
        // Sc, `+` Sm, `^` Sk, `©` So), and what neither class holds (`٣` Nd, `_`, `!`, ` `).
        let alphabet: Vec<char> = "aZ0-.-.éßλ中€+^©٣_! ".chars().collect();
        let mut next = crate::testing::xorshift(0x9e37_79b9_7f4a_7c15);
        let mut names: Vec<String> = ["a", "a-", "a-b", "-a", "a.", ".a", "a.bc", "a.b", "a-.bc", "ab.c1", "a..bc", "é.λλ", "€", "€.ab", "٣", ""]
            .iter()
            .map(|s| s.to_string())
            .collect();
        for _ in 0..20_000 {
            // Labels of lengths around the pattern's bounds (1, 2, 61–64) and random ones.
            let labels = 1 + next(3);
            let mut name = String::new();
            for l in 0..labels {
                if l > 0 {
                    name.push('.');
                }
                let len = [0, 1, 2, 3, 61, 62, 63, 64, next(70)][next(9)];
                // Valid characters only, with one hyphen somewhere, or anything.
                let mode = next(3);
                let hyphen = if mode == 1 { next(len.max(1)) } else { usize::MAX };
                for i in 0..len {
                    name.push(match mode {
                        _ if i == hyphen => '-',
                        0 | 1 => ['a', 'é', '中', '€'][next(4)],
                        _ => alphabet[next(alphabet.len())],
                    });
                }
            }
            names.push(name);
        }
        let mut matched = 0;
        for name in &names {
            let want = pattern.is_match(name);
            assert_eq!(hostname_shape(name), want, "{:?}", name);
            matched += usize::from(want);
        }
        // Both answers occur often.
        assert!(matched > 1_000 && matched < names.len() - 1_000, "{} of {}", matched, names.len());
    }

    #[test]
    fn supported_formats() {
        assert!(is_supported_string_format("date-time"));
        assert!(is_supported_string_format("datetime"));
        assert!(is_supported_string_format("k8s-short-name"));
        assert!(!is_supported_string_format("ip"));
        assert!(!is_supported_string_format("int32"));
        assert!(!is_supported_string_format("bogus-format"));
        assert!(check_format("bogus-format", "anything"));
    }

    #[test]
    fn ips() {
        assert!(check_format("ipv4", "192.168.1.1"));
        assert!(check_format("ipv4", "192.168.1.01"));
        assert!(!check_format("ipv4", "999.999.999.999"));
        assert!(!check_format("ipv4", "198.168.254.2.2"));
        assert!(!check_format("ipv4", "::1"));
        assert!(check_format("ipv6", "::1"));
        assert!(check_format("ipv6", "2001:db8::8a2e:370:7334"));
        assert!(check_format("ipv6", "::ffff:1.2.3.4"));
        assert!(!check_format("ipv6", "127.0.0.1"));
        assert!(!check_format("ipv6", "fe80::1%eth0"));
        assert!(!check_format("ipv6", "1::2::3"));
        assert!(!check_format("ipv6", "12345::"));
        assert!(check_format("cidr", "192.0.2.1/24"));
        assert!(check_format("cidr", "192.0.02.1/24"));
        assert!(check_format("cidr", "2001:db8:a0b:12f0::1/32"));
        assert!(!check_format("cidr", "10.0.0.0/33"));
        assert!(!check_format("cidr", "198.168.254.2"));
        assert!(!check_format("cidr", "2001:db8:a0b:12f0::1"));
    }

    #[test]
    fn macs() {
        assert!(check_format("mac", "01:02:03:04:05:06"));
        assert!(check_format("mac", "01-02-03-04-05-06"));
        assert!(check_format("mac", "0102.0304.0506"));
        assert!(check_format("mac", "01:02:03:04:05:06:07:08"));
        assert!(!check_format("mac", "01:02:03:04:05"));
        assert!(!check_format("mac", "GG:GG:GG:GG:GG:GG"));
        assert!(!check_format("mac", "01:02-03:04:05:06"));
    }

    #[test]
    fn uris() {
        assert!(check_format("uri", "http://somewhere.com"));
        assert!(check_format("uri", "https://user:pw@host:8080/p?q#f"));
        assert!(check_format("uri", "/just/a/path"));
        assert!(check_format("uri", "mailto:a@b"));
        assert!(!check_format("uri", "somewhere.com"));
        assert!(!check_format("uri", "not a valid uri"));
        assert!(!check_format("uri", ""));
        assert!(!check_format("uri", "http://a b.com/"));
        assert!(!check_format("uri", "http://host:port/"));
        assert!(!check_format("uri", "http://x/%zz"));
    }

    #[test]
    fn emails() {
        for ok in [
            "blah@gmail.com",
            "test@d.verylongtoplevel",
            "email+tag@gmail.com",
            r#"" "@example.com"#,
            r#""Abc\@def"@example.com"#,
            r#""Fred Bloggs"@example.com"#,
            "customer/department=shipping@example.com",
            "!def!xyz%abc@example.com",
            "Miles.O'Brian@example.com",
            "postmaster@☁→❄→☃→☀→☺→☂→☹→✝.ws",
            "root@localhost",
            "John Doe <john@example.com>",
            "a@[127.0.0.1]",
        ] {
            assert!(is_email(ok), "{ok}");
        }
        for bad in [
            "somebody@somewhere@com",
            "not-an-email",
            "",
            "a@",
            "@b",
            "a@[1.2.3]",
            "a..b@c",
        ] {
            assert!(!is_email(bad), "{bad}");
        }
    }

    #[test]
    fn hostnames() {
        for ok in [
            "somewhere.com",
            "888.com",
            "a.b.c.d.e.com",
            "1.2.3.4.com",
            "xn--bcher-kva.example.com",
            "☁→❄→☃→☀→☺→☂→☹→✝.ws",
            "www.example.ôlà",
            "ex$ample",
            "localhost",
            "x",
            "x-y",
            "<foo>",
            "www.詹姆斯.london",
        ] {
            assert!(is_hostname(ok), "{ok}");
        }
        for bad in [
            "somewhere.com!",
            "user@email.domain",
            "1.1.1.1",
            "www.example-.org",
            "-www.example.org",
            "www-",
            "www.ex ample.org",
            "_www.example.org",
            "www.詹姆斯.x",
            "a.b.c.d",
            "x.",
            "invalid_hostname!",
        ] {
            assert!(!is_hostname(bad), "{bad}");
        }
        assert!(!is_hostname(&"a".repeat(256)));
        assert!(!is_hostname(&format!("x.y.{}", "a".repeat(64))));
    }

    #[test]
    fn uuids_and_misc() {
        assert!(check_format("uuid", "123e4567-e89b-12d3-a456-426614174000"));
        assert!(check_format("uuid", "123E4567E89B12D3A456426614174000"));
        assert!(!check_format("uuid", "not-a-uuid"));
        assert!(check_format(
            "uuid3",
            "a3bb189e-8bf9-3888-9912-ace4e6543002"
        ));
        assert!(!check_format("uuid3", "not-a-uuid-v3"));
        assert!(check_format(
            "uuid4",
            "110ec58a-a0f2-4ac4-8393-c866d813b8d1"
        ));
        assert!(check_format(
            "uuid5",
            "886313e1-3b8a-5372-9b90-0c9aee199e5d"
        ));
        assert!(check_format("isbn10", "0321751043"));
        assert!(!check_format("isbn10", "836217463"));
        assert!(check_format("isbn13", "978-0321751041"));
        assert!(!check_format("isbn13", "978-0321751042"));
        assert!(check_format("creditcard", "4111-1111-1111-1111"));
        assert!(!check_format("creditcard", "9999-9999-9999-999"));
        assert!(check_format("ssn", "111-11-1111"));
        assert!(!check_format("ssn", "999 99 999"));
        assert!(check_format("hexcolor", "#FFFFFF"));
        assert!(!check_format("hexcolor", "#fffffffz"));
        assert!(check_format("rgbcolor", "rgb(255,255,255)"));
        assert!(!check_format("rgbcolor", "rgb(300,0,0)"));
        assert!(check_format("byte", "ZWxpemFiZXRocG9zZXk="));
        assert!(!check_format("byte", "ZWxpemFiZXRocG9zZXk"));
        assert!(!check_format("byte", "not valid base64!!!"));
        assert!(!check_format("byte", ""));
        assert!(check_format("password", ""));
        assert!(check_format("bsonobjectid", "507f1f77bcf86cd799439011"));
        assert!(!check_format("bsonobjectid", "507f1f77bcf86cd79943901"));
        assert!(check_format("k8s-short-name", "abc-1"));
        assert!(!check_format("k8s-short-name", "Abc"));
        assert!(check_format("k8s-long-name", "a.b-c.d"));
        assert!(!check_format("k8s-long-name", "a..b"));
    }

    #[test]
    fn dates() {
        assert!(check_format("date", "2024-02-29"));
        assert!(!check_format("date", "2023-02-29"));
        assert!(!check_format("date", "2024-13-45"));
        assert!(!check_format("date", "2024-1-05"));
        assert!(check_format("date-time", "2024-01-02T15:04:05Z"));
        assert!(check_format("date-time", "2024-01-02t15:04:05.123+01:00"));
        assert!(check_format("date-time", "2024-01-02T15:04:05.5z"));
        assert!(!check_format("date-time", "2024-01-02T24:04:05Z"));
        assert!(!check_format("date-time", "2024-01-02T15:04:05"));
        assert!(!check_format("date-time", "2024-01-02 15:04:05Z"));
        assert!(!check_format("date-time", "not-a-datetime"));
    }

    #[test]
    fn durations() {
        for ok in [
            "1h",
            "-1.5h",
            "300ms",
            "1h2m3s",
            "0",
            "+5s",
            "1µs",
            "3 days",
            "1 week 2 hours",
            "1hour",
            "2 xyz 3 d",
        ] {
            assert!(is_duration(ok), "{ok}");
        }
        for bad in ["", "not-a-duration", "1", "h", "1 x", ".s", "1.h2"] {
            assert!(!is_duration(bad), "{bad}");
        }
        assert!(parse_duration("1.h").is_some());
    }

    #[test]
    fn quantities() {
        for ok in [
            "1",
            "0",
            "1Gi",
            "1.5Gi",
            "100m",
            "1e3",
            "1E-3",
            "-1k",
            "+2M",
            ".5",
            "1.",
            "-",
            ".",
            "12345678901234567890",
        ] {
            assert!(is_quantity(ok), "{ok}");
        }
        for bad in [
            "", "1Z", "1.5.5", "abc", "1e", "1 Gi", "1Gib", ".e-20", "1e-x",
        ] {
            assert!(!is_quantity(bad), "{bad}");
        }
    }
}
