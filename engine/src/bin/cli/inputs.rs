//! What the command line names: files and directories of YAML/JSON documents, read the way
//! kubectl reads a `-f` argument: directories walked recursively (`.yaml`, `.yml`, `.json`),
//! every document of a multi-document file, the items of a `List`.

use crdlab::crd::model::CustomResourceDefinition;
use serde_json::Value;
use std::path::{Path, PathBuf};

/// How deep a directory walk goes (a symlink loop or a pathological tree ends here).
const MAX_DIR_DEPTH: usize = 64;

/// One document of a file (`index`: its place in the file, from 0; the items of a `List`
/// share their List's index).
pub struct Document {
    pub file: PathBuf,
    pub index: usize,
    pub value: Value,
}

/// The files `paths` name: files as given, directories walked (sorted, so output is stable),
/// keeping `.yaml`, `.yml` and `.json` files.
pub fn files(paths: &[String]) -> Result<Vec<PathBuf>, String> {
    files_where(paths, |_| true, |name| name.ends_with(".yaml") || name.ends_with(".yml") || name.ends_with(".json"))
}

/// The files `paths` name: files as given; in directories, walked in sorted order, the files
/// whose name `keep_file` keeps, in the subdirectories whose name `enter` accepts.
/// Symlinked directories are not followed (no loops) and the walk stops at
/// [`MAX_DIR_DEPTH`]; symlinked files are read.
pub fn files_where(paths: &[String], enter: fn(&str) -> bool, keep_file: fn(&str) -> bool) -> Result<Vec<PathBuf>, String> {
    let mut out = Vec::new();
    for p in paths {
        let path = Path::new(p);
        let meta = std::fs::metadata(path).map_err(|e| format!("cannot read {}: {}", p, e))?;
        if meta.is_dir() {
            walk(path, 0, enter, keep_file, &mut out)?;
        } else {
            out.push(path.to_path_buf());
        }
    }
    Ok(out)
}

fn walk(dir: &Path, depth: usize, enter: fn(&str) -> bool, keep_file: fn(&str) -> bool, out: &mut Vec<PathBuf>) -> Result<(), String> {
    if depth > MAX_DIR_DEPTH {
        return Err(format!("{}: directories nest deeper than {} levels", dir.display(), MAX_DIR_DEPTH));
    }
    let mut entries: Vec<(PathBuf, std::fs::DirEntry)> = std::fs::read_dir(dir)
        .map_err(|e| format!("cannot read {}: {}", dir.display(), e))?
        .filter_map(|e| e.ok().map(|e| (e.path(), e)))
        .collect();
    entries.sort_by(|a, b| a.0.cmp(&b.0));
    for (e, entry) in entries {
        let name = e.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        // The entry's type comes with the directory listing on most file systems: only a
        // symbolic link (or a file system that does not say) costs a `stat` per file.
        let (is_dir, is_link) = match entry.file_type() {
            Ok(t) if !t.is_symlink() => (t.is_dir(), false),
            Ok(_) => (e.is_dir(), true),
            Err(_) => (e.is_dir(), std::fs::symlink_metadata(&e).map(|m| m.file_type().is_symlink()).unwrap_or(false)),
        };
        if is_dir {
            if !is_link && enter(&name) {
                walk(&e, depth + 1, enter, keep_file, out)?;
            }
        } else if keep_file(&name) {
            out.push(e);
        }
    }
    Ok(())
}

/// A reader's error as `file:line:column: message` (or `file: message` without a place).
pub fn read_error(file: &str, line: Option<usize>, column: Option<usize>, message: &str) -> String {
    match (line, column) {
        (Some(l), Some(c)) => format!("{}:{}:{}: {}", file, l, c, message),
        _ => format!("{}: {}", file, message),
    }
}

/// The items of a `List` (`kind: List` or `<Kind>List`, as `kubectl get -o yaml` prints it).
pub fn list_items(v: &Value) -> Option<&Vec<Value>> {
    v.get("kind").and_then(Value::as_str).filter(|k| k.ends_with("List"))?;
    v.get("items")?.as_array()
}

/// Every document of `file`, `List`s opened; an unreadable file is an error naming the file,
/// line and column.
pub fn documents(file: &Path) -> Result<Vec<Document>, String> {
    let text = std::fs::read_to_string(file).map_err(|e| format!("cannot read {}: {}", file.display(), e))?;
    let docs = crdlab::text::yaml::read_documents(&text).map_err(|e| read_error(&file.display().to_string(), e.line, e.column, &e.message))?;
    let mut out = Vec::new();
    for (index, value) in docs.into_iter().enumerate() {
        if value.is_null() {
            continue;
        }
        match list_items(&value) {
            Some(items) => out.extend(items.iter().map(|value| Document { file: file.to_path_buf(), index, value: value.clone() })),
            None => out.push(Document { file: file.to_path_buf(), index, value }),
        }
    }
    Ok(out)
}

/// The CustomResourceDefinition documents among those `paths` name (other kinds are
/// skipped), not decoded: a tool that needs only some of them decodes those.
/// Files are read on the machine's cores (a CRD folder holds megabytes of YAML); the
/// first file in order that cannot be read is the error.
pub fn crd_documents(paths: &[String]) -> Result<Vec<Document>, String> {
    let files = files(paths)?;
    let threads = crdlab::analysis::parallel::cores().min(files.len().div_ceil(8));
    let read = crdlab::analysis::parallel::par_map(&files, threads, |file| documents(file));
    let mut out = Vec::new();
    for docs in read {
        out.extend(docs?.into_iter().filter(|d| d.value.get("kind").and_then(Value::as_str) == Some("CustomResourceDefinition")));
    }
    Ok(out)
}

/// The CustomResourceDefinitions among the documents `paths` name, decoded; one that does
/// not decode is an error naming its file and document.
pub fn crds(paths: &[String]) -> Result<Vec<(Document, CustomResourceDefinition)>, String> {
    crd_documents(paths)?
        .into_iter()
        .map(|doc| {
            let crd = crdlab::crd::load::decode_crd(&doc.value)
                .map_err(|e| format!("{} (document {}): {}", doc.file.display(), doc.index + 1, e.message))?;
            Ok((doc, crd))
        })
        .collect()
}

/// The file system as `crdlab test`'s runner reads it (the library reads none itself).
pub struct FsFiles;

impl crdlab::analysis::suite::SuiteFiles for FsFiles {
    fn read(&self, path: &Path) -> Result<String, String> {
        std::fs::read_to_string(path).map_err(|e| e.to_string())
    }
    fn list(&self, dir: &Path) -> Result<Vec<(PathBuf, bool)>, String> {
        let mut out = Vec::new();
        for e in std::fs::read_dir(dir).map_err(|e| e.to_string())?.flatten() {
            let p = e.path();
            // Symbolic links to directories are left out: the walks must end.
            let link = std::fs::symlink_metadata(&p).map(|m| m.file_type().is_symlink()).unwrap_or(false);
            match (p.is_dir(), link) {
                (true, true) => {}
                (is_dir, _) => out.push((p, is_dir)),
            }
        }
        Ok(out)
    }
    fn is_dir(&self, path: &Path) -> bool {
        path.is_dir()
    }
    fn canonical(&self, path: &Path) -> Option<PathBuf> {
        std::fs::canonicalize(path).ok()
    }
}
