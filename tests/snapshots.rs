//! Snapshots of the real binary's output on `testdata/`: human (no colour, the fixed width the
//! binary uses) and JSON. Run from the repository root with relative paths so the snapshots
//! are stable. Update with `INSTA_UPDATE=always cargo test --test snapshots` (or
//! `cargo insta review`) and review the `.snap` diff.

#![allow(clippy::unwrap_used)] // tests may unwrap

use std::process::Command;

fn output(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_taintlint"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env_remove("NO_COLOR")
        .env_remove("TAINTLINT_FORMAT")
        .output()
        .expect("run taintlint");
    let code = out.status.code().expect("exit code");
    let stdout = String::from_utf8(out.stdout).expect("UTF-8 output");
    let stderr = String::from_utf8(out.stderr).expect("UTF-8 output");
    format!("exit code: {code}\n----- stdout -----\n{stdout}----- stderr -----\n{stderr}")
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
