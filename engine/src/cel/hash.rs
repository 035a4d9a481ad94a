//! A fast hasher for the compile pipeline's internal tables (node ids, overload ids, type
//! parameter names): the std `HashMap`'s SipHash, keyed per map against hash flooding, took
//! a quarter of a small expression's compile time. The keys hashed here are never chosen
//! by the input's author as bytes are: node ids are numbered by the parser, overload ids are
//! the library's, and type parameter names are the checker's (`_var0`, ...), so a cheap
//! multiplicative hash (the one rustc uses, `FxHasher`) is safe.

use std::collections::{HashMap, HashSet};
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
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            let mut w = [0u8; 8];
            w.copy_from_slice(c);
            self.add(u64::from_le_bytes(w));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut w = [0u8; 8];
            w[..rest.len()].copy_from_slice(rest);
            self.add(u64::from_le_bytes(w));
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

/// The `BuildHasher` of [`FastMap`] and [`FastSet`].
pub type FastState = BuildHasherDefault<FastHasher>;
/// A `HashMap` with [`FastHasher`] (make one with `FastMap::default()`).
pub type FastMap<K, V> = HashMap<K, V, FastState>;
/// A `HashSet` with [`FastHasher`].
pub type FastSet<K> = HashSet<K, FastState>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dense_ids_spread_and_strings_differ() {
        use std::hash::BuildHasher;
        let s = FastState::default();
        // Consecutive node ids land in distinct low buckets (hashbrown indexes by the low
        // bits) and distinct control bytes (the top 7 bits) often enough.
        let low: FastSet<u64> = (1..=64u64).map(|i| s.hash_one(i) & 63).collect();
        assert!(low.len() == 64, "{}", low.len());
        assert_ne!(s.hash_one("_var1"), s.hash_one("_var2"));
        assert_ne!(s.hash_one("abcdefgh1"), s.hash_one("abcdefgh2"));
        let mut m: FastMap<u64, u64> = FastMap::default();
        for i in 0..10_000 {
            m.insert(i, i * 2);
        }
        assert_eq!(m.get(&4_321), Some(&8_642));
    }
}
