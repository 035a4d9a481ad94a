//! Breaking-change detection between two CRDs (`crdlab diff OLD NEW`).
//!
//! The checks, their names, the property paths (`^.spec.mode`) and the message texts are
//! kubernetes-sigs/crdify's, so results compare one to one:
//! - [`crd`]: whole-CRD checks (`scope`, `existingFieldRemoval`, `storedVersionRemoval`);
//! - [`version`]: the `sameVersion` and `servedVersion` validators (which schema pairs are
//!   compared, conversion, unhandled changes);
//! - [`property`]: the property checks run on each pair of schema nodes (`enum`,
//!   `default`, `maximum`…, `required`, `type`, `description`, `pattern`, `nullable`,
//!   `unhandled`);
//! - [`cel`]: what no other tool checks — `x-kubernetes-validations` rules added, removed
//!   or changed (judged on sample objects when given), rules needing a newer Kubernetes
//!   than the target, estimated costs crossing the apiserver's limits, and sample objects
//!   that were valid and now fail;
//! - [`config`]: the crd-diff and crdify configuration formats;
//! - [`report`]: text, markdown, JSON and YAML output.
//!
//! Every finding says whether validation ratcheting (Kubernetes 1.30+) softens it: schema
//! value validations tightened on values an update leaves unchanged are ratcheted;
//! `required`, list types, `allOf/anyOf/oneOf/not` and transition rules are not.

pub(crate) mod cel;
pub mod config;
pub(crate) mod crd;
pub(crate) mod finding;
pub(crate) mod property;
pub mod report;
pub(crate) mod run;
pub(crate) mod side;
pub(crate) mod version;
pub(crate) mod xvalidations;

pub use config::{Config, Enforcement};
pub use finding::{Finding, Ratcheting, Report, Severity, Validator};
pub use run::{diff, diff_sides};
pub use side::{load_objects_dir, objects_from_text, schema_of, Options, SampleObject, Side};
