//! A fast hasher for the compile pipeline's internal tables (node ids, overload ids, type
//! parameter names): the std `HashMap`'s SipHash, keyed per map against hash flooding, took
//! a quarter of a small expression's compile time. The keys hashed here are never chosen
//! by the input's author as bytes are: node ids are numbered by the parser, overload ids are
//! the library's, and type parameter names are the checker's (`_var0`, ...), so a cheap
//! multiplicative hash (the one rustc uses, `FxHasher`) is safe.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// rustc's `FxHasher`: each word is mixed in by a rotate, xor and multiply.
#[derive(Clone, Copy, Default)]
pub struct FastHasher {
    hash: u64,
}

const SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;

impl FastHasher {
    #[inline]
    fn add(&mut self, word: u64) {
        self.hash = (self.hash.rotate_left(5) ^ word).wrapping_mul(SEED);
    }
}

impl Hasher for FastHasher {
    /// Eight bytes a word, little-endian, the last word zero-padded. Written without
    /// `chunks_exact` and `copy_from_slice`, which opt-level "z" leaves as calls (a
    /// `memcpy` per word): overload ids and names are hashed at every call the planner sees.
    #[inline]
    fn write(&mut self, mut bytes: &[u8]) {
        while let [a, b, c, d, e, f, g, h, rest @ ..] = bytes {
            self.add(u64::from_le_bytes([*a, *b, *c, *d, *e, *f, *g, *h]));
            bytes = rest;
        }
        if !bytes.is_empty() {
            let mut w = 0u64;
            for (i, b) in bytes.iter().enumerate() {
                w |= u64::from(*b) << (8 * i);
            }
            self.add(w);
        }
    }
    #[inline]
    fn write_u8(&mut self, i: u8) {
        self.add(i as u64);
    }
    #[inline]
    fn write_u32(&mut self, i: u32) {
        self.add(i as u64);
    }
    #[inline]
    fn write_u64(&mut self, i: u64) {
        self.add(i);
    }
    #[inline]
    fn write_usize(&mut self, i: usize) {
        self.add(i as u64);
    }
    #[inline]
    fn finish(&self) -> u64 {
        self.hash
    }
}

/// The `BuildHasher` of [`FastMap`].
pub type FastState = BuildHasherDefault<FastHasher>;
/// A `HashMap` with [`FastHasher`] (make one with `FastMap::default()`).
pub type FastMap<K, V> = HashMap<K, V, FastState>;

/// A table keyed by expression node id. The parser numbers nodes densely from 1 (macro
/// expansions next), so the table is a vector indexed by id: no hashing, no probing, no
/// rehash as it grows, which at the npm module's opt-level "z" (nothing inlined) was a
/// large part of a small expression's compile. An id past [`IdMap::DENSE`] (never one of
/// the parser's: an expression that long is refused first) goes to a list searched in
/// order, so a stray large id cannot make the vector huge (a list, not a hash map: this
/// type is instantiated for many value types, and the npm module's size budget is tight).
#[derive(Clone, Debug)]
pub struct IdMap<T> {
    dense: Vec<Option<T>>,
    far: Vec<(u64, T)>,
}

impl<T> Default for IdMap<T> {
    fn default() -> Self {
        IdMap { dense: Vec::new(), far: Vec::new() }
    }
}

impl<T> IdMap<T> {
    /// Ids below this are slots of the vector.
    pub const DENSE: u64 = 1 << 20;

    pub fn get(&self, id: &u64) -> Option<&T> {
        if *id < Self::DENSE {
            self.dense.get(*id as usize).and_then(Option::as_ref)
        } else {
            self.far.iter().find(|(k, _)| k == id).map(|(_, v)| v)
        }
    }

    pub fn get_mut(&mut self, id: &u64) -> Option<&mut T> {
        if *id < Self::DENSE {
            self.dense.get_mut(*id as usize).and_then(Option::as_mut)
        } else {
            self.far.iter_mut().find(|(k, _)| k == id).map(|(_, v)| v)
        }
    }

    pub fn contains_key(&self, id: &u64) -> bool {
        self.get(id).is_some()
    }

    /// Sets the entry of `id`; the previous one, if any.
    pub fn insert(&mut self, id: u64, v: T) -> Option<T> {
        if id < Self::DENSE {
            let i = id as usize;
            if i >= self.dense.len() {
                // Grown to a power of two past the id: a parse numbers nodes upwards.
                self.dense.resize_with((i + 1).next_power_of_two().max(16), || None);
            }
            self.dense[i].replace(v)
        } else if let Some(slot) = self.get_mut(&id) {
            Some(std::mem::replace(slot, v))
        } else {
            self.far.push((id, v));
            None
        }
    }

    pub fn values_mut(&mut self) -> impl Iterator<Item = &mut T> {
        self.dense.iter_mut().filter_map(Option::as_mut).chain(self.far.iter_mut().map(|(_, v)| v))
    }
}

/// A set of node ids ([`IdMap`] of nothing).
pub type IdSet = IdMap<()>;

impl IdSet {
    /// Adds `id`; whether it was new.
    pub fn add(&mut self, id: u64) -> bool {
        self.insert(id, ()).is_none()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dense_ids_spread_and_strings_differ() {
        use std::hash::BuildHasher;
        let s = FastState::default();
        // Consecutive node ids land in distinct low buckets (hashbrown indexes by the low
        // bits) and distinct control bytes (the top 7 bits) often enough.
        let low: std::collections::HashSet<u64> = (1..=64u64).map(|i| s.hash_one(i) & 63).collect();
        assert!(low.len() == 64, "{}", low.len());
        assert_ne!(s.hash_one("_var1"), s.hash_one("_var2"));
        assert_ne!(s.hash_one("abcdefgh1"), s.hash_one("abcdefgh2"));
        let mut m: FastMap<u64, u64> = FastMap::default();
        for i in 0..10_000 {
            m.insert(i, i * 2);
        }
        assert_eq!(m.get(&4_321), Some(&8_642));
    }

    #[test]
    fn id_maps_hold_dense_and_far_ids_alike() {
        let mut m: IdMap<&str> = IdMap::default();
        assert!(m.get(&0).is_none());
        assert_eq!(m.insert(3, "a"), None);
        assert_eq!(m.insert(1, "b"), None);
        assert_eq!(m.insert(3, "c"), Some("a"));
        // Beyond the vector: the list, not a vector of that length.
        let far = IdMap::<&str>::DENSE + 5;
        assert_eq!(m.insert(far, "d"), None);
        assert_eq!(m.insert(u64::MAX, "e"), None);
        assert!(m.dense.len() < 64 && m.far.len() == 2, "{}", m.dense.len());
        assert_eq!(m.insert(far, "d"), Some("d"));
        assert_eq!(m.far.len(), 2);
        assert_eq!((m.get(&3), m.get(&far), m.get(&u64::MAX), m.get(&2)), (Some(&"c"), Some(&"d"), Some(&"e"), None));
        assert!(m.contains_key(&1) && !m.contains_key(&100));
        for v in m.values_mut() {
            *v = "z";
        }
        let all = [1, 3, far, u64::MAX].map(|id| m.get(&id).copied());
        assert_eq!(all, [Some("z"); 4]);
        *m.get_mut(&1).unwrap() = "y";
        assert_eq!(m.get(&1), Some(&"y"));
        let mut s = IdSet::default();
        assert!(s.add(7) && !s.add(7) && s.contains_key(&7) && !s.contains_key(&8));
    }
}
