//! Go's `unicode` package, re-expressed where messages depend on it: `unicode.IsPrint`
//! (`%q` quoting, the managed-fields manager check and the CRD name checks).

/// An approximation of Go's `unicode.IsPrint` (letters, marks, numbers, punctuation,
/// symbols and the ASCII space). Control, format, separator (other than U+0020),
/// private-use, surrogate and non-character code points are not printable. The one copy:
/// `%q` quoting, the managed-fields manager check and the CRD name checks use it.
pub fn is_print(c: char) -> bool {
    let u = c as u32;
    if u < 0x20 || u == 0x7f {
        return false;
    }
    if u < 0x7f {
        return true;
    }
    if (0x80..0xa0).contains(&u) || u == 0xad {
        return false;
    }
    // Separators and format characters Go does not print.
    if matches!(u, 0xa0 | 0x1680 | 0x2000..=0x200f | 0x2028..=0x202f | 0x205f..=0x206f | 0x3000 | 0xfeff | 0xfff9..=0xfffb) {
        return false;
    }
    if (0xe000..=0xf8ff).contains(&u) || (0xf0000..).contains(&u) {
        return false;
    }
    if matches!(u, 0xfffe | 0xffff) {
        return false;
    }
    true
}
