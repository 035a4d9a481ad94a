//! The `crdlab` command line: `batch` (the JSON Lines protocol of
//! shared/docs/vector-format.md), `validate` (kubectl-style output for one object; for
//! several releases, each one's verdict and which messages differ), `versions` (each rule's
//! lowest Kubernetes release), `diff` (breaking changes between two CRDs) and `schema`
//! (JSON Schemas for editors).

use clap::{Parser, Subcommand, ValueEnum};
use crdlab::engine::Engine;
use crdlab::wire::batch::{Answer, Request};
use serde_json::Value;
use std::io::{BufRead, BufWriter, Write};
use std::process::ExitCode;

#[path = "cli/allocator.rs"]
mod allocator;
#[path = "cli/inputs.rs"]
mod inputs;
#[path = "cli/schema.rs"]
mod schema;
#[path = "cli/validate_many.rs"]
mod validate_many;

#[derive(Parser)]
#[command(name = "crdlab", version, about = "What a Kubernetes apiserver does with your CRD, offline")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Clone, Copy, ValueEnum)]
enum Output {
    Text,
    Json,
}

/// `validate`'s outputs: the CI formats apply to `--crds` (many objects).
#[derive(Clone, Copy, ValueEnum)]
enum ValidateOutput {
    Text,
    Json,
    /// SARIF 2.1.0, for GitHub code scanning (with --crds).
    Sarif,
    /// GitHub Actions annotations on the lines (with --crds).
    Github,
    /// JUnit XML, a case per object (with --crds).
    Junit,
    /// TAP 14, a test point per object (with --crds).
    Tap,
}

#[derive(Clone, Copy, ValueEnum)]
enum DiffOutput {
    Text,
    Markdown,
    Json,
    Yaml,
}

#[derive(Clone, Copy, ValueEnum)]
enum TestOutput {
    Text,
    Tap,
    Junit,
    Json,
}

#[derive(Subcommand)]
enum Command {
    /// Run CRD test suites (openshift/api's format) without a cluster: each test's create,
    /// update and status writes against the CRD; exit 1 when a test fails, 2 on bad input.
    Test {
        /// Suite files, or directories searched recursively for them (default: .).
        paths: Vec<String>,
        /// One release (default: the latest), several
        /// (1.30,1.32 or 1.29-1.32), or `all`: the version matrix.
        #[arg(long)]
        kubernetes_version: Option<String>,
        #[arg(short = 'o', long, value_enum, default_value = "text")]
        output: TestOutput,
        /// Rewrite each expectedError/expectedStatusError that no longer matches with the
        /// current message, keeping the file's formatting.
        #[arg(long)]
        update: bool,
    },
    /// Answer JSON Lines requests from stdin, one answer line per request, in order.
    Batch,
    /// Validate an object (an update with --old) against a CRD, or with --crds every object
    /// of files, directories or stdin against the CRDs that define their kinds; exit 1 when
    /// invalid, 2 on unreadable input.
    Validate {
        /// The CustomResourceDefinition (YAML or JSON; multi-document files allowed).
        #[arg(long, required_unless_present = "crds", conflicts_with = "crds")]
        crd: Option<String>,
        /// The object sent to the apiserver (YAML or JSON).
        #[arg(long, required_unless_present = "crds", conflicts_with = "crds")]
        object: Option<String>,
        /// CRD files or directories (walked recursively; multi-document files, Lists such
        /// as `kubectl get crd -o yaml` prints): validate OBJECTS against them. Repeat it or
        /// separate paths with commas (`--crds a/,b.yaml`): what follows is OBJECTS.
        #[arg(long, value_delimiter = ',')]
        crds: Vec<String>,
        /// With --crds: object files or directories (.yaml, .yml, .json, recursively), or
        /// `-` (the default) for stdin; multi-document files and Lists.
        #[arg(requires = "crds")]
        objects: Vec<String>,
        /// With --crds: objects whose kind no CRD defines fail instead of being skipped.
        #[arg(long, requires = "crds")]
        strict: bool,
        /// The stored object: its presence makes the request an update. With --crds: files
        /// or directories of stored objects (`--old a/,b.yaml`); an object with the
        /// apiVersion, kind, namespace and name of one is validated as an update of it.
        #[arg(long)]
        old: Option<String>,
        /// The CRD being replaced: its presence makes the CRD an update, where rules
        /// unchanged from it compile in the stored-expressions environment.
        #[arg(long, conflicts_with = "crds")]
        old_crd: Option<String>,
        /// The CRD version to validate against (default: the storage version).
        #[arg(long)]
        version: Option<String>,
        #[arg(long, help = validate_release_help())]
        kubernetes_version: Option<String>,
        /// Validate as a status-subresource update.
        #[arg(long, conflicts_with = "crds")]
        status: bool,
        /// Turn validation ratcheting off (it is on by default from 1.30).
        #[arg(long, conflicts_with = "ratcheting")]
        no_ratcheting: bool,
        /// Turn validation ratcheting on before 1.30 (1.28 and 1.29 have it behind the
        /// CRDValidationRatcheting feature gate, off by default).
        #[arg(long)]
        ratcheting: bool,
        #[arg(short = 'o', long, value_enum, default_value = "text")]
        output: ValidateOutput,
    },
    /// For every rule, the lowest supported Kubernetes release that accepts it, and why the
    /// release below does not; with --version, exit 1 when a rule needs a later release.
    #[command(about = versions_about())]
    Versions {
        /// The CustomResourceDefinition (YAML or JSON; multi-document files allowed).
        #[arg(long)]
        crd: String,
        /// A target release, e.g. 1.30: rules it does not accept are marked.
        #[arg(long)]
        version: Option<String>,
        #[arg(short = 'o', long, value_enum, default_value = "text")]
        output: Output,
    },
    /// Find breaking changes from OLD to NEW (crd-diff/crdify checks plus CEL rules);
    /// exit 1 when a finding has error severity.
    Diff {
        /// The CRD before the change (YAML or JSON; with status.storedVersions when taken
        /// from a cluster).
        old: String,
        /// The CRD after the change.
        new: String,
        /// A crd-diff (`checks:`) or crdify (`validations:`) configuration, YAML or JSON.
        #[arg(long)]
        config: Option<String>,
        /// A directory of sample objects: rules are judged on them, and objects valid with
        /// OLD that NEW rejects are reported.
        #[arg(long)]
        objects: Option<String>,
        /// The Kubernetes release the new CRD is applied to, e.g. 1.30 (default: inferred
        /// from the rules of OLD).
        #[arg(long)]
        kubernetes_version: Option<String>,
        #[arg(short = 'o', long, value_enum, default_value = "text")]
        output: DiffOutput,
    },
    /// Explain the static cost of every CEL rule of a CRD version: what drives it, its share
    /// of the per-CRD budget, and for rules over the per-rule limit the schema bound that
    /// fixes them; exit 1 when a rule or the total is over its limit.
    Cost {
        /// The CustomResourceDefinition (YAML or JSON).
        #[arg(long)]
        crd: String,
        /// The CRD version (default: the storage version).
        #[arg(long)]
        version: Option<String>,
        #[arg(long, help = cost_release_help())]
        kubernetes_version: Option<String>,
        #[arg(short = 'o', long, value_enum, default_value = "text")]
        output: Output,
    },
    /// Write a JSON Schema (draft-07) per kind and version of the CRDs, named
    /// {kind}_{version}.json, and a catalog.json: for YAML language servers (VS Code's YAML
    /// extension, Neovim, Helix, JetBrains) and kubeconform.
    Schema {
        /// CRD files or directories (walked recursively; multi-document files and Lists).
        #[arg(long, num_args = 1.., required = true)]
        crds: Vec<String>,
        /// The directory to write the schemas into (created if missing).
        #[arg(short = 'o', long)]
        output: std::path::PathBuf,
        #[arg(long, help = target_release_help())]
        kubernetes_version: Option<String>,
        /// List what each schema cannot check (CEL rules, formats, patterns).
        #[arg(long)]
        notes: bool,
    },
}

/// The output of a one-object `validate`: text or JSON (the CI formats describe many objects).
fn one_object_output(o: ValidateOutput) -> Option<Output> {
    match o {
        ValidateOutput::Text => Some(Output::Text),
        ValidateOutput::Json => Some(Output::Json),
        ValidateOutput::Sarif | ValidateOutput::Github | ValidateOutput::Junit | ValidateOutput::Tap => {
            eprintln!("error: -o sarif, github, junit and tap report many objects: use them with --crds");
            None
        }
    }
}

/// `1.25-1.37`: the supported releases (crdlab::version::RELEASES).
fn release_range() -> String {
    format!("{}-{}", crdlab::KubeVersion::MIN, crdlab::KubeVersion::LATEST)
}

/// The `--kubernetes-version` help of `validate` and `cost`, from the release table.
fn target_release_help() -> String {
    format!(
        "Target Kubernetes version, {} (default {})",
        release_range(),
        crdlab::KubeVersion::LATEST
    )
}

/// The `--kubernetes-version` help of `validate`: one release, or several to compare.
fn validate_release_help() -> String {
    format!(
        "{}; several releases (1.29,1.32,1.37, or a range such as 1.29-1.32) answer for each and show which messages differ; exit 1 when any release rejects",
        target_release_help()
    )
}

/// The `--kubernetes-version` help of `cost`: one release, or several to compare.
fn cost_release_help() -> String {
    format!(
        "{}; several releases (1.29,1.32,1.37 or 1.29-1.32) give each release's total and the rules whose cost differs",
        target_release_help()
    )
}

/// Whether `--kubernetes-version` names several releases (a list or a range) rather than
/// one: `v1.37.0-beta.0` is one version although it has a dash.
fn names_several_releases(s: &str) -> bool {
    s.contains(',') || (s.contains('-') && crdlab::KubeVersion::parse(s).is_err())
}

fn versions_about() -> String {
    format!(
        "For every rule, the lowest Kubernetes release ({}) that accepts it, and why the release below does not; with --version, exit 1 when a rule needs a later release",
        release_range()
    )
}


fn main() -> ExitCode {
    // Rust ignores SIGPIPE, so `crdlab validate … | head` would see its writes fail once the
    // reader has gone and `println!` panic. A Unix tool whose reader has gone just ends: the
    // signal's default action does that.
    #[cfg(unix)]
    // SAFETY: called first, before any thread exists; it only sets a signal's disposition.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    // Validation walks schemas and objects recursively (depth-bounded by the reader);
    // run on a thread with a generous stack so the bound, not the stack, is the limit.
    let worker = std::thread::Builder::new().stack_size(256 * 1024 * 1024).spawn(run);
    match worker.map(|h| h.join()) {
        Ok(Ok(code)) => code,
        _ => {
            eprintln!("error: crdlab stopped unexpectedly");
            ExitCode::from(3)
        }
    }
}

fn run() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Batch => batch(),
        Command::Schema { crds, output, kubernetes_version, notes } => {
            match kubernetes_version.as_deref().map_or(Ok(crdlab::KubeVersion::LATEST), crdlab::KubeVersion::parse) {
                Ok(kube) => schema::run(&crds, &output, kube, notes),
                Err(e) => {
                    eprintln!("error: {}", e);
                    ExitCode::from(2)
                }
            }
        }
        Command::Test { paths, kubernetes_version, output, update } => {
            test_suites(&paths, kubernetes_version.as_deref(), output, update)
        }
        Command::Cost { crd, version, kubernetes_version, output }
            if kubernetes_version.as_deref().is_some_and(names_several_releases) =>
        {
            cost_releases(&crd, version.as_deref(), kubernetes_version.as_deref().unwrap_or_default(), output)
        }
        Command::Cost { crd, version, kubernetes_version, output } => {
            cost(&crd, version.as_deref(), kubernetes_version.as_deref(), output)
        }
        Command::Diff { old, new, config, objects, kubernetes_version, output } => {
            diff(&old, &new, config.as_deref(), objects.as_deref(), kubernetes_version.as_deref(), output)
        }
        Command::Versions { crd, version, output } => versions(&crd, version.as_deref(), output),
        Command::Validate { crds, objects, strict, old, kubernetes_version, no_ratcheting, ratcheting, output, .. } if !crds.is_empty() => {
            let kube = match kubernetes_version.as_deref().map_or(Ok(crdlab::KubeVersion::LATEST), crdlab::KubeVersion::parse) {
                Ok(k) => k,
                Err(e) => {
                    eprintln!("error: {}", e);
                    return ExitCode::from(2);
                }
            };
            let format = match output {
                ValidateOutput::Text => validate_many::Format::Text,
                ValidateOutput::Json => validate_many::Format::Json,
                ValidateOutput::Sarif => validate_many::Format::Sarif,
                ValidateOutput::Github => validate_many::Format::Github,
                ValidateOutput::Junit => validate_many::Format::Junit,
                ValidateOutput::Tap => validate_many::Format::Tap,
            };
            // Neither flag: what the release ships, as for one object.
            let asked = if no_ratcheting {
                Some(false)
            } else if ratcheting {
                Some(true)
            } else {
                None
            };
            let ratcheting = match kube.ratcheting(asked) {
                Ok(r) => r,
                Err(e) => {
                    eprintln!("error: {}", e);
                    return ExitCode::from(2);
                }
            };
            let old = old.map(|o| o.split(',').filter(|p| !p.is_empty()).map(str::to_string).collect()).unwrap_or_default();
            let opts = validate_many::Options { kube, ratcheting, old, strict, format };
            validate_many::run(&crds, &objects, &opts)
        }
        Command::Validate { crd, object, old, old_crd, version, kubernetes_version, status, no_ratcheting, ratcheting, output, .. }
            if kubernetes_version.as_deref().is_some_and(names_several_releases) =>
        {
            let ratcheting = if no_ratcheting {
                crdlab::analysis::releases::Ratcheting::Off
            } else if ratcheting {
                crdlab::analysis::releases::Ratcheting::On
            } else {
                crdlab::analysis::releases::Ratcheting::ReleaseDefault
            };
            let (crd, object) = (crd.unwrap_or_default(), object.unwrap_or_default());
            let Some(output) = one_object_output(output) else { return ExitCode::from(2) };
            let files = ValidateFiles { crd: &crd, old_crd: old_crd.as_deref(), object: &object, old: old.as_deref() };
            validate_releases(&files, version.as_deref(), kubernetes_version.as_deref().unwrap_or_default(), status, ratcheting, output)
        }
        Command::Validate { crd, object, old, old_crd, version, kubernetes_version, status, no_ratcheting, ratcheting, output, .. } => {
            let (crd, object) = (crd.unwrap_or_default(), object.unwrap_or_default());
            let Some(output) = one_object_output(output) else { return ExitCode::from(2) };
            let read = |p: &str| std::fs::read_to_string(p).map_err(|e| format!("cannot read {}: {}", p, e));
            // Neither ratcheting flag: what the release ships (an unparsable version is
            // reported by the request itself).
            let release_default = kubernetes_version
                .as_deref()
                .map_or(Ok(crdlab::KubeVersion::LATEST), crdlab::KubeVersion::parse)
                .ok()
                .map(|k| k.ratcheting_by_default());
            let run = || -> Result<Answer, String> {
                let req = Request {
                    id: Value::String("cli".into()),
                    crd: Some(Value::String(read(&crd)?)),
                    old_crd: match &old_crd {
                        Some(p) => Some(Value::String(read(p)?)),
                        None => None,
                    },
                    object: Some(Value::String(read(&object)?)),
                    old_object: match &old {
                        Some(p) => Some(Value::String(read(p)?)),
                        None => None,
                    },
                    version,
                    // A person's default is the latest release (the batch protocol's, 1.36,
                    // applies to batch requests only).
                    kubernetes_version: Some(kubernetes_version.unwrap_or_else(|| crdlab::KubeVersion::LATEST.to_string())),
                    subresource: status.then(|| "status".to_string()),
                    // Neither flag: the release's default (the batch protocol's own default,
                    // on wherever the gate exists, is for batch requests only).
                    ratcheting: if no_ratcheting {
                        Some(false)
                    } else if ratcheting {
                        Some(true)
                    } else {
                        release_default
                    },
                    ..Default::default()
                };
                Ok(Engine::new().handle(&req))
            };
            match run() {
                Ok(answer) => print_validation(&answer, &object, output),
                Err(e) => {
                    eprintln!("error: {}", e);
                    ExitCode::from(2)
                }
            }
        }
    }
}

/// The files `validate` reads.
struct ValidateFiles<'a> {
    crd: &'a str,
    old_crd: Option<&'a str>,
    object: &'a str,
    old: Option<&'a str>,
}

/// `validate` for several releases: a verdict line per release, then every message with
/// the releases that print it (`analysis::releases`); exit 1 when any release rejects.
fn validate_releases(
    files: &ValidateFiles<'_>,
    version: Option<&str>,
    releases: &str,
    status: bool,
    ratcheting: crdlab::analysis::releases::Ratcheting,
    output: Output,
) -> ExitCode {
    use crdlab::analysis::releases::{self, Inputs};
    use crdlab::engine::CrdInput;
    let read = |p: &str| std::fs::read_to_string(p).map_err(|e| format!("cannot read {}: {}", p, e));
    let run = || -> Result<releases::Comparison, String> {
        let kubes = releases::parse_releases(releases)?;
        let crd = read(files.crd)?;
        let old_crd = files.old_crd.map(read).transpose()?;
        let object = read(files.object)?;
        let old = files.old.map(read).transpose()?;
        let inputs = Inputs {
            crd: CrdInput::Text(&crd),
            old_crd: old_crd.as_deref().map(CrdInput::Text),
            object: Some(&object),
            old_object: old.as_deref(),
            version,
            status,
            ratcheting,
        };
        Ok(releases::compare(&mut Engine::new(), &inputs, &kubes))
    };
    match run() {
        Ok(c) => {
            match output {
                Output::Json => println!("{}", serde_json::to_string_pretty(&c).unwrap_or_default()),
                Output::Text => print!("{}", releases::render_text(&c)),
            }
            if c.all_accept() {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(1)
            }
        }
        Err(e) => {
            eprintln!("error: {}", e);
            ExitCode::from(2)
        }
    }
}

fn diff(
    old: &str,
    new: &str,
    config: Option<&str>,
    objects: Option<&str>,
    kubernetes_version: Option<&str>,
    output: DiffOutput,
) -> ExitCode {
    use crdlab::analysis::diff::{self, report};
    let read = |p: &str| std::fs::read_to_string(p).map_err(|e| format!("cannot read {}: {}", p, e));
    let run = || -> Result<diff::Report, String> {
        let mut opts = diff::Options::default();
        if let Some(c) = config {
            opts.config = diff::Config::parse(&read(c)?).map_err(|e| format!("{}: {}", c, e))?;
        }
        if let Some(d) = objects {
            opts.objects = diff::load_objects_dir(d)?;
        }
        if let Some(k) = kubernetes_version {
            opts.kubernetes_version = Some(crdlab::KubeVersion::parse(k)?);
        }
        diff::diff(&read(old)?, &read(new)?, &opts)
    };
    match run() {
        Ok(r) => {
            let format = match output {
                DiffOutput::Text => report::Format::Text,
                DiffOutput::Markdown => report::Format::Markdown,
                DiffOutput::Json => report::Format::Json,
                DiffOutput::Yaml => report::Format::Yaml,
            };
            let text = report::render(&r, format);
            print!("{}", text);
            if !text.ends_with('\n') {
                println!();
            }
            if r.breaking {
                ExitCode::from(1)
            } else {
                ExitCode::SUCCESS
            }
        }
        Err(e) => {
            eprintln!("error: {}", e);
            ExitCode::from(2)
        }
    }
}

fn cost(crd: &str, version: Option<&str>, kubernetes_version: Option<&str>, output: Output) -> ExitCode {
    use crdlab::analysis::explain;
    let run = || -> Result<explain::CostExplanation, String> {
        let text = std::fs::read_to_string(crd).map_err(|e| format!("cannot read {}: {}", crd, e))?;
        let kube = match kubernetes_version {
            Some(k) => crdlab::KubeVersion::parse(k)?,
            None => crdlab::KubeVersion::default(),
        };
        let compiled = crdlab::crd::CompiledCrd::from_text(&text, kube).map_err(|e| format!("{}: {}", crd, e))?;
        explain::explain(&compiled, version)
    };
    match run() {
        Ok(e) => {
            match output {
                Output::Json => println!("{}", serde_json::to_string_pretty(&e).unwrap_or_default()),
                Output::Text => print!("{}", explain::render_text(&e)),
            }
            if e.total > e.per_crd_limit || e.rules.iter().any(|r| r.over_limit) {
                ExitCode::from(1)
            } else {
                ExitCode::SUCCESS
            }
        }
        Err(e) => {
            eprintln!("error: {}", e);
            ExitCode::from(2)
        }
    }
}

/// `cost` for several releases: each release's total, then the rules whose cost differs;
/// exit 1 when a rule or a total is over its limit on any release, 2 when no release answers.
fn cost_releases(crd: &str, version: Option<&str>, releases: &str, output: Output) -> ExitCode {
    use crdlab::analysis::releases;
    let run = || -> Result<Vec<releases::ReleaseCosts>, String> {
        let kubes = releases::parse_releases(releases)?;
        let text = std::fs::read_to_string(crd).map_err(|e| format!("cannot read {}: {}", crd, e))?;
        let path = crd;
        Ok(releases::compare_costs(&mut Engine::new(), crdlab::engine::CrdInput::File { path, text: &text }, version, &kubes))
    };
    let list = match run() {
        Ok(l) => l,
        Err(e) => {
            eprintln!("error: {}", e);
            return ExitCode::from(2);
        }
    };
    match output {
        Output::Json => println!("{}", serde_json::to_string_pretty(&list).unwrap_or_default()),
        Output::Text => print!("{}", releases::render_costs_text(&list)),
    }
    if list.iter().all(|r| r.error.is_some()) {
        ExitCode::from(2)
    } else if list.iter().any(|r| r.over_limit() || r.error.is_some()) {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

fn versions(crd: &str, target: Option<&str>, output: Output) -> ExitCode {
    use crdlab::analysis::versions::{accepted_on, rule_versions_of_text};
    let run = || -> Result<(Vec<crdlab::analysis::versions::RuleVersionRow>, Option<crdlab::KubeVersion>), String> {
        let text = std::fs::read_to_string(crd).map_err(|e| format!("cannot read {}: {}", crd, e))?;
        let target = target.map(crdlab::KubeVersion::parse).transpose()?;
        Ok((rule_versions_of_text(&text).map_err(|e| e.to_string())?, target))
    };
    let (rows, target) = match run() {
        Ok(x) => x,
        Err(e) => {
            eprintln!("error: {}", e);
            return ExitCode::from(2);
        }
    };
    let rejected = target.map(|t| rows.iter().filter(|r| !accepted_on(r, t)).count()).unwrap_or(0);
    match output {
        Output::Json => {
            let rows: Vec<Value> = rows
                .iter()
                .map(|r| {
                    let mut v = serde_json::to_value(r).unwrap_or(Value::Null);
                    if let (Some(t), Value::Object(m)) = (target, &mut v) {
                        m.insert("acceptedOnTarget".into(), Value::Bool(accepted_on(r, t)));
                    }
                    v
                })
                .collect();
            println!("{}", serde_json::to_string_pretty(&rows).unwrap_or_default());
        }
        Output::Text => {
            if rows.is_empty() {
                println!("no x-kubernetes-validations rules");
            }
            for r in &rows {
                let mark = match target {
                    Some(t) if !accepted_on(r, t) => format!(" [not accepted on {}]", t),
                    _ => String::new(),
                };
                println!("{} {}{}", r.crd_version, r.schema_path, mark);
                println!("  rule:   {}", r.rule.replace('\n', "\n          "));
                println!("  lowest: {}", r.lowest_version.clone().unwrap_or_else(|| format!("none of {}", release_range())));
                if !r.reason.is_empty() {
                    println!("  why:    {}", r.reason);
                }
            }
            if let Some(t) = target {
                if rejected > 0 {
                    println!("{} of {} rules are not accepted on {}", rejected, rows.len(), t);
                } else {
                    println!("every rule is accepted on {}", t);
                }
            }
        }
    }
    if rejected > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

fn batch() -> ExitCode {
    let mut engine = Engine::with_file_system();
    let stdin = std::io::stdin();
    let mut out = BufWriter::new(std::io::stdout().lock());
    for line in stdin.lock().lines() {
        let line = match line {
            Ok(l) => l,
            Err(e) => {
                eprintln!("error: reading stdin: {}", e);
                return ExitCode::from(2);
            }
        };
        if line.trim().is_empty() {
            continue;
        }
        let answer = engine.handle_line(&line);
        let text = crdlab::go::json::to_json_string(&answer).unwrap_or_else(|e| {
            format!("{{\"id\":null,\"error\":\"cannot serialize answer: {}\"}}", e)
        });
        if writeln!(out, "{}", text).and_then(|_| out.flush()).is_err() {
            return ExitCode::from(2);
        }
    }
    // The process ends here: freeing the engine's compiled CRDs node by node would only
    // cost time (about 8 % of creating a 2.9 MB CRD in a fresh process, the figure issue 18
    // measures), and the operating system takes the memory back at once.
    std::mem::forget(engine);
    ExitCode::SUCCESS
}

fn print_validation(a: &Answer, object_file: &str, output: Output) -> ExitCode {
    let invalid = a.error.is_some()
        || a.errors.as_ref().map(|e| !e.is_empty()).unwrap_or(false)
        || a.crd_errors.as_ref().map(|e| !e.is_empty()).unwrap_or(false);
    match output {
        Output::Json => println!("{}", serde_json::to_string_pretty(a).unwrap_or_default()),
        Output::Text => {
            if let Some(e) = &a.error {
                println!("error: {}", e);
            }
            for w in a.crd_warnings.iter().flatten() {
                println!("Warning: CRD: {}", w);
            }
            for e in a.crd_errors.iter().flatten() {
                println!("CRD error: {}", e.message);
            }
            for u in a.unknown_fields.iter().flatten() {
                println!("Warning: unknown field \"{}\"", u);
            }
            for w in a.warnings.iter().flatten() {
                println!("Warning: {}", w.message);
            }
            if let Some(errs) = &a.errors {
                let (kind, name) = describe(a, object_file);
                if errs.is_empty() {
                    println!("{} \"{}\" is valid", kind, name);
                } else {
                    println!("{}", crdlab::field::aggregate_message(&kind, &name, errs));
                }
            }
        }
    }
    if invalid {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

/// `<Kind>.<group>` and the object's name, for kubectl's wording.
fn describe(a: &Answer, object_file: &str) -> (String, String) {
    let d = a.defaulted.as_ref().unwrap_or(&Value::Null);
    let name = d.pointer("/metadata/name").and_then(Value::as_str).unwrap_or(object_file);
    (kind_group(d), name.to_string())
}

/// `<Kind>.<group>` as the apiserver names an object's kind in its messages (`<Kind>` for
/// the core group).
fn kind_group(v: &Value) -> String {
    let kind = v.get("kind").and_then(Value::as_str).unwrap_or("object");
    match v.get("apiVersion").and_then(Value::as_str).and_then(|a| a.split_once('/')) {
        Some((g, _)) if !g.is_empty() => format!("{}.{}", kind, g),
        _ => kind.to_string(),
    }
}

/// The releases `crdlab test` runs: `all`, a list or range, or one (default: the latest).
fn test_releases(arg: Option<&str>) -> Result<Vec<crdlab::KubeVersion>, String> {
    match arg.map(str::trim) {
        None | Some("") => Ok(vec![crdlab::KubeVersion::LATEST]),
        Some(s) => crdlab::analysis::releases::parse_releases(s),
    }
}

/// The suite files under the given paths: files as given; directories searched
/// recursively for YAML files that read as suites (`crdlab::analysis::suite::is_suite`),
/// in path order. Generated CRD manifests are skipped without reading them.
fn find_suites(paths: &[String]) -> Result<Vec<std::path::PathBuf>, String> {
    let roots: Vec<String> = if paths.is_empty() { vec![".".into()] } else { paths.to_vec() };
    let mut out = Vec::new();
    for root in roots {
        if std::path::Path::new(&root).is_file() {
            out.push(root.into());
            continue;
        }
        let enter = |name: &str| {
            !name.starts_with('.') && name != "node_modules" && name != "target" && !name.starts_with("zz_generated") && name != "payload-manifests"
        };
        let suite_name = |name: &str| (name.ends_with(".yaml") || name.ends_with(".yml")) && !name.ends_with(".crd.yaml");
        for path in inputs::files_where(std::slice::from_ref(&root), enter, suite_name)? {
            let Ok(text) = std::fs::read_to_string(&path) else { continue };
            // Cheap look before reading the YAML: a suite has a `tests:` key.
            if text.contains("tests:") && crdlab::text::yaml::read_document(&text).is_ok_and(|d| crdlab::analysis::suite::is_suite(&d)) {
                out.push(path);
            }
        }
    }
    Ok(out)
}

fn test_suites(paths: &[String], releases: Option<&str>, output: TestOutput, update: bool) -> ExitCode {
    let releases = match test_releases(releases) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: {}", e);
            return ExitCode::from(2);
        }
    };
    let files = match find_suites(paths) {
        Ok(f) if f.is_empty() => {
            eprintln!("error: no test suites found");
            return ExitCode::from(2);
        }
        Ok(f) => f,
        Err(e) => {
            eprintln!("error: {}", e);
            return ExitCode::from(2);
        }
    };
    let threads = crdlab::analysis::parallel::cores().min(8);
    let mut report = crdlab::analysis::suite::run_files(&inputs::FsFiles, &files, &releases, threads);
    if update {
        let mut rewritten = 0;
        for s in &report.suites {
            let Ok(text) = std::fs::read_to_string(&s.path) else { continue };
            match crdlab::analysis::suite::update::rewrite_expected_errors(&text, &s.cases) {
                Ok(Some(new)) => {
                    if let Err(e) = std::fs::write(&s.path, new) {
                        eprintln!("error: cannot write {}: {}", s.path.display(), e);
                        return ExitCode::from(2);
                    }
                    rewritten += 1;
                    eprintln!("updated {}", s.path.display());
                }
                Ok(None) => {}
                Err(e) => eprintln!("warning: {}: not updated: {}", s.path.display(), e),
            }
        }
        if rewritten > 0 {
            // Report what the rewritten suites now do.
            report = crdlab::analysis::suite::run_files(&inputs::FsFiles, &files, &releases, threads);
        }
    }
    let cwd = std::env::current_dir().ok();
    let base = cwd.as_deref();
    let text = match output {
        TestOutput::Text => {
            // Written as it is made: over many releases the report runs to hundreds of MB.
            let mut out = std::io::BufWriter::with_capacity(1 << 16, std::io::stdout().lock());
            if crdlab::wire::suite::write_text_report(&report, base, &mut out).and_then(|_| out.flush()).is_err() {
                return ExitCode::from(2);
            }
            String::new()
        }
        TestOutput::Json => serde_json::to_string_pretty(&crdlab::wire::suite::json_report(&report, base)).unwrap_or_default() + "\n",
        TestOutput::Tap => crdlab::wire::tap::write_tap(&crdlab::wire::suite::records(&report, base)),
        TestOutput::Junit => crdlab::wire::junit::write_junit("crdlab test", &crdlab::wire::suite::records(&report, base), report.elapsed.as_secs_f64()),
    };
    let mut out = std::io::stdout().lock();
    if out.write_all(text.as_bytes()).and_then(|_| out.flush()).is_err() {
        return ExitCode::from(2);
    }
    if report.suite_errors() > 0 && report.cases() == 0 {
        ExitCode::from(2)
    } else if report.ok() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}
