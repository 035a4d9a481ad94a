//! What the fuzz targets share: the input bound, the simple byte layouts inputs are split
//! into (a few header bytes, then texts separated by NUL bytes; `fuzz/seed.py` writes the
//! same layouts), the release an input picks, and the set of real CRDs `validate_object`
//! rotates through.

use crdlab::crd::CompiledCrd;
use crdlab::KubeVersion;
use std::borrow::Cow;
use std::path::{Path, PathBuf};

/// Inputs larger than this are ignored: the fuzzers look for bugs in the logic, not in
/// sheer size (the catalogue and the limits tests cover size).
pub const MAX_INPUT: usize = 64 * 1024;

/// The input, or `None` when it is over [`MAX_INPUT`].
pub fn bounded(data: &[u8]) -> Option<&[u8]> {
    (data.len() <= MAX_INPUT).then_some(data)
}

/// A text from bytes: invalid UTF-8 becomes U+FFFD, as a browser's paste box would give it.
pub fn text(bytes: &[u8]) -> Cow<'_, str> {
    String::from_utf8_lossy(bytes)
}

/// The release a header byte picks, among every supported one (1.25 … 1.37).
pub fn release(b: u8) -> KubeVersion {
    let all: Vec<KubeVersion> = KubeVersion::supported().collect();
    all[usize::from(b) % all.len()]
}

/// The first `n` header bytes (zero when the input is shorter) and the rest.
pub fn header<const N: usize>(data: &[u8]) -> ([u8; N], &[u8]) {
    let mut h = [0u8; N];
    let k = data.len().min(N);
    h[..k].copy_from_slice(&data[..k]);
    (h, &data[k..])
}

/// Splits `data` at its first `n - 1` NUL bytes into `n` parts (missing ones are empty).
pub fn parts(data: &[u8], n: usize) -> Vec<&[u8]> {
    let mut out: Vec<&[u8]> = data.splitn(n, |&b| b == 0).collect();
    out.resize(n, &[]);
    out
}

/// A JSON value read from a part (`None` when it is not JSON), as the batch protocol's
/// request fields hold them.
pub fn json(bytes: &[u8]) -> Option<serde_json::Value> {
    if bytes.is_empty() {
        return None;
    }
    serde_json::from_slice(bytes).ok()
}

/// Where `../shared` is: `CRDLAB_SHARED`, or beside the checkout.
pub fn shared_dir() -> PathBuf {
    match std::env::var_os("CRDLAB_SHARED") {
        Some(d) => PathBuf::from(d),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared"),
    }
}

/// Every CRD file under `shared/crds` (`.yaml`, `.yml`, `.json`), by path relative to it,
/// sorted bytewise: `fuzz/seed.py` numbers them the same way.
pub fn crd_files(shared: &Path) -> Vec<(String, PathBuf)> {
    let root = shared.join("crds");
    let mut out = Vec::new();
    let mut stack = vec![root.clone()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else { continue };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if matches!(p.extension().and_then(|x| x.to_str()), Some("yaml" | "yml" | "json")) {
                let rel = p.strip_prefix(&root).unwrap_or(&p).to_string_lossy().into_owned();
                out.push((rel, p));
            }
        }
    }
    out.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
    out
}

/// The release `validate_object` compiles the real CRDs for: `CRDLAB_FUZZ_RELEASE`, or
/// the batch protocol's default.
pub fn validate_release() -> KubeVersion {
    std::env::var("CRDLAB_FUZZ_RELEASE")
        .ok()
        .and_then(|s| KubeVersion::parse(&s).ok())
        .unwrap_or(KubeVersion::PROTOCOL_DEFAULT)
}

/// The real CRDs `validate_object` validates objects against, compiled once; a file that
/// does not compile (not a CRD) keeps its slot as `None` so indices stay those of
/// [`crd_files`]. `CRDLAB_FUZZ_MAX_CRD_BYTES` (default 64 KiB: about 860 of them, 1.2 GB with
/// ASan) leaves out larger files.
pub fn compile_crd_set() -> Vec<Option<CompiledCrd>> {
    let shared = shared_dir();
    let files = crd_files(&shared);
    assert!(
        !files.is_empty(),
        "no CRDs under {} (set CRDLAB_SHARED to the shared directory)",
        shared.join("crds").display()
    );
    let max: u64 = std::env::var("CRDLAB_FUZZ_MAX_CRD_BYTES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(64 << 10);
    let kube = validate_release();
    let started = std::time::Instant::now();
    let set: Vec<Option<CompiledCrd>> = files
        .iter()
        .map(|(_, p)| {
            let len = std::fs::metadata(p).map(|m| m.len()).unwrap_or(u64::MAX);
            if len > max {
                return None;
            }
            let text = std::fs::read_to_string(p).ok()?;
            CompiledCrd::from_text(&text, kube)
                .ok()
                .filter(|c| !c.versions.is_empty())
        })
        .collect();
    eprintln!(
        "validate_object: {} of {} CRD files compiled for {} in {:.1}s",
        set.iter().filter(|c| c.is_some()).count(),
        files.len(),
        kube,
        started.elapsed().as_secs_f64()
    );
    set
}
