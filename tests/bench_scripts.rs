//! The benchmark scripts run from a clean clone (issue 32): with the Python standard library
//! only, nothing outside the repository (no `../shared`), and the binary under test given with
//! `--bin` so nothing is built. Each runs in its `--quick` smoke mode (seconds in all) in a
//! copy of the files it needs, in a temporary folder with nothing beside it.

#![allow(clippy::unwrap_used)] // tests may unwrap

use std::path::{Path, PathBuf};
use std::process::Command;

mod common;
use common::cli::{BIN, root};

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let target = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &target);
        } else {
            std::fs::copy(e.path(), &target).unwrap();
        }
    }
}

/// A clone's `bench/` and the test data the scripts read, in `<tmp>/clone`, alone in `<tmp>`.
fn clean_clone(tmp: &Path) -> PathBuf {
    let clone = tmp.join("clone");
    for dir in ["bench", "testdata/corpus", "testdata/examples"] {
        copy_dir(&root().join(dir), &clone.join(dir));
    }
    assert!(!tmp.join("shared").exists());
    clone
}

/// Runs `python3 bench/<script> <args>` in `clone`: its stdout; fails with its output unless
/// it exits 0.
fn python(clone: &Path, script: &str, args: &[&str]) -> String {
    let out = Command::new("python3")
        .arg(Path::new("bench").join(script))
        .args(args)
        .current_dir(clone)
        // Nothing from the environment may lead it elsewhere.
        .env_remove("PYTHONPATH")
        .env_remove("TAINTLINT_FORMAT")
        .env_remove("TAINTLINT_SPILL_BUDGET")
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .output()
        .unwrap_or_else(|e| panic!("python3 is needed for the benchmark scripts: {e}"));
    let stdout = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(
        out.status.success(),
        "bench/{script} {args:?} exited {}:\n{stdout}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

/// No script reaches outside the repository or needs a third-party module.
#[test]
fn scripts_need_nothing_outside_the_repository() {
    for e in std::fs::read_dir(root().join("bench")).unwrap() {
        let path = e.unwrap().path();
        let text = std::fs::read_to_string(&path).unwrap();
        let name = path.display();
        assert!(!text.contains("../shared"), "{name} reaches ../shared");
        assert!(!text.contains("SHARED"), "{name} reaches ../shared");
        for module in [
            "import yaml",
            "import requests",
            "import numpy",
            "import psutil",
        ] {
            assert!(!text.contains(module), "{name}: `{module}`");
        }
    }
}

/// Every Python script compiles and the shell script parses.
#[test]
fn scripts_parse() {
    let dir = tempfile::tempdir().unwrap();
    let mut py = 0;
    for e in std::fs::read_dir(root().join("bench")).unwrap() {
        let path = e.unwrap().path();
        let ext = path.extension().and_then(|e| e.to_str());
        let out = match ext {
            Some("py") => {
                py += 1;
                Command::new("python3")
                    .args(["-c", "import py_compile, sys; py_compile.compile(sys.argv[1], cfile=sys.argv[2], doraise=True)"])
                    .arg(&path)
                    .arg(dir.path().join("out.pyc"))
                    .output()
                    .unwrap()
            }
            Some("sh") => Command::new("bash").arg("-n").arg(&path).output().unwrap(),
            _ => continue,
        };
        assert!(
            out.status.success(),
            "{}: {}",
            path.display(),
            String::from_utf8_lossy(&out.stderr)
        );
    }
    assert!(py >= 7, "{py} Python scripts");
}

/// `run.py --quick`: generates its corpus from `testdata/corpus` and the cross-reference
/// corpora, and measures them all (no reference parse: it would need a release build).
#[test]
fn run_py_quick_runs_from_a_clean_clone() {
    let tmp = tempfile::tempdir().unwrap();
    let clone = clean_clone(tmp.path());
    let work = tmp.path().join("work");
    let out = python(
        &clone,
        "run.py",
        &[
            "--quick",
            "--no-ref",
            "--bin",
            BIN,
            "--work",
            work.to_str().unwrap(),
        ],
    );
    for part in [
        "## corpus 1x",
        "## output formats",
        "## cross-reference: 200 Nodes in 10 pools, 400 Deployments",
        "a quarter tolerating another pool",
        "a quarter unschedulable, with typos",
        "## startup",
    ] {
        assert!(out.contains(part), "no {part:?} in:\n{out}");
    }
    // The corpus is copies of the real manifests, names made distinct.
    let index = std::fs::read_to_string(work.join("corpus-quick/INDEX.tsv")).unwrap();
    assert_eq!(index.lines().count(), 1 + 40 + 8, "{index}");
    // The cases with many findings report them (JSON and SARIF agree).
    let counts: Vec<&str> = out
        .lines()
        .filter(|l| l.starts_with("json output") || l.starts_with("sarif output"))
        .map(|l| {
            let after = l.split(", ").nth(1).unwrap_or(l);
            after.split(" findings").next().unwrap_or(after)
        })
        .collect();
    assert_eq!(counts.len(), 4, "{out}");
    assert_eq!(counts[0], counts[1], "{out}");
    assert_eq!(counts[2], counts[3], "{out}");
    assert!(counts[0].parse::<u32>().unwrap() > 0, "{out}");
}

/// The other scripts in their quick modes.
#[test]
fn other_scripts_run_quick_from_a_clean_clone() {
    let tmp = tempfile::tempdir().unwrap();
    let clone = clean_clone(tmp.path());
    let out = python(&clone, "hostile.py", &["--quick", "--bin", BIN]);
    assert!(out.contains("| alias-default | 5 documents |"), "{out}");
    assert!(!out.contains("timeout") && !out.contains("killed"), "{out}");
    let out = python(
        &clone,
        "long_lines.py",
        &["--bin", BIN, "--sizes", "0.05", "--runs", "1"],
    );
    assert!(out.lines().count() == 2, "{out}");
    let out = python(
        &clone,
        "terraform.py",
        &["--bin", BIN, "--groups", "20", "--runs", "1"],
    );
    assert!(out.contains("unschedulable-workload"), "{out}");
    let out = python(&clone, "server.py", &["--quick", "--bin", BIN]);
    assert!(out.contains("memory over 10 edits"), "{out}");
}

/// `outputs.sh` without its arguments says how to use it, and fails.
#[test]
fn outputs_sh_prints_its_usage() {
    let out = Command::new("bash")
        .arg(root().join("bench/outputs.sh"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("bench/outputs.sh target/release/taintlint")
    );
}
