//! JSON streams, as kubectl reads them. apimachinery's `YAMLOrJSONDecoder` (what cli-runtime's
//! `StreamVisitor` reads every file and standard input with) peeks at the first 4,096 bytes of
//! the stream (`GuessJSONStream`): when the first character that is not white space
//! (`unicode.IsSpace`) is `{`, the stream is JSON, decoded by `encoding/json`'s `Decoder`: one
//! value after another, with only white space between them (JSON Lines, or values written one
//! after the other), each an object of its own; a `null` value is skipped. Reading stops at the
//! first syntax error. Anything else is YAML ([`super::yaml`], [`super::kubectl`]).
//!
//! Since Kubernetes 1.34 (apimachinery's "Better handling of YAML that tastes like JSON") the
//! decoder gives a stream that fails as JSON before its second value another chance as YAML,
//! from where the JSON it read ends ([`yaml_restart`]); earlier versions report the JSON
//! error.
//!
//! Values are read into the same [`Node`] tree the YAML reader makes, with their spans: strings
//! are double-quoted scalars (a JSON string is never a YAML 1.1 number or boolean), numbers,
//! `true`, `false` and `null` plain ones. The reader is iterative (no recursion, however deep
//! the input) and bounded by the same [`Limits`] as YAML.

use super::source::Span;
use super::yaml::{Document, Limits, LoadError, NODE_COST, Node, Scalar, Style, Value};

/// How far `GuessJSONStream` looks for the `{` (the `bufferSize` cli-runtime passes).
const PEEK: usize = 4096;

/// Whether kubectl reads `text` as a JSON stream: a `{` first, after white space, within the
/// first 4,096 bytes. A UTF-8 byte order mark at the start is not there for the decoder
/// (kubectl's input decoder drops it).
pub fn is_json_stream(text: &str) -> bool {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    // The first character that is not white space, if it starts within the peek (a `{` is
    // one byte: one that starts there is all there). Only the leading white space is read.
    text.char_indices()
        .take_while(|(at, _)| *at < PEEK)
        .find(|(_, c)| !c.is_whitespace())
        .is_some_and(|(_, c)| c == '{')
}

/// Where kubectl 1.34 and later read a JSON stream again as YAML after a JSON error, when it
/// had read at most one value: from `consumed` (the end of that value, or the start), past
/// white space up to and including the first line feed (`YAMLOrJSONDecoder.consumeWhitespace`).
pub fn yaml_restart(text: &str, consumed: usize) -> usize {
    let mut at = consumed.min(text.len());
    for c in text[at..].chars() {
        if !c.is_whitespace() {
            break;
        }
        at += c.len_utf8();
        if c == '\n' {
            break;
        }
    }
    at
}

/// How reading a JSON stream ended.
#[derive(Debug, Default)]
pub struct Outcome {
    /// The syntax error (or the limit) that ended it.
    pub error: Option<LoadError>,
    /// Values read (`null` ones included, as the decoder counts them).
    pub values: usize,
    /// Where the last value read ends (0 before the first).
    pub consumed: usize,
    /// The callback asked to stop.
    pub stopped: bool,
}

/// Reads the values of the JSON stream `text` one at a time, as `encoding/json`'s `Decoder`
/// does, handing each (not `null`) to `each` as a document of its own, spans in `text`; `each`
/// returns false to stop.
pub fn parse_each(text: &str, limits: Limits, each: &mut dyn FnMut(Document) -> bool) -> Outcome {
    let mut reader = Reader {
        b: text.as_bytes(),
        t: text,
        at: 0,
        limits,
        bytes: 0,
    };
    // The byte order mark kubectl's decoder dropped.
    if text.starts_with('\u{feff}') {
        reader.at = 3;
    }
    let mut out = Outcome::default();
    loop {
        reader.skip_space();
        if reader.at >= reader.b.len() {
            return out;
        }
        reader.bytes = 0;
        match reader.value() {
            Ok(node) => {
                out.values += 1;
                out.consumed = node.span.end;
                if node.is_null() {
                    continue;
                }
                let doc = Document {
                    index: out.values - 1,
                    span: node.span,
                    root: Some(node),
                    has_complex_key: false,
                    // JSON has no tags, and no `.inf`.
                    maybe_undecodable: false,
                };
                if !each(doc) {
                    out.stopped = true;
                    return out;
                }
            }
            Err(e) => {
                out.error = Some(e);
                return out;
            }
        }
    }
}

/// An open collection while reading.
enum Frame {
    Object {
        start: usize,
        entries: Vec<(Node, Node)>,
        key: Option<Node>,
    },
    Array {
        start: usize,
        items: Vec<Node>,
    },
}

struct Reader<'a> {
    b: &'a [u8],
    t: &'a str,
    at: usize,
    limits: Limits,
    /// What the value read so far costs ([`Node::cost`]).
    bytes: usize,
}

impl Reader<'_> {
    fn skip_space(&mut self) {
        while matches!(self.b.get(self.at), Some(b' ' | b'\t' | b'\r' | b'\n')) {
            self.at += 1;
        }
    }

    /// `encoding/json`'s syntax error at the byte at `at` (`unexpected EOF` at the end).
    fn error(&self, at: usize, context: &str) -> LoadError {
        match self.b.get(at) {
            Some(&c) => LoadError::Syntax {
                message: super::go_json::invalid(c, context),
                offset: at,
            },
            None => LoadError::Syntax {
                message: "unexpected EOF".to_string(),
                offset: self.b.len(),
            },
        }
    }

    fn charge(&mut self, cost: usize, start: usize) -> Result<(), LoadError> {
        self.bytes = self.bytes.saturating_add(cost);
        if self.bytes > self.limits.max_document_bytes {
            return Err(LoadError::TooLarge {
                offset: start,
                limit: self.limits.max_document_bytes,
            });
        }
        Ok(())
    }

    /// One value from `self.at` (not white space), with an explicit stack of open collections.
    fn value(&mut self) -> Result<Node, LoadError> {
        let start = self.at;
        let mut stack: Vec<Frame> = Vec::new();
        loop {
            // A value: a scalar, or the start of a collection.
            self.skip_space();
            let at = self.at;
            let node = match self.b.get(at) {
                Some(b'{') | Some(b'[') => {
                    if stack.len() >= self.limits.max_depth {
                        return Err(LoadError::TooDeep {
                            offset: at,
                            limit: self.limits.max_depth,
                        });
                    }
                    self.at += 1;
                    self.skip_space();
                    let object = self.b[at] == b'{';
                    let empty = self.b.get(self.at) == Some(if object { &b'}' } else { &b']' });
                    if empty {
                        self.at += 1;
                        self.charge(NODE_COST, start)?;
                        Some(Node {
                            span: Span::new(at, self.at),
                            value: if object {
                                Value::Map(Vec::new())
                            } else {
                                Value::Seq(Vec::new())
                            },
                        })
                    } else if object {
                        stack.push(Frame::Object {
                            start: at,
                            entries: Vec::new(),
                            key: None,
                        });
                        // Its first key.
                        let key = self.key()?;
                        if let Some(Frame::Object { key: slot, .. }) = stack.last_mut() {
                            *slot = Some(key);
                        }
                        None
                    } else {
                        stack.push(Frame::Array {
                            start: at,
                            items: Vec::new(),
                        });
                        None
                    }
                }
                Some(b'"') => {
                    let node = self.string()?;
                    self.charge(node.cost(), start)?;
                    Some(node)
                }
                Some(_) => {
                    let node = self.scalar()?;
                    self.charge(node.cost(), start)?;
                    Some(node)
                }
                None => return Err(self.error(at, "looking for beginning of value")),
            };
            let Some(mut node) = node else {
                // A collection opened: its first value (an object's after its key's `:`).
                continue;
            };
            // The value is complete: it goes into the open collection, which may close.
            loop {
                let Some(mut frame) = stack.pop() else {
                    return Ok(node);
                };
                self.skip_space();
                let at = self.at;
                let closed = match &mut frame {
                    Frame::Object { entries, key, .. } => {
                        if let Some(k) = key.take() {
                            entries.push((k, node));
                        }
                        match self.b.get(at) {
                            Some(b',') => {
                                self.at += 1;
                                *key = Some(self.key()?);
                                false
                            }
                            Some(b'}') => true,
                            _ => return Err(self.error(at, "after object key:value pair")),
                        }
                    }
                    Frame::Array { items, .. } => {
                        items.push(node);
                        match self.b.get(at) {
                            Some(b',') => {
                                self.at += 1;
                                false
                            }
                            Some(b']') => true,
                            _ => return Err(self.error(at, "after array element")),
                        }
                    }
                };
                if !closed {
                    stack.push(frame);
                    break;
                }
                self.at += 1;
                self.charge(NODE_COST, start)?;
                node = match frame {
                    Frame::Object {
                        start, mut entries, ..
                    } => {
                        super::yaml::trim(&mut entries);
                        Node {
                            span: Span::new(start, self.at),
                            value: Value::Map(entries),
                        }
                    }
                    Frame::Array { start, mut items } => {
                        super::yaml::trim(&mut items);
                        Node {
                            span: Span::new(start, self.at),
                            value: Value::Seq(items),
                        }
                    }
                };
            }
        }
    }

    /// An object's key and its `:`, from white space before it.
    fn key(&mut self) -> Result<Node, LoadError> {
        self.skip_space();
        if self.b.get(self.at) != Some(&b'"') {
            return Err(self.error(self.at, "looking for beginning of object key string"));
        }
        let key = self.string()?;
        self.skip_space();
        if self.b.get(self.at) != Some(&b':') {
            return Err(self.error(self.at, "after object key"));
        }
        self.at += 1;
        Ok(key)
    }

    /// A string from its opening quote, decoded as `encoding/json` decodes it (an unpaired
    /// surrogate escape is U+FFFD).
    fn string(&mut self) -> Result<Node, LoadError> {
        let start = self.at;
        let mut i = start + 1;
        let mut text = String::new();
        // Plain runs are copied whole.
        let mut run = i;
        loop {
            let Some(&c) = self.b.get(i) else {
                return Err(self.error(i, ""));
            };
            match c {
                b'"' => {
                    text.push_str(&self.t[run..i]);
                    self.at = i + 1;
                    return Ok(Node {
                        span: Span::new(start, self.at),
                        value: Value::Scalar(Scalar {
                            text: text.into_boxed_str(),
                            style: Style::DoubleQuoted,
                            tag: None,
                        }),
                    });
                }
                b'\\' => {
                    text.push_str(&self.t[run..i]);
                    let e = i + 1;
                    let decoded = match self.b.get(e) {
                        Some(b'"') => '"',
                        Some(b'\\') => '\\',
                        Some(b'/') => '/',
                        Some(b'b') => '\u{8}',
                        Some(b'f') => '\u{c}',
                        Some(b'n') => '\n',
                        Some(b'r') => '\r',
                        Some(b't') => '\t',
                        Some(b'u') => {
                            let first = self.hex4(e + 1)?;
                            i = e + 5;
                            let c = if (0xD800..0xDC00).contains(&first)
                                && self.b.get(i) == Some(&b'\\')
                                && self.b.get(i + 1) == Some(&b'u')
                            {
                                let second = self.hex4(i + 2)?;
                                if (0xDC00..0xE000).contains(&second) {
                                    i += 6;
                                    char::from_u32(
                                        0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00),
                                    )
                                } else {
                                    None
                                }
                            } else {
                                char::from_u32(first)
                            };
                            text.push(c.unwrap_or(char::REPLACEMENT_CHARACTER));
                            run = i;
                            continue;
                        }
                        Some(_) => return Err(self.error(e, "in string escape code")),
                        None => return Err(self.error(e, "")),
                    };
                    text.push(decoded);
                    i = e + 1;
                    run = i;
                }
                0x00..=0x1F => return Err(self.error(i, "in string literal")),
                _ => i += 1,
            }
        }
    }

    /// Four hexadecimal digits from `at`, as a code unit.
    fn hex4(&self, at: usize) -> Result<u32, LoadError> {
        let mut v = 0u32;
        for i in at..at + 4 {
            let Some(d) = self.b.get(i).and_then(|&c| char::from(c).to_digit(16)) else {
                return Err(self.error(i, "in \\u hexadecimal character escape"));
            };
            v = (v << 4) | d;
        }
        Ok(v)
    }

    /// A number, `true`, `false` or `null`.
    fn scalar(&mut self) -> Result<Node, LoadError> {
        let start = self.at;
        let b = self.b;
        let digits = |mut i: usize| {
            while b.get(i).is_some_and(u8::is_ascii_digit) {
                i += 1;
            }
            i
        };
        let end = match b.get(start) {
            Some(b't') => self.literal(start, "true")?,
            Some(b'f') => self.literal(start, "false")?,
            Some(b'n') => self.literal(start, "null")?,
            Some(b'-' | b'0'..=b'9') => {
                let mut i = start + usize::from(b[start] == b'-');
                match b.get(i) {
                    Some(b'0') => i += 1,
                    Some(b'1'..=b'9') => i = digits(i),
                    _ => return Err(self.error(i, "in numeric literal")),
                }
                if b.get(i) == Some(&b'.') {
                    if !b.get(i + 1).is_some_and(u8::is_ascii_digit) {
                        return Err(self.error(i + 1, "after decimal point in numeric literal"));
                    }
                    i = digits(i + 1);
                }
                if matches!(b.get(i), Some(b'e' | b'E')) {
                    i += 1;
                    if matches!(b.get(i), Some(b'+' | b'-')) {
                        i += 1;
                    }
                    if !b.get(i).is_some_and(u8::is_ascii_digit) {
                        return Err(self.error(i, "in exponent of numeric literal"));
                    }
                    i = digits(i);
                }
                i
            }
            _ => return Err(self.error(start, "looking for beginning of value")),
        };
        self.at = end;
        Ok(Node {
            span: Span::new(start, end),
            value: Value::Scalar(Scalar {
                text: self.t[start..end].into(),
                style: Style::Plain,
                tag: None,
            }),
        })
    }

    /// The literal `word` at `at`: its end, or the error at its first wrong character.
    fn literal(&self, at: usize, word: &str) -> Result<usize, LoadError> {
        for (i, want) in word.bytes().enumerate().skip(1) {
            if self.b.get(at + i) != Some(&want) {
                return Err(self.error(
                    at + i,
                    &format!("in literal {word} (expecting '{}')", char::from(want)),
                ));
            }
        }
        Ok(at + word.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> (Vec<Node>, Option<(usize, String)>) {
        let mut docs = Vec::new();
        let out = parse_each(text, Limits::default(), &mut |d| {
            docs.push(d.root.unwrap());
            true
        });
        let err = out.error.map(|e| match e {
            LoadError::Syntax { message, offset } => (offset, message),
            other => (other.offset(), format!("{other:?}")),
        });
        (docs, err)
    }

    #[test]
    fn detects_json_streams_as_kubectl() {
        assert!(is_json_stream("{}"));
        assert!(is_json_stream(" \n\t\u{a0}\u{2028}{\"a\": 1}"));
        assert!(is_json_stream("\u{feff}{}"));
        assert!(!is_json_stream("[{}]"));
        assert!(!is_json_stream("a: {}"));
        assert!(!is_json_stream(&format!("{}{{}}", " ".repeat(4096))));
        assert!(is_json_stream(&format!("{}{{}}", " ".repeat(4095))));
        // A wide space cut by the end of the peek: nothing past it is peeked at.
        assert!(!is_json_stream(&format!(
            "{}\u{3000}{{}}",
            " ".repeat(4094)
        )));
    }

    #[test]
    fn reads_values_one_after_another_with_spans() {
        let text = "{\"a\": [1, -2.5e3, true, null, \"x\\u00e9\\n\"]}\n{\"b\":{}}{\"c\":[]}\nnull\n\"s\" 7\n";
        let (docs, err) = read(text);
        assert_eq!(err, None);
        assert_eq!(docs.len(), 5);
        let a = docs[0].get("a").and_then(Node::as_seq).unwrap();
        assert_eq!(
            a.iter().map(|n| n.text().unwrap()).collect::<Vec<_>>(),
            ["1", "-2.5e3", "true", "null", "x\u{e9}\n"]
        );
        assert_eq!(&text[a[4].span.start..a[4].span.end], "\"x\\u00e9\\n\"");
        assert_eq!(a[4].as_scalar().unwrap().style, Style::DoubleQuoted);
        assert_eq!(&text[docs[1].span.start..docs[1].span.end], "{\"b\":{}}");
        assert_eq!(docs[3].text(), Some("s"));
        assert_eq!(docs[4].text(), Some("7"));
        assert_eq!(super::super::yaml::scalar_cost("s"), docs[3].cost());
    }

    #[test]
    fn surrogates_as_encoding_json_decodes_them() {
        let (docs, _) = read(r#"["\ud83d\ude00", "\ud83dx", "\ude00", "\u00"]"#);
        assert!(docs.is_empty());
        let (docs, _) = read(r#"["\ud83d\ude00", "\ud83dx", "\ude00"]"#);
        let s: Vec<&str> = docs[0]
            .as_seq()
            .unwrap()
            .iter()
            .map(|n| n.text().unwrap())
            .collect();
        assert_eq!(s, ["\u{1f600}", "\u{fffd}x", "\u{fffd}"]);
    }

    /// `encoding/json`'s messages, at the character they name (checked against kubectl 1.32's
    /// "error parsing FILE: json: offset N: …").
    #[test]
    fn errors_as_encoding_json_words_them() {
        for (text, at, message) in [
            (
                "{\"a\": 1,}",
                8,
                "invalid character '}' looking for beginning of object key string",
            ),
            (
                "{\"a\": [1,]}",
                9,
                "invalid character ']' looking for beginning of value",
            ),
            ("{\"a\" 1}", 5, "invalid character '1' after object key"),
            (
                "{\"a\": 1 \"b\": 2}",
                8,
                "invalid character '\"' after object key:value pair",
            ),
            ("[1 2]", 3, "invalid character '2' after array element"),
            (
                "{\"a\": \"x\ny\"}",
                8,
                "invalid character '\\n' in string literal",
            ),
            (
                "{\"a\": \"\\q\"}",
                8,
                "invalid character 'q' in string escape code",
            ),
            (
                "{\"a\": tru}",
                9,
                "invalid character '}' in literal true (expecting 'e')",
            ),
            (
                "{\"a\": 1.}",
                8,
                "invalid character '}' after decimal point in numeric literal",
            ),
            ("{\"a\": -}", 7, "invalid character '}' in numeric literal"),
            (
                "{\"a\": 1}\n---\n",
                10,
                "invalid character '-' in numeric literal",
            ),
            (
                "{\"a\": 1} x",
                9,
                "invalid character 'x' looking for beginning of value",
            ),
            ("{\"a\": ", 6, "unexpected EOF"),
            (
                "{'a': 1}",
                1,
                "invalid character '\\'' looking for beginning of object key string",
            ),
        ] {
            let (_, err) = read(text);
            assert_eq!(err, Some((at, message.to_string())), "{text:?}");
        }
    }

    #[test]
    fn limits_hold() {
        let deep = "[".repeat(300);
        let out = parse_each(&deep, Limits::default(), &mut |_| true);
        assert!(matches!(
            out.error,
            Some(LoadError::TooDeep { offset: 256, .. })
        ));
        let small = Limits {
            max_document_bytes: 1000,
            ..Limits::default()
        };
        let big = format!("[{}1]", "1,".repeat(100));
        let out = parse_each(&big, small, &mut |_| true);
        assert!(matches!(
            out.error,
            Some(LoadError::TooLarge { offset: 0, .. })
        ));
    }

    #[test]
    fn restarts_as_yaml_where_kubectl_does() {
        assert_eq!(yaml_restart("{}  \n  a: 1", 2), 5);
        assert_eq!(yaml_restart("{} x", 2), 3);
        assert_eq!(yaml_restart("{a: 1}", 0), 0);
    }
}
