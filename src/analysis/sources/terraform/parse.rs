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
//! Each repeat costs a parse of the file, charged to the file's work meter (`util::work`) by
//! its bytes and by the squares of its objects' key counts (what hcl-edit's parse of them
//! costs); when the meter runs out, or past [`MAX_REPARSES`] repeats (or as many bytes parsed
//! as [`MAX_BYTES`]), the file is reported as not read. Objects larger than
//! [`MAX_OBJECT_KEYS`] are refused before any parse, wherever they sit: after a `for`'s `in`,
//! inside a template's interpolation, in a string of the JSON syntax.

use std::collections::HashMap;

use hcl_edit::Span as _;
use hcl_edit::expr::{Object, ObjectKey};
use hcl_edit::structure::Body;
use hcl_edit::visit::{Visit, visit_object};

use super::HclError;
#[cfg(test)]
use super::scan::refuse_template;
use super::scan::{MAX_OBJECT_KEYS, Objects, scan_objects, too_many_keys};
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

/// Parses `text` (see the module's text).
pub(super) fn parse(text: &str) -> Result<Parsed, HclError> {
    crate::util::work::per_file(text.len(), || parse_metered(text))
}

/// The units of the file's work meter one parse of `text` costs: its bytes, and the squares of
/// its objects' key counts (hcl-edit looks each new key up among the object's keys).
fn parse_units(text: &str, objects: &Objects) -> u64 {
    (text.len() as u64).saturating_add(objects.square_keys / 16)
}

fn parse_metered(text: &str) -> Result<Parsed, HclError> {
    let objects = scan_objects(text, true);
    if let Some((at, keys)) = objects.largest.filter(|(_, n)| *n > MAX_OBJECT_KEYS) {
        return Err(too_many_keys(at, keys));
    }
    // The first parse is the file's own; each parse again (one per repeated object key) is
    // charged to the file's meter, with what the parser's work on the file's objects costs.
    let units = parse_units(text, &objects);
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
        let spent = !crate::util::work::charge(units);
        if renamed.len() >= MAX_REPARSES
            || parsed_bytes > MAX_BYTES
            || parses > 4 * MAX_REPARSES
            || spent
        {
            let why = if spent {
                "each costs a parse of the file, and its objects make each parse cost more than the file's size allows"
            } else {
                "each costs a parse of the file"
            };
            return Err(HclError {
                message: format!(
                    "more repeated object keys than taintlint reads in one file ({} read; {why}); Terraform keeps the last value of each",
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
                scan_objects(&text, true),
                scan_objects(&text, false),
                "{text:?}"
            );
        }
    }

    /// Objects the parser builds wherever they sit: after a `for`'s `in`, after an operator,
    /// inside an interpolation of a quoted template or a heredoc (#49: each of these went to
    /// the parser unseen, whose work is the square of an object's keys).
    #[test]
    fn the_scan_sees_every_object_the_parser_builds() {
        let object = |n: usize| {
            let keys: Vec<String> = (0..n).map(|i| format!("k{i} = {i}")).collect();
            format!("{{ {} }}", keys.join(", "))
        };
        let big = object(MAX_OBJECT_KEYS + 10);
        let shapes = [
            format!("locals {{\n  x = [for k, v in {big} : k]\n}}\n"),
            format!("locals {{\n  x = var.a || {big}\n}}\n"),
            format!("locals {{\n  x = merge(var.a) + {big}\n}}\n"),
            format!("locals {{\n  x = \"${{ {big} }}\"\n}}\n"),
            format!("locals {{\n  x = \"a ${{ \"b ${{ {big} }}\" }}\"\n}}\n"),
            format!("locals {{\n  x = <<EOT\n  text ${{ {big} }}\nEOT\n}}\n"),
            format!(
                "locals {{\n  x = <<-EOT\n  %{{ for k in {big} }}${{k}}%{{ endfor }}\n  EOT\n}}\n"
            ),
        ];
        for text in &shapes {
            let found = scan_objects(text, true);
            assert_eq!(found, scan_objects(text, false), "{text:.80}");
            let (_, keys) = found.largest.expect("an object");
            assert!(keys > MAX_OBJECT_KEYS, "{keys} keys in {text:.80}");
            let e = parse(text).err().expect("refused before parsing");
            assert!(e.limit && e.message.contains("keys"), "{}", e.message);
        }
        // What is not an object: a block's body, a template's literal braces, `$${`.
        let body: String = (0..(MAX_OBJECT_KEYS + 10))
            .map(|i| format!("  k{i} = {i}\n"))
            .collect();
        for text in [
            format!("locals {{\n{body}}}\n"),
            format!("resource \"a\" \"b\" {{\n{body}}}\n"),
            format!("locals {{\n  x = \"$${{ {big} }}\"\n}}\n").replace("\n  k", " k"),
        ] {
            assert!(
                scan_objects(&text, true)
                    .largest
                    .is_none_or(|(_, n)| n <= MAX_OBJECT_KEYS),
                "{text:.80}"
            );
        }
        // A template of the JSON syntax: its text is the string's.
        assert!(refuse_template(&format!("${{ {big} }}"), 7).is_some_and(|e| e.at == 7));
        assert!(refuse_template(&format!("$${{ {big} }}"), 7).is_none());
        assert!(refuse_template("plain \" text { a = 1 }", 0).is_none());
    }

    /// Each parse again for a repeated key is charged to the file's meter with what the
    /// parse costs: objects near the key limit make each parse dear, and the meter stops the
    /// parses long before `MAX_REPARSES`.
    #[test]
    fn repeats_are_charged_by_the_parse_s_work() {
        let near = |tag: usize| {
            let keys: Vec<String> = (0..(MAX_OBJECT_KEYS - 10))
                .map(|i| format!("k{i} = {i}"))
                .collect();
            format!("  o{tag} = {{ {} }}\n", keys.join(", "))
        };
        let mut text = String::from("locals {\n");
        for t in 0..3 {
            text.push_str(&near(t));
        }
        for i in 0..50 {
            text.push_str(&format!("  r{i} = {{ a = 1, a = 2 }}\n"));
        }
        text.push_str("}\n");
        let objects = scan_objects(&text, true);
        let units = parse_units(&text, &objects);
        // A budget of ten such parses: the eleventh repeat is refused.
        let e = crate::util::work::with_budget(10 * units, || parse(&text))
            .err()
            .expect("refused");
        assert!(
            e.limit && e.message.contains("repeated object keys"),
            "{}",
            e.message
        );
        // With the file's own budget, a few repeats in an honest file are read.
        let small = "x = { a = 1, a = 2 }\ny = { b = 1, b = 2 }\n";
        assert_eq!(parse(small).expect("parses").repeats.len(), 2);
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
