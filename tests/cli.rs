//! The real binary, one test per concern: every flag, every exit code, and every class of bad
//! input (each gives exactly one finding while a good file beside it is still linted).

#![allow(clippy::unwrap_used)] // tests may unwrap

use std::path::Path;

use serde_json::Value;

mod common;
use common::cli::{Run, root, taintlint};

/// `run_in` of the shared harness, as the tests here call it.
fn run_in(dir: &Path, args: &[&str], stdin: Option<&[u8]>, envs: &[(&str, &str)]) -> Run {
    let cmd = taintlint(args).in_dir(dir).envs(envs);
    match stdin {
        Some(bytes) => cmd.stdin(bytes).run(),
        None => cmd.run(),
    }
}

fn run(args: &[&str]) -> Run {
    run_in(&root(), args, None, &[])
}

/// `check --format json ARGS` in `dir`: exit code and parsed output.
fn json_in(dir: &Path, args: &[&str]) -> (i32, Value) {
    let mut all = vec!["check", "--format", "json"];
    all.extend_from_slice(args);
    let r = run_in(dir, &all, None, &[]);
    let v: Value = serde_json::from_str(&r.stdout)
        .unwrap_or_else(|e| panic!("invalid JSON ({e}):\n{}\n{}", r.stdout, r.stderr));
    (r.code, v)
}

fn json(args: &[&str]) -> (i32, Value) {
    json_in(&root(), args)
}

fn findings(v: &Value) -> &Vec<Value> {
    v["findings"].as_array().unwrap()
}

/// (file, rule, line, column) of every finding.
fn locs(v: &Value) -> Vec<(String, String, u64, u64)> {
    findings(v)
        .iter()
        .map(|f| {
            (
                f["file"].as_str().unwrap().to_string(),
                f["rule"].as_str().unwrap().to_string(),
                f["line"].as_u64().unwrap(),
                f["column"].as_u64().unwrap(),
            )
        })
        .collect()
}

fn loc(file: &str, rule: &str, line: u64, column: u64) -> (String, String, u64, u64) {
    (file.to_string(), rule.to_string(), line, column)
}

const GOOD: &str = "testdata/input/good.yaml";

/// For tests that pin exact findings: the loader's rules and the one toleration rule
/// `good.yaml` trips, so rules added later do not change the expectations.
const SEL: &str = "--select=input,toleration-exists-with-value";

/// `good.yaml`'s own finding: proof that it was linted.
fn good_finding() -> (String, String, u64, u64) {
    loc(GOOD, "toleration-exists-with-value", 13, 14)
}

// ---------------------------------------------------------------- exit codes

const CLEAN: &str = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\ndata:\n  a: b\n---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: web\nspec:\n  containers: [{name: web, image: nginx}]\n";

#[test]
fn exit_0_when_clean() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "clean.yaml", CLEAN);
    let r = run_in(dir.path(), &["check", "clean.yaml"], None, &[]);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    assert_eq!(r.stdout, "no findings in 1 file (2 documents)\n");
    assert_eq!(r.stderr, "");
}

#[test]
fn exit_1_when_findings() {
    let r = run(&["check", "testdata/examples"]);
    assert_eq!(r.code, 1, "{}{}", r.stdout, r.stderr);
    assert!(
        r.stdout.ends_with(" in 6 files (9 documents)\n"),
        "{}",
        r.stdout
    );
    assert!(r.stdout.contains("errors"), "{}", r.stdout);
}

#[test]
fn fail_on_thresholds() {
    // An error finding and an info finding.
    let error = "testdata/input/good.yaml";
    let info = "testdata/input/helm-template.yaml";
    let cases = [
        (error, "error", 1),
        (error, "warning", 1),
        (error, "info", 1),
        (error, "never", 0),
        (info, "error", 0),
        (info, "warning", 0),
        (info, "info", 1),
        (info, "never", 0),
    ];
    for (file, fail_on, want) in cases {
        let r = run(&["check", "--fail-on", fail_on, file]);
        assert_eq!(r.code, want, "--fail-on {fail_on} {file}:\n{}", r.stdout);
    }
    // The default is `warning`.
    assert_eq!(run(&["check", info]).code, 0);
}

#[test]
fn exit_2_for_tool_errors() {
    let cases: &[(&[&str], &str)] = &[
        (&["check", "does/not/exist.yaml"], "does/not/exist.yaml"),
        (
            &["check", "testdata/examples", "missing-dir"],
            "missing-dir",
        ),
        (
            &[
                "check",
                "--select",
                "toleration-exists-with-valeu",
                "testdata/examples",
            ],
            "did you mean `toleration-exists-with-value`",
        ),
        (
            &["check", "--ignore", "no-such-rule", "testdata/examples"],
            "unknown rule `no-such-rule`",
        ),
        (
            &["check", "--kube-version", "2.0", "testdata/examples"],
            "Kubernetes version",
        ),
        (
            &["check", "--kube-version", "1.x", "testdata/examples"],
            "Kubernetes version",
        ),
        (
            &["check", "--kube-version", "1.99", "testdata/examples"],
            "Kubernetes version",
        ),
        (
            &["check", "--no-such-flag", "testdata/examples"],
            "--no-such-flag",
        ),
        (&["check", "--format", "xml", "testdata/examples"], "xml"),
        (
            &["check", "--fail-on", "sometimes", "testdata/examples"],
            "sometimes",
        ),
        (
            &["check", "--color", "rainbow", "testdata/examples"],
            "rainbow",
        ),
        (&["check", "--threads", "many", "testdata/examples"], "many"),
        (
            &["check", "--exclude", "a[", "testdata/examples"],
            "invalid glob",
        ),
        (
            &["check", "--feature-gates", "Nope=true", "testdata/examples"],
            "Nope",
        ),
        (
            &[
                "check",
                "--admission-plugin",
                "AlwaysPullImages",
                "testdata/examples",
            ],
            "unknown admission plugin `AlwaysPullImages`",
        ),
        (&["frobnicate"], "frobnicate"),
        (&[], "Usage"),
    ];
    for (args, needle) in cases {
        let r = run(args);
        assert_eq!(
            r.code, 2,
            "{args:?} should exit 2:\n{}{}",
            r.stdout, r.stderr
        );
        assert!(
            r.stderr.contains(needle),
            "{args:?}: stderr lacks {needle:?}:\n{}",
            r.stderr
        );
        assert!(!r.stdout.contains("findings"), "{args:?} printed a report");
    }
}

#[test]
fn help_and_version_exit_0() {
    for args in [&["--help"][..], &["check", "--help"], &["--version"]] {
        let r = run(args);
        assert_eq!(r.code, 0, "{args:?}: {}", r.stderr);
        assert!(!r.stdout.is_empty());
    }
    assert!(run(&["--version"]).stdout.starts_with("taintlint "));
}

// ---------------------------------------------------------------- JSON contract

#[test]
fn json_follows_the_contract() {
    let (code, v) = json(&["testdata"]);
    assert_eq!(code, 1);
    let top: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(top, ["findings", "summary", "version"]);
    assert_eq!(v["version"], 1);

    let fields = [
        "api_error",
        "column",
        "end_column",
        "end_line",
        "field",
        "file",
        "fix",
        "help",
        "line",
        "message",
        "object",
        "related",
        "rule",
        "severity",
    ];
    let all = findings(&v);
    assert!(all.len() >= 10);
    for f in all {
        let mut keys: Vec<&str> = f.as_object().unwrap().keys().map(String::as_str).collect();
        // Cross-reference findings also say their cluster (added in contract version 1).
        if let Some(i) = keys.iter().position(|k| *k == "cluster") {
            keys.remove(i);
            assert!(f["cluster"].is_string() || f["cluster"].is_null(), "{f}");
        }
        assert_eq!(keys, fields, "{f}");
        assert!(f["rule"].is_string() && f["message"].is_string() && f["file"].is_string());
        assert!(["error", "warning", "info"].contains(&f["severity"].as_str().unwrap()));
        assert!(f["help"].is_string() || f["help"].is_null());
        assert!(f["field"].is_string() || f["field"].is_null());
        assert!(f["api_error"].is_string() || f["api_error"].is_null());
        for k in ["line", "column", "end_line", "end_column"] {
            assert!(f[k].as_u64().unwrap() >= 1, "{k} is 1-based: {f}");
        }
        let start = (f["line"].as_u64(), f["column"].as_u64());
        let end = (f["end_line"].as_u64(), f["end_column"].as_u64());
        assert!(start <= end, "{f}");
        match &f["object"] {
            Value::Null => {}
            Value::Object(o) => {
                let keys: Vec<&str> = o.keys().map(String::as_str).collect();
                assert_eq!(keys, ["apiVersion", "kind", "name", "namespace"]);
                assert!(o["apiVersion"].is_string() && o["kind"].is_string());
            }
            other => panic!("object must be an object or null: {other}"),
        }
        for r in f["related"].as_array().unwrap() {
            let keys: Vec<&str> = r.as_object().unwrap().keys().map(String::as_str).collect();
            assert_eq!(keys, ["column", "file", "line", "message"]);
        }
    }

    // Sorted by file, line, column, rule.
    let keys: Vec<_> = all
        .iter()
        .map(|f| {
            (
                f["file"].as_str().unwrap().to_string(),
                f["line"].as_u64().unwrap(),
                f["column"].as_u64().unwrap(),
                f["rule"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let mut sorted = keys.clone();
    sorted.sort();
    assert_eq!(keys, sorted);

    let summary = v["summary"].as_object().unwrap();
    let keys: Vec<&str> = summary.keys().map(String::as_str).collect();
    assert_eq!(
        keys,
        [
            "baselined",
            "documents",
            "errors",
            "files",
            "infos",
            "objects",
            "warnings"
        ]
    );
    let count = |sev: &str| all.iter().filter(|f| f["severity"] == sev).count() as u64;
    assert_eq!(summary["errors"].as_u64().unwrap(), count("error"));
    assert_eq!(summary["warnings"].as_u64().unwrap(), count("warning"));
    assert_eq!(summary["infos"].as_u64().unwrap(), count("info"));
}

#[test]
fn json_finding_for_a_toleration() {
    let (_, v) = json(&[
        "--select",
        "toleration-exists-with-value",
        "testdata/examples/deployment-gpu-trainer.yaml",
    ]);
    let f = &findings(&v)[0];
    assert_eq!(f["rule"], "toleration-exists-with-value");
    assert_eq!(f["severity"], "error");
    assert_eq!(f["file"], "testdata/examples/deployment-gpu-trainer.yaml");
    assert_eq!(
        (f["line"].as_u64(), f["column"].as_u64()),
        (Some(25), Some(18))
    );
    assert_eq!(
        (f["end_line"].as_u64(), f["end_column"].as_u64()),
        (Some(25), Some(24))
    );
    assert_eq!(f["field"], "spec.template.spec.tolerations[0].value");
    assert_eq!(
        f["object"],
        serde_json::json!({"apiVersion": "apps/v1", "kind": "Deployment", "namespace": "ml", "name": "gpu-trainer"})
    );
    assert_eq!(
        f["api_error"],
        "spec.template.spec.tolerations[0].operator: Invalid value: \"true\": value must be empty when `operator` is 'Exists'"
    );
    assert_eq!(
        v["summary"],
        serde_json::json!({"files": 1, "documents": 1, "objects": 1, "errors": 1, "warnings": 0, "infos": 0, "baselined": 0})
    );
}

#[test]
fn format_from_environment() {
    let r = run_in(
        &root(),
        &["check", "testdata/examples"],
        None,
        &[("TAINTLINT_FORMAT", "json")],
    );
    let v: Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(v["version"], 1);
}

// ---------------------------------------------------------------- determinism

#[test]
fn threads_do_not_change_output() {
    for format in ["human", "json"] {
        let one = run(&[
            "check",
            "--color",
            "never",
            "--format",
            format,
            "--threads",
            "1",
            "testdata",
        ]);
        let two = run(&[
            "check",
            "--color",
            "never",
            "--format",
            format,
            "--threads",
            "2",
            "testdata",
        ]);
        let default = run(&["check", "--color", "never", "--format", format, "testdata"]);
        assert_eq!(one.code, 1);
        assert_eq!(one.stdout, two.stdout, "--format {format}");
        assert_eq!(one.stdout, default.stdout, "--format {format}");
        assert_eq!((one.code, two.code), (default.code, default.code));
    }
}

// ---------------------------------------------------------------- stdin

#[test]
fn stdin_with_and_without_a_name() {
    let text = std::fs::read(root().join("testdata/examples/pod-debug.yaml")).unwrap();
    let r = run_in(
        &root(),
        &[
            "check",
            "--format",
            "json",
            "--select",
            "toleration-exists-with-value",
            "-",
            "--stdin-filename",
            "chart/pod.yaml",
        ],
        Some(&text),
        &[],
    );
    assert_eq!(r.code, 1);
    let v: Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(
        locs(&v),
        [loc(
            "chart/pod.yaml",
            "toleration-exists-with-value",
            14,
            14
        )]
    );

    let r = run_in(
        &root(),
        &["check", "--color", "never", "-"],
        Some(&text),
        &[],
    );
    assert_eq!(r.code, 1);
    assert!(r.stdout.contains("[<stdin>:14:14]"), "{}", r.stdout);

    let r = run_in(&root(), &["check", "-"], Some(CLEAN.as_bytes()), &[]);
    assert_eq!(r.code, 0, "{}", r.stdout);
}

#[test]
fn stdin_together_with_files() {
    let (code, v) = {
        let r = run_in(
            &root(),
            &[
                "check",
                "--format",
                "json",
                "--select",
                "input,toleration-exists-with-value",
                "-",
                GOOD,
            ],
            Some(b"a: [\n"),
            &[],
        );
        (r.code, serde_json::from_str::<Value>(&r.stdout).unwrap())
    };
    assert_eq!(code, 1);
    let rules: Vec<_> = locs(&v).into_iter().map(|l| (l.0, l.1)).collect();
    assert_eq!(
        rules,
        [
            ("<stdin>".to_string(), "yaml-syntax-error".to_string()),
            (GOOD.to_string(), "toleration-exists-with-value".to_string()),
        ]
    );
    assert_eq!(v["summary"]["files"], 2);
}

// ---------------------------------------------------------------- walking

const BAD_POD: &str = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  tolerations:\n    - key: k\n      operator: Exists\n      value: v\n";

fn write(dir: &Path, rel: &str, text: &str) {
    let path = dir.join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

fn files_with_findings(dir: &Path, args: &[&str]) -> Vec<String> {
    let (_, v) = json_in(dir, args);
    let mut files: Vec<String> = findings(&v)
        .iter()
        .map(|f| f["file"].as_str().unwrap().to_string())
        .collect();
    files.dedup();
    files
}

fn tree() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for rel in [
        "a.yaml",
        "b.yml",
        "c.json.txt",
        "sub/d.yaml",
        "vendor/e.yaml",
        ".git/f.yaml",
        ".hg/g.yaml",
        "sub/.svn/h.yaml",
        ".hidden/i.yaml",
    ] {
        write(dir.path(), rel, BAD_POD);
    }
    write(
        dir.path(),
        "j.json",
        r#"{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "j"}, "spec": {"tolerations": [{"key": "k", "operator": "Exists", "value": "v"}]}}"#,
    );
    dir
}

#[test]
fn walk_defaults_skip_vcs_folders() {
    let dir = tree();
    assert_eq!(
        files_with_findings(dir.path(), &["."]),
        [
            ".hidden/i.yaml",
            "a.yaml",
            "b.yml",
            "j.json",
            "sub/d.yaml",
            "vendor/e.yaml"
        ]
    );
    // The default path is `.`.
    assert_eq!(
        files_with_findings(dir.path(), &[]),
        files_with_findings(dir.path(), &["."])
    );
}

#[test]
fn walk_include_and_exclude() {
    let dir = tree();
    assert_eq!(
        files_with_findings(
            dir.path(),
            &[".", "--exclude", "vendor/**", "--exclude", ".hidden"]
        ),
        ["a.yaml", "b.yml", "j.json", "sub/d.yaml"]
    );
    assert_eq!(
        files_with_findings(dir.path(), &[".", "--exclude", "*.yml"]),
        [
            ".hidden/i.yaml",
            "a.yaml",
            "j.json",
            "sub/d.yaml",
            "vendor/e.yaml"
        ]
    );
    assert_eq!(
        files_with_findings(dir.path(), &[".", "--include", "*.txt"]),
        ["c.json.txt"]
    );
    assert_eq!(
        files_with_findings(
            dir.path(),
            &["sub", "--include", "*.txt", "--include", "*.yaml"]
        ),
        ["sub/d.yaml"]
    );
}

#[test]
fn files_named_explicitly_are_always_linted() {
    let dir = tree();
    assert_eq!(
        files_with_findings(dir.path(), &["c.json.txt", ".git/f.yaml"]),
        [".git/f.yaml", "c.json.txt"]
    );
}

#[test]
fn walk_output_is_sorted_and_deduplicated() {
    let dir = tree();
    let (_, v) = json_in(dir.path(), &[SEL, "sub", "a.yaml", "sub/d.yaml", "b.yml"]);
    let files: Vec<_> = locs(&v).into_iter().map(|l| l.0).collect();
    assert_eq!(files, ["a.yaml", "b.yml", "sub/d.yaml"]);
    assert_eq!(v["summary"]["files"], 3);
}

// ---------------------------------------------------------------- rule selection

#[test]
fn select_and_ignore() {
    let rules_of = |args: &[&str]| -> Vec<String> {
        let mut all = args.to_vec();
        all.push("testdata");
        let (_, v) = json(&all);
        let mut r: Vec<String> = locs(&v).into_iter().map(|l| l.1).collect();
        r.sort();
        r.dedup();
        r
    };
    assert_eq!(
        rules_of(&["--select", "yaml-syntax-error"]),
        ["yaml-syntax-error"]
    );
    assert_eq!(
        rules_of(&["--select", "yaml-syntax-error,invalid-encoding"]),
        ["invalid-encoding", "yaml-syntax-error"]
    );
    assert_eq!(
        rules_of(&[
            "--select",
            "yaml-syntax-error",
            "--select",
            "yaml-too-complex"
        ]),
        ["yaml-syntax-error", "yaml-too-complex"]
    );
    assert_eq!(
        rules_of(&["--select", "input"]),
        [
            "invalid-encoding",
            "template-not-rendered",
            "unjudged-custom-kind",
            "yaml-syntax-error",
            "yaml-too-complex"
        ]
    );
    let all = rules_of(&[]);
    assert!(all.contains(&"toleration-exists-with-value".to_string()));
    let without = rules_of(&["--ignore", "toleration-exists-with-value"]);
    assert!(!without.contains(&"toleration-exists-with-value".to_string()));
    assert_eq!(without.len() + 1, all.len());
    assert!(
        rules_of(&["--ignore", "input"])
            .iter()
            .all(|r| r != "yaml-syntax-error")
    );
    assert!(rules_of(&["--select", "all", "--ignore", "all"]).is_empty());
}

// ---------------------------------------------------------------- human output

#[test]
fn color_never_and_no_color() {
    let never = run(&["check", "--color", "never", "testdata/examples"]);
    assert!(!never.stdout.contains('\x1b'));
    let auto = run_in(
        &root(),
        &["check", "--color", "auto", "testdata/examples"],
        None,
        &[("NO_COLOR", "1")],
    );
    assert!(!auto.stdout.contains('\x1b'));
    assert_eq!(never.stdout, auto.stdout);
    // Not a terminal: `auto` means no colour even without NO_COLOR.
    let piped = run(&["check", "testdata/examples"]);
    assert_eq!(never.stdout, piped.stdout);
    let always = run(&["check", "--color", "always", "testdata/examples"]);
    assert!(always.stdout.contains('\x1b'));
    assert_eq!(always.code, 1);
}

#[test]
fn quiet_prints_no_summary() {
    let loud = run(&["check", "--color", "never", "testdata/examples"]);
    let quiet = run(&["check", "--color", "never", "-q", "testdata/examples"]);
    let long = run(&["check", "--color", "never", "--quiet", "testdata/examples"]);
    assert_eq!(quiet.code, 1);
    assert_eq!(quiet.stdout, long.stdout);
    assert!(!quiet.stdout.contains("in 6 files"));
    let summary = loud
        .stdout
        .strip_prefix(&quiet.stdout)
        .expect("same findings");
    assert!(
        summary.ends_with(" in 6 files (9 documents)\n"),
        "{summary}"
    );
    // The summary, after the `[*] N fixable` hint when there are fixes.
    assert_eq!(
        summary.lines().filter(|l| !l.starts_with("[*] ")).count(),
        1
    );
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "clean.yaml", CLEAN);
    let clean = run_in(dir.path(), &["check", "-q"], None, &[]);
    assert_eq!((clean.code, clean.stdout.as_str()), (0, ""));
}

#[test]
fn human_output_names_file_line_column_rule_and_help() {
    let r = run(&[
        "check",
        "--color",
        "never",
        "testdata/examples/pod-debug.yaml",
    ]);
    assert!(r.stdout.contains("toleration-exists-with-value"));
    assert!(
        r.stdout
            .contains("[testdata/examples/pod-debug.yaml:14:14]")
    );
    assert!(r.stdout.contains("help: remove `value`"));
    assert!(
        r.stdout
            .contains("the API server answers: spec.tolerations[0].operator")
    );
}

// ---------------------------------------------------------------- rules and rule

#[test]
fn rules_lists_every_rule() {
    let r = run(&["rules"]);
    assert_eq!(r.code, 0);
    let lines: Vec<&str> = r.stdout.lines().collect();
    assert_eq!(
        lines.len(),
        taintlint::rules::RULES.len() + 1,
        "{}",
        r.stdout
    );
    for (line, rule) in lines[1..].iter().zip(taintlint::rules::RULES) {
        let m = rule.meta;
        let sev = if m.enabled {
            m.severity.as_str()
        } else {
            "off"
        };
        let words: Vec<&str> = line.split_whitespace().collect();
        assert_eq!(&words[..3], [m.name, sev, m.category.as_str()], "{line}");
        assert!(line.ends_with(m.summary), "{line}");
    }
}

#[test]
fn rule_prints_its_page() {
    for rule in taintlint::rules::RULES {
        let r = run(&["rule", rule.meta.name]);
        assert_eq!(r.code, 0);
        // The page embedded in the binary (`tests/docs.rs` checks it is the file).
        assert_eq!(r.stdout, rule.meta.docs);
    }
    let r = run(&["rule", "toleration-exist-with-value"]);
    assert_eq!(r.code, 2);
    assert!(
        r.stderr
            .contains("did you mean `toleration-exists-with-value`"),
        "{}",
        r.stderr
    );
    assert_eq!(r.stdout, "");
    assert_eq!(run(&["rule"]).code, 2);
}

// ---------------------------------------------------------------- bad input

/// Lints `fixture` and `good.yaml` together (all default rules): the fixture's findings, and
/// whether `good.yaml` was linted (its toleration finding is there).
fn with_good(fixture: &str) -> (i32, Vec<(String, String, u64, u64)>) {
    let (code, v) = json(&[fixture, GOOD]);
    let all = locs(&v);
    assert!(
        all.contains(&good_finding()),
        "{GOOD} was not linted beside {fixture}: {all:?}"
    );
    assert!(all.iter().all(|l| l.0 == fixture || l.0 == GOOD));
    (code, all.into_iter().filter(|l| l.0 == fixture).collect())
}

#[test]
fn bad_input_fixtures_give_one_finding_each() {
    let cases = [
        ("syntax-error.yaml", "yaml-syntax-error", 8, 17),
        // kubectl reads what follows a `---` line alone: a `...` first is go-yaml's error.
        ("document-end-first.yaml", "yaml-syntax-error", 8, 1),
        ("invalid-utf8.yaml", "invalid-encoding", 4, 12),
        ("nul-byte.yaml", "invalid-encoding", 4, 10),
        ("utf16.yaml", "invalid-encoding", 1, 1),
        ("alias-bomb.yaml", "yaml-too-complex", 7, 8),
        ("deep-nesting.yaml", "yaml-too-complex", 1, 256),
        ("helm-template.yaml", "template-not-rendered", 4, 9),
        // A Terraform template's directive breaks the YAML: the template's, not a syntax error.
        ("terraform-template.yaml", "template-not-rendered", 9, 1),
        // Named as a template: not parsed at all.
        ("deploy.yaml.j2", "template-not-rendered", 5, 9),
    ];
    for (name, rule, line, column) in cases {
        let path = format!("testdata/input/{name}");
        let (code, found) = with_good(&path);
        assert_eq!(code, 1, "{name}");
        assert_eq!(found, [loc(&path, rule, line, column)], "{name}");
    }
}

/// An envsubst template that parses is linted, except the values that hold a placeholder
/// (no `invalid-toleration-value` for `${DEDICATED_VALUE}`), and the workload whose
/// scheduling fields hold one is not cross-referenced; one info says so.
#[test]
fn envsubst_placeholders_are_not_values() {
    let path = "testdata/input/envsubst.yaml";
    let (code, v) = json(&["--isolated", path, "testdata/examples/nodes.yaml"]);
    assert_eq!(code, 1);
    let found: Vec<(String, u64)> = findings(&v)
        .iter()
        .filter(|f| f["file"] == path)
        .map(|f| {
            (
                f["rule"].as_str().unwrap().to_string(),
                f["line"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        found,
        [
            ("template-not-rendered".to_string(), 6),
            ("toleration-exists-with-value".to_string(), 24),
        ],
        "{v:#}"
    );
}

#[test]
fn files_that_are_not_objects_are_skipped_silently() {
    for name in [
        "kustomize-patch.yaml",
        "empty-documents.yaml",
        "comment-only.yaml",
    ] {
        let path = format!("testdata/input/{name}");
        let (code, found) = with_good(&path);
        assert_eq!(code, 1);
        assert_eq!(found, [], "{name}");
        let r = run(&["check", &path]);
        assert_eq!(r.code, 0, "{name}: {}", r.stdout);
    }
}

/// A double-quoted scalar continued at its key's indentation, lines starting with escapes
/// (issue 35): read as kubectl reads it, so the DaemonSet after it is linted, at its lines.
#[test]
fn quoted_scalar_with_escapes_at_the_keys_indentation_is_read() {
    let path = "testdata/input/quoted-escape-continuation.yaml";
    let (code, found) = with_good(path);
    assert_eq!(code, 1);
    assert_eq!(
        found,
        [
            loc(path, "tolerates-all-taints", 28, 11),
            loc(path, "toleration-exists-with-value", 29, 18)
        ],
    );
}

#[test]
fn crlf_and_bom_files_are_linted_with_true_positions() {
    for name in ["crlf.yaml", "bom.yaml"] {
        let path = format!("testdata/input/{name}");
        let (_, v) = json(&["--select", "toleration-exists-with-value", &path]);
        assert_eq!(
            locs(&v),
            [loc(&path, "toleration-exists-with-value", 10, 14)]
        );
        let f = &findings(&v)[0];
        assert_eq!(
            (f["end_line"].as_u64(), f["end_column"].as_u64()),
            (Some(10), Some(14 + name.len() as u64 - 5))
        );
    }
}

#[test]
fn encodings_generated_at_test_time() {
    let dir = tempfile::tempdir().unwrap();
    let good = std::fs::read(root().join(GOOD)).unwrap();
    std::fs::write(dir.path().join("good.yaml"), &good).unwrap();
    // UTF-16 big-endian with BOM, and without a BOM.
    let utf16: Vec<u8> = "apiVersion: v1\nkind: Pod\n"
        .encode_utf16()
        .flat_map(u16::to_be_bytes)
        .collect();
    let mut be = vec![0xFE, 0xFF];
    be.extend(&utf16);
    std::fs::write(dir.path().join("be.yaml"), be).unwrap();
    std::fs::write(dir.path().join("nobom.yaml"), &utf16).unwrap();
    // Latin-1 on line 3, NUL on line 2.
    std::fs::write(
        dir.path().join("latin1.yaml"),
        b"a: 1\nb: 2\nc: \xe9t\xe9\n",
    )
    .unwrap();
    std::fs::write(dir.path().join("nul.yaml"), b"a: 1\nb: \x00\n").unwrap();
    let (_, v) = json_in(dir.path(), &[SEL, "."]);
    assert_eq!(
        locs(&v),
        [
            loc("be.yaml", "invalid-encoding", 1, 1),
            loc("good.yaml", "toleration-exists-with-value", 13, 14),
            loc("latin1.yaml", "invalid-encoding", 3, 4),
            loc("nobom.yaml", "invalid-encoding", 1, 1),
            loc("nul.yaml", "invalid-encoding", 2, 4),
        ]
    );
}

#[test]
fn oversized_file_is_reported_not_read() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(root().join(GOOD), dir.path().join("good.yaml")).unwrap();
    let big = format!("# {}\n", "x".repeat(5000));
    std::fs::write(dir.path().join("big.yaml"), big).unwrap();
    let (code, v) = json_in(dir.path(), &[SEL, ".", "--max-file-size", "1000"]);
    assert_eq!(code, 1);
    assert_eq!(
        locs(&v),
        [
            loc("big.yaml", "unreadable-file", 1, 1),
            loc("good.yaml", "toleration-exists-with-value", 13, 14),
        ]
    );
    let msg = findings(&v)[0]["message"].as_str().unwrap();
    assert!(
        msg.contains("5003 bytes") && msg.contains("1000-byte limit"),
        "{msg}"
    );
    // Stdin honours the limit too.
    let r = run_in(
        dir.path(),
        &["check", "--format", "json", "--max-file-size", "1000", "-"],
        Some(&vec![b'#'; 5000]),
        &[],
    );
    let v: Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(locs(&v), [loc("<stdin>", "unreadable-file", 1, 1)]);
}

#[cfg(unix)]
#[test]
fn fifo_is_never_opened() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(root().join(GOOD), dir.path().join("good.yaml")).unwrap();
    let status = std::process::Command::new("mkfifo")
        .arg(dir.path().join("pipe.yaml"))
        .status()
        .expect("mkfifo");
    assert!(status.success());
    // Named explicitly: one finding, no hang.
    let (code, v) = json_in(dir.path(), &[SEL, "pipe.yaml", "good.yaml"]);
    assert_eq!(code, 1);
    assert_eq!(
        locs(&v),
        [
            loc("good.yaml", "toleration-exists-with-value", 13, 14),
            loc("pipe.yaml", "unreadable-file", 1, 1),
        ]
    );
    assert!(
        findings(&v)[1]["message"]
            .as_str()
            .unwrap()
            .contains("FIFO")
    );
    // Met while walking: reported the same way, never opened.
    let (_, v) = json_in(dir.path(), &[SEL, "."]);
    assert_eq!(
        locs(&v),
        [
            loc("good.yaml", "toleration-exists-with-value", 13, 14),
            loc("pipe.yaml", "unreadable-file", 1, 1),
        ]
    );
}

#[cfg(unix)]
#[test]
fn symlink_loop_with_follow_links() {
    use std::os::unix::fs::symlink;
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::create_dir(d.join("m")).unwrap();
    std::fs::copy(root().join(GOOD), d.join("m/good.yaml")).unwrap();
    symlink(".", d.join("m/loop")).unwrap();
    symlink("good.yaml", d.join("m/link.yaml")).unwrap();
    symlink("missing.yaml", d.join("m/dangling.yaml")).unwrap();

    // Not following links: links are neither read nor reported.
    let (_, v) = json_in(d, &[SEL, "m"]);
    assert_eq!(
        locs(&v),
        [loc("m/good.yaml", "toleration-exists-with-value", 13, 14)]
    );

    let (code, v) = json_in(d, &[SEL, "m", "--follow-links"]);
    assert_eq!(code, 1);
    let found = locs(&v);
    assert_eq!(
        found,
        [
            loc("m/dangling.yaml", "unreadable-file", 1, 1),
            loc("m/good.yaml", "toleration-exists-with-value", 13, 14),
            // m/link.yaml is m/good.yaml under another name: linted once, by its own name.
            loc("m/loop", "unreadable-file", 1, 1),
        ]
    );
    assert!(
        findings(&v)[2]["message"]
            .as_str()
            .unwrap()
            .contains("loop")
    );

    // Two links pointing at each other.
    let e = tempfile::tempdir().unwrap();
    symlink("b.yaml", e.path().join("a.yaml")).unwrap();
    symlink("a.yaml", e.path().join("b.yaml")).unwrap();
    let (code, v) = json_in(e.path(), &[SEL, ".", "--follow-links"]);
    assert_eq!(code, 1);
    assert_eq!(
        locs(&v),
        [
            loc("a.yaml", "unreadable-file", 1, 1),
            loc("b.yaml", "unreadable-file", 1, 1),
        ]
    );
    let (code, v) = json_in(e.path(), &["."]);
    assert_eq!((code, locs(&v)), (0, vec![]));
}

/// Input forms of issue 27, each what it is: a bare `$VAR` in an envsubst template is a
/// placeholder (no invalid label or toleration value); a `%{` in a YAML comment makes no
/// Terraform template (the file is linted); a printf format and JSON with comments are no
/// YAML a user applies (an info, not a syntax error).
#[test]
fn issue_27_input_forms() {
    let rules = |path: &str| -> Vec<(String, u64)> {
        let (_, v) = json(&["--isolated", path]);
        findings(&v)
            .iter()
            .map(|f| {
                (
                    f["rule"].as_str().unwrap().to_string(),
                    f["line"].as_u64().unwrap(),
                )
            })
            .collect()
    };
    assert_eq!(
        rules("testdata/input/envsubst-bare.yaml"),
        [("template-not-rendered".to_string(), 6)]
    );
    let comment = rules("testdata/input/comment-directive.yaml");
    assert!(
        comment.contains(&("toleration-exists-with-value".to_string(), 12)),
        "{comment:?}"
    );
    assert!(
        comment.iter().all(|(r, _)| r != "template-not-rendered"),
        "{comment:?}"
    );
    assert_eq!(
        rules("testdata/input/printf-format.yaml"),
        [("template-not-rendered".to_string(), 6)]
    );
    assert_eq!(
        rules("testdata/input/devcontainer.json"),
        [("template-not-rendered".to_string(), 1)]
    );
}
