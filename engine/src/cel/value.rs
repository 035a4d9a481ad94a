//! Runtime CEL values. Values read from the object borrow its JSON (`'a`) and its schema,
//! converting lazily as the apiserver's `UnstructuredToVal` adapters do; values computed by
//! expressions are owned (`Rc`).

use crate::cel::types::Type;
use crate::cel::schema::Schema;
use serde_json::Value as Json;
use std::any::Any;
use std::collections::HashMap;
use std::fmt;
use std::rc::Rc;

/// A string, borrowed from the object or owned.
#[derive(Clone)]
pub enum Str<'a> {
    Borrowed(&'a str),
    Owned(Rc<str>),
}

impl<'a> Str<'a> {
    pub fn as_str(&self) -> &str {
        match self {
            Str::Borrowed(s) => s,
            Str::Owned(s) => s,
        }
    }
}

impl fmt::Debug for Str<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}", self.as_str())
    }
}

/// A duration: whole nanoseconds, as cel-go's `time.Duration` (int64 nanoseconds).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Duration(pub i64);

/// A timestamp: an instant (seconds and nanoseconds since the Unix epoch) and the UTC
/// offset it carries. cel-go's timestamps are Go `time.Time` values, which keep the zone
/// they were parsed in (`timestamp("2023-01-01T10:00:00+05:00")`): `string()` prints the
/// time at that offset, while equality, ordering and arithmetic use only the instant
/// (`time.Time.Equal`, `Sub`), and the accessors without a zone argument use UTC.
#[derive(Clone, Copy, Debug)]
pub struct Timestamp {
    pub secs: i64,
    pub nanos: u32,
    /// Seconds east of UTC (0 for UTC and `Z`).
    pub offset: i32,
}

impl Timestamp {
    /// An instant in UTC.
    pub const fn utc(secs: i64, nanos: u32) -> Timestamp {
        Timestamp {
            secs,
            nanos,
            offset: 0,
        }
    }
}

// The offset is presentation only: two timestamps are equal when they name the same
// instant, as Go's `time.Time.Equal` decides.
impl PartialEq for Timestamp {
    fn eq(&self, other: &Self) -> bool {
        (self.secs, self.nanos) == (other.secs, other.nanos)
    }
}

impl Eq for Timestamp {}

impl PartialOrd for Timestamp {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Timestamp {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        (self.secs, self.nanos).cmp(&(other.secs, other.nanos))
    }
}

impl std::hash::Hash for Timestamp {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        (self.secs, self.nanos).hash(state);
    }
}

/// Library values (Quantity, IP, CIDR, URL, Semver, format names). Each library downcasts.
pub trait Opaque: fmt::Debug {
    /// cel-go's type name, e.g. `kubernetes.Quantity`.
    fn type_name(&self) -> &'static str;
    fn equal(&self, other: &dyn Opaque) -> bool;
    fn as_any(&self) -> &dyn Any;
    /// The canonical string form used in typed values (`1Gi`, `192.168.0.1`, ...).
    fn to_canonical(&self) -> String;
}

/// Which list-type semantics a list carries (`x-kubernetes-list-type`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ListKind {
    Atomic,
    Set,
    /// A list-map; its keys are in the schema.
    Map,
}

#[derive(Clone)]
pub enum List<'a> {
    /// A list from the object with its schema (`items` and list type).
    Json {
        // `&Vec` (one pointer) rather than a slice keeps `Val` at its size next to the
        // schema's two-pointer reference.
        items: &'a Vec<Json>,
        schema: &'a dyn Schema,
    },
    /// A computed list, with the list-type semantics it inherited (for `+` of set/map lists).
    Owned {
        items: Rc<Vec<Val<'a>>>,
        kind: ListKind,
        keys: Option<&'a [String]>,
    },
}

#[derive(Clone)]
pub enum Map<'a> {
    /// An object or map from the object. `object` is true for schema objects (field access),
    /// false for `additionalProperties` maps.
    Json {
        map: &'a serde_json::Map<String, Json>,
        schema: &'a dyn Schema,
        object: bool,
    },
    /// A computed map, in insertion order.
    Owned(Rc<OwnedMap<'a>>),
}

/// Maps with at least this many entries keep a key index: below it a scan is cheaper than
/// hashing.
const INDEX_MIN: usize = 8;

/// A computed map: entries in insertion order, and once it is large, an index from key to
/// entry so that lookups and inserts (a `transformMap` accumulating one entry per
/// iteration) do not scan. Entries whose keys are strings in strictly ascending byte order
/// (a JSON object's, read in order) need no index: they are searched by halves.
#[derive(Clone, Default)]
pub struct OwnedMap<'a> {
    entries: Vec<(Val<'a>, Val<'a>)>,
    /// Key → position of the first entry with a key equal to it (CEL key equality).
    index: Option<HashMap<MapKey<'a>, usize>>,
    /// Every key is a string, each greater than the one before (no index is kept).
    sorted: bool,
}

/// A map key in a hashable form that is equal exactly when [`key_equal`] says so:
/// numbers by value across int/uint/double.
#[derive(Clone, PartialEq, Eq, Hash)]
enum MapKey<'a> {
    Str(StrKey<'a>),
    Bool(bool),
    Int(i128),
    /// A non-integral double, by its bits (NaN keys are never equal, so never indexed).
    Float(u64),
}

/// A string key, compared by content.
#[derive(Clone)]
struct StrKey<'a>(Str<'a>);

impl PartialEq for StrKey<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.0.as_str() == other.0.as_str()
    }
}

impl Eq for StrKey<'_> {}

impl std::hash::Hash for StrKey<'_> {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.0.as_str().hash(state)
    }
}

impl<'a> MapKey<'a> {
    /// The hashable form of a key; `None` for values no key equals.
    fn of(v: &Val<'a>) -> Option<MapKey<'a>> {
        match v {
            Val::String(s) => Some(MapKey::Str(StrKey(s.clone()))),
            Val::Bool(b) => Some(MapKey::Bool(*b)),
            _ => match num(v)? {
                Num::I(i) => Some(MapKey::Int(i)),
                Num::F(f) if f.is_nan() => None,
                Num::F(f) => Some(MapKey::Float(f.to_bits())),
            },
        }
    }
}

impl<'a> OwnedMap<'a> {
    pub fn new(entries: Vec<(Val<'a>, Val<'a>)>) -> OwnedMap<'a> {
        let sorted = entries.len() >= INDEX_MIN
            && matches!(entries.first(), Some((Val::String(_), _)))
            && entries.windows(2).all(|w| match (&w[0].0, &w[1].0) {
                (Val::String(a), Val::String(b)) => a.as_str() < b.as_str(),
                _ => false,
            });
        let mut m = OwnedMap {
            entries,
            index: None,
            sorted,
        };
        m.build_index();
        m
    }

    fn build_index(&mut self) {
        if self.entries.len() < INDEX_MIN || self.sorted {
            return;
        }
        let mut index = HashMap::with_capacity(self.entries.len());
        for (i, (k, _)) in self.entries.iter().enumerate() {
            if let Some(mk) = MapKey::of(k) {
                index.entry(mk).or_insert(i);
            }
        }
        self.index = Some(index);
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The entries, in insertion order.
    pub fn entries(&self) -> &[(Val<'a>, Val<'a>)] {
        &self.entries
    }

    /// The value of the first entry whose key equals `key`.
    pub fn find(&self, key: &Val<'a>) -> Option<&Val<'a>> {
        if self.sorted {
            // Only a string equals a string key.
            let Val::String(key) = key else { return None };
            let key = key.as_str();
            let i = self
                .entries
                .binary_search_by(|(k, _)| match k {
                    Val::String(k) => k.as_str().cmp(key),
                    _ => std::cmp::Ordering::Less,
                })
                .ok()?;
            return self.entries.get(i).map(|(_, v)| v);
        }
        match &self.index {
            Some(index) => {
                let i = *index.get(&MapKey::of(key)?)?;
                self.entries.get(i).map(|(_, v)| v)
            }
            None => self
                .entries
                .iter()
                .find(|(k, _)| key_equal(k, key))
                .map(|(_, v)| v),
        }
    }

    /// Appends an entry. A key equal to an earlier one stays unreachable by [`find`], as
    /// with a scan.
    pub fn push(&mut self, k: Val<'a>, v: Val<'a>) {
        if self.sorted {
            let still = match (self.entries.last(), &k) {
                (Some((Val::String(last), _)), Val::String(k)) => last.as_str() < k.as_str(),
                _ => false,
            };
            if !still {
                self.sorted = false;
                self.build_index();
            }
        }
        let i = self.entries.len();
        if let Some(index) = &mut self.index {
            if let Some(mk) = MapKey::of(&k) {
                index.entry(mk).or_insert(i);
            }
        }
        self.entries.push((k, v));
        if self.index.is_none() {
            self.build_index();
        }
    }
}

/// A CEL runtime value.
pub enum Val<'a> {
    Null,
    Bool(bool),
    Int(i64),
    Uint(u64),
    Double(f64),
    String(Str<'a>),
    Bytes(Rc<[u8]>),
    Duration(Duration),
    Timestamp(Timestamp),
    List(List<'a>),
    Map(Map<'a>),
    Optional(Option<Rc<Val<'a>>>),
    Type(Type),
    Opaque(Rc<dyn Opaque>),
}

// Scalars are copied inline: the interpreter clones a value at every variable read and
// every constant (cel-go shares its `ref.Val`s), and a call to the derived clone for an
// int cost more than the comparison using it. Other values clone out of line.
impl Clone for Val<'_> {
    #[inline]
    fn clone(&self) -> Self {
        match self {
            Val::Null => Val::Null,
            Val::Bool(b) => Val::Bool(*b),
            Val::Int(i) => Val::Int(*i),
            Val::Uint(u) => Val::Uint(*u),
            Val::Double(d) => Val::Double(*d),
            _ => self.clone_shared(),
        }
    }
}

impl<'a> Val<'a> {
    /// [`Clone::clone`] of the values that are not scalars (reference counts, borrows).
    #[inline(never)]
    fn clone_shared(&self) -> Val<'a> {
        match self {
            Val::Null => Val::Null,
            Val::Bool(b) => Val::Bool(*b),
            Val::Int(i) => Val::Int(*i),
            Val::Uint(u) => Val::Uint(*u),
            Val::Double(d) => Val::Double(*d),
            Val::String(s) => Val::String(s.clone()),
            Val::Bytes(b) => Val::Bytes(b.clone()),
            Val::Duration(d) => Val::Duration(*d),
            Val::Timestamp(t) => Val::Timestamp(*t),
            Val::List(l) => Val::List(l.clone()),
            Val::Map(m) => Val::Map(m.clone()),
            Val::Optional(o) => Val::Optional(o.clone()),
            Val::Type(t) => Val::Type(t.clone()),
            Val::Opaque(o) => Val::Opaque(o.clone()),
        }
    }
}

impl fmt::Debug for Val<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Val::Null => f.write_str("null"),
            Val::Bool(b) => write!(f, "{}", b),
            Val::Int(i) => write!(f, "{}", i),
            Val::Uint(u) => write!(f, "{}u", u),
            Val::Double(d) => write!(f, "{:?}", d),
            Val::String(s) => write!(f, "{:?}", s.as_str()),
            Val::Bytes(b) => write!(f, "b{:?}", String::from_utf8_lossy(b)),
            Val::Duration(d) => write!(f, "duration({}ns)", d.0),
            Val::Timestamp(t) => write!(f, "timestamp({}s,{}ns)", t.secs, t.nanos),
            Val::List(l) => f.debug_list().entries(l.iter()).finish(),
            Val::Map(m) => f.debug_map().entries(m.entries()).finish(),
            Val::Optional(o) => write!(f, "optional({:?})", o),
            Val::Type(t) => write!(f, "type({})", t),
            Val::Opaque(o) => write!(f, "{:?}", o),
        }
    }
}

/// What kind of evaluation error: the apiserver words some of them specially.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorKind {
    Other,
    /// "no such overload": the apiserver says "call arguments did not match a supported
    /// operator, function or macro signature".
    NoSuchOverload,
    /// The per-call cost limit was exceeded.
    CostLimit,
}

/// An evaluation error; its text is cel-go's.
#[derive(Clone, Debug, PartialEq)]
pub struct EvalError {
    pub message: String,
    pub kind: ErrorKind,
}

impl EvalError {
    pub fn new(message: impl Into<String>) -> Self {
        EvalError {
            message: message.into(),
            kind: ErrorKind::Other,
        }
    }
    pub fn no_such_overload() -> Self {
        EvalError {
            message: "no such overload".into(),
            kind: ErrorKind::NoSuchOverload,
        }
    }
    pub fn no_such_overload_for(desc: impl Into<String>) -> Self {
        EvalError {
            message: format!("no such overload: {}", desc.into()),
            kind: ErrorKind::NoSuchOverload,
        }
    }
    pub fn cost_limit() -> Self {
        EvalError {
            message: "operation cancelled: actual cost limit exceeded".into(),
            kind: ErrorKind::CostLimit,
        }
    }
}

impl fmt::Display for EvalError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

pub type EvalResult<'a> = Result<Val<'a>, EvalError>;

// ------------------------------------------------------------------ schema conversion

/// `Escape` of apiserver `pkg/cel/common/escaping.go`: a property name as a CEL field
/// name, or `None` when it cannot be expressed.
pub fn escape(name: &str, reserved_as_is: bool) -> Option<String> {
    if name.is_empty() {
        return None;
    }
    let first = name.as_bytes()[0];
    if !(first.is_ascii_alphabetic()
        || first == b'_'
        || first == b'.'
        || first == b'-'
        || first == b'/')
    {
        return None;
    }
    if !name
        .bytes()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'.' | b'-' | b'/'))
    {
        return None;
    }
    if !reserved_as_is && CEL_RESERVED.contains(&name) {
        return Some(format!("__{}__", name));
    }
    let mut out = String::with_capacity(name.len());
    let b = name.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'_' && i + 1 < b.len() && b[i + 1] == b'_' {
            out.push_str("__underscores__");
            i += 2;
            continue;
        }
        match b[i] {
            b'.' => out.push_str("__dot__"),
            b'-' => out.push_str("__dash__"),
            b'/' => out.push_str("__slash__"),
            c => out.push(c as char),
        }
        i += 1;
    }
    Some(out)
}

/// The inverse of [`escape`].
pub fn unescape(name: &str) -> std::borrow::Cow<'_, str> {
    if !name.contains("__") {
        return std::borrow::Cow::Borrowed(name);
    }
    if name.len() > 4 && name.starts_with("__") && name.ends_with("__") {
        let inner = &name[2..name.len() - 2];
        if CEL_RESERVED.contains(&inner) {
            return std::borrow::Cow::Owned(inner.to_string());
        }
    }
    let mut out = String::with_capacity(name.len());
    let mut rest = name;
    while !rest.is_empty() {
        if let Some(r) = rest.strip_prefix("__underscores__") {
            out.push_str("__");
            rest = r;
        } else if let Some(r) = rest.strip_prefix("__dot__") {
            out.push('.');
            rest = r;
        } else if let Some(r) = rest.strip_prefix("__dash__") {
            out.push('-');
            rest = r;
        } else if let Some(r) = rest.strip_prefix("__slash__") {
            out.push('/');
            rest = r;
        } else {
            let c = rest.chars().next().unwrap_or(' ');
            out.push(c);
            rest = &rest[c.len_utf8()..];
        }
    }
    std::borrow::Cow::Owned(out)
}

/// CEL's reserved words, escaped as `__word__` in field names.
pub const CEL_RESERVED: &[&str] = &[
    "true",
    "false",
    "null",
    "in",
    "as",
    "break",
    "const",
    "continue",
    "else",
    "for",
    "function",
    "if",
    "import",
    "let",
    "loop",
    "package",
    "namespace",
    "return",
    "var",
    "void",
    "while",
];

/// The `additionalProperties` schema of a map node.
#[inline]
pub fn map_value_schema(s: &dyn Schema) -> Option<&dyn Schema> {
    s.additional_properties()
}

impl<'a> Val<'a> {
    pub fn str(s: &str) -> Val<'a> {
        Val::String(Str::Owned(Rc::from(s)))
    }
    pub fn string(s: String) -> Val<'a> {
        Val::String(Str::Owned(Rc::from(s)))
    }
    pub fn list(items: Vec<Val<'a>>) -> Val<'a> {
        Val::List(List::Owned {
            items: Rc::new(items),
            kind: ListKind::Atomic,
            keys: None,
        })
    }
    pub fn map(entries: Vec<(Val<'a>, Val<'a>)>) -> Val<'a> {
        Val::Map(Map::Owned(Rc::new(OwnedMap::new(entries))))
    }
    pub fn optional(v: Option<Val<'a>>) -> Val<'a> {
        Val::Optional(v.map(Rc::new))
    }

    /// A JSON value of the object, seen through its schema node, as the apiserver's
    /// `UnstructuredToVal` does.
    pub fn from_json(v: &'a Json, s: &'a dyn Schema) -> EvalResult<'a> {
        // apiserver `UnstructuredToVal`: data that does not fit its schema (CEL still runs on
        // it where ratcheting dropped the schema error) becomes an error value.
        if v.is_null() {
            if s.nullable() {
                return Ok(Val::Null);
            }
            return Err(EvalError::new("invalid data, got null for schema with nullable=false"));
        }
        if s.is_x_int_or_string() {
            return match v {
                Json::Number(n) if n.as_i64().is_some() => Ok(Val::Int(n.as_i64().unwrap_or(0))),
                Json::String(st) => Ok(Val::String(Str::Borrowed(st))),
                _ => Err(EvalError::new(
                    "invalid data, expected XIntOrString value to be either a string or integer",
                )),
            };
        }
        let mismatch = |expected: &str| Err(EvalError::new(format!("invalid data, expected {}, got {}", expected, go_json_type(v))));
        match (s.type_name(), v) {
            ("object", Json::Object(_)) | ("array", Json::Array(_)) => {}
            ("object", _) => {
                return Err(EvalError::new("invalid data, expected a map for the provided schema with type=object"))
            }
            ("array", _) => {
                return Err(EvalError::new("invalid data, expected an array for the provided schema with type=array"))
            }
            ("string", Json::String(_)) | ("boolean", Json::Bool(_)) | ("number", Json::Number(_)) => {}
            ("string", _) => return mismatch("string"),
            ("boolean", _) => return mismatch("bool"),
            ("number", _) => return mismatch("float"),
            // Request JSON decodes integers to int64 and everything else to float64.
            ("integer", Json::Number(n)) if n.as_i64().is_some() => {}
            ("integer", _) => return mismatch("int"),
            _ => {}
        }
        Ok(match v {
            Json::Null => Val::Null,
            Json::Bool(b) => Val::Bool(*b),
            Json::Number(n) => match s.type_name() {
                "number" => Val::Double(n.as_f64().unwrap_or(0.0)),
                _ => match n.as_i64() {
                    Some(i) => Val::Int(i),
                    None => match n.as_u64() {
                        Some(u) => Val::Uint(u),
                        None => Val::Double(n.as_f64().unwrap_or(0.0)),
                    },
                },
            },
            Json::String(st) => match (s.type_name(), s.format()) {
                ("string", Some("byte")) => Val::Bytes(Rc::from(
                    crate::go::base64::std_decode(st)
                        .ok_or_else(|| EvalError::new(format!("illegal base64 data")))?,
                )),
                ("string", Some("duration")) => Val::Duration(
                    crate::cel::value::parse_duration(st)
                        .ok_or_else(|| EvalError::new(format!("invalid duration: {}", st)))?,
                ),
                ("string", Some("date")) => Val::Timestamp(
                    crate::cel::value::parse_date(st)
                        .ok_or_else(|| EvalError::new(format!("invalid date: {}", st)))?,
                ),
                ("string", Some("date-time")) => Val::Timestamp(
                    crate::cel::value::parse_timestamp(st)
                        .ok_or_else(|| EvalError::new(format!("invalid date-time: {}", st)))?,
                ),
                _ => Val::String(Str::Borrowed(st)),
            },
            Json::Array(a) => Val::List(List::Json {
                items: a,
                schema: s,
            }),
            Json::Object(m) => {
                let object = map_value_schema(s).is_none();
                Val::Map(Map::Json {
                    map: m,
                    schema: s,
                    object,
                })
            }
        })
    }

    /// A JSON value without schema (expression-mode variables typed `dyn`): numbers without a
    /// fraction are ints, objects are maps.
    pub fn from_plain_json(v: &Json) -> Val<'static> {
        match v {
            Json::Null => Val::Null,
            Json::Bool(b) => Val::Bool(*b),
            Json::Number(n) => match n.as_i64() {
                Some(i) => Val::Int(i),
                None => match n.as_u64() {
                    Some(u) => Val::Uint(u),
                    None => Val::Double(n.as_f64().unwrap_or(0.0)),
                },
            },
            Json::String(s) => Val::string(s.clone()),
            Json::Array(a) => Val::list(a.iter().map(Val::from_plain_json).collect()),
            Json::Object(m) => Val::map(
                m.iter()
                    .map(|(k, v)| (Val::string(k.clone()), Val::from_plain_json(v)))
                    .collect(),
            ),
        }
    }

    /// cel-go's runtime type of the value.
    pub fn type_of(&self) -> Type {
        match self {
            Val::Null => Type::Null,
            Val::Bool(_) => Type::Bool,
            Val::Int(_) => Type::Int,
            Val::Uint(_) => Type::Uint,
            Val::Double(_) => Type::Double,
            Val::String(_) => Type::String,
            Val::Bytes(_) => Type::Bytes,
            Val::Duration(_) => Type::Duration,
            Val::Timestamp(_) => Type::Timestamp,
            Val::List(_) => Type::list(Type::Dyn),
            Val::Map(_) => Type::map(Type::Dyn, Type::Dyn),
            Val::Optional(_) => Type::optional(Type::Dyn),
            Val::Type(_) => Type::type_of(Type::Dyn),
            Val::Opaque(o) => Type::opaque(o.type_name()),
        }
    }

    /// The type name cel-go prints in "no such overload" and conversion errors.
    pub fn type_name(&self) -> String {
        match self {
            Val::List(_) => "list".into(),
            Val::Map(_) => "map".into(),
            Val::Optional(_) => "optional_type".into(),
            Val::Type(_) => "type".into(),
            other => other.type_of().to_string(),
        }
    }

    pub fn as_str(&self) -> Option<&str> {
        match self {
            Val::String(s) => Some(s.as_str()),
            _ => None,
        }
    }
}

impl<'a> List<'a> {
    pub fn len(&self) -> usize {
        match self {
            List::Json { items, .. } => items.len(),
            List::Owned { items, .. } => items.len(),
        }
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// The element at `i` (converted through the item schema for object lists).
    pub fn get(&self, i: usize) -> Option<EvalResult<'a>> {
        match self {
            List::Json { items, schema } => {
                let v = items.get(i)?;
                Some(match schema.items() {
                    Some(is) => Val::from_json(v, is),
                    None => Ok(Val::from_plain_json(v)),
                })
            }
            List::Owned { items, .. } => items.get(i).cloned().map(Ok),
        }
    }
    /// Elements; conversion errors surface as `Err` items.
    pub fn iter(&self) -> impl Iterator<Item = Val<'a>> + '_ {
        (0..self.len()).filter_map(move |i| self.get(i).and_then(|r| r.ok()))
    }
    pub fn try_items(&self) -> Result<Vec<Val<'a>>, EvalError> {
        (0..self.len())
            .map(|i| {
                self.get(i)
                    .unwrap_or_else(|| Err(EvalError::new("index out of range")))
            })
            .collect()
    }
    /// The list-type semantics (`x-kubernetes-list-type`) and map keys.
    pub fn kind(&self) -> (ListKind, Option<&'a [String]>) {
        match self {
            List::Json { schema, .. } => match schema.x_list_type() {
                Some("set") => (ListKind::Set, None),
                Some("map") => (ListKind::Map, Some(schema.x_list_map_keys())),
                _ => (ListKind::Atomic, None),
            },
            List::Owned { kind, keys, .. } => (*kind, *keys),
        }
    }
}

impl<'a> Map<'a> {
    pub fn len(&self) -> usize {
        match self {
            Map::Json {
                map,
                schema,
                object,
            } => {
                if *object {
                    map.keys()
                        .filter(|k| object_field_schema(*schema, k).is_some())
                        .count()
                } else {
                    map.len()
                }
            }
            Map::Owned(e) => e.len(),
        }
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    pub fn is_object(&self) -> bool {
        matches!(self, Map::Json { object: true, .. })
    }

    /// Entries (keys as strings for JSON maps). Conversion errors are skipped.
    pub fn entries(&self) -> Vec<(Val<'a>, Val<'a>)> {
        match self {
            Map::Json {
                map,
                schema,
                object,
            } => map
                .iter()
                .filter_map(|(k, v)| {
                    let vs = if *object {
                        object_field_schema(*schema, k)?
                    } else {
                        map_value_schema(*schema)?
                    };
                    let key = if *object {
                        Val::string(escape(k, true).unwrap_or_else(|| k.clone()))
                    } else {
                        Val::String(Str::Borrowed(k))
                    };
                    Some((key, Val::from_json(v, vs).ok()?))
                })
                .collect(),
            Map::Owned(e) => e.entries().to_vec(),
        }
    }

    /// Keys, in iteration order.
    pub fn keys(&self) -> Vec<Val<'a>> {
        self.entries().into_iter().map(|(k, _)| k).collect()
    }

    /// Looks a key up (CEL map indexing; numeric keys compare across int/uint/double).
    pub fn get(&self, key: &Val<'a>) -> Option<EvalResult<'a>> {
        match self {
            Map::Json {
                map,
                schema,
                object,
            } => {
                let k = key.as_str()?;
                if *object {
                    let name = unescape(k);
                    let fs = object_field_schema(*schema, &name)?;
                    let v = map.get(name.as_ref())?;
                    // `unstructuredMap.Find`: a null field of an object is an absent one.
                    if v.is_null() {
                        return None;
                    }
                    Some(Val::from_json(v, fs))
                } else {
                    let v = map.get(k)?;
                    Some(match map_value_schema(*schema) {
                        Some(vs) => Val::from_json(v, vs),
                        None => Ok(Val::from_plain_json(v)),
                    })
                }
            }
            Map::Owned(e) => e.find(key).map(|v| Ok(v.clone())),
        }
    }
}

/// Go's `%T` of a value decoded from request JSON (`UnstructuredToVal`'s mismatch errors).
fn go_json_type(v: &Json) -> &'static str {
    match v {
        Json::Null => "<nil>",
        Json::Bool(_) => "bool",
        Json::Number(n) if n.as_i64().is_some() => "int64",
        Json::Number(_) => "float64",
        Json::String(_) => "string",
        Json::Array(_) => "[]interface {}",
        Json::Object(_) => "map[string]interface {}",
    }
}

/// The schema of an object's property, as CEL sees it (only declared properties).
#[inline]
pub fn object_field_schema<'s>(schema: &'s dyn Schema, name: &str) -> Option<&'s dyn Schema> {
    schema.property(name)
}

/// Map-key equality: strings, bools, and numbers across int/uint/double.
pub fn key_equal(a: &Val, b: &Val) -> bool {
    match (a, b) {
        (Val::String(x), Val::String(y)) => x.as_str() == y.as_str(),
        (Val::Bool(x), Val::Bool(y)) => x == y,
        _ => match (num(a), num(b)) {
            (Some(x), Some(y)) => x == y,
            _ => false,
        },
    }
}

#[derive(PartialEq, PartialOrd)]
enum Num {
    I(i128),
    F(f64),
}

fn num(v: &Val) -> Option<Num> {
    match v {
        Val::Int(i) => Some(Num::I(*i as i128)),
        Val::Uint(u) => Some(Num::I(*u as i128)),
        Val::Double(d) => {
            if d.fract() == 0.0 && d.abs() < 1.7e38 {
                Some(Num::I(*d as i128))
            } else {
                Some(Num::F(*d))
            }
        }
        _ => None,
    }
}

/// Numeric comparison across int/uint/double: `None` when unordered (NaN).
pub fn compare_numbers(a: &Val, b: &Val) -> Option<std::cmp::Ordering> {
    use std::cmp::Ordering;
    let f = |v: &Val| -> Option<f64> {
        match v {
            Val::Int(i) => Some(*i as f64),
            Val::Uint(u) => Some(*u as f64),
            Val::Double(d) => Some(*d),
            _ => None,
        }
    };
    match (a, b) {
        (Val::Int(x), Val::Int(y)) => Some(x.cmp(y)),
        (Val::Uint(x), Val::Uint(y)) => Some(x.cmp(y)),
        (Val::Int(x), Val::Uint(y)) => Some((*x as i128).cmp(&(*y as i128))),
        (Val::Uint(x), Val::Int(y)) => Some((*x as i128).cmp(&(*y as i128))),
        (Val::Int(_) | Val::Uint(_), Val::Double(d)) if d.is_finite() && d.abs() < 1e38 => {
            let iv = match a {
                Val::Int(i) => *i as i128,
                Val::Uint(u) => *u as i128,
                _ => 0,
            };
            let t = d.trunc();
            let ti = t as i128;
            match iv.cmp(&ti) {
                Ordering::Equal => {
                    if *d > t {
                        Some(Ordering::Less)
                    } else if *d < t {
                        Some(Ordering::Greater)
                    } else {
                        Some(Ordering::Equal)
                    }
                }
                o => Some(o),
            }
        }
        (Val::Double(_), Val::Int(_)) | (Val::Double(_), Val::Uint(_)) => {
            compare_numbers(b, a).map(Ordering::reverse)
        }
        _ => f(a)?.partial_cmp(&f(b)?),
    }
}

/// CEL equality (cel-go heterogeneous equality): numbers compare by value across types,
/// values of different types are unequal, lists honour set/map list types (order-free).
pub fn equal(a: &Val, b: &Val) -> bool {
    match (a, b) {
        (Val::Null, Val::Null) => true,
        (Val::Bool(x), Val::Bool(y)) => x == y,
        (Val::String(x), Val::String(y)) => x.as_str() == y.as_str(),
        (Val::Bytes(x), Val::Bytes(y)) => x == y,
        (Val::Duration(x), Val::Duration(y)) => x == y,
        (Val::Timestamp(x), Val::Timestamp(y)) => x == y,
        (
            Val::Int(_) | Val::Uint(_) | Val::Double(_),
            Val::Int(_) | Val::Uint(_) | Val::Double(_),
        ) => compare_numbers(a, b) == Some(std::cmp::Ordering::Equal),
        (Val::List(x), Val::List(y)) => list_equal(x, y),
        (Val::Map(x), Val::Map(y)) => {
            if x.len() != y.len() {
                return false;
            }
            x.entries().iter().all(|(k, v)| match y.get(k) {
                Some(Ok(w)) => equal(v, &w),
                _ => false,
            })
        }
        (Val::Optional(x), Val::Optional(y)) => match (x, y) {
            (None, None) => true,
            (Some(p), Some(q)) => equal(p, q),
            _ => false,
        },
        (Val::Type(x), Val::Type(y)) => x == y,
        (Val::Opaque(x), Val::Opaque(y)) => x.type_name() == y.type_name() && x.equal(y.as_ref()),
        _ => false,
    }
}

fn list_equal(x: &List, y: &List) -> bool {
    if x.len() != y.len() {
        return false;
    }
    let (kx, keys) = x.kind();
    match kx {
        ListKind::Atomic => (0..x.len()).all(|i| match (x.get(i), y.get(i)) {
            (Some(Ok(p)), Some(Ok(q))) => equal(&p, &q),
            _ => false,
        }),
        ListKind::Set => {
            let ys: Vec<Val> = y.iter().collect();
            x.iter().all(|p| ys.iter().any(|q| equal(&p, q)))
        }
        ListKind::Map => {
            let keys = keys.unwrap_or(&[]);
            let ys: Vec<Val> = y.iter().collect();
            x.iter().all(|p| {
                ys.iter()
                    .any(|q| same_map_keys(&p, q, keys) && equal(&p, q))
            })
        }
    }
}

/// Whether two list-map entries have equal key fields.
pub fn same_map_keys(a: &Val, b: &Val, keys: &[String]) -> bool {
    let (Val::Map(ma), Val::Map(mb)) = (a, b) else {
        return false;
    };
    keys.iter().all(|k| {
        let kv = Val::str(&escape(k, true).unwrap_or_else(|| k.clone()));
        match (ma.get(&kv), mb.get(&kv)) {
            (Some(Ok(x)), Some(Ok(y))) => equal(&x, &y),
            (None, None) => true,
            _ => false,
        }
    })
}

// Parsing of the duration/timestamp strings CEL converts (string → duration/timestamp,
// schema formats): thin bindings over go::time.
/// Go's `time.ParseDuration` (`1h30m`, `-1.5s`, `300ms`, `2us`, `1ns`) as a CEL duration.
pub fn parse_duration(s: &str) -> Option<Duration> {
    crate::go::time::parse_duration(s).map(Duration)
}

/// RFC 3339 timestamps (`2006-01-02T15:04:05.999999999Z07:00`) as CEL timestamps; `time.Parse`
/// keeps the written offset (the apiserver converts date-time fields with strfmt, which
/// parses the same way).
pub fn parse_timestamp(s: &str) -> Option<Timestamp> {
    let (secs, nanos, offset) = crate::go::time::parse_rfc3339(s)?;
    Some(Timestamp { secs, nanos, offset })
}

/// `2006-01-02` dates (format `date`), at midnight UTC.
pub fn parse_date(s: &str) -> Option<Timestamp> {
    if s.len() != 10 {
        return None;
    }
    parse_timestamp(&format!("{}T00:00:00Z", s))
}


#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escaping_round_trips() {
        for (raw, esc) in [
            ("a.b", "a__dot__b"),
            ("x-y", "x__dash__y"),
            ("a/b", "a__slash__b"),
            ("a__b", "a__underscores__b"),
            ("namespace", "__namespace__"),
        ] {
            assert_eq!(escape(raw, false).as_deref(), Some(esc));
            assert_eq!(unescape(esc), raw);
        }
        assert_eq!(escape("1a", false), None);
        assert_eq!(escape("namespace", true).as_deref(), Some("namespace"));
    }

    /// A map's lookups answer as a scan of its entries would (the first equal key), whether
    /// it keeps an index, is searched by halves (string keys in ascending order), or stops
    /// being sorted when an entry is pushed.
    #[test]
    fn map_lookups_answer_as_a_scan() {
        let scan = |m: &OwnedMap<'static>, k: &Val<'static>| {
            m.entries().iter().find(|(e, _)| key_equal(e, k)).map(|(_, v)| v.clone())
        };
        let keys: Vec<Val<'static>> = ["", "a", "a\u{0}", "b", "k1", "k10", "k2", "z", "é", "\u{10000}"]
            .iter()
            .map(|s| Val::str(s))
            .chain([Val::Int(1), Val::Uint(1), Val::Double(1.0), Val::Double(1.5), Val::Bool(true), Val::Null])
            .collect();
        let sorted: Vec<(Val<'static>, Val<'static>)> = keys[..10].iter().enumerate().map(|(i, k)| (k.clone(), Val::Int(i as i64))).collect();
        let mut reversed = sorted.clone();
        reversed.reverse();
        let mixed: Vec<(Val<'static>, Val<'static>)> = keys.iter().enumerate().map(|(i, k)| (k.clone(), Val::Int(i as i64))).collect();
        for entries in [sorted.clone(), reversed, mixed, sorted[..3].to_vec()] {
            let mut m = OwnedMap::new(entries);
            for k in &keys {
                assert_eq!(format!("{:?}", m.find(k)), format!("{:?}", scan(&m, k).as_ref()), "{:?}", k);
            }
            // Pushed keys: one after the last, one before it, a duplicate, a number.
            for (k, v) in [(Val::str("zz"), 100), (Val::str("c"), 101), (Val::str("a"), 102), (Val::Int(7), 103)] {
                m.push(k, Val::Int(v));
                for k in keys.iter().chain([&Val::str("zz"), &Val::str("c"), &Val::Int(7)]) {
                    assert_eq!(format!("{:?}", m.find(k)), format!("{:?}", scan(&m, k).as_ref()), "{:?}", k);
                }
            }
        }
        assert!(OwnedMap::new(sorted).sorted);
    }

    #[test]
    fn numbers_compare_across_types() {
        assert!(equal(&Val::Int(1), &Val::Double(1.0)));
        assert!(equal(&Val::Uint(2), &Val::Int(2)));
        assert!(!equal(&Val::Int(1), &Val::str("1")));
        assert_eq!(
            compare_numbers(&Val::Int(1), &Val::Double(1.5)),
            Some(std::cmp::Ordering::Less)
        );
        assert_eq!(
            compare_numbers(&Val::Double(2.5), &Val::Int(2)),
            Some(std::cmp::Ordering::Greater)
        );
    }
}
