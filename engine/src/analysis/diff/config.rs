//! Which checks run and how hard they bite: the crd-diff configuration (`checks:` with
//! `crd`, `sameVersion`, `servedVersion` and per-property options, as in
//! `shared/docs/seeds/crd-diff-validations.md`) and kubernetes-sigs/crdify's format (a list
//! of `validations` with `enforcement: Error|Warn|None`, `unhandledEnforcement`,
//! `conversion`). Both read into one [`Config`]; a file may hold either.
//!
//! Without a file every check is on and strict, unhandled changes are errors and served
//! versions are compared even when a conversion webhook exists (crdify's defaults).
//! Unknown option values fall back as the design says (enum `additionEnforcement` to
//! `IfPreviouslyConstrained`, every other enforcement strategy to `Strict`,
//! `unhandledFailureMode` to `Closed`, a crdify `enforcement` to `Error`) and leave a
//! warning in [`Config::warnings`]; nothing in a configuration is fatal except text that
//! is not YAML/JSON at all.

use serde_json::{Map, Value};

/// How a finding of a check is reported.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Enforcement {
    /// Reported as an error: the change is breaking (exit status 1).
    Error,
    /// Reported as a warning.
    Warn,
    /// The check runs (so its changes count as handled) but reports nothing (crdify `None`).
    None,
    /// The check does not run at all (crd-diff `enabled: false`): what it would have
    /// handled is left to the `unhandled` check.
    Disabled,
}

impl Enforcement {
    pub fn runs(self) -> bool {
        self != Enforcement::Disabled
    }
    pub fn reports(self) -> bool {
        matches!(self, Enforcement::Error | Enforcement::Warn)
    }
}

/// crd-diff's enum `additionEnforcement`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EnumAddition {
    /// Any added allowed value is incompatible, and so is a net-new enum constraint.
    Strict,
    /// Only a net-new enum constraint (none before) is incompatible.
    IfPreviouslyConstrained,
    /// Adding values or a constraint is not incompatible.
    None,
}

/// A `maximum`-like or `minimum`-like check: adding the constraint and tightening it
/// (decreasing a maximum, increasing a minimum) are judged separately.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LimitCheck {
    pub enforcement: Enforcement,
    pub addition: bool,
    pub tightening: bool,
}

impl LimitCheck {
    const STRICT: LimitCheck = LimitCheck {
        enforcement: Enforcement::Error,
        addition: true,
        tightening: true,
    };
}

/// The property checks run on a pair of schemas (same version, or two served versions).
#[derive(Clone, Debug, PartialEq)]
pub struct PropertyChecks {
    pub enum_check: Enforcement,
    pub enum_addition: EnumAddition,
    pub enum_removal: bool,
    pub default: Enforcement,
    pub default_change: bool,
    pub default_removal: bool,
    pub default_addition: bool,
    pub maximum: LimitCheck,
    pub max_items: LimitCheck,
    pub max_length: LimitCheck,
    pub max_properties: LimitCheck,
    pub minimum: LimitCheck,
    pub min_items: LimitCheck,
    pub min_length: LimitCheck,
    pub min_properties: LimitCheck,
    pub required: Enforcement,
    pub required_new: bool,
    pub type_check: Enforcement,
    pub type_change: bool,
    pub description: Enforcement,
    pub pattern: Enforcement,
    pub pattern_removal: bool,
    pub nullable: Enforcement,
    /// Whether making a property nullable is flagged (crdify `toNullablePolicy: Disallow`).
    pub nullable_to_nullable: bool,
    /// `x-kubernetes-validations` rules added, removed or changed.
    pub xvalidations: Enforcement,
    pub xvalidations_addition: bool,
    pub xvalidations_removal: bool,
    /// Changes no check handled.
    pub unhandled: Enforcement,
}

impl Default for PropertyChecks {
    fn default() -> Self {
        PropertyChecks {
            enum_check: Enforcement::Error,
            enum_addition: EnumAddition::Strict,
            enum_removal: true,
            default: Enforcement::Error,
            default_change: true,
            default_removal: true,
            default_addition: true,
            maximum: LimitCheck::STRICT,
            max_items: LimitCheck::STRICT,
            max_length: LimitCheck::STRICT,
            max_properties: LimitCheck::STRICT,
            minimum: LimitCheck::STRICT,
            min_items: LimitCheck::STRICT,
            min_length: LimitCheck::STRICT,
            min_properties: LimitCheck::STRICT,
            required: Enforcement::Error,
            required_new: true,
            type_check: Enforcement::Error,
            type_change: true,
            description: Enforcement::Error,
            pattern: Enforcement::Error,
            pattern_removal: true,
            nullable: Enforcement::Error,
            nullable_to_nullable: true,
            xvalidations: Enforcement::Error,
            xvalidations_addition: true,
            xvalidations_removal: true,
            unhandled: Enforcement::Error,
        }
    }
}

/// A version validator (`sameVersion` or `servedVersion`).
#[derive(Clone, Debug, PartialEq)]
pub struct VersionChecks {
    pub enabled: bool,
    pub properties: PropertyChecks,
}

impl Default for VersionChecks {
    fn default() -> Self {
        VersionChecks {
            enabled: true,
            properties: PropertyChecks::default(),
        }
    }
}

/// Everything `crdlab diff` checks, and how.
#[derive(Clone, Debug, PartialEq)]
pub struct Config {
    pub scope: Enforcement,
    pub existing_field_removal: Enforcement,
    pub stored_version_removal: Enforcement,
    pub same_version: VersionChecks,
    pub served_version: VersionChecks,
    /// Skip the served-version comparison when the new CRD converts with a webhook
    /// (crd-diff `ignoreConversion: false`, crdify `conversion: Ignore`).
    pub served_skip_with_webhook: bool,
    /// New or changed rules needing a newer Kubernetes than the target.
    pub xvalidations_library: Enforcement,
    /// Estimated rule costs crossing the apiserver's limits.
    pub xvalidations_cost: Enforcement,
    /// Sample objects that were valid with the old CRD and fail with the new one.
    pub objects: Enforcement,
    /// What the configuration text left unclear (unknown names and values, placeholders).
    pub warnings: Vec<String>,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            scope: Enforcement::Error,
            existing_field_removal: Enforcement::Error,
            stored_version_removal: Enforcement::Error,
            same_version: VersionChecks::default(),
            served_version: VersionChecks::default(),
            served_skip_with_webhook: false,
            xvalidations_library: Enforcement::Error,
            xvalidations_cost: Enforcement::Error,
            objects: Enforcement::Error,
            warnings: Vec::new(),
        }
    }
}

/// crdify checks crdlab does not implement: their changes fall to `unhandled`.
const CRDIFY_UNIMPLEMENTED: [&str; 9] = [
    "format",
    "exclusiveMaximum",
    "exclusiveMinimum",
    "uniqueItems",
    "allOf",
    "anyOf",
    "oneOf",
    "not",
    "multipleOf",
];

impl Config {
    /// Reads a configuration in either format (YAML or JSON). An empty text gives the
    /// defaults.
    pub fn parse(text: &str) -> Result<Config, String> {
        if text.trim().is_empty() {
            return Ok(Config::default());
        }
        let v = crate::text::yaml::read_document(text)
            .map_err(|e| format!("cannot read the configuration: {}", e))?;
        let mut cfg = Config::default();
        let m = match &v {
            Value::Null => return Ok(cfg),
            Value::Object(m) => m,
            other => {
                return Err(format!(
                    "the configuration must be a mapping, not {}",
                    crate::text::crd_document::json_type_name(other)
                ))
            }
        };
        for (k, val) in m {
            match k.as_str() {
                "checks" => cfg.read_checks(val),
                "validations" => cfg.read_validations(val),
                "unhandledEnforcement" => {
                    let e = cfg.crdify_enforcement(val, "unhandledEnforcement");
                    cfg.same_version.properties.unhandled = e;
                    cfg.served_version.properties.unhandled = e;
                }
                "conversion" => match val.as_str() {
                    Some("None") => cfg.served_skip_with_webhook = false,
                    Some("Ignore") => cfg.served_skip_with_webhook = true,
                    _ => cfg.warn(format!(
                        "conversion: unknown value {}; using None (served versions are compared)",
                        show(val)
                    )),
                },
                other => cfg.warn(format!("unknown configuration key {:?} (ignored)", other)),
            }
        }
        Ok(cfg)
    }

    fn warn(&mut self, w: String) {
        self.warnings.push(w);
    }

    // ------------------------------------------------------------------ crd-diff

    fn read_checks(&mut self, v: &Value) {
        let Some(m) = self.mapping(v, "checks") else {
            return;
        };
        for (k, val) in m {
            match k.as_str() {
                "crd" => self.read_crd_checks(val),
                // The design writes both `version:` and `versions:`; its SameVersion
                // example even puts `sameVersion` right under `checks`.
                "version" | "versions" => {
                    let Some(vm) = self.mapping(val, &format!("checks.{}", k)) else {
                        continue;
                    };
                    for (vk, vv) in vm {
                        self.read_version_checks(vk, vv, &format!("checks.{}.{}", k, vk));
                    }
                }
                "sameVersion" | "servedVersion" => {
                    self.read_version_checks(k, val, &format!("checks.{}", k))
                }
                other => self.warn(format!("checks.{}: unknown check group (ignored)", other)),
            }
        }
    }

    fn read_crd_checks(&mut self, v: &Value) {
        let Some(m) = self.mapping(v, "checks.crd") else {
            return;
        };
        for (k, val) in m {
            let at = format!("checks.crd.{}", k);
            let mut e = match k.as_str() {
                "scope" => self.scope,
                "existingFieldRemoval" => self.existing_field_removal,
                "storedVersionRemoval" => self.stored_version_removal,
                other => {
                    self.warn(format!("checks.crd.{}: unknown check (ignored)", other));
                    continue;
                }
            };
            if let Some(cm) = self.mapping(val, &at) {
                for (ok, ov) in cm {
                    if ok == "enabled" {
                        self.read_enabled(ov, &format!("{}.enabled", at), &mut e);
                    } else {
                        self.warn(format!("{}.{}: unknown option (ignored)", at, ok));
                    }
                }
            }
            match k.as_str() {
                "scope" => self.scope = e,
                "existingFieldRemoval" => self.existing_field_removal = e,
                _ => self.stored_version_removal = e,
            }
        }
    }

    fn read_version_checks(&mut self, which: &str, v: &Value, at: &str) {
        let served = match which {
            "sameVersion" => false,
            "servedVersion" => true,
            other => {
                self.warn(format!(
                    "{}: unknown version check {:?} (ignored)",
                    at, other
                ));
                return;
            }
        };
        let Some(m) = self.mapping(v, at) else { return };
        let mut vc = if served {
            self.served_version.clone()
        } else {
            self.same_version.clone()
        };
        for (k, val) in m {
            let kat = format!("{}.{}", at, k);
            match k.as_str() {
                "enabled" => match val.as_bool() {
                    Some(b) => vc.enabled = b,
                    None => self.warn(format!(
                        "{}: {} is not true or false; keeping {}",
                        kat,
                        show(val),
                        vc.enabled
                    )),
                },
                "unhandledFailureMode" => {
                    vc.properties.unhandled = match val.as_str() {
                        Some("Closed") => Enforcement::Error,
                        Some("Open") => Enforcement::None,
                        _ => {
                            self.warn(format!(
                                "{}: unknown value {}; using Closed",
                                kat,
                                show(val)
                            ));
                            Enforcement::Error
                        }
                    }
                }
                "ignoreConversion" if served => match val.as_bool() {
                    // true: run the property checks even with a conversion webhook.
                    Some(b) => self.served_skip_with_webhook = !b,
                    None => self.warn(format!(
                        "{}: {} is not true or false (ignored)",
                        kat,
                        show(val)
                    )),
                },
                "xvalidationsLibrary" | "xvalidationsCost" | "objects" if !served => {
                    let mut e = match k.as_str() {
                        "xvalidationsLibrary" => self.xvalidations_library,
                        "xvalidationsCost" => self.xvalidations_cost,
                        _ => self.objects,
                    };
                    self.read_options(val, &kat, &mut e, &mut []);
                    match k.as_str() {
                        "xvalidationsLibrary" => self.xvalidations_library = e,
                        "xvalidationsCost" => self.xvalidations_cost = e,
                        _ => self.objects = e,
                    }
                }
                name => self.read_property_check(&mut vc.properties, name, val, &kat),
            }
        }
        if served {
            self.served_version = vc;
        } else {
            self.same_version = vc;
        }
    }

    /// One property check in crd-diff form: `enabled` plus its enforcement strategies.
    fn read_property_check(&mut self, p: &mut PropertyChecks, name: &str, v: &Value, at: &str) {
        match name {
            "enum" => {
                // additionEnforcement is three-valued; read it apart.
                let mut removal = p.enum_removal;
                let mut e = p.enum_check;
                if let Some(m) = self.mapping(v, at) {
                    for (k, val) in m {
                        match k.as_str() {
                            "enabled" => self.read_enabled(val, &format!("{}.enabled", at), &mut e),
                            "additionEnforcement" => {
                                p.enum_addition = match val.as_str() {
                                    Some("Strict") => EnumAddition::Strict,
                                    Some("IfPreviouslyConstrained")
                                    | Some("NotPreviouslyConstrained") => {
                                        EnumAddition::IfPreviouslyConstrained
                                    }
                                    Some("None") => EnumAddition::None,
                                    _ => {
                                        self.warn(format!(
                                            "{}.additionEnforcement: unknown value {}; using IfPreviouslyConstrained",
                                            at,
                                            show(val)
                                        ));
                                        EnumAddition::IfPreviouslyConstrained
                                    }
                                }
                            }
                            "removalEnforcement" => {
                                removal =
                                    self.strictness(val, &format!("{}.removalEnforcement", at))
                            }
                            other => {
                                self.warn(format!("{}.{}: unknown option (ignored)", at, other))
                            }
                        }
                    }
                }
                p.enum_check = e;
                p.enum_removal = removal;
            }
            "default" => {
                let mut opts = [
                    ("changeEnforcement", p.default_change),
                    ("removalEnforcement", p.default_removal),
                    ("additionEnforcement", p.default_addition),
                ];
                self.read_options(v, at, &mut p.default, &mut opts);
                p.default_change = opts[0].1;
                p.default_removal = opts[1].1;
                p.default_addition = opts[2].1;
            }
            "maximum" | "maxItems" | "maxLength" | "maxProperties" | "minimum" | "minItems"
            | "minLength" | "minProperties" => {
                let tighten = if name.starts_with("max") {
                    "decreaseEnforcement"
                } else {
                    "increaseEnforcement"
                };
                let slot = limit_slot(p, name);
                let mut lc = *slot;
                let mut opts = [
                    ("additionEnforcement", lc.addition),
                    (tighten, lc.tightening),
                ];
                self.read_options(v, at, &mut lc.enforcement, &mut opts);
                lc.addition = opts[0].1;
                lc.tightening = opts[1].1;
                *limit_slot(p, name) = lc;
            }
            "required" => {
                let mut opts = [("newEnforcement", p.required_new)];
                self.read_options(v, at, &mut p.required, &mut opts);
                p.required_new = opts[0].1;
            }
            "type" => {
                let mut opts = [("changeEnforcement", p.type_change)];
                self.read_options(v, at, &mut p.type_check, &mut opts);
                p.type_change = opts[0].1;
            }
            "description" => self.read_options(v, at, &mut p.description, &mut []),
            "pattern" => {
                let mut opts = [("removalEnforcement", p.pattern_removal)];
                self.read_options(v, at, &mut p.pattern, &mut opts);
                p.pattern_removal = opts[0].1;
            }
            "nullable" => {
                let mut opts = [("toNullableEnforcement", p.nullable_to_nullable)];
                self.read_options(v, at, &mut p.nullable, &mut opts);
                p.nullable_to_nullable = opts[0].1;
            }
            "xvalidations" => {
                let mut opts = [
                    ("additionEnforcement", p.xvalidations_addition),
                    ("removalEnforcement", p.xvalidations_removal),
                ];
                self.read_options(v, at, &mut p.xvalidations, &mut opts);
                p.xvalidations_addition = opts[0].1;
                p.xvalidations_removal = opts[1].1;
            }
            other => self.warn(format!(
                "{}: unknown property check {:?} (ignored)",
                at, other
            )),
        }
    }

    /// `enabled` and `Strict|None` options of a crd-diff check.
    fn read_options(
        &mut self,
        v: &Value,
        at: &str,
        e: &mut Enforcement,
        opts: &mut [(&str, bool)],
    ) {
        let Some(m) = self.mapping(v, at) else { return };
        for (k, val) in m {
            if k == "enabled" {
                self.read_enabled(val, &format!("{}.enabled", at), e);
            } else if let Some(slot) = opts.iter_mut().find(|(n, _)| n == k) {
                slot.1 = self.strictness(val, &format!("{}.{}", at, k));
            } else {
                self.warn(format!("{}.{}: unknown option (ignored)", at, k));
            }
        }
    }

    fn read_enabled(&mut self, v: &Value, at: &str, e: &mut Enforcement) {
        match v.as_bool() {
            Some(false) => *e = Enforcement::Disabled,
            Some(true) => {
                if *e == Enforcement::Disabled {
                    *e = Enforcement::Error;
                }
            }
            None => self.warn(format!(
                "{}: {} is not true or false (ignored)",
                at,
                show(v)
            )),
        }
    }

    /// `Strict` (true) or `None` (false); unknown values are `Strict`.
    fn strictness(&mut self, v: &Value, at: &str) -> bool {
        match v.as_str() {
            Some("Strict") => true,
            Some("None") => false,
            _ => {
                self.warn(format!("{}: unknown value {}; using Strict", at, show(v)));
                true
            }
        }
    }

    fn mapping<'v>(&mut self, v: &'v Value, at: &str) -> Option<&'v Map<String, Value>> {
        match v {
            Value::Object(m) => Some(m),
            Value::Null => None,
            other => {
                self.warn(format!(
                    "{}: expected a mapping, got {} (ignored)",
                    at,
                    show(other)
                ));
                None
            }
        }
    }

    // -------------------------------------------------------------------- crdify

    fn read_validations(&mut self, v: &Value) {
        let Value::Array(list) = v else {
            self.warn(format!(
                "validations: expected a list, got {} (ignored)",
                show(v)
            ));
            return;
        };
        for (i, item) in list.iter().enumerate() {
            let at = format!("validations[{}]", i);
            let Some(m) = self.mapping(item, &at) else {
                continue;
            };
            let Some(name) = m.get("name").and_then(Value::as_str).map(str::to_string) else {
                self.warn(format!("{}: name is required (entry ignored)", at));
                continue;
            };
            let at = format!("validations[{}] ({})", i, name);
            let e = match m.get("enforcement") {
                Some(ev) => self.crdify_enforcement(ev, &format!("{}.enforcement", at)),
                None => {
                    self.warn(format!("{}: enforcement is required; using Error", at));
                    Enforcement::Error
                }
            };
            let conf = match m.get("configuration") {
                None | Some(Value::Null) => Map::new(),
                Some(Value::Object(c)) => c.clone(),
                Some(other) => {
                    self.warn(format!(
                        "{}.configuration: expected a mapping, got {} (ignored)",
                        at,
                        show(other)
                    ));
                    Map::new()
                }
            };
            for k in m.keys() {
                if !matches!(k.as_str(), "name" | "enforcement" | "configuration") {
                    self.warn(format!("{}.{}: unknown field (ignored)", at, k));
                }
            }
            self.apply_crdify(&name, e, &conf, &at);
        }
    }

    fn apply_crdify(&mut self, name: &str, e: Enforcement, conf: &Map<String, Value>, at: &str) {
        let policy = |cfg: &mut Config, key: &str| -> Option<bool> {
            // Some(true): Allow, Some(false): Disallow, None: not given.
            let v = conf.get(key)?;
            match v.as_str() {
                Some("Allow") => Some(true),
                Some("Disallow") => Some(false),
                _ => {
                    cfg.warn(format!(
                        "{}.configuration.{}: unknown policy {}; using Disallow",
                        at,
                        key,
                        show(v)
                    ));
                    Some(false)
                }
            }
        };
        let known_keys: &[&str] = match name {
            "enum" => &["additionPolicy"],
            "nullable" => &["toNullablePolicy"],
            "pattern" => &["removalPolicy"],
            "xvalidations" => &["additionPolicy", "removalPolicy"],
            _ => &[],
        };
        for k in conf.keys() {
            if !known_keys.contains(&k.as_str()) {
                self.warn(format!(
                    "{}.configuration.{}: unknown option (ignored)",
                    at, k
                ));
            }
        }
        match name {
            "scope" => self.scope = e,
            "existingFieldRemoval" => self.existing_field_removal = e,
            "storedVersionRemoval" => self.stored_version_removal = e,
            "xvalidationsLibrary" => self.xvalidations_library = e,
            "xvalidationsCost" => self.xvalidations_cost = e,
            "objects" => self.objects = e,
            n if CRDIFY_UNIMPLEMENTED.contains(&n) => self.warn(format!(
                "{}: crdlab has no {:?} check; changes to it are reported by the unhandled check",
                at, n
            )),
            _ => {
                let addition = if matches!(name, "enum" | "xvalidations") {
                    policy(self, "additionPolicy")
                } else {
                    None
                };
                let removal = if matches!(name, "pattern" | "xvalidations") {
                    policy(self, "removalPolicy")
                } else {
                    None
                };
                let to_nullable = if name == "nullable" {
                    policy(self, "toNullablePolicy")
                } else {
                    None
                };
                let mut known = true;
                for p in [
                    &mut self.same_version.properties,
                    &mut self.served_version.properties,
                ] {
                    match name {
                        "enum" => {
                            p.enum_check = e;
                            if let Some(allow) = addition {
                                // crdify: a net-new enum constraint is always flagged.
                                p.enum_addition = if allow {
                                    EnumAddition::IfPreviouslyConstrained
                                } else {
                                    EnumAddition::Strict
                                };
                            }
                        }
                        "default" => p.default = e,
                        "maximum" | "maxItems" | "maxLength" | "maxProperties" | "minimum"
                        | "minItems" | "minLength" | "minProperties" => {
                            limit_slot(p, name).enforcement = e
                        }
                        "required" => p.required = e,
                        "type" => p.type_check = e,
                        "description" => p.description = e,
                        "pattern" => {
                            p.pattern = e;
                            if let Some(allow) = removal {
                                p.pattern_removal = !allow;
                            }
                        }
                        "nullable" => {
                            p.nullable = e;
                            if let Some(allow) = to_nullable {
                                p.nullable_to_nullable = !allow;
                            }
                        }
                        "xvalidations" => {
                            p.xvalidations = e;
                            if let Some(allow) = addition {
                                p.xvalidations_addition = !allow;
                            }
                            if let Some(allow) = removal {
                                p.xvalidations_removal = !allow;
                            }
                        }
                        _ => known = false,
                    }
                }
                if !known {
                    self.warn(format!("{}: unknown validation (ignored)", at));
                }
            }
        }
    }

    fn crdify_enforcement(&mut self, v: &Value, at: &str) -> Enforcement {
        match v.as_str() {
            Some("Error") => Enforcement::Error,
            Some("Warn") => Enforcement::Warn,
            Some("None") => Enforcement::None,
            _ => {
                self.warn(format!(
                    "{}: unknown enforcement {}; using Error",
                    at,
                    show(v)
                ));
                Enforcement::Error
            }
        }
    }
}

fn limit_slot<'p>(p: &'p mut PropertyChecks, name: &str) -> &'p mut LimitCheck {
    match name {
        "maximum" => &mut p.maximum,
        "maxItems" => &mut p.max_items,
        "maxLength" => &mut p.max_length,
        "maxProperties" => &mut p.max_properties,
        "minimum" => &mut p.minimum,
        "minItems" => &mut p.min_items,
        "minLength" => &mut p.min_length,
        _ => &mut p.min_properties,
    }
}

fn show(v: &Value) -> String {
    crate::go::json::json_marshal(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_text_is_the_strict_default() {
        assert_eq!(Config::parse("").unwrap(), Config::default());
        assert_eq!(Config::parse("{}").unwrap(), Config::default());
    }

    #[test]
    fn crd_checks_can_be_disabled() {
        let c = Config::parse("checks:\n  crd:\n    scope:\n      enabled: false\n").unwrap();
        assert_eq!(c.scope, Enforcement::Disabled);
        assert_eq!(c.existing_field_removal, Enforcement::Error);
        assert!(c.warnings.is_empty(), "{:?}", c.warnings);
    }

    #[test]
    fn unknown_values_fall_back_as_designed() {
        let c = Config::parse(
            "checks:\n  version:\n    sameVersion:\n      enum: {additionEnforcement: Bogus, removalEnforcement: Bogus}\n      \
             required: {newEnforcement: Maybe}\n      unhandledFailureMode: Ajar\n",
        )
        .unwrap();
        let p = &c.same_version.properties;
        assert_eq!(p.enum_addition, EnumAddition::IfPreviouslyConstrained);
        assert!(p.enum_removal);
        assert!(p.required_new);
        assert_eq!(p.unhandled, Enforcement::Error);
        assert_eq!(c.warnings.len(), 4, "{:?}", c.warnings);
    }

    #[test]
    fn crdify_list_sets_both_version_checks() {
        let c = Config::parse(
            "validations:\n- name: enum\n  enforcement: Warn\n  configuration: {additionPolicy: Allow}\n\
             - name: description\n  enforcement: None\n- name: scope\n  enforcement: Bogus\n\
             unhandledEnforcement: Warn\nconversion: Ignore\n",
        )
        .unwrap();
        for p in [&c.same_version.properties, &c.served_version.properties] {
            assert_eq!(p.enum_check, Enforcement::Warn);
            assert_eq!(p.enum_addition, EnumAddition::IfPreviouslyConstrained);
            assert_eq!(p.description, Enforcement::None);
            assert_eq!(p.unhandled, Enforcement::Warn);
        }
        assert_eq!(c.scope, Enforcement::Error);
        assert!(c.served_skip_with_webhook);
        assert_eq!(c.warnings.len(), 1, "{:?}", c.warnings);
    }

    #[test]
    fn crdify_unimplemented_and_unknown_names_warn() {
        let c = Config::parse("validations:\n- {name: format, enforcement: Error}\n- {name: nosuch, enforcement: Error}\n")
            .unwrap();
        assert_eq!(c.warnings.len(), 2, "{:?}", c.warnings);
        assert!(c.warnings[0].contains("unhandled"));
    }

    #[test]
    fn json_configuration_is_read() {
        let c = Config::parse(r#"{"validations":[{"name":"type","enforcement":"None"}]}"#).unwrap();
        assert_eq!(c.same_version.properties.type_check, Enforcement::None);
    }

    #[test]
    fn not_a_mapping_is_an_error() {
        assert!(Config::parse("- a\n- b\n").is_err());
    }
}
