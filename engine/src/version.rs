//! The Kubernetes release a request targets, and the one table of what crdlab knows about
//! each release: [`RELEASES`] (which releases exist, what each one changed) and [`Feature`]
//! (every behaviour that switches on the release, with the release it arrived in).
//! engine/VERSIONS.md explains each row.
//!
//! Adding a release (say 1.38) is: one new [`RELEASES`] row; a [`Feature`] variant (with its
//! `since` and `summary`) for each behaviour 1.38 changes, read where that behaviour lives;
//! the VERSIONS.md rows. [`KubeVersion::LATEST`], the supported range, the CLI help, the
//! playground's release picker and the npm package's `version()` all follow the table.
//! (The CEL libraries stay gated in their own files under `cel/library/`, each at the
//! compatibility version apiserver `environment/base.go` introduces it.)

use std::fmt;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct KubeVersion {
    pub minor: u32,
}

/// A Kubernetes release crdlab reproduces.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Release {
    pub version: KubeVersion,
    /// The google/cel-go version the release is modelled on (its latest patch; for 1.37
    /// the v1.37.0-beta.0 the vectors were answered by). `x` where the patch is not
    /// verified: 1.35–1.37 are modelled on v0.26's cost code (1.37.0-beta.0's runtime
    /// `startsWith` cost is still the receiver's, as before google/cel-go#1351).
    pub cel_go: &'static str,
    /// What changed for CRDs and CEL rules in this release, in one line.
    pub summary: &'static str,
}

const fn release(minor: u32, cel_go: &'static str, summary: &'static str) -> Release {
    Release { version: KubeVersion { minor }, cel_go, summary }
}

/// Every release crdlab reproduces, oldest first, without gaps (a test checks it). The
/// first row is [`KubeVersion::MIN`], the last [`KubeVersion::LATEST`].
pub const RELEASES: &[Release] = &[
    release(25, "v0.12.7", "CEL validation rules (beta, on by default)"),
    release(26, "v0.12.7", "CEL rule fixes; no CRD-visible change modelled"),
    release(27, "v0.12.7", "messageExpression"),
    release(28, "v0.16.1", "reason and fieldPath; CRDValidationRatcheting gate (alpha); string literal sizes in code points"),
    release(29, "v0.17.8", "CEL failures ratchet as warnings; optional types, quantity and cross-type comparisons for new rules; has() costs its operand; enum-bounded strings; && / || operands checked one by one"),
    release(30, "v0.17.8", "ratcheting on by default; optionalOldSelf; strings v2, sets, literal validators for new rules"),
    release(31, "v0.20.1", "selectableFields; ip and cidr for new rules"),
    release(32, "v0.22.x", "reworded Too long / Too many; format library and reserved-word field names for new rules; Kubernetes-type equality costs"),
    release(33, "v0.23.2", "two-variable comprehensions for new rules; cel-go's new coster (locals, entry sizes)"),
    release(34, "v0.26.0", "unrecognized-format warnings; field values print as JSON; semver for new rules; maxLength bounds int-or-string"),
    release(35, "v0.26.x", "failed rules print scalar values; k8s-short-name/k8s-long-name formats; lists extension v3 for new rules; label lengths in bytes"),
    release(36, "v0.26.x", "numeric formats kept and checked; format warnings on every type; bare Required value for a missing schema"),
    release(37, "v0.26.x", "metadata.name (253) and generateName (252) are bounded in cost estimates (kubernetes#139573)"),
];

/// A behaviour that switches on the release. [`Feature::since`] is the first release with
/// it; for [`Gate::Compatibility`] features it is the first *compatibility version* (the
/// CEL environment new rules of release N compile in is N − 1, the stored-expressions
/// environment N), for [`Gate::Release`] ones the server binary's release.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Feature {
    // ---- CRD fields and checks
    /// `messageExpression` is a known rule field (before: dropped by the decoder).
    MessageExpression,
    /// `reason` and `fieldPath` are known rule fields.
    ReasonAndFieldPath,
    /// `optionalOldSelf` is kept and checked (1.29 drops it: its gate is off).
    OptionalOldSelf,
    /// `selectableFields` are checked (the CustomResourceFieldSelectors gate, beta).
    SelectableFields,
    /// On a CRD update, versions whose schema is unchanged skip the per-rule cost errors.
    SuppressUnchangedSchemaCost,
    /// The second default-rule pass without an old value.
    DefaultsWithoutOldSelf,
    /// `unrecognized format "<f>"` CRD warnings.
    FormatWarnings,
    /// Numeric formats kept, validated, and warned about on every type (kubernetes#136582).
    NumericFormats,
    /// A version without a schema is a bare `…openAPIV3Schema: Required value` (before:
    /// `Required value: schemas are required`).
    BareSchemaRequired,
    /// Label keys/values, annotation keys and finalizers are checked by apimachinery's
    /// content validators: `must be no more than 63 bytes`, `a valid label key` (before:
    /// `characters`, `a qualified name`).
    LabelChecksInBytes,
    // ---- validation ratcheting
    /// The CRDValidationRatcheting gate exists (alpha, off).
    RatchetingGate,
    /// CEL rule failures on unchanged values ratchet, as warnings.
    CelRatcheting,
    /// Ratcheting on by default (gate beta).
    RatchetingByDefault,
    // ---- object validation flow (customresource strategy and validator)
    /// A status update checks `x-kubernetes-list-type` sets and maps, ratcheting on the old
    /// object's list-type errors (kubernetes#111866; before, the status strategy skips them).
    StatusListTypeValidation,
    /// A status update validates `.status` alone against the status schema, so the
    /// OpenAPI texts name paths relative to `status` (kubernetes#119340, the ratcheting
    /// rework); before, the whole object against the whole schema (`status.x in body`).
    StatusSchemaValidator,
    /// Those status errors are rooted at `status.` again (kubernetes#123822); 1.28–1.30
    /// report them without the prefix.
    StatusErrorsUnderStatus,
    /// An enum violation (`Unsupported value`) is a blocking error that keeps the CEL rules
    /// from running (`hasBlockingErr`, kubernetes#121085); before, only required, type and
    /// size errors block.
    EnumErrorsBlockCel,
    /// kube-openapi's object validator walks the properties (and checks `required`) after a
    /// `minProperties`/`maxProperties` error (kube-openapi#412); before, that error is all
    /// it reports for the object.
    ObjectValidatorVisitsAll,
    /// Ratcheting compares a list that does not correlate item by item (anything but a map
    /// list) as a unit, `reflect.DeepEqual` (apiserver `cel/common` `CorrelatedObject`,
    /// shared with CEL ratcheting by kubernetes#121016); 1.28's own validator never finds
    /// such a non-empty list unchanged, so errors in and above it are not ratcheted.
    RatchetingListsAsUnits,
    /// Status-subresource updates are validated without ratcheting: kubernetes#121016 moved
    /// the ratcheting switch into options the strategy passes, and the status strategy
    /// passed none until kubernetes#129506 (1.33). 1.28 ratchets them (inside the validator).
    StatusUpdatesUnratcheted,
    // ---- messages
    /// `Too long: may not be more than N bytes` / `must have at most 1 item` (kubernetes#128553).
    RewordedTooLongTooMany,
    /// Field error values print as JSON (before: Go `%#v`); rules in CRD errors as JSON.
    JsonFieldValues,
    /// Failed CEL rules print scalar values (before: the schema type).
    PrintRuleValues,
    // ---- CEL grammar and environments (compatibility version)
    /// Optional syntax and types (`?.`, `[?]`, `optional.*`), cross-type numeric comparisons.
    OptionalSyntax,
    /// Constant duration/timestamp/regex arguments are checked at compile time.
    LiteralValidators,
    /// `_&&_`/`_||_` operands are checked one by one (`expected type 'bool' but found
    /// 'int'`; cel-go v0.17's resolveOverload), not as an overload.
    LogicalOperandChecks,
    /// Reserved words usable as field names (`self.namespace`).
    KeywordFieldNames,
    /// The grammar has the optional-syntax alternatives (cel-go v0.14+): syntax errors list
    /// the `'?'` token, and `.?`/`[?`/`{?` are the parser's `unsupported syntax` when the
    /// environment lacks optional syntax. Before (cel-go v0.12), a `?` there is an ANTLR
    /// syntax error (`extraneous input '?' expecting IDENTIFIER`, `missing ']' at '?'`)
    /// and a reserved word after `.` is `missing IDENTIFIER at 'in'`.
    GrammarOptionalToken,
    /// Syntax errors list the `ESC_IDENTIFIER` token (cel-go v0.23 grammar); the lexer
    /// knows backquoted identifiers (an escaped name outside a field selection is
    /// `unsupported syntax`). Before, each backquote is an ANTLR `token recognition
    /// error` and is skipped.
    GrammarEscapedIdentifier,
    /// An undeclared member function or message type has the error type (silent in the
    /// enclosing call); before (cel-go v0.12–v0.16) it has none, printed `<nil>` by the
    /// enclosing call's `found no matching overload` (cel-go v0.17 `checkCall`).
    UndeclaredCallsTyped,
    /// `found no matching overload` prints the argument types with their type variables
    /// substituted (unbound ones as `dyn`); before (cel-go v0.12), as recorded
    /// (`list(_var0)`). cel-go v0.13+ `resolveOverload`.
    OverloadErrorArgsSubstituted,
    /// Mixed-type list/map literal elements are found by the homogeneous aggregate literal
    /// validator after a clean check (cel-go v0.17); before, by the checker's `joinTypes`
    /// (`expected type 'int' but found 'double'` at the element, the literal typed
    /// `list(!error!)`), together with the other checker errors.
    HomogeneousLiteralValidator,
    /// The standard library declares the global `matches(string, string)` (google/cel-go#589,
    /// cel-go v0.13; 1.25–1.27 vendor v0.12, which has only the member
    /// `string.matches(string)`: `found no matching overload for 'matches' applied to
    /// '(string, string)'`).
    GlobalMatches,
    /// Checker errors are located in code points; from cel-go v0.17 (1.29) crdlab keeps the
    /// `cel` crate's UTF-8 byte offsets (no vector of 1.29+ shows a located error after a
    /// non-ASCII character; the 1.25–1.28 ones are in code points).
    CheckerByteColumns,
    /// An output type that is a type of types prints its parameter (`type(int)`); before
    /// (cel-go v0.12–v0.16's `cel.Type`), a bare `type`. Expression mode's `outputType`.
    OutputTypeParameters,
    // ---- cost (the release's cel-go and apiserver cost code)
    /// String literal sizes count code points (google/cel-go#664).
    StringLiteralCodePoints,
    /// `has(x.f)` costs its operand, plus the presence test's own cost (google/cel-go#711).
    PresenceTestCostsOperand,
    /// The presence test itself costs 0 again: `PresenceTestHasCost(false)` (kubernetes#122193).
    PresenceTestFree,
    /// A string with an `enum` and no `maxLength` is as long as its longest value.
    EnumBoundsStringLength,
    /// Library calls keep the result size the apiserver's estimator gives (google/cel-go#787).
    LibraryResultSizes,
    /// `quantity()`/`isQuantity()` cost a traversal of their argument (apiserver cost.go, 1.30).
    QuantityParseCost,
    /// cel-go v0.17's `multiplyByCostFactor` saturates products of 2^64 and more (before: 2^63).
    CostFactorSaturates,
    /// A comprehension's result has its range's size (google/cel-go#901), until 1.33's coster.
    ComprehensionResultRangeSize,
    /// `_==_` on Kubernetes types has the apiserver's own estimate (kubernetes#126359).
    KubernetesTypeEquality,
    /// cel-go's new coster: locals, entry sizes, bind-shaped comprehensions (google/cel-go#1104).
    CostTracksLocals,
    /// `maxLength` bounds an `x-kubernetes-int-or-string` (kubernetes#132837).
    IntOrStringMaxLength,
    /// `metadata.name`/`generateName` bounded to 253/252 bytes in estimates (kubernetes#139573).
    MetadataNameMaxLength,
    // ---- CEL libraries: the release's cel-go and apiserver library code
    /// A list index outside the list is `index out of bounds: 100`; before (cel-go v0.12,
    /// 1.25–1.27), `index '100' out of range in list size '8'` (its list `Get`).
    IndexOutOfBoundsText,
    /// The optional type is named `optional_type` (`optional_type(int)`, `type(x) ==
    /// optional_type`); before, `optional` (google/cel-go#870, from cel-go v0.18.2; 1.30
    /// has v0.17.8, 1.31 v0.20.1).
    OptionalTypeName,
    /// `string.format` calls with a literal format and a literal list are checked when the
    /// expression compiles (cel-go `ext/formatting.go` `stringFormatValidator`, not in
    /// 1.30's v0.17.8, in 1.31's v0.20.1); before, the same errors come at evaluation.
    FormatCallValidator,
    /// cel-go v0.20.1's format validator (1.31) dereferences a nil literal when a `format`
    /// member call's receiver is not a literal (`matchConstantFormatStringWithListLiteralArgs`,
    /// formatting.go:487): compiling any such expression panics. cel-go v0.22 (1.32) tests the
    /// receiver's kind first.
    FormatValidatorPanicsOnNonLiteral,
    /// `indexOf`/`lastIndexOf` with an offset at or past the end of the string find nothing
    /// (-1); before, `index out of range: N` (cel-go `ext/strings.go`
    /// `indexOfOffset`/`lastIndexOfOffset`, v0.22 in 1.32; v0.20.1 errs).
    IndexOfPastEndNotFound,
    /// The optional library's version-2 functions: `list.first()`, `list.last()`
    /// (google/cel-go#1067), `optional.unwrap(list)` and `list.unwrapOpt()`
    /// (google/cel-go#1103), in cel-go v0.23 (1.33); Kubernetes enables the library
    /// without a version cap, so they come with the release's cel-go.
    OptionalListFunctions,
    /// `%e` prints `1.052033×10⁰³`; before, `1.052033 × 10⁰³` with narrow no-break spaces
    /// (U+202F) around the `×`: the en-US scientific pattern of the golang.org/x/text that
    /// cel-go's `ext` formatting used, as 1.32 and older vendor them.
    ScientificWithoutSpaces,
}

/// What a [`Feature`] is gated on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Gate {
    /// The server binary: the release itself, whatever the compatibility version.
    Release,
    /// The CEL environment's compatibility version.
    Compatibility,
}

impl Feature {
    pub const ALL: &'static [Feature] = &[
        Feature::MessageExpression,
        Feature::ReasonAndFieldPath,
        Feature::OptionalOldSelf,
        Feature::SelectableFields,
        Feature::SuppressUnchangedSchemaCost,
        Feature::DefaultsWithoutOldSelf,
        Feature::FormatWarnings,
        Feature::NumericFormats,
        Feature::BareSchemaRequired,
        Feature::LabelChecksInBytes,
        Feature::RatchetingGate,
        Feature::CelRatcheting,
        Feature::RatchetingByDefault,
        Feature::StatusListTypeValidation,
        Feature::StatusSchemaValidator,
        Feature::StatusErrorsUnderStatus,
        Feature::EnumErrorsBlockCel,
        Feature::ObjectValidatorVisitsAll,
        Feature::RatchetingListsAsUnits,
        Feature::StatusUpdatesUnratcheted,
        Feature::RewordedTooLongTooMany,
        Feature::JsonFieldValues,
        Feature::PrintRuleValues,
        Feature::OptionalSyntax,
        Feature::LiteralValidators,
        Feature::LogicalOperandChecks,
        Feature::KeywordFieldNames,
        Feature::GrammarOptionalToken,
        Feature::GrammarEscapedIdentifier,
        Feature::UndeclaredCallsTyped,
        Feature::OverloadErrorArgsSubstituted,
        Feature::HomogeneousLiteralValidator,
        Feature::GlobalMatches,
        Feature::CheckerByteColumns,
        Feature::OutputTypeParameters,
        Feature::StringLiteralCodePoints,
        Feature::PresenceTestCostsOperand,
        Feature::PresenceTestFree,
        Feature::EnumBoundsStringLength,
        Feature::CostFactorSaturates,
        Feature::QuantityParseCost,
        Feature::LibraryResultSizes,
        Feature::ComprehensionResultRangeSize,
        Feature::KubernetesTypeEquality,
        Feature::CostTracksLocals,
        Feature::IntOrStringMaxLength,
        Feature::MetadataNameMaxLength,
        Feature::IndexOutOfBoundsText,
        Feature::OptionalTypeName,
        Feature::FormatCallValidator,
        Feature::FormatValidatorPanicsOnNonLiteral,
        Feature::IndexOfPastEndNotFound,
        Feature::OptionalListFunctions,
        Feature::ScientificWithoutSpaces,
    ];

    /// The first release (or compatibility version, see [`Feature::gate`]) with it.
    pub const fn since(self) -> u32 {
        match self {
            Feature::MessageExpression => 27,
            Feature::ReasonAndFieldPath => 28,
            Feature::OptionalOldSelf => 30,
            Feature::SelectableFields => 31,
            Feature::SuppressUnchangedSchemaCost => 29,
            Feature::DefaultsWithoutOldSelf => 30,
            Feature::FormatWarnings => 34,
            Feature::NumericFormats => 36,
            Feature::BareSchemaRequired => 36,
            Feature::LabelChecksInBytes => 35,
            Feature::RatchetingGate => 28,
            Feature::CelRatcheting => 29,
            Feature::RatchetingByDefault => 30,
            Feature::StatusListTypeValidation => 26,
            Feature::StatusSchemaValidator => 28,
            Feature::StatusErrorsUnderStatus => 31,
            Feature::EnumErrorsBlockCel => 29,
            Feature::ObjectValidatorVisitsAll => 28,
            Feature::RatchetingListsAsUnits => 29,
            Feature::StatusUpdatesUnratcheted => 29,
            Feature::RewordedTooLongTooMany => 32,
            Feature::JsonFieldValues => 34,
            Feature::PrintRuleValues => 35,
            Feature::OptionalSyntax => 28,
            Feature::LiteralValidators => 29,
            Feature::LogicalOperandChecks => 29,
            Feature::KeywordFieldNames => 31,
            Feature::GrammarOptionalToken => 28,
            Feature::GrammarEscapedIdentifier => 33,
            Feature::UndeclaredCallsTyped => 29,
            Feature::OverloadErrorArgsSubstituted => 28,
            Feature::HomogeneousLiteralValidator => 29,
            Feature::GlobalMatches => 28,
            Feature::CheckerByteColumns => 29,
            Feature::OutputTypeParameters => 29,
            Feature::StringLiteralCodePoints => 28,
            Feature::PresenceTestCostsOperand => 28,
            Feature::PresenceTestFree => 29,
            Feature::EnumBoundsStringLength => 29,
            Feature::CostFactorSaturates => 29,
            Feature::QuantityParseCost => 30,
            Feature::LibraryResultSizes => 26,
            Feature::ComprehensionResultRangeSize => 29,
            Feature::KubernetesTypeEquality => 32,
            Feature::CostTracksLocals => 33,
            Feature::IntOrStringMaxLength => 34,
            Feature::MetadataNameMaxLength => 37,
            Feature::IndexOutOfBoundsText => 28,
            Feature::OptionalTypeName => 31,
            Feature::FormatCallValidator => 31,
            Feature::FormatValidatorPanicsOnNonLiteral => 31,
            Feature::IndexOfPastEndNotFound => 32,
            Feature::OptionalListFunctions => 33,
            Feature::ScientificWithoutSpaces => 33,
        }
    }

    /// The release that took it away again, if any.
    pub const fn until(self) -> Option<u32> {
        match self {
            // From cel-go v0.23 the result has its accumulator's size instead.
            Feature::ComprehensionResultRangeSize => Some(Feature::CostTracksLocals.since()),
            // kubernetes#129506 passes the ratcheting options to the status validators.
            Feature::StatusUpdatesUnratcheted => Some(33),
            Feature::FormatValidatorPanicsOnNonLiteral => Some(32),
            _ => None,
        }
    }

    pub const fn gate(self) -> Gate {
        match self {
            Feature::OptionalSyntax | Feature::LiteralValidators | Feature::KeywordFieldNames => Gate::Compatibility,
            _ => Gate::Release,
        }
    }

    /// Whether a release (or, for [`Gate::Compatibility`] features, a compatibility
    /// version) with this minor has it.
    pub const fn enabled_at(self, minor: u32) -> bool {
        minor >= self.since()
            && match self.until() {
                Some(u) => minor < u,
                None => true,
            }
    }
}

impl KubeVersion {
    /// The oldest release in [`RELEASES`].
    pub const MIN: KubeVersion = RELEASES[0].version;
    /// The newest release in [`RELEASES`]: what everything a person uses defaults to (the
    /// CLI's `validate`/`cost`/`versions`/`diff`, the playground, the npm package).
    pub const LATEST: KubeVersion = RELEASES[RELEASES.len() - 1].version;
    /// The release a `crdlab batch` request without `kubernetesVersion` targets: the
    /// protocol (shared/docs/vector-format.md) fixes it at 1.36, the release whose answers
    /// the vectors without a version hold. Everything a person uses defaults to [`Self::LATEST`].
    pub const PROTOCOL_DEFAULT: KubeVersion = KubeVersion { minor: 36 };

    /// Parses `1.32`, `v1.32` or `1.32.3`.
    ///
    /// # Example
    ///
    /// ```
    /// use crdlab::KubeVersion;
    /// let v = KubeVersion::parse("1.30").unwrap();
    /// assert!(v < KubeVersion::LATEST);
    /// assert!(KubeVersion::parse("1.24").is_err());
    /// ```
    pub fn parse(s: &str) -> Result<KubeVersion, String> {
        let t = s.trim().trim_start_matches('v');
        let mut parts = t.split('.');
        let major = parts.next().and_then(|p| p.parse::<u32>().ok());
        let minor = parts.next().and_then(|p| p.parse::<u32>().ok());
        match (major, minor) {
            (Some(1), Some(m)) if (Self::MIN.minor..=Self::LATEST.minor).contains(&m) => Ok(KubeVersion { minor: m }),
            (Some(1), Some(_)) => Err(format!(
                "kubernetesVersion {:?} is not supported: crdlab targets {} to {}",
                s,
                Self::MIN,
                Self::LATEST
            )),
            _ => Err(format!("kubernetesVersion {:?} is not a Kubernetes version like \"1.32\"", s)),
        }
    }

    /// Every supported release, oldest first (the [`RELEASES`] table).
    pub fn supported() -> impl DoubleEndedIterator<Item = KubeVersion> + ExactSizeIterator {
        RELEASES.iter().map(|r| r.version)
    }

    /// The supported releases as `"1.25"` ... `"1.37"`, oldest first: the npm package's
    /// `version().kubernetesVersions`.
    pub fn supported_names() -> Vec<String> {
        Self::supported().map(|v| v.to_string()).collect()
    }

    /// The supported releases as `"1.37"` ... `"1.25"`, newest first: the playground's
    /// release picker.
    pub fn supported_names_newest_first() -> Vec<String> {
        Self::supported().rev().map(|v| v.to_string()).collect()
    }

    /// This release's row of [`RELEASES`] (`None` for a version outside the table, which
    /// [`KubeVersion::parse`] never returns).
    pub fn release(self) -> Option<&'static Release> {
        RELEASES.iter().find(|r| r.version == self)
    }

    pub fn at_least(self, minor: u32) -> bool {
        self.minor >= minor
    }

    /// Whether this release has `f` ([`Feature::enabled_at`] of its minor; for a
    /// [`Gate::Compatibility`] feature that is the stored-expressions environment's view).
    pub const fn has(self, f: Feature) -> bool {
        f.enabled_at(self.minor)
    }

    /// Validation ratcheting as the release ships it: the `CRDValidationRatcheting` gate
    /// arrived in 1.28 (alpha, off) and is on by default from 1.30 (beta; GA in 1.33).
    pub fn ratcheting_by_default(self) -> bool {
        self.has(Feature::RatchetingByDefault)
    }

    /// Whether ratcheting can be turned on at all: from 1.28, where the gate exists.
    pub fn ratcheting_available(self) -> bool {
        self.has(Feature::RatchetingGate)
    }

    /// The ratcheting a request asks for (`None`: the release's default), or why the
    /// release cannot do it.
    pub fn ratcheting(self, asked: Option<bool>) -> Result<bool, String> {
        match asked {
            None => Ok(self.ratcheting_by_default()),
            Some(true) if !self.ratcheting_available() => Err(format!(
                "ratcheting is not available on Kubernetes {}: validation ratcheting arrived in 1.{} (the CRDValidationRatcheting feature gate; on by default from 1.{})",
                self,
                Feature::RatchetingGate.since(),
                Feature::RatchetingByDefault.since(),
            )),
            Some(b) => Ok(b),
        }
    }
}

impl Default for KubeVersion {
    fn default() -> Self {
        Self::LATEST
    }
}

impl fmt::Display for KubeVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "1.{}", self.minor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn releases_are_contiguous_and_bound_the_range() {
        assert_eq!(KubeVersion::MIN, KubeVersion { minor: 25 });
        assert_eq!(KubeVersion::LATEST, KubeVersion { minor: 37 });
        for w in RELEASES.windows(2) {
            assert_eq!(w[0].version.minor + 1, w[1].version.minor, "gap after {}", w[0].version);
        }
        assert!(KubeVersion::PROTOCOL_DEFAULT.release().is_some());
        assert_eq!(KubeVersion::default(), KubeVersion::LATEST);
        assert_eq!(KubeVersion::supported().len(), RELEASES.len());
    }

    #[test]
    fn parse_accepts_exactly_the_table() {
        for r in RELEASES {
            assert_eq!(KubeVersion::parse(&r.version.to_string()), Ok(r.version));
        }
        assert_eq!(KubeVersion::parse("v1.37.0-beta.0"), Ok(KubeVersion { minor: 37 }));
        assert_eq!(
            KubeVersion::parse("1.38").unwrap_err(),
            "kubernetesVersion \"1.38\" is not supported: crdlab targets 1.25 to 1.37"
        );
        assert_eq!(
            KubeVersion::parse("1.24").unwrap_err(),
            "kubernetesVersion \"1.24\" is not supported: crdlab targets 1.25 to 1.37"
        );
    }

    #[test]
    fn name_lists_follow_the_table() {
        let names = KubeVersion::supported_names();
        assert_eq!(names.first().map(String::as_str), Some("1.25"));
        assert_eq!(names.last().map(String::as_str), Some("1.37"));
        let mut newest_first = KubeVersion::supported_names_newest_first();
        assert_eq!(newest_first[0], "1.37");
        newest_first.reverse();
        assert_eq!(newest_first, names);
    }

    #[test]
    fn every_feature_is_listed_and_arrives_within_the_range_or_before() {
        for f in Feature::ALL {
            assert!(f.since() <= KubeVersion::LATEST.minor, "{:?}", f);
            assert!(KubeVersion::LATEST.has(*f) || f.until().is_some(), "{:?}", f);
        }
        // Feature::ALL has every variant once (a new variant left out of it is caught by
        // the exhaustive `since` match only if listed here too).
        let mut seen = std::collections::HashSet::new();
        for f in Feature::ALL {
            assert!(seen.insert(*f), "{:?} twice", f);
        }
    }

    #[test]
    fn features_switch_at_their_release() {
        let v = |m| KubeVersion { minor: m };
        assert!(!v(36).has(Feature::MetadataNameMaxLength));
        assert!(v(37).has(Feature::MetadataNameMaxLength));
        // A feature that a later release took back.
        assert!(!v(28).has(Feature::ComprehensionResultRangeSize));
        assert!(v(29).has(Feature::ComprehensionResultRangeSize));
        assert!(v(32).has(Feature::ComprehensionResultRangeSize));
        assert!(!v(33).has(Feature::ComprehensionResultRangeSize));
        assert_eq!(
            v(27).ratcheting(Some(true)).unwrap_err(),
            "ratcheting is not available on Kubernetes 1.27: validation ratcheting arrived in 1.28 (the CRDValidationRatcheting feature gate; on by default from 1.30)"
        );
        assert_eq!(v(29).ratcheting(None), Ok(false));
        assert_eq!(v(30).ratcheting(None), Ok(true));
    }
}
