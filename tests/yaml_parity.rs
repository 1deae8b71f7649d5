//! YAML parity with kubectl (issue 22). kubectl reads manifests through `sigs.k8s.io/yaml`,
//! whose YAML→JSON step is go-yaml v2 (`gopkg.in/yaml.v2` v2.4.0 semantics: libyaml's scanner
//! ported to Go, `scannerc.go`, `readerc.go`, `decode.go`). Each test below is one class of
//! input where taintlint once read the YAML differently; it cites the go-yaml function that
//! decides, and its expected value is what go-yaml v2.4.0 `yaml.Unmarshal` into `interface{}`
//! followed by `encoding/json` gives (written out here: the tests need no Go).
//!
//! Every case is read both ways taintlint reads YAML — the fast path (documents split with a
//! line scan, the line-based builder, `saphyr-parser` for what it declines) and `--full-parse`
//! (`saphyr-parser` for the whole stream) — and both must give the same tree or the same error.

use serde_json::{Map, Value as Json, json};
use taintlint::load::fast_yaml;
use taintlint::load::kubectl::Pieces;
use taintlint::load::yaml::{self, Limits, Node, Stream, Value};
use taintlint::load::yaml11::{Resolved, resolve};

/// A node as kubectl's YAML→JSON step sends it (YAML 1.1 resolution; the last of duplicate
/// keys wins; Go's `encoding/json` sorts keys, as `serde_json`'s map does).
fn to_json(node: &Node) -> Json {
    match &node.value {
        Value::Seq(items) => Json::Array(items.iter().map(to_json).collect()),
        Value::Map(entries) => {
            let mut m = Map::new();
            for (k, v) in entries {
                let key = match resolve(k) {
                    Resolved::Null => "null".to_string(),
                    Resolved::Bool(b) => b.to_string(),
                    other => other
                        .json_number()
                        .unwrap_or_else(|| k.text().unwrap_or("?").to_string()),
                };
                m.insert(key, to_json(v));
            }
            Json::Object(m)
        }
        Value::Scalar(s) => match resolve(node) {
            Resolved::Null => Json::Null,
            Resolved::Bool(b) => json!(b),
            Resolved::Int(i) => json!(i),
            Resolved::Uint(u) => json!(u),
            Resolved::Float(f) => json!(f),
            _ => Json::String(s.text.to_string()),
        },
    }
}

/// What a reader of the whole text gives: the JSON of each document, then `ERROR` and the
/// offset of the first error, if any.
fn outcome(streams: &[Stream]) -> Vec<String> {
    let mut out = Vec::new();
    for s in streams {
        for d in &s.documents {
            if let Some(root) = &d.root {
                out.push(to_json(root).to_string());
            }
        }
        if let Some(e) = &s.error {
            out.push(format!("ERROR at {}", e.offset()));
            break;
        }
    }
    out
}

/// `--full-parse`: every piece of the text (as kubectl cuts it at `---` lines) to the parser.
fn full(text: &str) -> Vec<String> {
    outcome(&[full_stream(text)])
}

/// The documents and the error `--full-parse` reads (`yaml::parse_each`).
fn full_stream(text: &str) -> Stream {
    let mut documents = Vec::new();
    let out = yaml::parse_each(text, 0, Limits::default(), &mut |d| {
        documents.push(d);
        true
    });
    Stream {
        documents,
        error: out.error,
        alias_nodes: out.alias_nodes,
    }
}

/// The fast path: document chunks, each to the line-based builder or else to the parser.
fn fast(text: &str) -> Vec<String> {
    outcome(&fast_streams(text))
}

/// The documents (root and span) and the first error of a reader's streams.
type Read = (
    Vec<(Option<Node>, taintlint::load::Span)>,
    Option<yaml::LoadError>,
);

fn read(streams: Vec<Stream>) -> Read {
    let mut docs = Vec::new();
    for s in streams {
        // An empty document (a null root, no object) is where each reader's text ends: the
        // fast path's at the next `---`, the parser's over it. Nothing is linted in it.
        let empty = |d: &yaml::Document| d.root.as_ref().is_some_and(Node::is_null);
        docs.extend(
            s.documents
                .into_iter()
                .filter(|d| !empty(d))
                .map(|d| (d.root, d.span)),
        );
        if s.error.is_some() {
            return (docs, s.error);
        }
    }
    (docs, None)
}

fn fast_streams(text: &str) -> Vec<Stream> {
    let mut out = Vec::new();
    for piece in Pieces::new(text) {
        match piece {
            Ok(r) => {
                let chunk = &text[r.clone()];
                out.push(
                    fast_yaml::parse_at(chunk, r.start, Limits::default())
                        .unwrap_or_else(|| yaml::parse_chunk(chunk, r.start, Limits::default())),
                );
            }
            Err(error) => out.push(Stream {
                error: Some(error),
                ..Stream::default()
            }),
        }
    }
    out
}

/// The two readers agree to the byte: same nodes, spans and errors.
#[track_caller]
fn agree(text: &str) {
    let f = read(fast_streams(text));
    let s = read(vec![full_stream(text)]);
    assert_eq!(f, s, "fast path vs --full-parse on {text:?}");
}

/// Both readers give `want` for a one-document `text`: its JSON (as go-yaml v2 gives it), or
/// `ERROR at <offset>`.
#[track_caller]
fn same(text: &str, want: &str) {
    agree(text);
    let got = full(text).join(" | ");
    let want = match serde_json::from_str::<Json>(want) {
        Ok(j) => j.to_string(),
        Err(_) => want.to_string(),
    };
    assert_eq!(got, want, "on {text:?}");
}

/// `YAML_DUMP=file cargo test --test yaml_parity dump -- --ignored --nocapture` prints what
/// both readers make of a file; `YAML_DUMP=folder` prints one line per file (name, then the
/// full parse's JSON or `ERROR`), to compare with a go-yaml program's output by hand.
#[test]
#[ignore = "debugging aid"]
fn dump() {
    let Some(path) = std::env::var_os("YAML_DUMP") else {
        return;
    };
    if let Ok(dir) = std::fs::read_dir(&path) {
        let mut names: Vec<_> = dir.flatten().map(|e| e.path()).collect();
        names.sort();
        for p in names {
            let Ok(text) = std::fs::read_to_string(&p) else {
                continue;
            };
            let got = full(&text);
            let one = match got.as_slice() {
                [only] if !only.starts_with("ERROR") => only.clone(),
                _ if got.iter().any(|g| g.starts_with("ERROR")) => "ERROR".to_string(),
                _ => got.join(" | "),
            };
            println!("{}\t{one}", p.display());
        }
        return;
    }
    let bytes = std::fs::read(path).expect("read");
    let text = String::from_utf8(bytes).expect("utf-8");
    eprintln!("fast: {:?}", fast(&text));
    eprintln!("full: {:?}", full(&text));
    let (f, s) = (read(fast_streams(&text)), read(vec![full_stream(&text)]));
    if f != s {
        eprintln!("DIFFER:\nfast {f:?}\nfull {s:?}");
    }
    let s = full_stream(&text);
    eprintln!("tree: {:#?}", s.documents);
    eprintln!("error: {:?}", s.error);
}

/// The offset of the `n`th (0-based) occurrence of `needle` in `text`, as an expected error.
fn err_at(text: &str, needle: &str, n: usize) -> String {
    let at = text
        .match_indices(needle)
        .nth(n)
        .map(|(i, _)| i)
        .expect("needle");
    format!("ERROR at {at}")
}

// ------------------------------------------------------------ go-yaml accepts, saphyr refused

/// go-yaml's `yaml_parser_scan_to_next_token` skips tabs wherever a simple key is not allowed
/// — after a key's `:` (`yaml_parser_fetch_value` clears `simple_key_allowed`) — so a tab
/// may separate `key:` from its value. A tab inside a quoted or block scalar stays a tab.
#[test]
fn tab_between_key_and_value() {
    same(
        "a: 1\nb:\t2\nc: \t x\nd:\t[1]\ne: {f:\tg}\n",
        r#"{"a":1,"b":2,"c":"x","d":[1],"e":{"f":"g"}}"#,
    );
    same(
        "a: \"x\\ty\"\nb: |\n  k:\tv\n",
        r#"{"a":"x\ty","b":"k:\tv\n"}"#,
    );
    same(
        "apiVersion: v1\nkind: Pod\nspec:\n  tolerations:\n  - key:\tk\n    operator:\tExists\n",
        r#"{"apiVersion":"v1","kind":"Pod","spec":{"tolerations":[{"key":"k","operator":"Exists"}]}}"#,
    );
}

/// In a flow collection go-yaml's scanner does not check indentation at all
/// (`yaml_parser_unroll_indent` does nothing while `flow_level > 0`), so the closing `]` or `}`
/// of a multi-line flow collection may sit at its key's indentation (issue 19: a NodePool
/// that silently dropped out of the inventory); saphyr says "invalid indentation".
#[test]
fn flow_closer_at_the_keys_indentation() {
    same(
        "spec:\n  values: [a,\n    b\n  ]\n  taints: [{key: k,\n    effect: NoSchedule}\n  ]\n",
        r#"{"spec":{"values":["a","b"],"taints":[{"key":"k","effect":"NoSchedule"}]}}"#,
    );
    same(
        "a:\n  b: {c: 1,\n    d: 2\n  }\ne: 3\n",
        r#"{"a":{"b":{"c":1,"d":2}},"e":3}"#,
    );
}

/// Nor does it check the indentation of any line inside a flow collection
/// (`yaml_parser_roll_indent`/`yaml_parser_unroll_indent` return while `flow_level > 0`, and
/// `yaml_parser_scan_to_next_token` skips tabs there): a line may sit at its key's
/// indentation, less, at column 0, or start with a tab. saphyr says "invalid indentation" or
/// "tabs disallowed within this context (block indentation)".
#[test]
fn flow_lines_at_any_indentation() {
    same("spec:\n  sel: {\n a: b}\n", r#"{"spec":{"sel":{"a":"b"}}}"#);
    same(
        "spec:\n  sel: {\n\ta: b}\n",
        r#"{"spec":{"sel":{"a":"b"}}}"#,
    );
    same(
        "spec:\n  list: [{name: c,\nimage: i}]\n  x: 1\n",
        r#"{"spec":{"list":[{"name":"c","image":"i"}],"x":1}}"#,
    );
    same("- a: [1,\n 2]\n", r#"[{"a":[1,2]}]"#);
    same(
        "a:\n  b: [\n1,\n\t2,\n  [3,\n4], \"x\ny\"]\nc: 5\n",
        r#"{"a":{"b":[1,2,[3,4],"x y"]},"c":5}"#,
    );
    // Outside a flow collection the indentation is still checked.
    let text = "a:\n  b: 1\n c: 2\n";
    assert!(full(text).join(" ").starts_with("ERROR"), "{text:?}");
}

/// go-yaml's scanner holds the continuation lines of a multi-line quoted scalar to no
/// indentation (`yaml_parser_scan_flow_scalar` in go-yaml v2's `scannerc.go` checks only for a
/// document indicator at column 0 and the end of the stream before each line), so they may
/// sit at the key's indentation or less, and the scalar folds as usual: blanks around a line
/// break dropped, the break a space, an empty line a line feed (issue 27: a published
/// manifest's JSON annotation in single quotes). saphyr says "invalid indentation in quoted
/// scalar".
#[test]
fn quoted_scalar_continuation_at_the_keys_indentation() {
    same(
        "metadata:\n  annotations:\n    a: '[\n        {\n            \"n\": \"i\"\n        }\n    ]'\nspec: 1\n",
        r#"{"metadata":{"annotations":{"a":"[ { \"n\": \"i\" } ]"}},"spec":1}"#,
    );
    same(
        "a:\n  b: \"x\n  y\n\n  z\"\n  c: 'it''s\nok'\n",
        r#"{"a":{"b":"x y\nz","c":"it's ok"}}"#,
    );
}

/// The same with escapes (issue 35: the CNI config of Calico's and the OpenTelemetry
/// operator's release manifests, a JSON text in a double-quoted scalar whose continuation
/// lines sit at the key's indentation and start with `\"` or `\t`): go-yaml decodes the
/// escapes and folds the line breaks around them as usual; `\` before a line break joins the
/// lines without a space (an escaped line break), and the next line's indentation is dropped.
/// Expected values as `kubectl apply --dry-run=client` (1.32) and PyYAML read them.
/// Hundreds of such scalars in one file (an older controller-gen's CRD bundle, the
/// OpenTelemetry operator's v0.86.0 release manifest: 236 single-quoted descriptions whose
/// continuation lines sit at their key's indentation) are read as kubectl reads them, each
/// folded as go-yaml folds it: mending them one parse at a time ran out of the passes a file
/// gets and reported a syntax error where kubectl reads the file. A `key: '` inside a block
/// scalar, or a quote in a comment, is text, not a scalar to mend.
#[test]
fn many_quoted_scalar_continuations_at_the_keys_indentation() {
    let mut text = String::from("spec:\n  notes: |\n    key: 'not a scalar\n    here\n  props:\n");
    let mut want = Vec::new();
    for i in 0..1200 {
        text.push_str(&format!(
            "    p{i}:\n      description: 'Name of the referent {i}.\n      More info: https://example.com/#names'\n      type: string\n"
        ));
        want.push(format!(
            r#""p{i}":{{"description":"Name of the referent {i}. More info: https://example.com/#names","type":"string"}}"#
        ));
    }
    text.push_str("  last: \"x\" # it's a comment\n");
    let want = format!(
        r#"{{"spec":{{"last":"x","notes":"key: 'not a scalar\nhere\n","props":{{{}}}}}}}"#,
        want.join(",")
    );
    same(&text, &want);
}

#[test]
fn escapes_in_quoted_scalar_continuation_lines() {
    same(
        "data:\n  cni: \"{\\n  \\\"name\\\": \\\"k8s\\\",\\n\n  \\\"cniVersion\\\": \\\"0.3.1\\\"\\n\n  }\"\n  b: \"caf\\u00e9\n  \\u00e9t\\u00e9 \\\n  \\tx\"\n",
        r#"{"data":{"b":"café été \tx","cni":"{\n  \"name\": \"k8s\",\n \"cniVersion\": \"0.3.1\"\n }"}}"#,
    );
    // At column 0, in a sequence, with CRLF line ends, and an escaped line break.
    same(
        "a:\r\n- \"x\\ty\r\n\\tz \\\r\n  w\"\r\n- 1\r\n",
        r#"{"a":["x\ty \tz w",1]}"#,
    );
    // A key stays on one line (go-yaml: "mapping values are not allowed in this context"); a
    // `...` starting a continuation line is a document indicator; an unknown escape stays an
    // error.
    for text in [
        "a:\n  \"x\\n\n  y\": 1\n",
        "a: \"x\\n\n... y\"\n",
        "a: \"\\q\n  x\"\n",
    ] {
        assert!(
            full(text).join("").contains("ERROR"),
            "{text:?}: {:?}",
            full(text)
        );
        agree(text);
    }
}

/// `\'` is a YAML 1.1 escape (a single quote) to go-yaml's `yaml_parser_scan_flow_scalar`,
/// not to YAML 1.2; saphyr says "found unknown escape character".
#[test]
fn escaped_single_quote() {
    same("a: \"it\\'s \\\"ok\\\"\"\n", r#"{"a":"it's \"ok\""}"#);
    same("a: \"it\\'s\n  ok\"\nb: 1\n", r#"{"a":"it's ok","b":1}"#);
}

/// kubectl cuts the stream at every line that starts with `---` (apimachinery's
/// `YAMLReader.Read`) and go-yaml's `Unmarshal` reads the first document of each piece: what
/// follows it in the piece is never read, a `...` first is an error, and a separator line may
/// carry a comment only.
#[test]
fn pieces_as_kubectl_reads_them() {
    // After `...` (or after a first document that ends where the next does not start), the
    // rest of the piece is not read, even text that does not parse.
    same("a: 1\n...\nb: 2\n", r#"{"a":1}"#);
    same("a: 1\n...\n{ bad\n---\nb: 2\n", r#"{"a":1} | {"b":2}"#);
    same("just text\n# c\n{\"a\": 1}\n", r#""just text""#);
    // A `...` first, a separator with more than a comment: errors where kubectl's are.
    let text = "a: 1\n---\n...\n";
    same(text, &format!(r#"{{"a":1}} | {}"#, err_at(text, "...", 0)));
    let text = "a: 1\n--- {b: 2}\n";
    same(text, &err_at(text, "---", 0));
    let text = "a: 1\n----\n";
    same(text, &err_at(text, "----", 0));
    same("--- # c\na: 1\n---\n...\n", r#"{"a":1} | ERROR at 17"#);
    same("---\n...\n", "null");
}

/// go-yaml's reader drops a byte order mark only at the start of the stream
/// (`yaml_parser_determine_encoding`); elsewhere its scanner takes U+FEFF as an ordinary
/// character of a plain scalar (`yaml_parser_scan_plain_scalar` does not ask `is_printable`).
#[test]
fn byte_order_mark_inside_a_scalar() {
    same(
        "a: x\u{feff}y\n\u{feff}b: 1\n",
        "{\"a\":\"x\u{feff}y\",\"\u{feff}b\":1}",
    );
    same("\u{feff}a: 1\n", r#"{"a":1}"#);
}

/// A comment needs no space before it after a flow collection's closer
/// (`yaml_parser_scan_to_next_token` skips to the `#` and the comment) or after a block
/// scalar's header (`yaml_parser_scan_block_scalar` eats blanks, then a comment).
#[test]
fn comment_without_a_space_after_an_indicator() {
    same(
        "a: [1]#c\nb: {x: 1}#c\nc: |#c\n  x\nd: >-#c\n  y\n",
        r#"{"a":[1],"b":{"x":1},"c":"x\n","d":"y"}"#,
    );
    // ... or after a quoted scalar.
    same(
        "a: \"k\"#c\nb: 'l'#c\nc: x\"y\"#z\n",
        r##"{"a":"k","b":"l","c":"x\"y\"#z"}"##,
    );
    // A `#` inside a plain scalar is still text: `x]#c` is one scalar.
    same("a: x]#c\n", r##"{"a":"x]#c"}"##);
    // Many of each, mixed with look-alikes inside scalars: all read as go-yaml reads them.
    same(
        "a: [1]#c\nb: \"x]#y\"\nc: |\n  z]#w\n  k:\tv\nd: x]#v\ne: {f: 1}#c \"q\"\nf:\tg\n",
        r##"{"a":[1],"b":"x]#y","c":"z]#w\nk:\tv\n","d":"x]#v","e":{"f":1},"f":"g"}"##,
    );
    let many: String = (0..3000)
        .map(|i| format!("k{i}: [x]#c\nt{i}:\tv\n"))
        .collect();
    agree(&many);
    let full = full(&many);
    assert_eq!(full.len(), 1, "{:?}", &full[0][..full[0].len().min(200)]);
    assert!(
        full[0].starts_with("{\"k0\":[\"x\"]"),
        "{}",
        &full[0][..100]
    );
}

/// A line less indented than a block scalar's explicit indentation ends the scalar
/// (`yaml_parser_scan_block_scalar_breaks`, then `yaml_parser_scan_block_scalar`'s loop
/// ends); a comment there is a comment, even after the scalar's empty lines.
#[test]
fn less_indented_comment_after_an_explicit_indentation_block_scalar() {
    same("a: |2-\n\n # c\nb: 1\n", r#"{"a":"","b":1}"#);
    same(
        "a:\n  b: |2-\n\n   # c\n  c: 1\n",
        r#"{"a":{"b":"","c":1}}"#,
    );
    same("a: |2-\n # c\n", r#"{"a":""}"#);
}

// ------------------------------------------------------------ go-yaml refuses, saphyr read

/// go-yaml's reader (`yaml_parser_update_buffer`) refuses any character outside tab, LF, CR,
/// `#x20-#x7E`, NEL, `#xA0-#xD7FF`, `#xE000-#xFFFD`, `#x10000-#x10FFFF`: "control characters
/// are not allowed", wherever it is, a comment included.
#[test]
fn control_characters() {
    let text = "a: x\u{7f}y\n";
    same(text, &err_at(text, "\u{7f}", 0));
    let text = "a: 1\n# \u{1}\n";
    same(text, &err_at(text, "\u{1}", 0));
    let text = "a: '\u{1b}[0m'\n";
    same(text, &err_at(text, "\u{1b}", 0));
    let text = "a: x\u{9f}\n";
    same(text, &err_at(text, "\u{9f}", 0));
    // A document before the one that holds it is still read.
    let text = "a: 1\n---\nb: \u{7f}\n";
    same(
        text,
        &format!("{{\"a\":1}} | {}", err_at(text, "\u{7f}", 0)),
    );
}

/// A stream that starts with `{` is JSON to kubectl (`NewYAMLOrJSONDecoder`'s
/// `hasJSONPrefix`), decoded by `encoding/json`, not go-yaml: tab indentation and the `\/`
/// escape are fine there.
#[test]
fn json_is_not_read_by_go_yaml() {
    same(
        "{\n\t\"kind\": \"Pod\",\n\t\"url\": \"http:\\/\\/x\"\n}\n",
        r#"{"kind":"Pod","url":"http://x"}"#,
    );
}

/// `\/` is a YAML 1.2 escape; go-yaml's `yaml_parser_scan_flow_scalar` knows YAML 1.1's only:
/// "found unknown escape character while parsing a quoted scalar". `\\/` is a backslash and
/// a slash, and single quotes have no escapes.
#[test]
fn slash_escape() {
    let text = "a: \"x\\/y\"\n";
    same(text, &err_at(text, "\\/", 0));
    same("a: \"x\\\\/y\"\n", r#"{"a":"x\\/y"}"#);
    same("a: '\\/'\n", r#"{"a":"\\/"}"#);
}

/// In block context a line may not start with a tab, even before a comment: go-yaml's
/// `yaml_parser_scan_plain_scalar` ("found a tab character that violates indentation") and
/// `yaml_parser_scan_to_next_token` (which skips tabs only where no simple key may start)
/// refuse it. Inside a flow collection or a quoted scalar tabs are blanks.
#[test]
fn tab_at_the_start_of_a_line() {
    let text = "a: 1\n\t# c\nb: 2\n";
    same(text, &err_at(text, "\t", 0));
    let text = "a: \"1\"\n\t\nb: 2\n";
    same(text, &err_at(text, "\t", 0));
    same("a: [1,\n\t2]\n", r#"{"a":[1,2]}"#);
    // A quoted scalar's continuation line may start with tabs (`yaml_parser_scan_flow_scalar`
    // eats blanks between lines; saphyr said "tab cannot be used as indentation").
    same("a: \"x\n \ty\"\n", r#"{"a":"x y"}"#);
    same("a: \"x\n\ty\"\n", r#"{"a":"x y"}"#);
    same("a:\n  b: 'x\n   \t\ty'\n", r#"{"a":{"b":"x y"}}"#);
    // (go-yaml checks no indentation of a quoted scalar's continuation lines at all, where
    // saphyr says "invalid indentation in quoted scalar": `a:\n  b: "x\ny"` is not followed.)
    let text = "a:\n\tb: 1\n";
    same(text, &err_at(text, "\t", 0));
    same("a: 1\n  \t# c\nb: 2\n", r#"{"a":1,"b":2}"#);
    // After spaces, a tab is refused unless a plain scalar (at or past its collection's
    // column + 1) or a block scalar (at or past its content's column) takes it.
    let text = "value:\n  - \"c\"\n  \t# x\n";
    same(text, &err_at(text, "\t", 0));
    let text = "k: >-\n    fold\n    ed\n  \t# x\nv: x\n";
    same(text, &err_at(text, "\t", 0));
    same("ee: |\n  a\n  \tb\n", r#"{"ee":"a\n\tb\n"}"#);
    same("a:\n  b: x\n   \ty\n", r#"{"a":{"b":"x y"}}"#);
    // After a block sequence's `-` a simple key may start, so a tab there is not skipped
    // either ("found character that cannot start any token").
    for text in ["- \tx\n", "a:\n  - \tk: v\n", "- - \tx\n", "- x\n- \t# c\n"] {
        same(text, &err_at(text, "\t", 0));
    }
    same("-  x\n", r#"["x"]"#);
    same("a: |\n  - \tx\n", r#"{"a":"- \tx\n"}"#);
}

/// A mapping key that is a sequence or a mapping (`? [a]`, `[a]: b`) parses, but go-yaml's
/// decoder refuses it (`decoder.mapping`: "invalid map key"), so kubectl does. A `? ` key that
/// is a scalar is an ordinary key to go-yaml.
#[test]
fn complex_mapping_key() {
    let text = "? [a]\n: b\n";
    same(text, &err_at(text, "[", 0));
    let text = "x: 1\n? {a: 1}\n: b\n";
    same(text, &err_at(text, "{", 0));
    same("? a\n: b\n", r#"{"a":"b"}"#);
}

/// libyaml's simple keys may not span more than 1024 characters
/// (`yaml_parser_stale_simple_keys`): in a flow mapping a longer key is no key, and go-yaml
/// says "did not find expected ',' or '}'" at its `:`. (saphyr enforces the limit in block
/// context only.)
#[test]
fn flow_mapping_key_over_1024_characters() {
    let long = "k".repeat(1030);
    let text = format!("a: {{{long}: 1}}\n");
    same(&text, &err_at(&text, ":", 1));
    let text = format!("a: {{\"{long}\": 1}}\n");
    same(&text, &err_at(&text, ":", 1));
    let short = "k".repeat(1020);
    same(
        &format!("a: {{{short}: 1}}\n"),
        &format!("{{\"a\":{{\"{short}\":1}}}}"),
    );
}

// ------------------------------------------------------------ read differently

/// go-yaml's scanner takes NEL, LS and PS as line breaks (`is_break`), so one ends a comment
/// (`yaml_parser_scan_to_next_token` skips a comment up to `is_breakz`) and the text after it
/// is content. Inside a quoted scalar they stay characters.
#[test]
fn unicode_line_break_ends_a_comment() {
    same("a: 1 # c\u{2028}b: 2\n", r#"{"a":1,"b":2}"#);
    same("a: 1 # c\u{2029}b: 2\n", r#"{"a":1,"b":2}"#);
    same("a: 1 # c\u{85}b: 2\n", r#"{"a":1,"b":2}"#);
    same("a: \"x\u{2028}y\"\n", "{\"a\":\"x\u{2028}y\"}");
    // go-yaml's `read_line` makes a NEL an LF: inside a quoted scalar it folds to a space.
    same("a: \"x\u{85}  y\"\n", r#"{"a":"x y"}"#);
    // A toleration key hidden in a comment to saphyr is a key to kubectl.
    same(
        "tolerations:\n- key: k # note\u{2028}  effect: NoSchedule\n",
        r#"{"tolerations":[{"effect":"NoSchedule","key":"k"}]}"#,
    );
}

/// go-yaml's decoder (`decoder.scalar`) decodes a `!!binary` scalar from base64
/// (`base64.StdEncoding`, which skips line breaks) into a Go string: kubectl sends the decoded
/// text, with U+FFFD for bytes that are not UTF-8; bad base64 is an error.
#[test]
fn binary_tag_is_decoded() {
    same(
        "a: !!binary aGVsbG8=\nb: !!binary |\n  aGVs\n  bG8=\nc: !!binary /w==\n",
        r#"{"a":"hello","b":"hello","c":"\ufffd"}"#,
    );
    let text = "a: !!binary aGVsbG8\n";
    assert!(full(text).join("").starts_with("ERROR"), "{:?}", full(text));
    agree(text);
}

/// Merge keys (`<<`), as go-yaml v2's decoder applies them (`decoder.mapping`,
/// `decoder.merge`, `isMerge`): the merged entries are set where the `<<` stands, so a later
/// key wins and an earlier one loses; of a sequence of mappings the first wins; `!!merge <<`
/// merges, a quoted `"<<"` is an ordinary key; a scalar to merge is an error.
#[test]
fn merge_keys() {
    same(
        "base: &b\n  key: k\n  operator: Equal\n  value: v\nt:\n- <<: *b\n  value: w\n- value: w\n  <<: *b\n- <<: [{key: a, effect: NoSchedule}, {key: b, value: x}]\n- !!merge <<: {key: m}\n- \"<<\": {key: q}\n",
        r#"{"base":{"key":"k","operator":"Equal","value":"v"},"t":[{"key":"k","operator":"Equal","value":"w"},{"key":"k","operator":"Equal","value":"v"},{"effect":"NoSchedule","key":"a","value":"x"},{"key":"m"},{"<<":{"key":"q"}}]}"#,
    );
    let text = "a:\n  <<: 1\n";
    same(text, &err_at(text, "1", 0));
    // The merged entries point at the mapping they come from; an overridden merged entry is
    // gone, so the tree has one `value`, the one written in the toleration.
    let text = "base: &b {key: k, value: v}\nt:\n- <<: *b\n  value: w\n";
    let s = yaml::parse(text, Limits::default());
    let root = s.documents[0].root.as_ref().expect("root");
    let tol = &root.get("t").and_then(Node::as_seq).expect("t")[0];
    let (k, _) = tol.entry("key").expect("key");
    assert_eq!(&text[k.span.start..k.span.end], "key");
    assert!(k.span.start < text.find("t:").expect("t"));
    let values: Vec<_> = tol
        .as_map()
        .expect("map")
        .iter()
        .filter(|(k, _)| k.text() == Some("value"))
        .collect();
    assert_eq!(values.len(), 1);
    assert_eq!(values[0].1.text(), Some("w"));
}

// ------------------------------------------------------------ fast path vs --full-parse

/// An empty block scalar right before `---`: the fast path parses the document alone (the
/// text ends there), the full parse sees the `---`; both put the empty scalar at the end.
#[test]
fn empty_block_scalar_before_a_document_marker() {
    for text in [
        "a: |\n---\nb: 1\n",
        "a: |\n\n---\nb: 1\n",
        "a: >-\n  \n---\nb: 1\n",
        "- |+\n\n---\n",
        "a: |\n",
    ] {
        agree(text);
    }
    same("a: |\n---\nb: 1\n", r#"{"a":""} | {"b":1}"#);
}

// ------------------------------------------------------------ through the linter

/// `line:col rule field` of every finding of `text`, linted with all rules; the fast path and
/// `--full-parse` must give the same.
fn lint(text: &str) -> Vec<String> {
    use taintlint::engine::{self, LintOptions};
    use taintlint::rules::RuleSet;
    let run = |fast| {
        let opts = LintOptions {
            rules: RuleSet::resolve(&["all".into()], &[]).expect("rules"),
            fast,
            ..LintOptions::default()
        };
        let out = engine::lint_text("t.yaml", text, &opts).expect("in memory");
        out.findings
            .iter()
            .map(|f| {
                let (p, _) = f.range();
                format!(
                    "{}:{} {} {}",
                    p.line,
                    p.column,
                    f.rule,
                    f.field.as_deref().unwrap_or("-")
                )
            })
            .collect::<Vec<_>>()
    };
    let (fast, full) = (run(true), run(false));
    assert_eq!(fast, full, "fast path vs --full-parse on {text:?}");
    full
}

const POD: &str =
    "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers: [{name: c, image: i}]\n";

/// Merge keys inside tolerations: kubectl merges them, so they are no unknown field, and a
/// finding on a merged field points at the mapping it comes from (here, labels that happen to
/// read as a toleration, on line 4).
#[test]
fn merge_keys_in_tolerations() {
    let text = "apiVersion: v1\nkind: Pod\nmetadata:\n  labels: &t {key: gpu, operator: Exists, value: x}\nspec:\n  containers: [{name: c, image: i}]\n  nodeSelector: {pool: gpu}\n  tolerations:\n  - <<: *t\n    effect: NoSchedule\n";
    let found = lint(text);
    assert!(
        !found.iter().any(|f| f.contains("unknown-field")),
        "{found:?}"
    );
    assert!(
        found.contains(&"4:50 toleration-exists-with-value spec.tolerations[0].value".to_string()),
        "{found:?}"
    );
    // A key written beside the merge overrides the merged one: one key, no duplicate.
    let text = "apiVersion: v1\nkind: Pod\nmetadata:\n  labels: &t {key: gpu, operator: Exists}\nspec:\n  containers: [{name: c, image: i}]\n  nodeSelector: {pool: gpu}\n  tolerations:\n  - <<: *t\n    key: cpu\n    effect: NoSchedule\n";
    let found = lint(text);
    assert!(
        !found
            .iter()
            .any(|f| f.contains("duplicate-key") || f.contains("unknown-field")),
        "{found:?}"
    );
}

/// `!!int` on a string field whose text is no integer: go-yaml's `resolve` fails, so kubectl
/// does, before sending anything.
#[test]
fn int_tag_on_a_string_field() {
    let text = format!("{POD}  tolerations:\n  - key: !!int k\n    operator: Exists\n");
    let found = lint(&text);
    assert!(
        found.contains(&"8:10 yaml-type-mismatch spec.tolerations[0].key".to_string()),
        "{found:?}"
    );
    // A tag that fits is a number, which a string field refuses (as before).
    let text = format!("{POD}  tolerations:\n  - key: !!int \"5\"\n    operator: Exists\n");
    assert!(
        lint(&text).iter().any(|f| f.contains("yaml-type-mismatch")),
        "{text}"
    );
}

/// A suppression annotation whose key is spelled with an escape, on a kind the fast path
/// skips: it is still registered (and unused), as with `--full-parse`.
#[test]
fn escaped_suppression_key_on_a_skipped_kind() {
    let text = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n  annotations:\n    \"\\x74aintlint.dev/ignore\": unschedulable-workload\ndata:\n  a: b\n";
    let found = lint(text);
    assert!(
        found.iter().any(|f| f.contains("unused-suppression")),
        "{found:?}"
    );
}

/// Lone CR line breaks count as line breaks (YAML 1.2 §5.4; go-yaml's scanner counts them).
#[test]
fn positions_with_lone_cr_line_breaks() {
    let text = format!("{POD}  tolerations:\n  - key: k\n    operator: Exists\n    value: v\n")
        .replace('\n', "\r");
    let found = lint(&text);
    assert!(
        found.contains(&"10:12 toleration-exists-with-value spec.tolerations[0].value".to_string()),
        "{found:?}"
    );
}

/// A toleration key after a comment that a U+2028 ends is read, as kubectl reads it.
#[test]
fn unicode_line_break_in_a_comment_through_the_linter() {
    let text = format!(
        "{POD}  tolerations:\n  - key: k\n    operator: Exists # note\u{2028}    value: v\n"
    );
    let found = lint(&text);
    assert!(
        found
            .iter()
            .any(|f| f.contains("toleration-exists-with-value")),
        "{found:?}"
    );
}

// ------------------------------------------------------------ generated

fn fragment() -> impl proptest::strategy::Strategy<Value = String> {
    use proptest::prelude::*;
    prop_oneof![
        Just("a: 1".to_string()),
        Just("b:\tv".to_string()),
        Just("c: [x]#c".to_string()),
        Just("d: |#c".to_string()),
        Just("  text".to_string()),
        Just("e: |2-".to_string()),
        Just(" # c".to_string()),
        Just("\t# t".to_string()),
        Just("- \tx".to_string()),
        Just("- y".to_string()),
        Just("f: x\u{feff}y".to_string()),
        Just("g: 1 # c\u{2028}h: 2".to_string()),
        Just("i: \"x\u{85}y\"".to_string()),
        Just("j: \"a\\/b\"".to_string()),
        Just("k: x\u{7f}".to_string()),
        Just("l: &m {p: 1}".to_string()),
        Just("n:\n  <<: *m\n  p: 2".to_string()),
        Just("o: !!binary aGk=".to_string()),
        Just("? [q]\n: r".to_string()),
        Just("---".to_string()),
        Just("s: \"t\n  u\"".to_string()),
        Just("v: \"w\n\tz\"".to_string()),
        Just("\tx: 1".to_string()),
        Just("z: \"k\"#c".to_string()),
        Just("".to_string()),
    ]
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(1500))]

    /// Random mixtures of every construct above, with LF or lone-CR line ends: the fast path
    /// and `--full-parse` read the same trees and errors, and nothing panics.
    #[test]
    fn fast_and_full_agree_on_generated_parity_cases(
        lines in proptest::collection::vec(fragment(), 1..10),
        cr in proptest::bool::ANY,
    ) {
        let text = lines.join("\n") + "\n";
        let text = if cr { text.replace('\n', "\r") } else { text };
        agree(&text);
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(300))]

    /// The same mixtures beside and inside a Pod, through the whole linter: the fast path and
    /// `--full-parse` report the same findings at the same places.
    #[test]
    fn linter_agrees_on_generated_parity_cases(
        lines in proptest::collection::vec(fragment(), 1..8),
        inside in proptest::bool::ANY,
    ) {
        let body = lines.join("\n") + "\n";
        let text = if inside {
            format!("{POD}  tolerations:\n  - key: k\n    operator: Exists\n{body}")
        } else {
            format!("{POD}---\n{body}")
        };
        lint(&text);
    }
}
