//! JSON streams as kubectl reads them (issue 35, `load::json`): a file whose first character
//! (after white space) is `{` is a stream of JSON values, one after another (JSON Lines, or
//! values written back to back); the Kubernetes objects among them are linted at their own
//! lines, a `null` is skipped, a file that names no Kubernetes object is no manifest and gets
//! nothing, and a syntax error is JSON's. Kubernetes 1.34 and later read a stream that fails as
//! JSON before its second value again as YAML. Each fixture's reading was checked with
//! `kubectl apply --dry-run=client --validate=false` (1.32; `tests/kubectl_parity.rs` keeps
//! checking it).

#![allow(clippy::unwrap_used)] // tests may unwrap

use serde_json::Value;

mod common;

/// (rule, line, column) of every finding, and the run's document count, with `args` added.
fn lint(file: &str, args: &[&str]) -> (i32, Vec<(String, u64, u64)>, u64) {
    let mut all = vec!["check", file, "--isolated", "--format", "json"];
    all.extend_from_slice(args);
    let (code, v) = common::cli::taintlint(&all).json();
    let found = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f: &Value| {
            (
                f["rule"].as_str().unwrap().to_string(),
                f["line"].as_u64().unwrap(),
                f["column"].as_u64().unwrap(),
            )
        })
        .collect();
    (code, found, v["summary"]["documents"].as_u64().unwrap())
}

fn finding(rule: &str, line: u64, column: u64) -> (String, u64, u64) {
    (rule.to_string(), line, column)
}

/// JSON Lines of objects: each linted at its own line; `null` is no document.
#[test]
fn json_lines_are_linted_object_by_object() {
    for version in ["1.32", "1.35"] {
        let (code, found, documents) = lint(
            "testdata/json/pods.jsonl.json",
            &["--kube-version", version],
        );
        assert_eq!(code, 1);
        assert_eq!(
            found,
            [
                finding("invalid-toleration-effect", 2, 185),
                finding("tolerates-all-taints", 4, 254),
                finding("toleration-exists-with-value", 4, 285),
            ],
            "{version}"
        );
        assert_eq!(documents, 3);
    }
}

/// Values written back to back, without even a line break between them.
#[test]
fn concatenated_values_are_linted_object_by_object() {
    let (code, found, documents) = lint("testdata/json/concatenated.json", &[]);
    assert_eq!(code, 1);
    assert_eq!(found, [finding("invalid-toleration-effect", 13, 75)]);
    assert_eq!(documents, 2);
}

/// A stream that holds no Kubernetes object (a data set, package metadata, an editor's
/// settings), valid or not: nothing is reported, whatever the Kubernetes version.
#[test]
fn json_that_is_no_manifest_gets_nothing() {
    for file in ["testdata/json/dataset.json", "testdata/json/tsconfig.json"] {
        for version in ["1.32", "1.35"] {
            let (code, found, _) = lint(file, &["--kube-version", version, "--select", "all"]);
            assert_eq!((code, found), (0, vec![]), "{file} {version}");
        }
    }
    // kubectl counts every value of a data set as a document it read.
    assert_eq!(lint("testdata/json/dataset.json", &[]).2, 5);
}

/// A syntax error after the second value ends the stream for every version: the values
/// before it are linted, the ones after it are not, and the error is JSON's, with Go's words.
#[test]
fn a_broken_stream_is_linted_up_to_its_error() {
    for version in ["1.32", "1.35"] {
        let run = common::cli::taintlint(&[
            "check",
            "testdata/json/broken-stream.json",
            "--isolated",
            "--format",
            "concise",
            "--kube-version",
            version,
        ])
        .run();
        assert_eq!(run.code, 1, "{}", run.stderr);
        let lines: Vec<&str> = run
            .stdout
            .lines()
            .filter(|l| !l.contains("tolerates-all-taints"))
            .collect();
        assert_eq!(
            lines,
            [
                "testdata/json/broken-stream.json:1:170: error[toleration-exists-with-value] toleration has `operator: Exists` and `value: x`; the API server rejects this object",
                "testdata/json/broken-stream.json:3:36: error[yaml-syntax-error] JSON syntax error: invalid character '\"' after object key:value pair",
                lines[2],
            ],
            "{version}"
        );
        assert!(
            lines[2].contains("in 1 file (2 documents)"),
            "{}",
            run.stdout
        );
    }
}

/// YAML that starts with `{` (a flow mapping): JSON to kubectl 1.32, which cannot read it;
/// read again as YAML by 1.34 and later.
#[test]
fn yaml_in_braces_depends_on_the_version() {
    let (code, found, _) = lint(
        "testdata/json/flow-yaml.json",
        &["--kube-version", "1.32", "--select", "input"],
    );
    assert_eq!(code, 1);
    assert_eq!(found, [finding("yaml-syntax-error", 1, 2)]);
    let (code, found, documents) = lint(
        "testdata/json/flow-yaml.json",
        &[
            "--kube-version",
            "1.35",
            "--select",
            "input,toleration-exists-with-value",
        ],
    );
    assert_eq!(code, 1);
    assert_eq!(found, [finding("toleration-exists-with-value", 2, 88)]);
    assert_eq!(documents, 1);
}

/// Standard input is read the same way.
#[test]
fn standard_input_is_a_json_stream_too() {
    let text = std::fs::read("testdata/json/pods.jsonl.json").unwrap();
    let run = common::cli::taintlint(&["check", "-", "--isolated", "--format", "concise"])
        .stdin(&text)
        .run();
    assert_eq!(run.code, 1);
    assert!(
        run.stdout
            .contains("<stdin>:2:185: error[invalid-toleration-effect]"),
        "{}",
        run.stdout
    );
}

/// A JSON number is JSON's, not YAML 1.1's: the type mismatch says so.
#[test]
fn json_values_are_described_as_json() {
    let text = br#"{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "spec": {"containers": [{"name": "c", "image": "nginx"}], "nodeSelector": {"disk": 1}}}"#;
    let run = common::cli::taintlint(&[
        "check",
        "-",
        "--isolated",
        "--format",
        "concise",
        "--select",
        "yaml-type-mismatch",
    ])
    .stdin(text)
    .run();
    assert!(
        run.stdout
            .contains("error[yaml-type-mismatch] `1` is the number 1, but `disk` must be a string"),
        "{}",
        run.stdout
    );
}
