//! Which CRD files a suite runs against: `crd:` names a file; `crdName:` is looked up in
//! openshift/api's layout as its runner does (`tests/crd_filter.go`'s `perTestRuntimeInfo`
//! and `featureGatesForClusterProfileFeatureSetVersion`): the files of
//! `<suite dir>/../../zz_generated.crd-manifests/` named `crdName`, kept by the gates their
//! feature set enables for the first cluster profile they include, read from the
//! repository's `payload-manifests/featuregates/`.
//!
//! The library reads no file system (it runs in wasm too): the caller hands it a
//! [`SuiteFiles`], which the CLI implements over `std::fs`.

use crate::analysis::parallel::par_map;
use crate::text::crd_document::parse_crd_text;
use serde_json::Value;
use std::collections::{BTreeSet, HashMap};
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

/// How deep the walk of a feature-gate directory goes (a pathological tree ends here).
const MAX_DIR_DEPTH: usize = 64;

/// The files a run reads, as its caller provides them. Errors are the reader's reason
/// (the layout adds which file). Shared by the runner's threads.
pub trait SuiteFiles: Sync {
    /// A file's text.
    fn read(&self, path: &Path) -> Result<String, String>;
    /// A directory's entries, each with whether it is a directory to walk into (a
    /// symbolic link to a directory is best left out: walks must end).
    fn list(&self, dir: &Path) -> Result<Vec<(PathBuf, bool)>, String>;
    /// Whether `path` is a directory.
    fn is_dir(&self, path: &Path) -> bool;
    /// `path` absolute with `.`/`..` resolved, where the search for the repository's
    /// feature gates starts (the runner reads them from the repository root). By
    /// default the path with `.` and `..` resolved lexically.
    fn canonical(&self, path: &Path) -> Option<PathBuf> {
        let mut out = PathBuf::new();
        for c in path.components() {
            match c {
                Component::CurDir => {}
                Component::ParentDir => {
                    if !out.pop() {
                        out.push("..");
                    }
                }
                c => out.push(c),
            }
        }
        Some(out)
    }
}

/// The feature-set annotation of a CRD manifest or a FeatureGate manifest.
const FEATURE_SET: &str = "release.openshift.io/feature-set";
/// Cluster-profile annotations share this prefix.
const PROFILE_PREFIX: &str = "include.release.openshift.io/";
/// The OpenShift major versions a manifest is for.
const MAJOR_VERSION: &str = "release.openshift.io/major-version";

/// A CRD manifest read from disk.
#[derive(Clone, Debug)]
pub struct CrdFile {
    pub path: PathBuf,
    /// Shared by every suite that runs against the file (a CRD is often megabytes).
    pub value: Arc<Value>,
}

impl CrdFile {
    fn annotations(&self) -> Option<&serde_json::Map<String, Value>> {
        self.value.pointer("/metadata/annotations").and_then(Value::as_object)
    }
    fn annotation(&self, k: &str) -> Option<&str> {
        self.annotations().and_then(|a| a.get(k)).and_then(Value::as_str)
    }
}

/// Reads files once for all the suites of a run: CRD directories and feature-gate
/// manifests are shared by many suites.
pub struct Layout<'f> {
    files: &'f dyn SuiteFiles,
    /// Each directory's files: path, text, and the CRD read from it once needed.
    #[allow(clippy::type_complexity)]
    dirs: HashMap<PathBuf, Vec<(PathBuf, String, Option<Option<Arc<Value>>>)>>,
    gates: HashMap<PathBuf, Vec<(serde_json::Map<String, Value>, HashMap<String, bool>)>>,
    /// For a directory (its key) and a CRD name, the indices of its files that mention
    /// the name: only those can be that CRD and are parsed.
    mentions: HashMap<(PathBuf, String), Vec<usize>>,
}

/// The indices of the files whose text mentions `name`.
fn mentioning(files: &[(PathBuf, String, Option<Option<Arc<Value>>>)], name: &str) -> Vec<usize> {
    files.iter().enumerate().filter(|(_, (_, text, _))| text.contains(name)).map(|(i, _)| i).collect()
}

impl<'f> Layout<'f> {
    pub fn new(files: &'f dyn SuiteFiles) -> Layout<'f> {
        Layout { files, dirs: HashMap::new(), gates: HashMap::new(), mentions: HashMap::new() }
    }

    /// The CRD files a suite at `suite_path` with `crd`/`crdName` and `featureGates` runs against.
    pub fn crd_files(
        &mut self,
        suite_path: &Path,
        crd: Option<&str>,
        crd_name: Option<&str>,
        feature_gates: &[String],
    ) -> Result<Vec<CrdFile>, String> {
        let dir = suite_path.parent().unwrap_or(Path::new("."));
        if let Some(file) = crd.filter(|c| !c.is_empty()) {
            let path = dir.join(file);
            let text = self.files.read(&path).map_err(|e| format!("could not read CRD file {}: {}", path.display(), e))?;
            let value = parse_crd_text(&text).map_err(|e| format!("{}: {}", path.display(), e))?;
            return Ok(vec![CrdFile { path, value: Arc::new(value) }]);
        }
        let Some(name) = crd_name.filter(|c| !c.is_empty()) else {
            return Err("the suite names no CRD: it needs `crd` or `crdName`".into());
        };
        let manifests = Self::manifests_dir(suite_path);
        let files = self.dir(&manifests, name)?;
        let mut out = Vec::new();
        for f in files {
            if feature_gates.is_empty() {
                out.push(f);
                continue;
            }
            let sets: BTreeSet<String> = f
                .annotation(FEATURE_SET)
                .filter(|s| !s.is_empty())
                .map(|s| s.split(',').map(str::to_string).collect())
                .unwrap_or_default();
            if sets.contains("CustomNoUpgrade") {
                // CustomNoUpgrade enables every gate.
                if !feature_gates.iter().any(|g| g.starts_with('-')) {
                    out.push(f);
                }
                continue;
            }
            let profiles: BTreeSet<&str> = f
                .annotations()
                .map(|a| {
                    a.iter()
                        .filter(|(k, v)| k.starts_with(PROFILE_PREFIX) && v.as_str() == Some("true"))
                        .map(|(k, _)| k.as_str())
                        .collect()
                })
                .unwrap_or_default();
            // The runner's "weird" case: no profile, test everything.
            let Some(profile) = profiles.iter().next() else {
                out.push(f);
                continue;
            };
            let versions = major_versions(f.annotations());
            let status = self.gate_status(&manifests, profile, &sets, &versions, &f.path)?;
            let mut keep = true;
            for g in feature_gates {
                let (gate, want) = match g.strip_prefix('-') {
                    Some(d) => (d, false),
                    None => (g.as_str(), true),
                };
                match status.get(gate) {
                    None => return Err(format!("unable to find featureGate/{} to check for {}", g, f.path.display())),
                    Some(&enabled) if enabled != want => keep = false,
                    Some(_) => {}
                }
            }
            if keep {
                out.push(f);
            }
        }
        if out.is_empty() {
            return Err(format!("no CRD file in {} is named {} and matches the suite's feature gates", manifests.display(), name));
        }
        Ok(out)
    }

    /// Reads and parses ahead, on `threads` threads, the CRD manifests that suites at the
    /// given paths will ask for by `crdName` ([`Layout::crd_files`] then finds them
    /// parsed). A run over a repository's suites parses dozens of megabyte-sized CRDs;
    /// what goes wrong is left for `crd_files` to report, suite by suite.
    pub fn prefetch(&mut self, wanted: &[(&Path, &str)], threads: usize) {
        let mut by_dir: Vec<(PathBuf, Vec<&str>)> = Vec::new();
        for &(suite_path, name) in wanted {
            let manifests = Self::manifests_dir(suite_path);
            match by_dir.iter_mut().find(|(d, _)| *d == manifests) {
                Some((_, names)) => names.push(name),
                None => by_dir.push((manifests, vec![name])),
            }
        }
        for (dir, _) in &by_dir {
            let _ = self.read_dir(dir, threads);
        }
        // Suites of different directories name one manifests directory by different
        // paths (`a/tests/x/../../zz_generated.crd-manifests`, `a/tests/y/../../…`): its
        // files are read and parsed once, under one key.
        let mut wanted: Vec<(PathBuf, &str)> = Vec::new();
        for (dir, names) in by_dir {
            let key = self.dir_key(&dir);
            for n in names {
                if !self.mentions.contains_key(&(key.clone(), n.to_string())) && !wanted.iter().any(|(d, m)| *d == key && *m == n) {
                    wanted.push((key.clone(), n));
                }
            }
        }
        // Which files mention each name: a scan of megabytes per name, on the threads.
        let dirs = &self.dirs;
        let found: Vec<Vec<usize>> = par_map(&wanted, threads, |(key, name)| mentioning(dirs.get(key).map(Vec::as_slice).unwrap_or_default(), name));
        for ((key, name), found) in wanted.into_iter().zip(found) {
            self.mentions.insert((key, name.to_string()), found);
        }
        let mut todo: Vec<(&Path, usize, &str)> = Vec::new();
        for ((dir, _), found) in &self.mentions {
            for &i in found {
                if let Some((_, text, None)) = self.dirs.get(dir.as_path()).and_then(|files| files.get(i)) {
                    if !todo.iter().any(|(d, j, _)| *d == dir.as_path() && *j == i) {
                        todo.push((dir, i, text));
                    }
                }
            }
        }
        let parsed: Vec<Option<Arc<Value>>> = par_map(&todo, threads, |(_, _, text)| parse_crd_text(text).ok().map(Arc::new));
        let places: Vec<(PathBuf, usize)> = todo.iter().map(|(d, i, _)| (d.to_path_buf(), *i)).collect();
        for ((dir, i), p) in places.into_iter().zip(parsed) {
            if let Some(entry) = self.dirs.get_mut(&dir).and_then(|files| files.get_mut(i)) {
                entry.2 = Some(p);
            }
        }
    }

    /// Where openshift's layout keeps the CRD manifests of a suite's API group.
    fn manifests_dir(suite_path: &Path) -> PathBuf {
        suite_path.parent().unwrap_or(Path::new(".")).join("..").join("..").join("zz_generated.crd-manifests")
    }

    /// The key [`Layout::dirs`] keeps a directory under: the same for every path that
    /// names it (resolved as the file system resolves it, links included).
    fn dir_key(&self, dir: &Path) -> PathBuf {
        self.files.canonical(dir).unwrap_or_else(|| dir.to_path_buf())
    }

    /// A directory's files and their texts, in file-name order, read once (on `threads`
    /// threads) whatever path names the directory.
    fn read_dir(&mut self, dir: &Path, threads: usize) -> Result<(), String> {
        let key = self.dir_key(dir);
        if self.dirs.contains_key(&key) {
            return Ok(());
        }
        let mut names: Vec<PathBuf> = self
            .files
            .list(dir)
            .map_err(|e| format!("could not read {}: {}", dir.display(), e))?
            .into_iter()
            .filter(|(_, is_dir)| !is_dir)
            .map(|(p, _)| p)
            .collect();
        crate::go::sort::sort(&mut names);
        let files = self.files;
        let texts = par_map(&names, threads, |p| files.read(p).ok());
        let entries = names.into_iter().zip(texts).filter_map(|(p, t)| t.map(|t| (p, t, None))).collect();
        self.dirs.insert(key, entries);
        Ok(())
    }

    /// The CRD manifests of a directory named `name`, in file-name order (files that are
    /// not CRDs are skipped). Texts are read once; only those that mention the name are
    /// parsed (CRD directories hold megabytes of YAML, most of it other CRDs').
    fn dir(&mut self, dir: &Path, name: &str) -> Result<Vec<CrdFile>, String> {
        self.read_dir(dir, 1)?;
        let key = (self.dir_key(dir), name.to_string());
        if !self.mentions.contains_key(&key) {
            let found = mentioning(self.dirs.get(&key.0).map(Vec::as_slice).unwrap_or_default(), name);
            self.mentions.insert(key.clone(), found);
        }
        let mut out = Vec::new();
        let files = self.dirs.get_mut(&key.0).map(Vec::as_mut_slice).unwrap_or_default();
        for &i in &self.mentions[&key] {
            let Some((path, text, parsed)) = files.get_mut(i) else { continue };
            let value = parsed.get_or_insert_with(|| parse_crd_text(text).ok().map(Arc::new));
            if let Some(v) = value.as_ref().filter(|v| v.pointer("/metadata/name").and_then(Value::as_str) == Some(name)) {
                // The path as this suite names the directory (the entry keeps the first
                // reader's).
                let path = path.file_name().map(|n| dir.join(n)).unwrap_or_else(|| path.clone());
                out.push(CrdFile { path, value: Arc::clone(v) });
            }
        }
        Ok(out)
    }

    /// The gates (name → enabled) of the first FeatureGate manifest, in walk order, for
    /// the profile, one of the feature sets (`Default` when the CRD names none) and one of
    /// the major versions (any when the CRD names none).
    fn gate_status(
        &mut self,
        manifests: &Path,
        profile: &str,
        sets: &BTreeSet<String>,
        versions: &BTreeSet<u64>,
        crd_path: &Path,
    ) -> Result<HashMap<String, bool>, String> {
        let root = find_gates_dir(self.files, manifests).ok_or_else(|| format!("no payload-manifests/featuregates directory above {}", manifests.display()))?;
        if !self.gates.contains_key(&root) {
            let loaded = load_gates(self.files, &root)?;
            self.gates.insert(root.clone(), loaded);
        }
        let default_sets: BTreeSet<String> = ["Default".to_string()].into();
        let sets = if sets.is_empty() { &default_sets } else { sets };
        for (annotations, status) in &self.gates[&root] {
            let set = annotations.get(FEATURE_SET).and_then(Value::as_str).unwrap_or("");
            let vs = major_versions(Some(annotations));
            if annotations.contains_key(profile) && sets.contains(set) && (versions.is_empty() || !vs.is_disjoint(versions)) {
                return Ok(status.clone());
            }
        }
        Err(format!(
            "no feature gate found for cluster profile {:?}, feature set {:?} and versions {:?} (for {})",
            profile,
            sets.iter().cloned().collect::<Vec<_>>().join(","),
            versions,
            crd_path.display()
        ))
    }
}

/// `release.openshift.io/major-version`'s numbers.
fn major_versions(annotations: Option<&serde_json::Map<String, Value>>) -> BTreeSet<u64> {
    annotations
        .and_then(|a| a.iter().find(|(k, _)| k.starts_with(MAJOR_VERSION)))
        .and_then(|(_, v)| v.as_str())
        .map(|s| s.split(',').filter_map(|n| n.parse().ok()).collect())
        .unwrap_or_default()
}

/// The nearest `payload-manifests/featuregates` at or above `from` (the runner reads it
/// from the repository root).
fn find_gates_dir(files: &dyn SuiteFiles, from: &Path) -> Option<PathBuf> {
    let abs = files.canonical(from)?;
    abs.ancestors().map(|a| a.join("payload-manifests").join("featuregates")).find(|p| files.is_dir(p))
}

/// Every FeatureGate manifest under `root`, in `filepath.WalkDir`'s lexical order: its
/// annotations and its first `status.featureGates` entry's enabled/disabled gates.
#[allow(clippy::type_complexity)]
fn load_gates(fs: &dyn SuiteFiles, root: &Path) -> Result<Vec<(serde_json::Map<String, Value>, HashMap<String, bool>)>, String> {
    let mut files = Vec::new();
    let mut stack = vec![(root.to_path_buf(), 0usize)];
    while let Some((d, depth)) = stack.pop() {
        if depth > MAX_DIR_DEPTH {
            return Err(format!("{}: directories nest deeper than {} levels", d.display(), MAX_DIR_DEPTH));
        }
        let entries = fs.list(&d).map_err(|e| format!("could not read {}: {}", d.display(), e))?;
        for (p, is_dir) in entries {
            if is_dir {
                stack.push((p, depth + 1));
            } else {
                files.push(p);
            }
        }
    }
    crate::go::sort::sort(&mut files);
    let mut out = Vec::new();
    for f in files {
        let text = fs.read(&f).map_err(|e| format!("could not read {}: {}", f.display(), e))?;
        let doc = crate::text::yaml::read_document(&text).map_err(|e| format!("{}: {}", f.display(), e))?;
        let annotations = doc.pointer("/metadata/annotations").and_then(Value::as_object).cloned().unwrap_or_default();
        let mut status = HashMap::new();
        if let Some(first) = doc.pointer("/status/featureGates/0") {
            for (list, enabled) in [("enabled", true), ("disabled", false)] {
                for g in first.get(list).and_then(Value::as_array).into_iter().flatten() {
                    if let Some(n) = g.get("name").and_then(Value::as_str) {
                        status.insert(n.to_string(), enabled);
                    }
                }
            }
        }
        out.push((annotations, status));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    /// Files in memory, counting the reads of each.
    struct Memory {
        files: Vec<(PathBuf, String)>,
        reads: Mutex<HashMap<PathBuf, usize>>,
    }

    impl SuiteFiles for Memory {
        fn read(&self, path: &Path) -> Result<String, String> {
            let key = self.canonical(path).unwrap();
            *self.reads.lock().unwrap().entry(key.clone()).or_default() += 1;
            self.files.iter().find(|(p, _)| *p == key).map(|(_, t)| t.clone()).ok_or_else(|| "no such file".into())
        }
        fn list(&self, dir: &Path) -> Result<Vec<(PathBuf, bool)>, String> {
            let dir = self.canonical(dir).unwrap();
            Ok(self.files.iter().filter(|(p, _)| p.parent() == Some(dir.as_path())).map(|(p, _)| (p.clone(), false)).collect())
        }
        fn is_dir(&self, path: &Path) -> bool {
            let path = self.canonical(path).unwrap();
            self.files.iter().any(|(p, _)| p.starts_with(&path) && *p != path)
        }
    }

    fn crd(name: &str) -> String {
        format!("apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: {}\n", name)
    }

    #[test]
    fn a_manifests_directory_named_by_several_suite_paths_is_read_once() {
        let m = "g/v1/zz_generated.crd-manifests";
        let fs = Memory {
            files: vec![
                (PathBuf::from(format!("{}/a.crd.yaml", m)), crd("as.g.io")),
                (PathBuf::from(format!("{}/b.crd.yaml", m)), crd("bs.g.io")),
            ],
            reads: Mutex::new(HashMap::new()),
        };
        let (sa, sb) = (Path::new("g/v1/tests/as.g.io/AAA.yaml"), Path::new("g/v1/tests/bs.g.io/AAA.yaml"));
        let mut layout = Layout::new(&fs);
        layout.prefetch(&[(sa, "as.g.io"), (sb, "bs.g.io")], 2);
        let a = layout.crd_files(sa, None, Some("as.g.io"), &[]).unwrap();
        let b = layout.crd_files(sb, None, Some("bs.g.io"), &[]).unwrap();
        // Each suite sees its CRD under the path it names the directory by.
        assert_eq!(a.len(), 1);
        assert_eq!(a[0].path, Path::new("g/v1/tests/as.g.io/../../zz_generated.crd-manifests/a.crd.yaml"));
        assert_eq!(b[0].path, Path::new("g/v1/tests/bs.g.io/../../zz_generated.crd-manifests/b.crd.yaml"));
        assert_eq!(b[0].value.pointer("/metadata/name").and_then(Value::as_str), Some("bs.g.io"));
        let reads = fs.reads.lock().unwrap();
        assert_eq!(reads.len(), 2);
        assert!(reads.values().all(|&n| n == 1), "{:?}", reads);
    }
}
