//! blang/semver v4 as the Kubernetes CEL semver library uses it (`semver.Parse`, and the
//! library's `normalizeAndParse` that pads a missing minor/patch and strips a leading `v`),
//! with its error texts, `Version.Compare` and `Version.String()`.

use crate::go::strconv::quote;
use std::cmp::Ordering;

/// A prerelease identifier.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Pre {
    Num(u64),
    Alpha(String),
}

/// `semver.Version`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Version {
    pub major: u64,
    pub minor: u64,
    pub patch: u64,
    pre: Vec<Pre>,
    build: Vec<String>,
}

fn is_alphanum(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '-'
}

fn contains_only_digits(s: &str) -> bool {
    s.bytes().all(|c| c.is_ascii_digit())
}

fn has_leading_zeroes(s: &str) -> bool {
    s.len() > 1 && s.starts_with('0')
}

/// `strconv.ParseUint(s, 10, 64)` for a string of digits (possibly empty).
fn parse_uint(s: &str) -> Result<u64, String> {
    if s.is_empty() {
        return Err(format!(
            "strconv.ParseUint: parsing {}: invalid syntax",
            quote(s)
        ));
    }
    s.parse::<u64>().map_err(|_| {
        format!(
            "strconv.ParseUint: parsing {}: value out of range",
            quote(s)
        )
    })
}

/// blang/semver v4 `Parse`.
pub fn parse(s: &str) -> Result<Version, String> {
    if s.is_empty() {
        return Err("Version string empty".into());
    }
    let parts: Vec<&str> = s.splitn(3, '.').collect();
    if parts.len() != 3 {
        return Err("No Major.Minor.Patch elements found".into());
    }
    if !contains_only_digits(parts[0]) {
        return Err(format!(
            "Invalid character(s) found in major number {}",
            quote(parts[0])
        ));
    }
    if has_leading_zeroes(parts[0]) {
        return Err(format!(
            "Major number must not contain leading zeroes {}",
            quote(parts[0])
        ));
    }
    let major = parse_uint(parts[0])?;
    if !contains_only_digits(parts[1]) {
        return Err(format!(
            "Invalid character(s) found in minor number {}",
            quote(parts[1])
        ));
    }
    if has_leading_zeroes(parts[1]) {
        return Err(format!(
            "Minor number must not contain leading zeroes {}",
            quote(parts[1])
        ));
    }
    let minor = parse_uint(parts[1])?;

    let mut patch_str = parts[2];
    let mut build: Vec<&str> = Vec::new();
    let mut prerelease: Vec<&str> = Vec::new();
    if let Some(i) = patch_str.find('+') {
        build = patch_str[i + 1..].split('.').collect();
        patch_str = &patch_str[..i];
    }
    if let Some(i) = patch_str.find('-') {
        prerelease = patch_str[i + 1..].split('.').collect();
        patch_str = &patch_str[..i];
    }
    if !contains_only_digits(patch_str) {
        return Err(format!(
            "Invalid character(s) found in patch number {}",
            quote(patch_str)
        ));
    }
    if has_leading_zeroes(patch_str) {
        return Err(format!(
            "Patch number must not contain leading zeroes {}",
            quote(patch_str)
        ));
    }
    let patch = parse_uint(patch_str)?;

    let mut pre = Vec::with_capacity(prerelease.len());
    for p in prerelease {
        if p.is_empty() {
            return Err("Prerelease is empty".into());
        }
        if contains_only_digits(p) {
            if has_leading_zeroes(p) {
                return Err(format!(
                    "Numeric PreRelease version must not contain leading zeroes {}",
                    quote(p)
                ));
            }
            pre.push(Pre::Num(parse_uint(p)?));
        } else if p.chars().all(is_alphanum) {
            pre.push(Pre::Alpha(p.to_string()));
        } else {
            return Err(format!(
                "Invalid character(s) found in prerelease {}",
                quote(p)
            ));
        }
    }
    let mut builds = Vec::with_capacity(build.len());
    for b in build {
        if b.is_empty() {
            return Err("Build meta data is empty".into());
        }
        if !b.chars().all(is_alphanum) {
            return Err(format!(
                "Invalid character(s) found in build meta data {}",
                quote(b)
            ));
        }
        builds.push(b.to_string());
    }
    Ok(Version {
        major,
        minor,
        patch,
        pre,
        build: builds,
    })
}

/// The library's `normalizeAndParse`: no "v" prefix, missing minor/patch filled with 0,
/// leading zeros removed (unlike `ParseTolerant`, no whitespace trimming).
pub fn normalize_and_parse(s: &str) -> Result<Version, String> {
    let s = s.strip_prefix('v').unwrap_or(s);
    let mut parts: Vec<String> = s.splitn(3, '.').map(String::from).collect();
    for p in parts.iter_mut() {
        if p.len() > 1 {
            let mut t = p.trim_start_matches('0').to_string();
            if t.is_empty() || !t.as_bytes()[0].is_ascii_digit() {
                t.insert(0, '0');
            }
            *p = t;
        }
    }
    if parts.len() < 3 {
        if parts
            .last()
            .map(|l| l.contains(['+', '-']))
            .unwrap_or(false)
        {
            return Err("short version cannot contain PreRelease/Build meta data".into());
        }
        while parts.len() < 3 {
            parts.push("0".into());
        }
    }
    parse(&parts.join("."))
}

impl Version {
    /// `Version.Compare`.
    pub fn compare(&self, o: &Version) -> Ordering {
        let c = (self.major, self.minor, self.patch).cmp(&(o.major, o.minor, o.patch));
        if c != Ordering::Equal {
            return c;
        }
        match (self.pre.is_empty(), o.pre.is_empty()) {
            (true, true) => return Ordering::Equal,
            (true, false) => return Ordering::Greater,
            (false, true) => return Ordering::Less,
            _ => {}
        }
        for (a, b) in self.pre.iter().zip(o.pre.iter()) {
            let c = match (a, b) {
                (Pre::Num(x), Pre::Num(y)) => x.cmp(y),
                (Pre::Num(_), Pre::Alpha(_)) => Ordering::Less,
                (Pre::Alpha(_), Pre::Num(_)) => Ordering::Greater,
                (Pre::Alpha(x), Pre::Alpha(y)) => x.as_bytes().cmp(y.as_bytes()),
            };
            if c != Ordering::Equal {
                return c;
            }
        }
        self.pre.len().cmp(&o.pre.len())
    }

    /// `Version.String()`.
    pub fn to_go_string(&self) -> String {
        let mut s = format!("{}.{}.{}", self.major, self.minor, self.patch);
        if !self.pre.is_empty() {
            s.push('-');
            let p: Vec<String> = self
                .pre
                .iter()
                .map(|p| match p {
                    Pre::Num(n) => n.to_string(),
                    Pre::Alpha(a) => a.clone(),
                })
                .collect();
            s.push_str(&p.join("."));
        }
        if !self.build.is_empty() {
            s.push('+');
            s.push_str(&self.build.join("."));
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_like_blang() {
        assert_eq!(
            parse("1.2.3-beta.1+build.1").unwrap().to_go_string(),
            "1.2.3-beta.1+build.1"
        );
        assert_eq!(
            parse("v1.0").unwrap_err(),
            "No Major.Minor.Patch elements found"
        );
        assert_eq!(
            parse("01.01.01").unwrap_err(),
            "Major number must not contain leading zeroes \"01\""
        );
        assert_eq!(
            parse("1.0.0 ").unwrap_err(),
            "Invalid character(s) found in patch number \"0 \""
        );
        assert_eq!(parse("").unwrap_err(), "Version string empty");
        assert_eq!(
            parse("99999999999999999999.0.0").unwrap_err(),
            "strconv.ParseUint: parsing \"99999999999999999999\": value out of range"
        );
        assert_eq!(
            parse("1..0").unwrap_err(),
            "strconv.ParseUint: parsing \"\": invalid syntax"
        );
        assert_eq!(
            parse("1234.56789012345.67890123456789")
                .unwrap()
                .to_go_string(),
            "1234.56789012345.67890123456789"
        );
        assert_eq!(normalize_and_parse("v1.1").unwrap().to_go_string(), "1.1.0");
        assert_eq!(
            normalize_and_parse("01.01.01").unwrap().to_go_string(),
            "1.1.1"
        );
        assert!(normalize_and_parse(" 1.0.0").is_err());
        assert_eq!(
            normalize_and_parse("1-beta").unwrap_err(),
            "short version cannot contain PreRelease/Build meta data"
        );
    }

    #[test]
    fn compares_like_blang() {
        let p = |s: &str| parse(s).unwrap();
        assert_eq!(p("1.0.0").compare(&p("1.2.3")), Ordering::Less);
        assert_eq!(p("1.0.0-alpha").compare(&p("1.0.0")), Ordering::Less);
        assert_eq!(
            p("1.0.0-alpha.1").compare(&p("1.0.0-alpha")),
            Ordering::Greater
        );
        assert_eq!(p("1.0.0-1").compare(&p("1.0.0-a")), Ordering::Less);
        assert_eq!(p("1.0.0+a").compare(&p("1.0.0+b")), Ordering::Equal);
    }
}
