//! The playground's whole state in a URL fragment: JSON, deflated, base64url — never sent
//! to a server (browsers keep the fragment out of requests), restored when the link opens.
//! `#s=1.<data>`: the `1.` is the format version, so later formats can still read old links.

use crate::go::base64::raw_url_encode;
use serde::{Deserialize, Serialize};

/// Inflated states larger than this are refused (a hostile link cannot exhaust memory).
pub const MAX_STATE_BYTES: usize = 32 << 20;

/// Everything the playground restores from a link.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct State {
    #[serde(default)]
    pub crd: String,
    #[serde(default)]
    pub object: String,
    #[serde(default)]
    pub old_object: String,
    /// The diff tab's old CRD.
    #[serde(default)]
    pub old_crd: String,
    #[serde(default)]
    pub settings: crate::view::model::Settings,
    /// The pane shown (`results`, `rules`, `diff`, `tests`).
    #[serde(default)]
    pub tab: String,
    /// The tests tab's suite (added later: links made before it decode with none, and a
    /// state without one encodes as they did).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub suite: String,
}

#[derive(Clone, Debug, PartialEq)]
pub struct ShareError(pub String);

impl std::fmt::Display for ShareError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "cannot open the shared link: {}", self.0)
    }
}

/// The link's decoder stays hand-written: unlike Go's `RawURLEncoding` it also takes the
/// standard alphabet and stops at `=`, so links re-encoded by other tools still open.
fn unbase64url(text: &str) -> Result<Vec<u8>, ShareError> {
    let mut out = Vec::with_capacity(text.len() * 3 / 4);
    let (mut acc, mut bits) = (0u32, 0u32);
    for c in text.bytes() {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'-' | b'+' => 62,
            b'_' | b'/' => 63,
            b'=' => break,
            _ => return Err(ShareError(format!("unexpected character {:?} in the link's data", c as char))),
        };
        acc = (acc << 6) | u32::from(v);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    Ok(out)
}

/// The fragment (without `#`) for a state.
pub fn encode(state: &State) -> String {
    let json = serde_json::to_vec(state).unwrap_or_default();
    let packed = miniz_oxide::deflate::compress_to_vec(&json, 9);
    format!("s=1.{}", raw_url_encode(&packed))
}

/// Reads a fragment (with or without `#`); `Ok(None)` when it holds no state.
pub fn decode(fragment: &str) -> Result<Option<State>, ShareError> {
    let f = fragment.trim_start_matches('#');
    let Some(data) = f.split('&').find_map(|p| p.strip_prefix("s=")) else {
        return Ok(None);
    };
    let Some(data) = data.strip_prefix("1.") else {
        return Err(ShareError("unknown link format (made by a newer crdlab?)".into()));
    };
    let packed = unbase64url(data)?;
    let json = miniz_oxide::inflate::decompress_to_vec_with_limit(&packed, MAX_STATE_BYTES)
        .map_err(|e| ShareError(format!("the data is damaged ({:?})", e.status)))?;
    serde_json::from_slice(&json)
        .map(Some)
        .map_err(|e| ShareError(format!("the data is damaged ({})", e)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips() {
        let s = State {
            crd: "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\n# é ✓\n".into(),
            object: "{}".into(),
            old_object: String::new(),
            old_crd: "x".repeat(10_000),
            settings: crate::view::model::Settings {
                version: Some("v1".into()),
                kubernetes_version: Some("1.30".into()),
                ratcheting: Some(false),
                status: true,
                compare: vec!["1.29".into(), "1.32".into()],
            },
            tab: "rules".into(),
            suite: "tests:\n  onCreate: []\n".into(),
        };
        let f = encode(&s);
        assert!(f.starts_with("s=1."));
        assert!(f.len() < 1000, "compressed: {}", f.len());
        assert!(f.bytes().all(|b| b.is_ascii_alphanumeric() || b"=.-_".contains(&b)));
        assert_eq!(decode(&format!("#{}", f)).unwrap(), Some(s.clone()));
        assert_eq!(decode(&f).unwrap(), Some(s));
    }

    #[test]
    fn links_made_before_the_suite_field_still_open() {
        // A link of the format before `suite` existed (its JSON has no such key).
        let json = br#"{"crd":"c","object":"o","oldObject":"","oldCrd":"","settings":{},"tab":"diff"}"#;
        let old = format!("s=1.{}", raw_url_encode(&miniz_oxide::deflate::compress_to_vec(json, 9)));
        let s = decode(&old).unwrap().unwrap();
        assert_eq!((s.crd.as_str(), s.tab.as_str(), s.suite.as_str()), ("c", "diff", ""));
        // Without a suite, the state encodes without the key, as before.
        let again = serde_json::to_string(&s).unwrap();
        assert!(!again.contains("suite"), "{}", again);
    }

    #[test]
    fn base64_matches_the_rfc_vectors() {
        for (raw, enc) in [("", ""), ("f", "Zg"), ("fo", "Zm8"), ("foo", "Zm9v"), ("foob", "Zm9vYg"), ("fooba", "Zm9vYmE"), ("foobar", "Zm9vYmFy")] {
            assert_eq!(raw_url_encode(raw.as_bytes()), enc);
            assert_eq!(unbase64url(enc).unwrap(), raw.as_bytes());
        }
        assert_eq!(raw_url_encode(&[0xfb, 0xff]), "-_8");
    }

    #[test]
    fn bad_links_are_errors() {
        assert_eq!(decode("").unwrap(), None);
        assert_eq!(decode("#other=1").unwrap(), None);
        assert!(decode("#s=2.abc").is_err());
        assert!(decode("#s=1.!!!").is_err());
        assert!(decode("#s=1.AAAA").is_err());
        // Valid deflate of something that is not a state.
        let packed = miniz_oxide::deflate::compress_to_vec(b"[1,2]", 6);
        assert!(decode(&format!("s=1.{}", raw_url_encode(&packed))).is_err());
        // A deflate bomb beyond the limit is refused, not inflated.
        let bomb = miniz_oxide::deflate::compress_to_vec(&vec![b' '; MAX_STATE_BYTES + 10], 9);
        let e = decode(&format!("s=1.{}", raw_url_encode(&bomb))).unwrap_err();
        assert!(e.0.contains("damaged"), "{}", e);
    }
}
