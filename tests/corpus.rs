//! The real-world corpus (`testdata/corpus`: 300 manifests from 15 public repositories, a
//! subset of the project's full corpus; see its `SOURCES.md`; a CRD and Helm templates included): no crash, no `internal-error`,
//! nothing linted inside a CustomResourceDefinition, and a compact snapshot of every finding
//! (`file:line:col rule`) so a change shows its real-world effect in review.

#![allow(clippy::unwrap_used)] // tests may unwrap

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::Value;
use taintlint::rules::RULES;

mod common;

/// The directory holding `corpus/`, so findings are named `corpus/<owner>__<repo>/…`.
fn testdata() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata")
}

/// Rules that may report inside a CRD: its YAML can be broken like any other file's.
fn allowed_in_crd(rule: &str) -> bool {
    rule == "duplicate-key"
        || rule.starts_with("yaml-")
        || RULES
            .iter()
            .any(|r| r.meta.name == rule && r.meta.category.as_str() == "input")
}

/// Line ranges (1-based, inclusive) of the documents of `text` that are CRDs.
fn crd_documents(text: &str) -> Vec<(usize, usize)> {
    let mut docs = Vec::new();
    let (mut start, mut is_crd) = (1, false);
    let lines: Vec<&str> = text.lines().collect();
    for (i, line) in lines.iter().enumerate() {
        if line.starts_with("---") && i > 0 {
            if is_crd {
                docs.push((start, i));
            }
            (start, is_crd) = (i + 1, false);
        }
        if line.trim_end() == "kind: CustomResourceDefinition" {
            is_crd = true;
        }
    }
    if is_crd {
        docs.push((start, lines.len()));
    }
    docs
}

#[test]
fn real_world_corpus() {
    let dir = testdata();
    assert!(
        dir.join("corpus").is_dir(),
        "{} must exist",
        dir.join("corpus").display()
    );
    let out = common::cli::taintlint(&["check", "corpus", "--format", "json", "--isolated"])
        .in_dir(&dir)
        .run();
    assert!(
        matches!(out.code, 0 | 1),
        "exit {}: {}",
        out.code,
        out.stderr
    );
    let v: Value = serde_json::from_str(&out.stdout).unwrap();
    let findings = v["findings"].as_array().unwrap();

    let internal: Vec<_> = findings
        .iter()
        .filter(|f| f["rule"] == "internal-error")
        .collect();
    assert!(internal.is_empty(), "internal errors: {internal:#?}");

    // Nothing from inside a CRD, by the object a finding names ...
    let in_crd: Vec<_> = findings
        .iter()
        .filter(|f| {
            f["object"]["kind"] == "CustomResourceDefinition"
                && !allowed_in_crd(f["rule"].as_str().unwrap())
        })
        .collect();
    assert!(in_crd.is_empty(), "findings inside CRDs: {in_crd:#?}");
    // ... nor by where it points.
    let mut crds: BTreeMap<String, Vec<(usize, usize)>> = BTreeMap::new();
    for f in findings {
        let file = f["file"].as_str().unwrap();
        let rule = f["rule"].as_str().unwrap();
        let line = f["line"].as_u64().unwrap() as usize;
        let docs = crds.entry(file.to_string()).or_insert_with(|| {
            std::fs::read_to_string(dir.join(file))
                .map(|t| crd_documents(&t))
                .unwrap_or_default()
        });
        assert!(
            allowed_in_crd(rule) || !docs.iter().any(|&(a, b)| (a..=b).contains(&line)),
            "{file}:{line} {rule} lies inside a CustomResourceDefinition"
        );
    }

    let listing: String = findings
        .iter()
        .map(|f| {
            format!(
                "{}:{}:{} {}\n",
                f["file"].as_str().unwrap(),
                f["line"],
                f["column"],
                f["rule"].as_str().unwrap()
            )
        })
        .collect();
    insta::assert_snapshot!("corpus_findings", listing);
}

#[test]
fn crd_documents_are_found() {
    let text = "kind: ConfigMap\n---\napiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nspec: {}\n---\nkind: Pod\n";
    // A document starts at its `---` line.
    assert_eq!(crd_documents(text), [(2, 5)]);
}
