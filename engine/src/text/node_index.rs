//! A compact index of where the nodes of a YAML stream stand (no strings), which the reader
//! builds alongside the values and [`crate::text::splice`] uses to re-read one scalar after
//! an edit.


/// No node / no key.
pub(crate) const NONE: u32 = u32::MAX;

/// How a node is written, as far as a splice cares.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    Plain,
    SingleQuoted,
    DoubleQuoted,
    /// Block scalars (`|`, `>`) and aliases: never spliced.
    Other,
    /// A mapping or a sequence, block or flow (`{...}` / `[...]`, whose children are
    /// never spliced: told by the character at its start).
    Map,
    Seq,
}

/// One node of a document, in text order. Offsets count characters, as the reader's marks
/// do (converted to bytes only for the few nodes a splice looks at).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Node {
    /// The node's first character (a scalar's opening quote; a block collection's mark).
    pub(crate) start: u32,
    /// Where the node's key starts, for a map entry.
    pub(crate) key: u32,
    pub(crate) parent: u32,
    /// The position in its sequence, for a sequence item.
    pub(crate) seq_index: u32,
    pub(crate) kind: Kind,
    /// Anchored or tagged (aliases may copy it; a tag changes its resolution), or a map
    /// holding a merge key `<<`.
    pub(crate) special: bool,
}

/// One document of the stream: its root node and its JSON size lower bound (the reader's
/// request-size accounting, `yaml::read_yaml_impl`).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Doc {
    pub(crate) root: u32,
    pub(crate) json: u64,
}

/// Where the nodes of a YAML stream stand, compactly (no strings): built by the reader
/// alongside the values ([`crate::text::yaml::read_documents_indexed`]), for texts of at
/// most [`crate::text::read_error::MAX_POSITIONED_NODES`] nodes.
#[derive(Clone, Debug, Default)]
pub struct NodeIndex {
    pub(crate) nodes: Vec<Node>,
    pub(crate) docs: Vec<Doc>,
    /// Open collections while building.
    open: Vec<(u32, u32)>,
    /// The key of the entry being read (byte offset), while building.
    pending_key: u32,
    /// Documents whose value the reader skipped (`Value::Null` without a root): the values
    /// and documents no longer correspond one to one.
    pub(crate) broken: bool,
}

impl NodeIndex {
    pub(crate) fn new() -> NodeIndex {
        NodeIndex {
            pending_key: NONE,
            ..Default::default()
        }
    }

    /// An index no splice can use (the text was read without one).
    pub fn unusable() -> NodeIndex {
        NodeIndex {
            broken: true,
            ..NodeIndex::new()
        }
    }


    pub(crate) fn start_document(&mut self) {
        self.open.clear();
        self.pending_key = NONE;
        self.docs.push(Doc { root: NONE, json: 0 });
    }

    pub(crate) fn end_document(&mut self, json: u64) {
        if let Some(d) = self.docs.last_mut() {
            d.json = json;
        } else {
            self.broken = true;
        }
    }

    /// A key scalar at character `at`; `merge` when it is `<<` (or anchored or tagged).
    pub(crate) fn key(&mut self, at: usize, merge: bool) {
        self.pending_key = at as u32;
        if merge {
            if let Some(&(p, _)) = self.open.last() {
                self.nodes[p as usize].special = true;
            }
        }
    }

    fn push(&mut self, at: usize, kind: Kind, special: bool) -> u32 {
        let (parent, seq_index) = match self.open.last_mut() {
            Some((p, n)) => {
                let i = *n;
                *n += 1;
                (*p, i)
            }
            None => (NONE, 0),
        };
        let id = self.nodes.len() as u32;
        self.nodes.push(Node {
            start: at as u32,
            key: std::mem::replace(&mut self.pending_key, NONE),
            parent,
            seq_index,
            kind,
            special,
        });
        if parent == NONE {
            match self.docs.last_mut() {
                Some(d) if d.root == NONE => d.root = id,
                _ => self.broken = true,
            }
        }
        id
    }

    /// A value scalar at character `at`, written in `style`.
    pub(crate) fn scalar(&mut self, at: usize, style: yaml_rust2::scanner::TScalarStyle, special: bool) {
        use yaml_rust2::scanner::TScalarStyle as S;
        let kind = match style {
            S::Plain => Kind::Plain,
            S::SingleQuoted => Kind::SingleQuoted,
            S::DoubleQuoted => Kind::DoubleQuoted,
            _ => Kind::Other,
        };
        self.push(at, kind, special);
    }

    pub(crate) fn alias(&mut self, at: usize) {
        self.push(at, Kind::Other, true);
    }

    /// A collection opens at character `at`.
    pub(crate) fn open(&mut self, at: usize, map: bool, special: bool) {
        let id = self.push(at, if map { Kind::Map } else { Kind::Seq }, special);
        self.open.push((id, 0));
    }

    pub(crate) fn close(&mut self) {
        self.open.pop();
    }

    /// Bytes the index holds (its bound is
    /// [`crate::text::read_error::MAX_POSITIONED_NODES`] nodes).
    pub fn heap_size(&self) -> usize {
        self.nodes.capacity() * std::mem::size_of::<Node>() + self.docs.capacity() * std::mem::size_of::<Doc>()
    }
}

