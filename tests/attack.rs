//! Issue 36's attack, the command line's part: each probe at the size of the table,
//! committed in a pull request (manifests, `.taintlint.yaml`, links), and the outcome it must
//! have: the findings, the exit status, the file `--fix` leaves, never a panic. Times are
//! not asserted (they are in bench/hostile.py and bench/README.md); the harness's watchdog
//! only catches a hang. The language server's probes are in tests/server.rs.

#![allow(clippy::unwrap_used)] // tests may unwrap

use std::path::Path;

use serde_json::Value;

mod common;

use common::cli::taintlint;

/// A folder standing for the pull request's checkout (with a `.git`), beside an `outside`
/// folder standing for the rest of the machine.
fn checkout() -> (tempfile::TempDir, std::path::PathBuf, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path().join("repo");
    let outside = dir.path().join("outside");
    std::fs::create_dir_all(repo.join(".git")).unwrap();
    std::fs::create_dir_all(&outside).unwrap();
    (dir, repo, outside)
}

const POD_HEAD: &str = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers:\n    - name: c\n      image: nginx:1.27\n";

/// (rule, file) of each finding.
fn findings(v: &Value) -> Vec<(String, String)> {
    v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["rule"].as_str().unwrap().to_string(),
                f["file"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

fn count(v: &Value, rule: &str) -> usize {
    findings(v).iter().filter(|(r, _)| r == rule).count()
}

/// Row 2: 250,000 copies of one toleration. `--fix` removed them one finding at a time,
/// each removal checking the whole list (over 300 s); now every copy but the first is one
/// finding, and one `--fix` run removes them all.
#[test]
fn a_quarter_million_duplicate_tolerations_are_fixed_in_one_run() {
    let (_dir, repo, _) = checkout();
    let mut text = format!("{POD_HEAD}  tolerations:\n");
    for _ in 0..250_000 {
        text.push_str("    - {key: dedicated, operator: Equal, value: gpu, effect: NoSchedule}\n");
    }
    std::fs::write(repo.join("pod.yaml"), &text).unwrap();
    let select = ["--select", "shadowed-toleration", "--isolated"];
    let r = taintlint(
        &[
            &["check", "pod.yaml", "--format", "concise", "-q"],
            &select[..],
        ]
        .concat(),
    )
    .in_dir(&repo)
    .run();
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert_eq!(r.stdout.lines().count(), 249_999);
    assert!(r.stdout.lines().all(|l| l.contains("duplicate toleration")));
    let r = taintlint(
        &[
            &[
                "check",
                "pod.yaml",
                "--fix",
                "--unsafe-fixes",
                "--format",
                "json",
            ],
            &select[..],
        ]
        .concat(),
    )
    .in_dir(&repo)
    .run();
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(
        std::fs::read_to_string(repo.join("pod.yaml")).unwrap(),
        format!(
            "{POD_HEAD}  tolerations:\n    - {{key: dedicated, operator: Equal, value: gpu, effect: NoSchedule}}\n"
        )
    );
}

/// Row 4: a policy glob against 8 keys of about 200,000 bytes (1.65 MB), which the
/// backtracking matcher compared at every position of each key: each key is judged, the
/// one the policy's glob matches is not allowed in this namespace.
#[test]
fn policy_globs_against_long_keys() {
    let (_dir, repo, _) = checkout();
    let glob = format!("*{}b*", "a".repeat(1000));
    std::fs::write(
        repo.join(".taintlint.yaml"),
        format!("policies:\n  - taint: \"{glob}\"\n    namespaces: [\"{glob}\", ml-*]\n"),
    )
    .unwrap();
    let mut text = format!("{POD_HEAD}  tolerations:\n");
    for i in 0..8 {
        // Keys 0, 2, 4, 6 hold the `b` the glob needs, the others only `a`s.
        let tail = if i % 2 == 0 { "b" } else { "" };
        text.push_str(&format!(
            "  - {{key: {}{tail}{i}, operator: Exists, effect: NoSchedule}}\n",
            "a".repeat(207_000)
        ));
    }
    assert!(text.len() > 1_650_000);
    std::fs::write(repo.join("pod.yaml"), &text).unwrap();
    let (code, v) = taintlint(&["check", ".", "--format", "json"])
        .in_dir(&repo)
        .json();
    assert_eq!(code, 1);
    assert_eq!(count(&v, "toleration-not-allowed"), 4, "{v:#}");
    assert_eq!(count(&v, "invalid-config"), 0, "{v:#}");
}

/// Row 4's limit: a policy glob over 1,024 bytes is an `invalid-config` error at its place
/// and not used; the manifests are still linted.
#[test]
fn policy_globs_over_the_limit_are_config_errors() {
    let (_dir, repo, _) = checkout();
    let long = format!("*{}*", "a?".repeat(60_000));
    std::fs::write(
        repo.join(".taintlint.yaml"),
        format!(
            "policies:\n  - taint: \"{long}\"\n  - taint: gpu\n    namespaces: [\"{long}\", ml-*]\n"
        ),
    )
    .unwrap();
    std::fs::write(
        repo.join("pod.yaml"),
        format!("{POD_HEAD}  tolerations: [{{key: gpu, operator: Exists}}]\n"),
    )
    .unwrap();
    let (code, v) = taintlint(&["check", ".", "--format", "json"])
        .in_dir(&repo)
        .json();
    assert_eq!(code, 1);
    let config: Vec<&Value> = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["rule"] == "invalid-config")
        .collect();
    assert_eq!(config.len(), 2, "{v:#}");
    for f in &config {
        assert_eq!(f["file"], ".taintlint.yaml");
        assert!(
            f["message"].as_str().unwrap().contains("at most 1024"),
            "{f}"
        );
        assert!(f["message"].as_str().unwrap().len() < 300, "{f}");
    }
    assert_eq!(config[0]["line"], 2);
    assert_eq!(config[1]["line"], 4);
    // The second policy still applies, with its short glob.
    assert_eq!(count(&v, "toleration-not-allowed"), 1, "{v:#}");
}

/// Row 8: a `per-file-ignores` glob of 100,000 `*` made globset's `compile_matcher` panic
/// (exit 101, no report). Now: an `invalid-config` finding at the glob, every file linted;
/// the same under `clusters:` paths; under `exclude` a clean exit 2 naming its place; on the
/// command line a clean exit 2 naming the glob.
#[test]
fn globs_that_cannot_compile_are_findings_or_clean_errors() {
    let (_dir, repo, _) = checkout();
    let stars = "*".repeat(100_000);
    std::fs::write(
        repo.join("pod.yaml"),
        format!("{POD_HEAD}  tolerations: [{{key: a, operator: Exists, value: b}}]\n"),
    )
    .unwrap();
    // An implicit YAML key is at most 1,024 characters: the long one is an explicit key.
    for config in [
        format!("per-file-ignores:\n  ? \"{stars}\"\n  : [toleration-exists-with-value]\n"),
        format!("clusters:\n  - name: a\n    paths: [\"{stars}\"]\n"),
        "per-file-ignores:\n  \"{a,b}/{c,d}/[\": [toleration-exists-with-value]\n".to_string(),
    ] {
        std::fs::write(repo.join(".taintlint.yaml"), &config).unwrap();
        let r = taintlint(&["check", ".", "--format", "json"])
            .in_dir(&repo)
            .run();
        assert_eq!(r.code, 1, "{}", r.stderr);
        assert!(!r.stderr.contains("internal error"), "{}", r.stderr);
        let v: Value = serde_json::from_str(&r.stdout).unwrap();
        let f = findings(&v);
        assert!(
            f.contains(&("invalid-config".into(), ".taintlint.yaml".into())),
            "{config:.80}: {f:?}"
        );
        assert!(
            f.contains(&("toleration-exists-with-value".into(), "pod.yaml".into())),
            "{config:.80}: {f:?}"
        );
        assert!(r.stdout.len() < 100_000, "the glob is shown cut short");
    }
    std::fs::write(
        repo.join(".taintlint.yaml"),
        format!("kube-version: \"1.35\"\nexclude: [\"{stars}\"]\n"),
    )
    .unwrap();
    let r = taintlint(&["check", "."]).in_dir(&repo).run();
    assert_eq!(r.code, 2, "{}{}", r.stdout, r.stderr);
    assert!(
        r.stderr.contains(".taintlint.yaml:2:") && r.stderr.contains("exclude"),
        "{}",
        r.stderr
    );
    assert!(r.stderr.len() < 1000, "{}", r.stderr);
    let r = taintlint(&["check", ".", "--isolated", "--exclude", &stars])
        .in_dir(&repo)
        .run();
    assert_eq!(r.code, 2, "{}{}", r.stdout, r.stderr);
    assert!(r.stderr.contains("invalid glob"), "{}", r.stderr);
    assert!(r.stderr.len() < 1000, "{}", r.stderr);
}

fn link(target: &Path, at: &Path) {
    std::os::unix::fs::symlink(target, at).unwrap();
}

/// Row 9, the command line's part: a committed link to a folder outside, named in the
/// config's `inventory:`, is not read (every component of the path is resolved).
#[test]
fn inventory_through_a_linked_folder_is_not_read() {
    let (_dir, repo, outside) = checkout();
    std::fs::write(
        outside.join("nodes.yaml"),
        "apiVersion: v1\nkind: Node\nmetadata: {name: secret-node-name}\nspec:\n  taints: [{key: secret, effect: NoSchedule}]\n",
    )
    .unwrap();
    link(&outside, &repo.join("linked"));
    std::fs::write(
        repo.join(".taintlint.yaml"),
        "inventory: [linked/nodes.yaml]\n",
    )
    .unwrap();
    std::fs::write(repo.join("pod.yaml"), POD_HEAD).unwrap();
    let r = taintlint(&["check", ".", "--format", "json"])
        .in_dir(&repo)
        .run();
    assert!(!r.stdout.contains("secret-node-name"), "{}", r.stdout);
    assert!(r.stdout.contains("outside the repository"), "{}", r.stdout);
}
