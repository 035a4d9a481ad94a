//! CEL types as cel-go's checker sees them (`common/types`), with cel-go's printed names.

use std::fmt;
use std::sync::Arc;

/// A CEL type. `Object` types come from schemas (apiserver `DeclType` objects).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Type {
    Dyn,
    Null,
    Bool,
    Int,
    Uint,
    Double,
    String,
    Bytes,
    Duration,
    Timestamp,
    List(Arc<Type>),
    Map(Arc<Type>, Arc<Type>),
    /// A schema object type: its name and fields (escaped CEL names).
    Object(Arc<ObjectType>),
    /// An opaque type with parameters: `optional_type(T)`, `kubernetes.Quantity`, `net.IP`, ...
    Opaque(Arc<str>, Vec<Type>),
    /// `type(T)`: the type of a type value.
    TypeOf(Arc<Type>),
    /// A type parameter of an overload (`A`, `K`, `V`) or a fresh checker variable (`_var0`).
    Param(Arc<str>),
    /// The type of an expression that failed to check.
    Error,
    /// No type at all: cel-go before v0.17 (Kubernetes 1.25–1.28) records none for an
    /// undeclared member call or message type (`checkCall`/`checkCreateMessage` return
    /// without `setType`), so `getType` yields a nil `*Type`, which is neither dyn nor
    /// error: the enclosing call reports `found no matching overload … '(<nil>, int)'`.
    /// Only ever seen inside a check that fails.
    Unset,
}

/// A named object type with declared fields.
#[derive(Debug, PartialEq, Eq, Hash)]
pub struct ObjectType {
    pub name: String,
    /// (escaped CEL field name, field type), sorted by name.
    pub fields: Vec<(String, Type)>,
}

/// The name the apiserver gives the type of `self` at a node with rules: apiextensions
/// `generateUniqueSelfTypeName` makes it `selfType<N>` with N = `time.Now().Nanosecond()` at
/// each compile, so no fixed N can match the apiserver's text; 0 is one of the values it can
/// print (a compile at a whole second) and keeps crdlab's output deterministic.
pub const SELF_TYPE_NAME: &str = "selfType0";

/// apiserver `DeclType.MaybeAssignTypeName` as `prepareEnvSet` applies it to the type of a
/// node with rules: the node's object type takes `name`, its fields `name.field`, list
/// elements `name.@idx`, map values `name.@elem`, recursively. Every node compiles its rules
/// with its own root name (the names are not the schema root's paths).
pub fn with_type_name(t: &Type, name: &str) -> Type {
    match t {
        Type::Object(o) => {
            let fields = o
                .fields
                .iter()
                .map(|(n, ft)| (n.clone(), with_type_name(ft, &format!("{}.{}", name, n))))
                .collect();
            Type::Object(Arc::new(ObjectType {
                name: name.to_string(),
                fields,
            }))
        }
        Type::List(e) => Type::list(with_type_name(e, &format!("{}.@idx", name))),
        Type::Map(k, v) => Type::Map(k.clone(), Arc::new(with_type_name(v, &format!("{}.@elem", name)))),
        other => other.clone(),
    }
}

impl ObjectType {
    pub fn field(&self, name: &str) -> Option<&Type> {
        self.fields.binary_search_by(|(n, _)| n.as_str().cmp(name)).ok().map(|i| &self.fields[i].1)
    }
}

pub const OPTIONAL: &str = "optional_type";
pub const QUANTITY: &str = "kubernetes.Quantity";
pub const IP: &str = "net.IP";
pub const CIDR: &str = "net.CIDR";
pub const URL: &str = "kubernetes.URL";
pub const SEMVER: &str = "kubernetes.Semver";
pub const FORMAT: &str = "kubernetes.NamedFormat";

impl Type {
    pub fn list(t: Type) -> Type {
        Type::List(Arc::new(t))
    }
    pub fn map(k: Type, v: Type) -> Type {
        Type::Map(Arc::new(k), Arc::new(v))
    }
    pub fn optional(t: Type) -> Type {
        Type::Opaque(OPTIONAL.into(), vec![t])
    }
    pub fn opaque(name: &str) -> Type {
        Type::Opaque(name.into(), Vec::new())
    }
    pub fn param(name: &str) -> Type {
        Type::Param(name.into())
    }
    pub fn type_of(t: Type) -> Type {
        Type::TypeOf(Arc::new(t))
    }

    /// Whether a type parameter (`A`, `_var0`) occurs in the type.
    pub fn has_params(&self) -> bool {
        match self {
            Type::Param(_) => true,
            Type::List(e) | Type::TypeOf(e) => e.has_params(),
            Type::Map(k, v) => k.has_params() || v.has_params(),
            Type::Opaque(_, ps) => ps.iter().any(Type::has_params),
            _ => false,
        }
    }

    /// The names of the type parameters in this type, each occurrence.
    pub fn param_names<'t>(&'t self, out: &mut Vec<&'t str>) {
        match self {
            Type::Param(p) => out.push(p),
            Type::List(e) | Type::TypeOf(e) => e.param_names(out),
            Type::Map(k, v) => {
                k.param_names(out);
                v.param_names(out);
            }
            Type::Opaque(_, ps) => ps.iter().for_each(|p| p.param_names(out)),
            _ => {}
        }
    }

    pub fn is_dyn_or_error(&self) -> bool {
        matches!(self, Type::Dyn | Type::Error)
    }

    /// The element type of an optional, if this is one.
    pub fn optional_elem(&self) -> Option<&Type> {
        match self {
            Type::Opaque(n, p) if &**n == OPTIONAL && p.len() == 1 => Some(&p[0]),
            _ => None,
        }
    }

    /// cel-go's kind name used in overload signatures and runtime errors (`list`, `map`, ...).
    pub fn kind_name(&self) -> String {
        match self {
            Type::List(_) => "list".into(),
            Type::Map(..) => "map".into(),
            Type::Object(o) => o.name.clone(),
            Type::Opaque(n, _) => n.to_string(),
            Type::TypeOf(_) => "type".into(),
            other => other.to_string(),
        }
    }

    /// Replaces type parameters by their bindings.
    pub fn substitute(&self, f: &dyn Fn(&str) -> Option<Type>) -> Type {
        match self {
            Type::Param(p) => f(p).unwrap_or_else(|| self.clone()),
            Type::List(e) => Type::list(e.substitute(f)),
            Type::Map(k, v) => Type::map(k.substitute(f), v.substitute(f)),
            Type::Opaque(n, ps) if !ps.is_empty() => Type::Opaque(n.clone(), ps.iter().map(|p| p.substitute(f)).collect()),
            Type::TypeOf(t) => Type::type_of(t.substitute(f)),
            other => other.clone(),
        }
    }
}

impl Type {
    /// The name of an expression's output type (`Ast.OutputType()`); with
    /// `type_parameters` off (cel-go before v0.17, whose `cel.Type` kept no parameter for a
    /// type of types) every `type(T)` is a bare `type`.
    pub fn output_name(&self, type_parameters: bool) -> String {
        fn bare(t: &Type) -> Type {
            match t {
                Type::TypeOf(_) => Type::opaque("type"),
                Type::List(e) => Type::list(bare(e)),
                Type::Map(k, v) => Type::map(bare(k), bare(v)),
                Type::Opaque(n, ps) => Type::Opaque(n.clone(), ps.iter().map(bare).collect()),
                other => other.clone(),
            }
        }
        if type_parameters {
            self.to_string()
        } else {
            bare(self).to_string()
        }
    }

    /// cel-go's `FormatCELType`, the notation of checker error messages: like the type
    /// names, except `null`, `timestamp`, `duration` and `!error!`.
    pub fn format_cel(&self) -> String {
        match self {
            Type::Null => "null".into(),
            Type::Timestamp => "timestamp".into(),
            Type::Duration => "duration".into(),
            Type::List(e) => format!("list({})", e.format_cel()),
            Type::Map(k, v) => format!("map({}, {})", k.format_cel(), v.format_cel()),
            Type::TypeOf(t) => format!("type({})", t.format_cel()),
            Type::Opaque(n, ps) if !ps.is_empty() => {
                format!("{}({})", n, ps.iter().map(Type::format_cel).collect::<Vec<_>>().join(", "))
            }
            other => other.to_string(),
        }
    }
}

impl fmt::Display for Type {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Type::Dyn => f.write_str("dyn"),
            Type::Null => f.write_str("null_type"),
            Type::Bool => f.write_str("bool"),
            Type::Int => f.write_str("int"),
            Type::Uint => f.write_str("uint"),
            Type::Double => f.write_str("double"),
            Type::String => f.write_str("string"),
            Type::Bytes => f.write_str("bytes"),
            Type::Duration => f.write_str("google.protobuf.Duration"),
            Type::Timestamp => f.write_str("google.protobuf.Timestamp"),
            Type::List(e) => write!(f, "list({})", e),
            Type::Map(k, v) => write!(f, "map({}, {})", k, v),
            Type::Object(o) => f.write_str(&o.name),
            Type::Opaque(n, ps) => {
                f.write_str(n)?;
                if !ps.is_empty() {
                    f.write_str("(")?;
                    for (i, p) in ps.iter().enumerate() {
                        if i > 0 {
                            f.write_str(", ")?;
                        }
                        write!(f, "{}", p)?;
                    }
                    f.write_str(")")?;
                }
                Ok(())
            }
            Type::TypeOf(t) => write!(f, "type({})", t),
            Type::Param(p) => f.write_str(p),
            // cel-go's checker prints the error type as `!error!` in its messages.
            Type::Error => f.write_str("!error!"),
            // Go's `%v` of a nil `*exprpb.Type` (FormatCheckedType's fallback).
            Type::Unset => f.write_str("<nil>"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn output_names_of_types_of_types() {
        let t = Type::list(Type::type_of(Type::Int));
        assert_eq!(t.output_name(true), "list(type(int))");
        assert_eq!(t.output_name(false), "list(type)");
    }
}
