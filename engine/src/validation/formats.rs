//! The string formats the apiserver checks: kube-openapi's `strfmt.Default` registry, as
//! apiextensions restricts it (`pkg/apiserver/validation/formats.go`: formats a CRD may use
//! at the compatibility version; others are stripped from the schema and accept anything).
//!
//! Each checker re-expresses the Go function the registry uses: `net.ParseIP` (sloppy for
//! ipv4/cidr), `net.ParseMAC`, `url.ParseRequestURI`, `net/mail.ParseAddress`,
//! `time.Parse`, `time.ParseDuration` plus strfmt's lenient durations,
//! `resource.ParseQuantity`, govalidator's regular expressions.

use super::regex::compile_re2;
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
static HOSTNAME: OnceLock<Regex> = OnceLock::new();
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
    if !re(&HOSTNAME, HOSTNAME_PATTERN).is_match(s) {
        return false;
    }
    if s.len() > 255 {
        return false;
    }
    s.split('.').all(|p| p.len() <= 63)
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

/// Go's `net.ParseIP` since Go 1.17 (netip rules: no leading zeros in IPv4 fields, at most
/// four hex digits per IPv6 group, no zone). Returns the 16-byte form.
pub fn parse_ip(s: &str) -> Option<[u8; 16]> {
    for b in s.bytes() {
        match b {
            b'.' => {
                let mut f = [0u8; 4];
                parse_ipv4_fields_strict(s.as_bytes(), &mut f)?;
                return Some(v4_in_v6(f));
            }
            b':' => return parse_ipv6_strict(s),
            b'%' => return None,
            _ => {}
        }
    }
    None
}

fn v4_in_v6(f: [u8; 4]) -> [u8; 16] {
    let mut ip = [0u8; 16];
    ip[10] = 0xff;
    ip[11] = 0xff;
    ip[12..].copy_from_slice(&f);
    ip
}

fn parse_ipv4_fields_strict(s: &[u8], fields: &mut [u8]) -> Option<()> {
    let mut val: u32 = 0;
    let mut pos = 0usize;
    let mut dig_len = 0;
    for i in 0..s.len() {
        let c = s[i];
        if c.is_ascii_digit() {
            if dig_len == 1 && val == 0 {
                return None;
            }
            val = val * 10 + (c - b'0') as u32;
            dig_len += 1;
            if val > 255 {
                return None;
            }
        } else if c == b'.' {
            if i == 0 || i == s.len() - 1 || s[i - 1] == b'.' {
                return None;
            }
            if pos == 3 {
                return None;
            }
            fields[pos] = val as u8;
            pos += 1;
            val = 0;
            dig_len = 0;
        } else {
            return None;
        }
    }
    if pos < 3 {
        return None;
    }
    fields[3] = val as u8;
    Some(())
}

fn parse_ipv6_strict(input: &str) -> Option<[u8; 16]> {
    // net.ParseIP rejects zones.
    if input.contains('%') {
        return None;
    }
    let mut s = input.as_bytes();
    let mut ip = [0u8; 16];
    let mut ellipsis: i32 = -1;
    if s.len() >= 2 && s[0] == b':' && s[1] == b':' {
        ellipsis = 0;
        s = &s[2..];
        if s.is_empty() {
            return Some(ip);
        }
    }
    let mut i = 0usize;
    while i < 16 {
        let mut off = 0usize;
        let mut acc: u32 = 0;
        while off < s.len() {
            let c = s[off];
            let d = match c {
                b'0'..=b'9' => c - b'0',
                b'a'..=b'f' => c - b'a' + 10,
                b'A'..=b'F' => c - b'A' + 10,
                _ => break,
            };
            acc = (acc << 4) + d as u32;
            if off > 3 || acc > 0xffff {
                return None;
            }
            off += 1;
        }
        if off == 0 {
            return None;
        }
        if off < s.len() && s[off] == b'.' {
            if ellipsis < 0 && i != 12 {
                return None;
            }
            if i + 4 > 16 {
                return None;
            }
            let mut f = [0u8; 4];
            parse_ipv4_fields_strict(s, &mut f)?;
            ip[i..i + 4].copy_from_slice(&f);
            s = &[];
            i += 4;
            break;
        }
        ip[i] = (acc >> 8) as u8;
        ip[i + 1] = acc as u8;
        i += 2;
        s = &s[off..];
        if s.is_empty() {
            break;
        }
        if s[0] != b':' || s.len() == 1 {
            return None;
        }
        s = &s[1..];
        if s[0] == b':' {
            if ellipsis >= 0 {
                return None;
            }
            ellipsis = i as i32;
            s = &s[1..];
            if s.is_empty() {
                break;
            }
        }
    }
    if !s.is_empty() {
        return None;
    }
    expand_ellipsis(&mut ip, i, ellipsis)?;
    Some(ip)
}

fn expand_ellipsis(ip: &mut [u8; 16], i: usize, ellipsis: i32) -> Option<()> {
    if i < 16 {
        if ellipsis < 0 {
            return None;
        }
        let e = ellipsis as usize;
        let n = 16 - i;
        let mut j = i as i64 - 1;
        while j >= e as i64 {
            ip[j as usize + n] = ip[j as usize];
            j -= 1;
        }
        for b in ip.iter_mut().skip(e).take(n) {
            *b = 0;
        }
    } else if ellipsis >= 0 {
        return None;
    }
    Some(())
}

/// Go's decimal `dtoi`: (value, digits consumed); fails on no digits or overflow of 0xFFFFFF.
fn dtoi(s: &[u8]) -> Option<(u32, usize)> {
    const BIG: u32 = 0xFFFFFF;
    let mut n: u32 = 0;
    let mut i = 0;
    while i < s.len() && s[i].is_ascii_digit() {
        n = n * 10 + (s[i] - b'0') as u32;
        if n >= BIG {
            return None;
        }
        i += 1;
    }
    if i == 0 {
        return None;
    }
    Some((n, i))
}

/// Go's hex `xtoi`.
fn xtoi(s: &[u8]) -> Option<(u32, usize)> {
    const BIG: u32 = 0xFFFFFF;
    let mut n: u32 = 0;
    let mut i = 0;
    while i < s.len() {
        let d = match s[i] {
            c @ b'0'..=b'9' => c - b'0',
            c @ b'a'..=b'f' => c - b'a' + 10,
            c @ b'A'..=b'F' => c - b'A' + 10,
            _ => break,
        };
        n = n * 16 + d as u32;
        if n >= BIG {
            return None;
        }
        i += 1;
    }
    if i == 0 {
        return None;
    }
    Some((n, i))
}

/// The pre-Go-1.17 IPv4 parser (`k8s.io/utils/net.ParseIPSloppy`): leading zeros allowed.
fn parse_ipv4_sloppy(mut s: &[u8]) -> Option<[u8; 4]> {
    let mut p = [0u8; 4];
    for (i, slot) in p.iter_mut().enumerate() {
        if s.is_empty() {
            return None;
        }
        if i > 0 {
            if s[0] != b'.' {
                return None;
            }
            s = &s[1..];
        }
        let (n, c) = dtoi(s)?;
        if n > 0xff {
            return None;
        }
        s = &s[c..];
        *slot = n as u8;
    }
    if !s.is_empty() {
        return None;
    }
    Some(p)
}

fn parse_ipv6_sloppy(input: &[u8]) -> Option<[u8; 16]> {
    let mut s = input;
    let mut ip = [0u8; 16];
    let mut ellipsis: i32 = -1;
    if s.len() >= 2 && s[0] == b':' && s[1] == b':' {
        ellipsis = 0;
        s = &s[2..];
        if s.is_empty() {
            return Some(ip);
        }
    }
    let mut i = 0usize;
    while i < 16 {
        let (n, c) = xtoi(s)?;
        if n > 0xffff {
            return None;
        }
        if c < s.len() && s[c] == b'.' {
            if ellipsis < 0 && i != 12 {
                return None;
            }
            if i + 4 > 16 {
                return None;
            }
            let f = parse_ipv4_sloppy(s)?;
            ip[i..i + 4].copy_from_slice(&f);
            s = &[];
            i += 4;
            break;
        }
        ip[i] = (n >> 8) as u8;
        ip[i + 1] = n as u8;
        i += 2;
        s = &s[c..];
        if s.is_empty() {
            break;
        }
        if s[0] != b':' || s.len() == 1 {
            return None;
        }
        s = &s[1..];
        if s[0] == b':' {
            if ellipsis >= 0 {
                return None;
            }
            ellipsis = i as i32;
            s = &s[1..];
            if s.is_empty() {
                break;
            }
        }
    }
    if !s.is_empty() {
        return None;
    }
    expand_ellipsis(&mut ip, i, ellipsis)?;
    Some(ip)
}

/// `k8s.io/utils/net.ParseIPSloppy` (Go 1.16's `net.ParseIP`).
pub fn parse_ip_sloppy(s: &str) -> Option<[u8; 16]> {
    for b in s.bytes() {
        match b {
            b'.' => return parse_ipv4_sloppy(s.as_bytes()).map(v4_in_v6),
            b':' => return parse_ipv6_sloppy(s.as_bytes()),
            _ => {}
        }
    }
    None
}

/// `k8s.io/utils/net.ParseCIDRSloppy` succeeds.
pub fn is_cidr_sloppy(s: &str) -> bool {
    let Some(i) = s.find('/') else {
        return false;
    };
    let (addr, mask) = (&s.as_bytes()[..i], &s.as_bytes()[i + 1..]);
    let iplen = if parse_ipv4_sloppy(addr).is_some() {
        4
    } else if parse_ipv6_sloppy(addr).is_some() {
        16
    } else {
        return false;
    };
    match dtoi(mask) {
        Some((n, c)) => c == mask.len() && n <= 8 * iplen,
        None => false,
    }
}

/// `net.ParseMAC` succeeds.
pub fn is_mac(s: &str) -> bool {
    let b = s.as_bytes();
    if b.len() < 14 {
        return false;
    }
    fn xtoi2(s: &[u8], e: u8) -> bool {
        if s.len() > 2 && s[2] != e {
            return false;
        }
        if s.len() < 2 {
            return false;
        }
        matches!(xtoi(&s[..2]), Some((_, 2)))
    }
    if b[2] == b':' || b[2] == b'-' {
        if !(b.len() + 1).is_multiple_of(3) {
            return false;
        }
        let n = (b.len() + 1) / 3;
        if n != 6 && n != 8 && n != 20 {
            return false;
        }
        let mut x = 0;
        for _ in 0..n {
            if !xtoi2(&b[x..], b[2]) {
                return false;
            }
            x += 3;
        }
        true
    } else if b[4] == b'.' {
        if !(b.len() + 1).is_multiple_of(5) {
            return false;
        }
        let n = 2 * (b.len() + 1) / 5;
        if n != 6 && n != 8 && n != 20 {
            return false;
        }
        let mut x = 0;
        let mut i = 0;
        while i < n {
            if !xtoi2(&b[x..x + 2], 0) {
                return false;
            }
            if !xtoi2(&b[x + 2..], b[4]) {
                return false;
            }
            x += 5;
            i += 2;
        }
        true
    } else {
        false
    }
}

// ---------------------------------------------------------------------------------------
// URIs (url.ParseRequestURI)

fn is_hex(c: u8) -> bool {
    c.is_ascii_hexdigit()
}

fn unhex(c: u8) -> u8 {
    match c {
        b'0'..=b'9' => c - b'0',
        b'a'..=b'f' => c - b'a' + 10,
        b'A'..=b'F' => c - b'A' + 10,
        _ => 0,
    }
}

#[derive(Clone, Copy, PartialEq)]
enum Enc {
    Path,
    Host,
    Zone,
    UserPassword,
}

fn should_escape(c: u8, mode: Enc) -> bool {
    if c.is_ascii_alphanumeric() {
        return false;
    }
    if (mode == Enc::Host || mode == Enc::Zone)
        && matches!(
            c,
            b'!' | b'$'
                | b'&'
                | b'\''
                | b'('
                | b')'
                | b'*'
                | b'+'
                | b','
                | b';'
                | b'='
                | b':'
                | b'['
                | b']'
                | b'<'
                | b'>'
                | b'"'
        )
    {
        return false;
    }
    match c {
        b'-' | b'_' | b'.' | b'~' => false,
        b'$' | b'&' | b'+' | b',' | b'/' | b':' | b';' | b'=' | b'?' | b'@' => match mode {
            Enc::Path => c == b'?',
            Enc::UserPassword => matches!(c, b'@' | b'/' | b'?' | b':'),
            _ => true,
        },
        _ => true,
    }
}

/// Go's `url.unescape` validity check.
fn unescape_ok(s: &[u8], mode: Enc) -> bool {
    let mut i = 0;
    while i < s.len() {
        match s[i] {
            b'%' => {
                if i + 2 >= s.len() || !is_hex(s[i + 1]) || !is_hex(s[i + 2]) {
                    return false;
                }
                if mode == Enc::Host && unhex(s[i + 1]) < 8 && &s[i..i + 3] != b"%25" {
                    return false;
                }
                if mode == Enc::Zone {
                    let v = unhex(s[i + 1]) << 4 | unhex(s[i + 2]);
                    if &s[i..i + 3] != b"%25" && v != b' ' && should_escape(v, Enc::Host) {
                        return false;
                    }
                }
                i += 3;
            }
            c => {
                if (mode == Enc::Host || mode == Enc::Zone) && c < 0x80 && should_escape(c, mode) {
                    return false;
                }
                i += 1;
            }
        }
    }
    true
}

fn valid_optional_port(port: &[u8]) -> bool {
    if port.is_empty() {
        return true;
    }
    if port[0] != b':' {
        return false;
    }
    port[1..].iter().all(|b| b.is_ascii_digit())
}

fn parse_host_ok(host: &[u8]) -> bool {
    if host.first() == Some(&b'[') {
        let Some(i) = host.iter().rposition(|&b| b == b']') else {
            return false;
        };
        if !valid_optional_port(&host[i + 1..]) {
            return false;
        }
        if let Some(zone) = find(&host[..i], b"%25") {
            return unescape_ok(&host[..zone], Enc::Host)
                && unescape_ok(&host[zone..i], Enc::Zone)
                && unescape_ok(&host[i..], Enc::Host);
        }
    } else if let Some(i) = host.iter().rposition(|&b| b == b':') {
        if !valid_optional_port(&host[i..]) {
            return false;
        }
    }
    unescape_ok(host, Enc::Host)
}

fn find(h: &[u8], n: &[u8]) -> Option<usize> {
    h.windows(n.len()).position(|w| w == n)
}

fn valid_userinfo(s: &str) -> bool {
    s.chars().all(|r| {
        r.is_ascii_alphanumeric()
            || matches!(
                r,
                '-' | '.'
                    | '_'
                    | ':'
                    | '~'
                    | '!'
                    | '$'
                    | '&'
                    | '\''
                    | '('
                    | ')'
                    | '*'
                    | '+'
                    | ','
                    | ';'
                    | '='
                    | '%'
                    | '@'
            )
    })
}

/// `url.ParseRequestURI` succeeds (govalidator `IsRequestURI`).
pub fn is_request_uri(raw: &str) -> bool {
    if raw.bytes().any(|b| b < 0x20 || b == 0x7f) {
        return false;
    }
    if raw.is_empty() {
        return false;
    }
    if raw == "*" {
        return true;
    }
    // getScheme
    let b = raw.as_bytes();
    let mut scheme = "";
    let mut rest = raw;
    for (i, &c) in b.iter().enumerate() {
        if c.is_ascii_alphabetic() {
            continue;
        }
        if c.is_ascii_digit() || c == b'+' || c == b'-' || c == b'.' {
            if i == 0 {
                break;
            }
            continue;
        }
        if c == b':' {
            if i == 0 {
                return false; // missing protocol scheme
            }
            scheme = &raw[..i];
            rest = &raw[i + 1..];
        }
        break;
    }
    if rest.ends_with('?') && rest.matches('?').count() == 1 {
        rest = &rest[..rest.len() - 1];
    } else if let Some(q) = rest.find('?') {
        rest = &rest[..q];
    }
    if !rest.starts_with('/') {
        // Opaque URIs with a scheme are accepted as they are.
        return !scheme.is_empty();
    }
    let mut path = rest;
    if !scheme.is_empty() && rest.starts_with("//") {
        let authority_and_path = &rest[2..];
        let (authority, p) = match authority_and_path.find('/') {
            Some(i) => (&authority_and_path[..i], &authority_and_path[i..]),
            None => (authority_and_path, ""),
        };
        path = p;
        let (userinfo, host) = match authority.rfind('@') {
            Some(i) => (Some(&authority[..i]), &authority[i + 1..]),
            None => (None, authority),
        };
        if !parse_host_ok(host.as_bytes()) {
            return false;
        }
        if let Some(u) = userinfo {
            if !valid_userinfo(u) {
                return false;
            }
            let ok = match u.split_once(':') {
                None => unescape_ok(u.as_bytes(), Enc::UserPassword),
                Some((user, pass)) => {
                    unescape_ok(user.as_bytes(), Enc::UserPassword)
                        && unescape_ok(pass.as_bytes(), Enc::UserPassword)
                }
            };
            if !ok {
                return false;
            }
        }
    }
    unescape_ok(path.as_bytes(), Enc::Path)
}

// ---------------------------------------------------------------------------------------
// Email (net/mail.ParseAddress)

struct AddrParser<'a> {
    s: &'a str,
}

fn is_vchar(r: char) -> bool {
    ('!'..='~').contains(&r) || (r as u32) >= 0x80
}

fn is_atext(r: char, dot: bool) -> bool {
    match r {
        '.' => dot,
        '(' | ')' | '<' | '>' | '[' | ']' | ':' | ';' | '@' | '\\' | ',' | '"' => false,
        _ => is_vchar(r),
    }
}

fn is_qtext(r: char) -> bool {
    r != '\\' && r != '"' && is_vchar(r)
}

fn is_wsp(r: char) -> bool {
    r == ' ' || r == '\t'
}

fn is_dtext(r: char) -> bool {
    r != '[' && r != ']' && r != '\\' && is_vchar(r)
}

impl<'a> AddrParser<'a> {
    fn empty(&self) -> bool {
        self.s.is_empty()
    }
    fn peek(&self) -> u8 {
        self.s.as_bytes()[0]
    }
    fn consume(&mut self, c: u8) -> bool {
        if self.empty() || self.peek() != c {
            return false;
        }
        self.s = &self.s[1..];
        true
    }
    fn skip_space(&mut self) {
        self.s = self.s.trim_start_matches([' ', '\t']);
    }
    fn skip_cfws(&mut self) -> bool {
        self.skip_space();
        loop {
            if !self.consume(b'(') {
                break;
            }
            if self.consume_comment().is_none() {
                return false;
            }
            self.skip_space();
        }
        true
    }
    fn consume_comment(&mut self) -> Option<String> {
        let mut depth = 1;
        let mut comment = String::new();
        loop {
            if self.empty() || depth == 0 {
                break;
            }
            let b = self.s.as_bytes();
            if b[0] == b'\\' && b.len() > 1 {
                self.s = &self.s[1..];
            } else if b[0] == b'(' {
                depth += 1;
            } else if b[0] == b')' {
                depth -= 1;
            }
            // Advance by one byte as Go does; keep char boundaries intact by taking the
            // whole char (the comment text only matters for display names).
            let ch = self.s.chars().next().unwrap_or(' ');
            if depth > 0 {
                comment.push(ch);
            }
            self.s = &self.s[ch.len_utf8()..];
        }
        if depth == 0 {
            Some(comment)
        } else {
            None
        }
    }
    fn consume_quoted_string(&mut self) -> Result<String, ()> {
        let mut out = String::new();
        let mut escaped = false;
        let mut chars = self.s.char_indices().skip(1);
        loop {
            let Some((i, r)) = chars.next() else {
                return Err(());
            };
            if escaped {
                if !is_vchar(r) && !is_wsp(r) {
                    return Err(());
                }
                out.push(r);
                escaped = false;
            } else if is_qtext(r) || is_wsp(r) {
                out.push(r);
            } else if r == '"' {
                self.s = &self.s[i + 1..];
                return Ok(out);
            } else if r == '\\' {
                escaped = true;
            } else {
                return Err(());
            }
        }
    }
    fn consume_atom(&mut self, dot: bool, permissive: bool) -> Result<&'a str, ()> {
        let mut end = 0;
        for (i, r) in self.s.char_indices() {
            if !is_atext(r, dot) {
                break;
            }
            end = i + r.len_utf8();
        }
        if end == 0 {
            return Err(());
        }
        let atom = &self.s[..end];
        self.s = &self.s[end..];
        if !permissive && (atom.starts_with('.') || atom.contains("..") || atom.ends_with('.')) {
            return Err(());
        }
        Ok(atom)
    }
    fn consume_domain_literal(&mut self) -> Result<(), ()> {
        if !self.consume(b'[') {
            return Err(());
        }
        let start = self.s;
        loop {
            if self.empty() {
                return Err(());
            }
            if self.peek() == b']' {
                break;
            }
            let r = self.s.chars().next().ok_or(())?;
            if !is_dtext(r) {
                return Err(());
            }
            self.s = &self.s[r.len_utf8()..];
        }
        let dtext = &start[..start.len() - self.s.len()];
        if !self.consume(b']') {
            return Err(());
        }
        if parse_ip(dtext).is_none() {
            return Err(());
        }
        Ok(())
    }
    /// Returns the address spec length marker (non-empty on success).
    fn consume_addr_spec(&mut self) -> Result<(), ()> {
        let orig = self.s;
        let res = (|| {
            self.skip_space();
            if self.empty() {
                return Err(());
            }
            if self.peek() == b'"' {
                let lp = self.consume_quoted_string()?;
                if lp.is_empty() {
                    return Err(());
                }
            } else {
                self.consume_atom(true, false)?;
            }
            if !self.consume(b'@') {
                return Err(());
            }
            self.skip_space();
            if self.empty() {
                return Err(());
            }
            if self.peek() == b'[' {
                self.consume_domain_literal()?;
            } else {
                self.consume_atom(true, false)?;
            }
            Ok(())
        })();
        if res.is_err() {
            self.s = orig;
        }
        res
    }
    fn consume_phrase(&mut self) -> Result<String, ()> {
        let mut words: Vec<String> = Vec::new();
        let mut prev_encoded = false;
        let mut failed = false;
        loop {
            if !words.is_empty() && !self.skip_cfws() {
                return Err(());
            }
            self.skip_space();
            if self.empty() {
                break;
            }
            let (word, encoded) = if self.peek() == b'"' {
                match self.consume_quoted_string() {
                    Ok(w) => (w, false),
                    Err(_) => {
                        failed = true;
                        break;
                    }
                }
            } else {
                match self.consume_atom(true, true) {
                    Ok(w) => match decode_rfc2047_word(w) {
                        Ok(enc) => (w.to_string(), enc),
                        Err(_) => {
                            failed = true;
                            break;
                        }
                    },
                    Err(_) => {
                        failed = true;
                        break;
                    }
                }
            };
            if prev_encoded && encoded {
                if let Some(last) = words.last_mut() {
                    last.push_str(&word);
                }
            } else {
                words.push(word);
            }
            prev_encoded = encoded;
        }
        if failed && words.is_empty() {
            return Err(());
        }
        Ok(words.join(" "))
    }
    fn consume_display_name_comment(&mut self) -> Result<(), ()> {
        if !self.consume(b'(') {
            return Err(());
        }
        let comment = self.consume_comment().ok_or(())?;
        for w in comment.split([' ', '\t']).filter(|w| !w.is_empty()) {
            decode_rfc2047_word(w)?;
        }
        Ok(())
    }
    /// Returns the number of addresses parsed.
    fn parse_address(&mut self, handle_group: bool) -> Result<usize, ()> {
        self.skip_space();
        if self.empty() {
            return Err(());
        }
        if self.consume_addr_spec().is_ok() {
            self.skip_space();
            if !self.empty() && self.peek() == b'(' {
                self.consume_display_name_comment()?;
            }
            return Ok(1);
        }
        let mut display = String::new();
        if self.empty() || self.peek() != b'<' {
            display = self.consume_phrase()?;
        }
        let _ = display;
        self.skip_space();
        if handle_group && self.consume(b':') {
            return self.consume_group_list();
        }
        if !self.consume(b'<') {
            return Err(());
        }
        self.consume_addr_spec()?;
        if !self.consume(b'>') {
            return Err(());
        }
        Ok(1)
    }
    fn consume_group_list(&mut self) -> Result<usize, ()> {
        let mut n = 0;
        self.skip_space();
        if self.consume(b';') {
            if !self.skip_cfws() {
                return Err(());
            }
            return Ok(0);
        }
        loop {
            self.skip_space();
            n += self.parse_address(false)?;
            if !self.skip_cfws() {
                return Err(());
            }
            if self.consume(b';') {
                if !self.skip_cfws() {
                    return Err(());
                }
                break;
            }
            if !self.consume(b',') {
                return Err(());
            }
        }
        Ok(n)
    }
}

/// mime.WordDecoder as net/mail uses it: Ok(true) for a decodable encoded-word in a known
/// charset, Ok(false) for text that is not an encoded-word, Err for unknown charsets.
fn decode_rfc2047_word(w: &str) -> Result<bool, ()> {
    if w.len() < 8 || !w.starts_with("=?") || !w.ends_with("?=") || w.matches('?').count() != 4 {
        return Ok(false);
    }
    let inner = &w[2..w.len() - 2];
    let Some((charset, rest)) = inner.split_once('?') else {
        return Ok(false);
    };
    if charset.is_empty() {
        return Ok(false);
    }
    let Some((enc, text)) = rest.split_once('?') else {
        return Ok(false);
    };
    if enc.len() != 1 {
        return Ok(false);
    }
    let decoded_ok = match enc.as_bytes()[0] {
        b'B' | b'b' => base64_std_ok(text),
        b'Q' | b'q' => q_decode_ok(text),
        _ => false,
    };
    if !decoded_ok {
        return Ok(false);
    }
    if charset.eq_ignore_ascii_case("utf-8")
        || charset.eq_ignore_ascii_case("iso-8859-1")
        || charset.eq_ignore_ascii_case("us-ascii")
    {
        Ok(true)
    } else {
        Err(())
    }
}

fn q_decode_ok(s: &str) -> bool {
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c == b'=' {
            if i + 2 >= b.len() || !is_hex(b[i + 1]) || !is_hex(b[i + 2]) {
                return false;
            }
            i += 2;
        } else if c != b'_'
            && !((b' '..=b'~').contains(&c) || c == b'\n' || c == b'\r' || c == b'\t')
        {
            return false;
        }
        i += 1;
    }
    true
}

/// base64.StdEncoding.DecodeString succeeds (padding required, no stray characters;
/// newlines are ignored by Go's decoder).
fn base64_std_ok(s: &str) -> bool {
    let b: Vec<u8> = s.bytes().filter(|&c| c != b'\n' && c != b'\r').collect();
    if !b.len().is_multiple_of(4) {
        return false;
    }
    let n = b.len();
    for (i, &c) in b.iter().enumerate() {
        let ok = c.is_ascii_alphanumeric() || c == b'+' || c == b'/';
        if ok {
            continue;
        }
        if c == b'=' {
            // Only in the last two positions, and "x=" must not be followed by a non-'='.
            if i + 2 < n {
                return false;
            }
            if i == n - 2 && b[n - 1] != b'=' {
                return false;
            }
            continue;
        }
        return false;
    }
    true
}

/// strfmt `IsEmail`: `mail.ParseAddress` succeeds with a non-empty address.
pub fn is_email(s: &str) -> bool {
    let mut p = AddrParser { s };
    let Ok(n) = p.parse_address(true) else {
        return false;
    };
    if !p.skip_cfws() {
        return false;
    }
    if !p.empty() {
        return false;
    }
    n == 1
}

// ---------------------------------------------------------------------------------------
// date, date-time, duration

fn days_in(month: u32, year: i64) -> u32 {
    match month {
        2 => {
            if (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 {
                29
            } else {
                28
            }
        }
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

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
    (1..=12).contains(&m) && d >= 1 && d <= days_in(m, y as i64)
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

/// Go's `time.ParseDuration` succeeds.
pub fn go_parse_duration_ok(orig: &str) -> bool {
    let mut s = orig.as_bytes();
    if let Some(&c) = s.first() {
        if c == b'-' || c == b'+' {
            s = &s[1..];
        }
    }
    if s == b"0" {
        return true;
    }
    if s.is_empty() {
        return false;
    }
    const LIMIT: u64 = 1 << 63;
    let mut d: u64 = 0;
    let neg = orig.starts_with('-');
    while !s.is_empty() {
        if !(s[0] == b'.' || s[0].is_ascii_digit()) {
            return false;
        }
        // leadingInt
        let mut v: u64 = 0;
        let mut i = 0;
        while i < s.len() && s[i].is_ascii_digit() {
            if v > LIMIT / 10 {
                return false;
            }
            v = v * 10 + (s[i] - b'0') as u64;
            if v > LIMIT {
                return false;
            }
            i += 1;
        }
        let pre = i > 0;
        s = &s[i..];
        let mut f: u64 = 0;
        let mut scale: f64 = 1.0;
        let mut post = false;
        if !s.is_empty() && s[0] == b'.' {
            s = &s[1..];
            let mut i = 0;
            let mut overflow = false;
            while i < s.len() && s[i].is_ascii_digit() {
                if !overflow {
                    if f > (LIMIT - 1) / 10 {
                        overflow = true;
                    } else {
                        let y = f * 10 + (s[i] - b'0') as u64;
                        if y > LIMIT {
                            overflow = true;
                        } else {
                            f = y;
                            scale *= 10.0;
                        }
                    }
                }
                i += 1;
            }
            post = i > 0;
            s = &s[i..];
        }
        if !pre && !post {
            return false;
        }
        let mut i = 0;
        while i < s.len() && !(s[i] == b'.' || s[i].is_ascii_digit()) {
            i += 1;
        }
        if i == 0 {
            return false;
        }
        let unit: u64 = match &s[..i] {
            b"ns" => 1,
            b"us" => 1_000,
            b"\xc2\xb5s" | b"\xce\xbcs" => 1_000,
            b"ms" => 1_000_000,
            b"s" => 1_000_000_000,
            b"m" => 60_000_000_000,
            b"h" => 3_600_000_000_000,
            _ => return false,
        };
        s = &s[i..];
        if v > LIMIT / unit {
            return false;
        }
        v *= unit;
        if f > 0 {
            v = v.wrapping_add((f as f64 * (unit as f64 / scale)) as u64);
            if v > LIMIT {
                return false;
            }
        }
        d = d.wrapping_add(v);
        if d > LIMIT {
            return false;
        }
    }
    if neg {
        return true;
    }
    d < LIMIT
}

/// strfmt `IsDuration`: Go durations, or the lenient "3 days 2h" form.
pub fn is_duration(s: &str) -> bool {
    if go_parse_duration_ok(s) {
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

// ---------------------------------------------------------------------------------------
// Quantities (resource.ParseQuantity)

/// `resource.ParseQuantity` succeeds.
pub fn is_quantity(s: &str) -> bool {
    if s.is_empty() {
        return false;
    }
    if s == "0" {
        return true;
    }
    let Some(parts) = parse_quantity_string(s) else {
        return false;
    };
    let Some((base, exponent, binary)) = interpret_suffix(parts.suffix) else {
        return false;
    };
    let (num_len, denom_len) = (parts.num.len() as i64, parts.denom.len() as i64);
    let precision: i64 = if binary {
        if exponent >= 0 && denom_len == 0 {
            15 - num_len - ((exponent as f32) * 3.0 / 10.0) as i64 - 1
        } else {
            -1
        }
    } else {
        18 - (num_len + denom_len)
    };
    let scale: i64 = if binary { 0 } else { exponent as i64 };
    if precision >= 0 && scale - denom_len >= -9 {
        // Fast path: always succeeds (the digits fit an int64).
        return true;
    }
    let _ = base;
    // Slow path: inf.Dec.SetString(value) needs at least one digit.
    parts.value.bytes().any(|b| b.is_ascii_digit())
}

struct QuantityParts<'a> {
    value: &'a str,
    num: &'a str,
    denom: &'a str,
    suffix: &'a str,
}

fn parse_quantity_string(s: &str) -> Option<QuantityParts<'_>> {
    let b = s.as_bytes();
    let end = b.len();
    let mut pos = 0;
    if pos < end && (b[0] == b'-' || b[0] == b'+') {
        pos += 1;
    }
    // Leading zeros.
    loop {
        if pos >= end {
            return Some(QuantityParts {
                value: "0",
                num: "0",
                denom: "",
                suffix: "",
            });
        }
        if b[pos] == b'0' {
            pos += 1;
        } else {
            break;
        }
    }
    let num_start = pos;
    let mut i = pos;
    while i < end && b[i].is_ascii_digit() {
        i += 1;
    }
    if i >= end {
        return Some(QuantityParts {
            value: s,
            num: &s[num_start..],
            denom: "",
            suffix: "",
        });
    }
    let mut num = &s[num_start..i];
    pos = i;
    if num.is_empty() {
        num = "0";
    }
    let mut denom = "";
    if pos < end && b[pos] == b'.' {
        pos += 1;
        let ds = pos;
        let mut i = pos;
        while i < end && b[i].is_ascii_digit() {
            i += 1;
        }
        if i >= end {
            return Some(QuantityParts {
                value: s,
                num,
                denom: &s[ds..],
                suffix: "",
            });
        }
        denom = &s[ds..i];
        pos = i;
    }
    let value = &s[..pos];
    let suffix_start = pos;
    let mut i = pos;
    loop {
        if i >= end {
            return Some(QuantityParts {
                value,
                num,
                denom,
                suffix: &s[suffix_start..],
            });
        }
        if !b"eEinumkKMGTP".contains(&b[i]) {
            pos = i;
            break;
        }
        i += 1;
    }
    if pos < end && (b[pos] == b'-' || b[pos] == b'+') {
        pos += 1;
    }
    let mut i = pos;
    loop {
        if i >= end {
            return Some(QuantityParts {
                value,
                num,
                denom,
                suffix: &s[suffix_start..],
            });
        }
        if !b[i].is_ascii_digit() {
            return None;
        }
        i += 1;
    }
}

/// (base, exponent, binary format) for a quantity suffix.
fn interpret_suffix(suffix: &str) -> Option<(u32, i32, bool)> {
    let bin = |e| Some((2, e, true));
    let dec = |e| Some((10, e, false));
    match suffix {
        "Ki" => bin(10),
        "Mi" => bin(20),
        "Gi" => bin(30),
        "Ti" => bin(40),
        "Pi" => bin(50),
        "Ei" => bin(60),
        "n" => dec(-9),
        "u" => dec(-6),
        "m" => dec(-3),
        "" => dec(0),
        "k" => dec(3),
        "M" => dec(6),
        "G" => dec(9),
        "T" => dec(12),
        "P" => dec(15),
        "E" => dec(18),
        _ => {
            let b = suffix.as_bytes();
            if b.len() > 1 && (b[0] == b'E' || b[0] == b'e') {
                let parsed: i64 = suffix[1..].parse().ok()?;
                Some((10, parsed as i32, false))
            } else {
                None
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
        assert!(go_parse_duration_ok("1.h"));
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
