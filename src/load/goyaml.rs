//! The YAML kubectl reads: `sigs.k8s.io/yaml` converts manifests with go-yaml v2
//! (`gopkg.in/yaml.v2` v2.4.0 semantics), a Go port of libyaml's reader and scanner that
//! reads a YAML 1.1 dialect. `saphyr-parser` (YAML 1.2) is stricter in some places and
//! looser in others; this module makes [`super::yaml::parse`] read what go-yaml reads (issue
//! 22, `tests/yaml_parity.rs`):
//!
//! - **accepted by go-yaml, refused by saphyr**: the text is edited before parsing, byte for
//!   byte (the same length and the same line breaks, so every span stays true), where saphyr
//!   says why it refuses: a tab between `key:` and its value, a comment right after a flow
//!   collection or a block scalar header (`[a]#c`, `|#c`), a comment line less indented than
//!   a block scalar's explicit indentation; a byte order mark inside the text becomes a
//!   private-use character while parsing and is put back in the scalars' text; a
//!   U+0085/U+2028/U+2029 line break ends a comment, as in go-yaml. A flow collection's lines
//!   may sit at any indentation or start with a tab: they are indented before parsing and the
//!   positions mapped back (`super::flow_indent`).
//! - **refused by go-yaml, accepted by saphyr**: a check of the parsed text gives go-yaml's
//!   error at its place: control characters, the `\/` escape, a line starting with a tab, a
//!   mapping key that is a collection, a flow mapping key over 1,024 characters.

use super::source::Span;
use super::yaml::{Document, LoadError, Node, Stream, Style, Value};

/// The parse of an edited text, by the caller's parser (with its own relaxations).
type Inner<'a> = &'a dyn Fn(&str) -> Stream;

/// Parses `text` as go-yaml reads it, with `inner` as the parser. `first_only`: as go-yaml's
/// `Unmarshal` reads one piece of a kubectl stream, only its first document (see
/// [`super::kubectl`]): the documents after it, and an error after it, are not read.
pub(super) fn parse(text: &str, inner: Inner<'_>, first_only: bool) -> Stream {
    let placeholder = bom_placeholder(text);
    let breaks = comment_breaks(text);
    let had_breaks = !breaks.is_empty();
    let mut stream = if placeholder.is_none() && breaks.is_empty() {
        inner(text)
    } else {
        let mut edited = text.as_bytes().to_vec();
        if let Some(p) = placeholder {
            replace_boms(&mut edited, p);
        }
        let mut breaks = breaks;
        let mut stream = parse_edited(&edited, inner, &breaks);
        // A line break inside a quoted scalar may make an error of the edited text (its next
        // line is less indented): the break nearest the error stays what it was, and the text
        // is parsed again — as often as there are breaks, each parse charged to the file's
        // meter (`util::work`), which bounds the whole.
        while !breaks.is_empty() {
            // (Only an error in a quoted scalar: any other is go-yaml's too, as a break ends
            // a comment there.)
            let Some(LoadError::Syntax {
                offset: at,
                message,
            }) = &stream.error
            else {
                break;
            };
            if !message.contains("quoted") {
                break;
            }
            let at = *at;
            // Only a break after the last document read can be the one to blame.
            let read = stream.documents.last().map_or(0, |d| d.span.end);
            let Some(i) = (0..breaks.len())
                .filter(|&i| breaks[i] >= read)
                .min_by_key(|&i| breaks[i].abs_diff(at))
            else {
                break;
            };
            breaks.remove(i);
            // Each retry parses the text again: charged to the file's meter.
            if !crate::util::work::charge(edited.len() as u64) {
                let first = stream.documents.last().map_or(0, |d| d.span.end);
                stream = super::yaml::out_of_work(
                    stream,
                    first,
                    at,
                    "a parse again for each U+0085, U+2028 or U+2029 line break",
                );
                break;
            }
            stream = parse_edited(&edited, inner, &breaks);
        }
        // A line break that saphyr took inside a block scalar stays what it was, and so does
        // an LS or PS inside a quoted one: go-yaml's `read_line` keeps those as they are, but
        // makes a NEL an LF, which folds as one.
        let mut wrong = inside_styles(&stream, &breaks, &|s| {
            matches!(s, Style::Literal | Style::Folded)
        });
        let ls_ps: Vec<usize> = breaks
            .iter()
            .copied()
            .filter(|&b| edited.get(b) == Some(&0xE2))
            .collect();
        wrong.extend(inside_quoted(&stream, &ls_ps));
        wrong.sort_unstable();
        wrong.dedup();
        if wrong.is_empty() || matches!(stream.error, Some(LoadError::OutOfWork { .. })) {
            stream
        } else if !crate::util::work::charge(edited.len() as u64) {
            let at = wrong.first().copied().unwrap_or(0);
            super::yaml::out_of_work(
                stream,
                at,
                at,
                "a parse again for each U+0085, U+2028 or U+2029 line break",
            )
        } else {
            let kept: Vec<usize> = breaks
                .into_iter()
                .filter(|b| wrong.binary_search(b).is_err())
                .collect();
            parse_edited(&edited, inner, &kept)
        }
    };
    if had_breaks {
        snap_to_chars(&mut stream, text);
    }
    if let Some(p) = placeholder {
        for d in &mut stream.documents {
            if let Some(root) = &mut d.root {
                restore_boms(root, p);
            }
        }
    }
    // What go-yaml reads of the text: up to the end of the first document, when only that one
    // is read.
    let (mut upto, mut checked) = (text.len(), text.len());
    if first_only && let Some(first) = stream.documents.first() {
        upto = super::kubectl::first_document_end(text, first.span.end);
        checked = super::kubectl::checked_up_to(text.len(), upto);
        stream.documents.truncate(1);
        stream.error = None;
    }
    // kubectl decodes a stream that starts with `{` as JSON (`NewYAMLOrJSONDecoder`'s
    // `hasJSONPrefix`, after leading white space): tabs and `\/` are fine there, and go-yaml's
    // scanner never sees it.
    if !text.trim_start().starts_with('{') {
        reject(text, upto, checked, &mut stream);
    }
    stream
}

/// Puts every offset of `stream` back on a character boundary of `text`. The edited text
/// made each NEL/LS/PS break spaces and an LF (see [`parse_edited`]), so the parser may
/// place an error or a node's end inside what is one character of the original: a start is
/// moved back to the break's first byte, an end forward past its last.
fn snap_to_chars(stream: &mut Stream, text: &str) {
    use crate::util::text::{ceil_char, floor_char};
    fn snap(node: &mut Node, text: &str) {
        node.span = Span::new(
            floor_char(text, node.span.start),
            ceil_char(text, node.span.end),
        );
        match &mut node.value {
            Value::Scalar(_) => {}
            Value::Seq(items) => items.iter_mut().for_each(|n| snap(n, text)),
            Value::Map(entries) => entries.iter_mut().for_each(|(k, v)| {
                snap(k, text);
                snap(v, text);
            }),
        }
    }
    for d in &mut stream.documents {
        d.span = Span::new(floor_char(text, d.span.start), ceil_char(text, d.span.end));
        if let Some(root) = &mut d.root {
            snap(root, text);
        }
    }
    if let Some(err) = &mut stream.error {
        let at = floor_char(text, err.offset());
        err.set_offset(at);
    }
}

/// Parses `text` with the line breaks at `breaks` made LFs (see [`comment_breaks`]).
fn parse_edited(text: &[u8], inner: Inner<'_>, breaks: &[usize]) -> Stream {
    let mut edited = text.to_vec();
    for &at in breaks {
        // U+0085 is 2 bytes, U+2028/U+2029 are 3: spaces, then the LF, so the next line
        // starts where go-yaml's does (column 0).
        let len = if edited.get(at) == Some(&0xC2) { 2 } else { 3 };
        for b in edited.iter_mut().skip(at).take(len - 1) {
            *b = b' ';
        }
        if let Some(b) = edited.get_mut(at + len - 1) {
            *b = b'\n';
        }
    }
    match String::from_utf8(edited) {
        Ok(t) => inner(&t),
        // Whole characters were replaced by ASCII: cannot happen.
        Err(_) => Stream::default(),
    }
}

/// The offsets of `breaks` (sorted) that lie inside a quoted or block scalar of the stream:
/// one walk, then a binary search per scalar.
pub(super) fn inside_quoted_or_block(stream: &Stream, breaks: &[usize]) -> Vec<usize> {
    inside_styles(stream, breaks, &|s| s != Style::Plain)
}

/// The offsets of `at` (sorted) that lie inside a quoted scalar of the stream.
pub(super) fn inside_quoted(stream: &Stream, at: &[usize]) -> Vec<usize> {
    inside_styles(stream, at, &|s| {
        matches!(s, Style::SingleQuoted | Style::DoubleQuoted)
    })
}

fn inside_styles(stream: &Stream, breaks: &[usize], which: &dyn Fn(Style) -> bool) -> Vec<usize> {
    fn walk(n: &Node, breaks: &[usize], which: &dyn Fn(Style) -> bool, out: &mut Vec<usize>) {
        match &n.value {
            Value::Scalar(s) => {
                if which(s.style) {
                    let from = breaks.partition_point(|&b| b < n.span.start);
                    let to = breaks.partition_point(|&b| b < n.span.end);
                    out.extend_from_slice(breaks.get(from..to).unwrap_or_default());
                }
            }
            Value::Seq(items) => items.iter().for_each(|c| walk(c, breaks, which, out)),
            Value::Map(entries) => entries.iter().for_each(|(k, v)| {
                walk(k, breaks, which, out);
                walk(v, breaks, which, out);
            }),
        }
    }
    let mut out = Vec::new();
    for root in stream.documents.iter().filter_map(|d| d.root.as_ref()) {
        walk(root, breaks, which, &mut out);
    }
    out.sort_unstable();
    out.dedup();
    out
}

/// go-yaml's line breaks besides CR and LF (`is_break`: NEL U+0085, LS U+2028, PS U+2029) end
/// a comment: the text after one is read as content. Their offsets, for [`parse`] to turn
/// into LFs where saphyr does not read them as part of a quoted or block scalar.
fn comment_breaks(text: &str) -> Vec<usize> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    for at in memchr::memchr2_iter(0xC2, 0xE2, b) {
        let is_break = match b[at] {
            0xC2 => b.get(at + 1) == Some(&0x85),
            _ => b.get(at + 1) == Some(&0x80) && matches!(b.get(at + 2), Some(0xA8 | 0xA9)),
        };
        if is_break {
            out.push(at);
        }
    }
    out
}

/// A byte order mark after the start of the text: go-yaml's reader drops only the one at the
/// start (`yaml_parser_determine_encoding`) and its scanner takes any other as an ordinary
/// character (`is_printable` is not asked), so `a: x\u{feff}y` is the string `x\u{feff}y`;
/// saphyr refuses one inside a document. While parsing, each is a private-use character the
/// text does not hold; `None` when there is none to replace.
fn bom_placeholder(text: &str) -> Option<char> {
    let bom = "\u{feff}";
    let rest = text.strip_prefix(bom).unwrap_or(text);
    memchr::memmem::find(rest.as_bytes(), bom.as_bytes())?;
    // (A text that holds the first 64 of them keeps its marks, which saphyr refuses.)
    ('\u{E000}'..='\u{E03F}').find(|c| !text.contains(*c))
}

fn replace_boms(text: &mut [u8], placeholder: char) {
    let mut p = [0u8; 4];
    let p = placeholder.encode_utf8(&mut p).as_bytes();
    let bom = "\u{feff}".as_bytes();
    let starts: Vec<usize> = memchr::memmem::find_iter(text, bom)
        .filter(|&i| i > 0)
        .collect();
    for i in starts {
        if let Some(dst) = text.get_mut(i..i + 3) {
            dst.copy_from_slice(p);
        }
    }
}

fn restore_boms(node: &mut Node, placeholder: char) {
    match &mut node.value {
        Value::Scalar(s) => {
            if s.text.contains(placeholder) {
                s.text = s.text.replace(placeholder, "\u{feff}").into_boxed_str();
            }
        }
        Value::Seq(items) => items.iter_mut().for_each(|n| restore_boms(n, placeholder)),
        Value::Map(entries) => entries.iter_mut().for_each(|(k, v)| {
            restore_boms(k, placeholder);
            restore_boms(v, placeholder);
        }),
    }
}

/// go-yaml refuses what saphyr read: the first such place becomes the stream's error (unless
/// saphyr's own comes first), and the documents from the one holding it on are dropped, as
/// parsing stops at an error.
///
/// go-yaml's scanner reads the text up to `upto`, its reader checks characters up to
/// `checked`.
fn reject(full: &str, upto: usize, checked: usize, stream: &mut Stream) {
    use crate::util::text::floor_char;
    // Past saphyr's own error nothing is reported: the text is looked at up to it.
    let error = stream
        .error
        .as_ref()
        .map_or(full.len(), LoadError::offset)
        .min(full.len());
    let text = full
        .get(..floor_char(full, error.min(upto)))
        .unwrap_or(full);
    let decoded = full
        .get(..floor_char(full, error.min(checked)))
        .unwrap_or(full);
    let mut first: Option<(usize, String)> = None;
    let mut found = |at: usize, message: String| {
        if first.as_ref().is_none_or(|(f, _)| at < *f) {
            first = Some((at, message));
        }
    };
    if let Some(at) = control_character(decoded) {
        found(
            at,
            "control characters are not allowed (go-yaml's reader refuses them anywhere)"
                .to_string(),
        );
    }
    let facts = Facts::of(text, &stream.documents);
    if let Some(at) = facts.slash_escape {
        found(
            at,
            "found unknown escape character while parsing a quoted scalar (`\\/` is not a YAML 1.1 escape; go-yaml refuses it)".to_string(),
        );
    }
    if let Some(at) = facts.line_tab {
        found(
            at,
            "found a tab character that violates indentation (go-yaml refuses a tab at the start of a line)".to_string(),
        );
    }
    if let Some(at) = facts.complex_key {
        found(
            at,
            "invalid map key: a sequence or mapping as a mapping key, which kubectl cannot decode"
                .to_string(),
        );
    }
    if let Some(at) = facts.long_key {
        found(
            at,
            "did not find expected ',' or '}' (a flow mapping key over 1024 characters is not a key to go-yaml)".to_string(),
        );
    }
    let Some((at, message)) = first else { return };
    if stream.error.as_ref().is_some_and(|e| e.offset() <= at) {
        return;
    }
    // kubectl cuts the stream at `---` lines and decodes each document alone: the document
    // that holds `at` (from its `---` to the next one, comments included) fails, and parsing
    // stops there.
    let cut = super::prescan::split_documents(full)
        .into_iter()
        .take_while(|r| r.start <= at)
        .last()
        .map_or(0, |r| r.start);
    stream.documents.retain(|d| d.span.end <= cut);
    stream.error = Some(LoadError::Syntax {
        message,
        offset: at,
    });
}

/// The first character go-yaml's reader refuses (`yaml_parser_update_buffer`: "control
/// characters are not allowed"): it takes tab, LF, CR, `#x20-#x7E`, NEL, `#xA0-#xD7FF`,
/// `#xE000-#xFFFD` and `#x10000-#x10FFFF`. (The loader has refused NUL already.)
fn control_character(text: &str) -> Option<usize> {
    let b = text.as_bytes();
    let mut i = 0;
    while i < b.len() {
        // Printable ASCII is skipped eight bytes at a time (no byte below 0x20, none with
        // the top bit, no 0x7F: a borrow or carry into a top bit tells); the rest byte by
        // byte.
        const LOW: u64 = 0x0101_0101_0101_0101;
        const HIGH: u64 = 0x8080_8080_8080_8080;
        while let Some(word) = b.get(i..i + 8) {
            let mut w = [0u8; 8];
            w.copy_from_slice(word);
            let w = u64::from_le_bytes(w);
            let below = w.wrapping_sub(LOW * 0x20) & !w & HIGH;
            let del_or_high = (w.wrapping_add(LOW) | w) & HIGH;
            if below | del_or_high != 0 {
                break;
            }
            i += 8;
        }
        let Some(&c) = b.get(i) else { break };
        match c {
            b'\t' | b'\n' | b'\r' | 0x20..=0x7E => i += 1,
            0x00..=0x1F | 0x7F => return Some(i),
            0xC2 if matches!(b.get(i + 1), Some(0x80..=0x84 | 0x86..=0x9F)) => return Some(i),
            0xEF if b.get(i + 1) == Some(&0xBF) && matches!(b.get(i + 2), Some(0xBE | 0xBF)) => {
                return Some(i);
            }
            _ => i += 1,
        }
    }
    None
}

/// What one walk over the parsed documents finds for [`reject`].
#[derive(Default)]
struct Facts {
    slash_escape: Option<usize>,
    line_tab: Option<usize>,
    complex_key: Option<usize>,
    long_key: Option<usize>,
}

impl Facts {
    fn of(text: &str, docs: &[Document]) -> Facts {
        let mut facts = Facts::default();
        let b = text.as_bytes();
        let slashes: Vec<usize> = memchr::memmem::find_iter(b, b"\\/").collect();
        let has_tab = memchr::memchr(b'\t', b).is_some();
        // The first tab in the indentation of each line that has one.
        let tabs: Vec<usize> = if has_tab { indent_tabs(b) } else { Vec::new() };
        let entry_tabs = if has_tab { entry_tabs(b) } else { Vec::new() };
        let complex = docs.iter().any(|d| d.has_complex_key);
        // A simple key does not span lines: a key over 1024 characters needs a longer line.
        let long = text.len() > 1024 && memchr::memchr(b'{', b).is_some() && {
            let mut last = 0;
            memchr::memchr_iter(b'\n', b)
                .chain(std::iter::once(b.len()))
                .any(|i| {
                    let long = i - last > 1024;
                    last = i;
                    long
                })
        };
        if slashes.is_empty() && tabs.is_empty() && entry_tabs.is_empty() && !complex && !long {
            return facts;
        }
        let mut spans = Spans {
            keep: [
                !slashes.is_empty() || !tabs.is_empty(),
                !tabs.is_empty() || !entry_tabs.is_empty(),
                !entry_tabs.is_empty(),
            ],
            ..Spans::default()
        };
        for root in docs.iter().filter_map(|d| d.root.as_ref()) {
            facts.walk(text, root, false, 0, &mut spans);
        }
        let mut tokens = std::mem::take(&mut spans.tokens);
        tokens.sort_unstable_by_key(|(s, _, _)| (s.start, s.end));
        let [quoted, flow, double, scalars] =
            [spans.quoted, spans.flow, spans.double, spans.scalars].map(union);
        // `\/` escapes: an odd run of backslashes before the `/`, in a double-quoted scalar
        // (go-yaml's `yaml_parser_scan_flow_scalar` knows no `/` escape; YAML 1.2 added it).
        facts.slash_escape = slashes.into_iter().find(|&at| {
            let run = b[..=at].iter().rev().take_while(|&&c| c == b'\\').count();
            run % 2 == 1 && covers(&double, at)
        });
        // A tab in a line's indentation, outside a quoted scalar and a flow collection (where
        // go-yaml's `yaml_parser_scan_to_next_token` skips tabs): go-yaml refuses it unless a
        // plain or block scalar takes it (see [`tab_refused`]).
        facts.line_tab = tabs
            .into_iter()
            .find(|&at| !covers(&quoted, at) && !covers(&flow, at) && tab_refused(b, &tokens, at));
        // A tab after a block sequence's `-`: a simple key may start there, so
        // `yaml_parser_scan_to_next_token` does not skip it ("found character that cannot
        // start any token").
        if let Some(at) = entry_tabs
            .into_iter()
            .find(|&at| !covers(&scalars, at) && !covers(&flow, at))
        {
            facts.line_tab = Some(facts.line_tab.map_or(at, |t| t.min(at)));
        }
        facts
    }

    fn walk(&mut self, text: &str, n: &Node, in_flow: bool, indent: usize, spans: &mut Spans) {
        let opens_flow = matches!(text.as_bytes().get(n.span.start), Some(b'[' | b'{'))
            && !matches!(n.value, Value::Scalar(_));
        if opens_flow {
            Spans::push(&mut spans.flow, spans.keep[1], n.span);
        }
        let in_flow = in_flow || opens_flow;
        // A block collection's children are held to its column + 1 (libyaml's
        // `parser.indent + 1`); only worked out when a tab check needs it.
        let inner = if spans.keep[1] && !in_flow && !matches!(n.value, Value::Scalar(_)) {
            column(text, n.span.start) + 1
        } else {
            indent
        };
        match &n.value {
            Value::Scalar(s) => {
                Spans::push(&mut spans.scalars, spans.keep[2], n.span);
                // (An empty plain scalar was never a token, whatever span saphyr gives it.)
                let empty = s.style == Style::Plain && s.text.is_empty();
                if spans.keep[1] && !in_flow && !empty {
                    let held = match s.style {
                        Style::Literal | Style::Folded => column(text, n.span.start),
                        _ => indent,
                    };
                    spans.tokens.push((n.span, s.style, held));
                }
                match s.style {
                    Style::DoubleQuoted => {
                        Spans::push(&mut spans.quoted, spans.keep[0], n.span);
                        Spans::push(&mut spans.double, spans.keep[0], n.span);
                    }
                    Style::SingleQuoted => Spans::push(&mut spans.quoted, spans.keep[0], n.span),
                    _ => {}
                }
            }
            Value::Seq(items) => {
                for c in items {
                    self.walk(text, c, in_flow, inner, spans);
                }
            }
            Value::Map(entries) => {
                for (k, v) in entries {
                    // go-yaml's decoder: "invalid map key" for a sequence or mapping key
                    // (`decoder.mapping`).
                    if !matches!(k.value, Value::Scalar(_)) && self.complex_key.is_none() {
                        self.complex_key = Some(k.span.start);
                    }
                    if in_flow && self.long_key.is_none() {
                        self.long_key = long_flow_key(text, k, v);
                    }
                    self.walk(text, k, in_flow, inner, spans);
                    self.walk(text, v, in_flow, inner, spans);
                }
            }
        }
    }
}

/// Spans of the parsed tree, by kind (aliases repeat theirs).
#[derive(Default)]
struct Spans {
    quoted: Vec<Span>,
    double: Vec<Span>,
    flow: Vec<Span>,
    scalars: Vec<Span>,
    /// Scalars with what a tab in a line's indentation needs: plain (`true`) or not, and the
    /// indentation go-yaml's scanner holds them to (a plain scalar: its block collection's
    /// column + 1; a block scalar: its content's column; a quoted one: none).
    tokens: Vec<(Span, Style, usize)>,
    /// Only what a check needs is kept (a large tree has millions of scalars): quoted and
    /// double-quoted spans, flow collections, all scalars.
    keep: [bool; 3],
}

impl Spans {
    fn push(list: &mut Vec<Span>, keep: bool, span: Span) {
        if keep {
            list.push(span);
        }
    }
}

/// The column (bytes from its line's start) of `at`.
fn column(text: &str, at: usize) -> usize {
    let b = text.as_bytes();
    let at = at.min(b.len());
    at - b[..at]
        .iter()
        .rposition(|&c| c == b'\n' || c == b'\r')
        .map_or(0, |i| i + 1)
}

/// The first tab among the blanks that start each line (one pass over the line starts).
fn indent_tabs(b: &[u8]) -> Vec<usize> {
    let starts = std::iter::once(0).chain(memchr::memchr2_iter(b'\n', b'\r', b).map(|i| i + 1));
    let mut out = Vec::new();
    for line in starts {
        let mut i = line;
        while b.get(i) == Some(&b' ') {
            i += 1;
        }
        if b.get(i) == Some(&b'\t') {
            out.push(i);
        }
    }
    out
}

/// Whether go-yaml refuses the tab at `at`, the first in its line's indentation (outside
/// quoted scalars and flow collections). Its scanner takes such a tab only where it eats
/// blanks at or past the indentation it holds the text to: inside a plain scalar, or after
/// one with only blanks and comments between (`yaml_parser_scan_plain_scalar`: "found a tab
/// character that violates indentation" before it), inside a block scalar at or past its
/// content's column (`yaml_parser_scan_block_scalar_breaks`: "found a tab character where an
/// indentation space is expected"). After any other token a new line may start a simple key,
/// and `yaml_parser_scan_to_next_token` leaves the tab, which starts no token.
fn tab_refused(b: &[u8], tokens: &[(Span, Style, usize)], at: usize) -> bool {
    let line = b[..at]
        .iter()
        .rposition(|&c| c == b'\n' || c == b'\r')
        .map_or(0, |i| i + 1);
    let col = at - line;
    // The last scalar that starts before the tab.
    let i = tokens.partition_point(|(s, _, _)| s.start < at);
    let Some(&(span, style, held)) = i.checked_sub(1).and_then(|i| tokens.get(i)) else {
        return true;
    };
    let plain = style == Style::Plain;
    if at < span.end {
        // Inside it.
        return matches!(style, Style::Plain | Style::Literal | Style::Folded) && col < held;
    }
    // After it: only blanks and comments between, and a plain scalar.
    let between = b.get(span.end..line).unwrap_or_default();
    let quiet = between.split(|&c| c == b'\n' || c == b'\r').all(|l| {
        let t = l.iter().position(|&c| c != b' ' && c != b'\t');
        t.is_none_or(|t| l[t] == b'#')
    });
    !(plain && quiet && col >= held)
}

/// The spans as sorted, disjoint ranges (nested flow collections and aliased nodes merge).
fn union(mut spans: Vec<Span>) -> Vec<Span> {
    spans.sort_unstable();
    let mut out: Vec<Span> = Vec::with_capacity(spans.len());
    for s in spans {
        match out.last_mut() {
            Some(last) if s.start <= last.end => last.end = last.end.max(s.end),
            _ => out.push(s),
        }
    }
    out
}

/// Whether `at` lies strictly inside one of the disjoint `ranges`.
fn covers(ranges: &[Span], at: usize) -> bool {
    let i = ranges.partition_point(|s| s.start < at);
    i.checked_sub(1)
        .and_then(|i| ranges.get(i))
        .is_some_and(|s| at < s.end)
}

/// Tabs in the blanks after a `-` that starts a line's content (after its indentation and any
/// `- ` before it): a block sequence entry, unless a scalar or flow collection holds it. One
/// pass over each line's start.
fn entry_tabs(b: &[u8]) -> Vec<usize> {
    let mut out = Vec::new();
    if memchr::memchr(b'\t', b).is_none() {
        return out;
    }
    let starts = std::iter::once(0).chain(memchr::memchr2_iter(b'\n', b'\r', b).map(|i| i + 1));
    for line in starts {
        let mut i = line;
        while b.get(i) == Some(&b' ') {
            i += 1;
        }
        while b.get(i) == Some(&b'-') && matches!(b.get(i + 1), Some(b' ' | b'\t')) {
            let run = i + 1;
            let mut j = run;
            while matches!(b.get(j), Some(b' ' | b'\t')) {
                j += 1;
            }
            if let Some(t) = b[run..j].iter().position(|&c| c == b'\t') {
                out.push(run + t);
                break;
            }
            i = j;
        }
    }
    out
}

/// A flow mapping key whose `:` is more than 1024 characters after its start: libyaml's
/// `yaml_parser_stale_simple_keys` drops such a simple key (`simple_key.mark.index+1024 <
/// parser.mark.index`), and the `:` is then an error. The offset of that `:`.
fn long_flow_key(text: &str, key: &Node, value: &Node) -> Option<usize> {
    if key.span.len() < 1000 {
        return None;
    }
    // The `:` sits between the key and its value (a key without one has none).
    let between = text.get(key.span.end..value.span.start)?;
    let colon = key.span.end + between.find(':')?;
    let chars = text.get(key.span.start..colon)?.chars().count();
    (chars > 1024).then_some(colon)
}

#[cfg(test)]
mod tests {
    /// The word-at-a-time scan finds what a byte-by-byte one finds, wherever it is.
    #[test]
    fn control_characters_anywhere() {
        let bad = [
            "\u{0}", "\u{1}", "\u{1f}", "\u{7f}", "\u{80}", "\u{9f}", "\u{fffe}", "\u{ffff}",
        ];
        let good = [
            "\t", "\n", "\r", " ", "~", "\u{85}", "\u{a0}", "é", "\u{feff}", "\u{fffd}",
        ];
        for pad in 0..20 {
            let prefix = "a".repeat(pad);
            for c in bad {
                let text = format!("{prefix}{c}xyz\n");
                assert_eq!(super::control_character(&text), Some(pad), "{text:?}");
            }
            for c in good {
                let text = format!("{prefix}{c}{prefix}{c}xyz\n");
                assert_eq!(super::control_character(&text), None, "{text:?}");
            }
        }
    }
}

/// Mends a quoted scalar, at its opening quote `at`, that saphyr refuses and go-yaml reads
/// (`yaml_parser_scan_flow_scalar` in go-yaml v2's `scannerc.go`):
///
/// - its continuation lines may sit at any indentation, even at its key's or at column 0
///   (go-yaml checks only for a document indicator at column 0 and the end of the stream
///   before each line): a published manifest's JSON annotation in single quotes, or the CNI
///   config of Calico's and the OpenTelemetry operator's release manifests, a double-quoted
///   scalar whose continuation lines start with an escape (`\n`, `\t`, `\u00e9`); saphyr
///   says "invalid indentation in quoted scalar" (YAML 1.2 holds them to the block's
///   indentation);
/// - `\'` is an escape to go-yaml (a single quote), not to YAML 1.2 (saphyr: "found unknown
///   escape character").
///
/// The scalar's line breaks become spaces and each `\'` becomes `\"` (saphyr reads one line,
/// offsets stay true, only the scalar's text changes), and its original text goes to
/// `quoted`, for [`refold_quoted`] to give the scalar its text as go-yaml reads it. False
/// where go-yaml refuses the scalar too (an escape it does not know, a document indicator at
/// the start of a continuation line, no closing quote) or where joining its lines would make
/// a key of it (go-yaml's simple keys do not span lines).
pub(super) fn mend_quoted(text: &mut String, at: usize, quoted: &mut Vec<(usize, String)>) -> bool {
    let b = text.as_bytes();
    let Some(&quote) = b.get(at) else {
        return false;
    };
    if quote != b'\'' && quote != b'"' {
        return false;
    }
    let double = quote == b'"';
    // The closing quote (`''` is an escaped quote in a single-quoted scalar, `\x` any escape
    // in a double-quoted one).
    let mut end = None;
    let mut i = at + 1;
    while let Some(&c) = b.get(i) {
        if c == b'\\' && double {
            i += 2;
            continue;
        }
        if c == quote {
            if !double && b.get(i + 1) == Some(&b'\'') {
                i += 2;
                continue;
            }
            end = Some(i + 1);
            break;
        }
        i += 1;
    }
    let Some(end) = end else { return false };
    // The scan to the closing quote, and the copy: charged to the file's meter (the bulk
    // mends scan from many places).
    if !crate::util::work::charge((end - at) as u64) {
        return false;
    }
    let Some(original) = text.get(at..end).map(str::to_string) else {
        return false;
    };
    let multi_line = original.contains(['\n', '\r']);
    let escaped_quote = double && original.contains("\\'");
    if !multi_line && !escaped_quote {
        return false;
    }
    // go-yaml refuses it too: an unknown escape, or `---`/`...` starting a continuation line.
    let indicator = original
        .split(['\n', '\r'])
        .skip(1)
        .any(|l| (l.starts_with("---") || l.starts_with("...")) && is_blankz_at(l, 3));
    if indicator || fold_flow(&original, !double).is_none() {
        return false;
    }
    // A key: go-yaml's simple keys stay on one line.
    if multi_line {
        let after = b[end..].iter().find(|&&c| c != b' ' && c != b'\t');
        if after == Some(&b':') {
            return false;
        }
    }
    let mut bytes = std::mem::take(text).into_bytes();
    let mut i = at + 1;
    while i + 1 < end {
        match bytes[i] {
            b'\n' | b'\r' => bytes[i] = b' ',
            b'\\' if double => {
                match bytes[i + 1] {
                    b'\'' => bytes[i + 1] = b'"',
                    // An escaped line break: an escaped space to saphyr.
                    b'\n' | b'\r' => bytes[i + 1] = b' ',
                    _ => {}
                }
                i += 1;
            }
            _ => {}
        }
        i += 1;
    }
    // Only ASCII bytes were replaced by ASCII bytes: still UTF-8.
    *text = String::from_utf8(bytes).unwrap_or_default();
    quoted.push((at, original));
    true
}

/// After [`mend_quoted`] mended the scalar saphyr refused, mends in one scan the quoted
/// scalars after `from` that saphyr would refuse one at a time (a CRD bundle of an older
/// controller-gen has hundreds of single-quoted descriptions whose continuation lines sit at
/// their key's indentation; one parse per scalar ran out of the passes a file gets, and the
/// file was said to be broken where kubectl reads it). A candidate is a quoted scalar that
/// starts a mapping value or a sequence item (`key: '…`, `- "…`), does not close on its line,
/// and whose next line is indented no deeper than its key — outside a block scalar (a line
/// after `key: |` or `>` indented deeper than it is the block's text). Each is recorded in
/// `bulk` with its original text; the tree confirms or undoes each (see
/// `yaml::undo_unfounded`). Bytes are replaced by bytes of the same length: offsets stay true.
///
/// `escapes`: the candidates are instead the double-quoted scalars that hold go-yaml's `\'`
/// escape (saphyr: "unknown escape character") on their first line — a generated file may
/// have one in every value, and each would cost a parse of the document.
pub(super) fn mend_quoted_after(
    text: &mut String,
    from: usize,
    escapes: bool,
    bulk: &mut Vec<(usize, String)>,
) {
    // The candidates first (the scan reads the text as it was).
    let mut candidates = Vec::new();
    {
        let b = text.as_bytes();
        let start = memchr::memchr(b'\n', b.get(from..).unwrap_or_default())
            .map_or(b.len(), |i| from + i + 1);
        let mut block: Option<usize> = None;
        let mut line_start = start;
        while line_start < b.len() {
            let line_end =
                memchr::memchr(b'\n', &b[line_start..]).map_or(b.len(), |i| line_start + i);
            let line = &b[line_start..line_end];
            let indent = line.iter().take_while(|&&c| c == b' ').count();
            let blank = line[indent..].iter().all(|c| c.is_ascii_whitespace());
            if let Some(block_indent) = block {
                if blank || indent > block_indent {
                    line_start = line_end + 1;
                    continue;
                }
                block = None;
            }
            let rest = &line[indent..];
            let rest = rest.strip_prefix(b"- ").unwrap_or(rest);
            let value = match memchr::memmem::find(rest, b": ") {
                Some(i) if !rest[..i].iter().any(|c| matches!(c, b'\'' | b'"' | b'#')) => {
                    &rest[i + 2..]
                }
                _ if rest.len() < line.len() - indent => rest,
                _ => &[][..],
            };
            let value_trim = value.trim_ascii_start();
            let value_at = line_end - value.len() + (value.len() - value_trim.len());
            match value_trim.first() {
                Some(b'|' | b'>') => block = Some(indent),
                Some(b'"') if escapes => {
                    // The scalar's part on this line (all of it, when it closes here).
                    let on_line = closing_quote(&value_trim[1..], b'"')
                        .map_or(&value_trim[1..], |end| &value_trim[1..1 + end]);
                    if memchr::memmem::find(on_line, b"\\'").is_some() {
                        candidates.push(value_at);
                    }
                }
                Some(_) if escapes => {}
                Some(&q @ (b'\'' | b'"')) => {
                    let next_indent = b
                        .get(line_end + 1..)
                        .map(|n| n.iter().take_while(|&&c| c == b' ').count());
                    if !closes_on_line(&value_trim[1..], q)
                        && next_indent.is_some_and(|n| n <= indent)
                    {
                        candidates.push(value_at);
                    }
                }
                _ => {}
            }
            line_start = line_end + 1;
        }
    }
    for at in candidates {
        let mut one = Vec::new();
        if mend_quoted(text, at, &mut one) {
            bulk.extend(one);
        }
    }
}

/// Does a quoted scalar opened by `q` close on this line (`rest`: the line after the quote)?
fn closes_on_line(rest: &[u8], q: u8) -> bool {
    closing_quote(rest, q).is_some()
}

/// Where a quoted scalar opened by `q` closes on this line (`rest`: the line after the
/// quote), if it does.
fn closing_quote(rest: &[u8], q: u8) -> Option<usize> {
    let mut i = 0;
    while let Some(&c) = rest.get(i) {
        if q == b'"' && c == b'\\' {
            i += 2;
            continue;
        }
        if c == q {
            if q == b'\'' && rest.get(i + 1) == Some(&b'\'') {
                i += 2;
                continue;
            }
            return Some(i);
        }
        i += 1;
    }
    None
}

/// Whether `s` has a blank, a line break or nothing at byte `at`.
fn is_blankz_at(s: &str, at: usize) -> bool {
    matches!(
        s.as_bytes().get(at),
        None | Some(b' ' | b'\t' | b'\r' | b'\n')
    )
}

/// Gives each scalar [`mend_quoted`] mended its text as go-yaml reads the original.
pub(super) fn refold_quoted(stream: &mut Stream, quoted: &[(usize, String)]) {
    /// The mended scalars by where they start (the first of one place, as a search would
    /// find): looked up per scalar, not searched.
    type ByStart<'a> = std::collections::HashMap<usize, &'a str>;
    fn walk(n: &mut Node, quoted: &ByStart<'_>) {
        match &mut n.value {
            Value::Scalar(s) => {
                if matches!(s.style, Style::SingleQuoted | Style::DoubleQuoted)
                    && let Some(raw) = quoted.get(&n.span.start)
                    && let Some(folded) = fold_flow(raw, s.style == Style::SingleQuoted)
                {
                    s.text = folded.into_boxed_str();
                }
            }
            Value::Seq(items) => items.iter_mut().for_each(|c| walk(c, quoted)),
            Value::Map(entries) => entries.iter_mut().for_each(|(k, v)| {
                walk(k, quoted);
                walk(v, quoted);
            }),
        }
    }
    if quoted.is_empty() {
        return;
    }
    let mut by_start = ByStart::with_capacity(quoted.len());
    for (at, raw) in quoted {
        by_start.entry(*at).or_insert(raw.as_str());
    }
    for root in stream.documents.iter_mut().filter_map(|d| d.root.as_mut()) {
        walk(root, &by_start);
    }
}

/// The text of a quoted scalar (`raw` with its quotes) as go-yaml's
/// `yaml_parser_scan_flow_scalar` reads it: runs of non-blank characters with their escapes
/// decoded (`''` in single quotes; in double quotes YAML 1.1's escapes, `\'` among them, and
/// `\` before a line break, which joins the lines without a space); blanks at the end and the
/// start of a line dropped; a line break folded to a space, or to a line feed for each empty
/// line after it (an LS or PS stays itself). `None` where go-yaml refuses it: an unknown
/// escape, a hexadecimal escape that is not one or not a character.
fn fold_flow(raw: &str, single: bool) -> Option<String> {
    let inner = raw.get(1..raw.len().saturating_sub(1)).unwrap_or("");
    let chars: Vec<char> = inner.chars().collect();
    let is_blank = |c: char| c == ' ' || c == '\t';
    let is_break = |c: char| matches!(c, '\r' | '\n' | '\u{85}' | '\u{2028}' | '\u{2029}');
    // go-yaml's `read_line`: CR LF, CR, LF and NEL are a line feed; LS and PS stay.
    let read_line = |i: &mut usize, out: &mut String| {
        match chars[*i] {
            '\r' if chars.get(*i + 1) == Some(&'\n') => {
                *i += 1;
                out.push('\n');
            }
            '\r' | '\n' | '\u{85}' => out.push('\n'),
            c => out.push(c),
        }
        *i += 1;
    };
    let mut out = String::with_capacity(inner.len());
    let (mut leading_break, mut trailing_breaks, mut whitespaces) =
        (String::new(), String::new(), String::new());
    let mut i = 0;
    loop {
        // Non-blank characters.
        let mut leading_blanks = false;
        while let Some(&c) = chars.get(i) {
            if is_blank(c) || is_break(c) {
                break;
            }
            let next = chars.get(i + 1).copied();
            if single && c == '\'' && next == Some('\'') {
                out.push('\'');
                i += 2;
            } else if !single && c == '\\' && next.is_some_and(is_break) {
                // An escaped line break.
                i += 1;
                let mut skipped = String::new();
                read_line(&mut i, &mut skipped);
                leading_blanks = true;
                break;
            } else if !single && c == '\\' {
                let len = match next? {
                    'x' => 2,
                    'u' => 4,
                    'U' => 8,
                    e => {
                        out.push(match e {
                            '0' => '\0',
                            'a' => '\x07',
                            'b' => '\x08',
                            't' | '\t' => '\t',
                            'n' => '\n',
                            'v' => '\x0b',
                            'f' => '\x0c',
                            'r' => '\r',
                            'e' => '\x1b',
                            ' ' => ' ',
                            '"' => '"',
                            '\'' => '\'',
                            '\\' => '\\',
                            'N' => '\u{85}',
                            '_' => '\u{a0}',
                            'L' => '\u{2028}',
                            'P' => '\u{2029}',
                            _ => return None,
                        });
                        i += 2;
                        continue;
                    }
                };
                let digits = chars.get(i + 2..i + 2 + len)?;
                let mut value = 0u32;
                for d in digits {
                    value = (value << 4) | d.to_digit(16)?;
                }
                out.push(char::from_u32(value)?);
                i += 2 + len;
            } else {
                out.push(c);
                i += 1;
            }
        }
        if i >= chars.len() {
            break;
        }
        // Blanks and line breaks.
        while let Some(&c) = chars.get(i) {
            if is_blank(c) {
                if !leading_blanks {
                    whitespaces.push(c);
                }
                i += 1;
            } else if is_break(c) {
                if leading_blanks {
                    read_line(&mut i, &mut trailing_breaks);
                } else {
                    whitespaces.clear();
                    read_line(&mut i, &mut leading_break);
                    leading_blanks = true;
                }
            } else {
                break;
            }
        }
        // Join them.
        if leading_blanks {
            if leading_break.starts_with('\n') {
                if trailing_breaks.is_empty() {
                    out.push(' ');
                } else {
                    out.push_str(&trailing_breaks);
                }
            } else {
                out.push_str(&leading_break);
                out.push_str(&trailing_breaks);
            }
            leading_break.clear();
            trailing_breaks.clear();
        } else {
            out.push_str(&whitespaces);
            whitespaces.clear();
        }
    }
    Some(out)
}

#[cfg(test)]
mod fold_tests {
    use super::fold_flow;

    fn fold(raw: &str, single: bool) -> String {
        fold_flow(raw, single).unwrap_or_else(|| "REFUSED".to_string())
    }

    #[test]
    fn folds_as_go_yaml() {
        assert_eq!(fold("'a  \n    b'", true), "a b");
        assert_eq!(fold("'a\n\n  b'", true), "a\nb");
        assert_eq!(fold("'it''s\n x '", true), "it's x ");
        assert_eq!(fold("\"[\n  {\n  }\n]\"", false), "[ { } ]");
        assert_eq!(fold("'a\r\n\r\n\r\nb'", true), "a\n\nb");
        // An LS as the line break stays itself.
        assert_eq!(fold("'a\u{2028}b'", true), "a\u{2028}b");
    }

    /// go-yaml v2's escapes (`yaml_parser_scan_flow_scalar`), `\'` among them, and the
    /// escaped line break, which joins without a space and drops the next line's indentation.
    #[test]
    fn decodes_escapes_as_go_yaml() {
        assert_eq!(
            fold(
                r#""\x41\u00e9\U0001F600\N\_\L\P\e\0\ \	\a\b\v\f\r\"\'\\""#,
                false
            ),
            "A\u{e9}\u{1f600}\u{85}\u{a0}\u{2028}\u{2029}\u{1b}\0 \t\x07\x08\x0b\x0c\r\"'\\"
        );
        assert_eq!(
            fold("\"{\\n  \\\"a\\\",\\n\n  \\\"b\\\"}\"", false),
            "{\n  \"a\",\n \"b\"}"
        );
        assert_eq!(fold("\"a\\\n   b\"", false), "ab");
        assert_eq!(fold("\"a\\\n\n  b\"", false), "a\nb");
        assert_eq!(fold("\"a \\\n b\"", false), "a b");
        // Single quotes have no escapes.
        assert_eq!(fold(r"'\n\'", true), r"\n\");
        for bad in [
            r#""\/""#,
            r#""\q""#,
            r#""\xZZ""#,
            r#""\uD800""#,
            r#""\U00110000""#,
            r#""\u12""#,
        ] {
            assert_eq!(fold(bad, false), "REFUSED", "{bad}");
        }
    }
}
