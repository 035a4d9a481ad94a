//! The `crdlab` binary: `validate` prints kubectl-style errors and exits 1 when invalid;
//! `batch` answers every line in order, a bad line with an `error` answer.

// Needs the `crdlab` binary, built with the `cli` feature (on by default).
#![cfg(feature = "cli")]

use std::io::Write;
use std::process::{Command, Stdio};

mod common;

/// The widgets CRD: `spec` has `replicas` and a defaulted `mode`.
fn widgets() -> String {
    common::widgets_spec(
        "            properties:\n              replicas: {type: integer}\n              mode: {type: string, default: fast}\n",
    )
}

fn tmp(name: &str, text: &str) -> String {
    let dir = std::env::temp_dir().join(format!("crdlab-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p.to_string_lossy().into_owned()
}

fn crdlab() -> Command {
    Command::new(env!("CARGO_BIN_EXE_crdlab"))
}

#[test]
fn validate_reports_like_kubectl_and_exits_1() {
    let crd = tmp("crd.yaml", &widgets());
    let bad = tmp("bad.yaml", "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w1}\nspec: {replicas: three}\n");
    let out = crdlab().args(["validate", "--crd", &crd, "--object", &bad]).output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{}", stdout);
    assert!(
        stdout.contains("spec.replicas: Invalid value: \"string\": spec.replicas in body must be of type integer: \"string\""),
        "{}",
        stdout
    );
    assert!(stdout.contains("Widget.example.com \"w1\" is invalid"), "{}", stdout);

    let good = tmp("good.yaml", "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w1}\nspec: {replicas: 3, extra: 1}\n");
    let out = crdlab().args(["validate", "--crd", &crd, "--object", &good, "-o", "json"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["unknownFields"], serde_json::json!(["spec.extra"]));
    assert_eq!(v["defaulted"]["spec"]["mode"], "fast");
}

#[test]
fn validate_missing_file_is_a_clear_error() {
    let out = crdlab().args(["validate", "--crd", "/nonexistent/crd.yaml", "--object", "/nonexistent/o.yaml"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot read /nonexistent/crd.yaml"));
}

#[test]
fn batch_answers_every_line_in_order() {
    let crd = tmp("batch-crd.yaml", &widgets());
    let lines = [
        serde_json::json!({"id": "a", "crdFile": crd, "object": {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"}, "spec": {"replicas": 1}}}).to_string(),
        "this is not json".to_string(),
        serde_json::json!({"id": "c", "crdFile": "/nonexistent.yaml"}).to_string(),
        serde_json::json!({"id": "d", "crdFile": crd}).to_string(),
    ];
    let mut child = crdlab().arg("batch").stdin(Stdio::piped()).stdout(Stdio::piped()).spawn().unwrap();
    child.stdin.take().unwrap().write_all((lines.join("\n") + "\n").as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    let answers: Vec<serde_json::Value> =
        String::from_utf8_lossy(&out.stdout).lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(answers.len(), 4);
    assert_eq!(answers[0]["id"], "a");
    assert_eq!(answers[0]["errors"], serde_json::json!([]));
    assert!(answers[1]["error"].as_str().unwrap().contains("not JSON"));
    assert_eq!(answers[2]["id"], "c");
    assert!(answers[2]["error"].as_str().unwrap().contains("cannot read crdFile"));
    assert_eq!(answers[3]["crdErrors"], serde_json::json!([]));
}

/// `validate` without `--kubernetes-version` answers as the latest release (1.37), a batch
/// request without `kubernetesVersion` as the protocol's 1.36. The rule tells them apart:
/// 1.37 bounds `metadata.name`/`generateName` (253/252 bytes) in estimates, so it costs
/// ceil(1012 × 0.1) × ceil(1008 × 0.1) + 6 = 10308; on 1.36 both are request-sized and the
/// product is far over the per-rule limit.
#[test]
fn validate_defaults_to_the_latest_release_batch_to_the_protocol_default() {
    let crd = tmp(
        "meta-crd.yaml",
        &widgets().replace(
            "        type: object\n        properties:\n          spec:",
            "        type: object\n        x-kubernetes-validations:\n        - rule: self.metadata.name.contains(self.metadata.generateName)\n        properties:\n          spec:",
        ),
    );
    assert!(std::fs::read_to_string(&crd).unwrap().contains("generateName)"));
    let obj = tmp("meta-obj.yaml", "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w1}\nspec: {replicas: 1}\n");
    let run = |extra: &[&str]| -> serde_json::Value {
        let out = crdlab().args(["validate", "--crd", &crd, "--object", &obj, "-o", "json"]).args(extra).output().unwrap();
        serde_json::from_slice(&out.stdout).unwrap()
    };
    let latest = run(&[]);
    assert_eq!(latest["crdErrors"], serde_json::json!([]), "{}", latest);
    assert_eq!(latest["rules"][0]["maxCost"], 10308, "{}", latest);
    let v136 = run(&["--kubernetes-version", "1.36"]);
    let errs = v136["crdErrors"].to_string();
    assert!(errs.contains("estimated rule cost exceeds budget"), "{}", errs);

    let line = serde_json::json!({"id": "p", "crdFile": crd}).to_string() + "\n";
    let mut child = crdlab().arg("batch").stdin(Stdio::piped()).stdout(Stdio::piped()).spawn().unwrap();
    child.stdin.take().unwrap().write_all(line.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    let a: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(a["crdErrors"].to_string().contains("estimated rule cost exceeds budget"), "{}", a);
}

/// A CRD whose rule calls `ip()` (new for rules in 1.31) on a bounded `addr`, and a
/// `name` of at most 5 bytes (1.32 rewords Too long).
fn ip_widgets() -> String {
    common::widgets_spec(
        "            properties:\n              name: {type: string, maxLength: 5}\n              addr: {type: string, maxLength: 64}\n            x-kubernetes-validations:\n            - rule: ip(self.addr).family() == 4\n",
    )
}

#[test]
fn validate_answers_for_several_releases_and_shows_what_differs() {
    let crd = tmp("ip-crd.yaml", &ip_widgets());
    let bad = tmp("ip-bad.yaml", "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w1}\nspec: {name: toolong, addr: 10.0.0.1}\n");
    let good = tmp("ip-good.yaml", "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w1}\nspec: {name: ok, addr: 10.0.0.1}\n");
    let run = |object: &str, releases: &str, json: bool| {
        let mut args = vec!["validate", "--crd", &crd, "--object", object, "--kubernetes-version", releases];
        if json {
            args.extend(["-o", "json"]);
        }
        crdlab().args(args).output().unwrap()
    };
    let out = run(&good, "1.37,1.29,1.32", false);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "1.29 rejects the CRD: {}", stdout);
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(
        lines[..4],
        [
            // The object is judged by the rules that compiled: `rule compile error`.
            "1.29: CRD rejected (1 error), object invalid (1 error)",
            "1.32: CRD accepted, object valid",
            "1.37: CRD accepted, object valid",
            "",
        ]
    );
    assert!(
        lines[4].starts_with("1.29: CRD error: spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule: Invalid value: apiextensions.ValidationRule{Rule:\"ip(self.addr).family() == 4\""),
        "{}",
        stdout
    );
    assert!(stdout.contains("undeclared reference to 'ip' (in container '')"), "{}", stdout);
    assert!(stdout.contains("\n1.29: invalid: spec: Invalid value: \"object\": rule compile error: compilation failed: "), "{}", stdout);
    let messages = stdout.split_once("\n\n").map(|(_, m)| m).unwrap_or("");
    assert!(!messages.contains("1.32") && !messages.contains("all releases"), "1.32 and 1.37 print no message: {}", stdout);

    // A range, from the release table; every release accepts: exit 0.
    let out = run(&good, "1.31-1.33", false);
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "1.31: CRD accepted, object valid\n1.32: CRD accepted, object valid\n1.33: CRD accepted, object valid\n"
    );
    assert_eq!(out.status.code(), Some(0));

    // The reworded Too long, grouped by the releases that print each text.
    let out = run(&bad, "1.30-1.33", false);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1));
    assert!(stdout.contains("\n1.30: CRD rejected (1 error), object invalid (2 errors)\n") || stdout.starts_with("1.30: CRD rejected (1 error), object invalid (2 errors)\n"), "{}", stdout);
    assert!(stdout.contains("\n1.30, 1.31: invalid: spec.name: Too long: may not be longer than 5\n"), "{}", stdout);
    assert!(stdout.contains("\n1.32, 1.33: invalid: spec.name: Too long: may not be more than 5 bytes\n"), "{}", stdout);
    assert!(stdout.contains("\nall releases: invalid: <nil>: Invalid value: \"null\": some validation rules were not checked"), "{}", stdout);

    let out = run(&bad, "1.29,1.37", true);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["releases"][0]["kubernetesVersion"], "1.29");
    assert_eq!(v["releases"][0]["verdict"], "crdRejected");
    assert_eq!(v["releases"][1]["verdict"], "objectRejected");
    assert_eq!(v["releases"][1]["object"]["errors"][0]["message"], "spec.name: Too long: may not be more than 5 bytes");
    let differs: Vec<&serde_json::Value> = v["messages"].as_array().unwrap().iter().filter(|m| m["everywhere"] == false).collect();
    assert!(differs.iter().any(|m| m["releases"] == serde_json::json!(["1.37"]) && m["kind"] == "objectError"), "{}", v);

    // One release keeps the kubectl output; a bad list is an error before anything runs.
    let out = run(&bad, "1.32", false);
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("Widget.example.com \"w1\" is invalid: [spec.name: Too long: may not be more than 5 bytes"));
    let out = run(&bad, "1.29,1.24", false);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "error: kubernetesVersion \"1.24\" is not supported: crdlab targets 1.25 to 1.37\n"
    );
}

#[test]
fn cost_for_several_releases_lists_the_rules_whose_cost_differs() {
    let crd = tmp("ip-cost-crd.yaml", &ip_widgets());
    let out = crdlab().args(["cost", "--crd", &crd, "--kubernetes-version", "1.30,1.31,1.37"]).output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{}", stdout);
    assert!(stdout.starts_with("1.30: total 0 of 100,000,000 (0.00%), 1 rule, 0 over the per-rule limit of 10,000,000\n1.31: total "), "{}", stdout);
    assert!(
        stdout.contains("\nopenAPIV3Schema.properties[spec].x-kubernetes-validations[0]\n  rule: ip(self.addr).family() == 4\n  1.30: does not compile\n  1.31, 1.37: "),
        "{}",
        stdout
    );
    let out = crdlab().args(["cost", "--crd", &crd, "--kubernetes-version", "1.25-1.37", "-o", "json"]).output().unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v.as_array().map(Vec::len), Some(13));
    assert_eq!(v[12]["kubernetesVersion"], "1.37");
    assert_eq!(v[12]["explanation"]["rules"][0]["rule"], "ip(self.addr).family() == 4");
}

/// A reader that goes away early (`crdlab batch … | head -1`) ends crdlab quietly, by the
/// pipe signal, as any Unix tool: no panic about a failed write.
#[cfg(unix)]
#[test]
fn a_reader_that_goes_away_ends_crdlab_without_a_panic() {
    use std::io::{BufRead, BufReader};
    use std::os::unix::process::ExitStatusExt;
    let line = serde_json::json!({"id": "e", "mode": "eval", "expr": "1 + 1"}).to_string() + "\n";
    let mut child = crdlab()
        .arg("batch")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(line.as_bytes()).unwrap();
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap()).read_line(&mut first).unwrap();
    assert!(first.contains("\"id\":\"e\""), "{}", first);
    // The reader is gone; the next answers have nowhere to go. (A write to crdlab's stdin
    // may fail once it has ended.)
    for _ in 0..1000 {
        if stdin.write_all(line.as_bytes()).is_err() {
            break;
        }
    }
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "{}", stderr);
    assert_eq!(out.status.signal(), Some(libc_sigpipe()), "{:?} {}", out.status, stderr);
}

#[cfg(unix)]
fn libc_sigpipe() -> i32 {
    13 // SIGPIPE on Linux and the BSDs
}
