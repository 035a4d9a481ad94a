//! What an editor front end shows for a CRD and objects being edited: the playground's
//! whole judgement, computed here so the Yew app (and any other front end) only renders.
//!
//! [`Workspace::analyze`] takes the three texts and the settings and returns an
//! [`Analysis`]: the CRD's problems with their ranges, every rule with its compile status,
//! costs and fixes, the object's per-field results as a tree, and the `kubectl` summary.
//! The CRD half is computed once per CRD text and target release and shared (`Arc`) by every
//! analysis of objects against it, so typing in the object editor never recompiles the CRD.
//!
//! - [`tree`]: the object's fields with their states;
//! - [`kubectl`]: what `kubectl apply` prints for the answer;
//! - [`share`]: the whole state in a URL fragment.

pub mod diagnostics;
pub mod kubectl;
pub mod model;
pub mod policy;
pub mod share;
pub mod tree;
pub mod workspace;

pub use model::{CrdView, InputError, ObjectView, RuleView, SchemaNode, Settings, VersionView};
pub use workspace::{pointer_escape, Analysis, Workspace};
