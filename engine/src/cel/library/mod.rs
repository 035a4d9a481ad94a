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

use super::value::{Duration, Timestamp};

/// Standard base64 (with padding), as Go's `base64.StdEncoding`.
pub fn base64_decode(s: &str) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(s.len() * 3 / 4);
    let mut buf = 0u32;
    let mut bits = 0;
    let mut pad = 0;
    let bytes: Vec<u8> = s.bytes().filter(|c| *c != b'\r' && *c != b'\n').collect();
    if bytes.len() % 4 != 0 {
        return None;
    }
    for &c in &bytes {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            b'=' => {
                pad += 1;
                continue;
            }
            _ => return None,
        };
        if pad > 0 {
            return None;
        }
        buf = (buf << 6) | v as u32;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((buf >> bits) as u8);
            buf &= (1 << bits) - 1;
        }
    }
    if pad > 2 {
        return None;
    }
    Some(out)
}

/// Standard base64 encoding with padding.
pub fn base64_encode(b: &[u8]) -> String {
    const T: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity((b.len() + 2) / 3 * 4);
    for chunk in b.chunks(3) {
        let n = match chunk.len() {
            3 => (chunk[0] as u32) << 16 | (chunk[1] as u32) << 8 | chunk[2] as u32,
            2 => (chunk[0] as u32) << 16 | (chunk[1] as u32) << 8,
            _ => (chunk[0] as u32) << 16,
        };
        out.push(T[(n >> 18) as usize & 63] as char);
        out.push(T[(n >> 12) as usize & 63] as char);
        out.push(if chunk.len() > 1 {
            T[(n >> 6) as usize & 63] as char
        } else {
            '='
        });
        out.push(if chunk.len() > 2 {
            T[n as usize & 63] as char
        } else {
            '='
        });
    }
    out
}

/// Go's `time.ParseDuration` (`1h30m`, `-1.5s`, `300ms`, `2us`, `1ns`), nanoseconds.
pub fn parse_duration(s: &str) -> Option<Duration> {
    let (neg, mut rest) = match s.as_bytes().first()? {
        b'-' => (true, &s[1..]),
        b'+' => (false, &s[1..]),
        _ => (false, s),
    };
    if rest == "0" {
        return Some(Duration(0));
    }
    if rest.is_empty() {
        return None;
    }
    let mut total: u128 = 0;
    while !rest.is_empty() {
        let int_end = rest
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(rest.len());
        let int_part = &rest[..int_end];
        rest = &rest[int_end..];
        let mut frac_part = "";
        if rest.starts_with('.') {
            rest = &rest[1..];
            let fe = rest
                .find(|c: char| !c.is_ascii_digit())
                .unwrap_or(rest.len());
            frac_part = &rest[..fe];
            rest = &rest[fe..];
        }
        if int_part.is_empty() && frac_part.is_empty() {
            return None;
        }
        let unit_end = rest
            .find(|c: char| c.is_ascii_digit() || c == '.')
            .unwrap_or(rest.len());
        let unit = &rest[..unit_end];
        rest = &rest[unit_end..];
        let mult: u128 = match unit {
            "ns" => 1,
            "us" | "µs" | "μs" => 1_000,
            "ms" => 1_000_000,
            "s" => 1_000_000_000,
            "m" => 60_000_000_000,
            "h" => 3_600_000_000_000,
            _ => return None,
        };
        let iv: u128 = if int_part.is_empty() {
            0
        } else {
            int_part.parse().ok()?
        };
        let mut v = iv.checked_mul(mult)?;
        if !frac_part.is_empty() {
            let mut scale = mult;
            for d in frac_part.bytes() {
                scale /= 10;
                if scale == 0 {
                    break;
                }
                v += (d - b'0') as u128 * scale;
            }
        }
        total = total.checked_add(v)?;
        if total > i64::MAX as u128 + if neg { 1 } else { 0 } {
            return None;
        }
    }
    let t = total as i128;
    Some(Duration(if neg { (-t) as i64 } else { t as i64 }))
}

/// RFC 3339 timestamps (`2006-01-02T15:04:05.999999999Z07:00`).
pub fn parse_timestamp(s: &str) -> Option<Timestamp> {
    let b = s.as_bytes();
    if b.len() < 20 {
        return None;
    }
    let num = |r: std::ops::Range<usize>| -> Option<i64> {
        let t = std::str::from_utf8(b.get(r)?).ok()?;
        if !t.bytes().all(|c| c.is_ascii_digit()) {
            return None;
        }
        t.parse().ok()
    };
    if b[4] != b'-'
        || b[7] != b'-'
        || !(b[10] == b'T' || b[10] == b't')
        || b[13] != b':'
        || b[16] != b':'
    {
        return None;
    }
    let (y, mo, d, h, mi, sec) = (
        num(0..4)?,
        num(5..7)?,
        num(8..10)?,
        num(11..13)?,
        num(14..16)?,
        num(17..19)?,
    );
    let mut i = 19;
    let mut nanos: u32 = 0;
    if i < b.len() && b[i] == b'.' {
        i += 1;
        let st = i;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        if i == st || i - st > 9 {
            return None;
        }
        let digits = &s[st..i];
        nanos = digits.parse::<u32>().ok()? * 10u32.pow(9 - digits.len() as u32);
    }
    let offset = match b.get(i)? {
        b'Z' | b'z' if i + 1 == b.len() => 0,
        c @ (b'+' | b'-') if b.len() == i + 6 && b[i + 3] == b':' => {
            let o = num(i + 1..i + 3)? * 3600 + num(i + 4..i + 6)? * 60;
            if *c == b'-' {
                -o
            } else {
                o
            }
        }
        _ => return None,
    };
    if !(1..=12).contains(&mo) || d < 1 || d > days_in_month(y, mo) || h > 23 || mi > 59 || sec > 59
    {
        return None;
    }
    let secs = days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + sec - offset;
    // `time.Parse` keeps the written offset (the apiserver converts date-time fields with
    // strfmt, which parses the same way).
    Some(Timestamp {
        secs,
        nanos,
        offset: offset as i32,
    })
}

/// `2006-01-02` dates (format `date`), at midnight UTC.
pub fn parse_date(s: &str) -> Option<Timestamp> {
    if s.len() != 10 {
        return None;
    }
    parse_timestamp(&format!("{}T00:00:00Z", s))
}

pub fn days_in_month(y: i64, m: i64) -> i64 {
    match m {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        _ if (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 => 29,
        _ => 28,
    }
}

/// Days since 1970-01-01 of a proleptic Gregorian date.
pub fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146097 + doe - 719468
}

/// The date of a day number since 1970-01-01.
pub fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z + 719468;
    let era = z.div_euclid(146097);
    let doe = z - era * 146097;
    let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (if m <= 2 { y + 1 } else { y }, m, d)
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

    #[test]
    fn base64_round_trips() {
        assert_eq!(base64_encode(b"hello"), "aGVsbG8=");
        assert_eq!(base64_decode("aGVsbG8=").as_deref(), Some(&b"hello"[..]));
        assert_eq!(base64_decode("a"), None);
    }
}
