//! JSON pointers (RFC 6901) as the edits take them.

use crate::text::edit::error::EditError;

/// RFC 6901: `""` is the root, otherwise `/`-separated steps with `~1` for `/` and `~0` for
/// `~`.
pub(crate) fn parse_pointer(pointer: &str) -> Result<Vec<String>, EditError> {
    if pointer.is_empty() {
        return Ok(Vec::new());
    }
    let Some(rest) = pointer.strip_prefix('/') else {
        return Err(EditError::BadPointer {
            pointer: pointer.to_string(),
            reason: "it must be empty or start with /".to_string(),
        });
    };
    let mut out = Vec::new();
    for seg in rest.split('/') {
        let mut s = String::with_capacity(seg.len());
        let mut it = seg.chars();
        while let Some(c) = it.next() {
            if c == '~' {
                match it.next() {
                    Some('0') => s.push('~'),
                    Some('1') => s.push('/'),
                    _ => {
                        return Err(EditError::BadPointer {
                            pointer: pointer.to_string(),
                            reason: "~ must be followed by 0 or 1".to_string(),
                        })
                    }
                }
            } else {
                s.push(c);
            }
        }
        out.push(s);
    }
    Ok(out)
}

/// A JSON pointer segment (RFC 6901): `~` as `~0`, `/` as `~1`; borrowed when there is
/// neither (nearly every property name: the playground escapes thousands per CRD edit).
pub(crate) fn escape_seg(s: &str) -> std::borrow::Cow<'_, str> {
    if s.contains(['~', '/']) {
        std::borrow::Cow::Owned(s.replace('~', "~0").replace('/', "~1"))
    } else {
        std::borrow::Cow::Borrowed(s)
    }
}

/// A list index as RFC 6901 writes it (no sign, no leading zero).
pub(crate) fn parse_index(s: &str) -> Option<usize> {
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) || s.len() > 1 && s.starts_with('0') {
        return None;
    }
    s.parse().ok()
}
