//! How CEL prints durations and timestamps: Go's `time.Duration.String()` and
//! `Time.Format(time.RFC3339Nano)`, which cel-go's `string()` conversions and the typed
//! values of expression mode use. Apart from `eval` so that the libraries can print values
//! without importing the expression mode above them.

use crate::cel::value::{Duration, Timestamp};

/// Go's `time.Duration.String()`.
pub fn format_duration(d: Duration) -> String {
    let mut u = d.0.unsigned_abs() as u128;
    let neg = d.0 < 0;
    if u == 0 {
        return "0s".into();
    }
    let mut out = String::new();
    if u < 1_000_000_000 {
        // Sub-second: ns, µs or ms with a fraction.
        let (unit, scale) = if u < 1_000 {
            ("ns", 1u128)
        } else if u < 1_000_000 {
            ("µs", 1_000)
        } else {
            ("ms", 1_000_000)
        };
        out.push_str(&frac(u, scale));
        out.push_str(unit);
    } else {
        let h = u / 3_600_000_000_000;
        u -= h * 3_600_000_000_000;
        let m = u / 60_000_000_000;
        u -= m * 60_000_000_000;
        if h > 0 {
            out.push_str(&format!("{}h", h));
        }
        if h > 0 || m > 0 {
            out.push_str(&format!("{}m", m));
        }
        out.push_str(&frac(u, 1_000_000_000));
        out.push('s');
    }
    if neg {
        format!("-{}", out)
    } else {
        out
    }
}

fn frac(v: u128, scale: u128) -> String {
    let whole = v / scale;
    let rest = v % scale;
    if rest == 0 {
        return whole.to_string();
    }
    let width = scale.to_string().len() - 1;
    let digits = format!("{:0width$}", rest, width = width);
    format!("{}.{}", whole, digits.trim_end_matches('0'))
}

/// Go's `t.Format(time.RFC3339Nano)`: the time at its own offset, nanoseconds with
/// trailing zeros trimmed, `Z` for a zero offset and `±hh:mm` otherwise (Go prints only
/// whole minutes of an offset).
pub fn format_timestamp(t: Timestamp) -> String {
    let local = t.secs.saturating_add(t.offset as i64);
    let days = local.div_euclid(86400);
    let rem = local.rem_euclid(86400);
    let (y, m, d) = crate::go::time::civil_from_days(days);
    let mut s = format!(
        "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}",
        y,
        m,
        d,
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    );
    if t.nanos > 0 {
        let f = format!("{:09}", t.nanos);
        s.push('.');
        s.push_str(f.trim_end_matches('0'));
    }
    let minutes = t.offset / 60;
    if minutes == 0 {
        s.push('Z');
    } else {
        let a = minutes.unsigned_abs();
        s.push_str(&format!(
            "{}{:02}:{:02}",
            if minutes < 0 { '-' } else { '+' },
            a / 60,
            a % 60
        ));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_print_like_go() {
        assert_eq!(format_duration(Duration(604_800_000_000_000)), "168h0m0s");
        assert_eq!(format_duration(Duration(5_000_000_000)), "5s");
        assert_eq!(format_duration(Duration(1_500_000_000)), "1.5s");
        assert_eq!(format_duration(Duration(100_000_000)), "100ms");
        assert_eq!(format_duration(Duration(60_000_000_000)), "1m0s");
        assert_eq!(format_duration(Duration(0)), "0s");
    }
}
