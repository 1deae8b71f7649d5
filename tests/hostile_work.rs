//! Issue 49: a hostile pull request's files that made work out of proportion to their size —
//! one test per class of the third attack, at a size that runs in CI time. Each checks what
//! the run says (a clear finding where the file's work meter ran out, or the file read as
//! kubectl and Terraform read it), never how long it took: `bench/hostile.py` measures that.

use std::path::Path;
use std::process::{Command, Stdio};

use serde_json::Value;

const BIN: &str = env!("CARGO_BIN_EXE_taintlint");

/// `taintlint check --format json --isolated ARGS` in `dir`: the exit code and the findings.
fn check(dir: &Path, args: &[&str]) -> (i32, Vec<Value>) {
    let out = Command::new(BIN)
        .arg("check")
        .args(["--format", "json", "--isolated"])
        .args(args)
        .current_dir(dir)
        .env_remove("TAINTLINT_FORMAT")
        .stdin(Stdio::null())
        .output()
        .expect("runs");
    let v: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "{e}: {}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    });
    let findings = v["findings"].as_array().cloned().unwrap_or_default();
    (out.status.code().unwrap_or(-1), findings)
}

fn rule_line_message(f: &Value) -> (String, u64, String) {
    (
        f["rule"].as_str().unwrap_or("").to_string(),
        f["line"].as_u64().unwrap_or(0),
        f["message"].as_str().unwrap_or("").to_string(),
    )
}

/// One `yaml-too-complex` finding whose message holds `words`, at `line`.
fn one_limit(findings: &[Value], line: u64, words: &str) {
    let got: Vec<_> = findings.iter().map(rule_line_message).collect();
    assert_eq!(got.len(), 1, "{got:?}");
    let (rule, at, message) = &got[0];
    assert_eq!(rule, "yaml-too-complex", "{got:?}");
    assert_eq!(*at, line, "{got:?}");
    assert!(message.contains(words), "{message}");
}

fn write(dir: &Path, name: &str, text: &str) {
    std::fs::write(dir.join(name), text).expect("write");
}

/// Holes 1 and 4: a short `for_each` over a long collection, a function over a large value
/// many times, `contains` over a long list many times, `==` of long lists: an info at the
/// place where the evaluation's meter ran out.
#[test]
fn terraform_evaluation_is_charged_by_its_work() {
    let cases = [
        (
            "resource \"aws_eks_node_group\" \"g\" {\n  for_each = toset([for i in range(1000000) : tostring(i)])\n  node_group_name = each.key\n}\n".to_string(),
            2,
        ),
        (
            format!(
                "locals {{\n  big = \"{}\"\n  x = [for i in range(4000) : upper(local.big)]\n}}\nresource \"aws_eks_node_group\" \"g\" {{\n  node_group_name = \"g\"\n  labels = {{ n = length(local.x) }}\n}}\n",
                "a".repeat(1 << 20)
            ),
            3,
        ),
        (
            "locals {\n  l = [for i in range(100000) : tostring(i)]\n  x = [for i in range(40000) : contains(local.l, \"zz\")]\n}\nresource \"aws_eks_node_group\" \"g\" {\n  node_group_name = \"g\"\n  labels = { n = length(local.x) }\n}\n".to_string(),
            3,
        ),
        (
            "locals {\n  l = [for i in range(100000) : tostring(i)]\n  x = [for i in range(40000) : local.l == local.l ? 1 : 2]\n}\nresource \"aws_eks_node_group\" \"g\" {\n  node_group_name = \"g\"\n  labels = { n = length(local.x) }\n}\n".to_string(),
            3,
        ),
    ];
    for (text, line) in cases {
        let dir = tempfile::tempdir().expect("dir");
        write(dir.path(), "main.tf", &text);
        let (code, findings) = check(dir.path(), &["."]);
        assert_eq!(code, 0, "an info: {findings:?}");
        one_limit(
            &findings,
            line,
            "took more work than the size of the files allows",
        );
    }
}

/// Holes 2 and 3: an object the parser would take the square of its keys to read, wherever it
/// sits; objects near the limit with repeated keys, each repeat a parse of the file.
#[test]
fn terraform_objects_are_seen_wherever_they_sit() {
    let keys: Vec<String> = (0..6000).map(|i| format!("k{i} = {i}")).collect();
    let big = format!("{{ {} }}", keys.join(", "));
    let json_keys: Vec<String> = (0..6000).map(|i| format!("k{i} = {i}")).collect();
    let cases = [
        (
            "main.tf",
            format!("locals {{\n  x = [for k, v in {big} : k]\n}}\n"),
            2,
        ),
        (
            "main.tf",
            format!("locals {{\n  x = \"${{ {big} }}\"\n}}\n"),
            2,
        ),
        (
            "main.tf",
            format!("locals {{\n  x = var.a || {big}\n}}\n"),
            2,
        ),
        (
            "main.tf.json",
            format!(
                "{{\"locals\": {{\n  \"x\": \"${{ {{ {} }} }}\"\n}}}}\n",
                json_keys.join(", ")
            ),
            2,
        ),
    ];
    for (name, text, line) in cases {
        let dir = tempfile::tempdir().expect("dir");
        write(dir.path(), name, &text);
        let (code, findings) = check(dir.path(), &["."]);
        assert_eq!(code, 1, "{findings:?}");
        one_limit(&findings, line, "keys");
    }
    // Repeats among objects near the limit.
    let near: Vec<String> = (0..4990).map(|i| format!("k{i} = {i}")).collect();
    let mut text = String::from("locals {\n");
    for o in 0..4 {
        text.push_str(&format!("  o{o} = {{ {} }}\n", near.join(", ")));
    }
    for r in 0..150 {
        text.push_str(&format!("  r{r} = {{ a = 1, a = 2 }}\n"));
    }
    text.push_str("}\n");
    let dir = tempfile::tempdir().expect("dir");
    write(dir.path(), "main.tf", &text);
    let (_, findings) = check(dir.path(), &["."]);
    let limits: Vec<_> = findings
        .iter()
        .map(rule_line_message)
        .filter(|(r, _, _)| r == "yaml-too-complex")
        .collect();
    assert_eq!(limits.len(), 1, "{limits:?}");
    assert!(
        limits[0].2.contains("more work") || limits[0].2.contains("size allows"),
        "{limits:?}"
    );
}

/// Holes 5, 6 and 7: the YAML layers that read what go-yaml reads. A flow collection opened
/// far to the right and continued on short lines (its re-indentation would grow the text by
/// the column for each line): a finding at the line. Hundreds of `\'` escapes in each of
/// many documents, and line separators in quoted keys: read whole, as go-yaml reads them,
/// each kind in a pass or a few.
#[test]
fn yaml_parity_work_is_one_meter_per_file() {
    let dir = tempfile::tempdir().expect("dir");
    let mut text = String::from(
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers: [{name: c, image: i}]\n  nodeSelector:\n",
    );
    text.push_str(&" ".repeat(200_000));
    text.push_str("a: [\n");
    text.push_str(&"1,\n".repeat(2_000));
    text.push_str("1]\n");
    write(dir.path(), "reindent.yaml", &text);
    let (code, findings) = check(dir.path(), &["reindent.yaml"]);
    assert_eq!(code, 1);
    // At the first line it had to indent.
    one_limit(&findings, 9, "indenting a flow collection");

    let doc = |d: usize, keys: &str| {
        let mut s = format!("apiVersion: v1\nkind: Pod\nmetadata:\n  name: p{d}\n  annotations:\n");
        for i in 0..600 {
            s.push_str(&format!("    a{i}: b\n"));
        }
        for i in 0..900 {
            s.push_str(&format!("    q{i:03}: \"\\'\"\n"));
        }
        s.push_str(keys);
        s.push_str("spec:\n  containers: [{name: c, image: nginx:1.27}]\n");
        s
    };
    let docs: Vec<String> = (0..16).map(|d| doc(d, "")).collect();
    write(dir.path(), "mends.yaml", &docs.join("---\n"));
    let (code, findings) = check(dir.path(), &["mends.yaml"]);
    assert_eq!((code, findings.len()), (0, 0), "{findings:?}");

    let keys: String = (0..32)
        .map(|i| {
            format!(
                "    \"s{i}{}x\": v\n",
                if i % 2 == 0 { '\u{2028}' } else { '\u{85}' }
            )
        })
        .collect();
    write(dir.path(), "separators.yaml", &doc(0, &keys));
    let (code, findings) = check(dir.path(), &["separators.yaml"]);
    assert_eq!((code, findings.len()), (0, 0), "{findings:?}");
}

/// Hole 8: `--diff` where every line of a large file changes (two fixes a line) is a diff
/// that applies, made in one pass.
#[test]
fn a_diff_of_many_changed_lines() {
    let dir = tempfile::tempdir().expect("dir");
    let mut text = String::from(
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers: [{name: c, image: i}]\n  tolerations:\n",
    );
    for i in 0..5_000 {
        text.push_str(&format!(
            "    - {{key: k{i:06}, operator: equal, value: v, effect: noSchedule}}\n"
        ));
    }
    write(dir.path(), "pod.yaml", &text);
    let out = Command::new(BIN)
        .args([
            "check",
            "--isolated",
            "--diff",
            "--unsafe-fixes",
            "pod.yaml",
        ])
        .current_dir(dir.path())
        .output()
        .expect("runs");
    let diff = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        diff.lines().filter(|l| l.starts_with("-    - ")).count(),
        5_000
    );
    assert_eq!(
        diff.lines().filter(|l| l.starts_with("+    - ")).count(),
        5_000
    );
    assert!(diff.contains("+    - {key: k000000, operator: Equal, value: v, effect: NoSchedule}"));
    assert_eq!(
        diff.matches("\n@@ ").count() + usize::from(diff.starts_with("@@")),
        1,
        "one hunk"
    );
}

/// Hole 9: a config of more `per-file-ignores` globs than are read is one finding; the files
/// are still linted, and thousands of globs cost one match per file.
#[test]
fn per_file_ignores_are_one_matcher() {
    let dir = tempfile::tempdir().expect("dir");
    std::fs::create_dir(dir.path().join(".git")).expect("git");
    let mut cfg =
        String::from("per-file-ignores:\n  \"m/f1.yaml\": [toleration-exists-with-value]\n");
    for i in 0..1_100 {
        cfg.push_str(&format!("  \"x/{i}/*.yaml\": [shadowed-toleration]\n"));
    }
    write(dir.path(), ".taintlint.yaml", &cfg);
    std::fs::create_dir(dir.path().join("m")).expect("m");
    let pod = "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers: [{name: c, image: i}]\n  tolerations: [{key: k, operator: Exists, value: v}]\n";
    for i in 0..200 {
        write(&dir.path().join("m"), &format!("f{i}.yaml"), pod);
    }
    let out = Command::new(BIN)
        .args(["check", "--format", "json", "."])
        .current_dir(dir.path())
        .output()
        .expect("runs");
    let v: Value = serde_json::from_slice(&out.stdout).expect("json");
    let findings = v["findings"].as_array().cloned().unwrap_or_default();
    let count = |rule: &str, words: &str| {
        findings
            .iter()
            .filter(|f| f["rule"] == rule && f["message"].as_str().unwrap_or("").contains(words))
            .count()
    };
    assert_eq!(count("invalid-config", "taintlint reads the first 1024"), 1);
    // Every pod but the ignored one.
    assert_eq!(count("toleration-exists-with-value", ""), 199);
}

/// Hole 11: names that are HTML or Mermaid's own entities reach no diagram raw.
#[test]
fn mermaid_labels_are_text() {
    let dir = tempfile::tempdir().expect("dir");
    let names = [
        "<img src=https://evil.example/b.png>",
        "<a href=\"https://evil.example/\">x</a>",
        "`md`",
        "#quot;&amp;",
    ];
    let mut text = String::new();
    for (i, n) in names.iter().enumerate() {
        let n = serde_json::to_string(n).expect("json");
        text.push_str(&format!(
            "---\napiVersion: v1\nkind: Node\nmetadata:\n  name: {n}\n  labels: {{pool: p{i}}}\n---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {n}\nspec:\n  selector: {{matchLabels: {{a: b}}}}\n  template:\n    metadata: {{labels: {{a: b}}}}\n    spec:\n      nodeSelector: {{pool: p{i}}}\n      containers: [{{name: c, image: i}}]\n"
        ));
    }
    write(dir.path(), "all.yaml", &text);
    let out = Command::new(BIN)
        .args(["matrix", "--isolated", "--format", "mermaid", "all.yaml"])
        .current_dir(dir.path())
        .output()
        .expect("runs");
    let diagram = String::from_utf8_lossy(&out.stdout);
    assert!(diagram.contains("flowchart"), "{diagram}");
    for bad in ["<img", "<a ", "&amp;", "#quot;&", "[\"`"] {
        assert!(!diagram.contains(bad), "{bad} in {diagram}");
    }
    assert!(
        diagram.contains("#60;img src=https://evil.example/b.png#62;"),
        "{diagram}"
    );
}
