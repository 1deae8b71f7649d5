//! A direct builder for the plain block YAML that Kubernetes manifests are written in: block
//! mappings and sequences, single-line plain and quoted scalars, literal and folded block
//! scalars, single-line flow collections and comments. It makes the same [`Node`] tree, with
//! the same spans, that [`super::yaml::parse`] makes from `saphyr-parser`'s events — several
//! times faster, because it reads lines instead of characters and builds nodes as it goes.
//!
//! It never reports an error: anything outside that subset or anything it is unsure of
//! (anchors, aliases, tags, tabs, CR, control characters, multi-line plain or quoted scalars,
//! multi-line flow collections, explicit keys, directives, indentation it did not expect)
//! makes it give up with `None`, and the caller parses the document with `saphyr-parser`,
//! which gives the exact node or the exact error. Tests compare the two on the real corpus,
//! on hand-written edge cases and on generated inputs.

use std::cell::Cell;

use super::source::Span;
use super::yaml::{
    Document, Limits, LoadError, NODE_COST, Node, Scalar, Stream, Style, Value, scalar_cost,
};

/// Gives up: the caller falls back to the full parser. Keeps where, for [`why_not`].
struct Bail(&'static std::panic::Location<'static>);

#[track_caller]
fn bail<T>() -> R<T> {
    Err(Bail(std::panic::Location::caller()))
}

type R<T> = Result<T, Bail>;

/// The first non-space character of a content line (or a position inside a line where a
/// compact collection starts), with its column; `pos == len` at the end of the text.
#[derive(Clone, Copy, Debug)]
struct Cur {
    pos: usize,
    col: usize,
}

struct Fast<'a> {
    s: &'a [u8],
    t: &'a str,
    depth: usize,
    max_depth: usize,
    /// False when only checking: nodes below the top level are left empty.
    build: bool,
    /// What the tree built so far costs ([`Node::cost`]), against [`Limits::max_document_bytes`].
    bytes: Cell<usize>,
    max_bytes: usize,
    /// A plain `.inf` or `.nan` was made ([`Document::maybe_undecodable`]; no tag is ever
    /// taken here).
    non_finite: Cell<bool>,
}

/// Runs the builder over one chunk: the document, or where it gave up.
fn run(chunk: &str, limits: Limits, build: bool) -> Result<Option<Document>, Bail> {
    run_counted(chunk, limits, build).0
}

/// [`run`], and whether the tree went over [`Limits::max_document_bytes`] (it gave up there).
fn run_counted(chunk: &str, limits: Limits, build: bool) -> (Result<Option<Document>, Bail>, bool) {
    if !plain_bytes(chunk.as_bytes()) {
        return (Err(Bail(std::panic::Location::caller())), false);
    }
    let mut fast = Fast {
        s: chunk.as_bytes(),
        t: chunk,
        depth: 0,
        max_depth: limits.max_depth.min(128),
        build,
        bytes: Cell::new(0),
        max_bytes: limits.max_document_bytes,
        non_finite: Cell::new(false),
    };
    let doc = fast.document();
    let over = fast.over();
    (doc, over)
}

/// Parses one document chunk (as [`super::prescan::split_documents`] cuts them) that starts
/// at byte `base` of its file, or `None` when the chunk needs the full parser. A document
/// whose tree would go over [`Limits::max_document_bytes`] is that error (at its start), as
/// it is for the parser.
pub fn parse_at(chunk: &str, base: usize, limits: Limits) -> Option<Stream> {
    let (doc, over) = run_counted(chunk, limits, true);
    if over {
        let mut stream = Stream::default();
        let at = super::yaml::first_content(chunk);
        stream.error = Some(LoadError::TooLarge {
            offset: base + at,
            limit: limits.max_document_bytes,
        });
        return Some(stream);
    }
    let doc = doc.ok()?;
    let mut stream = Stream::default();
    if let Some(mut doc) = doc {
        doc.span = Span::new(doc.span.start + base, doc.span.end + base);
        if let Some(root) = &mut doc.root {
            shift(root, base);
        }
        stream.documents.push(doc);
    }
    Some(stream)
}

/// Why the fast builder leaves a chunk to the parser: the line of this file that gave up
/// (`bytes` for characters it never takes), or `None` when it takes the chunk. For measuring
/// how much of a corpus it takes.
pub fn why_not(chunk: &str) -> Option<String> {
    if !plain_bytes(chunk.as_bytes()) {
        return Some("bytes".into());
    }
    run(chunk, Limits::default(), true)
        .err()
        .map(|Bail(at)| format!("line {}", at.line()))
}

/// Checks that a document chunk is plain block YAML the parser would accept, without
/// building it: the root comes back with its top-level entries (so its `kind` and
/// `apiVersion` can be read) and empty collections below them. `None` as for [`parse_at`].
pub fn check(chunk: &str, limits: Limits) -> Option<Node> {
    run(chunk, limits, false).ok()?.and_then(|d| d.root)
}

/// Printable characters and line feeds only: no tab, CR, control character, byte order mark,
/// Unicode line separator or non-character, whose handling is the parser's call.
fn plain_bytes(s: &[u8]) -> bool {
    let mut i = 0;
    while i < s.len() {
        let b = s[i];
        if (0x20..0x7f).contains(&b) || b == b'\n' {
            i += 1;
            continue;
        }
        match (b, s.get(i + 1), s.get(i + 2)) {
            // C1 controls and NEL: U+0080..U+009F.
            (0xc2, Some(0x80..=0x9f), _) => return false,
            // U+2028, U+2029.
            (0xe2, Some(0x80), Some(0xa8 | 0xa9)) => return false,
            // U+FEFF, U+FFFE, U+FFFF.
            (0xef, Some(0xbb), Some(0xbf)) | (0xef, Some(0xbf), Some(0xbe | 0xbf)) => {
                return false;
            }
            (0x80.., _, _) => i += 1,
            _ => return false,
        }
    }
    true
}

fn shift(node: &mut Node, by: usize) {
    node.span = Span::new(node.span.start + by, node.span.end + by);
    match &mut node.value {
        Value::Scalar(_) => {}
        Value::Seq(items) => items.iter_mut().for_each(|n| shift(n, by)),
        Value::Map(entries) => entries.iter_mut().for_each(|(k, v)| {
            shift(k, by);
            shift(v, by);
        }),
    }
}

/// A scalar's text, collected only when the builder keeps it.
struct Text {
    s: String,
    on: bool,
}

impl Text {
    fn push(&mut self, c: char) {
        if self.on {
            self.s.push(c);
        }
    }

    fn push_str(&mut self, t: &str) {
        if self.on {
            self.s.push_str(t);
        }
    }
}

fn is_blank_or_eol(b: u8) -> bool {
    matches!(b, b' ' | b'\n' | 0)
}

impl<'a> Fast<'a> {
    /// Whether nodes are built here: always when building, and at the top level of a
    /// document when only checking it (for its `kind` and `apiVersion`).
    fn keep(&self) -> bool {
        self.build || self.depth <= 1
    }

    fn text(&self) -> Text {
        Text {
            s: String::new(),
            on: self.keep(),
        }
    }

    /// Counts a node of `bytes` against the budget (only when building).
    fn charge(&self, bytes: usize) {
        if self.build {
            self.bytes.set(self.bytes.get().saturating_add(bytes));
        }
    }

    /// The tree went over the budget.
    fn over(&self) -> bool {
        self.bytes.get() > self.max_bytes
    }

    /// Closes a collection: counts its node, and gives up past the budget.
    fn collection(&self, span: Span, value: Value) -> R<Node> {
        self.charge(NODE_COST);
        if self.over() {
            return bail();
        }
        let value = match value {
            Value::Seq(mut items) => {
                super::yaml::trim(&mut items);
                Value::Seq(items)
            }
            Value::Map(mut entries) => {
                super::yaml::trim(&mut entries);
                Value::Map(entries)
            }
            v => v,
        };
        Ok(Node { span, value })
    }

    fn scalar(&self, span: Span, text: &str, style: Style) -> Node {
        if self.build {
            self.charge(scalar_cost(text));
        }
        if style == Style::Plain && super::yaml11::non_finite(text).is_some() {
            self.non_finite.set(true);
        }
        Node {
            span,
            value: Value::Scalar(Scalar {
                text: if self.keep() {
                    text.into()
                } else {
                    Box::default()
                },
                style,
                tag: None,
            }),
        }
    }

    /// The byte at `i`, or 0 past the end (the text holds no NUL).
    fn at(&self, i: usize) -> u8 {
        self.s.get(i).copied().unwrap_or(0)
    }

    fn line_end(&self, from: usize) -> usize {
        memchr::memchr(b'\n', self.s.get(from..).unwrap_or_default())
            .map_or(self.s.len(), |i| from + i)
    }

    fn line_start(&self, pos: usize) -> usize {
        memchr::memrchr(b'\n', self.s.get(..pos).unwrap_or_default()).map_or(0, |i| i + 1)
    }

    fn skip_spaces(&self, mut i: usize) -> usize {
        while self.at(i) == b' ' {
            i += 1;
        }
        i
    }

    /// From the start of a line, the next line with content (not blank, not only a comment).
    /// Document markers and directives inside the chunk give up.
    fn next_content(&self, mut line: usize) -> R<Cur> {
        while line < self.s.len() {
            let first = self.skip_spaces(line);
            match self.at(first) {
                b'\n' => line = first + 1,
                b'#' => line = self.line_end(first) + 1,
                0 => break,
                c => {
                    if first == line && matches!(c, b'-' | b'.' | b'%') && self.is_marker(line) {
                        // `...` ends the document; only comments may follow it here.
                        if c == b'.' && self.only_comments_after(line) {
                            break;
                        }
                        return bail();
                    }
                    return Ok(Cur {
                        pos: first,
                        col: first - line,
                    });
                }
            }
        }
        Ok(Cur {
            pos: self.s.len(),
            col: 0,
        })
    }

    /// After a `...` line at `line`: nothing but blank and comment lines (the line itself
    /// may end in a comment).
    fn only_comments_after(&self, line: usize) -> bool {
        let after = self.skip_spaces(line + 3);
        let mut next = match self.at(after) {
            b'\n' => after + 1,
            0 => return true,
            b'#' if after > line + 3 => self.line_end(after) + 1,
            _ => return false,
        };
        while next < self.s.len() {
            let first = self.skip_spaces(next);
            match self.at(first) {
                b'\n' => next = first + 1,
                b'#' => next = self.line_end(first) + 1,
                0 => return true,
                _ => return false,
            }
        }
        true
    }

    /// `---`, `...` or a `%` directive at the start of a line.
    fn is_marker(&self, line: usize) -> bool {
        let c = self.at(line);
        c == b'%'
            || ((c == b'-' || c == b'.')
                && self.at(line + 1) == c
                && self.at(line + 2) == c
                && is_blank_or_eol(self.at(line + 3)))
    }

    fn at_end(&self, cur: Cur) -> bool {
        cur.pos >= self.s.len()
    }

    /// After a node that ends mid-line: only spaces and a comment may follow on the line.
    /// Returns the next content line.
    fn end_of_line(&self, from: usize) -> R<Cur> {
        let i = self.skip_spaces(from);
        match self.at(i) {
            b'\n' => self.next_content(i + 1),
            0 => self.next_content(i),
            b'#' if i > from => self.next_content(self.line_end(i) + 1),
            _ => bail(),
        }
    }

    fn is_seq_entry(&self, pos: usize) -> bool {
        self.at(pos) == b'-' && is_blank_or_eol(self.at(pos + 1))
    }

    fn enter(&mut self) -> R<()> {
        self.depth += 1;
        if self.depth >= self.max_depth {
            return bail();
        }
        Ok(())
    }

    fn document(&mut self) -> R<Option<Document>> {
        // Leading blank and comment lines, then an optional `---` line.
        let mut line = 0;
        let mut marker = None;
        loop {
            let first = self.skip_spaces(line);
            match self.at(first) {
                b'\n' => line = first + 1,
                b'#' => line = self.line_end(first) + 1,
                0 => break,
                _ if first == line && self.at(line) == b'-' && self.is_marker(line) => {
                    if marker.is_some() {
                        return bail();
                    }
                    marker = Some(line);
                    // Only a comment may follow the marker on its line.
                    let after = self.skip_spaces(line + 3);
                    match self.at(after) {
                        b'\n' => line = after + 1,
                        0 => line = after,
                        b'#' if after > line + 3 => line = self.line_end(after) + 1,
                        _ => return bail(),
                    }
                }
                _ => break,
            }
        }
        let cur = self.next_content(line)?;
        if self.at_end(cur) {
            // Only comments: no document; a lone marker holds an empty one, a null scalar
            // at the end of the chunk (at a `...` token: the parser's call).
            let len = self.s.len();
            return match marker {
                None => Ok(None),
                Some(_)
                    if self.s.starts_with(b"...")
                        || memchr::memmem::find(self.s, b"\n...").is_some() =>
                {
                    bail()
                }
                Some(m) => Ok(Some(Document {
                    index: 0,
                    span: Span::new(m.min(len), len),
                    root: Some(self.scalar(Span::empty(len), "", Style::Plain)),
                    has_complex_key: false,
                    maybe_undecodable: false,
                })),
            };
        }
        // A root flow collection on one line (minified JSON, `kubectl get -o json | jq -c`).
        let (root, next) = if matches!(self.at(cur.pos), b'[' | b'{') {
            let (root, after) = self.flow(cur.pos)?;
            (root, self.end_of_line(after)?)
        } else {
            self.block_node(cur)?
        };
        if !self.at_end(next) {
            return bail();
        }
        let start = marker.unwrap_or(cur.pos);
        let end = root.span.end;
        Ok(Some(Document {
            index: 0,
            span: Span::new(start.min(end), end),
            root: Some(root),
            has_complex_key: false,
            maybe_undecodable: self.non_finite.get(),
        }))
    }

    /// A block mapping or sequence starting at `cur`.
    fn block_node(&mut self, cur: Cur) -> R<(Node, Cur)> {
        if self.is_seq_entry(cur.pos) {
            self.block_seq(cur, false)
        } else {
            self.block_map(cur)
        }
    }

    /// The value of an entry whose text starts on a deeper line: a block collection, or a
    /// scalar on its own lines.
    fn deeper_node(&mut self, cur: Cur, indent: usize) -> R<(Node, Cur)> {
        if self.is_seq_entry(cur.pos) || self.is_key_line(cur.pos) {
            self.block_node(cur)
        } else {
            self.inline_value(cur.pos, indent)
        }
    }

    fn block_map(&mut self, first: Cur) -> R<(Node, Cur)> {
        self.enter()?;
        let m = first.col;
        let mut entries: Vec<(Node, Node)> = Vec::new();
        let mut cur = first;
        let mut end;
        loop {
            let (key, colon) = self.key(cur.pos)?;
            let (value, next) = self.map_value(colon, m)?;
            end = key.span.end.max(value.span.end);
            if self.keep() {
                entries.push((key, value));
            }
            if self.over() {
                return bail();
            }
            if self.at_end(next) || next.col < m {
                cur = next;
                break;
            }
            if next.col > m || self.is_seq_entry(next.pos) {
                return bail();
            }
            cur = next;
        }
        self.depth -= 1;
        Ok((
            self.collection(
                Span::new(first.pos, end.max(first.pos)),
                Value::Map(entries),
            )?,
            cur,
        ))
    }

    /// A mapping key at `pos` on one line: the key node and the position of its `:`.
    fn key(&self, pos: usize) -> R<(Node, usize)> {
        let c = self.at(pos);
        let (node, after) = match c {
            b'"' | b'\'' => {
                let (node, after) = self.quoted(pos, None)?;
                (node, self.skip_spaces(after))
            }
            _ => {
                if !plain_start(c, self.at(pos + 1)) {
                    return bail();
                }
                let end = self.line_end(pos);
                let mut i = pos;
                loop {
                    match self.at(i) {
                        b':' if is_blank_or_eol(self.at(i + 1)) => break,
                        b'#' if self.at(i - 1) == b' ' => return bail(),
                        _ if i >= end => return bail(),
                        _ => i += 1,
                    }
                }
                let text = self.t[pos..i].trim_end_matches(' ');
                // A merge key is go-yaml's decoder's business: the parser's call.
                if text == "<<" {
                    return bail();
                }
                let node = self.scalar(Span::new(pos, pos + text.len()), text, Style::Plain);
                (node, i)
            }
        };
        if self.at(after) != b':' || !is_blank_or_eol(self.at(after + 1)) {
            return bail();
        }
        // Longer implicit keys are an error for the parser.
        if after - pos > 1000 {
            return bail();
        }
        Ok((node, after))
    }

    /// The value after the `:` at `colon` of an entry of the mapping at column `m`.
    fn map_value(&mut self, colon: usize, m: usize) -> R<(Node, Cur)> {
        let i = self.skip_spaces(colon + 1);
        match self.at(i) {
            b'\n' | 0 | b'#' => {
                let next = if self.at(i) == b'#' {
                    self.next_content(self.line_end(i) + 1)?
                } else if self.at(i) == 0 {
                    self.next_content(i)?
                } else {
                    self.next_content(i + 1)?
                };
                if !self.at_end(next) && next.col > m {
                    self.deeper_node(next, m)
                } else if !self.at_end(next) && next.col == m && self.is_seq_entry(next.pos) {
                    self.block_seq(next, true)
                } else {
                    Ok((self.scalar(Span::empty(colon), "", Style::Plain), next))
                }
            }
            _ => self.inline_value(i, m),
        }
    }

    /// A scalar, block scalar or flow collection that starts at `i`, inside a block
    /// collection whose indentation is `indent`.
    fn inline_value(&mut self, i: usize, indent: usize) -> R<(Node, Cur)> {
        let (node, next) = match self.at(i) {
            b'|' | b'>' => return self.block_scalar(i, indent),
            b'"' | b'\'' => {
                let (node, after) = self.quoted(i, Some(indent))?;
                (node, self.end_of_line(after)?)
            }
            b'[' | b'{' => {
                let (node, after) = self.flow(i)?;
                (node, self.end_of_line(after)?)
            }
            c => {
                if !plain_start(c, self.at(i + 1)) {
                    return bail();
                }
                self.plain(i, indent)?
            }
        };
        // Deeper lines after a scalar continue it (or are an error): the parser decides.
        if !self.at_end(next) && next.col > indent {
            return bail();
        }
        Ok((node, next))
    }

    /// A plain scalar from `i` in block context, over the deeper lines that continue it.
    fn plain(&self, i: usize, indent: usize) -> R<(Node, Cur)> {
        let mut text = self.text();
        let mut from = i;
        let mut end;
        loop {
            // One line of the scalar: up to a comment or the end of the line.
            let eol = self.line_end(from);
            let mut j = from;
            let mut comment = false;
            while j < eol {
                match self.s[j] {
                    b':' if is_blank_or_eol(self.at(j + 1)) => return bail(),
                    b'#' if j > from && self.s[j - 1] == b' ' => {
                        comment = true;
                        break;
                    }
                    _ => j += 1,
                }
            }
            let line = self.t[from..j].trim_end_matches(' ');
            text.push_str(line);
            end = from + line.len();
            if comment || eol >= self.s.len() {
                break;
            }
            // The next line with text continues the scalar when it is deeper; empty lines
            // between fold into line feeds.
            let mut next = eol + 1;
            let mut empty = 0;
            let first = loop {
                let first = self.skip_spaces(next);
                if self.at(first) == b'\n' {
                    empty += 1;
                    next = first + 1;
                } else {
                    break first;
                }
            };
            let c = self.at(first);
            if first - next <= indent || c == 0 || c == b'#' {
                break;
            }
            // Any character but a comment continues a plain scalar; `:` is left to the parser.
            if c == b':' {
                return bail();
            }
            if empty == 0 {
                text.push(' ');
            }
            for _ in 0..empty {
                text.push('\n');
            }
            from = first;
        }
        let node = self.scalar(Span::new(i, end), &text.s, Style::Plain);
        let next = self.next_content((self.line_end(end) + 1).min(self.s.len()))?;
        Ok((node, next))
    }

    fn block_seq(&mut self, first: Cur, indentless: bool) -> R<(Node, Cur)> {
        self.enter()?;
        let d = first.col;
        let mut items: Vec<Node> = Vec::new();
        let mut count = 0;
        let mut end;
        let mut start = first.pos;
        let mut cur = first;
        loop {
            let i = self.skip_spaces(cur.pos + 1);
            let (item, next) = match self.at(i) {
                b'\n' | 0 | b'#' => {
                    let eol = self.line_end(i);
                    let next = self.next_content((eol + 1).min(self.s.len()))?;
                    if count == 0 && indentless {
                        start = eol;
                    }
                    if !self.at_end(next) && next.col > d {
                        self.deeper_node(next, d)?
                    } else {
                        (self.scalar(Span::empty(eol), "", Style::Plain), next)
                    }
                }
                _ => {
                    if count == 0 && indentless {
                        start = i;
                    }
                    let here = Cur {
                        pos: i,
                        col: i - self.line_start(i),
                    };
                    if self.is_seq_entry(i) {
                        self.block_seq(here, false)?
                    } else if self.is_key_line(i) {
                        self.block_map(here)?
                    } else {
                        self.inline_value(i, d)?
                    }
                }
            };
            count += 1;
            end = item.span.end;
            if self.keep() {
                items.push(item);
            }
            if self.over() {
                return bail();
            }
            cur = next;
            if self.at_end(next) || next.col < d {
                break;
            }
            if next.col > d {
                return bail();
            }
            if !self.is_seq_entry(next.pos) {
                if indentless {
                    break;
                }
                return bail();
            }
        }
        self.depth -= 1;
        Ok((
            self.collection(Span::new(start, end.max(start)), Value::Seq(items))?,
            cur,
        ))
    }

    /// Whether the line from `pos` holds `key: ...` (a compact mapping in a sequence entry).
    fn is_key_line(&self, pos: usize) -> bool {
        let end = self.line_end(pos);
        let mut i = pos;
        match self.at(pos) {
            b'"' | b'\'' => {
                return self.quoted(pos, None).is_ok_and(|(_, after)| {
                    let a = self.skip_spaces(after);
                    self.at(a) == b':' && is_blank_or_eol(self.at(a + 1))
                });
            }
            b'[' | b'{' => return false,
            _ => {}
        }
        while i < end {
            match self.s[i] {
                b':' if is_blank_or_eol(self.at(i + 1)) => return true,
                b'#' if i > pos && self.s[i - 1] == b' ' => return false,
                _ => i += 1,
            }
        }
        false
    }

    /// A quoted scalar at `pos`: the node and the position after its closing quote. With
    /// `block = Some(indent)` it may run over several lines deeper than `indent`, folded as
    /// YAML folds them; keys and flow scalars stay on one line.
    fn quoted(&self, pos: usize, block: Option<usize>) -> R<(Node, usize)> {
        let double = self.at(pos) == b'"';
        let mut text = self.text();
        let mut i = pos + 1;
        let mut run = i;
        loop {
            match self.at(i) {
                0 => return bail(),
                b'\n' => {
                    let Some(indent) = block else {
                        return bail();
                    };
                    // Trailing spaces of the line go; an escape just before them is the
                    // parser's call.
                    let line = self.t[run..i].trim_end_matches(' ');
                    if line.len() < i - run && line.ends_with('\\') {
                        return bail();
                    }
                    text.push_str(line);
                    i = self.fold_break(i, indent, &mut text)?;
                    run = i;
                }
                b'\'' if !double => {
                    if self.at(i + 1) == b'\'' {
                        text.push_str(&self.t[run..=i]);
                        i += 2;
                        run = i;
                    } else {
                        break;
                    }
                }
                b'"' if double => break,
                b'\\' if double => {
                    text.push_str(&self.t[run..i]);
                    if self.at(i + 1) == b'\n' {
                        // An escaped line break joins the lines without a space.
                        if block.is_none() {
                            return bail();
                        }
                        let next = i + 2;
                        let first = self.skip_spaces(next);
                        if matches!(self.at(first), b'\n' | 0) {
                            return bail();
                        }
                        self.continuation_column(next, first, block)?;
                        i = first;
                    } else {
                        let (c, len) = self.escape(i + 1)?;
                        text.push(c);
                        i += 1 + len;
                    }
                    run = i;
                }
                _ => i += 1,
            }
        }
        text.push_str(&self.t[run..i]);
        let style = if double {
            Style::DoubleQuoted
        } else {
            Style::SingleQuoted
        };
        let span = Span::new(pos, i + 1);
        Ok((
            Node {
                span,
                value: Value::Scalar(Scalar {
                    text: text.s.into_boxed_str(),
                    style,
                    tag: None,
                }),
            },
            i + 1,
        ))
    }

    /// Folds the line break at `br` inside a multi-line flow scalar: one space, or a line
    /// feed for each empty line after it. Returns the first character of the next line with
    /// text, which must be deeper than `indent`.
    fn fold_break(&self, br: usize, indent: usize, text: &mut Text) -> R<usize> {
        let mut line = br + 1;
        let mut empty = 0;
        loop {
            let first = self.skip_spaces(line);
            match self.at(first) {
                b'\n' => {
                    empty += 1;
                    line = first + 1;
                }
                0 => return bail(),
                _ => {
                    self.continuation_column(line, first, Some(indent))?;
                    if empty == 0 {
                        text.push(' ');
                    }
                    for _ in 0..empty {
                        text.push('\n');
                    }
                    return Ok(first);
                }
            }
        }
    }

    /// A continuation line of a multi-line scalar must be deeper than its collection and
    /// must not be a document marker.
    fn continuation_column(&self, line: usize, first: usize, block: Option<usize>) -> R<()> {
        let Some(indent) = block else {
            return bail();
        };
        if first - line <= indent || (first == line && self.is_marker(line)) {
            return bail();
        }
        Ok(())
    }

    /// The character of the escape after a backslash at `i - 1`, and its length.
    fn escape(&self, i: usize) -> R<(char, usize)> {
        let simple = match self.at(i) {
            b'0' => '\0',
            b'a' => '\x07',
            b'b' => '\x08',
            b't' => '\t',
            b'n' => '\n',
            b'v' => '\x0b',
            b'f' => '\x0c',
            b'r' => '\r',
            b'e' => '\x1b',
            b' ' => ' ',
            b'"' => '"',
            // `\/` is YAML 1.2's; go-yaml (YAML 1.1) refuses it: the parser's call.
            b'/' => return bail(),
            b'\\' => '\\',
            b'N' => '\u{85}',
            b'_' => '\u{a0}',
            b'L' => '\u{2028}',
            b'P' => '\u{2029}',
            b'x' => return self.hex_escape(i + 1, 2),
            b'u' => return self.hex_escape(i + 1, 4),
            b'U' => return self.hex_escape(i + 1, 8),
            _ => return bail(),
        };
        Ok((simple, 1))
    }

    fn hex_escape(&self, from: usize, digits: usize) -> R<(char, usize)> {
        let hex = self
            .t
            .get(from..from + digits)
            .ok_or_else(|| Bail(std::panic::Location::caller()))?;
        if !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
            return bail();
        }
        let code =
            u32::from_str_radix(hex, 16).map_err(|_| Bail(std::panic::Location::caller()))?;
        let c = char::from_u32(code).ok_or_else(|| Bail(std::panic::Location::caller()))?;
        Ok((c, 1 + digits))
    }

    /// A flow collection that opens and closes on this line.
    fn flow(&mut self, pos: usize) -> R<(Node, usize)> {
        self.enter()?;
        let close = if self.at(pos) == b'[' { b']' } else { b'}' };
        let is_map = close == b'}';
        let mut items = Vec::new();
        let mut entries = Vec::new();
        let mut i = self.skip_spaces(pos + 1);
        loop {
            if self.at(i) == close {
                break;
            }
            if is_map {
                let (key, after) = self.flow_scalar(i, true)?;
                let a = self.skip_spaces(after);
                // A merge key, and a key that libyaml's simple-key limit makes no key: the
                // parser's call.
                if self.at(a) != b':'
                    || a - i > 1000
                    || self.t.get(key.span.start..key.span.end) == Some("<<")
                {
                    return bail();
                }
                // A plain key needs a space after its `:`; a quoted one may be followed
                // directly by the value, JSON-style.
                if key.as_scalar().is_some_and(|s| s.style == Style::Plain)
                    && self.at(a + 1) != b' '
                {
                    return bail();
                }
                let v = self.skip_spaces(a + 1);
                if matches!(self.at(v), b',' | b'}' | b'\n' | 0) {
                    return bail();
                }
                let (value, after) = self.flow_item(v)?;
                if self.keep() {
                    entries.push((key, value));
                }
                if self.over() {
                    return bail();
                }
                i = self.skip_spaces(after);
            } else {
                let (item, after) = self.flow_item(i)?;
                if self.keep() {
                    items.push(item);
                }
                if self.over() {
                    return bail();
                }
                i = self.skip_spaces(after);
                if self.at(i) == b':' {
                    return bail();
                }
            }
            match self.at(i) {
                b',' => i = self.skip_spaces(i + 1),
                c if c == close => break,
                _ => return bail(),
            }
        }
        self.depth -= 1;
        let span = Span::new(pos, i + 1);
        let value = if is_map {
            Value::Map(entries)
        } else {
            Value::Seq(items)
        };
        Ok((self.collection(span, value)?, i + 1))
    }

    fn flow_item(&mut self, i: usize) -> R<(Node, usize)> {
        match self.at(i) {
            b'[' | b'{' => self.flow(i),
            _ => self.flow_scalar(i, false),
        }
    }

    /// A quoted or plain scalar inside a flow collection.
    fn flow_scalar(&self, i: usize, key: bool) -> R<(Node, usize)> {
        let c = self.at(i);
        if c == b'"' || c == b'\'' {
            return self.quoted(i, None);
        }
        let next = self.at(i + 1);
        if !plain_start(c, next)
            || matches!(c, b'?' | b':')
            || (c == b'-' && matches!(next, b',' | b'[' | b']' | b'{' | b'}'))
        {
            return bail();
        }
        let mut j = i;
        loop {
            match self.at(j) {
                b',' | b']' | b'}' => break,
                b':' if key && self.at(j + 1) == b' ' => break,
                b':' | b'[' | b'{' | b'\n' | 0 => return bail(),
                // saphyr rejects `-` before a flow indicator anywhere in a flow scalar.
                b'-' if matches!(self.at(j + 1), b',' | b'[' | b']' | b'{' | b'}') => {
                    return bail();
                }
                b'#' if self.at(j - 1) == b' ' => return bail(),
                _ => j += 1,
            }
        }
        let text = self.t[i..j].trim_end_matches(' ');
        if text.is_empty() {
            return bail();
        }
        Ok((
            self.scalar(Span::new(i, i + text.len()), text, Style::Plain),
            i + text.len(),
        ))
    }

    /// A literal or folded block scalar whose header is at `pos`, in a block collection at
    /// indentation `indent`.
    fn block_scalar(&self, pos: usize, indent: usize) -> R<(Node, Cur)> {
        let literal = self.at(pos) == b'|';
        let mut i = pos + 1;
        let mut chomp = b' ';
        if matches!(self.at(i), b'+' | b'-') {
            chomp = self.at(i);
            i += 1;
        }
        if self.at(i).is_ascii_digit() {
            return bail();
        }
        let after = self.skip_spaces(i);
        let header_end = match self.at(after) {
            b'\n' => after,
            b'#' if after > i => self.line_end(after),
            _ => return bail(),
        };
        // Content lines: the first one with text fixes the indentation.
        let mut line = header_end + 1;
        let keep = self.keep();
        let mut lines: Vec<&str> = Vec::new();
        let mut k = 0;
        let mut start = 0;
        let mut end = self.s.len();
        while line < self.s.len() {
            let first = self.skip_spaces(line);
            let spaces = first - line;
            let eol = self.line_end(line);
            if first == eol {
                // A blank line: part of the scalar, unless more spaces than the content
                // indentation make it text (or an error before the indentation is known).
                // Spaces at the very end, with no line break: the parser's call.
                if k == 0 || spaces > k || eol == self.s.len() {
                    return bail();
                }
                if keep {
                    lines.push("");
                }
                line = eol + 1;
                continue;
            }
            if k == 0 {
                if spaces <= indent {
                    return bail();
                }
                k = spaces;
                start = first;
            }
            if spaces < k {
                end = first;
                break;
            }
            if !literal && spaces > k {
                return bail();
            }
            if keep {
                lines.push(&self.t[line + k..eol]);
            }
            line = eol + 1;
        }
        if k == 0 {
            return bail();
        }
        let trailing = lines.iter().rev().take_while(|l| l.is_empty()).count();
        let body = &lines[..lines.len() - trailing];
        let mut text = self.text();
        if literal {
            for (n, l) in body.iter().enumerate() {
                if n > 0 {
                    text.push('\n');
                }
                text.push_str(l);
            }
        } else {
            let mut empties = 0;
            for (n, l) in body.iter().enumerate() {
                if l.is_empty() {
                    empties += 1;
                    continue;
                }
                if n > 0 {
                    if empties == 0 {
                        text.push(' ');
                    }
                    for _ in 0..empties {
                        text.push('\n');
                    }
                }
                empties = 0;
                text.push_str(l);
            }
        }
        match chomp {
            b'-' => {}
            b'+' => {
                // Keeping the final line break of a scalar that ends the text without one
                // is the parser's call.
                if end == self.s.len() && self.s.last() != Some(&b'\n') {
                    return bail();
                }
                for _ in 0..=trailing {
                    text.push('\n');
                }
            }
            _ => text.push('\n'),
        }
        let style = if literal {
            Style::Literal
        } else {
            Style::Folded
        };
        let node = Node {
            span: Span::new(start, end),
            value: Value::Scalar(Scalar {
                text: text.s.into_boxed_str(),
                style,
                tag: None,
            }),
        };
        let next = if end == self.s.len() {
            Cur { pos: end, col: 0 }
        } else {
            self.next_content(self.line_start(end))?
        };
        if !self.at_end(next) && next.col > indent {
            return bail();
        }
        Ok((node, next))
    }
}

/// Whether a plain scalar may start with `c` (followed by `next`) in block context.
fn plain_start(c: u8, next: u8) -> bool {
    match c {
        b'-' | b'?' | b':' => !is_blank_or_eol(next),
        b',' | b'[' | b']' | b'{' | b'}' | b'#' | b'&' | b'*' | b'!' | b'|' | b'>' | b'\''
        | b'"' | b'%' | b'@' | b'`' | b' ' | b'\n' | 0 => false,
        _ => true,
    }
}
