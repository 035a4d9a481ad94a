//! The engine's typed API, what the tools call (the CLI's batch protocol, the npm package,
//! the playground, the analyses): compile a CRD for a release through a cache of compiled
//! CRDs, pick a version, validate an object (`strategy::validate_object`, the apiserver's
//! create/update path). No JSON wire shapes here: `wire::batch` converts its requests into
//! these calls.

use crate::schema::fingerprint::{FastMap, Hasher128};
use crate::text::bytes;
use crate::crd::{CompileCache, CompiledCrd};
use crate::strategy::ValidateOptions;
use crate::text::crd_document::{choose_crd_document, LoadError};
use crate::text::splice::IndexedText;
use crate::version::KubeVersion;
use serde_json::Value;
use std::borrow::Cow;
use std::hash::Hasher;
use std::sync::Arc;

/// The named CRD version (default: the storage version), or the error that says which exist.
pub fn version_of<'c>(
    crd: &'c CompiledCrd,
    name: Option<&str>,
) -> Result<&'c crate::crd::CompiledVersion, String> {
    crd.version(name).ok_or_else(|| match name {
        Some(v) => format!(
            "the CRD has no version {:?} (it has {})",
            v,
            crd.crd
                .spec
                .versions
                .iter()
                .map(|v| v.name.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ),
        None => "the CRD has no versions".to_string(),
    })
}

/// A request's validation options (subresource, ratcheting, request emulation), with
/// their defaults; ratcheting defaults to what the targeted release does.
pub fn validate_options(
    subresource: Option<&str>,
    ratcheting: Option<bool>,
    emulate_request: Option<bool>,
    kube: KubeVersion,
) -> Result<ValidateOptions, String> {
    Ok(ValidateOptions {
        status_subresource: match subresource {
            None | Some("") => false,
            Some("status") => true,
            Some(other) => {
                return Err(format!(
                    "unsupported subresource {:?} (only \"status\")",
                    other
                ))
            }
        },
        ratcheting: kube.ratcheting(ratcheting)?,
        emulate_request: emulate_request.unwrap_or(true),
        keep_defaulted: true,
    })
}

/// The batch protocol's `ratcheting` (shared/docs/vector-format.md: default `true`): a
/// request that does not say is answered with the `CRDValidationRatcheting` gate on
/// wherever the release has the gate (1.28 and 1.29 too, where it is off by default, as
/// the protocol's vectors were answered), and without ratcheting before 1.28. An explicit
/// value is kept (and `true` before 1.28 stays a request error).
pub fn protocol_ratcheting(asked: Option<bool>, kube: KubeVersion) -> Option<bool> {
    asked.or(Some(kube.ratcheting_available()))
}

/// Compiled CRDs an [`Engine`] keeps at most.
pub const MAX_CACHED_CRDS: usize = 64;
/// Bytes of CRD source (text, or JSON) whose compiled CRDs an [`Engine`] keeps at most.
pub const MAX_CACHED_SOURCE: usize = 4 << 20;

/// Compiles CRDs on demand and keeps them for later requests. A CRD seen before (same
/// text, old CRD and release) is not compiled again; a different one (an edit) reuses
/// what earlier compiles computed from identical inputs ([`CompileCache`]).
#[derive(Default)]
pub struct Engine {
    /// Compiled CRDs by fingerprint of their source and release: the source (compared on
    /// a hit), the compiled CRD, and when it was last used. The source is hashed once per
    /// request (it can be megabytes).
    cache: FastMap<(u128, KubeVersion), (String, Arc<CompiledCrd>, u64)>,
    /// Requests served (the clock of `cache`).
    uses: u64,
    /// What the compiles share: compiled rules, rule sets, CEL views of schemas and CRD
    /// check results, keyed by everything they depend on.
    pub compile_cache: CompileCache,
    /// Reads `crdFile` paths; `None` (as in wasm) rejects them.
    pub file_reader: Option<fn(&str) -> std::io::Result<String>>,
    /// The last CRD text read, with its documents and where their nodes stand: the next
    /// text, when it differs from it inside one scalar (an editor's keystroke), is read by
    /// re-reading that scalar alone ([`crate::text::splice`]). One text at most.
    last_text: Option<IndexedText>,
    /// CRD texts read by re-reading one scalar of the last text (for tests and benchmarks).
    pub texts_spliced: u64,
    /// Compiles of readings of the last text, one per release, with the scalars edited
    /// since (each spliced): the next compile of the text for that release keeps their
    /// schema nodes no edit reached ([`CompiledCrd::from_value_reusing`]).
    earlier: Vec<Earlier>,
    /// The last text is read with where its nodes stand ([`Engine::crd_source`]), kept
    /// across edits by the splice: for an editor that shows ranges ([`Engine::with_positions`]).
    keep_positions: bool,
}

/// A compile of a reading of the last text ([`Engine::earlier`]).
struct Earlier {
    kube: KubeVersion,
    /// The CRD's document in the stream.
    doc: usize,
    compiled: Arc<CompiledCrd>,
    /// The scalars edited since (document, path in it).
    edits: Vec<crate::text::splice::Spliced>,
}

/// Earlier compiles kept ([`Engine::earlier`]): one per release, the releases a playground
/// compiles each edit for. None in the npm module, whose decoder does not keep nodes (it
/// leaves out `schema_decode` for its size budget).
const MAX_EARLIER: usize = if cfg!(feature = "wasm") { 0 } else { 16 };
/// Edits an earlier compile is kept across; after more, the next compile decodes all.
const MAX_EARLIER_EDITS: usize = 64;

/// What became of the last text's reading: each earlier compile learns of a spliced edit;
/// none outlives a whole reading.
fn note_reading(earlier: &mut Vec<Earlier>, spliced: Option<crate::text::splice::Spliced>) {
    if MAX_EARLIER == 0 {
        return;
    }
    match spliced {
        Some(s) => {
            earlier.retain(|e| e.edits.len() < MAX_EARLIER_EDITS);
            for e in earlier.iter_mut() {
                e.edits.push(s.clone());
            }
        }
        None => earlier.clear(),
    }
}

/// `prev` made the reading of `text` by re-reading the scalars the edit changed (one, or a
/// few apart: not in the npm module, whose size is budgeted and whose API reads each text
/// once), each earlier compile told of them; false when `text` must be read whole (`prev`
/// may then be the reading of a text between the two).
fn splice_edit(prev: &mut IndexedText, text: &str, spliced_count: &mut u64, earlier: &mut Vec<Earlier>) -> bool {
    let all = match prev.splice_at(text) {
        Some(s) => vec![s],
        None if !cfg!(feature = "wasm") => match crate::text::splice::splice_hunks(prev, text) {
            Some(all) => all,
            None => return false,
        },
        None => return false,
    };
    *spliced_count += all.len() as u64;
    for s in all {
        note_reading(earlier, Some(s));
    }
    true
}

/// The documents of `text`: those of `last` when it is the same text, `last`'s with the
/// scalars the edit changed re-read when it allows ([`crate::text::splice::splice`], one
/// scalar, or [`crate::text::splice::splice_hunks`], a few apart), or the whole text
/// read; `last` becomes `text`'s reading (nothing when it cannot be read).
fn read_text<'l>(
    last: &'l mut Option<IndexedText>,
    text: &str,
    spliced_count: &mut u64,
    positions: bool,
    earlier: &mut Vec<Earlier>,
) -> Result<&'l [Value], LoadError> {
    let spliced = match last.as_mut() {
        Some(prev) if bytes::same(prev.text.as_bytes(), text.as_bytes()) => true,
        Some(prev) => splice_edit(prev, text, spliced_count, earlier),
        None => false,
    };
    if !spliced {
        note_reading(earlier, None);
        // A text that shares most of itself with the last one is an edit: indexed, so that
        // the next keystroke is spliced. Any other (a tool's first CRD, another file) is
        // read without an index, by the block-style fast path where it can (without the fast
        // path, as in wasm, every text is indexed: it costs nothing more).
        let edit = !crate::text::yaml::FAST_PATH || last.as_ref().is_some_and(|prev| {
            let c = crate::text::splice::Change::between(&prev.text, text);
            c.from + (text.len() - c.new_to) >= text.len() / 2
        });
        *last = None;
        *last = Some(if positions {
            IndexedText::read_with_positions(text)?
        } else if edit {
            IndexedText::read(text)?
        } else {
            IndexedText::read_unindexed(text)?
        });
    }
    Ok(last.as_ref().map(|t| t.docs.as_slice()).unwrap_or(&[]))
}

/// A CRD as a tool hands it to [`Engine::compile`]: its text (YAML/JSON, possibly several
/// documents), its JSON value, or a file's text named by its path (the path, not the text,
/// is its cache key, as for `crdFile`).
#[derive(Clone, Copy, Debug)]
pub enum CrdInput<'r> {
    File { path: &'r str, text: &'r str },
    Text(&'r str),
    Json(&'r Value),
}

impl<'r> CrdInput<'r> {
    /// The cache key in parts, borrowed where it can be (CRD texts can be megabytes).
    fn key(&self) -> Vec<Cow<'r, str>> {
        match *self {
            CrdInput::File { path, .. } => vec![Cow::Borrowed("file:"), Cow::Borrowed(path)],
            CrdInput::Text(t) => vec![Cow::Borrowed("text:"), Cow::Borrowed(t)],
            CrdInput::Json(v) => vec![Cow::Borrowed("json:"), Cow::Owned(v.to_string())],
        }
    }

    /// The CRD's JSON value: its text's CRD document ([`crate::text::crd_document::parse_crd_text`]).
    fn value(&self) -> Result<Cow<'r, Value>, crate::text::crd_document::LoadError> {
        match *self {
            CrdInput::File { text, .. } | CrdInput::Text(text) => {
                crate::text::crd_document::parse_crd_text(text).map(Cow::Owned)
            }
            CrdInput::Json(v) => Ok(Cow::Borrowed(v)),
        }
    }
}

/// Whether a kept source is the one whose key is `parts`.
fn same_source(source: &str, parts: &[Cow<'_, str>]) -> bool {
    let mut rest = source.as_bytes();
    for p in parts {
        let p = p.as_bytes();
        if rest.len() < p.len() || !bytes::same(&rest[..p.len()], p) {
            return false;
        }
        rest = &rest[p.len()..];
    }
    rest.is_empty()
}

impl Engine {
    pub fn new() -> Engine {
        Engine::default()
    }

    /// An engine that reads `crdFile` paths from the file system.
    pub fn with_file_system() -> Engine {
        Engine {
            file_reader: Some(|p| std::fs::read_to_string(p)),
            ..Default::default()
        }
    }

    /// An engine that keeps where the nodes of the last CRD text stand
    /// ([`Engine::crd_source`]): the playground's, which shows ranges in that text.
    /// Whether the last text keeps its positions: never in the npm module, whose API reads
    /// positions afresh and has no workspace (so the moving of kept positions is left out of
    /// it, for its size budget).
    fn keeps_positions(&self) -> bool {
        !cfg!(feature = "wasm") && self.keep_positions
    }

    pub fn with_positions() -> Engine {
        Engine {
            keep_positions: true,
            ..Default::default()
        }
    }

    /// The CRD document of `text` and where its nodes stand, when `text` is the last text
    /// compiled and the engine keeps positions ([`Engine::with_positions`]).
    pub fn crd_source(&self, text: &str) -> Option<(&Value, &crate::text::source_map::SourceMap)> {
        let last = self.last_text.as_ref().filter(|t| bytes::same(t.text.as_bytes(), text.as_bytes()))?;
        let maps = last.maps.as_ref()?;
        let i = choose_crd_document(&last.docs).ok()?;
        Some((last.docs.get(i)?, maps.get(i)?))
    }

    /// The compiled CRD for `kube`, from the cache when the same CRD (and old CRD) was
    /// compiled before. `old` is the CRD being replaced: its presence makes the CRD an
    /// update, where unchanged rules compile in the stored-expressions environment.
    ///
    /// # Example
    ///
    /// ```
    /// const CRD: &str = r#"
    /// apiVersion: apiextensions.k8s.io/v1
    /// kind: CustomResourceDefinition
    /// metadata: {name: widgets.example.com}
    /// spec:
    ///   group: example.com
    ///   scope: Namespaced
    ///   names: {kind: Widget, plural: widgets}
    ///   versions:
    ///   - name: v1
    ///     served: true
    ///     storage: true
    ///     schema:
    ///       openAPIV3Schema:
    ///         type: object
    ///         properties:
    ///           spec:
    ///             type: object
    ///             properties:
    ///               replicas: {type: integer, minimum: 0}
    ///             x-kubernetes-validations:
    ///             - rule: "self.replicas <= 10"
    ///               message: at most 10 replicas
    /// "#;
    /// use crdlab::engine::{CrdInput, Engine};
    /// use crdlab::KubeVersion;
    /// let mut engine = Engine::new();
    /// let a = engine.compile(CrdInput::Text(CRD), None, KubeVersion::LATEST).unwrap();
    /// let b = engine.compile(CrdInput::Text(CRD), None, KubeVersion::LATEST).unwrap();
    /// assert!(std::sync::Arc::ptr_eq(&a, &b)); // compiled once, then from the cache
    /// ```
    pub fn compile(
        &mut self,
        crd: CrdInput<'_>,
        old: Option<CrdInput<'_>>,
        kube: KubeVersion,
    ) -> Result<Arc<CompiledCrd>, String> {
        self.compile_or_load_error(crd, old, kube).map_err(|e| e.to_string())
    }

    /// [`Engine::compile`] with the error as the loader gives it: a reading error keeps its
    /// line and column apart (an editor underlines them).
    pub fn compile_or_load_error(
        &mut self,
        crd: CrdInput<'_>,
        old: Option<CrdInput<'_>>,
        kube: KubeVersion,
    ) -> Result<Arc<CompiledCrd>, LoadError> {
        let mut key = crd.key();
        if let Some(old) = &old {
            key.push(Cow::Borrowed("\u{0}old:"));
            key.extend(old.key());
        }
        // Only CRDs that compiled are kept, so a hit never skips an error below.
        self.uses += 1;
        // The key's text is compared on a hit (`same_source`): a quick digest will do.
        let mut h = Hasher128::new();
        for part in &key {
            h.write_u64(bytes::key_digest(part.as_bytes()));
            h.write_usize(part.len());
        }
        let id = (h.finish128(), kube);
        if let Some((source, c, used)) = self.cache.get_mut(&id) {
            if same_source(source, &key) {
                *used = self.uses;
                let c = c.clone();
                // The last text read follows the editor back (an undo) when one scalar differs
                // (or is read again, when it keeps positions: they must be this text's).
                if let CrdInput::Text(text) | CrdInput::File { text, .. } = crd {
                    if let Some(prev) = self.last_text.as_mut() {
                        if !bytes::same(prev.text.as_bytes(), text.as_bytes())
                            && !splice_edit(prev, text, &mut self.texts_spliced, &mut self.earlier)
                        {
                            if self.keeps_positions() {
                                read_text(&mut self.last_text, text, &mut self.texts_spliced, true, &mut self.earlier)?;
                            } else {
                                // The last text stays another text's reading.
                                return Ok(c);
                            }
                        }
                    } else if self.keeps_positions() {
                        read_text(&mut self.last_text, text, &mut self.texts_spliced, true, &mut self.earlier)?;
                    }
                    // The last text is this one's reading: the hit is its compile.
                    if let Some(doc) = self.last_text.as_ref().and_then(|t| choose_crd_document(&t.docs).ok()) {
                        if old.is_none() {
                            self.remember(kube, doc, c.clone());
                        }
                    }
                }
                return Ok(c);
            }
        }
        let old_value = match &old {
            Some(o) => Some(o.value().map_err(|e| LoadError::new(format!("old CRD: {}", e)))?),
            None => None,
        };
        let positions = self.keeps_positions();
        let cc = &mut self.compile_cache;
        let mut doc = None;
        let compiled = match crd {
            // A text is read through the last text's reading (an edit re-reads little), and
            // compiled keeping what the edits since an earlier compile of it did not reach.
            CrdInput::File { text, .. } | CrdInput::Text(text) => {
                let earlier = &mut self.earlier;
                read_text(&mut self.last_text, text, &mut self.texts_spliced, positions, earlier).and_then(|docs| {
                    let i = choose_crd_document(docs)?;
                    doc = Some(i);
                    if MAX_EARLIER == 0 {
                        return CompiledCrd::from_value_cached(&docs[i], old_value.as_deref(), kube, cc);
                    }
                    let before = earlier.iter().find(|e| e.kube == kube && e.doc == i && e.edits.iter().all(|s| s.doc == i));
                    let edits: Vec<Vec<crate::text::source_map::PathSeg>> =
                        before.map(|e| e.edits.iter().map(|s| s.path.clone()).collect()).unwrap_or_default();
                    CompiledCrd::from_value_reusing(&docs[i], old_value.as_deref(), kube, cc, before.map(|e| (&*e.compiled, edits.as_slice())))
                })
            }
            CrdInput::Json(v) => CompiledCrd::from_value_cached(v, old_value.as_deref(), kube, cc),
        }?;
        let compiled = Arc::new(compiled);
        if let Some(doc) = doc {
            self.remember(kube, doc, compiled.clone());
        }
        self.keep(id, key.concat(), compiled.clone());
        Ok(compiled)
    }

    /// `compiled` is the last text's reading compiled for `kube`: the earlier compile the
    /// next edit's compile for `kube` takes nodes from.
    fn remember(&mut self, kube: KubeVersion, doc: usize, compiled: Arc<CompiledCrd>) {
        if MAX_EARLIER == 0 {
            return;
        }
        self.earlier.retain(|e| e.kube != kube);
        if self.earlier.len() >= MAX_EARLIER {
            self.earlier.remove(0);
        }
        self.earlier.push(Earlier { kube, doc, compiled, edits: Vec::new() });
    }

    /// Keeps a compiled CRD, forgetting the least recently used ones beyond
    /// [`MAX_CACHED_CRDS`] entries or [`MAX_CACHED_SOURCE`] bytes of CRD source: an editor
    /// that sends every version of a large CRD it edits must not keep them all.
    fn keep(&mut self, id: (u128, KubeVersion), source: String, compiled: Arc<CompiledCrd>) {
        // Another source with the same fingerprint (never seen in practice) is replaced.
        self.cache.remove(&id);
        let mut size: usize =
            self.cache.values().map(|(k, _, _)| k.len()).sum::<usize>() + source.len();
        while !self.cache.is_empty()
            && (self.cache.len() >= MAX_CACHED_CRDS || size > MAX_CACHED_SOURCE)
        {
            let Some((oldest, len)) = self
                .cache
                .iter()
                .min_by_key(|(_, (_, _, used))| *used)
                .map(|(k, v)| (*k, v.0.len()))
            else {
                break;
            };
            size -= len;
            self.cache.remove(&oldest);
        }
        self.cache.insert(id, (source, compiled, self.uses));
    }

}

#[cfg(test)]
mod tests {
    use super::*;

    /// The widgets CRD with an object schema.
    fn crd() -> String {
        crate::testing::widgets_yaml("        type: object\n")
    }

    #[test]
    fn compiles_each_source_and_release_once() {
        let mut engine = Engine::new();
        let crd = crd();
        let kube = KubeVersion::PROTOCOL_DEFAULT;
        let a = engine.compile(CrdInput::Text(&crd), None, kube).unwrap();
        let b = engine.compile(CrdInput::Text(&crd), None, kube).unwrap();
        assert!(Arc::ptr_eq(&a, &b), "the same text and release come from the cache");
        let value = crate::text::crd_document::parse_crd_text(&crd).unwrap();
        let c = engine.compile(CrdInput::Json(&value), None, kube).unwrap();
        assert!(!Arc::ptr_eq(&a, &c), "a JSON value is another source");
        assert_eq!(c.crd.spec.versions.len(), 1);
        if KubeVersion::LATEST != kube {
            let d = engine.compile(CrdInput::Text(&crd), None, KubeVersion::LATEST).unwrap();
            assert!(!Arc::ptr_eq(&a, &d), "another release compiles again");
        }
    }

    /// A compile after an edit inside one scalar keeps the earlier compile's schema nodes the
    /// edit did not reach (shared), and decodes those on its path again; an edit of another
    /// release's compile, or after a whole reading, shares nothing.
    #[test]
    fn an_edit_keeps_the_nodes_it_did_not_reach() {
        let schema = "        type: object
        properties:
          spec:
            type: object
            properties:
              a:
                type: string
                maxLength: 10
              b:
                type: object
                properties:
                  c: {type: integer}
                x-kubernetes-validations:
                - rule: self.c > 0
";
        let one = crate::testing::widgets_yaml(schema);
        // A second version with the same schema.
        let v2 = one[one.find("  - name: v1").unwrap()..].replace("name: v1", "name: v2").replace("storage: true", "storage: false");
        let text = format!("{}{}", one, v2);
        let kube = KubeVersion::LATEST;
        let mut engine = Engine::new();
        // The first text is read without an index; the second (an edit) indexed, so that
        // the third is spliced.
        engine.compile(CrdInput::Text(&format!("{}\n", text)), None, kube).unwrap();
        let a = engine.compile(CrdInput::Text(&text), None, kube).unwrap();
        let edited = text.replacen("rule: self.c > 0", "rule: self.c > 1", 1);
        let b = engine.compile(CrdInput::Text(&edited), None, kube).unwrap();
        assert_eq!(engine.texts_spliced, 1);
        let node = |c: &CompiledCrd, v: usize, path: &[&str]| {
            let mut n = c.versions[v].schema.clone().unwrap();
            for p in path {
                n = n.properties[*p].clone();
            }
            n
        };
        // The other version whole, and the edited one's untouched subtrees.
        assert!(Arc::ptr_eq(a.versions[1].schema.as_ref().unwrap(), b.versions[1].schema.as_ref().unwrap()));
        assert!(Arc::ptr_eq(&node(&a, 0, &["spec", "a"]), &node(&b, 0, &["spec", "a"])));
        assert!(Arc::ptr_eq(&node(&a, 0, &["spec", "b", "c"]), &node(&b, 0, &["spec", "b", "c"])));
        // The path to the edit decoded again, with the new rule.
        for path in [&[][..], &["spec"], &["spec", "b"]] {
            assert!(!Arc::ptr_eq(&node(&a, 0, path), &node(&b, 0, path)), "{:?}", path);
        }
        assert_eq!(node(&b, 0, &["spec", "b"]).x_validations[0].rule, "self.c > 1");
        assert_eq!(b.versions[0].rules.as_ref().unwrap().summaries()[0].rule, "self.c > 1");
        // Another release compiles the edit from scratch.
        let older = KubeVersion::parse("1.30").unwrap();
        let c = engine.compile(CrdInput::Text(&edited), None, older).unwrap();
        assert!(!Arc::ptr_eq(&node(&b, 0, &["spec", "a"]), &node(&c, 0, &["spec", "a"])));
        // An edit that is no splice (a key renamed) shares nothing.
        let renamed = edited.replacen("              a:", "              z:", 1);
        let d = engine.compile(CrdInput::Text(&renamed), None, kube).unwrap();
        assert!(!Arc::ptr_eq(b.versions[1].schema.as_ref().unwrap(), d.versions[1].schema.as_ref().unwrap()));
    }

    #[test]
    fn compile_errors_keep_the_loaders_text() {
        let mut engine = Engine::new();
        let crd = crd();
        let kube = KubeVersion::PROTOCOL_DEFAULT;
        assert_eq!(
            engine.compile(CrdInput::Text("kind: ConfigMap\n"), None, kube).unwrap_err(),
            "no CustomResourceDefinition found: the document holds ConfigMap"
        );
        let old = engine
            .compile(CrdInput::Text(&crd), Some(CrdInput::Text("kind: Secret\n")), kube)
            .unwrap_err();
        assert_eq!(old, "old CRD: no CustomResourceDefinition found: the document holds Secret");
    }
}
