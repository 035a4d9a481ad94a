//! The `crdlab` command line: `batch` (the JSON Lines protocol of
//! shared/docs/vector-format.md), `validate` (kubectl-style output for one object) and
//! `diff` (breaking changes between two CRDs).

use clap::{Parser, Subcommand, ValueEnum};
use crdlab::request::{Answer, Engine, Request};
use serde_json::Value;
use std::io::{BufRead, BufWriter, Write};
use std::process::ExitCode;

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

#[derive(Clone, Copy, ValueEnum)]
enum DiffOutput {
    Text,
    Markdown,
    Json,
    Yaml,
}

#[derive(Subcommand)]
enum Command {
    /// Answer JSON Lines requests from stdin, one answer line per request, in order.
    Batch,
    /// Validate an object (an update with --old) against a CRD; exit 1 when invalid.
    Validate {
        /// The CustomResourceDefinition (YAML or JSON; multi-document files allowed).
        #[arg(long)]
        crd: String,
        /// The object sent to the apiserver (YAML or JSON).
        #[arg(long)]
        object: String,
        /// The stored object: its presence makes the request an update.
        #[arg(long)]
        old: Option<String>,
        /// The CRD version to validate against (default: the storage version).
        #[arg(long)]
        version: Option<String>,
        /// Target Kubernetes version, e.g. 1.32 (default 1.36).
        #[arg(long)]
        kubernetes_version: Option<String>,
        /// Validate as a status-subresource update.
        #[arg(long)]
        status: bool,
        /// Turn validation ratcheting off.
        #[arg(long)]
        no_ratcheting: bool,
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
}

fn main() -> ExitCode {
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
        Command::Diff { old, new, config, objects, kubernetes_version, output } => {
            diff(&old, &new, config.as_deref(), objects.as_deref(), kubernetes_version.as_deref(), output)
        }
        Command::Validate { crd, object, old, version, kubernetes_version, status, no_ratcheting, output } => {
            let read = |p: &str| std::fs::read_to_string(p).map_err(|e| format!("cannot read {}: {}", p, e));
            let run = || -> Result<Answer, String> {
                let req = Request {
                    id: Value::String("cli".into()),
                    crd: Some(Value::String(read(&crd)?)),
                    object: Some(Value::String(read(&object)?)),
                    old_object: match &old {
                        Some(p) => Some(Value::String(read(p)?)),
                        None => None,
                    },
                    version,
                    kubernetes_version,
                    subresource: status.then(|| "status".to_string()),
                    ratcheting: Some(!no_ratcheting),
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

fn diff(
    old: &str,
    new: &str,
    config: Option<&str>,
    objects: Option<&str>,
    kubernetes_version: Option<&str>,
    output: DiffOutput,
) -> ExitCode {
    use crdlab::diff::{self, report};
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
        let text = serde_json::to_string(&answer).unwrap_or_else(|e| {
            format!("{{\"id\":null,\"error\":\"cannot serialize answer: {}\"}}", e)
        });
        if writeln!(out, "{}", text).and_then(|_| out.flush()).is_err() {
            return ExitCode::from(2);
        }
    }
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
    let d = a.defaulted.as_ref();
    let kind = d.and_then(|d| d.get("kind")).and_then(Value::as_str).unwrap_or("object");
    let group = d
        .and_then(|d| d.get("apiVersion"))
        .and_then(Value::as_str)
        .and_then(|av| av.split_once('/').map(|(g, _)| g))
        .unwrap_or("");
    let name = d
        .and_then(|d| d.pointer("/metadata/name"))
        .and_then(Value::as_str)
        .unwrap_or(object_file);
    let kg = if group.is_empty() { kind.to_string() } else { format!("{}.{}", kind, group) };
    (kg, name.to_string())
}
