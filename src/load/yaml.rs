//! YAML → a small node tree that keeps, for every key and value, its byte span, its raw style
//! and its tag, so rules can point at the exact scalar and judge YAML 1.1 typing the way
//! kubectl does. Built from `saphyr-parser` events; aliases are expanded under a budget and
//! nesting is bounded, so hostile input costs bounded work.

use std::borrow::Cow;
use std::collections::HashMap;

use saphyr_parser::{Event, Parser, ScalarStyle, ScanError};

use super::source::Span;
use crate::util::work;

/// Limits on the work one file may cost.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Maximum nesting depth of collections.
    pub max_depth: usize,
    /// Maximum number of nodes that alias expansion may add to one file, all its documents
    /// together: a file of many documents each just under a per-document budget would
    /// otherwise cost that budget many times over (#22).
    pub max_alias_nodes: usize,
    /// Maximum memory the node tree of one document may take, as [`Node::cost`] counts it
    /// (and, for the parser, what it may hold before its first event: see
    /// [`parser_cost`]). Documents are built and dropped one at a time, so this bounds
    /// what loading a file holds.
    pub max_document_bytes: usize,
}

/// The default of [`Limits::max_document_bytes`]. A document's tree costs about nine times
/// its bytes as a List on one line of flow YAML, thirty times as a flow collection of
/// one-character scalars: a 30 MB List is linted (in under 1 GB with its findings), a
/// 45 MB one is not.
pub const DEFAULT_DOCUMENT_BYTES: usize = 256 << 20;

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_depth: 256,
            max_alias_nodes: 100_000,
            max_document_bytes: DEFAULT_DOCUMENT_BYTES,
        }
    }
}

/// How a scalar was written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Style {
    Plain,
    SingleQuoted,
    DoubleQuoted,
    Literal,
    Folded,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Scalar {
    /// The scalar's content after YAML unescaping and folding.
    pub text: Box<str>,
    pub style: Style,
    /// The resolved tag (`tag:yaml.org,2002:str` for `!!str`), if one was written.
    pub tag: Option<Box<str>>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Value {
    Scalar(Scalar),
    Seq(Vec<Node>),
    /// Entries in source order; duplicate keys are kept so rules can see them.
    Map(Vec<(Node, Node)>),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Node {
    pub span: Span,
    pub value: Value,
}

impl Node {
    pub fn as_scalar(&self) -> Option<&Scalar> {
        match &self.value {
            Value::Scalar(s) => Some(s),
            _ => None,
        }
    }

    pub fn as_seq(&self) -> Option<&[Node]> {
        match &self.value {
            Value::Seq(v) => Some(v),
            _ => None,
        }
    }

    pub fn as_map(&self) -> Option<&[(Node, Node)]> {
        match &self.value {
            Value::Map(v) => Some(v),
            _ => None,
        }
    }

    /// The scalar text, whatever its YAML type.
    pub fn text(&self) -> Option<&str> {
        self.as_scalar().map(|s| &*s.text)
    }

    /// The value of `key` in a mapping. Like kubectl, the last of duplicate keys wins.
    pub fn get(&self, key: &str) -> Option<&Node> {
        self.entry(key).map(|(_, v)| v)
    }

    /// The key node and value node of `key` (last one wins).
    pub fn entry(&self, key: &str) -> Option<(&Node, &Node)> {
        self.as_map()?
            .iter()
            .rev()
            .find(|(k, _)| k.text() == Some(key))
            .map(|(k, v)| (k, v))
    }

    /// Follows a dotted path of mapping keys.
    pub fn path(&self, keys: &[&str]) -> Option<&Node> {
        keys.iter().try_fold(self, |node, key| node.get(key))
    }

    /// True for a plain scalar that YAML 1.1 resolves to null (`~`, `null`, empty).
    pub fn is_null(&self) -> bool {
        match &self.value {
            Value::Scalar(s) => {
                s.style == Style::Plain
                    && s.tag.is_none()
                    && matches!(&*s.text, "" | "~" | "null" | "Null" | "NULL")
            }
            _ => false,
        }
    }

    /// A document root that is `null` to kubectl: its JSON is `null` (a plain null scalar, or
    /// one tagged `!!null`), which cli-runtime's `StreamVisitor` skips as no object.
    pub fn is_null_document(&self) -> bool {
        self.is_null()
            || self
                .as_scalar()
                .is_some_and(|s| s.tag.as_deref() == Some("tag:yaml.org,2002:null"))
    }

    pub fn kind_name(&self) -> &'static str {
        match &self.value {
            Value::Scalar(_) => "scalar",
            Value::Seq(_) => "sequence",
            Value::Map(_) => "mapping",
        }
    }

    fn count(&self) -> usize {
        match &self.value {
            Value::Scalar(_) => 1,
            Value::Seq(v) => 1 + v.iter().map(Node::count).sum::<usize>(),
            Value::Map(v) => 1 + v.iter().map(|(k, v)| k.count() + v.count()).sum::<usize>(),
        }
    }

    /// What the tree under this node costs in memory, as the builders count it against
    /// [`Limits::max_document_bytes`]: each node, and each scalar's text.
    pub fn cost(&self) -> usize {
        match &self.value {
            Value::Scalar(s) => scalar_cost(&s.text),
            Value::Seq(v) => NODE_COST + v.iter().map(Node::cost).sum::<usize>(),
            Value::Map(v) => NODE_COST + v.iter().map(|(k, v)| k.cost() + v.cost()).sum::<usize>(),
        }
    }
}

/// What one node costs: the node itself (a collection's entry holds it).
pub const NODE_COST: usize = std::mem::size_of::<Node>();

/// What a scalar node with this text costs.
pub fn scalar_cost(text: &str) -> usize {
    NODE_COST + text.len()
}

/// What `saphyr-parser` may hold for a document before it gives its first event: in a flow
/// collection that starts in block context, it keeps every token until the collection
/// closes (a simple key stays possible), up to about 700 bytes per flow indicator (`,`, `[`,
/// `{`) written in it at its peak (measured with saphyr-parser 0.3: 109 MB for the 158,506
/// indicators of a 2 MB List on one line, its queue's doubling included). A generous
/// estimate: the lines of block scalars and comment lines are left out (a ConfigMap holding
/// a JSON dashboard is not a flow collection), any other indicator counts.
pub fn parser_cost(doc: &str) -> usize {
    flow_indicators(doc).1.saturating_mul(PER_INDICATOR)
}

/// What [`parser_cost`] counts per flow indicator.
const PER_INDICATOR: usize = 700;

/// Whether [`parser_cost`] of `doc` may exceed `max`: a document too short to (one indicator
/// per byte at most) is not scanned.
pub fn parser_cost_over(doc: &str, max: usize) -> bool {
    doc.len().saturating_mul(PER_INDICATOR) > max && parser_cost(doc) > max
}

/// Whether [`tree_cost_floor`] of `doc` exceeds `max` (short documents are not scanned).
pub fn tree_cost_floor_over(doc: &str, max: usize) -> bool {
    doc.len().saturating_mul(NODE_COST) > max && tree_cost_floor(doc) > max
}

/// Where a document chunk's content starts: after blank and comment lines (at its `---`
/// marker when it has one), where the parser starts the document.
pub fn first_content(chunk: &str) -> usize {
    let mut line = 0;
    for l in chunk.split_inclusive('\n') {
        let t = l.trim_start();
        if !t.is_empty() && !t.starts_with('#') {
            return line + (l.len() - t.len());
        }
        line += l.len();
    }
    0
}

/// Less than what the tree of a document costs ([`Node::cost`]), outside block scalars and
/// comment lines: each `,` separates two nodes and each `: ` follows a key that has a value,
/// so a mapping of n entries (2n + 1 nodes) counts 2n - 1 and a sequence of n items (n + 1
/// nodes) n - 1 (the same characters in quoted text count too, but no manifest has
/// millions). A document over the budget by this count is refused without building anything.
pub fn tree_cost_floor(doc: &str) -> usize {
    flow_indicators(doc).0.saturating_mul(NODE_COST)
}

/// The node separators (`,` and `: `) and the flow indicators (`,`, `[` and `{`) of a
/// document, leaving out the lines of block scalars and comment lines.
fn flow_indicators(doc: &str) -> (usize, usize) {
    let b = doc.as_bytes();
    if memchr::memchr3(b',', b'[', b'{', b).is_none() {
        return (0, 0);
    }
    let (mut separators, mut all) = (0usize, 0usize);
    // The indentation a block scalar's lines are deeper than, while in one.
    let mut block: Option<usize> = None;
    for line in b.split(|&c| c == b'\n') {
        let indent = line.iter().take_while(|&&c| c == b' ').count();
        let content = &line[indent..];
        let blank = content.iter().all(|c| c.is_ascii_whitespace());
        if let Some(parent) = block {
            if blank || indent > parent {
                continue;
            }
            block = None;
        }
        if content.first() == Some(&b'#') {
            continue;
        }
        for i in memchr::memchr3_iter(b',', b'[', b'{', content) {
            all += 1;
            if content[i] == b',' {
                separators += 1;
            }
        }
        separators += memchr::memchr_iter(b':', content)
            .filter(|&i| matches!(content.get(i + 1), None | Some(b' ' | b'\r')))
            .count();
        if block_scalar_header(content) {
            block = Some(indent);
        }
    }
    (separators, all)
}

/// A line that ends with a block scalar's header (`key: |`, `- >-`, `|2+ # comment`).
fn block_scalar_header(content: &[u8]) -> bool {
    let end = memchr::memmem::find(content, b" #").unwrap_or(content.len());
    let value = content[..end].trim_ascii_end();
    let head = value
        .iter()
        .rposition(|&c| c == b'|' || c == b'>')
        .map_or(value, |i| &value[i..]);
    matches!(head.first(), Some(b'|' | b'>'))
        && head[1..]
            .iter()
            .all(|c| matches!(c, b'-' | b'+' | b'1'..=b'9'))
        && value.len() >= head.len()
        && (value.len() == head.len()
            || matches!(value[value.len() - head.len() - 1], b' ' | b'\t'))
}

/// One YAML document of a file.
#[derive(Debug, PartialEq, Eq)]
pub struct Document {
    /// 0-based index of the document in its file.
    pub index: usize,
    /// `None` for an empty document.
    pub root: Option<Node>,
    /// Span from the document's first to its last token.
    pub span: Span,
    /// A mapping key that is itself a collection, as `{{ .Values.x }}` parses.
    pub has_complex_key: bool,
    /// A scalar of it has a tag, or is a plain `.inf` or `.nan` ([`super::yaml11::non_finite`]):
    /// a value go-yaml may not turn into JSON. Without one, no value of the document is (what
    /// `yaml-type-mismatch` looks for in a whole object); every builder sets it as it makes
    /// the scalars (an alias's copy was made in the same document).
    pub maybe_undecodable: bool,
}

/// Why a file (or a document of it) could not be loaded. `TooLarge`: the document would take
/// more than `limit` bytes of memory ([`Limits::max_document_bytes`]); `offset` is its start.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LoadError {
    Syntax {
        message: String,
        offset: usize,
    },
    TooDeep {
        offset: usize,
        limit: usize,
    },
    ExcessiveAliasing {
        offset: usize,
    },
    UnknownAlias {
        offset: usize,
    },
    TooLarge {
        offset: usize,
        limit: usize,
    },
    /// The file's work meter ran out (`crate::util::work`) while the text was read again as
    /// go-yaml reads it, at `offset`: `what` was being done.
    OutOfWork {
        offset: usize,
        what: &'static str,
    },
}

impl LoadError {
    pub fn offset(&self) -> usize {
        match self {
            LoadError::Syntax { offset, .. }
            | LoadError::TooDeep { offset, .. }
            | LoadError::ExcessiveAliasing { offset }
            | LoadError::UnknownAlias { offset }
            | LoadError::TooLarge { offset, .. }
            | LoadError::OutOfWork { offset, .. } => *offset,
        }
    }

    pub(crate) fn set_offset(&mut self, at: usize) {
        match self {
            LoadError::Syntax { offset, .. }
            | LoadError::TooDeep { offset, .. }
            | LoadError::ExcessiveAliasing { offset }
            | LoadError::UnknownAlias { offset }
            | LoadError::TooLarge { offset, .. }
            | LoadError::OutOfWork { offset, .. } => *offset = at,
        }
    }
}

/// The documents of a file; parsing stops at the first error, keeping the documents before it.
#[derive(Debug, Default)]
pub struct Stream {
    pub documents: Vec<Document>,
    pub error: Option<LoadError>,
    /// Nodes alias expansion added: what the stream spent of [`Limits::max_alias_nodes`].
    pub alias_nodes: usize,
}

/// How a parse handed its documents over ([`parse_each`]) ended.
#[derive(Debug, Default)]
pub struct Outcome {
    /// The error that ended the stream, if one did.
    pub error: Option<LoadError>,
    /// Nodes alias expansion added: what the stream spent of [`Limits::max_alias_nodes`].
    pub alias_nodes: usize,
    /// The callback asked to stop.
    pub stopped: bool,
}

/// Converts saphyr's character indices into byte offsets.
struct CharToByte<'a> {
    text: &'a str,
    ascii: bool,
    /// Byte offset of every 256th character.
    checkpoints: Vec<usize>,
}

const CHECKPOINT_EVERY: usize = 256;

impl<'a> CharToByte<'a> {
    fn new(text: &'a str) -> Self {
        let ascii = text.is_ascii();
        let checkpoints = if ascii {
            Vec::new()
        } else {
            text.char_indices()
                .step_by(CHECKPOINT_EVERY)
                .map(|(b, _)| b)
                .collect()
        };
        CharToByte {
            text,
            ascii,
            checkpoints,
        }
    }

    fn byte(&self, char_index: usize) -> usize {
        if self.ascii {
            return char_index.min(self.text.len());
        }
        let cp = char_index / CHECKPOINT_EVERY;
        let Some(&base) = self.checkpoints.get(cp) else {
            return self.text.len();
        };
        let rest = char_index - cp * CHECKPOINT_EVERY;
        self.text[base..]
            .char_indices()
            .nth(rest)
            .map_or(self.text.len(), |(b, _)| base + b)
    }

    fn span(&self, span: saphyr_parser::Span) -> Span {
        Span::new(self.byte(span.start.index()), self.byte(span.end.index()))
    }
}

enum Frame {
    Seq {
        start: usize,
        flow: bool,
        anchor: usize,
        items: Vec<Node>,
    },
    Map {
        start: usize,
        flow: bool,
        anchor: usize,
        entries: Vec<(Node, Node)>,
        pending_key: Option<Node>,
    },
}

struct Builder {
    limits: Limits,
    stack: Vec<Frame>,
    anchors: HashMap<usize, Node>,
    has_complex_key: bool,
    maybe_undecodable: bool,
    root: Option<Node>,
    /// What the tree (and the anchors' copies) cost so far ([`Node::cost`]).
    bytes: usize,
    /// What go-yaml's decoder refuses while building (a merge of a scalar, bad `!!binary`).
    error: Option<LoadError>,
}

impl Builder {
    fn new(limits: Limits) -> Self {
        Builder {
            limits,
            stack: Vec::new(),
            anchors: HashMap::new(),
            has_complex_key: false,
            maybe_undecodable: false,
            root: None,
            bytes: 0,
            error: None,
        }
    }

    /// Counts `bytes` more against [`Limits::max_document_bytes`]: false past it.
    fn charge(&mut self, bytes: usize) -> bool {
        self.bytes = self.bytes.saturating_add(bytes);
        self.bytes <= self.limits.max_document_bytes
    }

    fn push_node(&mut self, node: Node) {
        match self.stack.last_mut() {
            None => self.root = Some(node),
            Some(Frame::Seq { items, .. }) => items.push(node),
            Some(Frame::Map {
                entries,
                pending_key,
                ..
            }) => match pending_key.take() {
                None => {
                    if !matches!(node.value, Value::Scalar(_)) {
                        self.has_complex_key = true;
                    }
                    *pending_key = Some(node);
                }
                Some(key) => entries.push((key, node)),
            },
        }
    }

    fn remember(&mut self, anchor: usize, node: &Node) {
        if anchor != 0 {
            // The copy costs what the node does (nested anchors copy their subtrees again).
            self.bytes = self.bytes.saturating_add(node.cost());
            self.anchors.insert(anchor, node.clone());
        }
    }

    /// Closes the open collection; a flow one ends at `flow_end_at`.
    fn close(&mut self, flow_end_at: usize) -> Option<()> {
        let frame = self.stack.pop()?;
        let node = match frame {
            Frame::Seq {
                start,
                flow,
                anchor,
                mut items,
            } => {
                trim(&mut items);
                // saphyr's end event of a flow collection also covers the spaces and
                // comment after the closing bracket: end at the bracket.
                let end = if flow {
                    flow_end_at
                } else {
                    items.last().map_or(start, |n| n.span.end)
                };
                let node = Node {
                    span: Span::new(start, end.max(start)),
                    value: Value::Seq(items),
                };
                self.remember(anchor, &node);
                node
            }
            Frame::Map {
                start,
                flow,
                anchor,
                mut entries,
                pending_key,
            } => {
                if let Some(key) = pending_key {
                    // A key with no value event cannot happen with a well-formed stream, but
                    // keep it rather than lose it.
                    let at = key.span.end;
                    entries.push((
                        key,
                        Node {
                            span: Span::empty(at),
                            value: Value::Scalar(Scalar {
                                text: "".into(),
                                style: Style::Plain,
                                tag: None,
                            }),
                        },
                    ));
                }
                trim(&mut entries);
                // saphyr's end event of a flow collection also covers the spaces and
                // comment after the closing bracket: end at the bracket.
                let end = if flow {
                    flow_end_at
                } else {
                    entries
                        .last()
                        .map_or(start, |(k, v)| k.span.end.max(v.span.end))
                };
                if entries.iter().any(|(k, _)| is_merge_key(k)) {
                    match merge(entries) {
                        Ok(merged) => entries = merged,
                        Err(offset) => {
                            self.error.get_or_insert(LoadError::Syntax {
                                message: "map merge requires map or sequence of maps as the value"
                                    .to_string(),
                                offset,
                            });
                            entries = Vec::new();
                        }
                    }
                }
                let node = Node {
                    span: Span::new(start, end.max(start)),
                    value: Value::Map(entries),
                };
                self.remember(anchor, &node);
                node
            }
        };
        self.push_node(node);
        Some(())
    }
}

/// Gives back a collection's spare capacity: a tree keeps what it holds, not what growing its
/// collections reserved (a mapping of five entries would keep room for eight: 30% more for a
/// List of Deployments on one line; about 2% more time on the corpus).
pub fn trim<T>(v: &mut Vec<T>) {
    if v.capacity() > v.len() {
        v.shrink_to_fit();
    }
}

/// A merge key as go-yaml's decoder knows it (`isMerge`): the scalar `<<`, plain and untagged
/// or tagged `!!merge`. A quoted `"<<"` is an ordinary key.
fn is_merge_key(key: &Node) -> bool {
    key.as_scalar().is_some_and(|s| {
        &*s.text == "<<"
            && match &s.tag {
                None => s.style == Style::Plain,
                Some(tag) => &**tag == "tag:yaml.org,2002:merge",
            }
    })
}

/// A mapping's entries with its merge keys (`<<: *base`, `<<: [*a, *b]`) expanded as
/// go-yaml v2's decoder does (`decoder.mapping`, `decoder.merge`): each merge key's entries
/// are set where it stands, in order, so a later key wins over what it merged, and a merged
/// entry over an earlier key; of a sequence of mappings the earlier ones win (it is merged
/// from its end). The merged entries keep their spans, in the mappings they come from. Of
/// the entries one overrides, the ones that come from a merge are dropped, so the tree reads
/// as kubectl's map does; two written keys stay, for `duplicate-key`. `Err`: the offset of a
/// merge value that is not a mapping or a sequence of mappings (go-yaml: "map merge requires
/// map or sequence of maps as the value").
fn merge(entries: Vec<(Node, Node)>) -> Result<Vec<(Node, Node)>, usize> {
    let mut out: Vec<(Node, Node, bool)> = Vec::with_capacity(entries.len());
    for (k, v) in entries {
        if !is_merge_key(&k) {
            out.push((k, v, false));
            continue;
        }
        let at = v.span.start;
        match v.value {
            Value::Map(merged) => out.extend(merged.into_iter().map(|(k, v)| (k, v, true))),
            Value::Seq(items) => {
                for item in items.into_iter().rev() {
                    let Value::Map(merged) = item.value else {
                        return Err(item.span.start);
                    };
                    out.extend(merged.into_iter().map(|(k, v)| (k, v, true)));
                }
            }
            Value::Scalar(_) => return Err(at),
        }
    }
    // The last entry of each key (go-yaml's map keeps it), and whether it was merged.
    let mut last: HashMap<&str, (usize, bool)> = HashMap::new();
    for (i, (k, _, merged)) in out.iter().enumerate() {
        if let Some(t) = k.text() {
            last.insert(t, (i, *merged));
        }
    }
    let keep: Vec<bool> = out
        .iter()
        .enumerate()
        .map(
            |(i, (k, _, merged))| match k.text().and_then(|t| last.get(t)) {
                Some(&(j, last_merged)) => i == j || !(*merged || last_merged),
                None => true,
            },
        )
        .collect();
    Ok(out
        .into_iter()
        .zip(keep)
        .filter_map(|((k, v, _), keep)| keep.then_some((k, v)))
        .collect())
}

/// The text of a `!!binary` scalar as go-yaml's decoder gives it (`decoder.scalar`:
/// `base64.StdEncoding.DecodeString`, then a Go string of the bytes, which `encoding/json`
/// sends with U+FFFD for bytes that are not UTF-8). Go's decoder skips CR and LF; anything
/// else outside the alphabet, or padding out of place, is an error (`None`).
fn decode_binary(text: &str) -> Option<String> {
    let mut bits = 0u32;
    let mut n = 0u32;
    let mut out = Vec::new();
    let mut pad = 0usize;
    let mut len = 0usize;
    for c in text.bytes().filter(|&c| c != b'\n' && c != b'\r') {
        len += 1;
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            b'=' => {
                pad += 1;
                continue;
            }
            _ => return None,
        };
        if pad > 0 {
            return None;
        }
        bits = (bits << 6) | u32::from(v);
        n += 6;
        if n >= 8 {
            n -= 8;
            out.push(((bits >> n) & 0xFF) as u8);
        }
    }
    // Whole quanta of four, with at most two `=` and the bits they leave.
    let data = len - pad;
    if !len.is_multiple_of(4) || pad > 2 || (pad > 0 && (data % 4) + pad != 4) {
        return None;
    }
    Some(String::from_utf8_lossy(&out).into_owned())
}

/// Where a flow collection ends: after its closing bracket. saphyr's end event may start at
/// a trailing comma (`{a: b,}`) and may run on over spaces and a comment after the bracket.
fn flow_end(text: &str, end_span: Span) -> usize {
    if end_span.is_empty() {
        return end_span.end;
    }
    let bytes = text.as_bytes();
    let mut i = end_span.start;
    while let Some(&c) = bytes.get(i) {
        match c {
            b']' | b'}' => return i + 1,
            b',' | b' ' | b'\t' | b'\r' | b'\n' => i += 1,
            _ => break,
        }
    }
    end_span.start + 1
}

fn is_flow_start(text: &str, at: usize) -> bool {
    matches!(text.as_bytes().get(at), Some(b'[' | b'{'))
}

fn style_of(style: ScalarStyle) -> Style {
    match style {
        ScalarStyle::Plain => Style::Plain,
        ScalarStyle::SingleQuoted => Style::SingleQuoted,
        ScalarStyle::DoubleQuoted => Style::DoubleQuoted,
        ScalarStyle::Literal => Style::Literal,
        ScalarStyle::Folded => Style::Folded,
    }
}

impl Node {
    fn shift(&mut self, by: usize) {
        self.span = Span::new(self.span.start + by, self.span.end + by);
        match &mut self.value {
            Value::Scalar(_) => {}
            Value::Seq(items) => items.iter_mut().for_each(|n| n.shift(by)),
            Value::Map(entries) => entries.iter_mut().for_each(|(k, v)| {
                k.shift(by);
                v.shift(by);
            }),
        }
    }
}

impl LoadError {
    fn shift(&mut self, by: usize) {
        match self {
            LoadError::Syntax { offset, .. }
            | LoadError::TooDeep { offset, .. }
            | LoadError::ExcessiveAliasing { offset }
            | LoadError::UnknownAlias { offset }
            | LoadError::TooLarge { offset, .. }
            | LoadError::OutOfWork { offset, .. } => *offset += by,
        }
    }
}

/// Parses a part of a file that starts at byte `base` of it (spans are file offsets), as
/// kubectl's go-yaml reads it.
pub fn parse_at(text: &str, base: usize, limits: Limits) -> Stream {
    let mut stream = parse(text, limits);
    stream.shift(base);
    stream
}

impl Stream {
    /// Moves every span and the error by `base` bytes: the stream of a part of a file that
    /// starts there.
    fn shift(&mut self, base: usize) {
        if base == 0 {
            return;
        }
        for d in &mut self.documents {
            d.span = Span::new(d.span.start + base, d.span.end + base);
            if let Some(root) = &mut d.root {
                root.shift(base);
            }
        }
        if let Some(e) = &mut self.error {
            e.shift(base);
        }
    }
}

/// Parses every document of a part of a file that starts at byte `base` of it (spans are
/// file offsets), handing each to `each` as soon as it is complete: a stream of a million
/// documents holds one at a time. `each` returns false to stop the stream there.
///
/// kubectl cuts a stream at its `---` lines and decodes each document alone
/// (`yaml.NewYAMLReader`, then go-yaml per document): so does this, one part at a time, each
/// read as kubectl reads it ([`parse_chunk`]). The alias budget is the file's: what one part
/// spends, the next has less of.
pub fn parse_each(
    text: &str,
    base: usize,
    limits: Limits,
    each: &mut dyn FnMut(Document) -> bool,
) -> Outcome {
    // Every part draws from the file's one meter.
    work::per_file(text.len(), || parse_each_metered(text, base, limits, each))
}

fn parse_each_metered(
    text: &str,
    base: usize,
    limits: Limits,
    each: &mut dyn FnMut(Document) -> bool,
) -> Outcome {
    let mut outcome = Outcome::default();
    let mut index = 0usize;
    for piece in super::kubectl::Pieces::new(text) {
        let range = match piece {
            Ok(range) => range,
            Err(mut e) => {
                e.shift(base);
                outcome.error = Some(e);
                return outcome;
            }
        };
        let part = Limits {
            max_alias_nodes: limits.max_alias_nodes.saturating_sub(outcome.alias_nodes),
            ..limits
        };
        let Some(chunk) = text.get(range.clone()) else {
            continue;
        };
        let stream = parse_chunk(chunk, base + range.start, part);
        outcome.alias_nodes = outcome.alias_nodes.saturating_add(stream.alias_nodes);
        for mut d in stream.documents {
            d.index = index;
            index += 1;
            if !each(d) {
                outcome.stopped = true;
                return outcome;
            }
        }
        if stream.error.is_some() {
            outcome.error = stream.error;
            return outcome;
        }
    }
    outcome
}

/// One strict pass of the parser over the whole of `text`, its documents collected.
fn strict_stream(text: &str, limits: Limits) -> Stream {
    let mut documents = Vec::new();
    let outcome = parse_strict(text, 0, limits, 0, &mut |d| {
        documents.push(d);
        true
    });
    Stream {
        documents,
        error: outcome.error,
        alias_nodes: outcome.alias_nodes,
    }
}

/// Parses every document of `text`, as kubectl's go-yaml reads them (see [`super::goyaml`]).
pub fn parse(text: &str, limits: Limits) -> Stream {
    work::per_file(text.len(), || {
        super::goyaml::parse(text, &|t| parse_relaxed(t, limits), false)
    })
}

/// Reads one piece of a stream as kubectl cuts them ([`super::kubectl::Pieces`]), that
/// starts at byte `base` of its file (spans are file offsets): its first document as
/// go-yaml's `Unmarshal` reads it, and nothing after it (see [`super::kubectl`]).
pub fn parse_chunk(chunk: &str, base: usize, limits: Limits) -> Stream {
    let mut stream = work::per_file(chunk.len(), || {
        super::goyaml::parse(chunk, &|t| parse_relaxed(t, limits), true)
    });
    stream.shift(base);
    stream
}

/// Parses every document of `text`, where saphyr refuses what go-yaml (libyaml's scanner)
/// accepts, after editing the text where saphyr says it refuses. Each edit keeps the text's
/// length and its lines, so every position stays true, and the text is parsed again:
///
/// - the closing `]` or `}` of a multi-line flow collection may sit at any indentation, even
///   at its key's (saphyr: "invalid indentation"): it is moved to the end of the line before;
/// - so may the continuation lines of a multi-line quoted scalar (saphyr: "invalid
///   indentation in quoted scalar"), and a double-quoted scalar may hold go-yaml's `\'`
///   escape (saphyr: "unknown escape character"): its line breaks become spaces and its `\'`
///   `\"`, and its text is read from the original as go-yaml reads it
///   (`goyaml::mend_quoted`);
/// - a tab after a mapping key's `:` (saphyr: "':' must be followed by a valid YAML
///   whitespace"): go-yaml's `yaml_parser_scan_to_next_token` skips tabs where a simple key is
///   not allowed, as after a key's `:`: it becomes a space;
/// - a comment right after a flow collection's closer, a quoted scalar or a block scalar
///   header (`[a]#c`, `"a"#c`, `|#c`; saphyr: "comments must be separated from other tokens
///   by whitespace"): go-yaml needs no space there (`yaml_parser_scan_to_next_token`,
///   `yaml_parser_scan_block_scalar`): the comment becomes spaces;
/// - a comment line less indented than a block scalar's explicit indentation, after its empty
///   lines (saphyr: "wrongly indented line in block scalar"): in go-yaml
///   (`yaml_parser_scan_block_scalar_breaks`) a less indented line ends the scalar: the
///   comment moves to column 0, where saphyr ends the scalar too.
///
/// Then a flow collection's lines may sit at any indentation (`super::flow_indent`).
fn parse_relaxed(text: &str, limits: Limits) -> Stream {
    let first = parse_mended(text, limits);
    super::flow_indent::mend(text, first, &|t| parse_mended(t, limits))
}

/// [`parse_relaxed`] but for the flow collections' indentation.
fn parse_mended(text: &str, limits: Limits) -> Stream {
    let stream = strict_stream(text, limits);
    let Some(LoadError::Syntax { offset, message }) = &stream.error else {
        return stream;
    };
    // Most errors are none of these: no copy of the text for them.
    let mendable = [
        "invalid indentation",
        "unknown escape character",
        "must be followed by a valid YAML whitespace",
        "comments must be separated from other tokens",
        "tab cannot be used as indentation",
        "wrongly indented line in block scalar",
    ];
    if !mendable.iter().any(|m| message.contains(m)) {
        return stream;
    }
    let mut relaxed = text.to_string();
    let (mut at, mut why) = (*offset, message.clone());
    // Nothing before the first refusal is mended: the documents that end there are true.
    let first = at;
    // What the bulk mends changed, checked at the end.
    let mut mended = Mended::default();
    // Each pass mends one place (tabs after colons: every such place at once): a file has
    // few, and each pass is charged to the file's meter by the bytes it parses again.
    // When a later error is none of these, the places mended so far stay mended (go-yaml
    // reads them so): the error reported is the later one.
    let mut current = stream;
    let mut mended_once = false;
    loop {
        if !relax(&mut relaxed, at, &why, &mut mended) {
            break;
        }
        mended_once = true;
        if !work::charge(relaxed.len() as u64) {
            return out_of_work(current, first, at, "a parse again after each mend");
        }
        let retry = strict_stream(&relaxed, limits);
        match &retry.error {
            Some(LoadError::Syntax { offset, message }) if *offset != at || *message != why => {
                at = *offset;
                why.clone_from(message);
                current = retry;
            }
            _ => return undo_unfounded(relaxed, retry, mended, limits),
        }
    }
    if !mended_once {
        return current;
    }
    undo_unfounded(relaxed, current, mended, limits)
}

/// The places the bulk mends ([`tabs_after_colons`], [`blank_comment`]) changed beyond the
/// one saphyr refused: each is checked against the tree once the text parses.
#[derive(Default)]
struct Mended {
    /// Tabs made spaces.
    tabs: Vec<usize>,
    /// Comments made spaces after a `]`, `}` or quote: the `#`'s offset and the comment's bytes.
    comments: Vec<(usize, Vec<u8>)>,
    /// Tabs made spaces at the start of a line, which must be a quoted scalar's.
    indents: Vec<usize>,
    /// Quoted scalars whose line breaks were made spaces: their start and original text
    /// (see `goyaml::mend_quoted`).
    quoted: Vec<(usize, String)>,
    /// The same, mended in one scan ahead of saphyr (`goyaml::mend_quoted_after`): kept only
    /// where the tree has a quoted scalar starting there.
    quoted_bulk: Vec<(usize, String)>,
    /// Whether the scalars after the first refused continuation were mended in bulk.
    bulk_continuations: bool,
    /// The same for the scalars with a `\'` escape.
    bulk_escapes: bool,
}

/// Undoes the bulk mends the tree does not bear out, and parses the text again if there were
/// any: a tab that lies inside a quoted or block scalar is part of its text (and no error
/// there); a `#` after a `]`, `}` or quote that does not close a flow collection or a quoted
/// scalar (inside a scalar) is text too.
fn undo_unfounded(relaxed: String, stream: Stream, mut m: Mended, limits: Limits) -> Stream {
    let mut quoted = std::mem::take(&mut m.quoted);
    let bulk = std::mem::take(&mut m.quoted_bulk);
    let (relaxed, stream) = if bulk.is_empty() {
        (relaxed, stream)
    } else {
        // A scalar mended ahead is confirmed where the tree has a quoted scalar starting
        // there; any other is put back as it was, and the text parsed again.
        let starts = quoted_starts(&stream);
        let (kept, wrong): (Vec<_>, Vec<_>) = bulk
            .into_iter()
            .partition(|(at, _)| starts.binary_search(at).is_ok());
        quoted.extend(kept);
        if wrong.is_empty() {
            (relaxed, stream)
        } else {
            let mut bytes = relaxed.into_bytes();
            for (at, original) in &wrong {
                if let Some(dst) = bytes.get_mut(*at..at + original.len()) {
                    dst.copy_from_slice(original.as_bytes());
                }
            }
            if !work::charge(bytes.len() as u64) {
                let at = wrong.first().map_or(0, |(at, _)| *at);
                return out_of_work(stream, at, at, "a parse again after each mend");
            }
            match String::from_utf8(bytes) {
                Ok(text) => {
                    let again = strict_stream(&text, limits);
                    (text, again)
                }
                Err(_) => return stream,
            }
        }
    };
    let mut stream = undo_bulk(relaxed, stream, m, limits);
    quoted.sort_unstable();
    super::goyaml::refold_quoted(&mut stream, &quoted);
    stream
}

/// The spans of the stream's quoted scalars (single or double), sorted by start.
pub fn quoted_spans(stream: &Stream) -> Vec<Span> {
    let mut out = Vec::new();
    let mut stack: Vec<&Node> = stream
        .documents
        .iter()
        .filter_map(|d| d.root.as_ref())
        .collect();
    while let Some(n) = stack.pop() {
        match &n.value {
            Value::Scalar(s) if matches!(s.style, Style::SingleQuoted | Style::DoubleQuoted) => {
                out.push(n.span);
            }
            Value::Scalar(_) => {}
            Value::Seq(items) => stack.extend(items),
            Value::Map(entries) => stack.extend(entries.iter().flat_map(|(k, v)| [k, v])),
        }
    }
    out.sort_unstable_by_key(|s| s.start);
    out
}

/// Where the stream's quoted scalars start, sorted.
fn quoted_starts(stream: &Stream) -> Vec<usize> {
    quoted_spans(stream).into_iter().map(|s| s.start).collect()
}

/// [`undo_unfounded`] for the bulk mends.
fn undo_bulk(relaxed: String, stream: Stream, mut m: Mended, limits: Limits) -> Stream {
    if m.tabs.is_empty() && m.comments.is_empty() && m.indents.is_empty() {
        return stream;
    }
    m.tabs.sort_unstable();
    let mut tabs = super::goyaml::inside_quoted_or_block(&stream, &m.tabs);
    // A line-start tab outside a quoted scalar is go-yaml's error too: put back (and saphyr
    // says so again). Only a quoted scalar's continuation takes it.
    m.indents.sort_unstable();
    let quoted = super::goyaml::inside_quoted(&stream, &m.indents);
    tabs.extend(
        m.indents
            .iter()
            .filter(|t| quoted.binary_search(t).is_err()),
    );
    let (inside, plain_ends) = if m.comments.is_empty() {
        (Vec::new(), Vec::new())
    } else {
        scalar_places(&stream)
    };
    let text_after_all = |at: usize| {
        plain_ends.binary_search(&at).is_ok() || {
            // Scalars do not nest: the last one starting before `at` is the one to ask.
            let i = inside.partition_point(|s| s.start < at);
            i.checked_sub(1)
                .and_then(|i| inside.get(i))
                .is_some_and(|s| at < s.end)
        }
    };
    // With an error, only what the documents read can tell is checked.
    let read = match stream.error {
        Some(_) => stream.documents.last().map_or(0, |d| d.span.end),
        None => usize::MAX,
    };
    let comments: Vec<&(usize, Vec<u8>)> = m
        .comments
        .iter()
        .filter(|(at, _)| *at < read && text_after_all(*at))
        .collect();
    if tabs.is_empty() && comments.is_empty() {
        return stream;
    }
    let mut bytes = relaxed.into_bytes();
    for at in tabs {
        if let Some(b) = bytes.get_mut(at) {
            *b = b'\t';
        }
    }
    for (at, original) in comments {
        if let Some(dst) = bytes.get_mut(*at..at + original.len()) {
            dst.copy_from_slice(original);
        }
    }
    if !work::charge(bytes.len() as u64) {
        return out_of_work(
            stream,
            read.min(bytes.len()),
            read.min(bytes.len()),
            "a parse again after each mend",
        );
    }
    match String::from_utf8(bytes) {
        Ok(text) => strict_stream(&text, limits),
        Err(_) => stream,
    }
}

/// The stream when the file's work meter ran out (`crate::util::work`) at `at`, `what` being
/// done: the documents that end before `upto` (where nothing was edited yet), and the error.
pub(super) fn out_of_work(
    mut stream: Stream,
    upto: usize,
    at: usize,
    what: &'static str,
) -> Stream {
    stream.documents.retain(|d| d.span.end <= upto);
    stream.error = Some(LoadError::OutOfWork { offset: at, what });
    stream
}

/// Where a comment blanked by [`blank_comment`] was text after all: offsets inside a scalar
/// (a block or quoted scalar's content) and right after a plain scalar (`x]#c` is one plain
/// scalar to go-yaml), as sorted lists. A comment anywhere else followed a flow collection's
/// closer or a quoted scalar (a merged flow mapping is gone from the tree, but its closer
/// stays in the text).
fn scalar_places(stream: &Stream) -> (Vec<Span>, Vec<usize>) {
    fn walk(n: &Node, inside: &mut Vec<Span>, plain_ends: &mut Vec<usize>) {
        match &n.value {
            Value::Scalar(s) => {
                inside.push(n.span);
                if s.style == Style::Plain {
                    plain_ends.push(n.span.end);
                }
            }
            Value::Seq(items) => items.iter().for_each(|c| walk(c, inside, plain_ends)),
            Value::Map(entries) => entries.iter().for_each(|(k, v)| {
                walk(k, inside, plain_ends);
                walk(v, inside, plain_ends);
            }),
        }
    }
    let (mut inside, mut plain_ends) = (Vec::new(), Vec::new());
    for root in stream.documents.iter().filter_map(|d| d.root.as_ref()) {
        walk(root, &mut inside, &mut plain_ends);
    }
    inside.sort_unstable();
    plain_ends.sort_unstable();
    (inside, plain_ends)
}

/// Mends the quoted scalar saphyr refused at `at`, and the first time (for continuations, or
/// for `\'` escapes: `escapes`) the others of its kind after it in one scan: one parse each
/// would cost the file's meter a parse per scalar.
fn mend_quoted_and_after(text: &mut String, at: usize, escapes: bool, mended: &mut Mended) -> bool {
    let done = super::goyaml::mend_quoted(text, at, &mut mended.quoted);
    let bulk = if escapes {
        &mut mended.bulk_escapes
    } else {
        &mut mended.bulk_continuations
    };
    if done && !*bulk {
        *bulk = true;
        super::goyaml::mend_quoted_after(text, at, escapes, &mut mended.quoted_bulk);
    }
    done
}

/// Mends the text where saphyr refused it at `at` for `why` (see [`parse_relaxed`]); false
/// when this is not a place go-yaml accepts.
fn relax(text: &mut String, at: usize, why: &str, mended: &mut Mended) -> bool {
    if why.contains("invalid indentation in quoted scalar") {
        mend_quoted_and_after(text, at, false, mended)
    } else if why.contains("unknown escape character") {
        mend_quoted_and_after(text, at, true, mended)
    } else if why.contains("invalid indentation") {
        move_flow_closer(text, at)
    } else if why.contains("must be followed by a valid YAML whitespace") {
        tabs_after_colons(text, at, &mut mended.tabs)
    } else if why.contains("comments must be separated from other tokens") {
        blank_comment(text, at, &mut mended.comments)
    } else if why.contains("tab cannot be used as indentation") {
        quoted_continuation_tabs(text, at, &mut mended.indents)
    } else if why.contains("wrongly indented line in block scalar") {
        comment_to_column_zero(text, at)
    } else {
        false
    }
}

/// The blanks with a tab between a mapping key's `:` and its value, before `at` (where saphyr
/// refused them), become spaces; so do those after every later `:` that follows text and is
/// followed by blanks with a tab (a file with one has many, and each pass costs a parse).
/// Their offsets go to `tabs`: one inside a quoted or block scalar is put back by
/// [`undo_unfounded`].
fn tabs_after_colons(text: &mut String, at: usize, tabs: &mut Vec<usize>) -> bool {
    let b = text.as_bytes();
    let at = at.min(b.len());
    // The blanks before `at` must hold a tab and follow a `:`.
    let blanks = b[..at]
        .iter()
        .rev()
        .take_while(|&&c| c == b' ' || c == b'\t')
        .count();
    let colon = at - blanks;
    if blanks == 0 || colon == 0 || b[colon - 1] != b':' || !b[colon..at].contains(&b'\t') {
        return false;
    }
    let mut bytes = std::mem::take(text).into_bytes();
    let mut mend = |bytes: &mut [u8], from: usize, to: usize| {
        for (i, c) in bytes.iter_mut().enumerate().take(to).skip(from) {
            if *c == b'\t' {
                *c = b' ';
                tabs.push(i);
            }
        }
    };
    mend(&mut bytes, colon, at);
    let mut i = at;
    while let Some(t) = memchr::memchr(b'\t', bytes.get(i..).unwrap_or_default()) {
        let t = i + t;
        let start = bytes[..t]
            .iter()
            .rposition(|&c| c != b' ' && c != b'\t')
            .map_or(0, |p| p + 1);
        let after = bytes[t..]
            .iter()
            .position(|&c| c != b' ' && c != b'\t')
            .map_or(bytes.len(), |p| t + p);
        let keyed = start >= 2
            && bytes[start - 1] == b':'
            && !matches!(bytes[start - 2], b' ' | b'\t' | b'\n' | b'\r');
        if keyed {
            mend(&mut bytes, start, after);
        }
        i = after.max(t + 1);
    }
    *text = String::from_utf8(bytes).unwrap_or_default();
    true
}

/// A comment saphyr wants a space before, at `at`, after a flow closer, a quoted scalar or a
/// block scalar header: spaces from the `#` to the end of its line. After a closer or a
/// quote, so does every later comment right after a `]`, `}`, `"` or `'` (a file with one has
/// many, and each pass costs a parse); those go to `comments`, for [`undo_unfounded`] to
/// check.
fn blank_comment(text: &mut String, at: usize, comments: &mut Vec<(usize, Vec<u8>)>) -> bool {
    let b = text.as_bytes();
    if b.get(at) != Some(&b'#') || at == 0 {
        return false;
    }
    let closer = matches!(b[at - 1], b']' | b'}' | b'"' | b'\'');
    if !closer && !matches!(b[at - 1], b'|' | b'>' | b'+' | b'-' | b'1'..=b'9') {
        return false;
    }
    let line_end = |b: &[u8], from: usize| {
        b[from..]
            .iter()
            .position(|&c| c == b'\n' || c == b'\r')
            .map_or(b.len(), |i| from + i)
    };
    let mut bytes = std::mem::take(text).into_bytes();
    let end = line_end(&bytes, at);
    bytes[at..end].fill(b' ');
    if closer {
        let mut i = end;
        while let Some(h) = memchr::memchr(b'#', bytes.get(i..).unwrap_or_default()) {
            let h = i + h;
            let end = line_end(&bytes, h);
            // (Not where blanking could remove a closing quote: that one waits for its pass.)
            let quote = bytes[h..end].iter().any(|&c| c == b'"' || c == b'\'');
            if matches!(bytes[h - 1], b']' | b'}' | b'"' | b'\'') && !quote {
                comments.push((h, bytes[h..end].to_vec()));
                bytes[h..end].fill(b' ');
            }
            i = end.max(h + 1);
        }
    }
    // Whole characters became spaces: still UTF-8.
    *text = String::from_utf8(bytes).unwrap_or_default();
    true
}

/// Tabs at the start of the line at `at`, where saphyr refuses a tab as indentation: inside a
/// quoted scalar go-yaml takes them as blanks (`yaml_parser_scan_flow_scalar` eats any blank
/// between lines), and leading blanks of a continuation line are not content. They become
/// spaces, recorded for [`undo_unfounded`], which puts back those outside a quoted scalar.
fn quoted_continuation_tabs(text: &mut String, at: usize, indents: &mut Vec<usize>) -> bool {
    let b = text.as_bytes();
    if b.get(at) != Some(&b'\t') {
        return false;
    }
    let line = b[..at]
        .iter()
        .rposition(|&c| c == b'\n' || c == b'\r')
        .map_or(0, |i| i + 1);
    if !b[line..at].iter().all(|&c| c == b' ' || c == b'\t') {
        return false;
    }
    let end = b[line..]
        .iter()
        .position(|&c| c != b' ' && c != b'\t')
        .map_or(b.len(), |i| line + i);
    let mut bytes = std::mem::take(text).into_bytes();
    for (i, c) in bytes.iter_mut().enumerate().take(end).skip(line) {
        if *c == b'\t' {
            *c = b' ';
            indents.push(i);
        }
    }
    *text = String::from_utf8(bytes).unwrap_or_default();
    true
}

/// A comment line at `at` indented less than a block scalar's explicit indentation: its
/// spaces move after it, so it starts at column 0.
fn comment_to_column_zero(text: &mut String, at: usize) -> bool {
    let b = text.as_bytes();
    let line_start = b[..at.min(b.len())]
        .iter()
        .rposition(|&c| c == b'\n')
        .map_or(0, |i| i + 1);
    let spaces = b[line_start..].iter().take_while(|&&c| c == b' ').count();
    let hash = line_start + spaces;
    if spaces == 0 || b.get(hash) != Some(&b'#') {
        return false;
    }
    let end = b[hash..]
        .iter()
        .position(|&c| c == b'\n' || c == b'\r')
        .map_or(b.len(), |i| hash + i);
    let comment = text[hash..end].to_string();
    let moved = format!("{comment}{}", " ".repeat(spaces));
    text.replace_range(line_start..end, &moved);
    true
}

/// Moves a lone flow closer (`]` or `}`, optionally with a `,`) on the line of `at` to the end
/// of the previous line, when that line has content and no comment: the bytes shift within
/// those two lines only. False when the line is not such a closer.
fn move_flow_closer(text: &mut String, at: usize) -> bool {
    let at = at.min(text.len());
    let line_start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    let line_end = text[at..].find('\n').map_or(text.len(), |i| at + i);
    let line = &text[line_start..line_end];
    let closer = line.trim();
    if !matches!(closer, "]" | "}" | "]," | "}," | "]]" | "}]" | "]}" | "}}") {
        return false;
    }
    let Some(prev_end) = line_start.checked_sub(1) else {
        return false;
    };
    let prev_start = text[..prev_end].rfind('\n').map_or(0, |i| i + 1);
    let prev = &text[prev_start..prev_end];
    let prev = prev.strip_suffix('\r').unwrap_or(prev);
    if prev.trim().is_empty() || prev.contains('#') {
        return false;
    }
    let prev_content_end = prev_start + prev.len();
    // `prev` + closer, then the closer's line with spaces where the closer was.
    let moved = format!(
        "{}{closer}{}{}",
        &text[prev_start..prev_content_end],
        &text[prev_content_end..line_start],
        " ".repeat(line.len()),
    );
    let rebuilt_len = moved.len();
    if rebuilt_len != line_end - prev_start + closer.len() {
        return false;
    }
    // Drop the closer's width of trailing spaces so the length is unchanged.
    let moved = &moved[..line_end - prev_start];
    text.replace_range(prev_start..line_end, moved);
    true
}

/// One pass of the parser over `text` (at byte `base` of its file): the documents from the
/// `skip`th on are handed to `each`.
fn parse_strict(
    text: &str,
    base: usize,
    limits: Limits,
    skip: usize,
    each: &mut dyn FnMut(Document) -> bool,
) -> Outcome {
    let mut outcome = Outcome::default();
    // saphyr holds a whole flow collection's tokens before its first event: estimate that
    // first, and do not start what would not fit.
    if parser_cost_over(text, limits.max_document_bytes) {
        let over = crate::load::prescan::split_documents(text)
            .into_iter()
            .find(|r| parser_cost_over(&text[r.clone()], limits.max_document_bytes));
        if let Some(r) = over {
            // The documents before it are parsed on their own.
            if r.start > 0 {
                outcome = parse_strict(&text[..r.start], base, limits, skip, each);
                if outcome.error.is_some() || outcome.stopped {
                    return outcome;
                }
            }
            outcome.error = Some(LoadError::TooLarge {
                offset: base + r.start + first_content(&text[r.clone()]),
                limit: limits.max_document_bytes,
            });
            return outcome;
        }
    }
    let conv = CharToByte::new(text);
    let mut parser = Parser::new_from_str(text);
    let mut builder: Option<Builder> = None;
    let mut doc_start = 0usize;
    let mut index = 0usize;

    while let Some(next) = parser.next_event() {
        let (event, span) = match next {
            Ok(ok) => ok,
            Err(err) => {
                outcome.error = Some(syntax_error(&conv, &err, limits));
                break;
            }
        };
        let bspan = conv.span(span);
        // Every error below is at the event's start.
        let fail = |error: fn(usize, Limits) -> LoadError| error(bspan.start, limits);
        match event {
            Event::StreamStart | Event::Nothing => {}
            Event::StreamEnd => break,
            Event::DocumentStart(_) => {
                doc_start = bspan.start;
                builder = Some(Builder::new(limits));
            }
            Event::DocumentEnd => {
                if let Some(b) = builder.take() {
                    let end = b.root.as_ref().map_or(bspan.end, |r| r.span.end);
                    let mut doc = Document {
                        index,
                        span: Span::new(doc_start.min(end), end),
                        has_complex_key: b.has_complex_key,
                        maybe_undecodable: b.maybe_undecodable,
                        root: b.root,
                    };
                    index += 1;
                    if index <= skip {
                        continue;
                    }
                    if base > 0 {
                        doc.span = Span::new(doc.span.start + base, doc.span.end + base);
                        if let Some(root) = &mut doc.root {
                            root.shift(base);
                        }
                    }
                    if !each(doc) {
                        outcome.stopped = true;
                        break;
                    }
                }
            }
            Event::Alias(id) => {
                let Some(b) = builder.as_mut() else { continue };
                let Some(node) = b.anchors.get(&id) else {
                    outcome.error = Some(fail(|offset, _| LoadError::UnknownAlias { offset }));
                    break;
                };
                // The budget is the file's: every document's aliases count.
                outcome.alias_nodes = outcome.alias_nodes.saturating_add(node.count());
                if outcome.alias_nodes > b.limits.max_alias_nodes {
                    outcome.error = Some(fail(|offset, _| LoadError::ExcessiveAliasing { offset }));
                    break;
                }
                let node = node.clone();
                if !b.charge(node.cost()) {
                    outcome.error = Some(too_large(doc_start, limits));
                    break;
                }
                b.push_node(node);
            }
            Event::Scalar(value, style, anchor, tag) => {
                let Some(b) = builder.as_mut() else { continue };
                // saphyr can end a quoted scalar's span after a trailing comment: end it at
                // the closing quote instead.
                let bspan = match style {
                    ScalarStyle::SingleQuoted | ScalarStyle::DoubleQuoted => {
                        quoted_span(text, bspan, style == ScalarStyle::DoubleQuoted)
                    }
                    _ => bspan,
                };
                // An empty block scalar is an empty span where saphyr ends it: at the end of
                // the text it also covers its header, before a `---` it does not, and the
                // fast path cuts the text there.
                let bspan = match style {
                    ScalarStyle::Literal | ScalarStyle::Folded
                        if value.bytes().all(|c| c == b'\n')
                            && matches!(text.as_bytes().get(bspan.start), Some(b'|' | b'>')) =>
                    {
                        Span::empty(bspan.end)
                    }
                    _ => bspan,
                };
                let tag = tag.map(|t| format!("{}{}", t.handle, t.suffix).into_boxed_str());
                let text = match value {
                    Cow::Borrowed(s) => s.into(),
                    Cow::Owned(s) => s.into_boxed_str(),
                };
                let text = if tag.as_deref() == Some("tag:yaml.org,2002:binary") {
                    match decode_binary(&text) {
                        Some(decoded) => decoded.into_boxed_str(),
                        None => {
                            outcome.error = Some(LoadError::Syntax {
                                message: "!!binary value contains invalid base64 data".to_string(),
                                offset: bspan.start,
                            });
                            break;
                        }
                    }
                } else {
                    text
                };
                let style = style_of(style);
                b.maybe_undecodable |= tag.is_some()
                    || (style == Style::Plain && super::yaml11::non_finite(&text).is_some());
                let node = Node {
                    span: bspan,
                    value: Value::Scalar(Scalar { text, style, tag }),
                };
                if !b.charge(node.cost()) {
                    outcome.error = Some(too_large(doc_start, limits));
                    break;
                }
                b.remember(anchor, &node);
                b.push_node(node);
            }
            Event::SequenceStart(anchor, _) | Event::MappingStart(anchor, _) => {
                let Some(b) = builder.as_mut() else { continue };
                if b.stack.len() >= b.limits.max_depth {
                    outcome.error = Some(fail(|offset, limits| LoadError::TooDeep {
                        offset,
                        limit: limits.max_depth,
                    }));
                    break;
                }
                // A block collection's start event is empty; an indentless sequence's may sit on
                // the `[` of its first item.
                let flow = !bspan.is_empty() && is_flow_start(text, bspan.start);
                let frame = if matches!(event, Event::SequenceStart(..)) {
                    Frame::Seq {
                        start: bspan.start,
                        flow,
                        anchor,
                        items: Vec::new(),
                    }
                } else {
                    Frame::Map {
                        start: bspan.start,
                        flow,
                        anchor,
                        entries: Vec::new(),
                        pending_key: None,
                    }
                };
                b.stack.push(frame);
            }
            Event::SequenceEnd | Event::MappingEnd => {
                if let Some(b) = builder.as_mut() {
                    if !b.charge(NODE_COST) {
                        outcome.error = Some(too_large(doc_start, limits));
                        break;
                    }
                    b.close(flow_end(text, bspan));
                    if let Some(e) = b.error.take() {
                        outcome.error = Some(e);
                        break;
                    }
                }
            }
        }
    }
    // Drop deep partial trees iteratively enough: the depth is bounded by `max_depth`.
    drop(builder);
    if let Some(e) = &mut outcome.error {
        e.shift(base);
    }
    outcome
}

fn too_large(offset: usize, limits: Limits) -> LoadError {
    LoadError::TooLarge {
        offset,
        limit: limits.max_document_bytes,
    }
}

/// The span of a quoted scalar from its opening quote to its closing one.
fn quoted_span(text: &str, span: Span, double: bool) -> Span {
    let bytes = text.as_bytes();
    let quote = if double { b'"' } else { b'\'' };
    let mut start = span.start;
    // Skip anchors, tags and whitespace saphyr may include before the quote.
    while start < span.end && bytes.get(start) != Some(&quote) {
        start += 1;
    }
    if bytes.get(start) != Some(&quote) {
        return span;
    }
    let mut i = start + 1;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' if double => i += 2,
            b'\'' if !double && bytes.get(i + 1) == Some(&b'\'') => i += 2,
            c if c == quote => return Span::new(start, i + 1),
            _ => i += 1,
        }
    }
    span
}

fn syntax_error(conv: &CharToByte<'_>, err: &ScanError, limits: Limits) -> LoadError {
    let offset = conv.byte(err.marker().index());
    // saphyr has its own nesting limit, which can trip before ours: it is the same finding.
    if err.info().contains("recursion limit exceeded") {
        return LoadError::TooDeep {
            offset,
            limit: limits.max_depth,
        };
    }
    // saphyr knows anchors of earlier documents of the same stream, so an alias to one of
    // them reaches our builder, which does not; parsed alone, the document fails in saphyr.
    // Either way it is the same finding.
    if err.info().contains("unknown anchor") {
        return LoadError::UnknownAlias { offset };
    }
    LoadError::Syntax {
        message: err.info().to_string(),
        offset,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(text: &str) -> Node {
        let s = parse(text, Limits::default());
        assert!(s.error.is_none(), "{:?}", s.error);
        s.documents.into_iter().next().unwrap().root.unwrap()
    }

    /// Both builders say when a document holds a tagged or non-finite scalar, and only then.
    #[test]
    fn documents_say_when_they_may_not_decode() {
        let cases = [
            ("a: 1\nb: [x, .5, -1]\nc: example.info\n", false),
            ("a: .inf\n", true),
            ("a: [1, -.Inf]\n", true),
            ("a:\n  b: .NaN\n", true),
            ("a: '.inf'\n", false),
            ("a: .iNf\n", false),
            ("a: !!int x\n", true),
            ("a: &x .nan\nb: *x\n", true),
        ];
        for (text, want) in cases {
            let slow = parse_at(text, 0, Limits::default());
            assert!(slow.error.is_none(), "{text}");
            assert_eq!(slow.documents[0].maybe_undecodable, want, "parser: {text}");
            if let Some(fast) = super::super::fast_yaml::parse_at(text, 0, Limits::default()) {
                assert_eq!(fast.documents[0].maybe_undecodable, want, "fast: {text}");
            }
        }
    }

    /// The values of `values` in a flow sequence whose closer sits at or below its key's
    /// indentation: go-yaml (kubectl) and PyYAML read these; saphyr alone says "invalid
    /// indentation". The positions of everything else stay true.
    #[test]
    fn flow_closers_at_any_indentation_parse_like_go_yaml() {
        let cases = [
            // Closer at the key's indentation, inside a sequence item (saphyr's complaint).
            "reqs:\n  - key: x\n    values: [\n      \"a\",\n      \"b\"\n    ]\nafter: 1\n",
            // Closer below the key's indentation.
            "reqs:\n  - key: x\n    values: [\n      \"a\",\n      \"b\"\n  ]\nafter: 1\n",
            // A flow mapping closer, CRLF line ends.
            "reqs:\r\n  - key: x\r\n    values: {\r\n      a: 1,\r\n      b: 2\r\n    }\r\nafter: 1\r\n",
        ];
        for text in cases {
            let root = one(text);
            let values = root
                .get("reqs")
                .and_then(Node::as_seq)
                .and_then(|s| s.first())
                .and_then(|i| i.get("values"))
                .unwrap_or_else(|| panic!("{text:?}"));
            let n = values
                .as_seq()
                .map(<[Node]>::len)
                .or_else(|| values.as_map().map(<[(Node, Node)]>::len));
            assert_eq!(n, Some(2), "{text:?}");
            let after = root.get("after").expect("after");
            let at = text
                .find("1\r\n")
                .or_else(|| text.rfind("1\n"))
                .expect("one");
            assert_eq!(after.span.start, at, "{text:?}");
        }
        // A real indentation error is still one.
        let s = parse("a:\n  b: 1\n c: 2\n", Limits::default());
        assert!(s.error.is_some());
    }

    #[test]
    fn spans_point_at_scalars() {
        let text = "a: 'x'\nb:\n  - c: \"yé\"\n    d: plain\n";
        let root = one(text);
        let a = root.get("a").unwrap();
        assert_eq!(&text[a.span.start..a.span.end], "'x'");
        let c = root.path(&["b"]).unwrap().as_seq().unwrap()[0]
            .get("c")
            .unwrap();
        assert_eq!(&text[c.span.start..c.span.end], "\"yé\"");
        let d = root.path(&["b"]).unwrap().as_seq().unwrap()[0]
            .get("d")
            .unwrap();
        assert_eq!(&text[d.span.start..d.span.end], "plain");
        assert_eq!(d.as_scalar().unwrap().style, Style::Plain);
    }

    #[test]
    fn multi_document_and_duplicates() {
        let s = parse("a: 1\na: 2\n---\n---\nb: 3\n", Limits::default());
        assert_eq!(s.documents.len(), 3);
        let root = s.documents[0].root.as_ref().unwrap();
        assert_eq!(root.get("a").unwrap().text(), Some("2"));
        assert_eq!(root.as_map().unwrap().len(), 2);
    }

    #[test]
    fn alias_bomb_is_bounded() {
        let mut text = String::from("a: &a [x, x, x, x, x, x, x, x, x, x]\n");
        let mut prev = 'a';
        for name in 'b'..='k' {
            text.push_str(&format!(
                "{name}: &{name} [*{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}]\n"
            ));
            prev = name;
        }
        let s = parse(&text, Limits::default());
        assert!(matches!(s.error, Some(LoadError::ExcessiveAliasing { .. })));
    }

    /// Documents are handed over one at a time, each once: also when a flow closer is moved
    /// and the text parsed again after documents were handed over (#22); `false` stops.
    #[test]
    fn parse_each_hands_each_document_over_once() {
        let text = "a: 1\n---\nb: 2\n---\nreqs:\n  - key: x\n    values: [\n      \"a\",\n      \"b\"\n    ]\n---\nc: 3\n";
        let mut seen = Vec::new();
        let outcome = parse_each(text, 10, Limits::default(), &mut |d| {
            seen.push((d.index, d.span.start));
            true
        });
        assert!(outcome.error.is_none(), "{:?}", outcome.error);
        let starts: Vec<usize> = [
            0,
            text.find("---\nb").unwrap(),
            text.find("---\nreqs").unwrap(),
            text.find("---\nc").unwrap(),
        ]
        .iter()
        .map(|s| s + 10)
        .collect();
        assert_eq!(
            seen.iter().map(|(i, _)| *i).collect::<Vec<_>>(),
            [0, 1, 2, 3]
        );
        assert_eq!(seen.iter().map(|(_, s)| *s).collect::<Vec<_>>(), starts);
        let mut n = 0;
        let outcome = parse_each(text, 0, Limits::default(), &mut |_| {
            n += 1;
            n < 2
        });
        assert!(outcome.stopped && n == 2);
    }

    /// The alias budget is the file's: two documents of 60,000 alias nodes each go over it.
    #[test]
    fn alias_budget_spans_documents() {
        let doc = "a: &a [x, x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]\ne: [*d, *d, *d, *d]\n";
        let one = parse(doc, Limits::default());
        assert!(
            one.error.is_none() && one.alias_nodes > 50_000,
            "{}",
            one.alias_nodes
        );
        let two = parse(&format!("{doc}---\n{doc}"), Limits::default());
        assert_eq!(two.documents.len(), 1);
        assert!(matches!(
            two.error,
            Some(LoadError::ExcessiveAliasing { .. })
        ));
    }

    /// The floor is one: on every document of the real corpus and on flow, block and JSON
    /// text, it never exceeds what the tree costs.
    #[test]
    fn tree_cost_floor_is_below_the_cost() {
        let mut texts: Vec<String> = vec![
            "{\"a\": [1, 2, {\"b\": \"c, d: e\"}], \"f\": {}}\n".into(),
            "a: [1, 2]\nb: {c: d, e: [f, g]}\nh:\n  - i: j\n    k: l\n".into(),
            "k: |\n  a, b: c, [d], {e}\n# x: y, z\nl: [m]\n".into(),
            "[[], {}, [[]], {a: }]\n".into(),
        ];
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/corpus");
        for e in walkdir::WalkDir::new(root).into_iter().flatten() {
            if let Ok(text) = std::fs::read_to_string(e.path()) {
                texts.push(text);
            }
        }
        let mut checked = 0;
        for text in &texts {
            for r in crate::load::prescan::split_documents(text) {
                let chunk = &text[r];
                let s = parse(chunk, Limits::default());
                if s.error.is_some() {
                    continue;
                }
                let cost: usize = s
                    .documents
                    .iter()
                    .filter_map(|d| d.root.as_ref())
                    .map(Node::cost)
                    .sum();
                assert!(
                    tree_cost_floor(chunk) <= cost,
                    "{} > {cost}:\n{chunk}",
                    tree_cost_floor(chunk)
                );
                checked += 1;
            }
        }
        assert!(checked > 100, "{checked}");
    }

    #[test]
    fn deep_nesting_is_bounded() {
        let text = "[".repeat(100_000);
        let s = parse(&text, Limits::default());
        assert!(
            matches!(s.error, Some(LoadError::TooDeep { .. })),
            "{:?}",
            s.error
        );
    }
}
