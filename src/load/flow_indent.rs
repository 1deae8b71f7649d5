//! Flow collections' lines at any indentation, as go-yaml reads them. libyaml's scanner (which
//! go-yaml v2 ports, and kubectl reads with) checks no indentation inside a flow collection:
//! `yaml_parser_unroll_indent` and `yaml_parser_roll_indent` return at once while
//! `parser.flow_level` is not zero, and `yaml_parser_scan_to_next_token` skips tabs there
//! (gopkg.in/yaml.v2 `scannerc.go`). saphyr (YAML 1.2) requires the lines of a flow collection
//! inside a block collection to be indented more than it ("invalid indentation"; "tabs
//! disallowed within this context" for a tab at such a line's start). Where saphyr refuses a
//! line for that inside an open flow collection, the line's leading blanks become spaces that
//! indent it past the collection's opening bracket, and the text is parsed again; every
//! position of the stream is then mapped back to the original text.

use super::source::Span;
use super::yaml::{LoadError, Node, Stream, Value};

/// One edit: the blanks at `at` (in the edited text) were `old` bytes and are `new`.
#[derive(Clone, Copy, Debug)]
struct Edit {
    at: usize,
    old: usize,
    new: usize,
}

/// Is this error saphyr's refusal of a flow collection's line for its indentation?
fn refused_indent(error: &Option<LoadError>) -> Option<usize> {
    match error {
        Some(LoadError::Syntax { offset, message })
            if message == "invalid indentation"
                || message.starts_with("tabs disallowed within this context") =>
        {
            Some(*offset)
        }
        _ => None,
    }
}

/// `first` is `parse(text)`; when saphyr refused a line of a flow collection for its
/// indentation, every line inside a flow collection from there on is indented and the text
/// parsed again (see the module's text): one pass, or a few (at most [`MAX_PASSES`]) where
/// the scan and saphyr disagree on where a collection ends.
pub(super) fn mend(text: &str, first: Stream, parse: &dyn Fn(&str) -> Stream) -> Stream {
    if refused_indent(&first.error).is_none() {
        return first;
    }
    let first_error = first.error.as_ref().map_or(0, LoadError::offset);
    let mut stream = first;
    let mut edited = text.to_string();
    let mut edits: Vec<Edit> = Vec::new();
    for _ in 0..MAX_PASSES {
        let Some(at) = refused_indent(&stream.error) else {
            break;
        };
        let batch = reindent_collection(&edited, at, &edits);
        if batch.is_empty() {
            break;
        }
        // The pass costs the text it makes and parses: charged to the file's meter before
        // it is made (a collection opened far to the right indents every line after it that
        // far: the text may grow by its column for each line).
        let growth: u64 = batch.iter().map(|e| (e.new - e.old) as u64).sum();
        if !crate::util::work::charge((edited.len() as u64).saturating_add(growth)) {
            let at = remap_offset(&edits, at);
            return super::yaml::out_of_work(
                stream,
                first_error,
                at,
                "indenting a flow collection's lines",
            );
        }
        // The text rebuilt once, and every position after an edit moved by what the edits
        // before it added (earlier passes' edits too): linear in the text and the edits.
        let mut rebuilt = String::with_capacity(edited.len() + growth as usize);
        let mut from = 0;
        for edit in &batch {
            rebuilt.push_str(edited.get(from..edit.at).unwrap_or_default());
            rebuilt.extend(std::iter::repeat_n(' ', edit.new));
            from = edit.at + edit.old;
        }
        rebuilt.push_str(edited.get(from..).unwrap_or_default());
        edited = rebuilt;
        let mut grown = 0;
        let mut next_edit = batch.iter().copied().peekable();
        let mut moved = Vec::with_capacity(edits.len() + batch.len());
        for e in edits.iter().copied() {
            while let Some(n) = next_edit.next_if(|n| n.at < e.at) {
                moved.push(Edit {
                    at: n.at + grown,
                    ..n
                });
                grown += n.new - n.old;
            }
            moved.push(Edit {
                at: e.at + grown,
                ..e
            });
        }
        for n in next_edit {
            moved.push(Edit {
                at: n.at + grown,
                ..n
            });
            grown += n.new - n.old;
        }
        edits = moved;
        let next = parse(&edited);
        let stuck = refused_indent(&next.error) == Some(at);
        stream = next;
        if stuck {
            break;
        }
    }
    if edits.is_empty() {
        return stream;
    }
    remap(&mut stream, &edits);
    stream
}

/// Parses of the text, at most, after the first.
const MAX_PASSES: usize = 8;

/// The edits that indent every line inside a flow collection of the text, from the line
/// holding `at` on, past its outermost collection's opening bracket, with the blanks to write
/// (not a line of `done`, the earlier passes' edits: the blanks to write are `new` spaces);
/// none when that line lies in no flow collection. One scan of the text.
fn reindent_collection(text: &str, at: usize, done: &[Edit]) -> Vec<Edit> {
    let b = text.as_bytes();
    let at = at.min(b.len());
    let first = b[..at]
        .iter()
        .rposition(|&c| c == b'\n' || c == b'\r')
        .map_or(0, |i| i + 1);
    let mut scan = Scan::default();
    scan.run(b, first);
    if scan.depth == 0 {
        return Vec::new();
    }
    let mut out = Vec::new();
    let mut line = first;
    while line < b.len() {
        if scan.depth > 0 {
            let needed = scan.opener_col + 1;
            let content = line
                + b[line..]
                    .iter()
                    .take_while(|&&c| c == b' ' || c == b'\t')
                    .count();
            let old = content - line;
            let tabs = b[line..content].contains(&b'\t');
            let blank = matches!(b.get(content), Some(b'\n' | b'\r') | None);
            // (A line an earlier pass indented keeps that edit.)
            let edited = done.binary_search_by_key(&line, |e| e.at).is_ok();
            if !blank && !edited && (tabs || old < needed) {
                let new = needed.max(old);
                out.push(Edit { at: line, old, new });
            }
        }
        let next = memchr::memchr(b'\n', &b[line..]).map_or(b.len(), |e| line + e + 1);
        scan.run(b, next);
        line = next;
    }
    out
}

/// A scan for flow collections' brackets: brackets in quoted scalars, comments and block
/// scalars, and inside plain scalars (`a[1]`), do not count.
#[derive(Default)]
struct Scan {
    /// How far it has read.
    i: usize,
    /// Flow collections open.
    depth: usize,
    /// The column of the outermost open one's bracket.
    opener_col: usize,
    /// The current line's start.
    line_start: usize,
    /// While a block scalar's lines are skipped: the indentation of its parent line.
    block_scalar: Option<usize>,
    /// The last byte on this line that was no blank (0: none yet).
    last: u8,
}

impl Scan {
    /// Reads on to `upto` (a line's start, past where it is).
    fn run(&mut self, b: &[u8], upto: usize) {
        let upto = upto.min(b.len());
        let line_end = |i: usize| memchr::memchr(b'\n', &b[i..upto]).map_or(upto, |e| i + e);
        while self.i < upto {
            let i = self.i;
            let c = b[i];
            if c == b'\n' || c == b'\r' {
                self.i = i + 1;
                self.line_start = self.i;
                self.last = 0;
                // A block scalar's lines: those more indented than its parent line, or blank.
                if let Some(parent) = self.block_scalar {
                    let j = self.i;
                    let indent = b[j..].iter().take_while(|&&c| c == b' ').count();
                    let rest = b.get(j + indent).copied();
                    if indent > parent || matches!(rest, Some(b'\n' | b'\r') | None) {
                        self.i = line_end(j);
                        continue;
                    }
                    self.block_scalar = None;
                }
                continue;
            }
            if c == b' ' || c == b'\t' {
                self.i = i + 1;
                continue;
            }
            let token_start = matches!(self.last, 0 | b':' | b'-' | b'[' | b'{' | b',' | b'?');
            match c {
                b'#' if i == self.line_start || matches!(b[i - 1], b' ' | b'\t') => {
                    self.i = line_end(i);
                    continue;
                }
                b'"' | b'\'' if token_start => {
                    self.i = quoted_end(b, i, upto);
                    self.last = c;
                    continue;
                }
                b'|' | b'>' if self.depth == 0 && matches!(self.last, b':' | b'-') => {
                    self.block_scalar = Some(
                        b[self.line_start..i]
                            .iter()
                            .take_while(|&&c| c == b' ')
                            .count(),
                    );
                    self.i = line_end(i);
                    continue;
                }
                b'[' | b'{' if self.depth > 0 || token_start => {
                    if self.depth == 0 {
                        self.opener_col = i - self.line_start;
                    }
                    self.depth += 1;
                }
                b']' | b'}' if self.depth > 0 => self.depth -= 1,
                _ => {}
            }
            self.last = c;
            self.i = i + 1;
        }
    }
}

/// The offset after a quoted scalar that starts at `i` (`upto` at the latest).
fn quoted_end(b: &[u8], i: usize, upto: usize) -> usize {
    let q = b[i];
    let mut j = i + 1;
    while j < upto {
        match b[j] {
            b'\\' if q == b'"' => j += 2,
            c if c == q => {
                // `''` is a quote inside a single-quoted scalar.
                if q == b'\'' && b.get(j + 1) == Some(&b'\'') {
                    j += 2;
                } else {
                    return j + 1;
                }
            }
            _ => j += 1,
        }
    }
    upto
}

/// Each edit's start, and how much the text grew before it (see [`Back::offset`]).
struct Back(Vec<(usize, usize, Edit)>);

impl Back {
    fn new(edits: &[Edit]) -> Back {
        let mut grown = 0usize;
        Back(
            edits
                .iter()
                .map(|e| {
                    let before = grown;
                    grown += e.new - e.old;
                    (e.at, before, *e)
                })
                .collect(),
        )
    }

    /// An offset of the edited text as an offset of the original.
    fn offset(&self, q: usize) -> usize {
        let i = self.0.partition_point(|(at, _, _)| *at <= q);
        let Some(&(at, before, e)) = i.checked_sub(1).and_then(|i| self.0.get(i)) else {
            return q;
        };
        if q < at + e.new {
            // Inside the blanks: their start, or as far in as the original blanks went.
            at - before + (q - at).min(e.old)
        } else {
            q - before - (e.new - e.old)
        }
    }
}

/// An offset of the edited text as an offset of the original.
fn remap_offset(edits: &[Edit], q: usize) -> usize {
    Back::new(edits).offset(q)
}

/// Maps every position of the stream from the edited text back to the original.
fn remap(stream: &mut Stream, edits: &[Edit]) {
    let table = Back::new(edits);
    let back = |q: usize| table.offset(q);
    fn walk(n: &mut Node, back: &dyn Fn(usize) -> usize) {
        n.span = Span::new(back(n.span.start), back(n.span.end));
        match &mut n.value {
            Value::Scalar(_) => {}
            Value::Seq(items) => items.iter_mut().for_each(|c| walk(c, back)),
            Value::Map(entries) => entries.iter_mut().for_each(|(k, v)| {
                walk(k, back);
                walk(v, back);
            }),
        }
    }
    for d in &mut stream.documents {
        d.span = Span::new(back(d.span.start), back(d.span.end));
        if let Some(root) = &mut d.root {
            walk(root, &back);
        }
    }
    if let Some(e) = &mut stream.error {
        let at = back(e.offset());
        e.set_offset(at);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn open_at(t: &[u8], upto: usize) -> Option<usize> {
        let mut scan = Scan::default();
        scan.run(t, upto);
        (scan.depth > 0).then_some(scan.opener_col)
    }

    #[test]
    fn brackets_open_at_a_line() {
        let t = b"a: {\n b: c}\n";
        assert_eq!(open_at(t, 5), Some(3));
        // In a plain scalar, a quoted one, a comment, a block scalar: none.
        for t in [
            &b"a: x[1\nb: 2\n"[..],
            b"a: \"{\"\nb: 2\n",
            b"a: 1 # {\nb: 2\n",
            b"a: |\n  {\nb: 2\n",
        ] {
            let line = t.iter().position(|&c| c == b'\n').map_or(0, |i| i + 1);
            assert_eq!(open_at(t, line), None, "{}", String::from_utf8_lossy(t));
        }
    }

    #[test]
    fn positions_map_back() {
        let edits = [Edit {
            at: 5,
            old: 1,
            new: 4,
        }];
        let mut stream = Stream {
            documents: Vec::new(),
            error: Some(LoadError::Syntax {
                message: String::new(),
                offset: 10,
            }),
            alias_nodes: 0,
        };
        remap(&mut stream, &edits);
        assert_eq!(stream.error.map(|e| e.offset()), Some(7));
    }
}
