//! The real-repository regression suite: manifests of public repositories taintlint was not
//! written against (`testdata/realworld/<owner>__<repo>/`, with their licences and
//! `SOURCES.md`), linted as a new user would (`taintlint check <repo> --isolated`), and every
//! error and warning judged by hand in `testdata/realworld/JUDGED.md` and `judged.tsv`.
//!
//! The test fails when a judged true positive disappears, when a judged false positive comes
//! back, or when an error or warning appears that nobody judged (judge it, then add its row).

#![allow(clippy::unwrap_used)] // tests may unwrap

use std::collections::BTreeSet;
use std::path::Path;

use serde_json::Value;

mod common;

/// (repo, rule, file below the repo folder, line).
type Key = (String, String, String, u64);

fn suite() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/realworld")
}

/// The judged rows: (key, verdict).
fn judged() -> Vec<(Key, String)> {
    let text = std::fs::read_to_string(suite().join("judged.tsv")).unwrap();
    text.lines()
        .skip(1)
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let cols: Vec<&str> = l.split('\t').collect();
            assert_eq!(cols.len(), 5, "judged.tsv: {l}");
            let line = cols[3]
                .parse()
                .unwrap_or_else(|_| panic!("judged.tsv: {l}"));
            (
                (
                    cols[0].to_string(),
                    cols[1].to_string(),
                    cols[2].to_string(),
                    line,
                ),
                cols[4].to_string(),
            )
        })
        .collect()
}

/// The repositories of the suite.
fn repos() -> Vec<String> {
    let mut repos: Vec<String> = std::fs::read_dir(suite())
        .unwrap()
        .map(|e| e.unwrap())
        .filter(|e| e.path().is_dir())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    repos.sort();
    repos
}

/// The errors and warnings of one repository, as a new user gets them.
fn findings(repo: &str) -> BTreeSet<Key> {
    let out = common::cli::taintlint(&["check", repo, "--format", "json", "--isolated"])
        .in_dir(&suite())
        .run();
    assert!(matches!(out.code, 0 | 1), "{repo}: {}", out.stderr);
    let v: Value = serde_json::from_str(&out.stdout).unwrap();
    v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["severity"] == "error" || f["severity"] == "warning")
        .map(|f| {
            let file = f["file"].as_str().unwrap();
            let below = file
                .strip_prefix(repo)
                .and_then(|r| r.strip_prefix('/'))
                .unwrap_or(file);
            (
                repo.to_string(),
                f["rule"].as_str().unwrap().to_string(),
                below.to_string(),
                f["line"].as_u64().unwrap_or(0),
            )
        })
        .collect()
}

#[test]
fn every_repository_has_its_licence_and_source() {
    let sources = std::fs::read_to_string(suite().join("SOURCES.md")).unwrap();
    let repos = repos();
    assert!(
        repos.len() >= 6,
        "the suite has {} repositories",
        repos.len()
    );
    for repo in repos {
        assert!(
            suite().join(&repo).join("LICENSE").is_file(),
            "{repo}: no LICENSE"
        );
        let name = repo.replacen("__", "/", 1);
        assert!(sources.contains(&name), "{repo}: not in SOURCES.md");
    }
}

#[test]
fn judged_findings_stay_judged() {
    let judged = judged();
    let mut problems = Vec::new();
    let mut seen: BTreeSet<Key> = BTreeSet::new();
    for repo in repos() {
        seen.extend(findings(&repo));
    }
    let judged_keys: BTreeSet<&Key> = judged.iter().map(|(k, _)| k).collect();
    for (key, verdict) in &judged {
        let present = seen.contains(key);
        match verdict.as_str() {
            "TP" if !present => problems.push(format!("a true positive disappeared: {key:?}")),
            "FP" if present => problems.push(format!("a false positive came back: {key:?}")),
            "TP" | "FP" | "unclear" => {}
            other => problems.push(format!("unknown verdict `{other}` for {key:?}")),
        }
    }
    for key in &seen {
        if !judged_keys.contains(key) {
            problems.push(format!(
                "not judged yet (judge it by hand, then add it to JUDGED.md and judged.tsv): {key:?}"
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
