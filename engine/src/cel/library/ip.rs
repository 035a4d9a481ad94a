//! Kubernetes IP library (apiserver `pkg/cel/library/ip.go`, 1.30+): CEL bindings over
//! [`crate::go::netip`]'s `netip.Addr`: `netip.ParseAddr` with its error texts, `Addr.String()` (RFC 5952),
//! and the address classifications. Zones and IPv4-mapped IPv6 addresses are refused, as
//! the library's `parseIPAddr` does.

use crate::cel::env::{EnvOptions, Function, Overload};
use crate::cel::types::{Type, IP};
use crate::cel::value::{EvalError, EvalResult, Opaque, Val};
use crate::go::netip::{parse_addr, Addr};
use crate::go::strconv::quote;
use std::any::Any;
use std::rc::Rc;

/// The library's `parseIPAddr`: no zones, no IPv4-mapped IPv6.
pub fn parse_ip_addr(raw: &str) -> Result<Addr, String> {
    let (addr, zone) = parse_addr(raw).map_err(|e| {
        format!(
            "IP Address {} parse error during conversion from string: {}",
            quote(raw),
            e
        )
    })?;
    if !zone.is_empty() {
        return Err(format!(
            "IP address {} with zone value is not allowed",
            quote(raw)
        ));
    }
    if addr.is4in6() {
        return Err(format!(
            "IPv4-mapped IPv6 address {} is not allowed",
            quote(raw)
        ));
    }
    Ok(addr)
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
