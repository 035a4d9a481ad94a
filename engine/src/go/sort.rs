//! Go's `sort.SliceStable`: one sort for every element type, ordering a permutation of
//! indices with a comparison by index, then moving the elements once.
//!
//! Why not `slice::sort_by` everywhere: the standard library's sorts are generic over the
//! element and the comparison, so each call site with its own closure gets its own copy of
//! the whole sort (quicksort, drift merge, small-sort networks: 3–5 KB of wasm each, about
//! 95 KB for the engine's call sites). In wasm, where the npm package's size budget binds,
//! every call here shares the single copy behind [`permutation`]. Natively, where speed
//! matters and size does not, the standard library's sort runs. Both are stable sorts, so
//! the order they leave is the same.

use std::cmp::Ordering;

/// Sorts `v` stably by `cmp`.
pub(crate) fn sort_by<T>(v: &mut [T], mut cmp: impl FnMut(&T, &T) -> Ordering) {
    if cfg!(target_arch = "wasm32") {
        let perm = permutation(v.len(), &mut |a, b| cmp(&v[a], &v[b]));
        apply(v, perm);
    } else {
        v.sort_by(cmp);
    }
}

/// Sorts `v` stably in its natural order.
pub(crate) fn sort<T: Ord>(v: &mut [T]) {
    sort_by(v, T::cmp)
}

/// Sorts `v` stably by the key `key` extracts.
pub(crate) fn sort_by_key<T, K: Ord>(v: &mut [T], mut key: impl FnMut(&T) -> K) {
    sort_by(v, |a, b| key(a).cmp(&key(b)))
}

/// The indices `0..n` in the order `cmp` (comparing elements by index) sorts them,
/// stably. Not generic, so one copy of the standard sort serves every element type.
#[inline(never)]
fn permutation(n: usize, cmp: &mut dyn FnMut(usize, usize) -> Ordering) -> Vec<usize> {
    let mut idx: Vec<usize> = (0..n).collect();
    idx.sort_by(|&a, &b| cmp(a, b));
    idx
}

/// Rearranges `v` so that its element `i` is the old element `perm[i]`, following each
/// cycle of the permutation with swaps (each element moves once; `perm` is used up as the
/// visited marks).
fn apply<T>(v: &mut [T], mut perm: Vec<usize>) {
    const DONE: usize = usize::MAX;
    for start in 0..perm.len() {
        let mut cur = start;
        // Position `cur` takes the old element `perm[cur]`; the element that was at `cur`
        // (the old `v[start]`) travels along the cycle until the position that wants it.
        while perm[cur] != DONE {
            let next = perm[cur];
            perm[cur] = DONE;
            if next == start {
                break;
            }
            v.swap(cur, next);
            cur = next;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The wasm path (permutation, then apply) leaves what the standard stable sort leaves,
    /// equal elements included, on lengths 0–40 of pseudo-random data with many ties.
    #[test]
    fn permutation_path_equals_the_standard_stable_sort() {
        let mut next = crate::testing::xorshift(0x2545_f491_4f6c_dd1d);
        for len in 0..=40 {
            for _ in 0..20 {
                let v: Vec<(u8, usize)> = (0..len).map(|i| (next(5) as u8, i)).collect();
                let mut want = v.clone();
                want.sort_by(|a, b| a.0.cmp(&b.0));
                let mut got = v.clone();
                let perm = permutation(got.len(), &mut |a, b| v[a].0.cmp(&v[b].0));
                apply(&mut got, perm);
                assert_eq!(got, want, "len {len}");
            }
        }
    }

    #[test]
    fn helpers_sort_as_the_standard_library() {
        let mut v = vec!["b", "a", "c", "a"];
        sort(&mut v);
        assert_eq!(v, ["a", "a", "b", "c"]);
        let mut w = vec![(2, 'x'), (1, 'y'), (2, 'a'), (1, 'b')];
        sort_by_key(&mut w, |p| p.0);
        assert_eq!(w, [(1, 'y'), (1, 'b'), (2, 'x'), (2, 'a')]);
        sort_by(&mut w, |a, b| b.1.cmp(&a.1));
        assert_eq!(w, [(1, 'y'), (2, 'x'), (1, 'b'), (2, 'a')]);
    }
}
