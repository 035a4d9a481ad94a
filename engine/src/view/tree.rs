//! The object's fields as a tree, each with its state: what the apiserver said about it
//! (error, ratcheted error), what it did to it (pruned, defaulted), or that no schema
//! covers it (not checked: below `x-kubernetes-preserve-unknown-fields`, or outside
//! `.status` on a status write).
//!
//! The tree is returned flat, in document order, each node with its depth, so a front end
//! renders it with one loop and no recursion.

use crate::crd::model::JsonSchemaProps;
use crate::text::positions;
use crate::view::diagnostics::Diagnostic;
use crate::text::source_map::PathSeg;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::HashMap;

/// At most this many nodes: a 10,000-item list shows its first items and a count.
pub const MAX_NODES: usize = 3000;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum State {
    Valid,
    Error,
    /// An error validation ratcheting let through (the field is unchanged in an update).
    Ratcheted,
    /// Removed by pruning: the schema does not declare it.
    Pruned,
    /// Added by defaulting.
    Defaulted,
    /// No schema validates it.
    NotChecked,
}

impl State {
    pub fn as_str(self) -> &'static str {
        match self {
            State::Valid => "valid",
            State::Error => "error",
            State::Ratcheted => "ratcheted",
            State::Pruned => "pruned",
            State::Defaulted => "defaulted",
            State::NotChecked => "not checked",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Node {
    /// `spec`, `[0]`, `name`; `(object)` for the root.
    pub key: String,
    /// The field path as the apiserver prints it (`spec.containers[0].name`).
    pub path: String,
    pub depth: usize,
    pub state: State,
    /// Some node below this one has an error.
    pub errors_below: bool,
    /// A scalar's value as JSON (`3`, `"a"`), or `{…} 3 fields` / `[…] 2 items`.
    pub summary: String,
    /// The apiserver's messages for this node (errors, then ratcheted errors).
    pub messages: Vec<String>,
    /// Nodes left out because of [`MAX_NODES`] (set on a final placeholder node).
    pub omitted: usize,
}

pub struct Inputs<'a> {
    pub object: &'a Value,
    pub defaulted: &'a Value,
    pub schema: Option<&'a JsonSchemaProps>,
    pub errors: &'a [Diagnostic],
    pub ratcheted: &'a [Diagnostic],
    /// `unknownFields`: apiserver paths of pruned fields.
    pub pruned: &'a [String],
    /// A status-subresource write: only `.status` (and metadata) is validated.
    pub status_only: bool,
}

/// How a key prints in a path: `.name` when it reads as a field name, else `[key]`.
fn push_key(path: &str, key: &str) -> String {
    let plain = !key.is_empty() && key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    match (path.is_empty(), plain) {
        (true, true) => key.to_string(),
        (false, true) => format!("{}.{}", path, key),
        (_, false) => format!("{}[{}]", path, key),
    }
}

fn summary(v: &Value) -> String {
    match v {
        Value::Object(m) => format!("{{…}} {} field{}", m.len(), if m.len() == 1 { "" } else { "s" }),
        Value::Array(a) => format!("[…] {} item{}", a.len(), if a.len() == 1 { "" } else { "s" }),
        other => {
            let s = other.to_string();
            if s.chars().count() > 80 {
                let cut: String = s.chars().take(77).collect();
                format!("{}…", cut)
            } else {
                s
            }
        }
    }
}

/// What validates a node: a schema, "checked without a schema of its own" (metadata,
/// apiVersion, kind), or nothing.
#[derive(Clone, Copy)]
enum Cover<'a> {
    Schema(&'a JsonSchemaProps),
    Implicit,
    None,
}

fn child_cover<'a>(parent: Cover<'a>, key: &str, root: bool) -> Cover<'a> {
    match parent {
        Cover::Schema(s) => {
            if let Some(p) = s.properties.get(key) {
                return Cover::Schema(p);
            }
            if (root || s.x_embedded_resource) && matches!(key, "apiVersion" | "kind" | "metadata") {
                return Cover::Implicit;
            }
            match s.additional_properties_schema() {
                Some(a) => Cover::Schema(a),
                None => Cover::None,
            }
        }
        Cover::Implicit => Cover::Implicit,
        Cover::None => Cover::None,
    }
}

fn item_cover(parent: Cover<'_>) -> Cover<'_> {
    match parent {
        Cover::Schema(s) => s.items_schema().map(Cover::Schema).unwrap_or(Cover::None),
        other => other,
    }
}

struct Builder<'a> {
    inputs: &'a Inputs<'a>,
    nodes: Vec<Node>,
    by_path: HashMap<Vec<PathSeg>, usize>,
    pruned: Vec<Vec<PathSeg>>,
    omitted: usize,
}

impl<'a> Builder<'a> {
    #[allow(clippy::too_many_arguments)]
    fn walk(
        &mut self,
        key: String,
        path: String,
        segs: &mut Vec<PathSeg>,
        value: &Value,
        defaulted: Option<&Value>,
        cover: Cover<'_>,
        inherited: Option<State>,
    ) {
        if self.nodes.len() >= MAX_NODES {
            self.omitted += 1;
            return;
        }
        let pruned = inherited == Some(State::Pruned) || self.pruned.iter().any(|p| p == segs);
        let state = if pruned {
            State::Pruned
        } else if let Some(s) = inherited {
            s
        } else if matches!(cover, Cover::None) {
            State::NotChecked
        } else {
            State::Valid
        };
        let child_inherited = match state {
            State::Pruned | State::Defaulted => Some(state),
            _ => None,
        };
        let depth = segs.len();
        self.by_path.insert(segs.clone(), self.nodes.len());
        self.nodes.push(Node {
            key,
            path: path.clone(),
            depth,
            state,
            errors_below: false,
            summary: summary(value),
            messages: Vec::new(),
            omitted: 0,
        });
        match value {
            Value::Object(m) => {
                let root = depth == 0;
                for (k, v) in m {
                    let cover = child_cover(cover, k, root);
                    let cover = if root && self.inputs.status_only && k != "status" && k != "metadata" {
                        Cover::None
                    } else {
                        cover
                    };
                    let d = defaulted.and_then(|d| d.get(k));
                    segs.push(PathSeg::Key(k.clone()));
                    self.walk(k.clone(), push_key(&path, k), segs, v, d, cover, child_inherited);
                    segs.pop();
                }
                // Fields defaulting added.
                if let Some(Value::Object(dm)) = defaulted {
                    for (k, v) in dm {
                        if m.contains_key(k) {
                            continue;
                        }
                        let cover = child_cover(cover, k, root);
                        segs.push(PathSeg::Key(k.clone()));
                        self.walk(k.clone(), push_key(&path, k), segs, v, Some(v), cover, Some(State::Defaulted));
                        segs.pop();
                    }
                }
            }
            Value::Array(items) => {
                let item = item_cover(cover);
                for (i, v) in items.iter().enumerate() {
                    let d = defaulted.and_then(|d| d.get(i));
                    segs.push(PathSeg::Index(i));
                    self.walk(format!("[{}]", i), format!("{}[{}]", path, i), segs, v, d, item, child_inherited);
                    segs.pop();
                }
            }
            _ => {}
        }
    }

    /// Puts a message on the node at `field` (or its nearest ancestor in the tree).
    fn attach(&mut self, d: &Diagnostic, state: State) {
        let segs = positions::json_path_owned(positions::parse_field_path(&d.field), self.inputs.object);
        let mut n = segs.len();
        let idx = loop {
            if let Some(i) = self.by_path.get(&segs[..n]) {
                break Some(*i);
            }
            if n == 0 {
                break None;
            }
            n -= 1;
        };
        let Some(i) = idx else { return };
        let node = &mut self.nodes[i];
        node.messages.push(d.message.clone());
        let stronger = match (node.state, state) {
            (State::Error, _) => false,
            (_, State::Error) => true,
            (State::Ratcheted, _) => false,
            _ => true,
        };
        if stronger {
            node.state = state;
        }
        // Mark the ancestors (the path prefixes present in the tree).
        for k in 0..n {
            if let Some(j) = self.by_path.get(&segs[..k]) {
                if state == State::Error {
                    self.nodes[*j].errors_below = true;
                }
            }
        }
    }
}

/// Builds the tree: the object's fields, fields defaulting added, and the messages.
pub fn build(inputs: &Inputs<'_>) -> Vec<Node> {
    let pruned = inputs
        .pruned
        .iter()
        .map(|p| positions::json_path_owned(positions::parse_field_path(p), inputs.object))
        .collect();
    let mut b = Builder { inputs, nodes: Vec::new(), by_path: HashMap::new(), pruned, omitted: 0 };
    let cover = match inputs.schema {
        Some(s) => Cover::Schema(s),
        None => Cover::None,
    };
    let mut segs = Vec::new();
    b.walk("(object)".into(), String::new(), &mut segs, inputs.object, Some(inputs.defaulted), cover, None);
    for d in inputs.errors {
        b.attach(d, State::Error);
    }
    for d in inputs.ratcheted {
        b.attach(d, State::Ratcheted);
    }
    if b.omitted > 0 {
        b.nodes.push(Node {
            key: "…".into(),
            path: String::new(),
            depth: 1,
            state: State::Valid,
            errors_below: false,
            summary: format!("{} more fields not shown", b.omitted),
            messages: Vec::new(),
            omitted: b.omitted,
        });
    }
    b.nodes
}

/// The fields defaulting added: present after defaulting, absent from the object (pruned
/// fields are absent after, not added).
pub fn added_fields(object: &Value, defaulted: &Value, _pruned: &[String]) -> Vec<String> {
    fn walk(o: Option<&Value>, d: &Value, path: &str, out: &mut Vec<String>, depth: usize) {
        if depth > 512 || out.len() > 10_000 {
            return;
        }
        match (o, d) {
            (Some(Value::Object(om)), Value::Object(dm)) => {
                for (k, dv) in dm {
                    walk(om.get(k), dv, &push_key(path, k), out, depth + 1);
                }
            }
            (Some(Value::Array(oa)), Value::Array(da)) => {
                for (i, dv) in da.iter().enumerate() {
                    walk(oa.get(i), dv, &format!("{}[{}]", path, i), out, depth + 1);
                }
            }
            (None, _) => out.push(path.to_string()),
            _ => {}
        }
    }
    let mut out = Vec::new();
    walk(Some(object), defaulted, "", &mut out, 0);
    out
}
