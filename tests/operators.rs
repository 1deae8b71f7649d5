//! The catalogue of operators' kinds (`model::operators`): each kind has fixtures in
//! `testdata/operators/<id>/`, written as its operator's docs show it, each a small cluster
//! (its node pools and the operator's resource). The binary lints each with every default
//! rule: `valid.yaml` must produce no finding; in `invalid.yaml` the findings must be exactly
//! those marked on their line with `# expect: <rule>` (`# expect: a, b` for two). The matrix
//! of each valid cluster and the findings of each invalid one are snapshotted. The docs' table
//! of kinds and roles (see [`TABLE_FILE`]) and the README's compact one must be the
//! registry's: `TAINTLINT_BLESS=1 cargo test --test operators` rewrites them.

#![allow(clippy::unwrap_used)] // tests may unwrap

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

mod common;
use common::cli::taintlint;

use taintlint::model::operators::{CATALOGUE, docs_table, entries, read, readme_table};

/// Where the table of supported kinds and roles is, between [`TABLE_START`] and
/// [`TABLE_END`].
const TABLE_FILE: &str = "docs/operators.md";
/// The README's compact table, between its own markers.
const README_START: &str = "<!-- operators-readme:start -->";
const README_END: &str = "<!-- operators-readme:end -->";
/// Where the `workload-kinds:` declaration with roles is documented.
const CONFIG_DOCS: &str = "docs/configuration.md";
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
                text.lines()
                    .any(|l| l.split(" #").next().map(str::trim_end)
                        == Some(&format!("kind: {kind}"))),
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
        // `explain` of every role of the first resource of the kind in the valid cluster.
        let op = CATALOGUE.iter().find(|o| o.id == id).unwrap();
        let kind = read(op.declaration).unwrap().kind;
        let text = std::fs::read_to_string(root().join(&valid)).unwrap();
        let line = text
            .lines()
            .position(|l| l == format!("kind: {kind}"))
            .unwrap_or_else(|| panic!("{valid}: no `kind: {kind}` line"))
            + 1;
        let at = format!("{valid}:{line}");
        let explain = taintlint(&["explain", "--isolated", "--at", &at, &valid]).run();
        assert!(
            explain.stdout.contains(&format!("{kind}/")),
            "{at}: {}{}",
            explain.stdout,
            explain.stderr
        );
        insta::with_settings!({ snapshot_suffix => id }, {
            insta::assert_snapshot!("valid_matrix", matrix.stdout);
            insta::assert_snapshot!("valid_explain", explain.stdout);
            insta::assert_snapshot!("invalid_findings", invalid);
        });
    }
}

fn region(text: &str, start_marker: &str, end_marker: &str) -> Option<(usize, usize)> {
    let start = text.find(start_marker)? + start_marker.len();
    let end = text[start..].find(end_marker)? + start;
    Some((start, end))
}

/// Checks (or, with `TAINTLINT_BLESS=1`, rewrites) `file`'s text between two markers; then
/// every kind of the catalogue must be named in the file.
fn check_generated(file: &str, start_marker: &str, end_marker: &str, want: &str) {
    let path = root().join(file);
    let mut text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{file}: {e}"));
    let (start, end) = region(&text, start_marker, end_marker)
        .unwrap_or_else(|| panic!("{file}: no {start_marker} … {end_marker}"));
    let want = format!("\n{want}");
    if text[start..end] != want {
        if std::env::var_os("TAINTLINT_BLESS").is_some() {
            text.replace_range(start..end, &want);
            std::fs::write(&path, &text).unwrap();
        } else {
            panic!(
                "{file}: the operators table is not the catalogue's; run with TAINTLINT_BLESS=1:\n{want}"
            );
        }
    }
    for e in entries() {
        assert!(
            text.contains(&format!("`{}`", e.kind.kind)),
            "{file}: {}",
            e.kind.kind
        );
    }
}

#[test]
fn the_docs_table_is_the_catalogue() {
    check_generated(TABLE_FILE, TABLE_START, TABLE_END, &docs_table());
}

#[test]
fn the_readme_table_is_the_catalogue() {
    check_generated("README.md", README_START, README_END, &readme_table());
}

/// Every `workload-kinds:` example of the config's docs reads without a mistake, and one
/// declares named roles.
#[test]
fn the_docs_example_declarations_read() {
    let text = std::fs::read_to_string(root().join(CONFIG_DOCS)).unwrap();
    let mut named_roles = false;
    let mut examples = 0;
    for (start, _) in text.match_indices("```yaml\nworkload-kinds:") {
        let body = &text[start + "```yaml\n".len()..];
        let body = &body[..body.find("```").unwrap()];
        let cfg =
            taintlint::config::parse(".taintlint.yaml", body.to_string(), Path::new(".")).unwrap();
        let problems: Vec<&str> = cfg.findings.iter().map(|f| &*f.message).collect();
        assert!(problems.is_empty(), "{body}: {problems:?}");
        assert!(!cfg.workload_kinds.is_empty(), "{body}");
        named_roles |= cfg
            .workload_kinds
            .iter()
            .any(|k| k.roles.len() > 1 && k.roles.iter().all(|r| !r.name.is_empty()));
        examples += 1;
    }
    assert!(
        examples >= 2,
        "{CONFIG_DOCS}: {examples} workload-kinds examples"
    );
    assert!(named_roles, "{CONFIG_DOCS}: no example with named roles");
}
