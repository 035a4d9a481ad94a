//! The architecture test: engine/src's imports run one way.
//!
//! It reads every file of `engine/src` (outside `bin/` and test code), collects the modules
//! each one names through `use crate::…`, `crate::…` and `super::…` paths, and fails when
//! - a file names a module of a higher layer than its own (the layer table is the one in
//!   ARCHITECTURE.md, read from there, so the document and the test cannot drift apart);
//! - files import each other, directly or in a loop;
//! - a file belongs to no layer of the table.
//!
//! There is no exception list: a new import that breaks a rule is fixed in the code, or the
//! table in ARCHITECTURE.md changes with a reason.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// One file of the crate as the check sees it.
struct SourceFile {
    /// Path below `src`, with `/`.
    rel: String,
    /// Its module path (`cel::value` for `cel/value.rs`, `cel` for `cel/mod.rs`).
    module: Vec<String>,
    text: String,
}

/// A row of ARCHITECTURE.md's layer table.
struct Layer {
    rank: u32,
    module: Vec<String>,
}

#[derive(Debug, Default)]
struct Findings {
    upward: Vec<String>,
    cycles: Vec<String>,
    unplaced: Vec<String>,
}

impl Findings {
    fn is_empty(&self) -> bool {
        self.upward.is_empty() && self.cycles.is_empty() && self.unplaced.is_empty()
    }
}

fn module_of(rel: &str) -> Vec<String> {
    let stem = rel.strip_suffix(".rs").unwrap_or(rel);
    let mut parts: Vec<String> = stem.split('/').map(str::to_string).collect();
    if matches!(parts.last().map(String::as_str), Some("mod") | Some("lib")) {
        parts.pop();
    }
    parts
}

/// The layer table: the markdown table of ARCHITECTURE.md whose header starts `| rank |`.
/// Its module column holds one or more `` `path` `` items, `::`-separated.
fn parse_layers(doc: &str) -> Vec<Layer> {
    let mut layers = Vec::new();
    let mut in_table = false;
    for line in doc.lines() {
        let line = line.trim();
        if line.starts_with("| rank |") {
            in_table = true;
            continue;
        }
        if !in_table {
            continue;
        }
        if !line.starts_with('|') {
            if !layers.is_empty() {
                break;
            }
            continue;
        }
        let cells: Vec<&str> = line.trim_matches('|').split('|').map(str::trim).collect();
        let Some(Ok(rank)) = cells.first().map(|c| c.parse::<u32>()) else {
            continue; // the |---| row
        };
        let Some(modules) = cells.get(1) else { continue };
        // `a`, `b::c` (but not `x` in "(not `x`)": a module named after "not" is excluded).
        let mut rest = *modules;
        while let Some(start) = rest.find('`') {
            let before = &rest[..start];
            let after = &rest[start + 1..];
            let Some(end) = after.find('`') else { break };
            let name = &after[..end];
            rest = &after[end + 1..];
            if before.trim_end().ends_with("not") {
                continue;
            }
            layers.push(Layer {
                rank,
                module: name.split("::").map(str::to_string).collect(),
            });
        }
    }
    layers
}

/// The rank of a module: the longest table entry that is a prefix of it.
fn rank_of(layers: &[Layer], module: &[String]) -> Option<u32> {
    layers
        .iter()
        .filter(|l| module.starts_with(&l.module))
        .max_by_key(|l| l.module.len())
        .map(|l| l.rank)
}

/// The text without comments, string literals and `#[cfg(test)]` items, so that only code
/// is read.
fn code_only(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < b.len() {
        if b[i..].starts_with(b"//") {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
        } else if b[i..].starts_with(b"/*") {
            let mut depth = 0;
            while i < b.len() {
                if b[i..].starts_with(b"/*") {
                    depth += 1;
                    i += 2;
                } else if b[i..].starts_with(b"*/") {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
        } else if b[i] == b'r' && (b[i..].starts_with(b"r\"") || b[i..].starts_with(b"r#")) && (i == 0 || !(b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_')) {
            // raw string r"…" / r#"…"#
            let mut j = i + 1;
            let mut hashes = 0;
            while j < b.len() && b[j] == b'#' {
                hashes += 1;
                j += 1;
            }
            if j < b.len() && b[j] == b'"' {
                let close: Vec<u8> = std::iter::once(b'"').chain(std::iter::repeat(b'#').take(hashes)).collect();
                j += 1;
                while j < b.len() && !b[j..].starts_with(&close) {
                    j += 1;
                }
                i = (j + close.len()).min(b.len());
                out.push_str("\"\"");
            } else {
                out.push('r');
                i += 1;
            }
        } else if b[i] == b'"' {
            i += 1;
            while i < b.len() && b[i] != b'"' {
                if b[i] == b'\\' {
                    i += 1;
                }
                i += 1;
            }
            i += 1;
            out.push_str("\"\"");
        } else if b[i] == b'\'' {
            // A char literal ('x', '\n', '\u{..}') or a lifetime ('a): skip only the former.
            let rest = &text[i..];
            let lit_end = if rest.starts_with("'\\") {
                rest[2..].find('\'').map(|k| k + 3)
            } else {
                let mut chars = rest[1..].char_indices();
                match (chars.next(), chars.next()) {
                    (Some((_, _)), Some((k, '\''))) => Some(k + 2),
                    _ => None,
                }
            };
            match lit_end {
                Some(n) => {
                    out.push_str("' '");
                    i += n;
                }
                None => {
                    out.push('\'');
                    i += 1;
                }
            }
        } else {
            let ch = text[i..].chars().next().unwrap();
            out.push(ch);
            i += ch.len_utf8();
        }
    }
    strip_cfg_test(&out)
}

/// Drops every `#[cfg(test)]` item: an inline `mod … { … }` block or a one-line item.
fn strip_cfg_test(code: &str) -> String {
    let mut out = String::with_capacity(code.len());
    let mut rest = code;
    while let Some(at) = rest.find("#[cfg(test)]") {
        out.push_str(&rest[..at]);
        let after = &rest[at + "#[cfg(test)]".len()..];
        // The item ends at the `;` before any `{`, or at the `}` closing its first `{`.
        let semi = after.find(';');
        let brace = after.find('{');
        match (semi, brace) {
            (Some(s), Some(b)) if s < b => rest = &after[s + 1..],
            (Some(s), None) => rest = &after[s + 1..],
            (_, Some(b)) => {
                let mut depth = 0usize;
                let mut end = after.len();
                for (k, c) in after[b..].char_indices() {
                    match c {
                        '{' => depth += 1,
                        '}' => {
                            depth -= 1;
                            if depth == 0 {
                                end = b + k + 1;
                                break;
                            }
                        }
                        _ => {}
                    }
                }
                rest = &after[end..];
            }
            (None, None) => rest = "",
        }
    }
    out.push_str(rest);
    out
}

/// Expands a use tree (`a::{b, c::{d, e as f}, self}`) into its paths.
fn expand_use_tree(tree: &str) -> Vec<String> {
    let mut out = Vec::new();
    expand_into("", tree.trim(), &mut out);
    out
}

fn expand_into(prefix: &str, tree: &str, out: &mut Vec<String>) {
    let tree = tree.trim();
    let Some(open) = tree.find('{') else {
        // `x as y` names `x`.
        let path = tree.split_whitespace().next().unwrap_or("");
        out.push(format!("{prefix}{path}"));
        return;
    };
    let head: String = tree[..open].split_whitespace().collect();
    let inner = tree[open + 1..].trim_end();
    let body = inner.strip_suffix('}').unwrap_or(inner);
    let mut depth = 0;
    let mut start = 0;
    for (k, c) in body.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                if !body[start..k].trim().is_empty() {
                    expand_into(&format!("{prefix}{head}"), &body[start..k], out);
                }
                start = k + 1;
            }
            _ => {}
        }
    }
    if !body[start..].trim().is_empty() {
        expand_into(&format!("{prefix}{head}"), &body[start..], out);
    }
}

/// The module paths a file's code names: `use` trees and inline `crate::`/`super::` paths.
fn named_paths(code: &str) -> Vec<String> {
    let mut paths = Vec::new();
    let mut rest = code;
    while let Some(at) = rest.find("use ") {
        let is_word_start = at == 0 || !rest.as_bytes()[at - 1].is_ascii_alphanumeric() && rest.as_bytes()[at - 1] != b'_';
        let after = &rest[at + 4..];
        if is_word_start {
            let trimmed = after.trim_start();
            if trimmed.starts_with("crate::") || trimmed.starts_with("super::") || trimmed.starts_with("self::") {
                if let Some(end) = trimmed.find(';') {
                    paths.extend(expand_use_tree(&trimmed[..end]));
                }
            }
        }
        rest = after;
    }
    for anchor in ["crate::", "super::"] {
        let mut rest = code;
        while let Some(at) = rest.find(anchor) {
            let prev = if at == 0 { b' ' } else { rest.as_bytes()[at - 1] };
            let tail = &rest[at..];
            let len = tail
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == ':'))
                .unwrap_or(tail.len());
            // `super::super::x`, `$crate::` (macros) and `crate::` after a word are skipped
            // when not a path start.
            if !(prev.is_ascii_alphanumeric() || prev == b'_' || prev == b'$' || (anchor == "super::" && prev == b':')) {
                paths.push(tail[..len].trim_end_matches(':').to_string());
            }
            rest = &rest[at + anchor.len()..];
        }
    }
    paths
}

/// The file a path names: the deepest module of the crate that is a prefix of it.
fn resolve<'a>(
    from: &[String],
    from_is_mod_root: bool,
    path: &str,
    modules: &'a BTreeMap<Vec<String>, String>,
) -> Option<&'a String> {
    let mut segs = path.split("::").filter(|s| !s.is_empty());
    let first = segs.next()?;
    let mut absolute: Vec<String> = match first {
        "crate" => Vec::new(),
        "super" | "self" => {
            // `super` is relative to the module the code is in: a file `a/b.rs` is module
            // `a::b`, whose `super` is `a`; `self` is the module itself.
            let mut m = from.to_vec();
            if first == "super" {
                m.pop();
            }
            let _ = from_is_mod_root;
            m
        }
        _ => return None,
    };
    for s in segs {
        match s {
            "super" => {
                absolute.pop();
            }
            "self" => {}
            s => absolute.push(s.to_string()),
        }
    }
    (0..=absolute.len()).rev().find_map(|n| modules.get(&absolute[..n]))
}

fn check(files: &[SourceFile], layers: &[Layer]) -> Findings {
    let mut findings = Findings::default();
    let modules: BTreeMap<Vec<String>, String> =
        files.iter().map(|f| (f.module.clone(), f.rel.clone())).collect();
    let by_rel: BTreeMap<&str, &SourceFile> = files.iter().map(|f| (f.rel.as_str(), f)).collect();
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for f in files {
        if f.module.is_empty() {
            continue; // lib.rs: the module map and the public re-exports
        }
        let Some(rank) = rank_of(layers, &f.module) else {
            findings.unplaced.push(format!("{} (module {}) is in no layer of ARCHITECTURE.md's table", f.rel, f.module.join("::")));
            continue;
        };
        let code = code_only(&f.text);
        let is_root = f.rel.ends_with("mod.rs");
        for path in named_paths(&code) {
            let Some(target) = resolve(&f.module, is_root, &path, &modules) else { continue };
            if *target == f.rel || target == "lib.rs" {
                continue;
            }
            let target_file = by_rel[target.as_str()];
            // A parent naming its children (`pub mod x; pub use x::Y`) is the module tree,
            // not an import, as long as the child does not name the parent back (a cycle).
            edges.entry(f.rel.clone()).or_default().insert(target.clone());
            if let Some(target_rank) = rank_of(layers, &target_file.module) {
                if target_rank > rank {
                    findings.upward.push(format!(
                        "{} (layer {rank}) imports {} (layer {target_rank}) through `{path}`",
                        f.rel, target
                    ));
                }
            }
        }
    }
    findings.upward = group_upward(std::mem::take(&mut findings.upward));
    findings.cycles = cycles(&edges);
    findings
}

/// One line per pair of files: the first path, and how many more name the same file.
fn group_upward(mut lines: Vec<String>) -> Vec<String> {
    lines.sort();
    lines.dedup();
    let mut out: Vec<(String, usize)> = Vec::new();
    for l in lines {
        let pair = l.split(" through ").next().unwrap_or(&l).to_string();
        match out.last_mut() {
            Some((first, more)) if first.split(" through ").next() == Some(pair.as_str()) => *more += 1,
            _ => out.push((l, 0)),
        }
    }
    out.into_iter()
        .map(|(l, more)| if more == 0 { l } else { format!("{l} (and {more} more paths)") })
        .collect()
}

/// Every strongly connected component of more than one file, with one loop through it.
fn cycles(edges: &BTreeMap<String, BTreeSet<String>>) -> Vec<String> {
    // Tarjan's algorithm, iterative (the graph is small, but the test should not recurse
    // on what it reads either).
    let nodes: Vec<&String> = edges.keys().chain(edges.values().flatten()).collect::<BTreeSet<_>>().into_iter().collect();
    let index_of: BTreeMap<&String, usize> = nodes.iter().enumerate().map(|(i, n)| (*n, i)).collect();
    let succ: Vec<Vec<usize>> = nodes
        .iter()
        .map(|n| edges.get(*n).map(|s| s.iter().map(|t| index_of[t]).collect()).unwrap_or_default())
        .collect();
    let n = nodes.len();
    let (mut index, mut low, mut on_stack) = (vec![usize::MAX; n], vec![0; n], vec![false; n]);
    let (mut stack, mut next, mut sccs) = (Vec::new(), 0, Vec::new());
    for root in 0..n {
        if index[root] != usize::MAX {
            continue;
        }
        let mut work = vec![(root, 0usize)];
        while let Some(&mut (v, ref mut child)) = work.last_mut() {
            if *child == 0 && index[v] == usize::MAX {
                index[v] = next;
                low[v] = next;
                next += 1;
                stack.push(v);
                on_stack[v] = true;
            }
            if let Some(&w) = succ[v].get(*child) {
                *child += 1;
                if index[w] == usize::MAX {
                    work.push((w, 0));
                } else if on_stack[w] {
                    low[v] = low[v].min(index[w]);
                }
                continue;
            }
            work.pop();
            if let Some(&(parent, _)) = work.last() {
                low[parent] = low[parent].min(low[v]);
            }
            if low[v] == index[v] {
                let mut comp = Vec::new();
                loop {
                    let w = stack.pop().unwrap();
                    on_stack[w] = false;
                    comp.push(w);
                    if w == v {
                        break;
                    }
                }
                if comp.len() > 1 {
                    sccs.push(comp);
                }
            }
        }
    }
    sccs.into_iter()
        .map(|comp| {
            let members: BTreeSet<usize> = comp.iter().copied().collect();
            let start = *members.iter().next().unwrap();
            // A shortest loop from `start` back to itself inside the component (BFS).
            let mut prev = vec![usize::MAX; n];
            let mut queue = std::collections::VecDeque::from([start]);
            let mut found = None;
            while let Some(v) = queue.pop_front() {
                for &w in &succ[v] {
                    if !members.contains(&w) {
                        continue;
                    }
                    if w == start {
                        found = Some(v);
                        break;
                    }
                    if prev[w] == usize::MAX {
                        prev[w] = v;
                        queue.push_back(w);
                    }
                }
                if found.is_some() {
                    break;
                }
            }
            let mut loop_path = vec![start];
            let mut v = found.unwrap_or(start);
            let mut back = Vec::new();
            while v != start && v != usize::MAX {
                back.push(v);
                v = prev[v];
            }
            loop_path.extend(back.into_iter().rev());
            loop_path.push(start);
            let names: Vec<&str> = loop_path.iter().map(|&i| nodes[i].as_str()).collect();
            let all: Vec<&str> = members.iter().map(|&i| nodes[i].as_str()).collect();
            format!("{} (the loop involves {} files: {})", names.join(" → "), all.len(), all.join(", "))
        })
        .collect()
}

fn read_tree(dir: &Path, rel: &str, out: &mut Vec<SourceFile>, budget: &mut usize) {
    let mut entries: Vec<_> = std::fs::read_dir(dir).expect("read engine/src").flatten().collect();
    entries.sort_by_key(|e| e.file_name());
    for e in entries {
        *budget = budget.checked_sub(1).expect("engine/src has a bounded number of files");
        let name = e.file_name().to_string_lossy().into_owned();
        let child_rel = if rel.is_empty() { name.clone() } else { format!("{rel}/{name}") };
        let path = e.path();
        if path.is_dir() {
            if child_rel == "bin" {
                continue; // the CLI uses the public API; it is not a layer
            }
            read_tree(&path, &child_rel, out, budget);
        } else if name.ends_with(".rs") && name != "tests.rs" && !child_rel.contains("/tests/") {
            out.push(SourceFile {
                module: module_of(&child_rel),
                text: std::fs::read_to_string(&path).expect("read a source file"),
                rel: child_rel,
            });
        }
    }
}

#[test]
fn imports_run_one_way_and_never_in_a_loop() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let doc = std::fs::read_to_string(root.join("../ARCHITECTURE.md")).expect("read ARCHITECTURE.md");
    let layers = parse_layers(&doc);
    assert!(layers.len() >= 10, "ARCHITECTURE.md's layer table (header `| rank | module |`) has {} rows", layers.len());
    let mut files = Vec::new();
    read_tree(&root.join("src"), "", &mut files, &mut 10_000);
    assert!(files.len() > 50, "read {} files of engine/src", files.len());
    let findings = check(&files, &layers);
    let mut report = String::new();
    for (title, list) in [
        ("files in no layer", &findings.unplaced),
        ("imports of a higher layer", &findings.upward),
        ("import loops", &findings.cycles),
    ] {
        if !list.is_empty() {
            report.push_str(&format!("\n{title} ({}):\n", list.len()));
            for l in list {
                report.push_str(&format!("  {l}\n"));
            }
        }
    }
    assert!(findings.is_empty(), "engine/src breaks ARCHITECTURE.md:{report}");
}

/// The check itself can fail: a small tree with an upward import, a loop and an unplaced
/// file is reported for each.
#[test]
fn the_check_finds_upward_imports_loops_and_unplaced_files() {
    let doc = "# x\n\n| rank | module | what |\n|---|---|---|\n| 0 | `go` | g |\n| 1 | `cel` | c |\n| 2 | `crd` (not `crd::model`) | d |\n| 0 | `crd::model` | m |\n\nafter\n";
    let layers = parse_layers(doc);
    assert_eq!(layers.len(), 4);
    let file = |rel: &str, text: &str| SourceFile { rel: rel.into(), module: module_of(rel), text: text.into() };
    let files = vec![
        file("lib.rs", "pub mod go; pub mod cel; pub mod crd;"),
        file("go/mod.rs", "pub mod fmt;"),
        file("go/fmt.rs", "use crate::cel::value::Val; // upward\nfn f() { let s = \"crate::crd::x\"; }"),
        file("cel/mod.rs", "pub mod value; pub mod env;"),
        file("cel/value.rs", "use crate::cel::env::Env; use crate::go::fmt;"),
        file("cel/env.rs", "use super::value::{self, Val as V};\n#[cfg(test)]\nmod tests { use crate::crd::model::X; }"),
        file("crd/mod.rs", "pub mod model;"),
        file("crd/model.rs", "fn f() -> crate::go::fmt::T { todo!() }"),
        file("other.rs", ""),
    ];
    let f = check(&files, &layers);
    assert_eq!(f.upward, vec!["go/fmt.rs (layer 0) imports cel/value.rs (layer 1) through `crate::cel::value::Val`".to_string()]);
    assert_eq!(f.cycles.len(), 1, "{:?}", f.cycles);
    assert!(f.cycles[0].starts_with("cel/env.rs → cel/value.rs → cel/env.rs"), "{}", f.cycles[0]);
    assert_eq!(f.unplaced.len(), 1, "{:?}", f.unplaced);
    assert!(f.unplaced[0].starts_with("other.rs"));
}
