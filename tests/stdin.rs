//! Standard input without `-` (kubeconform's convention), runs that lint no file, and
//! `check --fix -` printing the fixed stream (as `ruff check --fix -` does).

#![allow(clippy::unwrap_used)] // tests may unwrap

use serde_json::Value;

mod common;
use common::cli::taintlint;

const BAD: &str = "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers: [{name: a, image: a}]\n  tolerations: [{key: k, operator: exists, effect: NoSchedule}]\n";

const GOOD_FILE: &str = "apiVersion: v1\nkind: Pod\nmetadata: {name: on-disk}\nspec:\n  containers: [{name: a, image: a}]\n  tolerations: [{key: k, operator: Exists, value: v, effect: NoSchedule}]\n";

/// Valid against the OASIS SARIF 2.1.0 schema (testdata/schemas), as tests/formats.rs checks.
fn valid_sarif(doc: &Value) {
    let path = common::cli::root().join("testdata/schemas/sarif-schema-2.1.0.json");
    let schema: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let url = "https://taintlint.test/sarif-schema-2.1.0.json";
    let mut schemas = boon::Schemas::new();
    let mut compiler = boon::Compiler::new();
    compiler.add_resource(url, schema).unwrap();
    let idx = compiler.compile(url, &mut schemas).unwrap();
    if let Err(e) = schemas.validate(doc, idx) {
        panic!("not valid SARIF 2.1.0: {e:#}");
    }
}

fn files(v: &Value) -> Vec<String> {
    let mut f: Vec<String> = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["file"].as_str().unwrap().to_string())
        .collect();
    f.dedup();
    f
}

/// A folder with a manifest of its own, so linting `.` and linting stdin differ.
fn dir() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("disk.yaml"), GOOD_FILE).unwrap();
    dir
}

#[test]
fn piped_input_without_a_path_is_read() {
    let dir = dir();
    // `helm template ./chart | taintlint check`: stdin, not the folder.
    let r = taintlint(&["check", "--format", "json"])
        .in_dir(dir.path())
        .stdin(BAD.as_bytes())
        .run();
    assert_eq!(r.code, 1, "{}", r.stderr);
    let v: Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(files(&v), ["<stdin>"]);
    assert_eq!(v["summary"]["files"], 1);
    // `matrix` and `explain` read it the same way: the pool on stdin, not the folder's.
    let node = "apiVersion: v1\nkind: Node\nmetadata: {name: piped-node}\nspec:\n  taints: [{key: k, effect: NoSchedule}]\n---\n";
    let r = taintlint(&["matrix"])
        .in_dir(dir.path())
        .stdin(format!("{node}{BAD}").as_bytes())
        .run();
    assert!(
        r.stdout.contains("piped-node"),
        "{}\n{}",
        r.stdout,
        r.stderr
    );
    assert!(!r.stdout.contains("on-disk"), "{}", r.stdout);
    // Helm's `# Source:` comments still name the templates, as with `-`.
    let helm = format!("---\n# Source: app/templates/pod.yaml\n{BAD}");
    let (_, v) = taintlint(&["check", "--format", "json"])
        .in_dir(dir.path())
        .stdin(helm.as_bytes())
        .json();
    assert_eq!(files(&v), ["app/templates/pod.yaml"]);
}

#[test]
fn no_input_or_an_empty_pipe_lints_the_current_directory() {
    let dir = dir();
    // No standard input at all (a null device: CI runners, cron, `</dev/null`).
    let (code, v) = taintlint(&["check", "--format", "json"])
        .in_dir(dir.path())
        .json();
    assert_eq!(code, 1);
    assert_eq!(files(&v), ["disk.yaml"]);
    // An empty pipe (what pre-commit passes on): `.`, and it says so.
    let r = taintlint(&["check", "--format", "json"])
        .in_dir(dir.path())
        .stdin(b"")
        .run();
    let v: Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(files(&v), ["disk.yaml"]);
    assert!(r.stderr.contains("standard input is empty"), "{}", r.stderr);
    // A path given: stdin is not read, whatever is on it.
    let (_, v) = taintlint(&["check", "--format", "json", "disk.yaml"])
        .in_dir(dir.path())
        .stdin(BAD.as_bytes())
        .json();
    assert_eq!(files(&v), ["disk.yaml"]);
}

#[test]
fn a_run_that_lints_no_file_says_so_in_every_format() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("notes.txt"), "not a manifest\n").unwrap();
    let expect = |format: &str, check: &dyn Fn(&str)| {
        let r = taintlint(&["check", ".", "--format", format])
            .in_dir(dir.path())
            .run();
        assert_eq!(r.code, 0, "{format}: {}", r.stderr);
        assert!(
            r.stderr.contains("warning: no files were linted"),
            "{format}: {}",
            r.stderr
        );
        check(&r.stdout);
    };
    for format in ["human", "concise"] {
        expect(format, &|out| {
            assert_eq!(out.trim_end(), "no findings: no files were linted");
        });
    }
    expect("markdown", &|out| {
        assert!(
            out.contains("⚠️ no findings: no files were linted"),
            "{out}"
        );
    });
    expect("github", &|out| {
        assert_eq!(out, "::warning title=taintlint::no files were linted\n");
    });
    expect("json", &|out| {
        let v: Value = serde_json::from_str(out).unwrap();
        assert_eq!(v["summary"]["files"], 0);
    });
    expect("junit", &|out| {
        assert!(out.contains("skipped=\"1\""), "{out}");
        assert!(
            out.contains("<skipped message=\"no files were linted\"/>"),
            "{out}"
        );
    });
    expect("sarif", &|out| {
        let v: Value = serde_json::from_str(out).unwrap();
        valid_sarif(&v);
        let note = &v["runs"][0]["invocations"][0]["toolExecutionNotifications"][0];
        assert_eq!(note["message"]["text"], "no files were linted");
        assert_eq!(note["level"], "warning");
    });
    for format in ["gitlab", "rdjson"] {
        expect(format, &|_| {});
    }
    // A run that lints a file says nothing of the kind.
    std::fs::write(
        dir.path().join("p.yaml"),
        GOOD_FILE.replace(", value: v", ""),
    )
    .unwrap();
    let r = taintlint(&["check", "."]).in_dir(dir.path()).run();
    assert!(!r.stderr.contains("no files"), "{}", r.stderr);
    assert!(r.stdout.contains("in 1 file"), "{}", r.stdout);
}

#[test]
fn fix_of_standard_input_prints_the_fixed_stream() {
    let dir = dir();
    let helm = format!("---\n# Source: app/templates/pod.yaml\n{BAD}");
    for (args, input) in [
        (&["check", "--fix", "-"][..], BAD.to_string()),
        (&["check", "--fix"][..], helm.clone()),
    ] {
        let r = taintlint(args)
            .in_dir(dir.path())
            .stdin(input.as_bytes())
            .run();
        // The stream, fixed, and nothing else on stdout; the report on stderr.
        assert_eq!(
            r.stdout,
            input.replace("operator: exists", "operator: Exists")
        );
        assert_eq!(r.code, 1, "{}", r.stderr);
        assert!(r.stderr.contains("fixed 1 finding"), "{}", r.stderr);
        assert!(r.stderr.contains("1 file"), "{}", r.stderr);
        // The file on disk is not linted, let alone touched.
        assert_eq!(
            std::fs::read_to_string(dir.path().join("disk.yaml")).unwrap(),
            GOOD_FILE
        );
    }
    // Nothing to fix: the stream comes back as it was.
    let clean = BAD.replace("operator: exists", "operator: Exists");
    let r = taintlint(&["check", "--fix", "-"])
        .in_dir(dir.path())
        .stdin(clean.as_bytes())
        .run();
    assert_eq!(r.stdout, clean);
    // A format to a file still goes there; stdin and a file together: the file is written,
    // the stream printed.
    let sarif = dir.path().join("out.sarif");
    let r = taintlint(&[
        "check",
        "--fix",
        "-",
        "disk.yaml",
        "--format",
        "sarif",
        "-o",
        sarif.to_str().unwrap(),
    ])
    .in_dir(dir.path())
    .stdin(BAD.as_bytes())
    .run();
    assert_eq!(r.stdout, clean, "{}", r.stderr);
    assert!(
        std::fs::read_to_string(&sarif)
            .unwrap()
            .contains("\"results\"")
    );
    assert!(
        !std::fs::read_to_string(dir.path().join("disk.yaml"))
            .unwrap()
            .contains("value: v")
    );
    // `--diff -` shows the stream's diff.
    let r = taintlint(&["check", "--diff", "-"])
        .in_dir(dir.path())
        .stdin(BAD.as_bytes())
        .run();
    assert_eq!(r.code, 1);
    assert!(
        r.stdout
            .contains("+  tolerations: [{key: k, operator: Exists"),
        "{}",
        r.stdout
    );
}

/// A pipe that stays open with nothing on it (an ssh session, an IDE's task runner): after a
/// few seconds taintlint says what it is waiting for; input that has started arriving gets no
/// such note, however slow the rest is. (Nothing here depends on the machine's speed: the
/// first case waits for the note before sending the input; the second sends its first bytes
/// at once and the rest after the note's delay has passed.)
#[test]
fn silent_standard_input_gets_a_hint() {
    use std::io::{BufRead, Read, Write};
    use std::process::{Command, Stdio};
    const HINT: &str = "reading standard input (no path was given)";
    let dir = dir();
    // `first` at once; then `rest` once stderr has the hint (`wait_for_hint`), or after the
    // hint's delay (3 s) and one more second.
    let run = |first: &[u8], rest: &[u8], wait_for_hint: bool| {
        let mut child = Command::new(common::cli::BIN)
            .args(["check", "--format", "concise"])
            .current_dir(dir.path())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut pipe = child.stdin.take().unwrap();
        let mut stdout = child.stdout.take().unwrap();
        let stderr = child.stderr.take().unwrap();
        let (tx, rx) = std::sync::mpsc::channel();
        let errors = std::thread::spawn(move || {
            let mut all = String::new();
            for line in std::io::BufReader::new(stderr).lines() {
                let line = line.unwrap();
                if line.contains(HINT) {
                    let _ = tx.send(());
                }
                all.push_str(&line);
                all.push('\n');
            }
            all
        });
        pipe.write_all(first).unwrap();
        pipe.flush().unwrap();
        if wait_for_hint {
            rx.recv_timeout(common::cli::HANG)
                .expect("no hint on stderr while standard input stayed silent");
        } else {
            std::thread::sleep(std::time::Duration::from_millis(4000));
        }
        pipe.write_all(rest).unwrap();
        drop(pipe);
        let mut out = String::new();
        stdout.read_to_string(&mut out).unwrap();
        child.wait().unwrap();
        (out, errors.join().unwrap())
    };
    let (stdout, stderr) = run(b"", BAD.as_bytes(), true);
    assert!(stderr.contains(HINT), "{stderr}");
    assert!(stdout.contains("<stdin>:6:"), "{stdout}");
    let (head, tail) = BAD.split_at(20);
    let (stdout, stderr) = run(head.as_bytes(), tail.as_bytes(), false);
    assert!(!stderr.contains("reading standard input"), "{stderr}");
    assert!(stdout.contains("<stdin>:6:"), "{stdout}");
}
