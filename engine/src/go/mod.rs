//! Go's standard library, re-expressed once, one file per Go package: what apiserver
//! messages print (`strconv`, `fmt`, `encoding/json`, `unicode`) and the parsers its checks
//! call (`regexp`, `net/netip` and `net`, `net/url`, `net/mail`, `time`, `encoding/base64`), and `sort`'s one stable sort.
//! Nothing here knows Kubernetes or CEL (ARCHITECTURE.md: rank 0).

pub mod base64;
pub(crate) mod fmt;
pub mod json;
pub(crate) mod mail;
pub(crate) mod netip;
pub(crate) mod neturl;
pub(crate) mod regexp;
pub(crate) mod sort;
pub(crate) mod strconv;
pub(crate) mod time;
pub(crate) mod unicode;
