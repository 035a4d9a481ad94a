//! Subtrees a walk of the CRD checks found nothing wrong with, kept between compiles.
//!
//! The checks of a CRD walk every node of every version's schema (thousands in a large
//! CRD), and on a valid CRD report on none of them. An edit changes a few nodes; the
//! compile after it shares every other node with the compile before
//! ([`crate::crd::schema_decode`]), fingerprints included. A walk that finds a subtree it
//! already found clean, reached the same way in the same context, skips it: only the nodes
//! on the way to an edit are walked again. Only clean subtrees are kept, so what a walk
//! reports is always what it found in this compile.

use super::fingerprint::{FastMap, Hasher128};
use super::lazy_path::LazyPath;
use crate::crd::model::JsonSchemaProps;
use std::hash::Hasher;

/// Keys kept at most; past it the set starts again (a compile then walks everything once).
const MAX_CLEAN: usize = 1 << 18;

/// The walks that consult the set (part of every key).
#[derive(Clone, Copy)]
pub(crate) enum Walk {
    OpenApi = 1,
    Defaults = 2,
    Structural = 3,
}

/// The set with the context of one schema's checks, as its walks hold it
/// ([`crate::schema::cel::compile::RuleCompiler::take_clean`]); `None` when no compile keeps
/// it.
pub(crate) type Memo = Option<(Clean, u128)>;

/// The key of `node` for `walk` in `memo`'s context ([`Clean::key`]); `None` without one.
pub(crate) fn key_in(memo: &Memo, walk: Walk, node: &JsonSchemaProps, at: &LazyPath<'_>, state: impl FnOnce(&mut Hasher128)) -> Option<u128> {
    let (_, context) = memo.as_ref()?;
    Clean::key(walk, *context, node, at, state)
}

/// Whether the subtree of `key` was found clean before: the walk skips it.
pub(crate) fn found_clean(memo: &Memo, key: Option<u128>) -> bool {
    matches!((memo, key), (Some((set, _)), Some(k)) if set.contains(k))
}

/// Keeps the subtree of `key` as clean, when the walk found nothing in it.
pub(crate) fn keep_if_clean(memo: &mut Memo, key: Option<u128>, clean: bool) {
    if let (Some((set, _)), Some(k), true) = (memo.as_mut(), key, clean) {
        set.insert(k);
    }
}

/// The set of clean subtrees, by [`Clean::key`].
#[derive(Default)]
pub(crate) struct Clean {
    keys: FastMap<u128, ()>,
}

impl Clean {
    /// The key of `node` reached at `at` by `walk`: its fingerprint (everything below it but
    /// descriptions, which no check reads), the way it was reached, the walk's `context`
    /// (what else its findings depend on: the release, the CEL environments) and the
    /// walk's own state at the node (`state`). `None` when the node has no fingerprint
    /// yet (a schema the compile did not fingerprint).
    pub(crate) fn key(walk: Walk, context: u128, node: &JsonSchemaProps, at: &LazyPath<'_>, state: impl FnOnce(&mut Hasher128)) -> Option<u128> {
        let (fingerprint, _) = node.fingerprints.get()?;
        let mut h = Hasher128::new();
        h.write_u8(walk as u8);
        h.write_u128(context);
        h.write_u128(fingerprint);
        at.hash_into(&mut h);
        state(&mut h);
        Some(h.finish128())
    }

    pub(crate) fn contains(&self, key: u128) -> bool {
        self.keys.contains_key(&key)
    }

    pub(crate) fn insert(&mut self, key: u128) {
        if self.keys.len() >= MAX_CLEAN {
            self.keys.clear();
        }
        self.keys.insert(key, ());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::field::Path;
    use crate::schema::fingerprint::SchemaFingerprints;

    #[test]
    fn a_key_holds_the_node_the_way_and_the_state() {
        let node: JsonSchemaProps = serde_json::from_value(serde_json::json!({"type": "string", "maxLength": 3})).unwrap();
        let base = Path::new("spec");
        let at = LazyPath::new(&base);
        let a = at.child("properties");
        let here = a.key("a");
        // Not fingerprinted yet: no key (the walk then walks it).
        assert_eq!(Clean::key(Walk::OpenApi, 1, &node, &here, |_| {}), None);
        SchemaFingerprints::new().of(&node);
        let key = |walk, context, at: &LazyPath<'_>, state: u8| Clean::key(walk, context, &node, at, |h| h.write_u8(state)).unwrap();
        let k = key(Walk::OpenApi, 1, &here, 0);
        assert_eq!(k, key(Walk::OpenApi, 1, &here, 0));
        let there = a.key("b");
        for other in [key(Walk::Defaults, 1, &here, 0), key(Walk::OpenApi, 2, &here, 0), key(Walk::OpenApi, 1, &there, 0), key(Walk::OpenApi, 1, &here, 1)] {
            assert_ne!(k, other);
        }
        let changed: JsonSchemaProps = serde_json::from_value(serde_json::json!({"type": "string", "maxLength": 4})).unwrap();
        SchemaFingerprints::new().of(&changed);
        assert_ne!(Some(k), Clean::key(Walk::OpenApi, 1, &changed, &here, |h| h.write_u8(0)));
        let mut set = Clean::default();
        assert!(!set.contains(k));
        set.insert(k);
        assert!(set.contains(k));
    }
}
