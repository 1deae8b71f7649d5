//! What a newcomer met in their first runs (issue 32): `--version` naming the commit, `config
//! init` writing every key, a config that is not YAML saying where and why, `--diff` output
//! that `patch -p1` applies, the baseline's hidden count in the summary, and `matrix --format
//! json` with workloads that share a name told apart.

#![allow(clippy::unwrap_used)] // tests may unwrap

use std::path::Path;
use std::process::Command;

use serde_json::Value;

mod common;
use common::cli::{root, taintlint};

const POD: &str = "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers: [{name: a, image: a}]\n  tolerations:\n    - key: k\n      operator: exists\n      effect: NoSchedule\n";

#[test]
fn version_names_the_commit_it_was_built_from() {
    let r = taintlint(&["--version"]).run();
    let head = Command::new("git")
        .args(["rev-parse", "--short=12", "HEAD"])
        .current_dir(root())
        .output()
        .unwrap();
    let version = env!("CARGO_PKG_VERSION");
    if head.status.success() {
        // Built from this checkout: build.rs reruns when HEAD moves, so the hash is HEAD's.
        let line = r.stdout.trim();
        let hash = line
            .strip_prefix(&format!("taintlint {version} ("))
            .and_then(|rest| rest.strip_suffix(')'))
            .unwrap_or_else(|| panic!("{line}"));
        assert_eq!(hash.len(), 12, "{line}");
        assert!(hash.chars().all(|c| c.is_ascii_hexdigit()), "{line}");
        assert_eq!(String::from_utf8(head.stdout).unwrap().trim(), hash);
    } else {
        assert_eq!(r.stdout.trim(), format!("taintlint {version}"));
    }
    // action/run.sh reads the version as the second word.
    assert_eq!(r.stdout.split_whitespace().nth(1), Some(version));
}

#[test]
fn config_init_writes_every_top_level_key() {
    let dir = tempfile::tempdir().unwrap();
    let r = taintlint(&["config", "init", "-"]).in_dir(dir.path()).run();
    assert_eq!(r.code, 0);
    for key in [
        "rules:",
        "exclude:",
        "per-file-ignores:",
        "dedicated-exempt-keys:",
        "inventory:",
        "clusters:",
        "policies:",
        "workload-kinds:",
    ] {
        assert!(
            r.stdout
                .lines()
                .any(|l| l == key || l.starts_with(&format!("{key} "))),
            "{key} missing:\n{}",
            r.stdout
        );
    }
    // The commented example of `clusters:`, uncommented, is a valid cluster list.
    let mut in_clusters = false;
    let uncommented: String = r
        .stdout
        .lines()
        .map(|l| {
            if l == "clusters:" {
                in_clusters = true;
            } else if l.is_empty() {
                in_clusters = false;
            }
            let l = if in_clusters && l.starts_with("  # ") {
                l.replacen("# ", "", 1)
            } else {
                l.to_string()
            };
            l + "\n"
        })
        .collect();
    assert!(uncommented.contains("\n  - name: prod\n"), "{uncommented}");
    let cfg = dir.path().join("c.yaml");
    std::fs::write(&cfg, uncommented).unwrap();
    std::fs::write(dir.path().join("p.yaml"), POD).unwrap();
    let r = taintlint(&["check", "p.yaml", "--config", "c.yaml", "--format", "json"])
        .in_dir(dir.path())
        .run();
    assert!(r.code < 2, "{}", r.stderr);
    let v: Value = serde_json::from_str(&r.stdout).unwrap();
    // The example globs and files do not exist here: that, and only that, is reported.
    let config_findings: Vec<&Value> = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["file"] == "c.yaml")
        .collect();
    assert_eq!(config_findings.len(), 4, "{config_findings:#?}");
    assert!(
        config_findings.iter().all(|f| {
            let m = f["message"].as_str().unwrap();
            m.contains("matches no linted file") || m.contains("does not exist")
        }),
        "{config_findings:#?}"
    );
}

#[test]
fn a_config_that_is_not_yaml_says_where_and_why() {
    let dir = tempfile::tempdir().unwrap();
    for (text, want) in [
        (
            "rules:\n  a: warning\n b: [\n",
            "config c.yaml:3:2 is not valid YAML: ",
        ),
        (
            "[tool.taintlint]\nselect = 1\n",
            "config c.yaml:2:1 is not valid YAML: ",
        ),
        (
            "- rules\n",
            "must be a mapping of settings (`rules:`, `exclude:`, …), not a list",
        ),
        ("just text\n", "not a single value"),
    ] {
        std::fs::write(dir.path().join("c.yaml"), text).unwrap();
        let r = taintlint(&["check", ".", "--config", "c.yaml"])
            .in_dir(dir.path())
            .run();
        assert_eq!(r.code, 2, "{text}");
        assert!(r.stderr.contains(want), "{text}: {}", r.stderr);
        // The reason is the parser's, not empty.
        if want.ends_with(": ") {
            let reason = r.stderr.split(want).nth(1).unwrap().trim();
            assert!(reason.len() > 5, "{}", r.stderr);
        }
    }
}

fn patch_applies(dir: &Path, diff: &str) {
    let mut child = Command::new("patch")
        .args(["-p1", "--batch", "--silent"])
        .current_dir(dir)
        .stdin(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(diff.as_bytes())
        .unwrap();
    assert!(
        child.wait().unwrap().success(),
        "patch -p1 refused:\n{diff}"
    );
}

#[test]
fn diff_headers_are_a_and_b_and_patch_applies_them() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("k8s")).unwrap();
    std::fs::write(dir.path().join("k8s/p.yaml"), POD).unwrap();
    for path in ["k8s", "./k8s"] {
        let r = taintlint(&["check", "--diff", path])
            .in_dir(dir.path())
            .run();
        assert_eq!(r.code, 1, "{}", r.stderr);
        assert!(
            r.stdout.starts_with("--- a/k8s/p.yaml\n+++ b/k8s/p.yaml\n"),
            "{}",
            r.stdout
        );
        // Applied by patch, the diff makes what --fix makes.
        let copy = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(copy.path().join("k8s")).unwrap();
        std::fs::write(copy.path().join("k8s/p.yaml"), POD).unwrap();
        patch_applies(copy.path(), &r.stdout);
        let fixed = std::fs::read_to_string(copy.path().join("k8s/p.yaml")).unwrap();
        assert_eq!(fixed, POD.replace("operator: exists", "operator: Exists"));
    }
    assert_eq!(
        std::fs::read_to_string(dir.path().join("k8s/p.yaml")).unwrap(),
        POD
    );
}

#[test]
fn the_summary_counts_what_the_baseline_hides() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("p.yaml"), POD).unwrap();
    let r = taintlint(&["check", ".", "--write-baseline", "b.json"])
        .in_dir(dir.path())
        .run();
    assert_eq!(r.code, 0, "{}", r.stderr);
    let hidden = |format: &str| {
        taintlint(&[
            "check",
            "p.yaml",
            "--baseline",
            "b.json",
            "--format",
            format,
        ])
        .in_dir(dir.path())
        .run()
    };
    let (_, v) = taintlint(&["check", "p.yaml", "--format", "json"])
        .in_dir(dir.path())
        .json();
    let n = v["findings"].as_array().unwrap().len();
    assert!(n >= 1);
    let r = hidden("concise");
    assert_eq!(r.code, 0);
    assert_eq!(
        r.stdout.trim(),
        format!("no findings in 1 file (1 document); {n} hidden by the baseline")
    );
    let v: Value = serde_json::from_str(&hidden("json").stdout).unwrap();
    assert_eq!(v["summary"]["baselined"], n);
    assert!(
        hidden("markdown")
            .stdout
            .contains(&format!("{n} hidden by the baseline"))
    );
    // Without a baseline: nothing said, zero in JSON.
    let (_, v) = taintlint(&["check", "p.yaml", "--format", "json"])
        .in_dir(dir.path())
        .json();
    assert_eq!(v["summary"]["baselined"], 0);
    // A new finding beside the hidden ones: it is reported, and the others still counted.
    std::fs::write(
        dir.path().join("p.yaml"),
        format!("{POD}---\n{}", POD.replace("name: p}", "name: q}")),
    )
    .unwrap();
    let r = hidden("concise");
    assert!(
        r.stdout
            .trim_end()
            .ends_with(&format!("; {n} hidden by the baseline")),
        "{}",
        r.stdout
    );
}

#[test]
fn matrix_json_and_workloads_that_share_a_name() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::create_dir_all(d.join("prod")).unwrap();
    std::fs::create_dir_all(d.join("staging")).unwrap();
    std::fs::write(
        d.join("nodes.yaml"),
        "apiVersion: v1\nkind: Node\nmetadata: {name: gpu-1, labels: {pool: gpu}}\nspec:\n  taints: [{key: gpu, value: \"yes\", effect: NoSchedule}]\n---\napiVersion: v1\nkind: Node\nmetadata: {name: cpu-1, labels: {pool: cpu}}\n",
    )
    .unwrap();
    let web = |toleration: &str| {
        format!(
            "apiVersion: apps/v1\nkind: Deployment\nmetadata: {{name: web, namespace: app}}\nspec:\n  template:\n    spec:\n      nodeSelector: {{pool: gpu}}\n      containers: [{{name: a, image: a}}]\n      tolerations: [{toleration}]\n"
        )
    };
    std::fs::write(
        d.join("prod/web.yaml"),
        web("{key: gpu, operator: Exists, effect: NoSchedule}"),
    )
    .unwrap();
    std::fs::write(d.join("staging/web.yaml"), web("")).unwrap();
    let r = taintlint(&["matrix", ".", "--format", "json"])
        .in_dir(d)
        .run();
    assert_eq!(r.code, 0, "{}", r.stderr);
    let v: Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(v["version"], 1);
    let pools = v["pools"].as_array().unwrap();
    let gpu = pools.iter().position(|p| p["name"] == "gpu-1").unwrap();
    assert_eq!(pools[gpu]["taints"][0], "gpu=yes:NoSchedule");
    let workloads = v["workloads"].as_array().unwrap();
    assert_eq!(workloads.len(), 2);
    let by_file = |f: &str| workloads.iter().find(|w| w["file"] == f).unwrap();
    let prod = by_file("prod/web.yaml");
    let staging = by_file("staging/web.yaml");
    assert_eq!(prod["name"], "web");
    assert_eq!(prod["line"], 9);
    assert_eq!(prod["pools"][gpu]["fits"], true);
    assert_eq!(staging["pools"][gpu]["fits"], false);
    assert_eq!(staging["pools"][gpu]["reasons"][0]["reason"], "taint");
    assert_eq!(
        staging["pools"][gpu]["reasons"][0]["taint"],
        "gpu=yes:NoSchedule"
    );
    let cpu = 1 - gpu;
    assert_eq!(prod["pools"][cpu]["reasons"][0]["reason"], "selector");
    // The other formats name each with its file and line.
    for format in ["table", "markdown", "mermaid"] {
        let r = taintlint(&["matrix", ".", "--format", format])
            .in_dir(d)
            .run();
        assert!(
            r.stdout.contains("Deployment/app/web (prod/web.yaml:9)")
                && r.stdout.contains("Deployment/app/web (staging/web.yaml:9)"),
            "{format}: {}",
            r.stdout
        );
    }
}
