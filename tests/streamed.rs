//! `taintlint check` spills each file's results and runs the cross-reference file by file
//! (`src/streamed.rs`); `TAINTLINT_SPILL=off` keeps everything in memory as `--fix` does
//! (`lint::finish`). Both must print the same bytes and exit alike, in every format, over the
//! real-world corpus beside the checkout and over the repository's fixtures; and the same
//! again when every record goes to the temporary file at once (`TAINTLINT_SPILL_BUDGET=0`).

use std::process::Command;

fn run(args: &[&str], env: &[(&str, &str)]) -> (i32, Vec<u8>, String) {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_taintlint"));
    cmd.args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env_remove("TAINTLINT_FORMAT")
        .env_remove("TAINTLINT_SPILL")
        .env_remove("TAINTLINT_SPILL_BUDGET")
        .env("NO_COLOR", "1");
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().expect("run taintlint");
    (
        out.status.code().unwrap_or(-1),
        out.stdout,
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn same_three_ways(args: &[&str]) {
    let memory = run(args, &[("TAINTLINT_SPILL", "off")]);
    assert!(matches!(memory.0, 0 | 1), "{args:?}: {}", memory.2);
    for env in [&[][..], &[("TAINTLINT_SPILL_BUDGET", "0")][..]] {
        let streamed = run(args, env);
        assert_eq!(streamed.0, memory.0, "{args:?} {env:?}: exit status");
        assert!(
            streamed.1 == memory.1,
            "{args:?} {env:?}: output differs from the in-memory run"
        );
        assert_eq!(streamed.2, memory.2, "{args:?} {env:?}: stderr");
    }
}

#[test]
fn streamed_equals_in_memory_on_the_real_corpus() {
    for format in ["json", "human", "sarif"] {
        same_three_ways(&[
            "check",
            "../shared/corpus",
            "--format",
            format,
            "--isolated",
        ]);
    }
}

#[test]
fn streamed_equals_in_memory_on_fixtures() {
    for format in ["json", "human", "concise", "sarif", "github", "markdown"] {
        same_three_ways(&["check", "testdata", "--format", format, "--isolated"]);
    }
    // With the repository's own configuration (per-file ignores, severities), an external
    // inventory, and --fail-on levels.
    same_three_ways(&["check", "testdata/examples", "--format", "json"]);
    same_three_ways(&[
        "check",
        "testdata/scenarios",
        "--inventory",
        "testdata/scenarios/external-inventory/platform/inventory.yaml",
        "--format",
        "concise",
        "--isolated",
    ]);
    for level in ["warning", "info", "never"] {
        same_three_ways(&[
            "check",
            "testdata/rules",
            "--fail-on",
            level,
            "--format",
            "concise",
            "--isolated",
        ]);
    }
}

#[test]
fn without_a_writable_temporary_directory_records_stay_in_memory() {
    let args = ["check", "testdata/rules", "--format", "json", "--isolated"];
    let memory = run(&args, &[("TAINTLINT_SPILL", "off")]);
    let streamed = run(
        &args,
        &[
            ("TAINTLINT_SPILL_BUDGET", "0"),
            ("TMPDIR", "/nonexistent/taintlint-test"),
        ],
    );
    assert_eq!(streamed.0, memory.0, "{}", streamed.2);
    assert!(streamed.1 == memory.1, "output differs");
}

#[test]
fn streamed_applies_a_baseline_like_the_in_memory_run() {
    let dir = tempfile::tempdir().expect("tempdir");
    let baseline = dir.path().join("baseline.json");
    let baseline = baseline.to_string_lossy().into_owned();
    let (code, _, err) = run(
        &[
            "check",
            "testdata/examples",
            "--isolated",
            "--write-baseline",
            &baseline,
        ],
        &[],
    );
    assert_eq!(code, 0, "{err}");
    same_three_ways(&[
        "check",
        "testdata",
        "--isolated",
        "--baseline",
        &baseline,
        "--format",
        "json",
    ]);
}

#[test]
fn stdin_is_kept_in_memory_and_reported_alike() {
    use std::io::Write;
    let text = std::fs::read("testdata/examples/pod-debug.yaml").expect("fixture");
    let piped = |env: &[(&str, &str)]| {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_taintlint"));
        cmd.args(["check", "-", "testdata/examples", "--isolated"])
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .env_remove("TAINTLINT_SPILL")
            .env_remove("TAINTLINT_SPILL_BUDGET")
            .env("NO_COLOR", "1")
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped());
        for (k, v) in env {
            cmd.env(k, v);
        }
        let mut child = cmd.spawn().expect("spawn");
        child
            .stdin
            .take()
            .expect("stdin")
            .write_all(&text)
            .expect("write stdin");
        let out = child.wait_with_output().expect("wait");
        (out.status.code(), out.stdout)
    };
    let memory = piped(&[("TAINTLINT_SPILL", "off")]);
    let streamed = piped(&[("TAINTLINT_SPILL_BUDGET", "0")]);
    assert_eq!(memory.0, streamed.0);
    assert!(memory.1 == streamed.1, "stdin output differs");
    // The snippet of the stdin finding is there (its text was kept).
    assert!(String::from_utf8_lossy(&streamed.1).contains("<stdin>"));
}
