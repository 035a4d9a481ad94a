//! Go's `net/netip` (`ParseAddr` with its error texts, `Addr.String()` per RFC 5952, the
//! address classifications, `ParsePrefix`) and the `net` parsers built on it: `net.ParseIP`
//! (Go 1.17+, netip rules, no zone) and the Go 1.16 parsers `k8s.io/utils/net` keeps as
//! `ParseIPSloppy`/`ParseCIDRSloppy` (leading zeros in IPv4 fields), and `net.ParseMAC`.
//! One IPv6 parser ([`parse_v6`]) serves all of them.

use crate::go::strconv::quote;

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

/// The one IPv6 parser: `netip.parseIPv6` (strict), or, `sloppy`, the Go 1.16 `net.parseIPv6`
/// that `k8s.io/utils/net.ParseIPSloppy` keeps: groups of any number of hex digits (value
/// below 2^16), an embedded IPv4 address with leading zeros, no zone (a `%` is garbage).
/// Errors carry netip's texts; the sloppy callers only ask whether it parsed.
fn parse_v6(input: &str, sloppy: bool) -> Result<Parsed, String> {
    let mut s: &str = input;
    let mut zone = "";
    if let Some(i) = s.find('%').filter(|_| !sloppy) {
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
            if off > 3 && !sloppy {
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
            let f = if sloppy {
                parse_ipv4_sloppy(s.as_bytes()).ok_or_else(|| addr_error(input, "bad IPv4 address", s))?
            } else {
                let mut end = input.len();
                if !zone.is_empty() {
                    end -= zone.len() + 1;
                }
                parse_v4_fields(input, end - s.len(), end)?
            };
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
            b':' => return parse_v6(s, false),
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
    /// `Addr.As16()`: IPv4 addresses in their IPv4-mapped IPv6 form.
    pub fn as16(&self) -> [u8; 16] {
        match self {
            Addr::V4(f) => v4_in_v6(*f),
            Addr::V6(b) => *b,
        }
    }

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


/// Go's `net.ParseIP` since Go 1.17: `netip.ParseAddr` without a zone, in the 16-byte form.
pub(crate) fn parse_ip(s: &str) -> Option<[u8; 16]> {
    match parse_addr_zone(s) {
        Ok(p) if p.zone.is_empty() => Some(p.addr.as16()),
        _ => None,
    }
}

fn v4_in_v6(f: [u8; 4]) -> [u8; 16] {
    let mut ip = [0u8; 16];
    ip[10] = 0xff;
    ip[11] = 0xff;
    ip[12..].copy_from_slice(&f);
    ip
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

/// `k8s.io/utils/net.ParseIPSloppy` (Go 1.16's `net.ParseIP`).
pub(crate) fn parse_ip_sloppy(s: &str) -> Option<[u8; 16]> {
    for b in s.bytes() {
        match b {
            b'.' => return parse_ipv4_sloppy(s.as_bytes()).map(v4_in_v6),
            b':' => return parse_v6(s, true).ok().map(|p| p.addr.as16()),
            _ => {}
        }
    }
    None
}

/// `k8s.io/utils/net.ParseCIDRSloppy` (Go 1.16's `net.ParseCIDR`) succeeds.
pub(crate) fn is_cidr_sloppy(s: &str) -> bool {
    let Some(i) = s.find('/') else {
        return false;
    };
    let (addr, mask) = (&s[..i], &s.as_bytes()[i + 1..]);
    let iplen = if parse_ipv4_sloppy(addr.as_bytes()).is_some() {
        4
    } else if parse_v6(addr, true).is_ok() {
        16
    } else {
        return false;
    };
    match dtoi(mask) {
        Some((n, c)) => c == mask.len() && n <= 8 * iplen,
        None => false,
    }
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

/// `net.ParseMAC` succeeds.
pub(crate) fn is_mac(s: &str) -> bool {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_ipv6_parser_two_rule_sets() {
        // netip (net.ParseIP since Go 1.17): at most four hex digits a group, no leading
        // zeros in an embedded IPv4 address, zones refused by ParseIP.
        assert!(parse_ip("2001:db8::1").is_some());
        assert_eq!(parse_ip("00001::1"), None);
        assert_eq!(parse_ip("::ffff:001.2.3.4"), None);
        assert_eq!(parse_ip("fe80::1%eth0"), None);
        // Go 1.16 (ParseIPSloppy): longer groups of a value below 2^16, leading zeros.
        assert_eq!(parse_ip_sloppy("00001::1"), parse_ip("1::1"));
        assert_eq!(parse_ip_sloppy("::ffff:001.002.003.004"), parse_ip("::ffff:1.2.3.4"));
        assert_eq!(parse_ip_sloppy("10000::"), None);
        assert_eq!(parse_ip_sloppy("fe80::1%eth0"), None);
        assert!(is_cidr_sloppy("2001:db8::/032"));
        assert!(!is_cidr_sloppy("2001:db8::/129"));
        assert_eq!(
            parse_addr("1::2::3").unwrap_err(),
            "ParseAddr(\"1::2::3\"): multiple :: in address (at \":3\")"
        );
        assert_eq!(parse_addr("fe80::1%eth0").unwrap().1, "eth0");
    }

    #[test]
    fn macs() {
        assert!(is_mac("01:02:03:04:05:06"));
        assert!(!is_mac("01:02-03:04:05:06"));
    }
}
