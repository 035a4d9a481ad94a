//! Kubernetes CIDR library (apiserver `pkg/cel/library/cidr.go`, 1.30+) over Go's
//! `net/netip.Prefix`: `netip.ParsePrefix` with its error texts, `Prefix.String()`,
//! `Masked`, `Contains`, and the library's own `containsCIDR` rule.

use crate::cel::library::ip::{ip_arg, ip_val, parse_addr, string_to_ip, Addr};
use crate::cel::env::{EnvOptions, Function, Overload};
use crate::cel::types::{Type, CIDR, IP};
use crate::cel::value::{EvalError, EvalResult, Opaque, Val};
use crate::gofmt::quote;
use std::any::Any;
use std::rc::Rc;

/// A `netip.Prefix`: an address (not masked) and a prefix length.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Prefix {
    pub addr: Addr,
    pub bits: u32,
}

fn mask_bytes(b: &mut [u8], bits: u32) {
    for (i, byte) in b.iter_mut().enumerate() {
        let start = i as u32 * 8;
        if start >= bits {
            *byte = 0;
        } else if start + 8 > bits {
            let keep = bits - start;
            *byte &= 0xffu8 << (8 - keep);
        }
    }
}

impl Prefix {
    /// `Prefix.Masked()`.
    pub fn masked(&self) -> Prefix {
        let addr = match self.addr {
            Addr::V4(mut b) => {
                mask_bytes(&mut b, self.bits);
                Addr::V4(b)
            }
            Addr::V6(mut b) => {
                mask_bytes(&mut b, self.bits);
                Addr::V6(b)
            }
        };
        Prefix {
            addr,
            bits: self.bits,
        }
    }

    /// `Prefix.Contains(ip)`.
    pub fn contains(&self, ip: &Addr) -> bool {
        if self.addr.bit_len() != ip.bit_len() {
            return false;
        }
        let mut a = self.addr.bytes();
        let mut b = ip.bytes();
        mask_bytes(&mut a, self.bits);
        mask_bytes(&mut b, self.bits);
        a == b
    }

    /// `Prefix.String()`.
    pub fn to_go_string(&self) -> String {
        format!("{}/{}", self.addr.to_go_string(), self.bits)
    }
}

/// `netip.ParsePrefix`.
pub fn parse_prefix(s: &str) -> Result<Prefix, String> {
    let err = |msg: &str| format!("netip.ParsePrefix({}): {}", quote(s), msg);
    let Some(i) = s.rfind('/') else {
        return Err(err("no '/'"));
    };
    let (addr, zone) = parse_addr(&s[..i]).map_err(|e| err(&e))?;
    if !addr.is4() && !zone.is_empty() {
        return Err(err("IPv6 zones cannot be present in a prefix"));
    }
    let bits_str = &s[i + 1..];
    let bad = || err(&format!("bad bits after slash: {}", quote(bits_str)));
    let b = bits_str.as_bytes();
    if b.len() > 1 && !(b'1'..=b'9').contains(&b[0]) {
        return Err(bad());
    }
    // strconv.Atoi: an optional sign, then digits, in range.
    let digits = bits_str.strip_prefix(['+', '-']).unwrap_or(bits_str);
    if digits.is_empty() || !digits.bytes().all(|c| c.is_ascii_digit()) {
        return Err(bad());
    }
    let bits: i64 = match digits.parse::<i64>() {
        Ok(v) => {
            if bits_str.starts_with('-') {
                -v
            } else {
                v
            }
        }
        Err(_) => return Err(bad()),
    };
    if bits < 0 || bits > addr.bit_len() as i64 {
        return Err(err("prefix length out of range"));
    }
    Ok(Prefix {
        addr,
        bits: bits as u32,
    })
}

/// The library's `parseCIDR`.
pub fn parse_cidr(raw: &str) -> Result<Prefix, String> {
    let p = parse_prefix(raw).map_err(|e| {
        format!(
            "network address parse error during conversion from string: {}",
            e
        )
    })?;
    if p.addr.is4in6() {
        return Err(format!(
            "IPv4-mapped IPv6 address {} is not allowed",
            quote(raw)
        ));
    }
    Ok(p)
}

/// The CEL value `net.CIDR`.
#[derive(Clone, Debug)]
pub struct CidrValue(pub Prefix);

impl Opaque for CidrValue {
    fn type_name(&self) -> &'static str {
        CIDR
    }
    fn equal(&self, other: &dyn Opaque) -> bool {
        other
            .as_any()
            .downcast_ref::<CidrValue>()
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

fn cidr_val(p: Prefix) -> Val<'static> {
    Val::Opaque(Rc::new(CidrValue(p)))
}

fn cidr_arg(v: Option<&Val>) -> Result<Prefix, EvalError> {
    match v {
        Some(Val::Opaque(o)) => o
            .as_any()
            .downcast_ref::<CidrValue>()
            .map(|c| c.0)
            .ok_or_else(EvalError::no_such_overload),
        _ => Err(EvalError::no_such_overload()),
    }
}

fn str_arg<'v>(v: Option<&'v Val>) -> Result<&'v str, EvalError> {
    v.and_then(|v| v.as_str())
        .ok_or_else(EvalError::no_such_overload)
}

fn string_to_cidr<'a>(args: &[Val<'a>]) -> EvalResult<'a> {
    let s = str_arg(args.first())?;
    parse_cidr(s).map(cidr_val).map_err(|e| {
        EvalError::new(format!(
            "network address parse error during conversion from string: {}",
            e
        ))
    })
}

fn cidr_to_string<'a>(args: &[Val<'a>]) -> EvalResult<'a> {
    Ok(Val::string(cidr_arg(args.first())?.to_go_string()))
}

fn contains_ip<'a>(args: &[Val<'a>]) -> EvalResult<'a> {
    let p = cidr_arg(args.first())?;
    Ok(Val::Bool(p.contains(&ip_arg(args.get(1))?)))
}

fn contains_ip_string<'a>(args: &[Val<'a>]) -> EvalResult<'a> {
    let p = cidr_arg(args.first())?;
    // The library passes ip()'s result on; an error there is not a net.IP, and the
    // CIDR argument (not the error) decides the error returned: "no such overload".
    let ip =
        string_to_ip(args.get(1..2).unwrap_or(&[])).map_err(|_| EvalError::no_such_overload())?;
    Ok(Val::Bool(p.contains(&ip_arg(Some(&ip))?)))
}

fn contains_cidr_value(p: Prefix, other: Prefix) -> bool {
    let m = p.masked();
    // `cidr.Masked() == netip.PrefixFrom(other.Addr(), cidr.Bits())`: PrefixFrom keeps the
    // address as it is, so the other prefix's address must be the network address.
    let same = other.addr.bit_len() == m.addr.bit_len() && other.addr == m.addr;
    same && p.bits <= other.bits
}

fn contains_cidr<'a>(args: &[Val<'a>]) -> EvalResult<'a> {
    let p = cidr_arg(args.first())?;
    Ok(Val::Bool(contains_cidr_value(p, cidr_arg(args.get(1))?)))
}

fn contains_cidr_string<'a>(args: &[Val<'a>]) -> EvalResult<'a> {
    let p = cidr_arg(args.first())?;
    let other = string_to_cidr(args.get(1..2).unwrap_or(&[]))?;
    Ok(Val::Bool(contains_cidr_value(p, cidr_arg(Some(&other))?)))
}

fn prefix_length<'a>(args: &[Val<'a>]) -> EvalResult<'a> {
    Ok(Val::Int(cidr_arg(args.first())?.bits as i64))
}

fn is_cidr<'a>(args: &[Val<'a>]) -> EvalResult<'a> {
    Ok(Val::Bool(parse_cidr(str_arg(args.first())?).is_ok()))
}

fn cidr_ip<'a>(args: &[Val<'a>]) -> EvalResult<'a> {
    Ok(ip_val(cidr_arg(args.first())?.addr))
}

fn masked<'a>(args: &[Val<'a>]) -> EvalResult<'a> {
    Ok(cidr_val(cidr_arg(args.first())?.masked()))
}

/// Identifiers the library declares: `net.CIDR`, of type `type(net.CIDR)` (a variable in
/// the Go library, plus the registered type), for the core to declare.
pub fn type_identifiers(opts: &EnvOptions) -> Vec<(&'static str, Type)> {
    if opts.compat_minor < 30 {
        return Vec::new();
    }
    vec![(CIDR, Type::type_of(Type::opaque(CIDR)))]
}

/// The functions this library declares at the environment's compatibility version.
pub fn functions(opts: &EnvOptions) -> Vec<Function> {
    if opts.compat_minor < 30 {
        return Vec::new();
    }
    let c = || Type::opaque(CIDR);
    let ip = || Type::opaque(IP);
    vec![
        Function::new(
            "cidr",
            vec![Overload::global(
                "string_to_cidr",
                vec![Type::String],
                c(),
                string_to_cidr,
            )],
        ),
        Function::new(
            "containsIP",
            vec![
                Overload::member(
                    "cidr_contains_ip_string",
                    vec![c(), Type::String],
                    Type::Bool,
                    contains_ip_string,
                ),
                Overload::member(
                    "cidr_contains_ip_ip",
                    vec![c(), ip()],
                    Type::Bool,
                    contains_ip,
                ),
            ],
        ),
        Function::new(
            "containsCIDR",
            vec![
                Overload::member(
                    "cidr_contains_cidr_string",
                    vec![c(), Type::String],
                    Type::Bool,
                    contains_cidr_string,
                ),
                Overload::member(
                    "cidr_contains_cidr",
                    vec![c(), c()],
                    Type::Bool,
                    contains_cidr,
                ),
            ],
        ),
        Function::new(
            "ip",
            vec![Overload::member("cidr_ip", vec![c()], ip(), cidr_ip)],
        ),
        Function::new(
            "prefixLength",
            vec![Overload::member(
                "cidr_prefix_length",
                vec![c()],
                Type::Int,
                prefix_length,
            )],
        ),
        Function::new(
            "masked",
            vec![Overload::member("cidr_masked", vec![c()], c(), masked)],
        ),
        Function::new(
            "isCIDR",
            vec![Overload::global(
                "is_cidr",
                vec![Type::String],
                Type::Bool,
                is_cidr,
            )],
        ),
        Function::new(
            "string",
            vec![Overload::global(
                "cidr_to_string",
                vec![c()],
                Type::String,
                cidr_to_string,
            )],
        ),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(s: &str) -> Prefix {
        parse_cidr(s).unwrap()
    }

    #[test]
    fn parses_like_netip() {
        assert_eq!(p("192.168.0.1/24").to_go_string(), "192.168.0.1/24");
        assert_eq!(
            p("192.168.0.1/24").masked().to_go_string(),
            "192.168.0.0/24"
        );
        assert_eq!(p("2001:db8::/32").to_go_string(), "2001:db8::/32");
        assert_eq!(
            parse_cidr("192.168.0.0").unwrap_err(),
            "network address parse error during conversion from string: netip.ParsePrefix(\"192.168.0.0\"): no '/'"
        );
        assert!(parse_cidr("192.168.0.0/33")
            .unwrap_err()
            .ends_with("prefix length out of range"));
        assert!(parse_cidr("::1/129").is_err());
        assert!(parse_cidr("1.2.3.4/024")
            .unwrap_err()
            .ends_with("bad bits after slash: \"024\""));
        assert!(parse_cidr("1.2.3.4/")
            .unwrap_err()
            .ends_with("bad bits after slash: \"\""));
        assert!(parse_cidr("1.2.3.4/+8").is_err());
        assert!(parse_cidr("1.2.3.4/0").is_ok());
        assert!(parse_cidr("fe80::1%eth0/64")
            .unwrap_err()
            .ends_with("IPv6 zones cannot be present in a prefix"));
        assert_eq!(
            parse_cidr("::ffff:1.2.3.4/120").unwrap_err(),
            "IPv4-mapped IPv6 address \"::ffff:1.2.3.4/120\" is not allowed"
        );
    }

    #[test]
    fn containment() {
        let (a, _) = parse_addr("192.168.0.1").unwrap();
        assert!(p("192.168.0.0/24").contains(&a));
        assert!(!p("192.168.1.0/24").contains(&a));
        assert!(contains_cidr_value(
            p("192.168.0.0/16"),
            p("192.168.0.0/24")
        ));
        assert!(!contains_cidr_value(
            p("192.168.0.0/24"),
            p("192.168.0.0/23")
        ));
        // The library's rule: the inner prefix must start at the outer network address.
        assert!(!contains_cidr_value(
            p("192.168.0.0/16"),
            p("192.168.10.0/24")
        ));
        assert!(contains_cidr_value(p("2001:db8::/32"), p("2001:db8::/126")));
        assert!(!contains_cidr_value(p("192.168.0.0/16"), p("192.0.0.0/30")));
    }

    #[test]
    fn evaluates_through_the_environment() {
        let v = crate::version::KubeVersion::parse("1.36").unwrap();
        let e = |x: &str| crate::cel::eval::evaluate(x, None, None, v);
        assert_eq!(
            e("cidr('10.0.0.0/8').containsIP('10.1.2.3')").get("value"),
            Some(&serde_json::json!(true))
        );
        assert_eq!(
            e("cidr('10.0.0.1/8').masked()").get("typedValue"),
            Some(&serde_json::json!({"type": "net.CIDR", "value": "10.0.0.0/8"}))
        );
        assert_eq!(
            e("cidr('10.0.0.0/8').containsIP('x')").get("evalError"),
            Some(&serde_json::json!("no such overload"))
        );
    }
}
