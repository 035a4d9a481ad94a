//! apimachinery's `resource.Quantity` (`pkg/api/resource`), re-expressed: the parser
//! (`ParseQuantity`, `parseQuantityString`), the int64 fast path and the `inf.Dec` fallback
//! (kept apart, as `asInteger` depends on which one a value uses), `Cmp`, `Add`/`Sub`,
//! `AsApproximateFloat64` and the canonical string form (`Quantity.String()`, which keeps
//! the input text when it was canonical). The CEL quantity library and the `quantity`
//! string format are built on it.

use std::cmp::Ordering;

// ------------------------------------------------------------------ big magnitudes

/// Decimal digits a magnitude may reach. Go would go on allocating (and, for scales in the
/// billions, never finish); past this bound an operation fails instead.
const MAX_DIGITS: u64 = 100_000;

const LIMB: u64 = 1_000_000_000;

/// A non-negative integer in base 10^9 limbs, least significant first, without high zero
/// limbs (zero is empty).
#[derive(Clone, Debug, PartialEq, Eq)]
struct Big(Vec<u32>);

/// An operation whose result needs more than [`MAX_DIGITS`] digits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TooLarge;

impl std::fmt::Display for TooLarge {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("quantity too large to represent")
    }
}

fn too_large() -> TooLarge {
    TooLarge
}

impl Big {
    fn zero() -> Big {
        Big(Vec::new())
    }

    fn from_u64(mut v: u64) -> Big {
        let mut limbs = Vec::new();
        while v > 0 {
            limbs.push((v % LIMB) as u32);
            v /= LIMB;
        }
        Big(limbs)
    }

    /// From ASCII digits (anything else is ignored by the callers' construction).
    fn from_digits(d: &[u8]) -> Big {
        let mut limbs = Vec::with_capacity(d.len() / 9 + 1);
        let mut end = d.len();
        while end > 0 {
            let start = end.saturating_sub(9);
            let mut v = 0u32;
            for &c in &d[start..end] {
                v = v * 10 + (c.wrapping_sub(b'0') as u32 % 10);
            }
            limbs.push(v);
            end = start;
        }
        let mut b = Big(limbs);
        b.trim();
        b
    }

    fn trim(&mut self) {
        while self.0.last() == Some(&0) {
            self.0.pop();
        }
    }

    fn is_zero(&self) -> bool {
        self.0.is_empty()
    }

    /// Number of decimal digits (0 for zero).
    fn digits(&self) -> u64 {
        match self.0.last() {
            None => 0,
            Some(&top) => {
                let mut n = 1;
                let mut t = top;
                while t >= 10 {
                    t /= 10;
                    n += 1;
                }
                (self.0.len() as u64 - 1) * 9 + n
            }
        }
    }

    fn cmp_mag(&self, o: &Big) -> Ordering {
        if self.0.len() != o.0.len() {
            return self.0.len().cmp(&o.0.len());
        }
        for (a, b) in self.0.iter().rev().zip(o.0.iter().rev()) {
            if a != b {
                return a.cmp(b);
            }
        }
        Ordering::Equal
    }

    fn add(&self, o: &Big) -> Big {
        let n = self.0.len().max(o.0.len());
        let mut out = Vec::with_capacity(n + 1);
        let mut carry = 0u64;
        for i in 0..n {
            let s = *self.0.get(i).unwrap_or(&0) as u64 + *o.0.get(i).unwrap_or(&0) as u64 + carry;
            out.push((s % LIMB) as u32);
            carry = s / LIMB;
        }
        if carry > 0 {
            out.push(carry as u32);
        }
        let mut b = Big(out);
        b.trim();
        b
    }

    /// `self - o`, for `self >= o`.
    fn sub(&self, o: &Big) -> Big {
        let mut out = Vec::with_capacity(self.0.len());
        let mut borrow = 0i64;
        for i in 0..self.0.len() {
            let mut s = self.0[i] as i64 - *o.0.get(i).unwrap_or(&0) as i64 - borrow;
            if s < 0 {
                s += LIMB as i64;
                borrow = 1;
            } else {
                borrow = 0;
            }
            out.push(s as u32);
        }
        let mut b = Big(out);
        b.trim();
        b
    }

    fn mul_small(&self, m: u64) -> Big {
        if m == 0 || self.is_zero() {
            return Big::zero();
        }
        let mut out = Vec::with_capacity(self.0.len() + 3);
        let mut carry: u128 = 0;
        for &l in &self.0 {
            let p = l as u128 * m as u128 + carry;
            out.push((p % LIMB as u128) as u32);
            carry = p / LIMB as u128;
        }
        while carry > 0 {
            out.push((carry % LIMB as u128) as u32);
            carry /= LIMB as u128;
        }
        let mut b = Big(out);
        b.trim();
        b
    }

    fn divmod_small(&self, d: u64) -> (Big, u64) {
        let mut out = vec![0u32; self.0.len()];
        let mut rem: u128 = 0;
        for i in (0..self.0.len()).rev() {
            let cur = rem * LIMB as u128 + self.0[i] as u128;
            out[i] = (cur / d as u128) as u32;
            rem = cur % d as u128;
        }
        let mut b = Big(out);
        b.trim();
        (b, rem as u64)
    }

    /// `self × 10^k`, refusing results past `MAX_DIGITS`.
    fn mul_pow10(&self, k: u64) -> Result<Big, TooLarge> {
        if self.is_zero() || k == 0 {
            return Ok(self.clone());
        }
        if self.digits() + k > MAX_DIGITS {
            return Err(too_large());
        }
        let limbs = (k / 9) as usize;
        let mut v = vec![0u32; limbs];
        v.extend_from_slice(&self.0);
        Ok(Big(v).mul_small(10u64.pow((k % 9) as u32)))
    }

    /// `self / 10^k` truncated, and whether a remainder was dropped.
    fn div_pow10(&self, k: u64) -> (Big, bool) {
        if k >= self.digits() {
            return (Big::zero(), !self.is_zero());
        }
        let limbs = (k / 9) as usize;
        let dropped = self.0[..limbs].iter().any(|&l| l != 0);
        let shifted = Big(self.0[limbs..].to_vec());
        let (q, r) = shifted.divmod_small(10u64.pow((k % 9) as u32));
        (q, dropped || r != 0)
    }

    /// Removes factors of `f`, returning how many.
    fn remove_factors(&self, f: u64) -> (Big, i64) {
        let mut cur = self.clone();
        let mut times = 0;
        if cur.is_zero() {
            return (cur, 0);
        }
        if f == 10 {
            // Whole zero limbs first.
            let z = cur.0.iter().take_while(|&&l| l == 0).count();
            if z > 0 {
                cur = Big(cur.0[z..].to_vec());
                times += 9 * z as i64;
            }
        }
        // Six factors at a time while they divide (f^6 fits u64 for f <= 1024).
        let f6 = f.pow(6);
        loop {
            let (q, r) = cur.divmod_small(f6);
            if r != 0 {
                break;
            }
            cur = q;
            times += 6;
        }
        loop {
            let (q, r) = cur.divmod_small(f);
            if r != 0 {
                break;
            }
            cur = q;
            times += 1;
        }
        (cur, times)
    }

    fn to_decimal(&self) -> String {
        match self.0.last() {
            None => "0".into(),
            Some(top) => {
                let mut s = top.to_string();
                for l in self.0.iter().rev().skip(1) {
                    s.push_str(&format!("{:09}", l));
                }
                s
            }
        }
    }
}

// ------------------------------------------------------------------ inf.Dec

/// `inf.Dec`: `(-1)^neg × mag × 10^(-scale)`.
#[derive(Clone, Debug)]
struct Dec {
    neg: bool,
    mag: Big,
    scale: i64,
}

impl Dec {
    fn sign(&self) -> i64 {
        if self.mag.is_zero() {
            0
        } else if self.neg {
            -1
        } else {
            1
        }
    }

    fn from_i64(v: i64, scale: i64) -> Dec {
        Dec {
            neg: v < 0,
            mag: Big::from_u64(v.unsigned_abs()),
            scale,
        }
    }

    /// The magnitude at scale `s` (`s >= self.scale`).
    fn mag_at(&self, s: i64) -> Result<Big, TooLarge> {
        let k = s - self.scale;
        if k < 0 {
            return Err(too_large());
        }
        self.mag.mul_pow10(k as u64)
    }

    /// `inf.Dec.Add` (aligning to the larger scale); `negate_y` makes it `Sub`.
    fn add(&self, y: &Dec, negate_y: bool) -> Result<Dec, TooLarge> {
        let s = self.scale.max(y.scale);
        let a = self.mag_at(s)?;
        let b = y.mag_at(s)?;
        let (an, bn) = (self.neg, y.neg != negate_y);
        let (neg, mag) = if an == bn {
            (an, a.add(&b))
        } else {
            match a.cmp_mag(&b) {
                Ordering::Less => (bn, b.sub(&a)),
                _ => (an, a.sub(&b)),
            }
        };
        Ok(Dec {
            neg: neg && !mag.is_zero(),
            mag,
            scale: s,
        })
    }

    /// `inf.Dec.Round(x, s, inf.RoundUp)`: the result has scale exactly `s`, rounded away
    /// from zero.
    fn round_up(&self, s: i64) -> Result<Dec, TooLarge> {
        if s >= self.scale {
            return Ok(Dec {
                neg: self.neg,
                mag: self.mag_at(s)?,
                scale: s,
            });
        }
        let (q, rem) = self.mag.div_pow10((self.scale - s) as u64);
        let mag = if rem { q.add(&Big::from_u64(1)) } else { q };
        Ok(Dec {
            neg: self.neg && !mag.is_zero(),
            mag,
            scale: s,
        })
    }
}

/// Compares two signed decimals `(neg, mag, exponent)` meaning `mag × 10^exp`, settling
/// different magnitudes before aligning (so the alignment stays within the digits).
fn cmp_decimal(a: (bool, &Big, i64), b: (bool, &Big, i64)) -> Ordering {
    let sa = if a.1.is_zero() {
        0
    } else if a.0 {
        -1
    } else {
        1
    };
    let sb = if b.1.is_zero() {
        0
    } else if b.0 {
        -1
    } else {
        1
    };
    if sa != sb {
        return sa.cmp(&sb);
    }
    if sa == 0 {
        return Ordering::Equal;
    }
    let oa = a.1.digits() as i64 + a.2;
    let ob = b.1.digits() as i64 + b.2;
    let mag = if oa != ob {
        oa.cmp(&ob)
    } else {
        let e = a.2.min(b.2);
        let x = a.1.mul_pow10((a.2 - e) as u64);
        let y = b.1.mul_pow10((b.2 - e) as u64);
        match (x, y) {
            (Ok(x), Ok(y)) => x.cmp_mag(&y),
            _ => Ordering::Equal,
        }
    };
    if sa < 0 {
        mag.reverse()
    } else {
        mag
    }
}

// ------------------------------------------------------------------ Quantity

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    DecimalExponent,
    BinarySI,
    DecimalSI,
}

/// `int64Amount` (value × 10^scale) or `infDecAmount`.
#[derive(Clone, Debug)]
enum Amount {
    Int { value: i64, scale: i32 },
    Dec(Dec),
}

/// `resource.Quantity`.
#[derive(Clone, Debug)]
pub struct Quantity {
    amount: Amount,
    format: Format,
    /// The cached string (`q.s`): the input text when it was already canonical.
    cached: Option<String>,
}

pub const ERR_FORMAT: &str =
    "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
pub const ERR_NUMERIC: &str = "unable to parse numeric part of quantity";
pub const ERR_SUFFIX: &str = "unable to parse quantity's suffix";

const MOST_NEGATIVE: i64 = i64::MIN;

/// `positiveScaleInt64`: base × 10^scale, or false on overflow.
fn positive_scale(base: i64, scale: i64) -> Option<i64> {
    if base == 0 || scale <= 0 {
        return Some(base);
    }
    let mut r = base;
    for _ in 0..scale.min(20) {
        r = r.checked_mul(10)?;
    }
    if scale > 20 {
        return None;
    }
    Some(r)
}

/// `negativeScaleInt64`: base / 10^scale rounded away from zero, and whether exact.
fn negative_scale(base: i64, scale: i64) -> (i64, bool) {
    if scale <= 0 {
        return (base, true);
    }
    let mut value = base;
    let mut fraction = false;
    let mut i = 0;
    while i < scale {
        if !fraction && value % 10 != 0 {
            fraction = true;
        }
        value /= 10;
        if value == 0 {
            if fraction {
                return (if base > 0 { 1 } else { -1 }, false);
            }
            return (0, true);
        }
        i += 1;
    }
    if fraction {
        if base > 0 {
            value += 1;
        } else {
            value -= 1;
        }
    }
    (value, !fraction)
}

/// `removeInt64Factors`.
fn remove_int_factors(value: i64, base: i64) -> (i64, i32) {
    let neg = value < 0;
    let mut r = value.wrapping_neg();
    if !neg {
        r = value;
    }
    let mut times = 0;
    while r >= base && r % base == 0 {
        times += 1;
        r /= base;
    }
    (if neg { r.wrapping_neg() } else { r }, times)
}

/// `int64Amount.Add`: false (and `a` unchanged) on overflow.
fn int_add(a: &mut (i64, i32), b: (i64, i32)) -> bool {
    if b.0 == 0 {
        return true;
    }
    if a.0 == 0 {
        *a = b;
        return true;
    }
    if a.1 == b.1 {
        match a.0.checked_add(b.0) {
            Some(c) => {
                a.0 = c;
                true
            }
            None => false,
        }
    } else if a.1 > b.1 {
        let Some(c) = positive_scale(a.0, a.1 as i64 - b.1 as i64) else {
            return false;
        };
        let Some(c) = c.checked_add(b.0) else {
            return false;
        };
        *a = (c, b.1);
        true
    } else {
        let Some(c) = positive_scale(b.0, b.1 as i64 - a.1 as i64) else {
            return false;
        };
        let Some(c) = a.0.checked_add(c) else {
            return false;
        };
        a.0 = c;
        true
    }
}

/// `suffixer.interpret`: base, exponent, format.
fn interpret_suffix(s: &str) -> Option<(u32, i32, Format)> {
    use Format::*;
    Some(match s {
        "" => (10, 0, DecimalSI),
        "n" => (10, -9, DecimalSI),
        "u" => (10, -6, DecimalSI),
        "m" => (10, -3, DecimalSI),
        "k" => (10, 3, DecimalSI),
        "M" => (10, 6, DecimalSI),
        "G" => (10, 9, DecimalSI),
        "T" => (10, 12, DecimalSI),
        "P" => (10, 15, DecimalSI),
        "E" => (10, 18, DecimalSI),
        "Ki" => (2, 10, BinarySI),
        "Mi" => (2, 20, BinarySI),
        "Gi" => (2, 30, BinarySI),
        "Ti" => (2, 40, BinarySI),
        "Pi" => (2, 50, BinarySI),
        "Ei" => (2, 60, BinarySI),
        _ => {
            let b = s.as_bytes();
            if b.len() > 1 && (b[0] == b'e' || b[0] == b'E') {
                let parsed = parse_go_int64(&s[1..])?;
                return Some((10, parsed as i32, DecimalExponent));
            }
            return None;
        }
    })
}

/// `strconv.ParseInt(s, 10, 64)`: optional sign and decimal digits, in range.
fn parse_go_int64(s: &str) -> Option<i64> {
    let (neg, digits) = match s.as_bytes().first()? {
        b'+' => (false, &s[1..]),
        b'-' => (true, &s[1..]),
        _ => (false, s),
    };
    if digits.is_empty() || !digits.bytes().all(|c| c.is_ascii_digit()) {
        return None;
    }
    let mut v: i128 = 0;
    for c in digits.bytes() {
        v = v * 10 + (c - b'0') as i128;
        if v > i64::MAX as i128 + 1 {
            return None;
        }
    }
    let v = if neg { -v } else { v };
    i64::try_from(v).ok()
}

struct Scanned<'s> {
    positive: bool,
    value: &'s str,
    num: &'s str,
    denom: &'s str,
    suffix: &'s str,
}

/// `parseQuantityString`.
fn scan(s: &str) -> Result<Scanned<'_>, &'static str> {
    let b = s.as_bytes();
    let end = b.len();
    let mut out = Scanned {
        positive: true,
        value: "",
        num: "",
        denom: "",
        suffix: "",
    };
    let mut pos = 0;
    if pos < end {
        match b[0] {
            b'-' => {
                out.positive = false;
                pos += 1;
            }
            b'+' => pos += 1,
            _ => {}
        }
    }
    // Leading zeros.
    loop {
        if pos >= end {
            out.num = "0";
            out.value = "0";
            return Ok(out);
        }
        if b[pos] == b'0' {
            pos += 1;
        } else {
            break;
        }
    }
    // Numerator.
    let mut i = pos;
    loop {
        if i >= end {
            out.num = &s[pos..end];
            out.value = s;
            return Ok(out);
        }
        if !b[i].is_ascii_digit() {
            out.num = &s[pos..i];
            pos = i;
            break;
        }
        i += 1;
    }
    if out.num.is_empty() {
        out.num = "0";
    }
    // Denominator.
    if pos < end && b[pos] == b'.' {
        pos += 1;
        let mut i = pos;
        loop {
            if i >= end {
                out.denom = &s[pos..end];
                out.value = s;
                return Ok(out);
            }
            if !b[i].is_ascii_digit() {
                out.denom = &s[pos..i];
                pos = i;
                break;
            }
            i += 1;
        }
    }
    out.value = &s[..pos];
    // Suffix letters.
    let suffix_start = pos;
    let mut i = pos;
    loop {
        if i >= end {
            out.suffix = &s[suffix_start..end];
            return Ok(out);
        }
        if !b"eEinumkKMGTP".contains(&b[i]) {
            pos = i;
            break;
        }
        i += 1;
    }
    if pos < end && (b[pos] == b'-' || b[pos] == b'+') {
        pos += 1;
    }
    let mut i = pos;
    loop {
        if i >= end {
            out.suffix = &s[suffix_start..end];
            return Ok(out);
        }
        if !b[i].is_ascii_digit() {
            return Err(ERR_FORMAT);
        }
        i += 1;
    }
}

/// `inf.Dec.SetString` of the numeric part: `[+-]digits[.digits]`.
fn dec_from_str(v: &str) -> Option<Dec> {
    let b = v.as_bytes();
    let mut i = 0;
    let mut neg = false;
    if let Some(&c) = b.first() {
        if c == b'+' || c == b'-' {
            neg = c == b'-';
            i = 1;
        }
    }
    let mut digits = Vec::with_capacity(b.len());
    let mut dot: Option<usize> = None;
    while i < b.len() {
        match b[i] {
            b'.' if dot.is_none() => dot = Some(digits.len()),
            c if c.is_ascii_digit() => digits.push(c),
            _ => return None,
        }
        i += 1;
    }
    if digits.is_empty() {
        return None;
    }
    let scale = dot.map(|d| (digits.len() - d) as i64).unwrap_or(0);
    let mag = Big::from_digits(&digits);
    Some(Dec {
        neg: neg && !mag.is_zero(),
        mag,
        scale,
    })
}

impl Quantity {
    /// `resource.ParseQuantity`; the error is one of the package's three texts (or a size
    /// refusal for values Go could not hold either).
    pub fn parse(s: &str) -> Result<Quantity, String> {
        if s.is_empty() {
            return Err(ERR_FORMAT.into());
        }
        if s == "0" {
            return Ok(Quantity {
                amount: Amount::Int { value: 0, scale: 0 },
                format: Format::DecimalSI,
                cached: Some("0".into()),
            });
        }
        let sc = scan(s).map_err(String::from)?;
        let (base, exponent, format) =
            interpret_suffix(sc.suffix).ok_or_else(|| ERR_SUFFIX.to_string())?;
        let (num, denom) = (sc.num, sc.denom);

        let precision: i64;
        let mut scale: i32 = 0;
        let mut mantissa: i64 = 1;
        match format {
            Format::DecimalExponent | Format::DecimalSI => {
                scale = exponent;
                precision = 19 - (num.len() + denom.len()) as i64;
            }
            Format::BinarySI => {
                if exponent >= 0 && denom.is_empty() {
                    mantissa = 1i64 << exponent;
                    let f = (exponent as f32 * 3.0 / 10.0) as i64;
                    precision = 15 - num.len() as i64 - f - 1;
                } else {
                    precision = -1;
                }
            }
        }
        if precision >= 0 {
            scale = scale.wrapping_sub(denom.len() as i32);
            if scale >= -9 {
                let shifted = format!("{}{}", num, denom);
                let value: i64 = shifted.parse().map_err(|_| ERR_NUMERIC.to_string())?;
                if let Some(mut result) = value.checked_mul(mantissa) {
                    if !sc.positive {
                        result = -result;
                    }
                    let canonical = match format {
                        Format::BinarySI => exponent % 10 == 0 && (value & 0x07) != 0,
                        _ => {
                            scale % 3 == 0 && !shifted.ends_with("000") && !shifted.starts_with('0')
                        }
                    };
                    return Ok(Quantity {
                        amount: Amount::Int {
                            value: result,
                            scale,
                        },
                        format,
                        cached: if canonical { Some(s.to_string()) } else { None },
                    });
                }
            }
        }

        let mut amount = dec_from_str(sc.value).ok_or_else(|| ERR_NUMERIC.to_string())?;
        if base == 10 {
            amount.scale =
                (amount.scale as i32).wrapping_add((exponent as i64).wrapping_neg() as i32) as i64;
        } else {
            amount.mag = amount.mag.mul_small(1u64 << exponent.clamp(0, 63));
        }
        let negative = amount.neg;
        amount.neg = false;
        if !amount.mag.is_zero() {
            amount = amount.round_up(9).map_err(|e| e.to_string())?;
        }
        let mut format = format;
        if format == Format::BinarySI {
            let max = Dec::from_i64(i64::MAX, 0);
            if cmp_dec(&amount, &max) == Ordering::Greater {
                amount = max;
            }
            if cmp_dec(&amount, &Dec::from_i64(1, 0)) == Ordering::Less && !amount.mag.is_zero() {
                format = Format::DecimalSI;
            }
        }
        if negative && !amount.mag.is_zero() {
            amount.neg = true;
        }
        Ok(Quantity {
            amount: Amount::Dec(amount),
            format,
            cached: None,
        })
    }

    /// `resource.NewQuantity(v, DecimalExponent)`.
    pub fn from_int(v: i64) -> Quantity {
        Quantity {
            amount: Amount::Int { value: v, scale: 0 },
            format: Format::DecimalExponent,
            cached: None,
        }
    }

    fn as_dec(&self) -> Dec {
        match &self.amount {
            Amount::Int { value, scale } => Dec::from_i64(*value, -(*scale as i64)),
            Amount::Dec(d) => d.clone(),
        }
    }

    fn is_zero(&self) -> bool {
        match &self.amount {
            Amount::Int { value, .. } => *value == 0,
            Amount::Dec(d) => d.mag.is_zero(),
        }
    }

    pub fn sign(&self) -> i64 {
        match &self.amount {
            Amount::Int { value, .. } => value.signum(),
            Amount::Dec(d) => d.sign(),
        }
    }

    /// `Quantity.Cmp`.
    pub fn cmp(&self, o: &Quantity) -> Ordering {
        let (a, b) = (self.as_dec(), o.as_dec());
        cmp_dec(&a, &b)
    }

    /// `Quantity.Add` on a copy.
    pub fn add(&self, y: &Quantity) -> Result<Quantity, TooLarge> {
        let mut q = self.clone();
        q.cached = None;
        if let (
            Amount::Int {
                value: av,
                scale: asc,
            },
            Amount::Int {
                value: bv,
                scale: bsc,
            },
        ) = (&q.amount, &y.amount)
        {
            if *av == 0 {
                q.format = y.format;
            }
            let mut a = (*av, *asc);
            if int_add(&mut a, (*bv, *bsc)) {
                q.amount = Amount::Int {
                    value: a.0,
                    scale: a.1,
                };
                return Ok(q);
            }
        } else if q.is_zero() {
            q.format = y.format;
        }
        q.amount = Amount::Dec(q.as_dec().add(&y.as_dec(), false)?);
        Ok(q)
    }

    /// `Quantity.Sub` on a copy.
    pub fn sub(&self, y: &Quantity) -> Result<Quantity, TooLarge> {
        let mut q = self.clone();
        q.cached = None;
        if q.is_zero() {
            q.format = y.format;
        }
        if let (
            Amount::Int {
                value: av,
                scale: asc,
            },
            Amount::Int {
                value: bv,
                scale: bsc,
            },
        ) = (&q.amount, &y.amount)
        {
            if *bv != MOST_NEGATIVE {
                let mut a = (*av, *asc);
                if int_add(&mut a, (-*bv, *bsc)) {
                    q.amount = Amount::Int {
                        value: a.0,
                        scale: a.1,
                    };
                    return Ok(q);
                }
            }
        }
        q.amount = Amount::Dec(q.as_dec().add(&y.as_dec(), true)?);
        Ok(q)
    }

    /// `Quantity.AsInt64`: only the int64 form converts.
    pub fn as_int64(&self) -> Option<i64> {
        match &self.amount {
            Amount::Dec(_) => None,
            Amount::Int { value, scale } => {
                if *scale == 0 {
                    Some(*value)
                } else if *scale < 0 {
                    None
                } else {
                    positive_scale(*value, *scale as i64)
                }
            }
        }
    }

    /// `Quantity.AsApproximateFloat64`.
    pub fn as_approximate_float64(&self) -> f64 {
        let (base, exponent) = match &self.amount {
            Amount::Dec(d) => {
                let f: f64 = d.mag.to_decimal().parse().unwrap_or(f64::INFINITY);
                (if d.neg { -f } else { f }, -d.scale)
            }
            Amount::Int { value, scale } => (*value as f64, *scale as i64),
        };
        if exponent == 0 {
            return base;
        }
        base * go_pow10(exponent)
    }

    fn cmp_int(&self, v: i64) -> Ordering {
        cmp_dec(&self.as_dec(), &Dec::from_i64(v, 0))
    }

    /// `Quantity.String()`.
    pub fn canonical(&self) -> String {
        if let Some(s) = &self.cached {
            return s.clone();
        }
        if self.is_zero() {
            return "0".into();
        }
        let mut format = self.format;
        let mut rounded: Option<Amount> = None;
        if format == Format::BinarySI {
            if self.cmp_int(-1024) == Ordering::Greater && self.cmp_int(1024) == Ordering::Less {
                format = Format::DecimalSI;
            } else {
                match self.as_scale0() {
                    Some((r, true)) => rounded = Some(r),
                    _ => format = Format::DecimalSI,
                }
            }
        }
        match (format, rounded) {
            (Format::BinarySI, Some(r)) => {
                let (number, exponent) = base1024_bytes(&r);
                let suffix = match exponent.saturating_mul(10) {
                    10 => "Ki",
                    20 => "Mi",
                    30 => "Gi",
                    40 => "Ti",
                    50 => "Pi",
                    60 => "Ei",
                    _ => "",
                };
                number + suffix
            }
            _ => {
                let (number, exponent) = canonical_bytes(&self.amount);
                let suffix = match format {
                    Format::DecimalExponent => {
                        if exponent == 0 {
                            String::new()
                        } else {
                            format!("e{}", exponent)
                        }
                    }
                    _ => match exponent {
                        -9 => "n",
                        -6 => "u",
                        -3 => "m",
                        3 => "k",
                        6 => "M",
                        9 => "G",
                        12 => "T",
                        15 => "P",
                        18 => "E",
                        _ => "",
                    }
                    .to_string(),
                };
                number + &suffix
            }
        }
    }

    /// `AsScale(0)`: the value rounded up (away from zero) to an integer, and whether exact.
    fn as_scale0(&self) -> Option<(Amount, bool)> {
        match &self.amount {
            Amount::Int { value, scale } => {
                if *scale >= 0 {
                    Some((self.amount.clone(), true))
                } else {
                    let (r, exact) = negative_scale(*value, -(*scale as i64));
                    Some((Amount::Int { value: r, scale: 0 }, exact))
                }
            }
            Amount::Dec(d) => {
                let r = d.round_up(0).ok()?;
                let exact = cmp_dec(&r, d) == Ordering::Equal;
                Some((Amount::Dec(r), exact))
            }
        }
    }
}

fn cmp_dec(a: &Dec, b: &Dec) -> Ordering {
    cmp_decimal((a.neg, &a.mag, -a.scale), (b.neg, &b.mag, -b.scale))
}

/// `AsCanonicalBytes` of either form: digits and a base-10 exponent that is a multiple of 3.
fn canonical_bytes(a: &Amount) -> (String, i32) {
    match a {
        Amount::Int { value, scale } => {
            let (amount, times) = remove_int_factors(*value, 10);
            let exponent = scale.wrapping_add(times);
            let r = match exponent % 3 {
                1 | -2 => amount
                    .checked_mul(10)
                    .map(|a| (a, exponent.wrapping_sub(1))),
                2 | -1 => amount
                    .checked_mul(100)
                    .map(|a| (a, exponent.wrapping_sub(2))),
                _ => Some((amount, exponent)),
            };
            match r {
                Some((a, e)) => (a.to_string(), e),
                None => canonical_bytes(&Amount::Dec(Dec::from_i64(*value, -(*scale as i64)))),
            }
        }
        Amount::Dec(d) => {
            let mut exponent = (d.scale as i32).wrapping_neg();
            let (mut amount, times) = d.mag.remove_factors(10);
            exponent = exponent.wrapping_add(times as i32);
            while exponent % 3 != 0 {
                amount = amount.mul_small(10);
                exponent = exponent.wrapping_sub(1);
            }
            let sign = if d.neg && !amount.is_zero() { "-" } else { "" };
            (format!("{}{}", sign, amount.to_decimal()), exponent)
        }
    }
}

/// `AsCanonicalBase1024Bytes` of a value already rounded to an integer.
fn base1024_bytes(a: &Amount) -> (String, i32) {
    match a {
        Amount::Int { value, scale } => {
            let v = if *scale == 0 {
                Some(*value)
            } else if (*scale as i64) < 19 {
                positive_scale(*value, *scale as i64)
            } else {
                None
            };
            match v {
                Some(v) => {
                    let (amount, exponent) = remove_int_factors(v, 1024);
                    (amount.to_string(), exponent)
                }
                None => base1024_bytes(&Amount::Dec(Dec::from_i64(*value, -(*scale as i64)))),
            }
        }
        Amount::Dec(d) => match d.round_up(0) {
            Ok(r) => {
                let (amount, times) = r.mag.remove_factors(1024);
                let sign = if r.neg && !amount.is_zero() { "-" } else { "" };
                (format!("{}{}", sign, amount.to_decimal()), times as i32)
            }
            Err(_) => ("0".into(), 0),
        },
    }
}

/// Go's `math.Pow10`.
fn go_pow10(n: i64) -> f64 {
    const TAB: [f64; 32] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
        1e17, 1e18, 1e19, 1e20, 1e21, 1e22, 1e23, 1e24, 1e25, 1e26, 1e27, 1e28, 1e29, 1e30, 1e31,
    ];
    const POS32: [f64; 10] = [
        1e0, 1e32, 1e64, 1e96, 1e128, 1e160, 1e192, 1e224, 1e256, 1e288,
    ];
    const NEG32: [f64; 11] = [
        1e-0, 1e-32, 1e-64, 1e-96, 1e-128, 1e-160, 1e-192, 1e-224, 1e-256, 1e-288, 1e-320,
    ];
    if (0..=308).contains(&n) {
        return POS32[(n / 32) as usize] * TAB[(n % 32) as usize];
    }
    if (-323..=0).contains(&n) {
        let m = -n;
        return NEG32[(m / 32) as usize] / TAB[(m % 32) as usize];
    }
    if n > 0 {
        f64::INFINITY
    } else {
        0.0
    }
}

/// `resource.ParseQuantity` succeeds.
#[cfg(test)]
pub fn is_quantity(s: &str) -> bool {
    if s.is_empty() {
        return false;
    }
    if s == "0" {
        return true;
    }
    let Ok(parts) = scan(s) else {
        return false;
    };
    let Some((_, exponent, format)) = interpret_suffix(parts.suffix) else {
        return false;
    };
    let binary = format == Format::BinarySI;
    let (num_len, denom_len) = (parts.num.len() as i64, parts.denom.len() as i64);
    let precision: i64 = if binary {
        if exponent >= 0 && denom_len == 0 {
            15 - num_len - ((exponent as f32) * 3.0 / 10.0) as i64 - 1
        } else {
            -1
        }
    } else {
        18 - (num_len + denom_len)
    };
    let scale: i64 = if binary { 0 } else { exponent as i64 };
    if precision >= 0 && scale - denom_len >= -9 {
        // Fast path: always succeeds (the digits fit an int64).
        return true;
    }
    // Slow path: inf.Dec.SetString(value) needs at least one digit.
    parts.value.bytes().any(|b| b.is_ascii_digit())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn canon(s: &str) -> String {
        Quantity::parse(s)
            .map(|q| q.canonical())
            .unwrap_or_else(|e| format!("ERR {}", e))
    }

    #[test]
    fn parses_and_prints_like_apimachinery() {
        for (i, o) in [
            ("1Gi", "1Gi"),
            ("1.5", "1500m"),
            ("1.5Gi", "1536Mi"),
            ("2k", "2k"),
            ("2000", "2k"),
            ("1500m", "1500m"),
            ("0.5", "500m"),
            ("1e3", "1e3"),
            ("1000e0", "1e3"),
            ("1024", "1024"),
            ("1.5Ki", "1536"),
            ("100m", "100m"),
            ("0.1m", "100u"),
            ("0.0000000001", "1n"),
            ("1e-20", "1e-9"),
            ("+200M", "+200M"),
            ("020", "020"),
            ("-1Gi", "-1Gi"),
            ("0", "0"),
            ("-0", "0"),
            ("1000E", "1"),
            ("12Mi", "12Mi"),
            ("0.5Gi", "512Mi"),
            ("8Ki", "8Ki"),
            ("1025Ki", "1025Ki"),
            ("Mi", "0"),
            (
                "9999999999999999999999999999999999999G",
                "9999999999999999999999999999999999999G",
            ),
            ("50.02k", "50020"),
        ] {
            assert_eq!(canon(i), o, "{}", i);
        }
        assert_eq!(canon("10Mo"), format!("ERR {}", ERR_FORMAT));
        assert_eq!(canon("10Mm"), format!("ERR {}", ERR_SUFFIX));
        assert_eq!(canon("200K"), format!("ERR {}", ERR_SUFFIX));
        assert_eq!(canon(""), format!("ERR {}", ERR_FORMAT));
        assert_eq!(canon("9999999999999999999"), format!("ERR {}", ERR_NUMERIC));
        assert_eq!(canon("Three"), format!("ERR {}", ERR_FORMAT));
    }

    #[test]
    fn arithmetic_and_comparison() {
        let p = |s: &str| Quantity::parse(s).unwrap();
        let r = p("50k")
            .add(&Quantity::from_int(20))
            .unwrap()
            .sub(&p("100k"))
            .unwrap();
        assert_eq!(r.as_int64(), Some(-49980));
        let r = r.sub(&Quantity::from_int(-50000)).unwrap();
        assert_eq!(r.as_int64(), Some(20));
        assert_eq!(p("200M").cmp(&p("0.2G")), Ordering::Equal);
        assert_eq!(p("50M").cmp(&p("50Mi")), Ordering::Less);
        assert_eq!(p("9999999999999999999999999999999999999G").as_int64(), None);
        assert_eq!(p("50.703k").as_approximate_float64(), 50703.0);
        assert_eq!(
            p("0").add(&Quantity::from_int(5000)).unwrap().canonical(),
            "5e3"
        );
        assert_eq!(p("1e2147483647").cmp(&p("5")), Ordering::Greater);
        assert!(p("1e2147483647").add(&p("1m")).is_err());
        assert_eq!(p("-1e2147483647").sign(), -1);
        assert_eq!(p("1e2147483647").canonical(), "10e2147483646");
    }
}
