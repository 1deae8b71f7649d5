//! The benchmark scripts run from a clean clone (issue 32): with the Python standard library
//! only, nothing outside the repository (no `../shared`), and the binary under test given with
//! `--bin` so nothing is built. Each runs in its `--quick` smoke mode (seconds in all) in a
//! copy of the files it needs, in a temporary folder with nothing beside it. And every script
//! of the repository answers `--help` without side effects (issue 39).

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
    for dir in [
        "bench",
        "testdata/corpus",
        "testdata/examples",
        "testdata/fuzz-regressions",
        "action",
    ] {
        copy_dir(&root().join(dir), &clone.join(dir));
    }
    std::fs::copy(root().join("Cargo.toml"), clone.join("Cargo.toml")).unwrap();
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
    let out = python(&clone, "timed_checks.py", &["--quick", "--bin", BIN]);
    let row = |start: &str| {
        out.lines()
            .find(|l| l.starts_with(start))
            .unwrap_or_else(|| panic!("no {start:?} row in:\n{out}"))
            .to_string()
    };
    assert!(row("| action download").ends_with("| 0 |"), "{out}");
    assert!(
        row("| check --baseline zero.json (refused)").ends_with("| 2 |"),
        "{out}"
    );
    assert!(
        row("| check --config fifo.json").ends_with("| 2 |"),
        "{out}"
    );
    assert!(row("| fuzz regressions:").contains("files, each"), "{out}");
}

/// No test asserts how long something takes (issue 39): a busy machine made
/// `cargo test` fail on its first run. Times are measured by the scripts here; a test may
/// only guard against a hang (a deadline after which it gives up waiting).
#[test]
fn no_test_measures_time() {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|x| x == "rs") {
                out.push(p);
            }
        }
    }
    let mut files = Vec::new();
    walk(&root().join("tests"), &mut files);
    assert!(files.len() > 20, "{files:?}");
    // Spelled in two halves, so this file does not find itself.
    let needles = [format!(".{}()", "elapsed"), format!("{}_secs()", "as")];
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap();
        for (n, line) in text.lines().enumerate() {
            for needle in &needles {
                assert!(
                    !line.contains(needle.as_str()),
                    "{}:{}: a test measures time ({needle}); measure it in bench/ instead: {line}",
                    f.display(),
                    n + 1
                );
            }
        }
    }
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
        String::from_utf8_lossy(&out.stderr).contains("bench/outputs.sh target/release/taintlint")
    );
}

/// Every script of the repository (`bench/`, `.ci/`, `action/`, `fuzz/`, `editors/`): a file
/// with a `#!` line, or a `.py`, `.sh`, `.cjs` or `.mjs` file, relative to the root.
fn scripts() -> Vec<PathBuf> {
    fn walk(dir: &Path, rel: &Path, out: &mut Vec<PathBuf>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let e = e.unwrap();
            let name = e.file_name();
            let rel = rel.join(&name);
            if e.file_type().unwrap().is_dir() {
                // Installed packages, fuzzer corpora and build output are not the project's.
                if ![
                    "node_modules",
                    "corpus",
                    "artifacts",
                    "target",
                    "__pycache__",
                ]
                .contains(&name.to_str().unwrap_or(""))
                {
                    walk(&e.path(), &rel, out);
                }
                continue;
            }
            let ext = rel.extension().and_then(|x| x.to_str()).unwrap_or("");
            let shebang = std::fs::read(e.path())
                .map(|b| b.starts_with(b"#!"))
                .unwrap_or(false);
            if shebang || ["py", "sh", "cjs", "mjs"].contains(&ext) {
                out.push(rel);
            }
        }
    }
    let mut out = Vec::new();
    for dir in ["bench", ".ci", "action", "fuzz", "editors"] {
        walk(&root().join(dir), Path::new(dir), &mut out);
    }
    out.sort();
    out
}

/// The interpreter a script runs with: by its extension, else by its `#!` line.
fn interpreter(script: &Path) -> &'static str {
    match script.extension().and_then(|x| x.to_str()) {
        Some("py") => "python3",
        Some("cjs" | "mjs" | "js") => "node",
        _ => {
            let text = std::fs::read_to_string(root().join(script)).unwrap();
            let first = text.lines().next().unwrap_or("");
            if first.contains("python") {
                "python3"
            } else if first.contains("node") {
                "node"
            } else {
                "bash"
            }
        }
    }
}

/// Every file under `dir` with its bytes (symbolic links as their targets' names).
fn snapshot(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let e = e.unwrap();
            let kind = e.file_type().unwrap();
            let path = e.path();
            let rel = path.strip_prefix(dir).unwrap().to_path_buf();
            if kind.is_dir() {
                out.push((rel, b"<dir>".to_vec()));
                stack.push(path);
            } else if kind.is_symlink() {
                let target = std::fs::read_link(&path).unwrap();
                out.push((rel, target.to_string_lossy().as_bytes().to_vec()));
            } else {
                out.push((rel, std::fs::read(&path).unwrap()));
            }
        }
    }
    out.sort();
    out
}

/// A copy of the scripts (and what they read first: Cargo.toml, the bench modules) in
/// `<tmp>/clone`, with an empty working folder, home and temporary folder beside it.
struct Sandbox {
    tmp: tempfile::TempDir,
}

impl Sandbox {
    fn new(scripts: &[PathBuf]) -> Sandbox {
        let tmp = tempfile::tempdir().unwrap();
        let clone = tmp.path().join("clone");
        for s in scripts
            .iter()
            .map(PathBuf::as_path)
            .chain([Path::new("Cargo.toml")])
        {
            std::fs::create_dir_all(clone.join(s).parent().unwrap()).unwrap();
            std::fs::copy(root().join(s), clone.join(s)).unwrap();
        }
        for d in ["work", "home", "tmp"] {
            std::fs::create_dir(tmp.path().join(d)).unwrap();
        }
        Sandbox { tmp }
    }

    /// Runs `script ARGS` from the empty working folder: (exit code, stdout, stderr).
    fn run(&self, script: &Path, args: &[&str]) -> (Option<i32>, String, String) {
        let t = self.tmp.path();
        let out = Command::new(interpreter(script))
            .arg(t.join("clone").join(script))
            .args(args)
            .current_dir(t.join("work"))
            .env("HOME", t.join("home"))
            .env("TMPDIR", t.join("tmp"))
            .env_remove("XDG_CACHE_HOME")
            .env_remove("CARGO_TARGET_DIR")
            .env_remove("PYTHONPATH")
            .env("PYTHONDONTWRITEBYTECODE", "1")
            .stdin(std::process::Stdio::null())
            .output()
            .unwrap_or_else(|e| panic!("{}: {e}", interpreter(script)));
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    }
}

fn has_node() -> bool {
    Command::new("node").arg("--version").output().is_ok()
}

/// `SCRIPT --help` (issue 39): says how to use the script, exits 0, and writes nothing — not
/// in the folder it runs in, not beside the script, not in the home or temporary folder.
/// (`gen_xref.py --help` once took `--help` for its output folder and 13 MB of generated
/// YAML was committed as `--help/`.)
#[test]
fn every_script_answers_help_and_writes_nothing() {
    let scripts = scripts();
    for expected in [
        "bench/gen_xref.py",
        "bench/outputs.sh",
        ".ci/run",
        ".ci/actionlint.cjs",
        "action/run.sh",
        "fuzz/run.sh",
    ] {
        assert!(
            scripts.iter().any(|s| s == Path::new(expected)),
            "{expected} not among {scripts:?}"
        );
    }
    let sandbox = Sandbox::new(&scripts);
    let before = snapshot(sandbox.tmp.path());
    for script in &scripts {
        if interpreter(script) == "node" && !has_node() {
            eprintln!("skipped {}: no node here", script.display());
            continue;
        }
        for flag in ["--help", "-h"] {
            let (code, stdout, stderr) = sandbox.run(script, &[flag]);
            let what = format!("{} {flag}", script.display());
            assert_eq!(code, Some(0), "{what}:\n{stdout}\n{stderr}");
            assert!(
                stdout.to_lowercase().contains("usage"),
                "{what} says nothing on how to use it:\n{stdout}\n{stderr}"
            );
            assert_eq!(snapshot(sandbox.tmp.path()), before, "{what} wrote files");
        }
    }
}

/// A script that writes into a folder refuses one that starts with `-` (a mistyped option),
/// and writes nothing.
#[test]
fn output_folders_starting_with_a_dash_are_refused() {
    let scripts = scripts();
    let sandbox = Sandbox::new(&scripts);
    let before = snapshot(sandbox.tmp.path());
    let cases: [(&str, &[&str]); 7] = [
        ("bench/gen_xref.py", &["--", "-out"]),
        ("bench/gen_xref.py", &["--wrong-pools", "--", "--help-me"]),
        ("bench/gen_corpus.py", &["--", "-out", "3", "1"]),
        (
            "bench/run.py",
            &["--work=-out", "--quick", "--no-ref", "--bin", BIN],
        ),
        (
            "bench/hostile.py",
            &["--workdir=-out", "--quick", "--bin", BIN],
        ),
        ("bench/outputs.sh", &[BIN, "-out"]),
        ("bench/outputs.sh", &[BIN, "--help"]),
    ];
    for (script, args) in cases {
        let (code, stdout, stderr) = sandbox.run(Path::new(script), args);
        let what = format!("{script} {args:?}");
        assert_eq!(code, Some(2), "{what}:\n{stdout}\n{stderr}");
        assert!(
            stderr.contains("starts with '-'"),
            "{what} does not say why:\n{stderr}"
        );
        assert_eq!(snapshot(sandbox.tmp.path()), before, "{what} wrote files");
    }
}

/// `.ci/run` runs every test binary even when one fails (`--no-fail-fast`), and still fails
/// then: cargo exits non-zero when any test failed, and the script stops on the first failing
/// command (`set -e`), before anything after it could exit 0.
#[test]
fn ci_runs_every_test_binary_and_fails_when_one_fails() {
    let text = std::fs::read_to_string(root().join(".ci/run")).unwrap();
    let lines: Vec<&str> = text.lines().map(str::trim).collect();
    let set = lines.iter().position(|l| *l == "set -euo pipefail");
    let test = lines.iter().position(|l| *l == "cargo test --no-fail-fast");
    assert!(matches!((set, test), (Some(s), Some(t)) if s < t), "{text}");
    assert!(
        !lines
            .iter()
            .any(|l| l.starts_with("cargo test") && (l.contains("||") || l.contains("; true"))),
        "a failing test must fail the script:\n{text}"
    );
}
