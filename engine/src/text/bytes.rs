//! Comparisons of long texts: a CRD text is megabytes, and the playground compares it with
//! the last one on every keystroke (is it the same text, and where does it differ).
//!
//! Natively `==` on byte slices is libc's vectorised `memcmp`. In wasm32 it is a call to
//! compiler-builtins' `memcmp`, which compares one byte at a time: about 4 ms for the 2.9 MB
//! postgres-operator CRD in V8, more than the rest of an object edit's analysis. There the
//! bytes are compared eight at a time.
//!
//! [`digest`] names a long text for a cache whose hits compare the texts anyway.

/// Whether `a` and `b` hold the same bytes.
#[inline]
pub fn same(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    if cfg!(target_arch = "wasm32") {
        a.as_ptr() == b.as_ptr() || common_prefix_by_words(a, b) == a.len()
    } else {
        a == b
    }
}

/// How many bytes `a` and `b` start with alike.
pub fn common_prefix(a: &[u8], b: &[u8]) -> usize {
    if cfg!(target_arch = "wasm32") {
        return common_prefix_by_words(a, b);
    }
    // Blocks compared whole first (memcmp: 4 KiB ones, a call each, then 64-byte ones), then
    // the bytes of the first block that differs.
    const BIG: usize = 4096;
    const BLOCK: usize = 64;
    let n = a.len().min(b.len());
    let mut i = 0;
    while i + BIG <= n && a[i..i + BIG] == b[i..i + BIG] {
        i += BIG;
    }
    while i + BLOCK <= n && a[i..i + BLOCK] == b[i..i + BLOCK] {
        i += BLOCK;
    }
    while i < n && a[i] == b[i] {
        i += 1;
    }
    i
}

/// How many bytes `a` and `b` end with alike.
pub fn common_suffix(a: &[u8], b: &[u8]) -> usize {
    if cfg!(target_arch = "wasm32") {
        return common_suffix_by_words(a, b);
    }
    const BIG: usize = 4096;
    const BLOCK: usize = 64;
    let n = a.len().min(b.len());
    let (ea, eb) = (a.len(), b.len());
    let mut i = 0;
    while i + BIG <= n && a[ea - i - BIG..ea - i] == b[eb - i - BIG..eb - i] {
        i += BIG;
    }
    while i + BLOCK <= n && a[ea - i - BLOCK..ea - i] == b[eb - i - BLOCK..eb - i] {
        i += BLOCK;
    }
    while i < n && a[ea - i - 1] == b[eb - i - 1] {
        i += 1;
    }
    i
}

/// A 64-bit digest of `bytes`, for looking up a cache entry whose text is then compared
/// with [`same`]: a collision costs a miss, never a wrong answer, so speed comes first.
/// Four independent lanes, each word mixed in by one 64-bit multiply (which wasm32 has),
/// the lanes and the tail finished as xxHash64 finishes; a 128-bit fingerprint of the 2.9 MB
/// postgres-operator CRD took two 64×64→128-bit multiplies per 8 bytes, eight 32-bit ones in
/// wasm32: milliseconds per keystroke in the playground.
pub fn digest(bytes: &[u8]) -> u64 {
    const P1: u64 = 0x9E37_79B1_85EB_CA87;
    const P2: u64 = 0xC2B2_AE3D_27D4_EB4F;
    const P3: u64 = 0x1656_67B1_9E37_79F9;
    #[inline(always)]
    fn round(acc: u64, w: u64) -> u64 {
        (acc ^ w).wrapping_mul(P1).rotate_left(29)
    }
    let mut lanes = [P1.wrapping_add(P2), P2, 0, 0u64.wrapping_sub(P1)];
    let (blocks, rest) = bytes.as_chunks::<32>();
    for b in blocks {
        for (i, lane) in lanes.iter_mut().enumerate() {
            let mut w = [0u8; 8];
            w.copy_from_slice(&b[i * 8..i * 8 + 8]);
            *lane = round(*lane, u64::from_le_bytes(w));
        }
    }
    let mut h = lanes[0].rotate_left(1) ^ lanes[1].rotate_left(7) ^ lanes[2].rotate_left(12) ^ lanes[3].rotate_left(18);
    h = h.wrapping_add(bytes.len() as u64);
    let (words, tail) = rest.as_chunks::<8>();
    for w in words {
        h = (h ^ round(0, u64::from_le_bytes(*w))).rotate_left(27).wrapping_mul(P1).wrapping_add(P3);
    }
    for &b in tail {
        h = (h ^ (b as u64).wrapping_mul(P3)).rotate_left(11).wrapping_mul(P1);
    }
    // xxHash64's avalanche.
    h ^= h >> 33;
    h = h.wrapping_mul(P2);
    h ^= h >> 29;
    h = h.wrapping_mul(P3);
    h ^ (h >> 32)
}

/// A digest of a cache key's text that reads all of a short text, but of a long one only its
/// length, its first and last [`WHOLE_EDGE`] bytes and one 32-byte block in every
/// [`SAMPLE_STRIDE`]: a key is compared with [`same`] on a hit, so a collision costs no
/// wrong answer, and an engine keeps at most one compile of a text this long (its source
/// bound), so the collisions of two such texts cost nothing the bound does not. Reading all
/// of the 2.9 MB postgres-operator CRD was a tenth of a playground CRD edit.
pub fn key_digest(bytes: &[u8]) -> u64 {
    if bytes.len() <= 4 * WHOLE_EDGE {
        return digest(bytes);
    }
    let (head, rest) = bytes.split_at(WHOLE_EDGE);
    let (middle, tail) = rest.split_at(rest.len() - WHOLE_EDGE);
    let mut h = digest(head) ^ digest(tail).rotate_left(21) ^ (bytes.len() as u64).wrapping_mul(0x9E37_79B1_85EB_CA87);
    for block in middle.chunks(SAMPLE_STRIDE) {
        h = (h ^ digest(&block[..block.len().min(32)])).rotate_left(17).wrapping_mul(0xC2B2_AE3D_27D4_EB4F);
    }
    h ^ (h >> 29)
}

/// The bytes at each end of a long text that [`key_digest`] reads whole.
const WHOLE_EDGE: usize = 16 << 10;
/// [`key_digest`] reads one 32-byte block in each of these.
const SAMPLE_STRIDE: usize = 1 << 10;

/// Whether two 32-byte blocks differ: four words compared with one branch (a branch per
/// word made the comparison of a 2.9 MB text loop-bound in wasm32).
#[inline(always)]
fn blocks_differ(x: &[u8; 32], y: &[u8; 32]) -> bool {
    let w = |b: &[u8; 32], i: usize| {
        let mut v = [0u8; 8];
        v.copy_from_slice(&b[i * 8..i * 8 + 8]);
        u64::from_ne_bytes(v)
    };
    ((w(x, 0) ^ w(y, 0)) | (w(x, 1) ^ w(y, 1)) | (w(x, 2) ^ w(y, 2)) | (w(x, 3) ^ w(y, 3))) != 0
}

/// The word-at-a-time [`common_prefix`] (what wasm32 runs; tested natively): 32-byte blocks,
/// then the words and bytes of the first block that differs.
fn common_prefix_by_words(a: &[u8], b: &[u8]) -> usize {
    let n = a.len().min(b.len());
    let (ba, _) = a[..n].as_chunks::<32>();
    let (bb, _) = b[..n].as_chunks::<32>();
    let mut i = 0;
    for (x, y) in ba.iter().zip(bb) {
        if blocks_differ(x, y) {
            break;
        }
        i += 32;
    }
    let (wa, _) = a[i..n].as_chunks::<8>();
    let (wb, _) = b[i..n].as_chunks::<8>();
    for (x, y) in wa.iter().zip(wb) {
        if u64::from_ne_bytes(*x) != u64::from_ne_bytes(*y) {
            break;
        }
        i += 8;
    }
    while i < n && a[i] == b[i] {
        i += 1;
    }
    i
}

/// The word-at-a-time [`common_suffix`].
fn common_suffix_by_words(a: &[u8], b: &[u8]) -> usize {
    let n = a.len().min(b.len());
    let (ta, tb) = (&a[a.len() - n..], &b[b.len() - n..]);
    let (_, ba) = ta.as_rchunks::<32>();
    let (_, bb) = tb.as_rchunks::<32>();
    let mut i = 0;
    for (x, y) in ba.iter().rev().zip(bb.iter().rev()) {
        if blocks_differ(x, y) {
            break;
        }
        i += 32;
    }
    let (_, wa) = ta[..n - i].as_rchunks::<8>();
    let (_, wb) = tb[..n - i].as_rchunks::<8>();
    for (x, y) in wa.iter().rev().zip(wb.iter().rev()) {
        if u64::from_ne_bytes(*x) != u64::from_ne_bytes(*y) {
            break;
        }
        i += 8;
    }
    while i < n && ta[n - i - 1] == tb[n - i - 1] {
        i += 1;
    }
    i
}

#[cfg(test)]
mod tests {
    use super::*;

    fn naive_prefix(a: &[u8], b: &[u8]) -> usize {
        a.iter().zip(b).take_while(|(x, y)| x == y).count()
    }

    fn naive_suffix(a: &[u8], b: &[u8]) -> usize {
        a.iter().rev().zip(b.iter().rev()).take_while(|(x, y)| x == y).count()
    }

    #[test]
    fn digests_tell_one_byte_edits_apart() {
        // Every text of up to 300 bytes against its one-byte edits, one byte shorter and
        // longer: no two digests alike (a miss would still be right, but this is the case
        // the playground has: one keystroke apart).
        let base: Vec<u8> = (0..300u32).map(|i| (i * 7 % 251) as u8).collect();
        for len in [0, 1, 7, 8, 31, 32, 33, 64, 95, 200, 300] {
            let a = &base[..len];
            let mut seen = std::collections::HashSet::new();
            assert!(seen.insert(digest(a)));
            assert_eq!(digest(a), digest(&a.to_vec()), "a digest depends on the bytes alone");
            for at in 0..len {
                for flip in [1u8, 0x80] {
                    let mut b = a.to_vec();
                    b[at] ^= flip;
                    assert!(seen.insert(digest(&b)), "len {len}, byte {at} ^ {flip}");
                }
            }
            assert!(seen.insert(digest(&[a, b"x".as_slice()].concat())));
            assert!(seen.insert(digest(&[a, b"\0".as_slice()].concat())));
        }
    }

    #[test]
    fn key_digests_read_short_texts_whole_and_long_ones_in_samples() {
        let short = vec![b'a'; 4 * WHOLE_EDGE];
        assert_eq!(key_digest(&short), digest(&short));
        let long: Vec<u8> = (0..300_000u32).map(|i| (i % 251) as u8).collect();
        let d = key_digest(&long);
        assert_eq!(d, key_digest(&long.clone()), "a digest depends on the bytes alone");
        // A byte changed at either end or in a sampled block, and a byte more or less
        // anywhere, changes it.
        let mid = WHOLE_EDGE + 7 * SAMPLE_STRIDE + 5;
        for at in [0, WHOLE_EDGE - 1, mid, long.len() - WHOLE_EDGE, long.len() - 1] {
            let mut b = long.clone();
            b[at] ^= 1;
            assert_ne!(key_digest(&b), d, "byte {at}");
        }
        for at in [0, mid + 100, long.len()] {
            let mut b = long.clone();
            b.insert(at, b'x');
            assert_ne!(key_digest(&b), d, "insert at {at}");
        }
        // A byte outside every sample is not read: the same digest (the key's text tells them apart).
        let mut b = long.clone();
        b[WHOLE_EDGE + 7 * SAMPLE_STRIDE + 100] ^= 1;
        assert_eq!(key_digest(&b), d);
    }

    #[test]
    fn both_ways_agree_with_a_byte_loop() {
        let base: Vec<u8> = (0..9000u32).map(|i| (i * 7 % 251) as u8).collect();
        for len in [0, 1, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 200, 300, 4095, 4096, 4097, 8193, 9000] {
            let a = &base[..len];
            // Every byte of the short texts; of the long ones, those about the block edges.
            let ats: Vec<usize> = (0..len)
                .filter(|&at| len <= 300 || [0, 31, 32, 63, 64, 4095, 4096].iter().any(|&e| at.abs_diff(e) <= 2 || at.abs_diff(len - e.min(len)) <= 2))
                .collect();
            for at in ats {
                let mut b = a.to_vec();
                b[at] ^= 0x5a;
                for b in [b.clone(), [b.as_slice(), b"tail"].concat(), [b"head".as_slice(), &b].concat()] {
                    for (p, s) in [(common_prefix(a, &b), common_suffix(a, &b)), (common_prefix_by_words(a, &b), common_suffix_by_words(a, &b))] {
                        assert_eq!(p, naive_prefix(a, &b), "prefix, len {len}, at {at}");
                        assert_eq!(s, naive_suffix(a, &b), "suffix, len {len}, at {at}");
                    }
                    assert_eq!(same(a, &b), a == b.as_slice());
                }
            }
            assert!(same(a, &a.to_vec()));
            assert_eq!(common_prefix_by_words(a, a), len);
            assert_eq!(common_suffix_by_words(a, a), len);
        }
    }
}
