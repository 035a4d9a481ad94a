//! A flat list of test cases, what the JUnit and TAP writers take: `crdlab test` fills it
//! from a suite run, `crdlab validate` can fill it from its objects.

/// One reported case.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CaseRecord {
    /// The group it belongs to (a suite; JUnit's `testsuite`).
    pub group: String,
    pub name: String,
    /// The file it comes from and its 1-based line.
    pub file: String,
    pub line: u32,
    /// The failure text (several lines); `None` when it passed.
    pub failure: Option<String>,
    /// Not run (with the reason).
    pub skipped: Option<String>,
}
