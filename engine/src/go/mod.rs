//! Go's standard library, re-expressed once, one file per Go package: what apiserver
//! messages print (`strconv`, `fmt`, `encoding/json`, `unicode`) and the parsers its checks
//! call (`regexp`, `net/netip` and `net`, `net/url`, `net/mail`, `time`, `encoding/base64`).
//! Nothing here knows Kubernetes or CEL (ARCHITECTURE.md: rank 0).

pub mod base64;
pub mod fmt;
pub mod json;
pub mod mail;
pub mod netip;
pub mod neturl;
pub mod regexp;
pub mod strconv;
pub mod time;
pub mod unicode;
