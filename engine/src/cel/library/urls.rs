//! Kubernetes URL library (apiserver `pkg/cel/library/urls.go`, all versions) over Go's
//! `net/url` (Go 1.26): `ParseRequestURI` and `Parse` with their error texts, and the
//! `URL` accessors the library exposes (`Hostname`, `Port`, `EscapedPath`, `Query`,
//! `String`). Bracketed hosts must be IPv6 addresses and a colon in a host starts the
//! port (`urlstrictcolons=1`), as Go 1.26 parses them.

use crate::cel::library::ip::{parse_addr, Addr};
use crate::cel::env::{EnvOptions, Function, Overload};
use crate::cel::types::{Type, URL};
use crate::cel::value::{EvalError, EvalResult, Opaque, Val};
use crate::gofmt::quote;
use std::any::Any;
use std::rc::Rc;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    Path,
    Host,
    Zone,
    UserPassword,
    QueryComponent,
    Fragment,
}

fn should_escape(c: u8, mode: Mode) -> bool {
    if c.is_ascii_alphanumeric() {
        return false;
    }
    if (mode == Mode::Host || mode == Mode::Zone)
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
        b'-' | b'_' | b'.' | b'~' => return false,
        b'$' | b'&' | b'+' | b',' | b'/' | b':' | b';' | b'=' | b'?' | b'@' => match mode {
            Mode::Path => return c == b'?',
            Mode::UserPassword => return matches!(c, b'@' | b'/' | b'?' | b':'),
            Mode::QueryComponent => return true,
            Mode::Fragment => return false,
            Mode::Host | Mode::Zone => {}
        },
        _ => {}
    }
    if mode == Mode::Fragment && matches!(c, b'!' | b'(' | b')' | b'*') {
        return false;
    }
    true
}

fn unhex(c: u8) -> u8 {
    match c {
        b'0'..=b'9' => c - b'0',
        b'a'..=b'f' => c - b'a' + 10,
        b'A'..=b'F' => c - b'A' + 10,
        _ => 0,
    }
}

fn quote_bytes(b: &[u8]) -> String {
    quote(&String::from_utf8_lossy(b))
}

/// Go's `unescape`; errors are `EscapeError` / `InvalidHostError` texts.
fn unescape(s: &[u8], mode: Mode) -> Result<Vec<u8>, String> {
    let mut n = 0;
    let mut has_plus = false;
    let mut i = 0;
    while i < s.len() {
        match s[i] {
            b'%' => {
                n += 1;
                if i + 2 >= s.len()
                    || !s[i + 1].is_ascii_hexdigit()
                    || !s[i + 2].is_ascii_hexdigit()
                {
                    let rest = &s[i..];
                    let rest = &rest[..rest.len().min(3)];
                    return Err(format!("invalid URL escape {}", quote_bytes(rest)));
                }
                let three = &s[i..i + 3];
                if mode == Mode::Host && unhex(s[i + 1]) < 8 && three != b"%25" {
                    return Err(format!("invalid URL escape {}", quote_bytes(three)));
                }
                if mode == Mode::Zone {
                    let v = unhex(s[i + 1]) << 4 | unhex(s[i + 2]);
                    if three != b"%25" && v != b' ' && should_escape(v, Mode::Host) {
                        return Err(format!("invalid URL escape {}", quote_bytes(three)));
                    }
                }
                i += 3;
            }
            b'+' => {
                has_plus = mode == Mode::QueryComponent;
                i += 1;
            }
            c => {
                if (mode == Mode::Host || mode == Mode::Zone) && c < 0x80 && should_escape(c, mode)
                {
                    return Err(format!(
                        "invalid character {} in host name",
                        quote_bytes(&[c])
                    ));
                }
                i += 1;
            }
        }
    }
    if n == 0 && !has_plus {
        return Ok(s.to_vec());
    }
    let mut out = Vec::with_capacity(s.len());
    let mut i = 0;
    while i < s.len() {
        match s[i] {
            b'%' if i + 2 < s.len() => {
                out.push(unhex(s[i + 1]) << 4 | unhex(s[i + 2]));
                i += 3;
            }
            b'+' => {
                out.push(if mode == Mode::QueryComponent {
                    b' '
                } else {
                    b'+'
                });
                i += 1;
            }
            c => {
                out.push(c);
                i += 1;
            }
        }
    }
    Ok(out)
}

fn escape(s: &[u8], mode: Mode) -> Vec<u8> {
    const HEX: &[u8; 16] = b"0123456789ABCDEF";
    let mut out = Vec::with_capacity(s.len());
    for &c in s {
        if c == b' ' && mode == Mode::QueryComponent {
            out.push(b'+');
        } else if should_escape(c, mode) {
            out.push(b'%');
            out.push(HEX[(c >> 4) as usize]);
            out.push(HEX[(c & 15) as usize]);
        } else {
            out.push(c);
        }
    }
    out
}

/// `url.Userinfo`.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Userinfo {
    username: Vec<u8>,
    password: Option<Vec<u8>>,
}

/// `url.URL`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Url {
    scheme: Vec<u8>,
    opaque: Vec<u8>,
    user: Option<Userinfo>,
    host: Vec<u8>,
    path: Vec<u8>,
    raw_path: Vec<u8>,
    omit_host: bool,
    force_query: bool,
    raw_query: Vec<u8>,
    fragment: Vec<u8>,
    raw_fragment: Vec<u8>,
}

fn get_scheme(raw: &[u8]) -> Result<(&[u8], &[u8]), String> {
    for (i, &c) in raw.iter().enumerate() {
        match c {
            b'a'..=b'z' | b'A'..=b'Z' => {}
            b'0'..=b'9' | b'+' | b'-' | b'.' => {
                if i == 0 {
                    return Ok((b"", raw));
                }
            }
            b':' => {
                if i == 0 {
                    return Err("missing protocol scheme".into());
                }
                return Ok((&raw[..i], &raw[i + 1..]));
            }
            _ => return Ok((b"", raw)),
        }
    }
    Ok((b"", raw))
}

fn cut(s: &[u8], sep: u8) -> (&[u8], &[u8]) {
    match s.iter().position(|&b| b == sep) {
        Some(i) => (&s[..i], &s[i + 1..]),
        None => (s, b""),
    }
}

fn valid_optional_port(port: &[u8]) -> bool {
    match port.split_first() {
        None => true,
        Some((b':', digits)) => digits.iter().all(u8::is_ascii_digit),
        Some(_) => false,
    }
}

fn find(h: &[u8], n: &[u8]) -> Option<usize> {
    h.windows(n.len()).position(|w| w == n)
}

fn parse_host(host: &[u8]) -> Result<Vec<u8>, String> {
    let invalid_port = |p: &[u8]| format!("invalid port {} after host", quote_bytes(p));
    match host.iter().rposition(|&b| b == b'[') {
        Some(open) if open > 0 => Err("invalid IP-literal".into()),
        Some(_) => {
            let Some(close) = host.iter().rposition(|&b| b == b']') else {
                return Err("missing ']' in host".into());
            };
            let colon_port = &host[close + 1..];
            if !valid_optional_port(colon_port) {
                return Err(invalid_port(colon_port));
            }
            let colon_port = unescape(colon_port, Mode::Host)?;
            let hostname = host.get(1..close).unwrap_or(&[]);
            let unescaped = match find(hostname, b"%25") {
                Some(z) => {
                    let mut h = unescape(&hostname[..z], Mode::Host)?;
                    h.extend(unescape(&hostname[z..], Mode::Zone)?);
                    h
                }
                None => unescape(hostname, Mode::Host)?,
            };
            match parse_addr(&String::from_utf8_lossy(&unescaped)) {
                Err(e) => return Err(format!("invalid host: {}", e)),
                Ok((Addr::V4(_), _)) => return Err("invalid IP-literal".into()),
                Ok(_) => {}
            }
            let mut out = b"[".to_vec();
            out.extend_from_slice(&unescaped);
            out.push(b']');
            out.extend_from_slice(&colon_port);
            Ok(out)
        }
        None => {
            if let Some(i) = host.iter().position(|&b| b == b':') {
                let colon_port = &host[i..];
                if !valid_optional_port(colon_port) {
                    return Err(invalid_port(colon_port));
                }
            }
            unescape(host, Mode::Host)
        }
    }
}

fn valid_userinfo(s: &[u8]) -> bool {
    String::from_utf8_lossy(s).chars().all(|c| {
        c.is_ascii_alphanumeric()
            || matches!(
                c,
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

fn parse_authority(authority: &[u8]) -> Result<(Option<Userinfo>, Vec<u8>), String> {
    let at = authority.iter().rposition(|&b| b == b'@');
    let host = match at {
        None => parse_host(authority)?,
        Some(i) => parse_host(&authority[i + 1..])?,
    };
    let Some(i) = at else {
        return Ok((None, host));
    };
    let userinfo = &authority[..i];
    if !valid_userinfo(userinfo) {
        return Err("net/url: invalid userinfo".into());
    }
    let user = if !userinfo.contains(&b':') {
        Userinfo {
            username: unescape(userinfo, Mode::UserPassword)?,
            password: None,
        }
    } else {
        let (u, p) = cut(userinfo, b':');
        Userinfo {
            username: unescape(u, Mode::UserPassword)?,
            password: Some(unescape(p, Mode::UserPassword)?),
        }
    };
    Ok((Some(user), host))
}

/// Go's `parse(rawURL, viaRequest)`.
fn parse_inner(raw: &[u8], via_request: bool) -> Result<Url, String> {
    if raw.iter().any(|&b| b < b' ' || b == 0x7f) {
        return Err("net/url: invalid control character in URL".into());
    }
    if raw.is_empty() && via_request {
        return Err("empty url".into());
    }
    let mut url = Url::default();
    if raw == b"*" {
        url.path = b"*".to_vec();
        return Ok(url);
    }
    let (scheme, rest) = get_scheme(raw)?;
    url.scheme = scheme.to_ascii_lowercase();
    let mut rest: &[u8] = rest;
    if rest.ends_with(b"?") && rest.iter().filter(|&&b| b == b'?').count() == 1 {
        url.force_query = true;
        rest = &rest[..rest.len() - 1];
    } else {
        let (r, q) = cut(rest, b'?');
        url.raw_query = q.to_vec();
        rest = r;
    }
    if !rest.starts_with(b"/") {
        if !url.scheme.is_empty() {
            url.opaque = rest.to_vec();
            return Ok(url);
        }
        if via_request {
            return Err("invalid URI for request".into());
        }
        let (segment, _) = cut(rest, b'/');
        if segment.contains(&b':') {
            return Err("first path segment in URL cannot contain colon".into());
        }
    }
    let mut path = rest;
    if (!url.scheme.is_empty() || !via_request && !rest.starts_with(b"///"))
        && rest.starts_with(b"//")
    {
        let after = &rest[2..];
        let (authority, p): (&[u8], &[u8]) = match after.iter().position(|&b| b == b'/') {
            Some(i) => (&after[..i], &after[i..]),
            None => (after, b""),
        };
        let (user, host) = parse_authority(authority)?;
        url.user = user;
        url.host = host;
        path = p;
    } else if !url.scheme.is_empty() && rest.starts_with(b"/") {
        url.omit_host = true;
    }
    let p = unescape(path, Mode::Path)?;
    url.raw_path = if escape(&p, Mode::Path) == path {
        Vec::new()
    } else {
        path.to_vec()
    };
    url.path = p;
    Ok(url)
}

fn url_error(raw: &[u8], e: String) -> String {
    format!("parse {}: {}", quote_bytes(raw), e)
}

/// `url.ParseRequestURI`.
pub fn parse_request_uri(raw: &str) -> Result<Url, String> {
    parse_inner(raw.as_bytes(), true).map_err(|e| url_error(raw.as_bytes(), e))
}

/// `url.Parse`.
pub fn parse(raw: &str) -> Result<Url, String> {
    let rb = raw.as_bytes();
    let (u, frag) = cut(rb, b'#');
    let mut url = parse_inner(u, false).map_err(|e| url_error(u, e))?;
    if frag.is_empty() {
        return Ok(url);
    }
    let f = unescape(frag, Mode::Fragment).map_err(|e| url_error(rb, e))?;
    url.raw_fragment = if escape(&f, Mode::Fragment) == frag {
        Vec::new()
    } else {
        frag.to_vec()
    };
    url.fragment = f;
    Ok(url)
}

fn valid_encoded(s: &[u8], mode: Mode) -> bool {
    s.iter().all(|&c| {
        matches!(
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
                | b'@'
                | b'['
                | b']'
                | b'%'
        ) || !should_escape(c, mode)
    })
}

fn split_host_port(hp: &[u8]) -> (&[u8], &[u8]) {
    let mut host = hp;
    let mut port: &[u8] = b"";
    if let Some(colon) = host.iter().rposition(|&b| b == b':') {
        if valid_optional_port(&host[colon..]) {
            port = &host[colon + 1..];
            host = &host[..colon];
        }
    }
    if host.len() >= 2 && host.starts_with(b"[") && host.ends_with(b"]") {
        host = &host[1..host.len() - 1];
    }
    (host, port)
}

impl Url {
    /// `URL.EscapedPath()`.
    pub fn escaped_path(&self) -> Vec<u8> {
        if !self.raw_path.is_empty() && valid_encoded(&self.raw_path, Mode::Path) {
            if let Ok(p) = unescape(&self.raw_path, Mode::Path) {
                if p == self.path {
                    return self.raw_path.clone();
                }
            }
        }
        if self.path == b"*" {
            return b"*".to_vec();
        }
        escape(&self.path, Mode::Path)
    }

    fn escaped_fragment(&self) -> Vec<u8> {
        if !self.raw_fragment.is_empty() && valid_encoded(&self.raw_fragment, Mode::Fragment) {
            if let Ok(f) = unescape(&self.raw_fragment, Mode::Fragment) {
                if f == self.fragment {
                    return self.raw_fragment.clone();
                }
            }
        }
        escape(&self.fragment, Mode::Fragment)
    }

    pub fn hostname(&self) -> Vec<u8> {
        split_host_port(&self.host).0.to_vec()
    }

    pub fn port(&self) -> Vec<u8> {
        split_host_port(&self.host).1.to_vec()
    }

    /// `URL.String()`.
    pub fn to_go_string(&self) -> String {
        let mut buf: Vec<u8> = Vec::new();
        if !self.scheme.is_empty() {
            buf.extend_from_slice(&self.scheme);
            buf.push(b':');
        }
        if !self.opaque.is_empty() {
            buf.extend_from_slice(&self.opaque);
        } else {
            if !self.scheme.is_empty() || !self.host.is_empty() || self.user.is_some() {
                if self.omit_host && self.host.is_empty() && self.user.is_none() {
                    // Omit the empty host.
                } else {
                    if !self.host.is_empty() || !self.path.is_empty() || self.user.is_some() {
                        buf.extend_from_slice(b"//");
                    }
                    if let Some(u) = &self.user {
                        buf.extend(escape(&u.username, Mode::UserPassword));
                        if let Some(p) = &u.password {
                            buf.push(b':');
                            buf.extend(escape(p, Mode::UserPassword));
                        }
                        buf.push(b'@');
                    }
                    if !self.host.is_empty() {
                        buf.extend(escape(&self.host, Mode::Host));
                    }
                }
            }
            let path = self.escaped_path();
            if !path.is_empty() && path[0] != b'/' && !self.host.is_empty() {
                buf.push(b'/');
            }
            if buf.is_empty() {
                let (segment, _) = cut(&path, b'/');
                if segment.contains(&b':') {
                    buf.extend_from_slice(b"./");
                }
            }
            buf.extend(path);
        }
        if self.force_query || !self.raw_query.is_empty() {
            buf.push(b'?');
            buf.extend_from_slice(&self.raw_query);
        }
        if !self.fragment.is_empty() {
            buf.push(b'#');
            buf.extend(self.escaped_fragment());
        }
        String::from_utf8_lossy(&buf).into_owned()
    }

    /// `URL.Query()`: keys in sorted order (Go's map order is random), values in order.
    pub fn query(&self) -> Vec<(Vec<u8>, Vec<Vec<u8>>)> {
        let mut out: std::collections::BTreeMap<Vec<u8>, Vec<Vec<u8>>> =
            std::collections::BTreeMap::new();
        let mut q: &[u8] = &self.raw_query;
        // Go 1.24+: more than 10000 parameters and nothing is parsed.
        if q.iter().filter(|&&b| b == b'&').count() + 1 > 10_000 {
            return Vec::new();
        }
        while !q.is_empty() {
            let (key, rest) = cut(q, b'&');
            q = rest;
            if key.contains(&b';') || key.is_empty() {
                continue;
            }
            let (k, v) = cut(key, b'=');
            let Ok(k) = unescape(k, Mode::QueryComponent) else {
                continue;
            };
            let Ok(v) = unescape(v, Mode::QueryComponent) else {
                continue;
            };
            out.entry(k).or_default().push(v);
        }
        out.into_iter().collect()
    }
}

/// The CEL value `kubernetes.URL`.
#[derive(Clone, Debug)]
pub struct UrlValue(pub Url);

impl Opaque for UrlValue {
    fn type_name(&self) -> &'static str {
        URL
    }
    fn equal(&self, other: &dyn Opaque) -> bool {
        other
            .as_any()
            .downcast_ref::<UrlValue>()
            .map(|o| o.0.to_go_string() == self.0.to_go_string())
            .unwrap_or(false)
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
    fn to_canonical(&self) -> String {
        self.0.to_go_string()
    }
}

fn u_arg<'v>(v: Option<&'v Val>) -> Result<&'v Url, EvalError> {
    match v {
        Some(Val::Opaque(o)) => o
            .as_any()
            .downcast_ref::<UrlValue>()
            .map(|u| &u.0)
            .ok_or_else(EvalError::no_such_overload),
        _ => Err(EvalError::no_such_overload()),
    }
}

fn str_arg<'v>(v: Option<&'v Val>) -> Result<&'v str, EvalError> {
    v.and_then(|v| v.as_str())
        .ok_or_else(EvalError::no_such_overload)
}

fn bytes_val<'a>(b: &[u8]) -> Val<'a> {
    Val::string(String::from_utf8_lossy(b).into_owned())
}

fn string_to_url<'a>(args: &[Val<'a>]) -> EvalResult<'a> {
    let s = str_arg(args.first())?;
    let conv = |e: String| {
        EvalError::new(format!(
            "URL parse error during conversion from string: {}",
            e
        ))
    };
    parse_request_uri(s).map_err(conv)?;
    let u = parse(s).map_err(conv)?;
    Ok(Val::Opaque(Rc::new(UrlValue(u))))
}

fn get_scheme_fn<'a>(args: &[Val<'a>]) -> EvalResult<'a> {
    Ok(bytes_val(&u_arg(args.first())?.scheme))
}

fn get_host<'a>(args: &[Val<'a>]) -> EvalResult<'a> {
    Ok(bytes_val(&u_arg(args.first())?.host))
}

fn get_hostname<'a>(args: &[Val<'a>]) -> EvalResult<'a> {
    Ok(bytes_val(&u_arg(args.first())?.hostname()))
}

fn get_port<'a>(args: &[Val<'a>]) -> EvalResult<'a> {
    Ok(bytes_val(&u_arg(args.first())?.port()))
}

fn get_escaped_path<'a>(args: &[Val<'a>]) -> EvalResult<'a> {
    Ok(bytes_val(&u_arg(args.first())?.escaped_path()))
}

fn get_query<'a>(args: &[Val<'a>]) -> EvalResult<'a> {
    let q = u_arg(args.first())?.query();
    Ok(Val::map(
        q.into_iter()
            .map(|(k, vs)| {
                (
                    bytes_val(&k),
                    Val::list(vs.iter().map(|v| bytes_val(v)).collect()),
                )
            })
            .collect(),
    ))
}

fn is_url<'a>(args: &[Val<'a>]) -> EvalResult<'a> {
    Ok(Val::Bool(parse_request_uri(str_arg(args.first())?).is_ok()))
}

/// The functions this library declares at the environment's compatibility version.
pub fn functions(_opts: &EnvOptions) -> Vec<Function> {
    let u = || Type::opaque(URL);
    vec![
        Function::new(
            "url",
            vec![Overload::global(
                "string_to_url",
                vec![Type::String],
                u(),
                string_to_url,
            )],
        ),
        Function::new(
            "getScheme",
            vec![Overload::member(
                "url_get_scheme",
                vec![u()],
                Type::String,
                get_scheme_fn,
            )],
        ),
        Function::new(
            "getHost",
            vec![Overload::member(
                "url_get_host",
                vec![u()],
                Type::String,
                get_host,
            )],
        ),
        Function::new(
            "getHostname",
            vec![Overload::member(
                "url_get_hostname",
                vec![u()],
                Type::String,
                get_hostname,
            )],
        ),
        Function::new(
            "getPort",
            vec![Overload::member(
                "url_get_port",
                vec![u()],
                Type::String,
                get_port,
            )],
        ),
        Function::new(
            "getEscapedPath",
            vec![Overload::member(
                "url_get_escaped_path",
                vec![u()],
                Type::String,
                get_escaped_path,
            )],
        ),
        Function::new(
            "getQuery",
            vec![Overload::member(
                "url_get_query",
                vec![u()],
                Type::map(Type::String, Type::list(Type::String)),
                get_query,
            )],
        ),
        Function::new(
            "isURL",
            vec![Overload::global(
                "is_url_string",
                vec![Type::String],
                Type::Bool,
                is_url,
            )],
        ),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(u: &Url) -> String {
        u.to_go_string()
    }

    #[test]
    fn parses_like_net_url() {
        let u =
            parse("https://user:pass@kubernetes.io:80/docs/home?k1=a&k2=b&k2=c#anchor").unwrap();
        assert_eq!(u.scheme, b"https");
        assert_eq!(u.hostname(), b"kubernetes.io");
        assert_eq!(u.port(), b"80");
        assert_eq!(u.escaped_path(), b"/docs/home");
        assert_eq!(
            u.query(),
            vec![
                (b"k1".to_vec(), vec![b"a".to_vec()]),
                (b"k2".to_vec(), vec![b"b".to_vec(), b"c".to_vec()])
            ]
        );
        assert_eq!(
            s(&u),
            "https://user:pass@kubernetes.io:80/docs/home?k1=a&k2=b&k2=c#anchor"
        );
        let u = parse("https:://kubernetes.io/").unwrap();
        assert_eq!(u.scheme, b"https");
        assert_eq!(u.hostname(), b"");
        assert_eq!(s(&u), "https:://kubernetes.io/");
        assert_eq!(parse("https://[::1]/").unwrap().host, b"[::1]");
        assert_eq!(parse("https://[::1]/").unwrap().hostname(), b"::1");
        assert_eq!(
            parse("https://example.com/path with spaces/")
                .unwrap()
                .escaped_path(),
            b"/path%20with%20spaces/"
        );
        assert_eq!(
            parse_request_uri("../relative-path").unwrap_err(),
            "parse \"../relative-path\": invalid URI for request"
        );
        assert!(parse_request_uri("/path").is_ok());
        assert_eq!(parse_request_uri("").unwrap_err(), "parse \"\": empty url");
        assert_eq!(
            parse_request_uri(":foo").unwrap_err(),
            "parse \":foo\": missing protocol scheme"
        );
        assert_eq!(
            parse_request_uri("http://a b/").unwrap_err(),
            "parse \"http://a b/\": invalid character \" \" in host name"
        );
        assert_eq!(
            parse_request_uri("http://[1.2.3.4]/").unwrap_err(),
            "parse \"http://[1.2.3.4]/\": invalid IP-literal"
        );
        assert_eq!(
            parse_request_uri("http://x:8a/").unwrap_err(),
            "parse \"http://x:8a/\": invalid port \":8a\" after host"
        );
        assert_eq!(
            parse_request_uri("http://x/%zz").unwrap_err(),
            "parse \"http://x/%zz\": invalid URL escape \"%zz\""
        );
        assert_eq!(s(&parse("/path").unwrap()), "/path");
        assert_eq!(s(&parse("file:///etc/hosts").unwrap()), "file:///etc/hosts");
        assert_eq!(s(&parse("mailto:a@b").unwrap()), "mailto:a@b");
        assert_eq!(s(&parse("http://x/a%2fb").unwrap()), "http://x/a%2fb");
        assert!(parse("https://example.com/path?")
            .unwrap()
            .query()
            .is_empty());
    }

    #[test]
    fn evaluates_through_the_environment() {
        let v = crate::version::KubeVersion::parse("1.36").unwrap();
        let out = crate::cel::eval::evaluate(
            "url('https://a.io:8443/p?x=1').getPort() == '8443' && isURL('/x') && !isURL('x')",
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
    }
}
