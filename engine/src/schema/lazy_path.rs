//! Field paths of schema walks, built only when an error needs one. The CRD checks visit
//! every node of every schema (thousands in a large CRD) and report on almost none of
//! them; rendering each node's path up front was most of what those walks cost.

use crate::field::Path;

/// A path made of a base [`Path`] and the steps below it, each borrowed from the caller's
/// frame. [`LazyPath::path`] renders it exactly as the same steps on a [`Path`] would.
#[derive(Clone, Copy)]
pub struct LazyPath<'a> {
    parent: Option<&'a LazyPath<'a>>,
    step: Step<'a>,
}

#[derive(Clone, Copy)]
enum Step<'a> {
    Base(&'a Path),
    Child(&'a str),
    Key(&'a str),
    Index(usize),
}

impl<'a> LazyPath<'a> {
    pub fn new(base: &'a Path) -> LazyPath<'a> {
        LazyPath {
            parent: None,
            step: Step::Base(base),
        }
    }

    /// [`Path::child`].
    pub fn child(&'a self, name: &'a str) -> LazyPath<'a> {
        LazyPath {
            parent: Some(self),
            step: Step::Child(name),
        }
    }

    /// [`Path::key`].
    pub fn key(&'a self, key: &'a str) -> LazyPath<'a> {
        LazyPath {
            parent: Some(self),
            step: Step::Key(key),
        }
    }

    /// [`Path::index`].
    pub fn index(&'a self, i: usize) -> LazyPath<'a> {
        LazyPath {
            parent: Some(self),
            step: Step::Index(i),
        }
    }

    /// Hashes the base and the steps (from the last): the same steps hash alike, so a walk
    /// that reaches a node the same way again finds the same hash.
    pub fn hash_into(&self, h: &mut impl std::hash::Hasher) {
        let mut at = Some(self);
        while let Some(p) = at {
            match p.step {
                Step::Base(b) => {
                    h.write_u8(0);
                    h.write(b.as_str().as_bytes());
                }
                Step::Child(n) => {
                    h.write_u8(1);
                    h.write(n.as_bytes());
                }
                Step::Key(k) => {
                    h.write_u8(2);
                    h.write_usize(k.len());
                    h.write(k.as_bytes());
                }
                Step::Index(i) => {
                    h.write_u8(3);
                    h.write_usize(i);
                }
            }
            at = p.parent;
        }
    }

    /// The rendered path (in one buffer, as [`Path::child`], [`Path::key`] and
    /// [`Path::index`] would render the steps one by one).
    pub fn path(&self) -> Path {
        let mut steps = Vec::new();
        let mut at = Some(self);
        let mut base = "";
        while let Some(p) = at {
            match p.step {
                Step::Base(b) => base = b.as_str(),
                step => steps.push(step),
            }
            at = p.parent;
        }
        let mut out = String::from(base);
        for step in steps.iter().rev() {
            match step {
                Step::Child(n) => {
                    if !out.is_empty() {
                        out.push('.');
                    }
                    out.push_str(n);
                }
                Step::Key(k) => {
                    out.push('[');
                    out.push_str(k);
                    out.push(']');
                }
                Step::Index(i) => {
                    out.push('[');
                    out.push_str(&i.to_string());
                    out.push(']');
                }
                Step::Base(_) => {}
            }
        }
        if out.is_empty() {
            Path::root()
        } else {
            Path::new(&out)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_as_the_eager_path() {
        for base in [Path::root(), Path::new("spec.validation")] {
            let lazy = LazyPath::new(&base);
            let key = lazy.key("k");
            let child = key.child("c");
            assert_eq!(child.path(), base.key("k").child("c"));
            let index = lazy.index(3);
            assert_eq!(index.path(), base.index(3));
            let lazy = LazyPath::new(&base);
            let props = lazy.child("properties");
            let key = props.key("a.b");
            let items = key.child("items");
            let all_of = items.child("allOf");
            let first = all_of.index(0);
            let eager = base
                .child("properties")
                .key("a.b")
                .child("items")
                .child("allOf")
                .index(0);
            assert_eq!(first.path(), eager);
            assert_eq!(lazy.path(), base);
        }
    }
}
