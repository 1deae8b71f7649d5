//! Snapshots of the real binary's output on `testdata/`: human (no colour, the fixed width the
//! binary uses) and JSON. Run from the repository root with relative paths so the snapshots
//! are stable. Update with `INSTA_UPDATE=always cargo test --test snapshots` (or
//! `cargo insta review`) and review the `.snap` diff.

#![allow(clippy::unwrap_used)] // tests may unwrap

mod common;
use common::cli::taintlint;

fn output(args: &[&str]) -> String {
    let r = taintlint(args).run();
    format!(
        "exit code: {}\n----- stdout -----\n{}----- stderr -----\n{}",
        r.code, r.stdout, r.stderr
    )
}

#[test]
fn examples_human() {
    insta::assert_snapshot!(output(&["check", "--color", "never", "testdata/examples"]));
}

#[test]
fn examples_json() {
    insta::assert_snapshot!(output(&["check", "--format", "json", "testdata/examples"]));
}

#[test]
fn input_human() {
    insta::assert_snapshot!(output(&["check", "--color", "never", "testdata/input"]));
}

#[test]
fn input_json() {
    insta::assert_snapshot!(output(&["check", "--format", "json", "testdata/input"]));
}

#[test]
fn rules_list() {
    insta::assert_snapshot!(output(&["rules"]));
}

/// A repository of Helm charts: one notice per chart (and subchart) at its `Chart.yaml`, one
/// for the template outside any chart.
#[test]
fn helm_charts_human() {
    insta::assert_snapshot!(output(&["check", "--color", "never", "testdata/helm"]));
}
