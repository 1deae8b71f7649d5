//! The catalogue of operators' kinds (`model::operators`): each kind has fixtures in
//! `testdata/operators/<id>/`, written as its operator's docs show it, each a small cluster
//! (its node pools and the operator's resource). The binary lints each with every default
//! rule: `valid.yaml` must produce no finding; in `invalid.yaml` the findings must be exactly
//! those marked on their line with `# expect: <rule>` (`# expect: a, b` for two). The matrix
//! of each valid cluster and the findings of each invalid one are snapshotted. The docs' table
//! of kinds and roles (see [`TABLE_FILE`]) must be the registry's:
//! `TAINTLINT_BLESS=1 cargo test --test operators` rewrites it.

#![allow(clippy::unwrap_used)] // tests may unwrap

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

mod common;
use common::cli::taintlint;

use taintlint::model::operators::{CATALOGUE, docs_table, entries, read};

/// Where the table of supported kinds and roles is, between [`TABLE_START`] and
/// [`TABLE_END`].
const TABLE_FILE: &str = "docs-pending/operators.md";
const TABLE_START: &str = "<!-- operators-table:start -->";
const TABLE_END: &str = "<!-- operators-table:end -->";

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn fixtures() -> PathBuf {
    root().join("testdata/operators")
}

/// `(line, rule)` of each finding of the binary's JSON report on `path` (relative).
fn findings(path: &str) -> (Vec<(usize, String)>, String) {
    let run = taintlint(&["check", path, "--isolated", "--format", "json"]).run();
    let v: serde_json::Value = serde_json::from_str(&run.stdout)
        .unwrap_or_else(|e| panic!("{path}: {e}\n{}\n{}", run.stdout, run.stderr));
    let mut out = Vec::new();
    let mut compact = String::new();
    for f in v["findings"].as_array().unwrap() {
        let line = f["line"].as_u64().unwrap_or(0) as usize;
        let rule = f["rule"].as_str().unwrap_or("").to_string();
        compact.push_str(&format!(
            "{line}:{} {} {} {} | {}\n",
            f["column"],
            f["severity"].as_str().unwrap_or(""),
            rule,
            f["field"].as_str().unwrap_or("-"),
            f["message"].as_str().unwrap_or(""),
        ));
        out.push((line, rule));
    }
    (out, compact)
}

/// The `(line, rule)` pairs marked `# expect: rule[, rule]` in `text`.
fn expected(text: &str) -> BTreeSet<(usize, String)> {
    let mut out = BTreeSet::new();
    for (i, line) in text.lines().enumerate() {
        if let Some((_, rules)) = line.split_once("# expect:") {
            for r in rules.split(',') {
                out.insert((i + 1, r.trim().to_string()));
            }
        }
    }
    out
}

fn ids() -> Vec<&'static str> {
    let mut ids: Vec<&str> = CATALOGUE.iter().map(|o| o.id).collect();
    ids.sort_unstable();
    ids
}

#[test]
fn every_declaration_reads_and_every_kind_is_found_once() {
    for op in CATALOGUE {
        if let Err(e) = read(op.declaration) {
            panic!("{}: {e:?}", op.id);
        }
    }
    assert_eq!(entries().len(), CATALOGUE.len());
    let mut seen = BTreeSet::new();
    for e in entries() {
        assert!(
            seen.insert((e.kind.kind.clone(), e.kind.api_version.clone())),
            "{} declared twice",
            e.kind.kind
        );
        assert!(
            !e.operator.sources.is_empty(),
            "{}: no sources",
            e.operator.id
        );
    }
}

#[test]
fn every_kind_has_fixtures_and_every_fixture_a_kind() {
    let mut dirs: Vec<String> = std::fs::read_dir(fixtures())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().to_string())
        .collect();
    dirs.sort();
    assert_eq!(dirs, ids(), "testdata/operators/ against the catalogue");
    for id in ids() {
        for file in ["valid.yaml", "invalid.yaml"] {
            let path = fixtures().join(id).join(file);
            let text = std::fs::read_to_string(&path)
                .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            let op = CATALOGUE.iter().find(|o| o.id == id).unwrap();
            let kind = read(op.declaration).unwrap().kind;
            assert!(
                text.contains(&format!("kind: {kind}\n")),
                "{}: no {kind}",
                path.display()
            );
        }
    }
}

#[test]
fn fixtures_produce_exactly_the_expected_findings() {
    let mut problems = Vec::new();
    for id in ids() {
        for file in ["valid.yaml", "invalid.yaml"] {
            let rel = format!("testdata/operators/{id}/{file}");
            let text = std::fs::read_to_string(root().join(&rel)).unwrap();
            let want = expected(&text);
            if file == "valid.yaml" && !want.is_empty() {
                problems.push(format!("{rel}: a valid fixture expects findings"));
            }
            if file == "invalid.yaml" && want.is_empty() {
                problems.push(format!("{rel}: no `# expect:` line"));
            }
            let (got, compact) = findings(&rel);
            let got: BTreeSet<(usize, String)> = got.into_iter().collect();
            if got != want {
                let missing: Vec<_> = want.difference(&got).collect();
                let unexpected: Vec<_> = got.difference(&want).collect();
                problems.push(format!(
                    "{rel}: missing {missing:?}, unexpected {unexpected:?}\n{compact}"
                ));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn snapshots() {
    for id in ids() {
        let valid = format!("testdata/operators/{id}/valid.yaml");
        let matrix = taintlint(&["matrix", &valid, "--isolated"]).run();
        let (_, invalid) = findings(&format!("testdata/operators/{id}/invalid.yaml"));
        insta::with_settings!({ snapshot_suffix => id }, {
            insta::assert_snapshot!("valid_matrix", matrix.stdout);
            insta::assert_snapshot!("invalid_findings", invalid);
        });
    }
}

fn table_region(text: &str) -> Option<(usize, usize)> {
    let start = text.find(TABLE_START)? + TABLE_START.len();
    let end = text[start..].find(TABLE_END)? + start;
    Some((start, end))
}

#[test]
fn the_docs_table_is_the_catalogue() {
    let path = root().join(TABLE_FILE);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{TABLE_FILE}: {e}"));
    let (start, end) = table_region(&text)
        .unwrap_or_else(|| panic!("{TABLE_FILE}: no {TABLE_START} … {TABLE_END}"));
    let want = format!("\n{}", docs_table());
    if text[start..end] != want {
        if std::env::var_os("TAINTLINT_BLESS").is_some() {
            let mut new = text.clone();
            new.replace_range(start..end, &want);
            std::fs::write(&path, new).unwrap();
        } else {
            panic!(
                "{TABLE_FILE}: the operators table is not the catalogue's; run with TAINTLINT_BLESS=1:\n{want}"
            );
        }
    }
    // Every kind and every role is in it.
    for e in entries() {
        assert!(
            text.contains(&format!("`{}`", e.kind.kind)),
            "{}",
            e.kind.kind
        );
    }
}

/// The docs show a `workload-kinds:` declaration with roles that the config reads.
#[test]
fn the_docs_example_declaration_reads() {
    let text = std::fs::read_to_string(root().join(TABLE_FILE)).unwrap();
    let start = text
        .find("```yaml\nworkload-kinds:")
        .expect("a workload-kinds example");
    let body = &text[start + "```yaml\n".len()..];
    let body = &body[..body.find("```").unwrap()];
    let cfg =
        taintlint::config::parse(".taintlint.yaml", body.to_string(), Path::new(".")).unwrap();
    let problems: Vec<&str> = cfg.findings.iter().map(|f| f.message.as_str()).collect();
    assert!(problems.is_empty(), "{problems:?}");
    assert!(!cfg.workload_kinds.is_empty());
    assert!(cfg.workload_kinds.iter().all(|k| !k.roles.is_empty()));
}
