//! CRD test suites without a cluster (`crdlab test`): openshift/api's suite format
//! (`shared/docs/test-suite-format.md`; its runner is `tests/generator.go` in
//! openshift/api, driving envtest), run over the engine instead of an apiserver.
//!
//! - [`format`]: reading a suite file, with each test's line;
//! - [`layout`]: which CRD files a suite runs against (`crd:`, or `crdName:` in openshift's
//!   layout with feature-set and feature-gate selection), read through the caller's
//!   [`SuiteFiles`] (the library touches no file system);
//! - [`text`]: one suite run from texts (suite YAML, CRD YAML or the suite's inline `crd:`
//!   mapping), for callers without a file system: the npm package, the playground, the widget;
//! - [`run`]: the runner (create, status write, update, status update, `initialCRDPatches`
//!   with the runner's sentinel, comparison of the stored object ignoring server-generated
//!   metadata), one compile per CRD file and release; files read and suites prepared once
//!   for all releases, (suite directory, release) jobs on parallel threads.
//!
//! crdlab adds optional fields, ignored by openshift's runner:
//! - `crd` may hold the CRD manifest itself (a mapping) instead of a file name;
//! - `kubernetesVersions` (suite or test): the releases the tests hold on; on others they
//!   are skipped. Entries: `1.30`, `>=1.30` or `1.30+`, `<1.30`, `<=1.30`, `1.28-1.31`.
//! - `expectedWarnings` (test): each a substring of some warning the apiserver returned
//!   during the test (ratcheted CEL errors).
//! - `expectedCost` (suite): `[{rule: "<rule text>", path: "spec.x", max: N}]`: the rule
//!   (at `path`, a field path such as `spec.x` or the schema path crdlab prints; optional)
//!   must exist and its estimated cost must be at most `N`; reported as one case per bound.

pub mod format;
pub mod layout;
pub mod run;
pub mod text;
pub mod update;

pub use format::{is_suite, parse_suite, parse_suite_with, Suite, Test, TestKind};
pub use layout::{CrdFile, SuiteFiles};
pub use run::{run_files, Case, Failure, Report, SuiteReport, Verdict};
pub use text::{run_texts, Input, InputError};
