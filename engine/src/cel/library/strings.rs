//! cel-go's strings extension (`ext/strings.go`), version 0 below compatibility 1.29
//! and version 2 from it (apiserver `environment/base.go`): charAt, indexOf, lastIndexOf,
//! lowerAscii, upperAscii, replace, split, substring, trim, join; from version 1 (so at
//! 1.29+) `format` (cel-go `ext/formatting.go`, with its compile-time validator) and
//! `strings.quote`. Indices count code points.

use crate::cel::checker::{CheckIssue, Checked};
use crate::cel::env::{EnvOptions, Function, Overload};
use crate::cel::types::Type;
use crate::cel::value::{EvalError, EvalResult, Map, Val};
use crate::version::Feature;
use cel::common::ast::{EntryExpr, Expr, IdedExpr, LiteralValue};

/// The largest string a call may build: far beyond what the per-call cost limit lets
/// an expression pay for, so refusing it early only avoids the allocation.
const MAX_STRING_BYTES: usize = 1 << 26;

/// How deeply `%s` follows nested lists and maps (data may nest deeper than the stack
/// allows).
const MAX_FORMAT_DEPTH: usize = 1000;

/// The strings library version apiserver configures at this compatibility version.
fn version(opts: &EnvOptions) -> u32 {
    if opts.compat_minor >= 29 {
        2
    } else {
        0
    }
}

/// The functions this library declares at the environment's compatibility version.
pub fn functions(opts: &EnvOptions) -> Vec<Function> {
    let v = version(opts);
    // The release's cel-go decides what an offset past the end gives, and how `%e` prints.
    let (index_of, last_index_of): (crate::cel::env::Impl, crate::cel::env::Impl) =
        if opts.code_has(Feature::IndexOfPastEndNotFound) {
            (index_of, last_index_of)
        } else {
            (index_of_past_end_errs, last_index_of_past_end_errs)
        };
    let format: crate::cel::env::Impl = if opts.code_has(Feature::ScientificWithoutSpaces) {
        format
    } else {
        format_spaced_scientific
    };
    let s = || Type::String;
    let i = || Type::Int;
    let mut out = vec![
        Function::new(
            "charAt",
            vec![Overload::member(
                "string_char_at_int",
                vec![s(), i()],
                s(),
                char_at,
            )],
        ),
        Function::new(
            "indexOf",
            vec![
                Overload::member("string_index_of_string", vec![s(), s()], i(), index_of),
                Overload::member(
                    "string_index_of_string_int",
                    vec![s(), s(), i()],
                    i(),
                    index_of,
                ),
            ],
        ),
        Function::new(
            "lastIndexOf",
            vec![
                Overload::member(
                    "string_last_index_of_string",
                    vec![s(), s()],
                    i(),
                    last_index_of,
                ),
                Overload::member(
                    "string_last_index_of_string_int",
                    vec![s(), s(), i()],
                    i(),
                    last_index_of,
                ),
            ],
        ),
        Function::new(
            "lowerAscii",
            vec![Overload::member(
                "string_lower_ascii",
                vec![s()],
                s(),
                lower_ascii,
            )],
        ),
        Function::new(
            "replace",
            vec![
                Overload::member(
                    "string_replace_string_string",
                    vec![s(), s(), s()],
                    s(),
                    replace,
                ),
                Overload::member(
                    "string_replace_string_string_int",
                    vec![s(), s(), s(), i()],
                    s(),
                    replace,
                ),
            ],
        ),
        Function::new(
            "split",
            vec![
                Overload::member(
                    "string_split_string",
                    vec![s(), s()],
                    Type::list(s()),
                    split,
                ),
                Overload::member(
                    "string_split_string_int",
                    vec![s(), s(), i()],
                    Type::list(s()),
                    split,
                ),
            ],
        ),
        Function::new(
            "substring",
            vec![
                Overload::member("string_substring_int", vec![s(), i()], s(), substring),
                Overload::member(
                    "string_substring_int_int",
                    vec![s(), i(), i()],
                    s(),
                    substring,
                ),
            ],
        ),
        Function::new(
            "trim",
            vec![Overload::member("string_trim", vec![s()], s(), trim)],
        ),
        Function::new(
            "upperAscii",
            vec![Overload::member(
                "string_upper_ascii",
                vec![s()],
                s(),
                upper_ascii,
            )],
        ),
    ];
    if v >= 1 {
        out.push(Function::new(
            "format",
            vec![Overload::member(
                "string_format",
                vec![s(), Type::list(Type::Dyn)],
                s(),
                format,
            )],
        ));
        out.push(Function::new(
            "strings.quote",
            vec![Overload::global("strings_quote", vec![s()], s(), quote)],
        ));
    }
    let (join0, join1): (crate::cel::env::Impl, crate::cel::env::Impl) = if v >= 2 {
        (join_v2, join_v2)
    } else {
        (join_v0, join_v0)
    };
    out.push(Function::new(
        "join",
        vec![
            Overload::member("list_join", vec![Type::list(s())], s(), join0),
            Overload::member("list_join_string", vec![Type::list(s()), s()], s(), join1),
        ],
    ));
    out
}

// ------------------------------------------------------------------ argument helpers

fn str_arg<'b>(args: &'b [Val], i: usize) -> Result<&'b str, EvalError> {
    match args.get(i) {
        Some(Val::String(s)) => Ok(s.as_str()),
        _ => Err(EvalError::no_such_overload()),
    }
}

fn int_arg(args: &[Val], i: usize) -> Result<i64, EvalError> {
    match args.get(i) {
        Some(Val::Int(n)) => Ok(*n),
        _ => Err(EvalError::no_such_overload()),
    }
}

fn out_of_range(i: i64) -> EvalError {
    EvalError::new(format!("index out of range: {}", i))
}

/// The byte offset of code point `n` (the string length when `n` is past the end).
fn byte_of(s: &str, n: usize) -> usize {
    s.char_indices().nth(n).map(|(b, _)| b).unwrap_or(s.len())
}

fn checked_string<'a>(s: String) -> EvalResult<'a> {
    if s.len() > MAX_STRING_BYTES {
        return Err(EvalError::cost_limit());
    }
    Ok(Val::string(s))
}

// ------------------------------------------------------------------ functions

/// `s.charAt(i)`: the code point at `i`, `""` at the end.
fn char_at<'a>(args: &[Val<'a>]) -> EvalResult<'a> {
    let s = str_arg(args, 0)?;
    let i = int_arg(args, 1)?;
    let len = s.chars().count() as i64;
    if i < 0 || i > len {
        return Err(out_of_range(i));
    }
    Ok(match s.chars().nth(i as usize) {
        Some(c) => Val::string(c.to_string()),
        None => Val::str(""),
    })
}

/// `s.indexOf(sub)` / `s.indexOf(sub, offset)`, in code points.
fn index_of<'a>(args: &[Val<'a>]) -> EvalResult<'a> {
    index_of_at(args, false)
}

/// `indexOf` of cel-go before v0.22 (`indexOfOffset`): an offset at or past the end of the
/// string is `index out of range: N`.
fn index_of_past_end_errs<'a>(args: &[Val<'a>]) -> EvalResult<'a> {
    index_of_at(args, true)
}

fn index_of_at<'a>(args: &[Val<'a>], past_end_errs: bool) -> EvalResult<'a> {
    let s = str_arg(args, 0)?;
    let sub = str_arg(args, 1)?;
    let off = if args.len() > 2 { int_arg(args, 2)? } else { 0 };
    if sub.is_empty() {
        return Ok(Val::Int(off));
    }
    if off < 0 {
        return Err(out_of_range(off));
    }
    let len = s.chars().count() as i64;
    if off >= len {
        return if past_end_errs { Err(out_of_range(off)) } else { Ok(Val::Int(-1)) };
    }
    let start = byte_of(s, off as usize);
    Ok(Val::Int(match s[start..].find(sub) {
        Some(b) => off + s[start..start + b].chars().count() as i64,
        None => -1,
    }))
}

/// `s.lastIndexOf(sub)` / `s.lastIndexOf(sub, offset)`: the last match starting at or
/// before the offset (the end of the string by default).
fn last_index_of<'a>(args: &[Val<'a>]) -> EvalResult<'a> {
    last_index_of_at(args, false)
}

/// `lastIndexOf` of cel-go before v0.22 (`lastIndexOfOffset`): an offset at or past the
/// end of the string is `index out of range: N`.
fn last_index_of_past_end_errs<'a>(args: &[Val<'a>]) -> EvalResult<'a> {
    last_index_of_at(args, true)
}

fn last_index_of_at<'a>(args: &[Val<'a>], past_end_errs: bool) -> EvalResult<'a> {
    let s = str_arg(args, 0)?;
    let sub = str_arg(args, 1)?;
    let len = s.chars().count() as i64;
    let off = if args.len() > 2 {
        int_arg(args, 2)?
    } else {
        if sub.is_empty() {
            return Ok(Val::Int(len));
        }
        len - 1
    };
    if sub.is_empty() {
        return Ok(Val::Int(off));
    }
    if off < 0 {
        return Err(out_of_range(off));
    }
    if off >= len {
        return if past_end_errs { Err(out_of_range(off)) } else { Ok(Val::Int(-1)) };
    }
    let sub_len = sub.chars().count() as i64;
    let off = off.min(len - sub_len);
    if off < 0 {
        return Ok(Val::Int(-1));
    }
    // Matches may start at code points 0..=off, so they end by off + sub_len.
    let end = byte_of(s, (off + sub_len) as usize);
    Ok(Val::Int(match s[..end].rfind(sub) {
        Some(b) => s[..b].chars().count() as i64,
        None => -1,
    }))
}

fn lower_ascii<'a>(args: &[Val<'a>]) -> EvalResult<'a> {
    Ok(Val::string(str_arg(args, 0)?.to_ascii_lowercase()))
}

fn upper_ascii<'a>(args: &[Val<'a>]) -> EvalResult<'a> {
    Ok(Val::string(str_arg(args, 0)?.to_ascii_uppercase()))
}

/// `s.replace(old, new)` / `s.replace(old, new, n)`: Go's `strings.Replace` (an empty
/// `old` matches before every code point and at the end; `n < 0` replaces all).
fn replace<'a>(args: &[Val<'a>]) -> EvalResult<'a> {
    let s = str_arg(args, 0)?;
    let old = str_arg(args, 1)?;
    let new = str_arg(args, 2)?;
    let n = if args.len() > 3 {
        int_arg(args, 3)?
    } else {
        -1
    };
    if n == 0 || old == new {
        return Ok(Val::str(s));
    }
    let matches = if old.is_empty() {
        s.chars().count() + 1
    } else {
        s.matches(old).count()
    };
    let count = if n < 0 {
        matches
    } else {
        matches.min(n as usize)
    };
    let size = (s.len() as u128 + count as u128 * new.len() as u128)
        .saturating_sub(count as u128 * old.len() as u128);
    if size > MAX_STRING_BYTES as u128 {
        return Err(EvalError::cost_limit());
    }
    checked_string(s.replacen(old, new, count))
}

/// `s.split(sep)` / `s.split(sep, n)`: Go's `strings.Split` / `strings.SplitN` (an empty
/// separator splits into code points; `n == 0` gives no pieces, `n < 0` all of them).
fn split<'a>(args: &[Val<'a>]) -> EvalResult<'a> {
    let s = str_arg(args, 0)?;
    let sep = str_arg(args, 1)?;
    let n = if args.len() > 2 {
        int_arg(args, 2)?
    } else {
        -1
    };
    if n == 0 {
        return Ok(Val::list(Vec::new()));
    }
    let pieces: Vec<Val<'a>> = if sep.is_empty() {
        let count = s.chars().count();
        let n = if n < 0 || n as usize > count {
            count
        } else {
            n as usize
        };
        let mut out = Vec::with_capacity(n);
        let mut rest = s;
        for _ in 0..n.saturating_sub(1) {
            let Some(c) = rest.chars().next() else { break };
            out.push(Val::string(c.to_string()));
            rest = &rest[c.len_utf8()..];
        }
        if n > 0 {
            out.push(Val::str(rest));
        }
        out
    } else if n < 0 {
        s.split(sep).map(Val::str).collect()
    } else {
        s.splitn(n as usize, sep).map(Val::str).collect()
    };
    Ok(Val::list(pieces))
}

/// `s.substring(start)` / `s.substring(start, end)`, in code points.
fn substring<'a>(args: &[Val<'a>]) -> EvalResult<'a> {
    let s = str_arg(args, 0)?;
    let start = int_arg(args, 1)?;
    let len = s.chars().count() as i64;
    let end = if args.len() > 2 {
        let end = int_arg(args, 2)?;
        if start > end {
            return Err(EvalError::new(format!(
                "invalid substring range. start: {}, end: {}",
                start, end
            )));
        }
        Some(end)
    } else {
        None
    };
    if start < 0 || start > len {
        return Err(out_of_range(start));
    }
    let end = match end {
        Some(e) if e < 0 || e > len => return Err(out_of_range(e)),
        Some(e) => e,
        None => len,
    };
    let (b0, b1) = (byte_of(s, start as usize), byte_of(s, end as usize));
    Ok(Val::str(&s[b0..b1]))
}

/// `s.trim()`: Go's `strings.TrimSpace` (Unicode white space, not zero-width spaces).
fn trim<'a>(args: &[Val<'a>]) -> EvalResult<'a> {
    Ok(Val::str(str_arg(args, 0)?.trim()))
}

/// How cel-go's `%v` prints a list element that is not a string (join's error).
fn go_val_text(v: &Val) -> String {
    match v {
        Val::Null => "NULL_VALUE".into(),
        Val::Bool(b) => b.to_string(),
        Val::Int(i) => i.to_string(),
        Val::Uint(u) => u.to_string(),
        Val::Double(d) => crate::go::fmt::format_float_v(*d),
        other => format!("{:?}", other),
    }
}

/// `list.join()` / `list.join(sep)` from version 2: elements must be strings.
fn join_v2<'a>(args: &[Val<'a>]) -> EvalResult<'a> {
    join_with(args, |v| {
        EvalError::new(format!("join: invalid input: {}", go_val_text(v)))
    })
}

/// Version 0 joins a list converted to `[]string` first.
fn join_v0<'a>(args: &[Val<'a>]) -> EvalResult<'a> {
    join_with(args, |v| {
        EvalError::new(format!(
            "type conversion error from '{}' to 'string'",
            v.type_name()
        ))
    })
}

fn join_with<'a>(args: &[Val<'a>], bad: impl Fn(&Val) -> EvalError) -> EvalResult<'a> {
    let items = match args.first() {
        Some(Val::List(l)) => l.try_items()?,
        _ => return Err(EvalError::no_such_overload()),
    };
    let sep = if args.len() > 1 {
        str_arg(args, 1)?
    } else {
        ""
    };
    let mut size = 0usize;
    for (i, v) in items.iter().enumerate() {
        let Val::String(s) = v else {
            return Err(bad(v));
        };
        size = size
            .saturating_add(s.as_str().len())
            .saturating_add(if i > 0 { sep.len() } else { 0 });
    }
    if size > MAX_STRING_BYTES {
        return Err(EvalError::cost_limit());
    }
    let mut out = String::with_capacity(size);
    for (i, v) in items.iter().enumerate() {
        if i > 0 {
            out.push_str(sep);
        }
        if let Val::String(s) = v {
            out.push_str(s.as_str());
        }
    }
    Ok(Val::string(out))
}

/// `strings.quote(s)`: a double-quoted string with CEL's escapes for `\a \b \f \n \r
/// \t \v \\ "`; every other code point kept as is.
fn quote<'a>(args: &[Val<'a>]) -> EvalResult<'a> {
    let s = str_arg(args, 0)?;
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '\x07' => out.push_str("\\a"),
            '\x08' => out.push_str("\\b"),
            '\x0c' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\x0b' => out.push_str("\\v"),
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            c => out.push(c),
        }
    }
    out.push('"');
    checked_string(out)
}

// ------------------------------------------------------------------ string.format

/// A formatting clause (`%s`, `%d`, `%.3f`, ...).
#[derive(Clone, Copy, Debug, PartialEq)]
enum Clause {
    Str,
    Decimal,
    Fixed(Option<i64>),
    Scientific(Option<i64>),
    Binary,
    Hex(bool),
    Octal,
}

/// A formatting failure: cel-go's message, the expression it is about (for the
/// validator), or the output growing past what any cost budget pays for.
#[derive(Debug)]
struct FmtError {
    msg: String,
    id: Option<u64>,
    too_large: bool,
}

impl FmtError {
    fn new(msg: impl Into<String>) -> FmtError {
        FmtError {
            msg: msg.into(),
            id: None,
            too_large: false,
        }
    }
    fn at(id: u64, msg: impl Into<String>) -> FmtError {
        FmtError {
            msg: msg.into(),
            id: Some(id),
            too_large: false,
        }
    }
    fn too_large() -> FmtError {
        FmtError {
            msg: String::new(),
            id: None,
            too_large: true,
        }
    }
    fn wrap(self, prefix: &str) -> FmtError {
        if self.too_large {
            return self;
        }
        FmtError {
            msg: format!("{}: {}", prefix, self.msg),
            ..self
        }
    }
}

/// cel-go's `parseFormatString`: walks the format string, asking `clause` for each
/// substitution (argument index and clause). `runtime` checks the argument exists
/// before anything else, as the runtime argument list does; the validator's does not.
/// Returns the output and the number of arguments requested.
fn parse_format(
    fmt: &str,
    nargs: usize,
    runtime: bool,
    clause: &mut dyn FnMut(usize, Clause, usize) -> Result<String, FmtError>,
) -> Result<(String, usize), FmtError> {
    let b = fmt.as_bytes();
    let mut out: Vec<u8> = Vec::with_capacity(b.len());
    let mut i = 0;
    let mut arg = 0usize;
    let mut requested = 0usize;
    while i < b.len() {
        if b[i] != b'%' {
            out.push(b[i]);
            i += 1;
            continue;
        }
        if b.get(i + 1) == Some(&b'%') {
            out.push(b'%');
            i += 2;
            continue;
        }
        if runtime && arg >= nargs {
            return Err(FmtError::new(format!("index {} out of range", arg)));
        }
        requested += 1;
        if i + 1 >= b.len() {
            return Err(FmtError::new("unexpected end of string"));
        }
        if arg >= nargs {
            return Err(FmtError::new(format!("index {} out of range", arg)));
        }
        let (read, c) =
            parse_clause(&b[i + 1..]).map_err(|e| e.wrap("could not parse formatting clause"))?;
        let budget = MAX_STRING_BYTES.saturating_sub(out.len());
        let text = clause(arg, c, budget).map_err(|e| e.wrap("error during formatting"))?;
        out.extend_from_slice(text.as_bytes());
        if out.len() > MAX_STRING_BYTES {
            return Err(FmtError::too_large());
        }
        i += 1 + read;
        arg += 1;
    }
    let s = String::from_utf8(out)
        .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned());
    Ok((s, requested))
}

/// The clause after a `%`: optional precision, then the verb. Returns the bytes read.
fn parse_clause(rest: &[u8]) -> Result<(usize, Clause), FmtError> {
    let (read, precision) =
        parse_precision(rest).map_err(|e| e.wrap("error while parsing precision"))?;
    let Some(&r) = rest.get(read) else {
        return Err(FmtError::new("unexpected end of string"));
    };
    let c = match r {
        b's' => Clause::Str,
        b'd' => Clause::Decimal,
        b'f' => Clause::Fixed(precision),
        b'e' => Clause::Scientific(precision),
        b'b' => Clause::Binary,
        b'x' => Clause::Hex(false),
        b'X' => Clause::Hex(true),
        b'o' => Clause::Octal,
        other => {
            return Err(FmtError::new(format!(
                "unrecognized formatting clause \"{}\"",
                other as char
            )))
        }
    };
    Ok((read + 1, c))
}

fn parse_precision(rest: &[u8]) -> Result<(usize, Option<i64>), FmtError> {
    if rest.first() != Some(&b'.') {
        return Ok((0, None));
    }
    let mut i = 1;
    loop {
        match rest.get(i) {
            None => return Err(FmtError::new("could not find end of precision specifier")),
            Some(c) if c.is_ascii_digit() => i += 1,
            Some(_) => break,
        }
    }
    let digits = std::str::from_utf8(&rest[1..i]).unwrap_or("");
    if digits.is_empty() {
        return Err(FmtError::new(
            "error while converting precision to integer: strconv.Atoi: parsing \"\": invalid syntax",
        ));
    }
    match digits.parse::<i64>() {
        Ok(p) => Ok((i, Some(p))),
        Err(_) => Err(FmtError::new(format!(
            "error while converting precision to integer: strconv.Atoi: parsing {}: value out of range",
            crate::go::strconv::quote(digits)
        ))),
    }
}

/// `"...".format(args)` at run time.
fn format<'a>(args: &[Val<'a>]) -> EvalResult<'a> {
    format_at(args, false)
}

/// `format` of releases up to 1.32: `%e` puts narrow no-break spaces around the `×`
/// (`Feature::ScientificWithoutSpaces`).
fn format_spaced_scientific<'a>(args: &[Val<'a>]) -> EvalResult<'a> {
    format_at(args, true)
}

fn format_at<'a>(args: &[Val<'a>], spaced_scientific: bool) -> EvalResult<'a> {
    let f = str_arg(args, 0)?;
    let Some(Val::List(list)) = args.get(1) else {
        return Err(EvalError::no_such_overload());
    };
    let mut clause = |i: usize, c: Clause, budget: usize| -> Result<String, FmtError> {
        let v = match list.get(i) {
            Some(Ok(v)) => v,
            Some(Err(e)) => return Err(FmtError::new(e.message)),
            None => return Err(FmtError::new(format!("index {} out of range", i))),
        };
        format_clause(&v, c, budget, spaced_scientific)
    };
    match parse_format(f, list.len(), true, &mut clause) {
        Ok((s, _)) => Ok(Val::string(s)),
        Err(e) if e.too_large => Err(EvalError::cost_limit()),
        Err(e) => Err(EvalError::new(e.msg)),
    }
}

fn clause_error(what: &str, v: &Val) -> FmtError {
    FmtError::new(format!("{}, was given {}", what, v.type_name()))
}

const STRING_CLAUSE: &str =
    "string clause can only be used on strings, bools, bytes, ints, doubles, maps, lists, types, durations, and timestamps";
const DECIMAL_CLAUSE: &str = "decimal clause can only be used on integers";
const FIXED_CLAUSE: &str = "fixed-point clause can only be used on doubles";
const SCIENTIFIC_CLAUSE: &str = "scientific clause can only be used on doubles";
const BINARY_CLAUSE: &str = "only integers and bools can be formatted as binary";
const HEX_CLAUSE: &str = "only integers, byte buffers, and strings can be formatted as hex";
const OCTAL_CLAUSE: &str = "octal clause can only be used on integers";

/// One substitution at run time (cel-go's `stringFormatter`).
fn format_clause(v: &Val, c: Clause, budget: usize, spaced_scientific: bool) -> Result<String, FmtError> {
    match c {
        Clause::Str => format_string(v, budget),
        Clause::Decimal => match v {
            Val::Int(i) => Ok(i.to_string()),
            Val::Uint(u) => Ok(u.to_string()),
            _ => Err(clause_error(DECIMAL_CLAUSE, v)),
        },
        Clause::Fixed(p) => {
            let f = float_or_special(v).ok_or_else(|| clause_error(FIXED_CLAUSE, v))?;
            let p = p.unwrap_or(6);
            if p / 10 > 1_000_000 {
                // Go's printf gives up on such a precision: the verb is lost.
                return Ok("%!(NOVERB)".into());
            }
            if p.saturating_add(400) as u64 > budget as u64 {
                return Err(FmtError::too_large());
            }
            Ok(locale_fixed(f, p))
        }
        Clause::Scientific(p) => {
            let f = float_or_special(v).ok_or_else(|| clause_error(SCIENTIFIC_CLAUSE, v))?;
            // cel-go builds "%<precision>e": the precision is a width, the digits stay 6.
            let width = p.unwrap_or(6);
            if width / 10 > 1_000_000 {
                return Ok("%!(NOVERB)".into());
            }
            if width as u64 > budget as u64 {
                return Err(FmtError::too_large());
            }
            Ok(locale_scientific(f, width, spaced_scientific))
        }
        Clause::Binary => match v {
            Val::Int(i) => Ok(signed_radix(*i, |u| format!("{:b}", u))),
            Val::Uint(u) => Ok(format!("{:b}", u)),
            Val::Bool(b) => Ok(if *b { "1" } else { "0" }.to_string()),
            _ => Err(clause_error(BINARY_CLAUSE, v)),
        },
        Clause::Hex(upper) => {
            let s = match v {
                Val::String(s) => hex_bytes(s.as_str().as_bytes()),
                Val::Bytes(b) => hex_bytes(b),
                Val::Int(i) => signed_radix(*i, |u| format!("{:x}", u)),
                Val::Uint(u) => format!("{:x}", u),
                _ => return Err(clause_error(HEX_CLAUSE, v)),
            };
            Ok(if upper { s.to_ascii_uppercase() } else { s })
        }
        Clause::Octal => match v {
            Val::Int(i) => Ok(signed_radix(*i, |u| format!("{:o}", u))),
            Val::Uint(u) => Ok(format!("{:o}", u)),
            _ => Err(clause_error(OCTAL_CLAUSE, v)),
        },
    }
}

fn signed_radix(i: i64, f: impl Fn(u64) -> String) -> String {
    if i < 0 {
        format!("-{}", f(i.unsigned_abs()))
    } else {
        f(i as u64)
    }
}

fn hex_bytes(b: &[u8]) -> String {
    let mut s = String::with_capacity(b.len() * 2);
    for x in b {
        s.push_str(&format!("{:02x}", x));
    }
    s
}

/// A double, or one of the strings `%f`/`%e` also take (`NaN`, `Infinity`, `-Infinity`).
fn float_or_special(v: &Val) -> Option<f64> {
    match v {
        Val::Double(d) => Some(*d),
        Val::String(s) => match s.as_str() {
            "NaN" => Some(f64::NAN),
            "Infinity" => Some(f64::INFINITY),
            "-Infinity" => Some(f64::NEG_INFINITY),
            _ => None,
        },
        _ => None,
    }
}

/// golang.org/x/text's en-US `%.<p>f`: grouped integer digits, trailing fraction zeros
/// trimmed then padded back to the (byte-sized) minimum, `∞` for infinities.
fn locale_fixed(f: f64, p: i64) -> String {
    if f.is_nan() {
        return "NaN".into();
    }
    if f.is_infinite() {
        return if f > 0.0 { "∞".into() } else { "-∞".into() };
    }
    // x/text keeps the precision as int16 (rounding) and uint8 (minimum digits).
    let max_frac = p as i16;
    let min_frac = (p as u8) as usize;
    let digits = if max_frac >= 0 {
        format!("{:.*}", max_frac as usize, f.abs())
    } else {
        format!("{}", f.abs())
    };
    let (int_part, frac) = match digits.split_once('.') {
        Some((a, b)) => (a.to_string(), b.trim_end_matches('0').to_string()),
        None => (digits.clone(), String::new()),
    };
    let mut out = String::new();
    if f < 0.0 {
        out.push('-');
    }
    out.push_str(&group_thousands(&int_part));
    if !frac.is_empty() || min_frac > 0 {
        out.push('.');
        out.push_str(&frac);
        for _ in frac.len()..min_frac {
            out.push('0');
        }
    }
    out
}

fn group_thousands(digits: &str) -> String {
    let n = digits.len();
    let mut out = String::with_capacity(n + n / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (n - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// golang.org/x/text's en-US `%<width>e`: six fraction digits, `×10` and a superscript
/// exponent of at least two digits, padded with spaces to `width` code points. The x/text
/// of 1.32 and older writes ` × ` with narrow no-break spaces (U+202F) instead of `×`.
fn locale_scientific(f: f64, width: i64, spaced: bool) -> String {
    let body = if f.is_nan() {
        "NaN".to_string()
    } else if f.is_infinite() {
        if f > 0.0 { "∞" } else { "-∞" }.to_string()
    } else {
        let e = format!("{:.6e}", f.abs());
        let (mant, exp) = e.split_once('e').unwrap_or((&e, "0"));
        let exp: i64 = exp.parse().unwrap_or(0);
        let mut s = String::new();
        if f < 0.0 {
            s.push('-');
        }
        s.push_str(mant);
        s.push_str(if spaced { "\u{202f}×\u{202f}10" } else { "×10" });
        if exp < 0 {
            s.push('⁻');
        }
        let digits = exp.unsigned_abs().to_string();
        if digits.len() < 2 {
            s.push('⁰');
        }
        for d in digits.chars() {
            s.push(match d {
                '0' => '⁰',
                '1' => '¹',
                '2' => '²',
                '3' => '³',
                '4' => '⁴',
                '5' => '⁵',
                '6' => '⁶',
                '7' => '⁷',
                '8' => '⁸',
                _ => '⁹',
            });
        }
        s
    };
    let len = body.chars().count() as i64;
    let width = (width as u16) as i64;
    if width > len {
        let mut s = " ".repeat((width - len) as usize);
        s.push_str(&body);
        s
    } else {
        body
    }
}

/// `%s`: cel-go's `FormatString`.
fn format_string(v: &Val, budget: usize) -> Result<String, FmtError> {
    match v {
        Val::List(_) | Val::Map(_) => {
            let mut out = String::new();
            format_aggregate(v, &mut out, budget, 0)?;
            Ok(out)
        }
        Val::Null => Ok("null".into()),
        Val::Int(_)
        | Val::Uint(_)
        | Val::Double(_)
        | Val::Bool(_)
        | Val::String(_)
        | Val::Timestamp(_)
        | Val::Bytes(_)
        | Val::Duration(_)
        | Val::Type(_) => to_cel_string(v),
        _ => Err(clause_error(STRING_CLAUSE, v)),
    }
}

/// A value converted to a string as CEL's `string()` does.
fn to_cel_string(v: &Val) -> Result<String, FmtError> {
    Ok(match v {
        Val::Int(i) => i.to_string(),
        Val::Uint(u) => u.to_string(),
        Val::Double(d) => crate::go::fmt::format_float_v(*d),
        Val::Bool(b) => b.to_string(),
        Val::String(s) => s.as_str().to_string(),
        Val::Timestamp(t) => crate::cel::time_format::format_timestamp(*t),
        Val::Duration(d) => duration_string(d.0),
        Val::Bytes(b) => match std::str::from_utf8(b) {
            Ok(s) => s.to_string(),
            Err(_) => {
                return Err(FmtError::new(format!(
                    "could not convert argument {} to string",
                    crate::go::strconv::quote("invalid UTF-8 in bytes, cannot convert to string")
                )))
            }
        },
        Val::Type(t) => t.kind_name(),
        other => return Err(clause_error(STRING_CLAUSE, other)),
    })
}

/// cel-go's duration to string: seconds with the shortest decimal fraction, and `s`.
fn duration_string(ns: i64) -> String {
    let secs = (ns / 1_000_000_000) as f64 + (ns % 1_000_000_000) as f64 / 1e9;
    format!("{}s", secs)
}

/// A list or map inside `%s`: elements printed as CEL literals (cel-go's `formatList` /
/// `formatMap`), map entries sorted by their printed keys.
fn format_aggregate(
    v: &Val,
    out: &mut String,
    budget: usize,
    depth: usize,
) -> Result<(), FmtError> {
    if depth > MAX_FORMAT_DEPTH {
        return Err(FmtError::too_large());
    }
    let check = |out: &String| {
        if out.len() > budget {
            Err(FmtError::too_large())
        } else {
            Ok(())
        }
    };
    match v {
        Val::List(l) => {
            out.push('[');
            let n = l.len();
            for i in 0..n {
                let item = match l.get(i) {
                    Some(Ok(x)) => x,
                    Some(Err(e)) => return Err(FmtError::new(e.message)),
                    None => break,
                };
                format_member(&item, out, budget, depth + 1)?;
                if i + 1 < n {
                    out.push_str(", ");
                }
                check(out)?;
            }
            out.push(']');
        }
        Val::Map(m) => {
            let mut pairs: Vec<(String, String)> = Vec::new();
            let mut used = 0usize;
            for (k, val) in map_entries(m) {
                let key = match &k {
                    Val::String(s) => crate::go::strconv::quote(s.as_str()),
                    Val::Bool(b) => b.to_string(),
                    Val::Int(i) => i.to_string(),
                    Val::Uint(u) => u.to_string(),
                    other => {
                        return Err(FmtError::new(format!(
                            "no formatting function for map key of type {}",
                            other.type_name()
                        )))
                    }
                };
                let mut value = String::new();
                format_member(&val, &mut value, budget.saturating_sub(used), depth + 1)?;
                used = used.saturating_add(key.len() + value.len() + 3);
                if used > budget {
                    return Err(FmtError::too_large());
                }
                pairs.push((key, value));
            }
            crate::go::sort::sort_by(&mut pairs, |a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
            out.push('{');
            for (i, (k, val)) in pairs.iter().enumerate() {
                out.push_str(k);
                out.push(':');
                out.push_str(val);
                if i + 1 < pairs.len() {
                    out.push_str(", ");
                }
            }
            out.push('}');
            check(out)?;
        }
        _ => {}
    }
    Ok(())
}

fn map_entries<'a>(m: &Map<'a>) -> Vec<(Val<'a>, Val<'a>)> {
    m.entries()
}

/// One element of a list or map value (cel-go's `clauseForType` then `quoteForCEL`).
fn format_member(v: &Val, out: &mut String, budget: usize, depth: usize) -> Result<(), FmtError> {
    match v {
        Val::Int(i) => out.push_str(&i.to_string()),
        Val::Uint(u) => out.push_str(&u.to_string()),
        Val::String(s) => out.push_str(&crate::go::strconv::quote(s.as_str())),
        Val::Bytes(_) => {
            out.push('b');
            out.push_str(&crate::go::strconv::quote(&to_cel_string(v)?));
        }
        Val::Bool(_) | Val::Type(_) => out.push_str(&to_cel_string(v)?),
        Val::Null => out.push_str("null"),
        Val::Timestamp(_) => {
            out.push_str("timestamp(");
            out.push_str(&crate::go::strconv::quote(&to_cel_string(v)?));
            out.push(')');
        }
        Val::Duration(_) => {
            out.push_str("duration(");
            out.push_str(&crate::go::strconv::quote(&to_cel_string(v)?));
            out.push(')');
        }
        Val::List(_) | Val::Map(_) => {
            format_aggregate(v, out, budget.saturating_sub(out.len()), depth)?
        }
        Val::Double(d) => {
            if d.is_nan() {
                out.push_str("\"NaN\"");
            } else if d.is_infinite() {
                out.push_str(if *d > 0.0 { "\"+Inf\"" } else { "\"-Inf\"" });
            } else {
                out.push_str(&format!("{:.6}", d));
            }
        }
        other => {
            return Err(FmtError::new(format!(
                "no formatting function for {}",
                other.type_name()
            )))
        }
    }
    Ok(())
}

// ------------------------------------------------------------------ format validator

/// cel-go's `stringFormatValidator` (strings version 1+, so compatibility 1.29+): every
/// `format` call on a literal string with a list literal argument is checked when the
/// expression compiles: clause syntax, argument count, and each argument's static type
/// against its clause. Issues are positioned at the offending argument or at the call.
pub fn validate_format_calls(opts: &EnvOptions, checked: &Checked) -> Vec<CheckIssue> {
    let mut issues = Vec::new();
    if version(opts) >= 1 && opts.code_has(Feature::FormatCallValidator) {
        each_call(&checked.expr, &mut |e| check_format_call(checked, e, &mut issues));
    }
    issues
}

/// The panic of cel-go v0.20.1's format validator ([`Feature::FormatValidatorPanicsOnNonLiteral`]):
/// its matcher reads the receiver of every `format` member call as a literal, so a receiver
/// that is not one (`strings.quote('%s').format([x])`) is a nil dereference. The text is
/// the Go runtime's, with the frame the apiserver's recovery prints.
pub fn format_validator_panic(opts: &EnvOptions, checked: &Checked) -> Option<&'static str> {
    if version(opts) < 1 || !opts.code_has(Feature::FormatValidatorPanicsOnNonLiteral) {
        return None;
    }
    let mut found = false;
    each_call(&checked.expr, &mut |x| {
        if let Expr::Call(c) = &x.expr {
            if c.func_name == "format" {
                if let Some(t) = &c.target {
                    found |= !matches!(t.expr, Expr::Literal(_));
                }
            }
        }
    });
    found.then_some(
        "panic: runtime error: invalid memory address or nil pointer dereference (at github.com/google/cel-go/ext.matchConstantFormatStringWithListLiteralArgs.func1 github.com/google/cel-go@v0.20.1/ext/formatting.go:487)",
    )
}

/// Calls `f` on every call node of `e`, outermost first (cel-go's `MatchDescendants` order).
fn each_call(e: &IdedExpr, f: &mut dyn FnMut(&IdedExpr)) {
    match &e.expr {
        Expr::Call(c) => {
            f(e);
            if let Some(t) = &c.target {
                each_call(t, f);
            }
            for a in &c.args {
                each_call(a, f);
            }
        }
        Expr::Select(s) => each_call(&s.operand, f),
        Expr::List(l) => l.elements.iter().for_each(|x| each_call(x, f)),
        Expr::Map(m) => {
            for en in &m.entries {
                if let EntryExpr::MapEntry(me) = &en.expr {
                    each_call(&me.key, f);
                    each_call(&me.value, f);
                }
            }
        }
        Expr::Struct(s) => {
            for en in &s.entries {
                match &en.expr {
                    EntryExpr::MapEntry(me) => {
                        each_call(&me.key, f);
                        each_call(&me.value, f);
                    }
                    EntryExpr::StructField(sf) => each_call(&sf.value, f),
                }
            }
        }
        Expr::Comprehension(c) => {
            for x in [
                &c.iter_range,
                &c.accu_init,
                &c.loop_cond,
                &c.loop_step,
                &c.result,
            ] {
                each_call(x, f);
            }
        }
        _ => {}
    }
}

fn check_format_call(checked: &Checked, e: &IdedExpr, issues: &mut Vec<CheckIssue>) {
    let Expr::Call(c) = &e.expr else { return };
    if c.func_name != "format" {
        return;
    }
    let Some(target) = &c.target else { return };
    if let Some(ids) = checked.overloads.get(&e.id) {
        if !ids.is_empty() && !ids.contains(&"string_format") {
            return;
        }
    }
    let Expr::Literal(LiteralValue::String(fmt)) = &target.expr else {
        return;
    };
    if c.args.len() != 1 {
        return;
    }
    let Expr::List(list) = &c.args[0].expr else {
        return;
    };
    let args = &list.elements;
    let mut clause = |i: usize, cl: Clause, _budget: usize| -> Result<String, FmtError> {
        let Some(arg) = args.get(i) else {
            return Err(FmtError::new(format!("index {} out of range", i)));
        };
        check_clause(checked, arg, cl).map(|_| String::new())
    };
    let report = |id: u64, msg: String, issues: &mut Vec<CheckIssue>| {
        let offset = checked.source.offset_of(id).unwrap_or(0);
        issues.push(CheckIssue {
            offset,
            message: msg,
        });
    };
    match parse_format(fmt.inner(), args.len(), false, &mut clause) {
        Err(err) => report(err.id.unwrap_or(e.id), err.msg, issues),
        Ok((_, requested)) => {
            if args.len() > requested {
                report(
                    e.id,
                    format!(
                        "too many arguments supplied to string.format (expected {}, got {})",
                        requested,
                        args.len()
                    ),
                    issues,
                );
            }
        }
    }
}

/// The kind cel-go compares in `verifyTypeOneOf` (`None` for dyn: anything goes).
fn static_kind(t: &Type) -> Option<&'static str> {
    Some(match t {
        Type::Dyn | Type::Param(_) | Type::Error | Type::Unset => return None,
        Type::Null => "null",
        Type::Bool => "bool",
        Type::Int => "int",
        Type::Uint => "uint",
        Type::Double => "double",
        Type::String => "string",
        Type::Bytes => "bytes",
        Type::Duration => "duration",
        Type::Timestamp => "timestamp",
        Type::List(_) => "list",
        Type::Map(..) => "map",
        Type::TypeOf(_) => "type",
        Type::Object(_) => "struct",
        Type::Opaque(..) => "opaque",
    })
}

fn one_of(checked: &Checked, id: u64, kinds: &[&str]) -> bool {
    match static_kind(&checked.type_of(id)) {
        None => true,
        Some(k) => kinds.contains(&k),
    }
}

fn static_error(checked: &Checked, id: u64, what: &str) -> FmtError {
    FmtError::at(
        id,
        format!("{}, was given {}", what, checked.type_of(id).kind_name()),
    )
}

fn check_clause(checked: &Checked, arg: &IdedExpr, c: Clause) -> Result<(), FmtError> {
    let id = arg.id;
    let (ok, what) = match c {
        Clause::Str => {
            return match verify_string(checked, arg) {
                None => Ok(()),
                Some(bad) => Err(static_error(checked, bad, STRING_CLAUSE)),
            }
        }
        Clause::Decimal => (one_of(checked, id, &["int", "uint"]), DECIMAL_CLAUSE),
        Clause::Fixed(_) => (one_of(checked, id, &["double", "string"]), FIXED_CLAUSE),
        Clause::Scientific(_) => (
            one_of(checked, id, &["double", "string"]),
            SCIENTIFIC_CLAUSE,
        ),
        Clause::Binary => (one_of(checked, id, &["int", "uint", "bool"]), BINARY_CLAUSE),
        Clause::Hex(_) => (
            one_of(checked, id, &["int", "uint", "string", "bytes"]),
            HEX_CLAUSE,
        ),
        Clause::Octal => (one_of(checked, id, &["int", "uint"]), OCTAL_CLAUSE),
    };
    if ok {
        Ok(())
    } else {
        Err(static_error(checked, id, what))
    }
}

/// cel-go's `verifyString`: the id of the first (sub)expression `%s` cannot print.
fn verify_string(checked: &Checked, e: &IdedExpr) -> Option<u64> {
    const OK: [&str; 12] = [
        "list",
        "map",
        "int",
        "uint",
        "double",
        "bool",
        "string",
        "timestamp",
        "bytes",
        "duration",
        "type",
        "null",
    ];
    if !one_of(checked, e.id, &OK) {
        return Some(e.id);
    }
    match &e.expr {
        Expr::List(l) => l.elements.iter().find_map(|x| verify_string(checked, x)),
        Expr::Map(m) => m.entries.iter().find_map(|en| match &en.expr {
            EntryExpr::MapEntry(me) => {
                verify_string(checked, &me.key).or_else(|| verify_string(checked, &me.value))
            }
            EntryExpr::StructField(f) => verify_string(checked, &f.value),
        }),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cel::value::{Duration, Timestamp};

    fn show(r: EvalResult) -> String {
        match r {
            Ok(Val::String(s)) => s.as_str().to_string(),
            Ok(v) => format!("{:?}", v),
            Err(e) => format!("error: {}", e),
        }
    }

    fn s(x: &str) -> Val<'static> {
        Val::str(x)
    }

    fn fmt(f: &str, args: Vec<Val<'static>>) -> String {
        show(format(&[s(f), Val::list(args)]))
    }

    #[test]
    fn char_at_counts_code_points() {
        assert_eq!(show(char_at(&[s("©αT"), Val::Int(1)])), "α");
        assert_eq!(show(char_at(&[s("tacocat"), Val::Int(7)])), "");
        assert_eq!(
            show(char_at(&[s("tacocat"), Val::Int(30)])),
            "error: index out of range: 30"
        );
        assert_eq!(
            show(char_at(&[s("tacocat"), Val::Int(-1)])),
            "error: index out of range: -1"
        );
    }

    #[test]
    fn index_of_variants() {
        assert_eq!(show(index_of(&[s("hello mellow"), s("")])), "0");
        assert_eq!(show(index_of(&[s("hello mellow"), s("ello")])), "1");
        assert_eq!(show(index_of(&[s("hello mellow"), s("jello")])), "-1");
        assert_eq!(
            show(index_of(&[s("hello mellow"), s(""), Val::Int(2)])),
            "2"
        );
        assert_eq!(
            show(index_of(&[s("hello mellow"), s("ello"), Val::Int(2)])),
            "7"
        );
        assert_eq!(
            show(index_of(&[s("hello mellow"), s("ello"), Val::Int(20)])),
            "-1"
        );
        assert_eq!(
            show(index_of(&[s("hello mellow"), s("ello"), Val::Int(-1)])),
            "error: index out of range: -1"
        );
        assert_eq!(show(index_of(&[s("ta©o©αT"), s("©")])), "2");
        assert_eq!(show(index_of(&[s(""), s("a")])), "-1");
    }

    #[test]
    fn last_index_of_variants() {
        assert_eq!(show(last_index_of(&[s("hello mellow"), s("")])), "12");
        assert_eq!(show(last_index_of(&[s("hello mellow"), s("ello")])), "7");
        assert_eq!(show(last_index_of(&[s("hello mellow"), s("jello")])), "-1");
        assert_eq!(
            show(last_index_of(&[s("hello mellow"), s("ello"), Val::Int(6)])),
            "1"
        );
        assert_eq!(
            show(last_index_of(&[s("hello mellow"), s("ello"), Val::Int(20)])),
            "-1"
        );
        assert_eq!(
            show(last_index_of(&[s("hello mellow"), s("ello"), Val::Int(-1)])),
            "error: index out of range: -1"
        );
        assert_eq!(
            show(last_index_of(&[s("bananananana"), s("nana"), Val::Int(7)])),
            "6"
        );
        assert_eq!(
            show(last_index_of(&[s("ta©o©αT"), s("©"), Val::Int(3)])),
            "2"
        );
        assert_eq!(
            show(last_index_of(&[s("ta©o©αT"), s("©α"), Val::Int(4)])),
            "4"
        );
        assert_eq!(
            show(last_index_of(&[s("hello wello"), s("hello wello")])),
            "0"
        );
        assert_eq!(show(last_index_of(&[s("ab"), s("abc")])), "-1");
        assert_eq!(
            show(last_index_of(&[s(""), s("a")])),
            "error: index out of range: -1"
        );
    }

    #[test]
    fn replace_and_split() {
        assert_eq!(
            show(replace(&[s("hello hello"), s("he"), s("we")])),
            "wello wello"
        );
        assert_eq!(
            show(replace(&[s("hello hello"), s("he"), s("we"), Val::Int(1)])),
            "wello hello"
        );
        assert_eq!(
            show(replace(&[s("hello hello"), s("he"), s("we"), Val::Int(0)])),
            "hello hello"
        );
        assert_eq!(
            show(replace(&[s("hello hello"), s(""), s("_")])),
            "_h_e_l_l_o_ _h_e_l_l_o_"
        );
        assert_eq!(
            show(replace(&[s("abc"), s(""), s("_"), Val::Int(2)])),
            "_a_bc"
        );
        let big = "x".repeat(10_000);
        assert_eq!(
            show(replace(&[s(&big), s(""), s(&big)])),
            "error: operation cancelled: actual cost limit exceeded"
        );
        assert_eq!(
            show(split(&[s("hello hello hello"), s(" ")])),
            "[\"hello\", \"hello\", \"hello\"]"
        );
        assert_eq!(
            show(split(&[s("hello hello hello"), s(" "), Val::Int(0)])),
            "[]"
        );
        assert_eq!(
            show(split(&[s("hello hello hello"), s(" "), Val::Int(1)])),
            "[\"hello hello hello\"]"
        );
        assert_eq!(
            show(split(&[s("hello hello hello"), s(" "), Val::Int(2)])),
            "[\"hello\", \"hello hello\"]"
        );
        assert_eq!(
            show(split(&[s("o©o©o©o"), s("©"), Val::Int(-1)])),
            "[\"o\", \"o\", \"o\", \"o\"]"
        );
        assert_eq!(show(split(&[s("a©c"), s("")])), "[\"a\", \"©\", \"c\"]");
        assert_eq!(
            show(split(&[s("abc"), s(""), Val::Int(2)])),
            "[\"a\", \"bc\"]"
        );
        assert_eq!(show(split(&[s(""), s("")])), "[]");
        assert_eq!(show(split(&[s(""), s(",")])), "[\"\"]");
    }

    #[test]
    fn substrings_and_case() {
        assert_eq!(show(substring(&[s("tacocat"), Val::Int(4)])), "cat");
        assert_eq!(
            show(substring(&[s("ta©o©αT"), Val::Int(2), Val::Int(6)])),
            "©o©α"
        );
        assert_eq!(
            show(substring(&[s("tacocat"), Val::Int(49), Val::Int(50)])),
            "error: index out of range: 49"
        );
        assert_eq!(
            show(substring(&[s("tacocat"), Val::Int(2), Val::Int(1)])),
            "error: invalid substring range. start: 2, end: 1"
        );
        assert_eq!(
            show(substring(&[s("tacocat"), Val::Int(-1)])),
            "error: index out of range: -1"
        );
        assert_eq!(show(lower_ascii(&[s("TacoCÆt Xii")])), "tacocÆt xii");
        assert_eq!(show(upper_ascii(&[s("tacoCαt")])), "TACOCαT");
        assert_eq!(
            show(trim(&[s("\u{85}\u{a0}\u{1680}text\u{2028}\u{3000}")])),
            "text"
        );
        assert_eq!(
            show(trim(&[s("\u{180e}text\u{200b}")])),
            "\u{180e}text\u{200b}"
        );
    }

    #[test]
    fn join_and_quote() {
        let l = Val::list(vec![s("a"), s("b"), s("c")]);
        assert_eq!(show(join_v2(&[l.clone()])), "abc");
        assert_eq!(show(join_v2(&[l, s("-")])), "a-b-c");
        assert_eq!(show(join_v2(&[Val::list(vec![]), s("-")])), "");
        assert_eq!(
            show(join_v2(&[Val::list(vec![s("a"), Val::Int(1)])])),
            "error: join: invalid input: 1"
        );
        assert_eq!(show(quote(&[s("bell\x07")])), "\"bell\\a\"");
        assert_eq!(show(quote(&[s("mid \" quote")])), "\"mid \\\" quote\"");
        assert_eq!(show(quote(&[s("\\ x 😀")])), "\"\\\\ x 😀\"");
    }

    #[test]
    fn format_clauses() {
        assert_eq!(fmt("%% and also %%", vec![]), "% and also %");
        assert_eq!(fmt("%d %s", vec![Val::Int(1), s("x")]), "1 x");
        assert_eq!(fmt("%.3f", vec![Val::Double(1.2345)]), "1.234");
        assert_eq!(fmt("%f", vec![Val::Double(2.71828)]), "2.718280");
        assert_eq!(fmt("%.3f", vec![Val::Double(4.5)]), "4.500");
        assert_eq!(fmt("%f", vec![Val::Double(1234567.5)]), "1,234,567.500000");
        assert_eq!(fmt("%f", vec![s("Infinity")]), "∞");
        assert_eq!(fmt("%f", vec![Val::Double(f64::NEG_INFINITY)]), "-∞");
        assert_eq!(fmt("%f", vec![s("NaN")]), "NaN");
        assert_eq!(fmt("%e", vec![Val::Double(2.71828)]), "2.718280×10⁰⁰");
        assert_eq!(
            fmt("%.6e", vec![Val::Double(1052.032911275)]),
            "1.052033×10⁰³"
        );
        assert_eq!(fmt("%e", vec![Val::Double(0.000123)]), "1.230000×10⁻⁰⁴");
        assert_eq!(fmt("%b", vec![Val::Int(-5)]), "-101");
        assert_eq!(fmt("%b", vec![Val::Bool(true)]), "1");
        assert_eq!(fmt("%o", vec![Val::Uint(65535)]), "177777");
        assert_eq!(fmt("%x", vec![Val::Int(-30)]), "-1e");
        assert_eq!(
            fmt("%X", vec![s("Hello world!")]),
            "48656C6C6F20776F726C6421"
        );
        assert_eq!(
            fmt(
                "%x",
                vec![Val::Bytes(std::rc::Rc::from(&b"\x00\x00byte"[..]))]
            ),
            "000062797465"
        );
        assert_eq!(fmt("%s", vec![Val::Double(0.000000002)]), "2e-09");
        assert_eq!(fmt("%s", vec![Val::Duration(Duration(2))]), "0.000000002s");
        assert_eq!(
            fmt("%s", vec![Val::Duration(Duration(6_347_000_000_000))]),
            "6347s"
        );
        assert_eq!(
            fmt("%s", vec![Val::Timestamp(Timestamp::utc(1_675_467_080, 0))]),
            "2023-02-03T23:31:20Z"
        );
        assert_eq!(fmt("%s", vec![Val::Type(Type::String)]), "string");
        assert_eq!(fmt("%s", vec![Val::Null]), "null");
        let mixed = vec![
            Val::Int(1),
            s("abc"),
            Val::Double(1.0),
            Val::Duration(Duration(60_000_000_000)),
            Val::Timestamp(Timestamp::utc(946_684_800, 0)),
        ];
        assert_eq!(
            fmt("%d %s %f %s %s", mixed),
            "1 abc 1.000000 60s 2000-01-01T00:00:00Z"
        );
    }

    #[test]
    fn format_aggregates() {
        let l = Val::list(vec![
            s("abc"),
            Val::Double(3.14),
            Val::Null,
            Val::list(vec![Val::Int(9), Val::Int(8)]),
            Val::Timestamp(Timestamp::utc(1_675_467_080, 0)),
        ]);
        assert_eq!(
            fmt("%s", vec![l]),
            "[\"abc\", 3.140000, null, [9, 8], timestamp(\"2023-02-03T23:31:20Z\")]"
        );
        let l = Val::list(vec![
            Val::Double(f64::NAN),
            Val::Double(f64::INFINITY),
            Val::Double(f64::NEG_INFINITY),
        ]);
        assert_eq!(fmt("%s", vec![l]), "[\"NaN\", \"+Inf\", \"-Inf\"]");
        let m = Val::map(vec![
            (s("key1"), Val::Bytes(std::rc::Rc::from(&b"xyz"[..]))),
            (s("key5"), Val::Null),
            (s("key2"), Val::Duration(Duration(7_200_000_000_000))),
            (s("key4"), Val::Bool(true)),
            (s("key3"), Val::Double(2.71828)),
        ]);
        assert_eq!(
            fmt("%s", vec![m]),
            "{\"key1\":b\"xyz\", \"key2\":duration(\"7200s\"), \"key3\":2.718280, \"key4\":true, \"key5\":null}"
        );
        let m = Val::map(vec![
            (Val::Int(1), s("v1")),
            (Val::Uint(2), s("v2")),
            (Val::Bool(true), Val::Double(f64::NAN)),
        ]);
        assert_eq!(fmt("%s", vec![m]), "{1:\"v1\", 2:\"v2\", true:\"NaN\"}");
    }

    #[test]
    fn format_errors() {
        assert_eq!(
            fmt("%a", vec![Val::Int(1)]),
            "error: could not parse formatting clause: unrecognized formatting clause \"a\""
        );
        assert_eq!(
            fmt("%d %d %d", vec![Val::Int(0), Val::Int(1)]),
            "error: index 2 out of range"
        );
        assert_eq!(fmt("filler %", vec![]), "error: index 0 out of range");
        assert_eq!(
            fmt("filler %", vec![Val::Int(1)]),
            "error: unexpected end of string"
        );
        assert_eq!(
            fmt("%.34", vec![Val::Double(5.0)]),
            "error: could not parse formatting clause: error while parsing precision: could not find end of precision specifier"
        );
        assert_eq!(
            fmt("%d", vec![Val::Duration(Duration(1))]),
            "error: error during formatting: decimal clause can only be used on integers, was given google.protobuf.Duration"
        );
        assert_eq!(
            fmt("%X", vec![Val::Null]),
            "error: error during formatting: only integers, byte buffers, and strings can be formatted as hex, was given null_type"
        );
        assert_eq!(
            fmt("%s", vec![Val::optional(None)]),
            "error: error during formatting: string clause can only be used on strings, bools, bytes, ints, doubles, maps, lists, types, durations, and timestamps, was given optional_type"
        );
        assert_eq!(
            fmt("%s", vec![Val::list(vec![Val::optional(None)])]),
            "error: error during formatting: no formatting function for optional_type"
        );
        assert_eq!(
            fmt("%.f", vec![Val::Double(1.0)]),
            "error: could not parse formatting clause: error while parsing precision: error while converting precision to integer: strconv.Atoi: parsing \"\": invalid syntax"
        );
    }

    #[test]
    fn format_output_is_bounded() {
        let inner = Val::list((0..1000).map(|_| s(&"x".repeat(1000))).collect());
        let outer = Val::list((0..1000).map(|_| inner.clone()).collect());
        assert_eq!(
            fmt("%s", vec![outer]),
            "error: operation cancelled: actual cost limit exceeded"
        );
        assert_eq!(
            fmt("%.9999999f", vec![Val::Double(1.0)]).len(),
            "1.".len() + (9_999_999usize as u8 as usize)
        );
    }

    /// The validator's issues for `expr` compiled at compatibility 1.35, formatted.
    fn validate(expr: &str) -> String {
        let opts = EnvOptions::for_version(35);
        let env = crate::cel::environment::base_env(&opts);
        let checked = match crate::cel::parser::parse(&opts, expr)
            .and_then(|(x, src)| crate::cel::checker::check(&env, x, src))
        {
            Ok(c) => c,
            Err(e) => return format!("compile error: {}", e),
        };
        let issues = validate_format_calls(&opts, &checked);
        crate::cel::checker::format_issues(&checked.source, &issues)
    }

    #[test]
    fn validator_reports_like_cel_go() {
        assert_eq!(
            validate("\"%X is a double\".format([2.5])"),
            "ERROR: <input>:1:26: error during formatting: only integers, byte buffers, and strings can be formatted as hex, was given double\n | \"%X is a double\".format([2.5])\n | .........................^"
        );
        assert_eq!(
            validate("\"%a\".format([1])"),
            "ERROR: <input>:1:12: could not parse formatting clause: unrecognized formatting clause \"a\"\n | \"%a\".format([1])\n | ...........^"
        );
        assert_eq!(
            validate("\"%s %s\".format([\"abc\", \"def\", \"ghi\"])"),
            "ERROR: <input>:1:15: too many arguments supplied to string.format (expected 2, got 3)\n | \"%s %s\".format([\"abc\", \"def\", \"ghi\"])\n | ..............^"
        );
        assert_eq!(
            validate("\"filler %\".format([])"),
            "ERROR: <input>:1:18: unexpected end of string\n | \"filler %\".format([])\n | .................^"
        );
        assert_eq!(
            validate("\"%s %s\".format([\"abc\"])").lines().next(),
            Some("ERROR: <input>:1:15: index 1 out of range")
        );
        assert_eq!(
            validate("\"%d\".format([duration(\"30m2s\")])").lines().next(),
            Some("ERROR: <input>:1:22: error during formatting: decimal clause can only be used on integers, was given google.protobuf.Duration")
        );
        assert_eq!(validate("\"%d %x\".format([1, 2])"), "");
        assert_eq!(validate("\"%d %s %f\".format([1, 'x', 2.0])"), "");
        assert_eq!(
            validate("\"%s\".format([[1, dyn(2), optional.none()]])").lines().next(),
            Some("ERROR: <input>:1:39: error during formatting: string clause can only be used on strings, bools, bytes, ints, doubles, maps, lists, types, durations, and timestamps, was given optional_type")
        );
        assert_eq!(validate("'%s'.format(dyn([1]))"), "");
        assert_eq!(validate("\"%o\".format([dyn('x')])"), "");
    }

    #[test]
    fn versions() {
        let names = |m: u32| {
            functions(&EnvOptions::for_version(m))
                .into_iter()
                .map(|f| f.name)
                .collect::<Vec<_>>()
        };
        assert!(!names(28).contains(&"format"));
        assert!(names(28).contains(&"join"));
        assert!(names(29).contains(&"format"));
        assert!(names(29).contains(&"strings.quote"));
        assert!(!names(35).contains(&"reverse"));
    }
}
