//! `field.Path` and `field.Error` of apimachinery (`pkg/util/validation/field`): every layer
//! reports problems as these, and they print byte for byte like the apiserver's.

use crate::version::KubeVersion;
use serde::Serialize;
use serde_json::Value;
use std::fmt;

/// A field path as apimachinery prints it: `spec.containers[0].env[FOO]`.
/// Kept as its rendered string: paths are built once per error, never parsed back.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Path(String);

impl Path {
    /// The nil path: prints as `<nil>`.
    pub fn root() -> Path {
        Path(String::new())
    }
    pub fn new(name: &str) -> Path {
        Path(name.to_string())
    }
    pub fn child(&self, name: &str) -> Path {
        if self.0.is_empty() {
            Path(name.to_string())
        } else {
            let mut s = String::with_capacity(self.0.len() + 1 + name.len());
            s.push_str(&self.0);
            s.push('.');
            s.push_str(name);
            Path(s)
        }
    }
    pub fn index(&self, i: usize) -> Path {
        Path(format!("{}[{}]", self.0, i))
    }
    pub fn key(&self, k: &str) -> Path {
        Path(format!("{}[{}]", self.0, k))
    }
    pub fn is_root(&self) -> bool {
        self.0.is_empty()
    }
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for Path {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.is_empty() {
            f.write_str("<nil>")
        } else {
            f.write_str(&self.0)
        }
    }
}

/// apimachinery's `field.ErrorType`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ErrorType {
    NotFound,
    Required,
    Duplicate,
    Invalid,
    NotSupported,
    Forbidden,
    TooLong,
    TooMany,
    Internal,
    /// `FieldValueTypeInvalid`: prints as "Invalid value" but blocks CEL.
    TypeInvalid,
}

impl ErrorType {
    /// The human form printed in messages.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorType::NotFound => "Not found",
            ErrorType::Required => "Required value",
            ErrorType::Duplicate => "Duplicate value",
            ErrorType::Invalid | ErrorType::TypeInvalid => "Invalid value",
            ErrorType::NotSupported => "Unsupported value",
            ErrorType::Forbidden => "Forbidden",
            ErrorType::TooLong => "Too long",
            ErrorType::TooMany => "Too many",
            ErrorType::Internal => "Internal error",
        }
    }
    /// The machine form (`FieldValueInvalid`, ...), as `reason` in rules uses it.
    pub fn reason(self) -> &'static str {
        match self {
            ErrorType::NotFound => "FieldValueNotFound",
            ErrorType::Required => "FieldValueRequired",
            ErrorType::Duplicate => "FieldValueDuplicate",
            ErrorType::Invalid => "FieldValueInvalid",
            ErrorType::NotSupported => "FieldValueNotSupported",
            ErrorType::Forbidden => "FieldValueForbidden",
            ErrorType::TooLong => "FieldValueTooLong",
            ErrorType::TooMany => "FieldValueTooMany",
            ErrorType::Internal => "InternalError",
            ErrorType::TypeInvalid => "FieldValueTypeInvalid",
        }
    }
}

/// The value an error prints after its type, rendered the way `ErrorBody` renders Go values.
#[derive(Clone, Debug, PartialEq)]
pub enum BadValue {
    /// `omitValue`: nothing printed.
    Omit,
    /// nil: prints `null`.
    Null,
    Int(i64),
    Float(f64),
    Bool(bool),
    /// Printed with Go's `%q`.
    Str(String),
    /// Any other value (objects, lists, structs): printed as JSON (Go's json.Marshal).
    Json(Value),
    /// Already rendered text, printed as is (a `fmt.Stringer`).
    Raw(String),
    /// A Go struct: `json` is what 1.34+ prints (json.Marshal), `go` what earlier releases
    /// print (`%#v`, rendered for the release the error is reported on).
    GoStruct { json: String, go: String },
}

impl BadValue {
    /// A JSON value as the apiserver holds it in an unstructured object.
    pub fn from_json(v: &Value) -> BadValue {
        match v {
            Value::Null => BadValue::Null,
            Value::Bool(b) => BadValue::Bool(*b),
            Value::Number(n) => {
                if let Some(i) = n.as_i64() {
                    BadValue::Int(i)
                } else {
                    BadValue::Float(n.as_f64().unwrap_or(0.0))
                }
            }
            Value::String(s) => BadValue::Str(s.clone()),
            other => BadValue::Json(other.clone()),
        }
    }

    fn render(&self, out: &mut String, kube: KubeVersion) {
        // Before 1.34 apimachinery printed nil as the string "null" and other values with
        // Go's %#v; from 1.34 it prints null and JSON.
        let go_style = !kube.has(crate::version::Feature::JsonFieldValues);
        match self {
            BadValue::Omit => {}
            BadValue::Null if go_style => out.push_str("\"null\""),
            BadValue::Null => out.push_str("null"),
            BadValue::Json(v) if go_style => out.push_str(&crate::go::fmt::go_sharp_v(v)),
            BadValue::Int(i) => out.push_str(&i.to_string()),
            BadValue::Float(f) => out.push_str(&crate::go::fmt::format_float_v(*f)),
            BadValue::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            BadValue::Str(s) => out.push_str(&crate::go::strconv::quote(s)),
            BadValue::Json(v) => out.push_str(&crate::go::json::json_marshal(v)),
            BadValue::Raw(s) => out.push_str(s),
            BadValue::GoStruct { go, .. } if go_style => out.push_str(go),
            BadValue::GoStruct { json, .. } => out.push_str(json),
        }
    }
}

/// apimachinery's `field.Error`.
#[derive(Clone, Debug, PartialEq)]
pub struct FieldError {
    pub kind: ErrorType,
    pub field: Path,
    pub value: BadValue,
    /// The detail as the latest release prints it.
    pub detail: String,
    /// The detail as releases before some minor printed it, where apimachinery reworded
    /// the constructor's text (see [`EarlierDetail`]).
    pub earlier: Option<Box<EarlierDetail>>,
}

/// An error detail as releases before `until` (a minor version) print it.
#[derive(Clone, Debug, PartialEq)]
pub struct EarlierDetail {
    pub until: u32,
    pub detail: String,
}

/// apimachinery's `TooLong`/`TooLongMaxLength`/`TooMany` texts were merged and reworded in
/// 1.32 (kubernetes PR 128553): "may not be more than N bytes" (singular for 1), "must have
/// at most N items" (singular for 1).
const TOO_TEXTS_REWORDED_IN: u32 = crate::version::Feature::RewordedTooLongTooMany.since();

fn plural(n: i64, one: &str, many: &str) -> String {
    format!("{} {}", n, if n == 1 { one } else { many })
}

impl FieldError {
    pub fn new(kind: ErrorType, field: Path, value: BadValue, detail: impl Into<String>) -> Self {
        FieldError { kind, field, value, detail: detail.into(), earlier: None }
    }

    /// The same error, printed with `detail` by releases before `until`.
    fn earlier_detail(mut self, until: u32, detail: String) -> Self {
        if detail != self.detail {
            self.earlier = Some(Box::new(EarlierDetail { until, detail }));
        }
        self
    }

    /// The detail as `kube` prints it.
    pub fn detail_for(&self, kube: KubeVersion) -> &str {
        match &self.earlier {
            Some(e) if kube.minor < e.until => &e.detail,
            _ => &self.detail,
        }
    }
    pub fn invalid(field: Path, value: BadValue, detail: impl Into<String>) -> Self {
        Self::new(ErrorType::Invalid, field, value, detail)
    }
    pub fn type_invalid(field: Path, value: BadValue, detail: impl Into<String>) -> Self {
        Self::new(ErrorType::TypeInvalid, field, value, detail)
    }
    pub fn required(field: Path, detail: impl Into<String>) -> Self {
        Self::new(ErrorType::Required, field, BadValue::Str(String::new()), detail)
    }
    pub fn forbidden(field: Path, detail: impl Into<String>) -> Self {
        Self::new(ErrorType::Forbidden, field, BadValue::Str(String::new()), detail)
    }
    pub fn duplicate(field: Path, value: BadValue) -> Self {
        Self::new(ErrorType::Duplicate, field, value, "")
    }
    pub fn not_supported(field: Path, value: BadValue, valid: &[String]) -> Self {
        let detail = if valid.is_empty() {
            String::new()
        } else {
            let quoted: Vec<String> = valid.iter().map(|v| crate::go::strconv::quote(v)).collect();
            format!("supported values: {}", quoted.join(", "))
        };
        Self::new(ErrorType::NotSupported, field, value, detail)
    }
    /// `field.TooLong(path, value, max)`: "may not be more than N bytes"; before 1.32
    /// "must have at most N bytes" (metadata sizes use it).
    pub fn too_long(field: Path, value: BadValue, max: i64) -> Self {
        let before = format!("must have at most {} bytes", max);
        Self::new(ErrorType::TooLong, field, value, too_long_detail(max))
            .earlier_detail(TOO_TEXTS_REWORDED_IN, before)
    }
    /// `field.TooLongMaxLength(path, value, max)`, what a schema's `maxLength` reports:
    /// since 1.32 the same as [`FieldError::too_long`]; before, "may not be longer than N".
    pub fn too_long_max_length(field: Path, value: BadValue, max: i64) -> Self {
        let before = if max >= 0 {
            format!("may not be longer than {}", max)
        } else {
            "value is too long".to_string()
        };
        Self::new(ErrorType::TooLong, field, value, too_long_detail(max))
            .earlier_detail(TOO_TEXTS_REWORDED_IN, before)
    }
    /// `field.TooMany(path, actual, max)`: "must have at most N items" ("1 item" since 1.32).
    pub fn too_many(field: Path, actual: i64, max: i64) -> Self {
        let (detail, before) = if max >= 0 {
            (format!("must have at most {}", plural(max, "item", "items")), format!("must have at most {} items", max))
        } else {
            ("has too many items".to_string(), "has too many items".to_string())
        };
        let value = if actual >= 0 { BadValue::Int(actual) } else { BadValue::Omit };
        Self::new(ErrorType::TooMany, field, value, detail).earlier_detail(TOO_TEXTS_REWORDED_IN, before)
    }
    pub fn internal(field: Path, detail: impl Into<String>) -> Self {
        Self::new(ErrorType::Internal, field, BadValue::Null, detail)
    }

    /// `ErrorBody()`: the message without the field, as the latest release prints it.
    pub fn body(&self) -> String {
        self.body_for(KubeVersion::LATEST)
    }

    /// `ErrorBody()` as the given release prints it.
    pub fn body_for(&self, kube: KubeVersion) -> String {
        let mut s = String::from(self.kind.as_str());
        let omit = matches!(
            self.kind,
            ErrorType::Required | ErrorType::Forbidden | ErrorType::TooLong | ErrorType::Internal
        ) || self.value == BadValue::Omit;
        if !omit {
            s.push_str(": ");
            self.value.render(&mut s, kube);
        }
        let detail = self.detail_for(kube);
        if !detail.is_empty() {
            s.push_str(": ");
            s.push_str(detail);
        }
        s
    }

    /// `Error()`: `<field>: <body>`.
    pub fn message(&self) -> String {
        self.message_for(KubeVersion::LATEST)
    }

    /// `Error()` as the given release prints it.
    pub fn message_for(&self, kube: KubeVersion) -> String {
        format!("{}: {}", self.field, self.body_for(kube))
    }

    /// Blocking errors stop CEL validation (apiextensions strategy `hasBlockingErr`).
    pub fn is_blocking(&self) -> bool {
        matches!(
            self.kind,
            ErrorType::NotSupported
                | ErrorType::Required
                | ErrorType::TooLong
                | ErrorType::TooMany
                | ErrorType::TypeInvalid
        )
    }

    pub fn to_report(&self) -> ErrorReport {
        self.to_report_for(KubeVersion::LATEST)
    }

    /// The answer form, rendered as the given release prints it.
    pub fn to_report_for(&self, kube: KubeVersion) -> ErrorReport {
        ErrorReport {
            field: self.field.to_string(),
            kind: self.kind.as_str().to_string(),
            detail: self.detail_for(kube).to_string(),
            message: self.message_for(kube),
        }
    }
}

impl fmt::Display for FieldError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message())
    }
}

/// The serialized form of an error in answers: `{field, type, detail, message}`.
#[derive(Clone, Debug, PartialEq, Serialize, serde::Deserialize)]
pub struct ErrorReport {
    pub field: String,
    #[serde(rename = "type")]
    pub kind: String,
    pub detail: String,
    pub message: String,
}

pub type ErrorList = Vec<FieldError>;

/// The 1.32+ `TooLong` detail.
fn too_long_detail(max: i64) -> String {
    if max >= 0 {
        format!("may not be more than {}", plural(max, "byte", "bytes"))
    } else {
        "value is too long".to_string()
    }
}

/// apimachinery `ErrorList.ToAggregate().Error()`: the distinct messages in order,
/// bracketed when there are two or more.
pub fn aggregate<S: AsRef<str>>(messages: &[S]) -> String {
    let mut msgs: Vec<&str> = Vec::new();
    for m in messages {
        if !msgs.contains(&m.as_ref()) {
            msgs.push(m.as_ref());
        }
    }
    if msgs.len() == 1 {
        msgs[0].to_string()
    } else {
        format!("[{}]", msgs.join(", "))
    }
}

/// The apiserver's `NewInvalid` status message as kubectl prints it:
/// `<Kind>.<group> "<name>" is invalid: ` and the [`aggregate`] of the errors.
pub fn aggregate_message(kind_group: &str, name: &str, errs: &[ErrorReport]) -> String {
    let msgs: Vec<&str> = errs.iter().map(|e| e.message.as_str()).collect();
    format!("{} \"{}\" is invalid: {}", kind_group, name, aggregate(&msgs))
}
