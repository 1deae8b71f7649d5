//! The fast path (documents of kinds without scheduling fields are skipped after a line scan)
//! gives exactly the diagnostics of the slow path (`--full-parse`, every document parsed),
//! over the real-world corpus (`testdata/corpus`) and over the repository's own fixtures.

use std::path::Path;

mod common;

fn run(args: &[&str]) -> String {
    let r = common::cli::taintlint(args).run();
    assert!(matches!(r.code, 0 | 1), "{args:?}: {}", r.stderr);
    r.stdout
}

fn same_both_ways(path: &str) {
    let fast = run(&["check", path, "--format", "json", "--isolated"]);
    let slow = run(&[
        "check",
        path,
        "--format",
        "json",
        "--isolated",
        "--full-parse",
    ]);
    assert!(fast == slow, "fast and full parse differ on {path}");
}

#[test]
fn fast_path_equals_full_parse_on_the_real_corpus() {
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/corpus");
    assert!(corpus.is_dir(), "{} must exist", corpus.display());
    same_both_ways("testdata/corpus");
}

#[test]
fn fast_path_equals_full_parse_on_fixtures() {
    same_both_ways("testdata");
}

#[test]
fn fast_path_registers_suppressions_on_skipped_kinds() {
    // A ConfigMap is skipped on the fast path; its `taintlint.dev/ignore` annotation must
    // still be seen, and reported when it suppresses nothing, as the full parse does.
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("cm.yaml");
    std::fs::write(
        &path,
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n  annotations:\n    taintlint.dev/ignore: unschedulable-workload\ndata:\n  a: b\n",
    )
    .expect("write");
    let path = path.to_string_lossy().into_owned();
    same_both_ways(&path);
    let out = run(&["check", &path, "--format", "concise", "--isolated"]);
    assert!(out.contains("unused-suppression"), "{out}");
}

/// Issue 22: the annotation key spelled with an escape (`"\x74aintlint.dev/ignore"`) hides
/// from the byte search for `taintlint`; the fast path still builds the document and
/// registers it, as the full parse does.
#[test]
fn fast_path_registers_escaped_suppression_keys_on_skipped_kinds() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("cm.yaml");
    std::fs::write(
        &path,
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n  annotations:\n    \"\\x74aintlint.dev/ignore\": unschedulable-workload\ndata:\n  a: b\n",
    )
    .expect("write");
    let path = path.to_string_lossy().into_owned();
    same_both_ways(&path);
    let out = run(&["check", &path, "--format", "concise", "--isolated"]);
    assert!(out.contains("unused-suppression"), "{out}");
}

/// Issue 22: an empty block scalar right before `---` sits at the same place either way (the
/// finding on `tolerationSeconds: |` was at the `|` on the fast path, at the `---` with
/// `--full-parse`).
#[test]
fn empty_block_scalar_before_a_document_marker() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("p.yaml");
    std::fs::write(
        &path,
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers: [{name: a, image: b}]\n  tolerations:\n  - key: k\n    operator: Exists\n    effect: NoExecute\n    tolerationSeconds: |\n---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: q\nspec:\n  containers: [{name: a, image: b}]\n  tolerations:\n  - key: k\n    operator: Exists\n    effect: NoExecute\n    tolerationSeconds: |-\n\n---\n",
    )
    .expect("write");
    same_both_ways(&path.to_string_lossy());
}
