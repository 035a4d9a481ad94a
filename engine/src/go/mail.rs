//! Go's `net/mail.ParseAddress` (RFC 5322 address syntax, with the RFC 2047 encoded words
//! `mime.WordDecoder` decodes in display names), as strfmt's `email` format calls it.

use crate::go::base64::std_decode;
use crate::go::netip::parse_ip;

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
        b'B' | b'b' => std_decode(text).is_some(),
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
            if i + 2 >= b.len() || !b[i + 1].is_ascii_hexdigit() || !b[i + 2].is_ascii_hexdigit() {
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

/// `mail.ParseAddress` succeeds with a single address (strfmt `IsEmail`).
pub(crate) fn parse_address_ok(s: &str) -> bool {
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
