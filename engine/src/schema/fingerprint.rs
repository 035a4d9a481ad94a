//! Content identity of schemas, for the compile caches: 128-bit fingerprints of schema
//! subtrees (what a cached rule or version result was computed from) and the exact
//! comparison the CRD checks use to tell whether every version has the same schema.
//!
//! Both walk every field of [`JsonSchemaProps`] through an exhaustive destructuring, so a
//! field added to the model fails to compile here until it is taken into account: a cache
//! key that silently ignored a new field would give stale answers after an edit.

use crate::crd::model::{
    JsonSchemaProps, SchemaOrArray, SchemaOrBool, SchemaOrStringArray, ValidationRule,
};
use serde_json::Value;
use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::sync::atomic::{AtomicU64, Ordering};

/// Deeper than this a schema is not walked; such a node gets a fingerprint of its own that
/// nothing else shares (it is never found in a cache, which stays correct).
const MAX_DEPTH: usize = 1_000;

/// A 128-bit content hash for cache keys: two 64-bit lanes, each word mixed in by a
/// folded 64×64→128-bit multiply (as wyhash does), finished with an avalanche. Not meant
/// to resist crafted collisions (nothing is gained by crafting one: a CRD author would only
/// get a wrong answer for their own CRD); two different inputs share a key with probability
/// ~2^-128. Also a fast `Hasher` for the caches' maps.
#[derive(Clone)]
pub struct Hasher128 {
    a: u64,
    b: u64,
}

impl Default for Hasher128 {
    fn default() -> Self {
        Self::new()
    }
}

const K1: u64 = 0xa076_1d64_78bd_642f;
const K2: u64 = 0xe703_7ed1_a0b4_28db;
const K3: u64 = 0x8ebc_6af0_9c88_c6e3;
const K4: u64 = 0x5899_65cc_7537_4cc3;

#[inline]
fn fold(x: u64, y: u64) -> u64 {
    let (lo, hi) = wide_mul(x, y);
    lo ^ hi
}

/// The 128-bit product of `x` and `y` as (low, high) halves.
#[cfg(not(target_arch = "wasm32"))]
#[inline]
fn wide_mul(x: u64, y: u64) -> (u64, u64) {
    let p = (x as u128).wrapping_mul(y as u128);
    (p as u64, (p >> 64) as u64)
}

/// wasm32 has no 128-bit multiply: the `u128` one becomes a call to the general `__multi3`,
/// which was about 5 % of a CRD re-compile in the playground.
#[cfg(target_arch = "wasm32")]
#[inline]
fn wide_mul(x: u64, y: u64) -> (u64, u64) {
    wide_mul_halves(x, y)
}

/// The same product from four 32×32→64-bit multiplies (same values as the `u128` one, so
/// fingerprints do not depend on the target; a test compares the two).
#[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
#[inline]
fn wide_mul_halves(x: u64, y: u64) -> (u64, u64) {
    let (x0, x1) = (x & 0xffff_ffff, x >> 32);
    let (y0, y1) = (y & 0xffff_ffff, y >> 32);
    let p00 = x0 * y0;
    let p01 = x0 * y1;
    let p10 = x1 * y0;
    let p11 = x1 * y1;
    let mid = (p00 >> 32) + (p01 & 0xffff_ffff) + (p10 & 0xffff_ffff);
    let lo = (p00 & 0xffff_ffff) | (mid << 32);
    let hi = p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32);
    (lo, hi)
}

impl Hasher128 {
    pub fn new() -> Hasher128 {
        Hasher128 {
            a: 0x243f_6a88_85a3_08d3,
            b: 0x1319_8a2e_0370_7344,
        }
    }

    #[inline]
    fn word(&mut self, w: u64) {
        self.a = fold(self.a ^ w, K1);
        self.b = fold(self.b ^ w.rotate_left(32), K2).wrapping_add(w);
    }

    pub fn finish128(&self) -> u128 {
        let a = fold(self.a ^ K3, self.b ^ K4);
        let b = fold(self.b ^ K1, self.a.rotate_left(17) ^ K2);
        ((a as u128) << 64) | b as u128
    }
}

impl Hasher for Hasher128 {
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            let mut w = [0u8; 8];
            w.copy_from_slice(c);
            self.word(u64::from_le_bytes(w));
        }
        let rest = chunks.remainder();
        let mut w = [0u8; 8];
        w[..rest.len()].copy_from_slice(rest);
        // The tail's length in the top byte tells `ab` from `ab\0`.
        w[7] = 0x80 | rest.len() as u8;
        self.word(u64::from_le_bytes(w));
    }
    fn write_u8(&mut self, i: u8) {
        self.word(i as u64);
    }
    fn write_u16(&mut self, i: u16) {
        self.word(i as u64);
    }
    fn write_u32(&mut self, i: u32) {
        self.word(i as u64);
    }
    fn write_u64(&mut self, i: u64) {
        self.word(i);
    }
    fn write_u128(&mut self, i: u128) {
        self.word(i as u64);
        self.word((i >> 64) as u64);
    }
    fn write_usize(&mut self, i: usize) {
        self.word(i as u64);
    }
    fn finish(&self) -> u64 {
        let f = self.finish128();
        (f as u64) ^ ((f >> 64) as u64)
    }
}

/// A `HashMap` hashed with [`Hasher128`] (keys are addresses, fingerprints, small keys).
pub type FastMap<K, V> = HashMap<K, V, std::hash::BuildHasherDefault<Hasher128>>;

/// A map keyed by a node's address (memos valid while the nodes live). Hashed by one folded
/// multiply ([`AddrHasher`]): [`Hasher128`] costs two wide multiplies a word and two more to
/// finish, as much as the work it memoizes; a plain multiplicative hash (`FxHasher`) leaves
/// the low bits of an aligned address zero, and the table probes long runs.
pub type AddrMap<V> = HashMap<usize, V, std::hash::BuildHasherDefault<AddrHasher>>;

#[derive(Default)]
pub struct AddrHasher(u64);

impl Hasher for AddrHasher {
    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.write_u64(*b as u64);
        }
    }
    #[inline]
    fn write_u64(&mut self, i: u64) {
        self.0 = fold(self.0 ^ i, K1);
    }
    #[inline]
    fn write_usize(&mut self, i: usize) {
        self.write_u64(i as u64);
    }
    #[inline]
    fn finish(&self) -> u64 {
        self.0
    }
}

/// A fingerprint no other node has (for nodes too deep to walk).
fn unique() -> u128 {
    static NEXT: AtomicU64 = AtomicU64::new(1);
    (u128::MAX << 64) | NEXT.fetch_add(1, Ordering::Relaxed) as u128
}

/// Hashes a JSON value; numbers keep their JSON kind (`1` and `1.0` differ, as they do in
/// the model and in printed values).
pub fn hash_value(v: &Value, h: &mut impl Hasher) {
    hash_value_at(v, h, 0)
}

fn hash_value_at(v: &Value, h: &mut impl Hasher, depth: usize) {
    if depth > MAX_DEPTH {
        h.write_u128(unique());
        return;
    }
    match v {
        Value::Null => h.write_u8(0),
        Value::Bool(b) => {
            h.write_u8(1);
            h.write_u8(*b as u8);
        }
        Value::Number(n) => {
            if let Some(u) = n.as_u64() {
                h.write_u8(2);
                h.write_u64(u);
            } else if let Some(i) = n.as_i64() {
                h.write_u8(3);
                h.write_i64(i);
            } else {
                h.write_u8(4);
                h.write_u64(n.as_f64().unwrap_or(0.0).to_bits());
            }
        }
        Value::String(s) => {
            h.write_u8(5);
            s.hash(h);
        }
        Value::Array(a) => {
            h.write_u8(6);
            h.write_usize(a.len());
            for x in a {
                hash_value_at(x, h, depth + 1);
            }
        }
        Value::Object(m) => {
            h.write_u8(7);
            h.write_usize(m.len());
            for (k, x) in m {
                k.hash(h);
                hash_value_at(x, h, depth + 1);
            }
        }
    }
}

/// Fingerprints of schema nodes, children included: [`SchemaFingerprints::of`] covers every
/// field except `description` (documentation that no compile step reads);
/// [`SchemaFingerprints::of_shape`] also leaves out `x-kubernetes-validations`, for results
/// that depend on a node's values and not on the rules written on it or below it (a rule's
/// `self` type and size estimates). Kept in each node ([`JsonSchemaProps::fingerprints`]),
/// so fingerprinting every node of a tree costs one walk, and a node shared by the compile
/// of an edit is not walked again (a node is not changed once shared; a changed copy starts
/// without them: [`crate::crd::model::schema_mut`]).
#[derive(Default)]
pub struct SchemaFingerprints {
    _private: (),
}

/// Hashes a node's own fields into its shape fingerprint, and its children's fingerprints
/// into both; the full fingerprint then adds the node's rules and its shape.
struct Both {
    all: Hasher128,
    shape: Hasher128,
}

impl Hasher for Both {
    fn write(&mut self, bytes: &[u8]) {
        self.shape.write(bytes);
    }
    fn write_u8(&mut self, i: u8) {
        self.shape.write_u8(i);
    }
    fn write_u64(&mut self, i: u64) {
        self.shape.write_u64(i);
    }
    fn write_usize(&mut self, i: usize) {
        self.shape.write_usize(i);
    }
    fn finish(&self) -> u64 {
        self.shape.finish()
    }
}

impl Both {
    fn child(&mut self, (all, shape): (u128, u128)) {
        self.all.write_u128(all);
        self.shape.write_u128(shape);
    }
}

impl SchemaFingerprints {
    pub fn new() -> SchemaFingerprints {
        SchemaFingerprints::default()
    }

    /// The node with everything below it, descriptions aside.
    pub fn of(&mut self, s: &JsonSchemaProps) -> u128 {
        self.at(s, 0).0
    }

    /// [`SchemaFingerprints::of`] without the rules (`x-kubernetes-validations`).
    pub fn of_shape(&mut self, s: &JsonSchemaProps) -> u128 {
        self.at(s, 0).1
    }

    fn at(&mut self, s: &JsonSchemaProps, depth: usize) -> (u128, u128) {
        // Kept in the node: a node shared by later compiles (an edit elsewhere) is not
        // fingerprinted again.
        if let Some(f) = s.fingerprints.get() {
            return f;
        }
        if depth > MAX_DEPTH {
            return (unique(), unique());
        }
        let JsonSchemaProps {
            id,
            schema,
            reference,
            description: _,
            type_,
            format,
            title,
            default,
            maximum,
            exclusive_maximum,
            minimum,
            exclusive_minimum,
            max_length,
            min_length,
            pattern,
            max_items,
            min_items,
            unique_items,
            multiple_of,
            enum_,
            max_properties,
            min_properties,
            required,
            items,
            all_of,
            one_of,
            any_of,
            not,
            properties,
            additional_properties,
            pattern_properties,
            dependencies,
            additional_items,
            definitions,
            external_docs,
            example,
            nullable,
            x_preserve_unknown_fields,
            x_embedded_resource,
            x_int_or_string,
            x_list_map_keys,
            x_list_type,
            x_map_type,
            x_validations,
            // Derived from `pattern`, `format` and `type`.
            pattern_re: _,
            validation_format: _,
            numeric_format_ranges: _,
            compiled_for: _,
            fingerprints: _,
        } = s;
        let mut h = Both {
            all: Hasher128::new(),
            shape: Hasher128::new(),
        };
        // Which fields are set, then the set ones only: most nodes set few of them.
        let flags = [
            id.is_some(),
            schema.is_some(),
            reference.is_some(),
            type_.is_some(),
            format.is_some(),
            title.is_some(),
            default.is_some(),
            maximum.is_some(),
            *exclusive_maximum,
            minimum.is_some(),
            *exclusive_minimum,
            max_length.is_some(),
            min_length.is_some(),
            pattern.is_some(),
            max_items.is_some(),
            min_items.is_some(),
            *unique_items,
            multiple_of.is_some(),
            enum_.is_some(),
            max_properties.is_some(),
            min_properties.is_some(),
            !required.is_empty(),
            external_docs.is_some(),
            example.is_some(),
            *nullable,
            x_preserve_unknown_fields.is_some(),
            *x_preserve_unknown_fields == Some(true),
            *x_embedded_resource,
            *x_int_or_string,
            !x_list_map_keys.is_empty(),
            x_list_type.is_some(),
            x_map_type.is_some(),
        ];
        h.write_u64(flags.iter().fold(0u64, |acc, f| (acc << 1) | *f as u64));
        for text in [
            id,
            schema,
            reference,
            type_,
            format,
            title,
            pattern,
            x_list_type,
            x_map_type,
        ]
        .into_iter()
        .flatten()
        {
            text.hash(&mut h);
        }
        for n in [
            max_length,
            min_length,
            max_items,
            min_items,
            max_properties,
            min_properties,
        ]
        .into_iter()
        .flatten()
        {
            h.write_u64(*n as u64);
        }
        for f in [maximum, minimum, multiple_of].into_iter().flatten() {
            h.write_u64(f.to_bits());
        }
        for v in [default, external_docs, example].into_iter().flatten() {
            hash_value(v, &mut h);
        }
        if let Some(e) = enum_ {
            h.write_usize(e.len());
            e.iter().for_each(|v| hash_value(v, &mut h));
        }
        if !required.is_empty() {
            required.hash(&mut h);
        }
        if !x_list_map_keys.is_empty() {
            x_list_map_keys.hash(&mut h);
        }
        let d = depth + 1;
        match items {
            None => h.write_u8(0),
            Some(SchemaOrArray::Schema(i)) => {
                h.write_u8(1);
                let f = self.at(i, d);
                h.child(f);
            }
            Some(SchemaOrArray::Array(a)) => {
                h.write_u8(2);
                h.write_usize(a.len());
                for x in a {
                    let f = self.at(x, d);
                    h.child(f);
                }
            }
        }
        for list in [all_of, one_of, any_of] {
            h.write_usize(list.len());
            for x in list {
                let f = self.at(x, d);
                h.child(f);
            }
        }
        match not {
            None => h.write_u8(0),
            Some(n) => {
                h.write_u8(1);
                let f = self.at(n, d);
                h.child(f);
            }
        }
        for map in [properties, pattern_properties, definitions] {
            h.write_usize(map.len());
            for (k, x) in map {
                k.hash(&mut h);
                let f = self.at(x, d);
                h.child(f);
            }
        }
        for sb in [additional_properties, additional_items] {
            match sb {
                None => h.write_u8(0),
                Some(SchemaOrBool::Bool(b)) => {
                    h.write_u8(1);
                    h.write_u8(*b as u8);
                }
                Some(SchemaOrBool::Schema(x)) => {
                    h.write_u8(2);
                    let f = self.at(x, d);
                    h.child(f);
                }
            }
        }
        h.write_usize(dependencies.len());
        for (k, dep) in dependencies {
            k.hash(&mut h);
            match dep {
                SchemaOrStringArray::Strings(v) => {
                    h.write_u8(0);
                    v.hash(&mut h);
                }
                SchemaOrStringArray::Schema(x) => {
                    h.write_u8(1);
                    let f = self.at(x, d);
                    h.child(f);
                }
            }
        }
        let shape = h.shape.finish128();
        x_validations.hash(&mut h.all);
        h.all.write_u128(shape);
        let f = (h.all.finish128(), shape);
        s.fingerprints.set(f);
        f
    }
}

/// Fingerprint of a whole schema including `description` (for results that print the
/// schema, such as CRD check errors).
#[cfg(test)]
pub fn full_fingerprint(s: &JsonSchemaProps) -> u128 {
    let mut h = Hasher128::new();
    h.write_u128(SchemaFingerprints::new().of(s));
    hash_descriptions(s, &mut h);
    h.finish128()
}

/// A fingerprint of every `description` below a node (what [`SchemaFingerprints`] leave
/// out), kept in each node as its fingerprints are.
pub fn descriptions_fingerprint(s: &JsonSchemaProps) -> u128 {
    descriptions_fingerprint_at(s, 0)
}

fn descriptions_fingerprint_at(s: &JsonSchemaProps, depth: usize) -> u128 {
    if depth > MAX_DEPTH {
        return unique();
    }
    s.fingerprints.descriptions(|| {
        let mut h = Hasher128::new();
        s.description.hash(&mut h);
        let mut children = 0usize;
        each_child(s, &mut |c| {
            children += 1;
            h.write_u128(descriptions_fingerprint_at(c, depth + 1));
        });
        h.write_usize(children);
        h.finish128()
    })
}

/// Hashes every `description` of a schema, in a fixed walk order (the rest of the schema is
/// in its [`SchemaFingerprints`] fingerprint).
pub fn hash_descriptions(s: &JsonSchemaProps, h: &mut Hasher128) {
    hash_descriptions_at(s, h, 0)
}

fn hash_descriptions_at(s: &JsonSchemaProps, h: &mut Hasher128, depth: usize) {
    if depth > MAX_DEPTH {
        h.write_u128(unique());
        return;
    }
    s.description.hash(h);
    let mut children = 0usize;
    each_child(s, &mut |c| {
        children += 1;
        hash_descriptions_at(c, h, depth + 1);
    });
    h.write_usize(children);
}

/// Every direct sub-schema, in a fixed order.
fn each_child<'s>(s: &'s JsonSchemaProps, f: &mut dyn FnMut(&'s JsonSchemaProps)) {
    for p in s.properties.values() {
        f(p);
    }
    match &s.items {
        Some(SchemaOrArray::Schema(x)) => f(x),
        Some(SchemaOrArray::Array(a)) => a.iter().for_each(&mut *f),
        None => {}
    }
    if let Some(SchemaOrBool::Schema(x)) = &s.additional_properties {
        f(x);
    }
    if let Some(SchemaOrBool::Schema(x)) = &s.additional_items {
        f(x);
    }
    for x in s.all_of.iter().chain(&s.one_of).chain(&s.any_of) {
        f(x);
    }
    if let Some(n) = &s.not {
        f(n);
    }
    for x in s.pattern_properties.values().chain(s.definitions.values()) {
        f(x);
    }
    for d in s.dependencies.values() {
        if let SchemaOrStringArray::Schema(x) = d {
            f(x);
        }
    }
}

// ------------------------------------------------------------------ exact equality

/// Whether two schemas print the same `{:?}` rendering (field by field, maps in their
/// iteration order, floats by their exact value, `-0.0` apart from `0.0`), without
/// printing them. The CRD checks use it for `apiequality.Semantic.DeepEqual` of the
/// per-version schemas.
pub fn schema_eq(a: &JsonSchemaProps, b: &JsonSchemaProps) -> bool {
    schema_eq_at(a, b, 0)
}

fn f64_eq(a: &Option<f64>, b: &Option<f64>) -> bool {
    match (a, b) {
        (None, None) => true,
        (Some(x), Some(y)) => x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan()),
        _ => false,
    }
}

/// JSON values as their `{:?}` renderings compare: numbers by kind and exact value,
/// objects in iteration order.
pub fn value_eq(a: &Value, b: &Value) -> bool {
    value_eq_at(a, b, 0)
}

fn value_eq_at(a: &Value, b: &Value, depth: usize) -> bool {
    if depth > MAX_DEPTH {
        // Too deep to compare: different, as far as the caller can know.
        return false;
    }
    let sub = |x: &Value, y: &Value| value_eq_at(x, y, depth + 1);
    match (a, b) {
        (Value::Null, Value::Null) => true,
        (Value::Bool(x), Value::Bool(y)) => x == y,
        (Value::Number(x), Value::Number(y)) => match (x.is_f64(), y.is_f64()) {
            (true, true) => f64_eq(&x.as_f64(), &y.as_f64()),
            (false, false) => x.as_u64() == y.as_u64() && x.as_i64() == y.as_i64(),
            _ => false,
        },
        (Value::String(x), Value::String(y)) => x == y,
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| sub(p, q))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .zip(y)
                    .all(|((k1, v1), (k2, v2))| k1 == k2 && sub(v1, v2))
        }
        _ => false,
    }
}

fn opt_value_eq(a: &Option<Value>, b: &Option<Value>) -> bool {
    match (a, b) {
        (None, None) => true,
        (Some(x), Some(y)) => value_eq(x, y),
        _ => false,
    }
}

fn schema_eq_at(a: &JsonSchemaProps, b: &JsonSchemaProps, depth: usize) -> bool {
    if std::ptr::eq(a, b) {
        return true;
    }
    if depth > MAX_DEPTH {
        // Too deep to compare: different, as far as the caller can know.
        return false;
    }
    let d = depth + 1;
    let sub = |x: &JsonSchemaProps, y: &JsonSchemaProps| schema_eq_at(x, y, d);
    let list_eq = |x: &[JsonSchemaProps], y: &[JsonSchemaProps]| {
        x.len() == y.len() && x.iter().zip(y).all(|(p, q)| sub(p, q))
    };
    let map_eq = |x: &crate::crd::model::SchemaMap, y: &crate::crd::model::SchemaMap| {
        x.len() == y.len()
            && x.iter()
                .zip(y)
                .all(|((k1, v1), (k2, v2))| k1 == k2 && sub(v1, v2))
    };
    let sb_eq = |x: &Option<SchemaOrBool>, y: &Option<SchemaOrBool>| match (x, y) {
        (None, None) => true,
        (Some(SchemaOrBool::Bool(p)), Some(SchemaOrBool::Bool(q))) => p == q,
        (Some(SchemaOrBool::Schema(p)), Some(SchemaOrBool::Schema(q))) => sub(p, q),
        _ => false,
    };
    let JsonSchemaProps {
        id,
        schema,
        reference,
        description,
        type_,
        format,
        title,
        default,
        maximum,
        exclusive_maximum,
        minimum,
        exclusive_minimum,
        max_length,
        min_length,
        pattern,
        max_items,
        min_items,
        unique_items,
        multiple_of,
        enum_,
        max_properties,
        min_properties,
        required,
        items,
        all_of,
        one_of,
        any_of,
        not,
        properties,
        additional_properties,
        pattern_properties,
        dependencies,
        additional_items,
        definitions,
        external_docs,
        example,
        nullable,
        x_preserve_unknown_fields,
        x_embedded_resource,
        x_int_or_string,
        x_list_map_keys,
        x_list_type,
        x_map_type,
        x_validations,
        // Derived from `pattern`, `format` and `type` for a release (and the memo): equal
        // wherever what they are derived from is, for one release.
        pattern_re: _,
        validation_format: _,
        numeric_format_ranges: _,
        compiled_for: _,
        fingerprints: _,
    } = a;
    id == &b.id
        && schema == &b.schema
        && reference == &b.reference
        && description == &b.description
        && type_ == &b.type_
        && format == &b.format
        && title == &b.title
        && opt_value_eq(default, &b.default)
        && f64_eq(maximum, &b.maximum)
        && exclusive_maximum == &b.exclusive_maximum
        && f64_eq(minimum, &b.minimum)
        && exclusive_minimum == &b.exclusive_minimum
        && max_length == &b.max_length
        && min_length == &b.min_length
        && pattern == &b.pattern
        && max_items == &b.max_items
        && min_items == &b.min_items
        && unique_items == &b.unique_items
        && f64_eq(multiple_of, &b.multiple_of)
        && match (enum_, &b.enum_) {
            (None, None) => true,
            (Some(x), Some(y)) => {
                x.len() == y.len() && x.iter().zip(y).all(|(p, q)| value_eq(p, q))
            }
            _ => false,
        }
        && max_properties == &b.max_properties
        && min_properties == &b.min_properties
        && required == &b.required
        && match (items, &b.items) {
            (None, None) => true,
            (Some(SchemaOrArray::Schema(x)), Some(SchemaOrArray::Schema(y))) => sub(x, y),
            (Some(SchemaOrArray::Array(x)), Some(SchemaOrArray::Array(y))) => list_eq(x, y),
            _ => false,
        }
        && list_eq(all_of, &b.all_of)
        && list_eq(one_of, &b.one_of)
        && list_eq(any_of, &b.any_of)
        && match (not, &b.not) {
            (None, None) => true,
            (Some(x), Some(y)) => sub(x, y),
            _ => false,
        }
        && map_eq(properties, &b.properties)
        && sb_eq(additional_properties, &b.additional_properties)
        && map_eq(pattern_properties, &b.pattern_properties)
        && dependencies.len() == b.dependencies.len()
        && dependencies
            .iter()
            .zip(&b.dependencies)
            .all(|((k1, v1), (k2, v2))| {
                k1 == k2
                    && match (v1, v2) {
                        (SchemaOrStringArray::Strings(x), SchemaOrStringArray::Strings(y)) => {
                            x == y
                        }
                        (SchemaOrStringArray::Schema(x), SchemaOrStringArray::Schema(y)) => {
                            sub(x, y)
                        }
                        _ => false,
                    }
            })
        && sb_eq(additional_items, &b.additional_items)
        && map_eq(definitions, &b.definitions)
        && opt_value_eq(external_docs, &b.external_docs)
        && opt_value_eq(example, &b.example)
        && nullable == &b.nullable
        && x_preserve_unknown_fields == &b.x_preserve_unknown_fields
        && x_embedded_resource == &b.x_embedded_resource
        && x_int_or_string == &b.x_int_or_string
        && x_list_map_keys == &b.x_list_map_keys
        && x_list_type == &b.x_list_type
        && x_map_type == &b.x_map_type
        && rules_eq(x_validations, &b.x_validations)
}

fn rules_eq(a: &[ValidationRule], b: &[ValidationRule]) -> bool {
    a == b
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_four_multiply_product_is_the_u128_one() {
        let edges = [0, 1, 2, 0xffff_ffff, 0x1_0000_0000, u64::MAX, u64::MAX - 1, K1, K2, K3, K4];
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut cases: Vec<(u64, u64)> = edges.iter().flat_map(|&a| edges.iter().map(move |&b| (a, b))).collect();
        for _ in 0..10_000 {
            // xorshift64*: spread over the whole range.
            x ^= x >> 12;
            x ^= x << 25;
            x ^= x >> 27;
            let a = x.wrapping_mul(0x2545_f491_4f6c_dd1d);
            cases.push((a, a.rotate_left(17) ^ x));
        }
        for (a, b) in cases {
            let p = (a as u128) * (b as u128);
            assert_eq!(wide_mul_halves(a, b), (p as u64, (p >> 64) as u64), "{a:#x} × {b:#x}");
        }
    }

    fn schema(v: Value) -> JsonSchemaProps {
        serde_json::from_value(v).expect("schema")
    }

    #[test]
    fn equality_agrees_with_the_debug_rendering() {
        let cases = [
            (
                serde_json::json!({"type": "object"}),
                serde_json::json!({"type": "object"}),
            ),
            (
                serde_json::json!({"type": "object"}),
                serde_json::json!({"type": "string"}),
            ),
            (
                serde_json::json!({"default": 1}),
                serde_json::json!({"default": 1.0}),
            ),
            (
                serde_json::json!({"minimum": 0.0}),
                serde_json::json!({"minimum": -0.0}),
            ),
            (
                serde_json::json!({"maximum": 2}),
                serde_json::json!({"maximum": 2.0}),
            ),
            (
                serde_json::json!({"description": "a"}),
                serde_json::json!({"description": "b"}),
            ),
            (
                serde_json::json!({"properties": {"a": {"type": "string"}}}),
                serde_json::json!({"properties": {"a": {"type": "string", "maxLength": 3}}}),
            ),
            (
                serde_json::json!({"x-kubernetes-validations": [{"rule": "self.a"}]}),
                serde_json::json!({"x-kubernetes-validations": [{"rule": "self.b"}]}),
            ),
            (
                serde_json::json!({"enum": ["a", {"b": [1]}]}),
                serde_json::json!({"enum": ["a", {"b": [1]}]}),
            ),
            (
                serde_json::json!({"enum": ["a", {"b": [1]}]}),
                serde_json::json!({"enum": ["a", {"b": [2]}]}),
            ),
            (serde_json::json!({"default": null}), serde_json::json!({})),
        ];
        for (a, b) in cases {
            let (x, y) = (schema(a.clone()), schema(b.clone()));
            assert_eq!(
                schema_eq(&x, &y),
                format!("{:?}", x) == format!("{:?}", y),
                "{} vs {}",
                a,
                b
            );
        }
    }

    #[test]
    fn fingerprints_ignore_only_descriptions() {
        let base = serde_json::json!({"type": "object", "properties": {
            "a": {"type": "array", "maxItems": 3, "items": {"type": "string"}},
            "b": {"type": "string", "description": "x"}}});
        let fp = |v: &Value| SchemaFingerprints::new().of(&schema(v.clone()));
        let mut described = base.clone();
        described["properties"]["b"]["description"] = "y".into();
        assert_eq!(fp(&base), fp(&described));
        let shape = |v: &Value| SchemaFingerprints::new().of_shape(&schema(v.clone()));
        let mut ruled = base.clone();
        ruled["properties"]["a"]["x-kubernetes-validations"] =
            serde_json::json!([{"rule": "size(self) > 0"}]);
        assert_eq!(shape(&base), shape(&ruled));
        assert_ne!(fp(&base), fp(&ruled));
        assert_ne!(
            full_fingerprint(&schema(base.clone())),
            full_fingerprint(&schema(described))
        );
        for (ptr, v) in [
            ("/properties/a/maxItems", Value::from(4)),
            ("/properties/a/items/type", Value::from("integer")),
            ("/properties/b/default", Value::from("d")),
            (
                "/properties/b/x-kubernetes-validations",
                serde_json::json!([{"rule": "true"}]),
            ),
        ] {
            let mut edited = base.clone();
            let (parent, key) = ptr.rsplit_once('/').expect("pointer");
            edited.pointer_mut(parent).expect("parent")[key] = v;
            assert_ne!(fp(&base), fp(&edited), "{}", ptr);
        }
    }
}
