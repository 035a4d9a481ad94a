//! go-yaml v2's bound on alias expansion ("billion laughs"), counted without expanding.
//!
//! go-yaml v2 (`decoder.unmarshal` in decode.go, as sigs.k8s.io/yaml vendors it) counts
//! every node it decodes (`decodeCount`) and every node decoded while under an alias
//! (`aliasCount`: the nodes of the anchored value, decoded again at each alias), and stops
//! with `document contains excessive aliasing` as soon as
//! `aliasCount > 100 && decodeCount > 1000 && aliasCount/decodeCount > allowedAliasRatio(decodeCount)`.
//! What it counts, per document: the document node, every key and value (scalars,
//! mappings, sequences, alias nodes), but not a merge key `<<`, nor the sequence of a
//! `<<: [*a, *b]` merge (only its items).
//!
//! Our reader does not re-decode an anchored value at each alias: it clones the value
//! built the first time. So each anchor keeps its *weight* (how many nodes go-yaml decodes
//! for it, nested aliases included), and an alias adds that weight to both counters in one
//! step, checked **before** the clone: a bomb is refused at no cost. Inside one expansion
//! both counters grow together, so the ratio only rises while the allowed ratio only
//! falls: if go-yaml fails anywhere inside an expansion it fails at its end, and checking
//! there is exact. Outside expansions the check runs at every node, as go-yaml's does.
//!
//! Go shares a string between every alias of it, a clone does not; but the reader stops
//! building (and cloning) once a document's JSON passes the 3 MiB request body limit
//! (`text::yaml`), so expansions cannot grow memory past what a request holds.

/// The text go-yaml fails with (`failf`, hence `yaml: `).
pub(crate) const EXCESSIVE_ALIASING: &str = "yaml: document contains excessive aliasing";

/// `alias_ratio_range_low`: up to 400,000 decodes, 99 % may come from aliases.
const RATIO_RANGE_LOW: u64 = 400_000;
/// `alias_ratio_range_high`: from 4,000,000 decodes, 10 %.
const RATIO_RANGE_HIGH: u64 = 4_000_000;

/// go-yaml's `allowedAliasRatio`, with the same float operations in the same order.
pub(crate) fn allowed_alias_ratio(decode_count: u64) -> f64 {
    if decode_count <= RATIO_RANGE_LOW {
        0.99
    } else if decode_count >= RATIO_RANGE_HIGH {
        0.10
    } else {
        let range = (RATIO_RANGE_HIGH - RATIO_RANGE_LOW) as f64;
        0.99 - 0.89 * ((decode_count - RATIO_RANGE_LOW) as f64 / range)
    }
}

/// go-yaml's test in `decoder.unmarshal`.
pub(crate) fn excessive(alias_count: u64, decode_count: u64) -> bool {
    alias_count > 100
        && decode_count > 1000
        && alias_count as f64 / decode_count as f64 > allowed_alias_ratio(decode_count)
}

/// go-yaml's ratio rule stopped the document.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Excess;

impl Excess {
    pub(crate) fn message(self) -> String {
        EXCESSIVE_ALIASING.to_string()
    }
}

/// The counters of one document.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct AliasCounter {
    /// go-yaml's `decodeCount`.
    pub(crate) decode: u64,
    /// go-yaml's `aliasCount`.
    pub(crate) alias: u64,
}

impl AliasCounter {
    /// One node decoded outside any alias.
    pub(crate) fn node(&mut self) -> Result<(), Excess> {
        self.decode += 1;
        if excessive(self.alias, self.decode) {
            return Err(Excess);
        }
        Ok(())
    }

    /// An alias node (decoded outside aliases), then its anchored value decoded again:
    /// `weight` nodes, all under the alias.
    pub(crate) fn expand(&mut self, weight: u64) -> Result<(), Excess> {
        self.node()?;
        self.decode += weight;
        self.alias += weight;
        if excessive(self.alias, self.decode) {
            return Err(Excess);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ratio_follows_go_yaml() {
        assert_eq!(allowed_alias_ratio(0), 0.99);
        assert_eq!(allowed_alias_ratio(400_000), 0.99);
        assert_eq!(allowed_alias_ratio(4_000_000), 0.10);
        assert_eq!(allowed_alias_ratio(9_000_000), 0.10);
        let mid = allowed_alias_ratio(2_200_000);
        assert!((mid - 0.545).abs() < 1e-12, "{}", mid);
    }

    #[test]
    fn thresholds_are_strict() {
        // Both floors are strict (> 100, > 1000) and the ratio too.
        assert!(!excessive(100, 100_000));
        assert!(!excessive(990, 1000));
        assert!(excessive(991, 1001));
        assert!(!excessive(990, 1001));
    }

    #[test]
    fn expansion_is_checked_before_cloning() {
        let mut c = AliasCounter::default();
        c.node().unwrap(); // the document
        c.node().unwrap(); // a sequence
        assert_eq!(c.expand(5000), Err(Excess));
    }
}
