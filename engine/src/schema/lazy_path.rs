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
    /// A hash of the base and the steps, made as the steps are ([`LazyPath::hash_into`]).
    hash: u64,
}

/// One step into a path's hash (a multiply-rotate mix: two paths of different steps share
/// a hash with probability ~2^-64).
fn mix(h: u64, tag: u64, bytes: &[u8]) -> u64 {
    const K: u64 = 0x9e37_79b9_7f4a_7c15;
    let word = |h: u64, w: u64| (h.rotate_left(23) ^ w).wrapping_mul(K);
    let mut h = word(h, tag ^ (bytes.len() as u64) << 8);
    let mut chunks = bytes.chunks_exact(8);
    for c in &mut chunks {
        h = word(h, u64::from_le_bytes(c.try_into().expect("8 bytes")));
    }
    let mut last = [0u8; 8];
    last[..chunks.remainder().len()].copy_from_slice(chunks.remainder());
    word(h, u64::from_le_bytes(last))
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
            hash: mix(0, 0, base.as_str().as_bytes()),
        }
    }

    /// [`Path::child`].
    pub fn child(&'a self, name: &'a str) -> LazyPath<'a> {
        LazyPath {
            parent: Some(self),
            step: Step::Child(name),
            hash: mix(self.hash, 1, name.as_bytes()),
        }
    }

    /// [`Path::key`].
    pub fn key(&'a self, key: &'a str) -> LazyPath<'a> {
        LazyPath {
            parent: Some(self),
            step: Step::Key(key),
            hash: mix(self.hash, 2, key.as_bytes()),
        }
    }

    /// [`Path::index`].
    pub fn index(&'a self, i: usize) -> LazyPath<'a> {
        LazyPath {
            parent: Some(self),
            step: Step::Index(i),
            hash: mix(self.hash, 3, &i.to_le_bytes()),
        }
    }

    /// Hashes the base and the steps (kept as they were made: a walk that reaches a node
    /// the same way again finds the same hash).
    pub fn hash_into(&self, h: &mut impl std::hash::Hasher) {
        h.write_u64(self.hash);
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
    fn the_same_steps_hash_alike() {
        let hash = |p: &LazyPath<'_>| {
            let mut h = crate::schema::fingerprint::Hasher128::new();
            p.hash_into(&mut h);
            h.finish128()
        };
        let base = Path::new("spec");
        let (a, b) = (LazyPath::new(&base), LazyPath::new(&base));
        let (pa, pb) = (a.child("properties"), b.child("properties"));
        assert_eq!(hash(&pa.key("x")), hash(&pb.key("x")));
        assert_ne!(hash(&pa.key("x")), hash(&pa.key("y")));
        assert_ne!(hash(&pa.key("x")), hash(&pa.child("x")));
        assert_ne!(hash(&a.index(1)), hash(&a.index(2)));
        let other = Path::new("status");
        assert_ne!(hash(&LazyPath::new(&other)), hash(&a));
    }

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
