//! Kubernetes IP library (apiserver `pkg/cel/library/ip.go`, 1.30+) over Go's
//! `net/netip.Addr`: `netip.ParseAddr` with its error texts, `Addr.String()` (RFC 5952),
//! and the address classifications. Zones and IPv4-mapped IPv6 addresses are refused, as
//! the library's `parseIPAddr` does.

use crate::cel::env::{EnvOptions, Function, Overload};
use crate::cel::types::{Type, IP};
use crate::cel::value::{EvalError, EvalResult, Opaque, Val};
use crate::gofmt::quote;
use std::any::Any;
use std::rc::Rc;

/// A `netip.Addr` without zone: 4 or 16 bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Addr {
    V4([u8; 4]),
    V6([u8; 16]),
}

/// A parsed address, possibly with a zone (before the library rejects it).
struct Parsed {
    addr: Addr,
    zone: String,
}

fn addr_error(input: &str, msg: &str, at: &str) -> String {
    if at.is_empty() {
        format!("ParseAddr({}): {}", quote(input), msg)
    } else {
        format!("ParseAddr({}): {} (at {})", quote(input), msg, quote(at))
    }
}

/// `parseIPv4Fields` over `input[off..end]`.
fn parse_v4_fields(input: &str, off: usize, end: usize) -> Result<[u8; 4], String> {
    let s = input.as_bytes().get(off..end).unwrap_or(&[]);
    let tail = |i: usize| String::from_utf8_lossy(&s[i..]).into_owned();
    let mut fields = [0u8; 4];
    let (mut val, mut pos, mut dig_len) = (0u32, 0usize, 0);
    for i in 0..s.len() {
        let c = s[i];
        if c.is_ascii_digit() {
            if dig_len == 1 && val == 0 {
                return Err(addr_error(
                    input,
                    "IPv4 field has octet with leading zero",
                    "",
                ));
            }
            val = val * 10 + (c - b'0') as u32;
            dig_len += 1;
            if val > 255 {
                return Err(addr_error(input, "IPv4 field has value >255", ""));
            }
        } else if c == b'.' {
            if i == 0 || i == s.len() - 1 || s[i - 1] == b'.' {
                return Err(addr_error(
                    input,
                    "IPv4 field must have at least one digit",
                    &tail(i),
                ));
            }
            if pos == 3 {
                return Err(addr_error(input, "IPv4 address too long", ""));
            }
            fields[pos] = val as u8;
            pos += 1;
            val = 0;
            dig_len = 0;
        } else {
            return Err(addr_error(input, "unexpected character", &tail(i)));
        }
    }
    if pos < 3 {
        return Err(addr_error(input, "IPv4 address too short", ""));
    }
    fields[3] = val as u8;
    Ok(fields)
}

fn parse_v6(input: &str) -> Result<Parsed, String> {
    let mut s: &str = input;
    let mut zone = "";
    if let Some(i) = s.find('%') {
        zone = &s[i + 1..];
        s = &s[..i];
        if zone.is_empty() {
            return Err(addr_error(input, "zone must be a non-empty string", ""));
        }
    }
    let mut ip = [0u8; 16];
    let mut ellipsis: i32 = -1;
    if s.len() >= 2 && s.starts_with("::") {
        ellipsis = 0;
        s = &s[2..];
        if s.is_empty() {
            return Ok(Parsed {
                addr: Addr::V6([0; 16]),
                zone: zone.to_string(),
            });
        }
    }
    let mut i = 0usize;
    while i < 16 {
        let b = s.as_bytes();
        let mut off = 0;
        let mut acc: u32 = 0;
        while off < b.len() {
            let c = b[off];
            let d = match c {
                b'0'..=b'9' => c - b'0',
                b'a'..=b'f' => c - b'a' + 10,
                b'A'..=b'F' => c - b'A' + 10,
                _ => break,
            };
            acc = (acc << 4) + d as u32;
            if off > 3 {
                return Err(addr_error(
                    input,
                    "each group must have 4 or less digits",
                    s,
                ));
            }
            if acc > 0xffff {
                return Err(addr_error(input, "IPv6 field has value >=2^16", s));
            }
            off += 1;
        }
        if off == 0 {
            return Err(addr_error(
                input,
                "each colon-separated field must have at least one digit",
                s,
            ));
        }
        if off < b.len() && b[off] == b'.' {
            if ellipsis < 0 && i != 12 {
                return Err(addr_error(
                    input,
                    "embedded IPv4 address must replace the final 2 fields of the address",
                    s,
                ));
            }
            if i + 4 > 16 {
                return Err(addr_error(
                    input,
                    "too many hex fields to fit an embedded IPv4 at the end of the address",
                    s,
                ));
            }
            let mut end = input.len();
            if !zone.is_empty() {
                end -= zone.len() + 1;
            }
            let f = parse_v4_fields(input, end - s.len(), end)?;
            ip[i..i + 4].copy_from_slice(&f);
            s = "";
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
        if !s.starts_with(':') {
            return Err(addr_error(input, "unexpected character, want colon", s));
        } else if s.len() == 1 {
            return Err(addr_error(
                input,
                "colon must be followed by more characters",
                s,
            ));
        }
        s = &s[1..];
        if s.starts_with(':') {
            if ellipsis >= 0 {
                return Err(addr_error(input, "multiple :: in address", s));
            }
            ellipsis = i as i32;
            s = &s[1..];
            if s.is_empty() {
                break;
            }
        }
    }
    if !s.is_empty() {
        return Err(addr_error(input, "trailing garbage after address", s));
    }
    if i < 16 {
        if ellipsis < 0 {
            return Err(addr_error(input, "address string too short", ""));
        }
        let e = ellipsis as usize;
        let n = 16 - i;
        let mut j = i;
        while j > e {
            j -= 1;
            ip[j + n] = ip[j];
        }
        for b in ip.iter_mut().skip(e).take(n) {
            *b = 0;
        }
    } else if ellipsis >= 0 {
        return Err(addr_error(
            input,
            "the :: must expand to at least one field of zeros",
            s,
        ));
    }
    Ok(Parsed {
        addr: Addr::V6(ip),
        zone: zone.to_string(),
    })
}

/// `netip.ParseAddr`.
fn parse_addr_zone(s: &str) -> Result<Parsed, String> {
    for c in s.bytes() {
        match c {
            b'.' => {
                let f = parse_v4_fields(s, 0, s.len())?;
                return Ok(Parsed {
                    addr: Addr::V4(f),
                    zone: String::new(),
                });
            }
            b':' => return parse_v6(s),
            b'%' => return Err(addr_error(s, "missing IPv6 address", "")),
            _ => {}
        }
    }
    Err(addr_error(s, "unable to parse IP", ""))
}

/// `netip.ParseAddr`, the zone returned apart.
pub fn parse_addr(s: &str) -> Result<(Addr, String), String> {
    parse_addr_zone(s).map(|p| (p.addr, p.zone))
}

impl Addr {
    pub fn is4(&self) -> bool {
        matches!(self, Addr::V4(_))
    }

    pub fn is4in6(&self) -> bool {
        match self {
            Addr::V6(b) => b[..10].iter().all(|&x| x == 0) && b[10] == 0xff && b[11] == 0xff,
            Addr::V4(_) => false,
        }
    }

    pub fn bit_len(&self) -> u32 {
        match self {
            Addr::V4(_) => 32,
            Addr::V6(_) => 128,
        }
    }

    pub fn bytes(&self) -> Vec<u8> {
        match self {
            Addr::V4(b) => b.to_vec(),
            Addr::V6(b) => b.to_vec(),
        }
    }

    fn u16_at(b: &[u8; 16], i: usize) -> u16 {
        (b[2 * i] as u16) << 8 | b[2 * i + 1] as u16
    }

    /// `Addr.String()` (the zone is never set here).
    pub fn to_go_string(&self) -> String {
        match self {
            Addr::V4(b) => format!("{}.{}.{}.{}", b[0], b[1], b[2], b[3]),
            Addr::V6(b) => {
                if self.is4in6() {
                    return format!("::ffff:{}.{}.{}.{}", b[12], b[13], b[14], b[15]);
                }
                let (mut zs, mut ze) = (255u8, 255u8);
                for i in 0..8u8 {
                    let mut j = i;
                    while j < 8 && Self::u16_at(b, j as usize) == 0 {
                        j += 1;
                    }
                    let l = j - i;
                    if l >= 2 && l > ze.wrapping_sub(zs) {
                        zs = i;
                        ze = j;
                    }
                }
                let mut out = String::new();
                let mut i = 0u8;
                while i < 8 {
                    if i == zs {
                        out.push_str("::");
                        i = ze;
                        if i >= 8 {
                            break;
                        }
                    } else if i > 0 {
                        out.push(':');
                    }
                    out.push_str(&format!("{:x}", Self::u16_at(b, i as usize)));
                    i += 1;
                }
                out
            }
        }
    }

    pub fn is_unspecified(&self) -> bool {
        match self {
            Addr::V4(b) => *b == [0; 4],
            Addr::V6(b) => *b == [0; 16],
        }
    }

    pub fn is_loopback(&self) -> bool {
        match self {
            Addr::V4(b) => b[0] == 127,
            Addr::V6(b) => b[..15].iter().all(|&x| x == 0) && b[15] == 1,
        }
    }

    pub fn is_multicast(&self) -> bool {
        match self {
            Addr::V4(b) => b[0] & 0xf0 == 0xe0,
            Addr::V6(b) => b[0] == 0xff,
        }
    }

    pub fn is_link_local_multicast(&self) -> bool {
        match self {
            Addr::V4(b) => b[0] == 224 && b[1] == 0 && b[2] == 0,
            Addr::V6(b) => Self::u16_at(b, 0) & 0xff0f == 0xff02,
        }
    }

    pub fn is_link_local_unicast(&self) -> bool {
        match self {
            Addr::V4(b) => b[0] == 169 && b[1] == 254,
            Addr::V6(b) => Self::u16_at(b, 0) & 0xffc0 == 0xfe80,
        }
    }

    pub fn is_global_unicast(&self) -> bool {
        if let Addr::V4(b) = self {
            if *b == [0; 4] || *b == [255; 4] {
                return false;
            }
        }
        if let Addr::V6(b) = self {
            if *b == [0; 16] {
                return false;
            }
        }
        !self.is_loopback() && !self.is_multicast() && !self.is_link_local_unicast()
    }
}

/// The library's `parseIPAddr`: no zones, no IPv4-mapped IPv6.
pub fn parse_ip_addr(raw: &str) -> Result<Addr, String> {
    let p = parse_addr_zone(raw).map_err(|e| {
        format!(
            "IP Address {} parse error during conversion from string: {}",
            quote(raw),
            e
        )
    })?;
    if !p.zone.is_empty() {
        return Err(format!(
            "IP address {} with zone value is not allowed",
            quote(raw)
        ));
    }
    if p.addr.is4in6() {
        return Err(format!(
            "IPv4-mapped IPv6 address {} is not allowed",
            quote(raw)
        ));
    }
    Ok(p.addr)
}

/// The CEL value `net.IP`.
#[derive(Clone, Debug)]
pub struct IpValue(pub Addr);

impl Opaque for IpValue {
    fn type_name(&self) -> &'static str {
        IP
    }
    fn equal(&self, other: &dyn Opaque) -> bool {
        other
            .as_any()
            .downcast_ref::<IpValue>()
            .map(|o| o.0 == self.0)
            .unwrap_or(false)
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
    fn to_canonical(&self) -> String {
        self.0.to_go_string()
    }
}

pub fn ip_val(a: Addr) -> Val<'static> {
    Val::Opaque(Rc::new(IpValue(a)))
}

pub fn ip_arg(v: Option<&Val>) -> Result<Addr, EvalError> {
    match v {
        Some(Val::Opaque(o)) => o
            .as_any()
            .downcast_ref::<IpValue>()
            .map(|i| i.0)
            .ok_or_else(EvalError::no_such_overload),
        _ => Err(EvalError::no_such_overload()),
    }
}

fn str_arg<'v>(v: Option<&'v Val>) -> Result<&'v str, EvalError> {
    v.and_then(|v| v.as_str())
        .ok_or_else(EvalError::no_such_overload)
}

/// `ip(string)`.
pub fn string_to_ip<'a>(args: &[Val<'a>]) -> EvalResult<'a> {
    let s = str_arg(args.first())?;
    parse_ip_addr(s).map(ip_val).map_err(EvalError::new)
}

fn ip_to_string<'a>(args: &[Val<'a>]) -> EvalResult<'a> {
    Ok(Val::string(ip_arg(args.first())?.to_go_string()))
}

fn family<'a>(args: &[Val<'a>]) -> EvalResult<'a> {
    Ok(Val::Int(if ip_arg(args.first())?.is4() { 4 } else { 6 }))
}

fn is_canonical<'a>(args: &[Val<'a>]) -> EvalResult<'a> {
    let s = str_arg(args.first())?;
    let a = parse_ip_addr(s).map_err(EvalError::new)?;
    Ok(Val::Bool(a.to_go_string() == s))
}

fn is_ip<'a>(args: &[Val<'a>]) -> EvalResult<'a> {
    Ok(Val::Bool(parse_ip_addr(str_arg(args.first())?).is_ok()))
}

fn is_unspecified<'a>(args: &[Val<'a>]) -> EvalResult<'a> {
    Ok(Val::Bool(ip_arg(args.first())?.is_unspecified()))
}

fn is_loopback<'a>(args: &[Val<'a>]) -> EvalResult<'a> {
    Ok(Val::Bool(ip_arg(args.first())?.is_loopback()))
}

fn is_link_local_multicast<'a>(args: &[Val<'a>]) -> EvalResult<'a> {
    Ok(Val::Bool(ip_arg(args.first())?.is_link_local_multicast()))
}

fn is_link_local_unicast<'a>(args: &[Val<'a>]) -> EvalResult<'a> {
    Ok(Val::Bool(ip_arg(args.first())?.is_link_local_unicast()))
}

fn is_global_unicast<'a>(args: &[Val<'a>]) -> EvalResult<'a> {
    Ok(Val::Bool(ip_arg(args.first())?.is_global_unicast()))
}

/// Identifiers the library makes resolvable: `cel.Types(net.IP)` registers the type, so
/// `net.IP` checks as `type(net.IP)` and evaluates to that type (for the core to declare).
pub fn type_identifiers(opts: &EnvOptions) -> Vec<(&'static str, Type)> {
    if opts.compat_minor < 30 {
        return Vec::new();
    }
    vec![(IP, Type::type_of(Type::opaque(IP)))]
}

/// The functions this library declares at the environment's compatibility version.
pub fn functions(opts: &EnvOptions) -> Vec<Function> {
    if opts.compat_minor < 30 {
        return Vec::new();
    }
    let ip = || Type::opaque(IP);
    vec![
        Function::new(
            "ip",
            vec![Overload::global(
                "string_to_ip",
                vec![Type::String],
                ip(),
                string_to_ip,
            )],
        ),
        Function::new(
            "family",
            vec![Overload::member("ip_family", vec![ip()], Type::Int, family)],
        ),
        Function::new(
            "ip.isCanonical",
            vec![Overload::global(
                "ip_is_canonical",
                vec![Type::String],
                Type::Bool,
                is_canonical,
            )],
        ),
        Function::new(
            "isUnspecified",
            vec![Overload::member(
                "ip_is_unspecified",
                vec![ip()],
                Type::Bool,
                is_unspecified,
            )],
        ),
        Function::new(
            "isLoopback",
            vec![Overload::member(
                "ip_is_loopback",
                vec![ip()],
                Type::Bool,
                is_loopback,
            )],
        ),
        Function::new(
            "isLinkLocalMulticast",
            vec![Overload::member(
                "ip_is_link_local_multicast",
                vec![ip()],
                Type::Bool,
                is_link_local_multicast,
            )],
        ),
        Function::new(
            "isLinkLocalUnicast",
            vec![Overload::member(
                "ip_is_link_local_unicast",
                vec![ip()],
                Type::Bool,
                is_link_local_unicast,
            )],
        ),
        Function::new(
            "isGlobalUnicast",
            vec![Overload::member(
                "ip_is_global_unicast",
                vec![ip()],
                Type::Bool,
                is_global_unicast,
            )],
        ),
        Function::new(
            "isIP",
            vec![Overload::global(
                "is_ip",
                vec![Type::String],
                Type::Bool,
                is_ip,
            )],
        ),
        Function::new(
            "string",
            vec![Overload::global(
                "ip_to_string",
                vec![ip()],
                Type::String,
                ip_to_string,
            )],
        ),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(x: &str) -> String {
        match parse_ip_addr(x) {
            Ok(a) => a.to_go_string(),
            Err(e) => e,
        }
    }

    #[test]
    fn parses_like_netip() {
        assert_eq!(s("192.168.0.1"), "192.168.0.1");
        assert_eq!(
            s("192.168.0.1.0"),
            "IP Address \"192.168.0.1.0\" parse error during conversion from string: ParseAddr(\"192.168.0.1.0\"): IPv4 address too long"
        );
        assert_eq!(
            s("2001:db8:::68"),
            "IP Address \"2001:db8:::68\" parse error during conversion from string: ParseAddr(\"2001:db8:::68\"): each colon-separated field must have at least one digit (at \":68\")"
        );
        assert_eq!(s("2001:DB8::68"), "2001:db8::68");
        assert_eq!(s("2001:db8:0:0:1:0:0:1"), "2001:db8::1:0:0:1");
        assert_eq!(s("::"), "::");
        assert_eq!(s("::1"), "::1");
        assert_eq!(s("1::"), "1::");
        assert_eq!(
            s("::ffff:1.2.3.4"),
            "IPv4-mapped IPv6 address \"::ffff:1.2.3.4\" is not allowed"
        );
        assert_eq!(
            s("fe80::1%eth0"),
            "IP address \"fe80::1%eth0\" with zone value is not allowed"
        );
        assert_eq!(s("::1.2.3.4"), "::102:304");
        assert!(s("01.2.3.4").ends_with("IPv4 field has octet with leading zero"));
        assert!(s("1.2.3").ends_with("IPv4 address too short"));
        assert!(s("abc").ends_with("unable to parse IP"));
        assert!(s("1.2.3.4a").ends_with("unexpected character (at \"a\")"));
        assert!(s("1:2:3:4:5:6:7:8:9").ends_with("trailing garbage after address (at \"9\")"));
        assert!(
            s("1:2:3:4:5:6:7:8::").ends_with("the :: must expand to at least one field of zeros")
        );
        assert!(s("12345::").ends_with("each group must have 4 or less digits (at \"12345::\")"));
    }

    #[test]
    fn classifies_like_netip() {
        let a = |x: &str| parse_ip_addr(x).unwrap();
        assert!(a("224.0.0.1").is_link_local_multicast());
        assert!(!a("224.0.1.1").is_link_local_multicast());
        assert!(a("ff02::1").is_link_local_multicast());
        assert!(!a("fd00::1").is_link_local_multicast());
        assert!(a("169.254.169.254").is_link_local_unicast());
        assert!(a("fe80::1").is_link_local_unicast());
        assert!(!a("fd80::1").is_link_local_unicast());
        assert!(a("192.168.0.1").is_global_unicast());
        assert!(!a("255.255.255.255").is_global_unicast());
        assert!(a("2001:db8::abcd").is_global_unicast());
        assert!(!a("ff00::1").is_global_unicast());
        assert!(a("127.0.0.1").is_loopback());
        assert!(a("0.0.0.0").is_unspecified());
    }

    #[test]
    fn evaluates_through_the_environment() {
        let v = crate::version::KubeVersion::parse("1.36").unwrap();
        let out = crate::cel::eval::evaluate(
            "ip('::1').isLoopback() && string(ip('2001:DB8::1')) == '2001:db8::1'",
            None,
            None,
            v,
        );
        assert_eq!(
            out.get("value"),
            Some(&serde_json::json!(true)),
            "{:?}",
            out
        );
        let old = crate::version::KubeVersion::parse("1.30").unwrap();
        assert!(
            crate::cel::eval::evaluate("isIP('1.2.3.4')", None, None, old)
                .contains_key("compileError")
        );
    }
}
