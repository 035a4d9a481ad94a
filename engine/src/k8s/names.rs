//! The name and string rules of apimachinery, as it words them (`pkg/util/validation`,
//! `pkg/api/validate/content`): DNS labels and subdomains, qualified names (label keys),
//! label values. CRD validation, object metadata and the CEL format library use them
//! (`unicode.IsPrint` is [`crate::go::unicode::is_print`]).

use crate::version::KubeVersion;

/// `MaxLenError`: util/validation's wording.
pub fn max_len_error(n: usize) -> String {
    format!("must be no more than {} characters", n)
}

/// The release from which util/validation's `IsQualifiedName` and `IsValidLabelValue`
/// delegate to apimachinery's `api/validate/content` package (`content.IsLabelKey`,
/// `content.IsLabelValue`): its `MaxLenError` says "bytes" (also for the DNS-subdomain
/// prefix of a key, checked by `content.IsDNS1123Subdomain`) and a key with several
/// slashes is "a valid label key" instead of "a qualified name". Names and namespaces keep
/// util/validation's own `IsDNS1123Subdomain` ("characters") in every release.
pub const LABEL_CHECKS_IN_CONTENT_SINCE: u32 = crate::version::Feature::LabelChecksInBytes.since();

/// The length unit a `MaxLenError` names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum LenUnit {
    /// util/validation's `MaxLenError`.
    Characters,
    /// `content.MaxLenError`.
    Bytes,
}

impl LenUnit {
    fn of_label_checks(kube: KubeVersion) -> LenUnit {
        if kube.at_least(LABEL_CHECKS_IN_CONTENT_SINCE) {
            LenUnit::Bytes
        } else {
            LenUnit::Characters
        }
    }

    fn max_len_error(self, n: usize) -> String {
        match self {
            LenUnit::Characters => max_len_error(n),
            LenUnit::Bytes => format!("must be no more than {} bytes", n),
        }
    }
}

/// `RegexError`.
pub fn regex_error(msg: &str, fmt: &str, examples: &[&str]) -> String {
    if examples.is_empty() {
        return format!("{} (regex used for validation is '{}')", msg, fmt);
    }
    let mut s = format!("{} (e.g. ", msg);
    for (i, e) in examples.iter().enumerate() {
        if i > 0 {
            s.push_str(" or ");
        }
        s.push('\'');
        s.push_str(e);
        s.push_str("', ");
    }
    s.push_str("regex used for validation is '");
    s.push_str(fmt);
    s.push_str("')");
    s
}

const DNS1123_LABEL_FMT: &str = "[a-z0-9]([-a-z0-9]*[a-z0-9])?";
const DNS1123_SUBDOMAIN_FMT: &str =
    "[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*";
const DNS1035_LABEL_FMT: &str = "[a-z]([-a-z0-9]*[a-z0-9])?";
const LABEL_KEY_FMT: &str = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]";
const LABEL_KEY_MSG: &str =
    "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const LABEL_VALUE_FMT: &str = "(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?";

fn is_lower_alnum(c: u8) -> bool {
    c.is_ascii_lowercase() || c.is_ascii_digit()
}

/// `^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
fn matches_dns1123_label(s: &str) -> bool {
    let b = s.as_bytes();
    !b.is_empty()
        && is_lower_alnum(b[0])
        && is_lower_alnum(b[b.len() - 1])
        && b.iter().all(|&c| is_lower_alnum(c) || c == b'-')
}

/// `IsDNS1123Subdomain`.
pub fn is_dns1123_subdomain(s: &str) -> Vec<String> {
    dns1123_subdomain_in(s, LenUnit::Characters)
}

/// `IsDNS1123Subdomain` of util/validation or of `content`, by the unit its length
/// error names.
fn dns1123_subdomain_in(s: &str, unit: LenUnit) -> Vec<String> {
    let mut errs = Vec::new();
    if s.len() > 253 {
        errs.push(unit.max_len_error(253));
    }
    if !s.split('.').all(matches_dns1123_label) {
        errs.push(regex_error(
            "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character",
            DNS1123_SUBDOMAIN_FMT,
            &["example.com"],
        ));
    }
    errs
}

/// `IsDNS1123Label`.
pub fn is_dns1123_label(s: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if s.len() > 63 {
        errs.push(max_len_error(63));
    }
    if !matches_dns1123_label(s) {
        if s.split('.').all(matches_dns1123_label) {
            errs.push("must not contain dots".to_string());
        } else {
            errs.push(regex_error(
                "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character",
                DNS1123_LABEL_FMT,
                &["my-name", "123-abc"],
            ));
        }
    }
    errs
}

/// `IsDNS1035Label`.
pub fn is_dns1035_label(s: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if s.len() > 63 {
        errs.push(max_len_error(63));
    }
    let b = s.as_bytes();
    let ok = !b.is_empty()
        && b[0].is_ascii_lowercase()
        && is_lower_alnum(b[b.len() - 1])
        && b.iter().all(|&c| is_lower_alnum(c) || c == b'-');
    if !ok {
        errs.push(regex_error(
            "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character",
            DNS1035_LABEL_FMT,
            &["my-name", "abc-123"],
        ));
    }
    errs
}

/// `^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$`
fn matches_label_key_name(s: &str) -> bool {
    let b = s.as_bytes();
    !b.is_empty()
        && b[0].is_ascii_alphanumeric()
        && b[b.len() - 1].is_ascii_alphanumeric()
        && b.iter()
            .all(|&c| c.is_ascii_alphanumeric() || c == b'-' || c == b'_' || c == b'.')
}

/// `IsQualifiedName` (= `content.IsLabelKey` from 1.35, see
/// [`LABEL_CHECKS_IN_CONTENT_SINCE`]) as `kube` words it.
pub fn is_qualified_name(value: &str, kube: KubeVersion) -> Vec<String> {
    let unit = LenUnit::of_label_checks(kube);
    let mut errs = Vec::new();
    let parts: Vec<&str> = value.split('/').collect();
    let name = match parts.len() {
        1 => parts[0],
        2 => {
            let prefix = parts[0];
            if prefix.is_empty() {
                errs.push("prefix part must be non-empty".to_string());
            } else {
                for m in dns1123_subdomain_in(prefix, unit) {
                    errs.push(format!("prefix part {}", m));
                }
            }
            parts[1]
        }
        _ => {
            let what = match unit {
                LenUnit::Bytes => "a valid label key",
                LenUnit::Characters => "a qualified name",
            };
            errs.push(format!(
                "{} {} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
                what,
                regex_error(LABEL_KEY_MSG, LABEL_KEY_FMT, &["MyName", "my.name", "123-abc"])
            ));
            return errs;
        }
    };
    if name.is_empty() {
        errs.push("name part must be non-empty".to_string());
    } else if name.len() > 63 {
        errs.push(format!("name part {}", unit.max_len_error(63)));
    }
    if !matches_label_key_name(name) {
        errs.push(format!(
            "name part {}",
            regex_error(
                LABEL_KEY_MSG,
                LABEL_KEY_FMT,
                &["MyName", "my.name", "123-abc"]
            )
        ));
    }
    errs
}

/// `IsValidLabelValue` (= `content.IsLabelValue` from 1.35) as `kube` words it.
pub fn is_valid_label_value(v: &str, kube: KubeVersion) -> Vec<String> {
    let mut errs = Vec::new();
    if v.len() > 63 {
        errs.push(LenUnit::of_label_checks(kube).max_len_error(63));
    }
    if !v.is_empty() && !matches_label_key_name(v) {
        errs.push(regex_error(
            "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character",
            LABEL_VALUE_FMT,
            &["MyValue", "my_value", "12345"],
        ));
    }
    errs
}

/// `NameIsDNSSubdomain`: a generateName prefix may end in '-'.
pub fn name_is_dns_subdomain(name: &str, prefix: bool) -> Vec<String> {
    if prefix && name.len() > 1 && name.ends_with('-') {
        // Go's maskTrailingDash: name[:len(name)-2] + "a" (bytes, so it also drops the byte
        // before the dash).
        let mut masked = name.as_bytes()[..name.len() - 2].to_vec();
        masked.push(b'a');
        return is_dns1123_subdomain(&String::from_utf8_lossy(&masked));
    }
    is_dns1123_subdomain(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dns_rules() {
        assert!(is_dns1035_label("v1alpha1").is_empty());
        assert_eq!(
            is_dns1035_label("1v"),
            vec!["a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')"]
        );
        assert!(is_dns1123_subdomain("example.com").is_empty());
        assert_eq!(is_dns1123_subdomain("Example.com").len(), 1);
        let k = KubeVersion::LATEST;
        assert!(is_qualified_name("api-approved.openshift.io", k).is_empty());
        assert!(
            is_qualified_name("include.release.openshift.io/self-managed-high-availability", k)
                .is_empty()
        );
        assert_eq!(is_qualified_name("a/b/c", k).len(), 1);
        assert_eq!(
            is_dns1123_label("a.b"),
            vec!["must not contain dots".to_string()]
        );
    }

    #[test]
    fn label_lengths_are_bytes_from_1_35() {
        let long_prefix = format!("{}/x", "a".repeat(254));
        let v36 = KubeVersion { minor: 36 };
        let v34 = KubeVersion { minor: 34 };
        assert_eq!(is_qualified_name(&long_prefix, v36), vec!["prefix part must be no more than 253 bytes"]);
        assert_eq!(is_qualified_name(&long_prefix, v34), vec!["prefix part must be no more than 253 characters"]);
        let long = "v".repeat(64);
        assert_eq!(is_valid_label_value(&long, v36), vec!["must be no more than 63 bytes"]);
        assert_eq!(is_valid_label_value(&long, v34), vec!["must be no more than 63 characters"]);
        assert_eq!(is_qualified_name(&long, v36), vec!["name part must be no more than 63 bytes"]);
        assert!(is_qualified_name("a/b/c", v34)[0].starts_with("a qualified name must consist"));
        assert!(is_qualified_name("a/b/c", v36)[0].starts_with("a valid label key must consist"));
        // Names keep util/validation's wording.
        assert_eq!(is_dns1123_subdomain(&"a".repeat(254)), vec!["must be no more than 253 characters"]);
    }
}
