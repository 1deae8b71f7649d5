//! Parsing a `.tf` file as Terraform does, with one difference from hcl-edit's parser: a key
//! repeated in an object constructor (`{ min_size = 1, min_size = 2 }`).
//!
//! - HCL's object constructor keeps the last value of a repeated key, with no diagnostic
//!   (`ObjectConsExpr.Value` in hashicorp/hcl `hclsyntax/expression.go` stores each key's value
//!   in turn; hashicorp/terraform#28727 asks for a warning). hcl-edit rejects the file ("unique
//!   object key; found redefined object key"). Here the repeated key is renamed to a key of the
//!   same length the object does not have, and the file parsed again (every position stays
//!   the same); the evaluator reads the renamed key under its own name, so the last value wins
//!   as in Terraform, and the repeats are reported (`duplicate-key`).
//! - A repeated *attribute* in a body (a block's `min_size = 1` twice) is an error in Terraform
//!   too ("Attribute redefined", `hclsyntax/parser.go`): it stays a syntax error.
//! - A `for` expression's repeated key is Terraform's error when the key is evaluated
//!   ("Duplicate object key", `ForExpr.Value`): see `eval`.
//!
//! Each repeat costs a parse of the file: past [`MAX_REPARSES`] (or as many bytes parsed as
//! [`MAX_BYTES`]) the file is reported as not read.

use std::collections::HashMap;

use hcl_edit::Span as _;
use hcl_edit::expr::{Object, ObjectKey};
use hcl_edit::structure::Body;
use hcl_edit::visit::{Visit, visit_object};

use super::HclError;
use crate::load::Span;

/// Repeated keys one file may have.
const MAX_REPARSES: usize = 200;
/// Bytes all the parses of one file may read together (beyond the first parse).
const MAX_BYTES: usize = 64 << 20;

/// A parsed file.
pub(super) struct Parsed {
    pub(super) body: Body,
    /// Renamed repeated keys: the start of the key in the text → the key's own name.
    pub(super) renamed: HashMap<usize, String>,
    /// Each repeated key: (the earlier key, whose value is dropped; the repeat, which wins; the
    /// key).
    pub(super) repeats: Vec<(Span, Span, String)>,
    /// A `.tf.json` file's: the positions of the text made from it (which `body` holds) in
    /// the JSON file (see `json`).
    pub(super) map: Option<super::json::SpanMap>,
    /// A `.tf.json` file's strings that are not valid templates (JSON spans).
    pub(super) problems: Vec<(Span, String)>,
}

impl Parsed {
    /// A span of `body` as a span of the file.
    pub(super) fn file_span(&self, s: Span) -> Span {
        match &self.map {
            Some(m) => m.span(s),
            None => s,
        }
    }
}

/// Is `name` a file Terraform reads as JSON (`*.tf.json`)?
pub fn is_json(name: &str) -> bool {
    name.ends_with(".tf.json")
}

/// Parses a Terraform file by its name: the native syntax, or the JSON syntax (see `json`;
/// its errors at the JSON file's positions).
pub(super) fn parse_file(name: &str, text: &str) -> Result<Parsed, HclError> {
    if !is_json(name) {
        return parse(text);
    }
    let made = super::json::make(text)?;
    match parse(&made.text) {
        Ok(mut p) => {
            p.map = Some(made.map);
            p.problems = made.problems;
            Ok(p)
        }
        // Not expected: the made text is native syntax taintlint wrote.
        Err(e) => Err(HclError {
            message: e.message,
            at: made.map.offset(e.at),
            limit: e.limit,
        }),
    }
}

/// The most keys one object constructor may have. hcl-edit keeps an object's items in a
/// vector-backed map and looks each new key up in it, so parsing an object costs the square of
/// its size (40,000 keys: 16 s; issue 36). A larger object is refused before parsing, with a
/// clear finding, after a scan that costs the file's length.
pub(super) const MAX_OBJECT_KEYS: usize = 5_000;

/// Parses `text` (see the module's text).
pub(super) fn parse(text: &str) -> Result<Parsed, HclError> {
    if let Some((at, keys)) = largest_object(text).filter(|(_, n)| *n > MAX_OBJECT_KEYS) {
        return Err(HclError {
            message: format!(
                "an object of about {keys} keys; taintlint reads objects of up to {MAX_OBJECT_KEYS} keys (the HCL parser's work grows with the square of an object's size)"
            ),
            at,
            limit: true,
        });
    }
    let mut work: Option<String> = None;
    let mut renamed: HashMap<usize, String> = HashMap::new();
    let mut tries_here: (usize, u32) = (usize::MAX, 0);
    let mut parsed_bytes = 0usize;
    let mut parses = 0usize;
    loop {
        parses += 1;
        let current = work.as_deref().unwrap_or(text);
        let err = match hcl_edit::parser::parse_body(current) {
            Ok(body) => {
                let repeats = if renamed.is_empty() {
                    Vec::new()
                } else {
                    repeats(&body, &renamed)
                };
                return Ok(Parsed {
                    body,
                    renamed,
                    repeats,
                    map: None,
                    problems: Vec::new(),
                });
            }
            Err(e) => e,
        };
        let at = err.location().offset();
        let error = HclError {
            message: err.message().to_string(),
            at,
            limit: false,
        };
        if !err.message().contains("redefined object key") {
            return Err(error);
        }
        parsed_bytes += current.len();
        if renamed.len() >= MAX_REPARSES || parsed_bytes > MAX_BYTES || parses > 4 * MAX_REPARSES {
            return Err(HclError {
                message: format!(
                    "more repeated object keys than taintlint reads in one file ({}); Terraform keeps the last value of each",
                    renamed.len()
                ),
                at,
                limit: true,
            });
        }
        // The same place again: the new name was taken too; try the next one.
        let attempt = if tries_here.0 == at {
            tries_here.1 + 1
        } else {
            0
        };
        tries_here = (at, attempt);
        let unread = || {
            HclError {
            message: "a repeated object key taintlint cannot read (Terraform keeps the last value of a repeated key)".to_string(),
            at,
            limit: true,
        }
        };
        let Some((len, name)) = key_at(current, at) else {
            return Err(unread());
        };
        let original = renamed.get(&at).cloned().unwrap_or(name);
        let Some(replacement) = placeholder(current, at, len, attempt + renamed.len() as u32)
        else {
            return Err(unread());
        };
        let mut next = current.to_string();
        next.replace_range(at..at + len, &replacement);
        renamed.insert(at, original);
        work = Some(next);
    }
}

/// The bytes [`largest_object`] looks at.
const SPECIAL: [bool; 256] = {
    let mut t = [false; 256];
    let mut i = 0;
    let bytes = b"#/\"<{}()[]=:";
    while i < bytes.len() {
        t[bytes[i] as usize] = true;
        i += 1;
    }
    t
};

/// The start and the number of keys of the object constructor with the most keys (`{ … }`
/// after `=`, `(`, `[`, `,`, `:`, `?` or `{`, not a block's body), counted as the `=` and `:`
/// at its own level: one pass over the text, skipping comments, strings and heredocs. An
/// estimate (a conditional's `:` counts too), enough to bound the parse.
pub(super) fn largest_object(text: &str) -> Option<(usize, usize)> {
    scan_objects(text, true)
}

/// [`largest_object`]'s scan; `skip`: pass over the bytes it does not look at in one step
/// (off, byte by byte: the reference the tests compare it with).
fn scan_objects(text: &str, skip: bool) -> Option<(usize, usize)> {
    let b = text.as_bytes();
    // Open brackets: (is an object, start, keys so far); `(` and `[` too, never objects.
    let mut stack: Vec<(bool, usize, usize)> = Vec::new();
    let mut best: Option<(usize, usize)> = None;
    let mut last = b'\n';
    let mut i = 0;
    while i < b.len() {
        // Past the bytes that are none of the ones below (most of a file), keeping the last
        // that is not white space.
        let from = i;
        while skip && i < b.len() && !SPECIAL[b[i] as usize] {
            i += 1;
        }
        if let Some(&c) = b[from..i].iter().rev().find(|c| !c.is_ascii_whitespace()) {
            last = c;
        }
        let Some(&c) = b.get(i) else { break };
        match c {
            b'#' => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
                continue;
            }
            b'/' if b.get(i + 1) == Some(&b'/') => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
                continue;
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                i += 2;
                while i + 1 < b.len() && !(b[i] == b'*' && b[i + 1] == b'/') {
                    i += 1;
                }
                i += 2;
                continue;
            }
            b'"' => {
                i += 1;
                while i < b.len() && b[i] != b'"' && b[i] != b'\n' {
                    if b[i] == b'\\' {
                        i += 1;
                    }
                    i += 1;
                }
                i += 1;
                last = b'"';
                continue;
            }
            b'<' if b.get(i + 1) == Some(&b'<') => {
                // A heredoc: to the line that is its marker.
                let mut j = i + 2;
                if b.get(j) == Some(&b'-') {
                    j += 1;
                }
                let start = j;
                while j < b.len() && (b[j].is_ascii_alphanumeric() || b[j] == b'_') {
                    j += 1;
                }
                if j > start {
                    let marker = &text[start..j];
                    let mut k = j;
                    loop {
                        let Some(nl) = text[k..].find('\n') else {
                            k = b.len();
                            break;
                        };
                        k += nl + 1;
                        let end = text[k..].find('\n').map_or(b.len(), |e| k + e);
                        if text[k..end].trim() == marker {
                            k = end;
                            break;
                        }
                    }
                    i = k;
                    last = b'"';
                    continue;
                }
            }
            b'{' => {
                let object = matches!(last, b'=' | b'(' | b'[' | b',' | b':' | b'?' | b'{' | b'>');
                stack.push((object, i, 0));
            }
            b'(' | b'[' => stack.push((false, i, 0)),
            b'}' | b')' | b']' => {
                if let Some((true, start, n)) = stack.pop()
                    && best.is_none_or(|(_, m)| n > m)
                {
                    best = Some((start, n));
                }
            }
            b'=' | b':' => {
                let next = b.get(i + 1).copied();
                let prev = if i > 0 { b[i - 1] } else { 0 };
                let operator = matches!(next, Some(b'=') | Some(b'>'))
                    || matches!(prev, b'=' | b'!' | b'<' | b'>');
                if !operator && let Some((true, _, n)) = stack.last_mut() {
                    *n += 1;
                }
            }
            _ => {}
        }
        if !c.is_ascii_whitespace() {
            last = c;
        }
        i += 1;
    }
    // An object left open (a syntax error the parser reports).
    for (object, start, n) in stack {
        if object && best.is_none_or(|(_, m)| n > m) {
            best = Some((start, n));
        }
    }
    best
}

/// The length in bytes and the name of the object key starting at `at`: an identifier, or a
/// quoted string without interpolation.
fn key_at(text: &str, at: usize) -> Option<(usize, String)> {
    let rest = text.get(at..)?;
    let first = rest.chars().next()?;
    if first == '"' {
        let mut name = String::new();
        let mut chars = rest.char_indices().skip(1);
        while let Some((i, c)) = chars.next() {
            match c {
                '"' => return Some((i + 1, name)),
                '\\' => {
                    let (_, e) = chars.next()?;
                    name.push(match e {
                        'n' => '\n',
                        't' => '\t',
                        'r' => '\r',
                        '"' | '\\' => e,
                        _ => return None,
                    });
                }
                '$' | '%' if rest[i + 1..].starts_with('{') => return None,
                '\n' => return None,
                c => name.push(c),
            }
        }
        return None;
    }
    if !(first.is_alphabetic() || first == '_') {
        return None;
    }
    let len = rest
        .char_indices()
        .find(|(_, c)| !(c.is_alphanumeric() || *c == '_' || *c == '-'))
        .map_or(rest.len(), |(i, _)| i);
    Some((len, rest[..len].to_string()))
}

/// A key of `len` bytes, the same kind as the one at `at`, different for each `attempt`.
fn placeholder(text: &str, at: usize, len: usize, attempt: u32) -> Option<String> {
    const DIGITS: &[u8] = b"0123456789abcdefghijklmnopqrstuvwxyz";
    let quoted = text[at..].starts_with('"');
    let room = if quoted { len.checked_sub(2)? } else { len };
    if room == 0 || attempt > 4 * MAX_REPARSES as u32 {
        return None;
    }
    if room == 1 {
        const ONE: &[u8] = b"_abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
        let c = char::from(*ONE.get(attempt as usize)?);
        return Some(if quoted {
            format!("\"{c}\"")
        } else {
            c.to_string()
        });
    }
    // `_` then the attempt in base 36, padded with `_` (an identifier, or a string's text).
    let mut body = vec![b'_'; room];
    let mut n = attempt as usize;
    let mut i = room;
    while n > 0 && i > 1 {
        i -= 1;
        body[i] = DIGITS[n % 36];
        n /= 36;
    }
    if n > 0 {
        return None;
    }
    let body = String::from_utf8(body).ok()?;
    Some(if quoted { format!("\"{body}\"") } else { body })
}

/// The repeated keys of the objects that had one renamed.
fn repeats(body: &Body, renamed: &HashMap<usize, String>) -> Vec<(Span, Span, String)> {
    struct Finder<'a> {
        renamed: &'a HashMap<usize, String>,
        out: Vec<(Span, Span, String)>,
    }
    impl Visit for Finder<'_> {
        fn visit_object(&mut self, node: &Object) {
            let keys: Vec<(Option<std::ops::Range<usize>>, Option<String>)> = node
                .iter()
                .map(|(k, _)| {
                    let span = match k {
                        ObjectKey::Ident(id) => id.span(),
                        ObjectKey::Expression(e) => e.span(),
                    };
                    let name = span
                        .as_ref()
                        .and_then(|s| self.renamed.get(&s.start).cloned())
                        .or_else(|| match k {
                            ObjectKey::Ident(id) => Some(id.as_str().to_string()),
                            ObjectKey::Expression(hcl_edit::expr::Expression::String(s)) => {
                                Some(s.value().to_string())
                            }
                            _ => None,
                        });
                    (span, name)
                })
                .collect();
            if keys.iter().any(|(s, _)| {
                s.as_ref()
                    .is_some_and(|s| self.renamed.contains_key(&s.start))
            }) {
                // The last key of each name wins; every earlier one is dropped.
                let mut last: HashMap<&str, usize> = HashMap::new();
                for (i, (_, n)) in keys.iter().enumerate() {
                    if let Some(n) = n {
                        last.insert(n, i);
                    }
                }
                for (i, (s, n)) in keys.iter().enumerate() {
                    let (Some(s), Some(n)) = (s, n) else { continue };
                    let Some(&w) = last.get(n.as_str()) else {
                        continue;
                    };
                    if w == i {
                        continue;
                    }
                    if let Some(ws) = &keys[w].0 {
                        self.out.push((
                            Span::new(s.start, s.end),
                            Span::new(ws.start, ws.end),
                            n.clone(),
                        ));
                    }
                }
            }
            visit_object(self, node);
        }
    }
    let mut f = Finder {
        renamed,
        out: Vec::new(),
    };
    f.visit_body(body);
    f.out.sort_by_key(|(a, _, _)| a.start);
    f.out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repeated_object_keys_parse_and_are_reported() {
        let text = "locals {\n  g = {\n    min_size = 1\n    max_size = 3\n    min_size = 2\n    \"max_size\" = 4\n  }\n}\n";
        let p = parse(text).expect("parses");
        assert_eq!(p.renamed.len(), 1);
        let names: Vec<&str> = p.repeats.iter().map(|(_, _, n)| n.as_str()).collect();
        assert_eq!(names, ["min_size", "max_size"]);
        let (dropped, wins, _) = &p.repeats[0];
        assert_eq!(&text[dropped.start..dropped.end], "min_size");
        assert_eq!(text[..wins.start].lines().count(), 5);
    }

    #[test]
    fn repeated_attributes_stay_an_error() {
        let e = parse("resource \"a\" \"b\" {\n  x = 1\n  x = 2\n}\n")
            .err()
            .expect("error");
        assert!(e.message.contains("redefined attribute"), "{}", e.message);
    }

    #[test]
    fn single_letter_and_quoted_keys() {
        let p = parse("x = { a = 1, _ = 2, a = 3, \"b\" = 1, \"b\" = 2 }\n").expect("parses");
        assert_eq!(p.repeats.len(), 2);
    }

    /// The scan that skips gives what the byte-by-byte scan gave, on texts made of the bytes
    /// it looks at and others.
    #[test]
    fn the_skipping_scan_agrees_with_the_plain_one() {
        let pieces = [
            "x = {",
            "}",
            " a = 1\n",
            "b: 2,",
            "\"s{=}\"",
            "# c {=\n",
            "// d\n",
            "/* e = { */",
            "<<EOT\n{ = }\nEOT\n",
            "(",
            ")",
            "[",
            "]",
            "?",
            ">",
            "==",
            "<=",
            "=>",
            " ",
            "\n",
            "k",
            "\\\"",
            "<",
            "/",
        ];
        let mut seed: u64 = 0x2545_f491_4f6c_dd1d;
        for _ in 0..3000 {
            let mut text = String::new();
            for _ in 0..(seed % 40) {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                text.push_str(pieces[(seed % pieces.len() as u64) as usize]);
            }
            assert_eq!(
                largest_object(&text),
                scan_objects(&text, false),
                "{text:?}"
            );
        }
    }

    #[test]
    fn too_many_repeats_are_a_clear_error() {
        let mut text = String::from("x = {\n");
        for i in 0..(MAX_REPARSES + 5) {
            text.push_str(&format!("  kk = {i}\n"));
        }
        text.push_str("}\n");
        let e = parse(&text).err().expect("refused");
        assert!(e.message.contains("repeated object key"), "{}", e.message);
    }
}
