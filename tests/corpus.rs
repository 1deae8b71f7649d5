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

/// A `clusters:` entry per project of the corpus: one run gives the cross-reference findings
/// of the per-project runs, and no finding's related place is in another project.
#[test]
fn one_cluster_per_project_equals_per_project_runs() {
    let dir = testdata();
    let mut projects: Vec<String> = std::fs::read_dir(dir.join("corpus"))
        .unwrap()
        .map(|e| e.unwrap())
        .filter(|e| e.path().is_dir())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    projects.sort();
    let config_dir = tempfile::tempdir().unwrap();
    let config = config_dir.path().join("taintlint.yaml");
    let mut text = String::from("clusters:\n");
    for p in &projects {
        text.push_str(&format!("  - name: {p}\n    paths: [\"corpus/{p}/**\"]\n"));
    }
    std::fs::write(&config, text).unwrap();
    let config = config.to_string_lossy().into_owned();
    let scheduling = |v: &Value| -> Vec<(String, String, u64)> {
        let mut out: Vec<(String, String, u64)> = v["findings"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|f| {
                let rule = f["rule"].as_str().unwrap();
                RULES
                    .iter()
                    .any(|r| r.meta.name == rule && r.meta.category.as_str() == "scheduling")
            })
            .map(|f| {
                (
                    f["rule"].as_str().unwrap().to_string(),
                    f["file"].as_str().unwrap().to_string(),
                    f["line"].as_u64().unwrap(),
                )
            })
            .collect();
        out.sort();
        out
    };
    let (_, all) =
        common::cli::taintlint(&["check", "corpus", "--format", "json", "--config", &config])
            .in_dir(&dir)
            .json();
    let project_of = |file: &str| file.split('/').nth(1).unwrap_or("").to_string();
    for f in all["findings"].as_array().unwrap() {
        let own = project_of(f["file"].as_str().unwrap());
        for r in f["related"].as_array().unwrap() {
            assert_eq!(project_of(r["file"].as_str().unwrap()), own, "{f:#}");
        }
    }
    // Each run alone with its project as the one configured cluster: a configured cluster's
    // pools are declared (a closed world), as in the run of all of them.
    let mut separate = Vec::new();
    for p in &projects {
        let one = config_dir.path().join(format!("{p}.yaml"));
        std::fs::write(
            &one,
            format!("clusters:\n  - name: {p}\n    paths: [\"corpus/{p}/**\"]\n"),
        )
        .unwrap();
        let one = one.to_string_lossy().into_owned();
        let (_, v) = common::cli::taintlint(&[
            "check",
            &format!("corpus/{p}"),
            "--format",
            "json",
            "--config",
            &one,
        ])
        .in_dir(&dir)
        .json();
        separate.extend(scheduling(&v));
    }
    separate.sort();
    let together = scheduling(&all);
    assert!(!together.is_empty());
    assert_eq!(together, separate);
}
