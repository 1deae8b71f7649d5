//! The line-based builder (`load::fast_yaml`) makes exactly the tree `saphyr-parser` makes —
//! same nodes, texts, styles and spans — for every document it accepts, and gives up on every
//! document the parser rejects. Checked on the real corpus, the repository's fixtures, the
//! fuzzer's saved inputs, hand-written edge cases and generated block YAML.

use std::path::Path;

use proptest::prelude::*;
use taintlint::load::fast_yaml;
use taintlint::load::prescan::split_documents;
use taintlint::load::yaml::{self, Limits, Node, Value};

/// Compares the two builders on every document chunk of `text`; returns the number of bytes
/// the fast builder accepted.
fn compare(name: &str, text: &str) -> usize {
    let mut accepted = 0;
    for range in split_documents(text) {
        let chunk = &text[range.clone()];
        let Some(fast) = fast_yaml::parse_at(chunk, range.start, Limits::default()) else {
            continue;
        };
        let slow = yaml::parse_at(chunk, range.start, Limits::default());
        assert!(
            slow.error.is_none(),
            "{name} @{}: the parser rejects what the fast builder accepted: {:?}\n{chunk}",
            range.start,
            slow.error
        );
        assert_eq!(
            fast.documents.len(),
            slow.documents.len(),
            "{name} @{}: document count\n{chunk}",
            range.start
        );
        for (f, s) in fast.documents.iter().zip(&slow.documents) {
            if f != s {
                let diff = match (&f.root, &s.root) {
                    (Some(a), Some(b)) => first_diff(a, b, "$"),
                    _ => None,
                }
                .unwrap_or_else(|| format!("document: {:?} vs {:?}", f.span, s.span));
                let excerpt: String = chunk.chars().take(600).collect();
                panic!("{name} @{}: trees differ: {diff}\n{excerpt}", range.start);
            }
        }
        accepted += chunk.len();
    }
    accepted
}

/// The first place where two trees differ, as a path and the two versions.
fn first_diff(a: &Node, b: &Node, path: &str) -> Option<String> {
    match (&a.value, &b.value) {
        (Value::Map(x), Value::Map(y)) if x.len() == y.len() => {
            for ((ka, va), (kb, vb)) in x.iter().zip(y) {
                let key = kb.text().unwrap_or("?");
                if let Some(d) = first_diff(ka, kb, &format!("{path}.<key {key}>")) {
                    return Some(d);
                }
                if let Some(d) = first_diff(va, vb, &format!("{path}.{key}")) {
                    return Some(d);
                }
            }
        }
        (Value::Seq(x), Value::Seq(y)) if x.len() == y.len() => {
            for (i, (na, nb)) in x.iter().zip(y).enumerate() {
                if let Some(d) = first_diff(na, nb, &format!("{path}[{i}]")) {
                    return Some(d);
                }
            }
        }
        (Value::Scalar(x), Value::Scalar(y)) if x == y => {}
        (x, y) => {
            return Some(format!(
                "{path}: fast {:?} {} vs parser {:?} {}",
                a.span,
                short(x),
                b.span,
                short(y)
            ));
        }
    }
    (a.span != b.span).then(|| format!("{path}: span fast {:?} vs parser {:?}", a.span, b.span))
}

fn short(v: &Value) -> String {
    match v {
        Value::Scalar(s) => format!("{s:?}"),
        Value::Seq(x) => format!("seq of {}", x.len()),
        Value::Map(x) => format!("map of {}", x.len()),
    }
}

fn walk(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            walk(&p, out);
        } else if p.is_file() {
            out.push(p);
        }
    }
}

fn compare_tree(dir: &Path) -> (usize, usize) {
    let mut files = Vec::new();
    walk(dir, &mut files);
    files.sort();
    let (mut total, mut accepted) = (0, 0);
    for f in files {
        let Ok(text) = std::fs::read_to_string(&f) else {
            continue;
        };
        total += text.len();
        accepted += compare(&f.display().to_string(), &text);
    }
    (total, accepted)
}

#[test]
fn same_trees_on_the_real_corpus() {
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/corpus");
    assert!(corpus.is_dir(), "{} must exist", corpus.display());
    let (total, accepted) = compare_tree(&corpus);
    eprintln!("fast builder accepted {accepted} of {total} bytes");
    // Most real manifests are plain block YAML: the fast builder must take most of them, or
    // the performance design has silently stopped working.
    assert!(accepted * 2 > total, "accepted only {accepted} of {total}");
}

#[test]
fn same_trees_on_fixtures_and_fuzzer_inputs() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    compare_tree(&root.join("testdata"));
    compare_tree(&root.join("fuzz"));
}

/// Edge cases around every construct the fast builder takes, and around those it must leave
/// to the parser.
#[test]
fn same_trees_on_edge_cases() {
    let cases = [
        "a: 1\nb:\nc:\n  - x\n  - y: 1\n    z:\n  -\n  - - q\n",
        "d: |\n  lit\n  two\n\ne: >-\n  f\n  g\n\n# c\nf: [a, \"b\", {k: v}]\ng: {}\nh: \"q\" # c\n",
        "--- # c\na:   # x\n  b: 1   \nc: -1\nd:    \n- e\n-   # c\n- \n-\n  f\nz: \"a\\tb\" \n",
        "# lead\n\n---\n- a\n- b: |+\n    x\n\n  c: |-\n     y\n    z\n",
        "a: |\n  x\n",
        "a: |\n  x",
        "a: |\n  x\n  ",
        "a: |\n  x\n\n  ",
        "a: |\n  x\n ",
        "a: >\n  x\n  ",
        "a: |-\n  x\n  ",
        "a: |+\n  x",
        "a: |+\n  x\n\n\n",
        "a: >\n  x\n\n  y\n  z\n\n\nb: 1\n",
        "a: >+\n  x\n  y\n\n",
        "a: |\n  x\n    deeper\n\n  y\n# end\n",
        "a: |\n  x\n  # not a comment\n",
        "a: |\n    x\n  b: 1\n",
        "a: # c\nb:\n-\n- x\nc:\n- k: v\n  l: w\nd:\n  # c\n  e: |\n    s\n  # d\n  f: 1\n",
        "a:\n- - x\n  - y\n- [a,b]\n",
        "---\n",
        "# only\n",
        "# c\n\n  a: 1\n  b: [x, \"y\", {k: v, \"j\":1}]\n",
        "  c: - x\n",
        "a:\n- |\n  x\n- y\nb:\n  -   k: 1\n      j: 2\n",
        "a: b: c\n",
        "a: 'it''s' # c\nb: \"\\u00e9\\x41\\\\\"\n",
        "a: \"x\n  y\"\n",
        "a: 'x\n  y'\n",
        "a: plain\n  continued\n",
        "a: plain\n# c\n  b\n",
        "a:\n  b\n",
        "a: &x 1\nb: *x\n",
        "a: !!str 1\n",
        "? a\n: b\n",
        "a: [1, 2\n  3]\n",
        "a: {b: c, d: [e, {f: g}], \"h\": 'i'}\n",
        "a: [a: b]\n",
        "a: [\"a\": b]\n",
        "a: [, a]\n",
        "a: [a, , b]\n",
        "a: [a,]\n",
        "a: {op: Gt,}\n",
        "a: [x -, y]\n",
        "a: {k: x -}\n",
        "a: [x-, y]\n",
        "a: [x - y]\n",
        "a: {op: Gt , }\n",
        "a: [x , ]\n",
        "a: {op: Gt,} # c\n",
        "a: {a: }\n",
        "a: {a}\n",
        "a: [a]b\n",
        "a: [a] # c\n",
        "a: [a]# c\n",
        "a: 'x'y\n",
        "a: 'x'#y\n",
        "a: x#y\n",
        "a: x #y\n",
        "a: -\n",
        "a: - b\n",
        "a: ?\n",
        "a: :\n",
        "a: @x\n",
        "a: `x\n",
        "a: %x\n",
        "a: ,x\n",
        "a: ]x\n",
        "a: x]\n",
        "a: x, y: z\n",
        "a: http://x:80/y\n",
        "a: :x\n",
        "a: -x\n",
        "a: ?x\n",
        "a:x\n",
        "a :b\n",
        "a   : b\n",
        "\"a\" : b\n",
        "'a': b\n",
        "\"a\":b\n",
        "a: 1\n  b: 2\n",
        "a: 1\n b: 2\n",
        "  a: 1\nb: 2\n",
        "a:\n  b: 1\n c: 2\n",
        "- a\n-b\n",
        "- a\nb: 1\n",
        "a:\n  - x\n  y: 1\n",
        "a:\n- x\n  - y\n",
        "- - - a\n    - b\n  - c\n- d\n",
        "- a: 1\n  - b\n",
        "- a:\n  - b\n  c: 1\n",
        "a: 1\n...\n",
        "a: 1\n...\n# c\n\n",
        "a: 1\n... # c\n",
        "a: 1\n...#c\n",
        "a: 1\n...\nb: 2\n",
        "a: 1\n...\n...\n",
        "a: |\n  x\n...\n",
        "a: |+\n  x\n\n...\n",
        "a: >\n  x\n  y\n...\n",
        "a: x\n...",
        "a:\n  b: x\n...\n",
        "- a\n...\n",
        "a: \"x\n...\"\n",
        "a: 'x\n... y'\n",
        "a: x\n  ... y\n",
        "a: x\n....\n",
        "a: 1\n--- \nb: 2\n",
        "%YAML 1.2\n---\na: 1\n",
        "--- a: 1\n",
        "---\n# c\n",
        "---\n# c\n\n",
        "--- # x\n",
        "---",
        "---\n...\n",
        "---\n# c\n...\n",
        "# a\n---\n  # b\n",
        "--- |\n  x\n",
        "a: |2\n   x\n",
        "a: |-2\n   x\n",
        "a: |\n\n  x\n",
        "a: |\n   \n  x\n",
        "a: |\n  x\n   \n",
        "a: |\nb: 1\n",
        "a: |\n",
        "a: >\n  x\n   y\n",
        "a: | x\n  y\n",
        "a: |#c\n  y\n",
        "a: | #c\n  y\n",
        "a: \"\\q\"\n",
        "a: \"\\ud800\"\n",
        "a: \"\\U0001F600\"\n",
        "a: \"\\N\\_\\L\\P\\e\\0\\a\\b\\v\\f\\/\\ \"\n",
        "a: ''\nb: \"\"\n",
        "'': x\n",
        ": x\n",
        "a: 1 # c: d\n",
        "a #c: 1\n",
        "a#c: 1\n",
        "a: b #c\n  d: e\n",
        "k: v\n\n\n",
        "k: v",
        "k:",
        "k:\n",
        "- a",
        "-",
        "- ",
        "x",
        "[a, b]\n",
        "{a: b}\n",
        "a: [[[[[]]]]]\n",
        "a: {\"b\":[1,2],\"c\":{\"d\":\"e\"}}\n",
        "a: one\n  two\n\n  three\n\n\nb: 1\n",
        "a:\n  one\n  two\nb: 1\n",
        "a:\n  one # c\n  two\n",
        "a: one\n  two: x\n",
        "a: one\n  - two\n",
        "a: one\n  # c\n",
        "a: one\n  [two]\n",
        "a: one\n  two   \n",
        "- one\n  two\n- three\n",
        "-\n  one\n  two\n",
        "- a: one\n    two\n  b: 1\n",
        "a: 'one\n  two''s\n\n  three'\nb: 1\n",
        "a: \"one \\\n  two\\t  \n  three\"\n",
        "a: \"one\\\n\n  two\"\n",
        "a: \"one\\ \n  two\"\n",
        "a: \"one\n two\"\n",
        "a: \"one\ntwo\"\n",
        "- \"one\n  two\"\n",
        "- \"one\n two\"\n",
        "a: 'one\n---\n  two'\n",
        "a: one\n---\n",
        "a:\n  \"x\"\n",
        "a:\n  [x]\n",
        "a:\n  |\n   x\n",
        "a: [/bin/cp, -n, -]\n",
        "a: [-n, -1, \"-\"]\n",
        "a: [-, a]\n",
        "a: [-]\n",
        "a: [-[]]\n",
        "a: one\n  `two` *three [four] {five} &six !seven |eight >nine 'ten' \"eleven\" %12 @13 ?14 -15\n",
        "a: one\n  - two\n  -three\n",
        "a: one\n  ? two\n",
        "a: one\n  :two\n",
        "a: one\n  ,two\n",
        "a: one\n  # two\n  three\n",
        "- one\n  - two\n",
        "- one\n   - two\n",
        "a: “Auto” é\nb: 'ü'\nc: \"日本\"\nd: |\n  ß\ne: [ö, {ä: å}]\nf: x\n  ÿ\nü: 1\n",
        "a: \u{85}x\n",
        "a: x\u{2028}y\n",
        "\u{feff}a: 1\n",
        "a: \u{feff}\n",
        // A root flow collection on one line (minified JSON), which the builder takes (#22),
        // and the ones it must leave to the parser.
        "{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":[{\"a\":1},{\"b\":[2,3]}]}\n",
        "{apiVersion: v1, kind: List, items: [{a: 1}, {b: [2, 3]}]}",
        "--- {a: b, c: [d]}\n",
        "---\n[a, b] # c\n",
        "# lead\n  {a: b}  \n\n",
        "[]\n",
        "{}\n",
        "{a: b}: c\n",
        "[a, b]\nc: d\n",
        "{a: b,\n c: d}\n",
        "[a, b]]\n",
        "&x [a]\n",
        "[a, b] x\n",
    ];
    for case in cases {
        compare(&format!("{case:?}"), case);
    }
    // The root flow collections are the builder's, not only compared when it takes them.
    for taken in [
        "{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":[{\"a\":1},{\"b\":[2,3]}]}\n",
        "{apiVersion: v1, kind: List, items: [{a: 1}, {b: [2, 3]}]}",
        "---\n[a, b] # c\n",
    ] {
        assert!(
            fast_yaml::parse_at(taken, 0, Limits::default()).is_some(),
            "{taken:?}"
        );
    }
}

fn scalar() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-z0-9./_-]{1,8}",
        "[a-z]{1,3}[ :#'\"-]{0,2}[a-z]{0,3}",
        "'[a-z ']{0,5}'",
        "\"[a-z \\\\n\"]{0,5}\"",
        Just("".to_string()),
        Just("[a, b]".to_string()),
        Just("{a: 1}".to_string()),
        Just("[]".to_string()),
        Just("|\n".to_string()),
        Just(">-\n".to_string()),
        Just("# c".to_string()),
        Just("yes".to_string()),
        Just("-".to_string()),
        Just("&a x".to_string()),
    ]
}

fn line() -> impl Strategy<Value = String> {
    (
        0usize..8,
        prop_oneof![Just("- "), Just(""), Just("-"), Just("- - ")],
        prop_oneof![
            Just(String::new()),
            "[a-z\"']{1,4}".prop_map(|k| format!("{k}:")),
            "[a-z]{1,4}".prop_map(|k| format!("{k}: ")),
        ],
        scalar(),
    )
        .prop_map(|(indent, dash, key, value)| format!("{}{dash}{key}{value}", " ".repeat(indent)))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(4000))]

    /// Random lines of block YAML: wherever the fast builder accepts, it agrees with the
    /// parser.
    #[test]
    fn same_trees_on_generated_block_yaml(lines in prop::collection::vec(line(), 1..12)) {
        let text = lines.join("\n") + "\n";
        compare("generated", &text);
    }
}

/// Where the fast builder gives up on the real corpus, by the line of its source that gave
/// up (bytes of documents). `cargo test --test fast_yaml -- --ignored --nocapture`
#[test]
#[ignore = "measurement, not a check"]
fn why_the_fast_builder_gives_up() {
    let corpus = std::env::var_os("CORPUS").map_or_else(
        || Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/corpus"),
        std::path::PathBuf::from,
    );
    let mut files = Vec::new();
    walk(&corpus, &mut files);
    let mut why = std::collections::BTreeMap::<String, (usize, String)>::new();
    for f in files {
        let Ok(text) = std::fs::read_to_string(&f) else {
            continue;
        };
        // A file with `{{` goes to the parser whole unless the builder takes every document.
        if text.contains("{{")
            && split_documents(&text)
                .into_iter()
                .any(|r| fast_yaml::why_not(&text[r]).is_some())
        {
            let e = why.entry("templated file".into()).or_default();
            e.0 += text.len();
            if e.1.is_empty() {
                e.1 = f.display().to_string();
            }
            continue;
        }
        for range in split_documents(&text) {
            let chunk = &text[range.clone()];
            if taintlint::load::prescan::skippable(chunk, Limits::default(), |_| false) {
                continue;
            }
            if let Some(reason) = fast_yaml::why_not(chunk) {
                let e = why.entry(reason).or_default();
                e.0 += chunk.len();
                if e.1.is_empty() {
                    e.1 = format!("{}@{}", f.display(), range.start);
                }
            }
        }
    }
    let mut v: Vec<_> = why.into_iter().collect();
    v.sort_by_key(|(_, (n, _))| std::cmp::Reverse(*n));
    for (reason, (bytes, example)) in v {
        eprintln!("{bytes:>10} {reason:<12} {example}");
    }
}

/// Why the fast builder gives up on each document of the file in `WHY_FILE`.
#[test]
#[ignore = "debugging aid"]
fn why_file() {
    let Some(path) = std::env::var_os("WHY_FILE") else {
        return;
    };
    let text = std::fs::read_to_string(path).unwrap();
    for r in split_documents(&text) {
        if let Some(why) = fast_yaml::why_not(&text[r.clone()]) {
            let line = text[..r.start].matches('\n').count() + 1;
            eprintln!("document at line {line}: {why}");
        }
    }
}
