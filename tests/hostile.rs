//! Hostile input. Each case is linted beside a good file: the hostile file gets one clear
//! finding, the good file is still linted, and the run ends (a watchdog kills the binary after
//! [`HANG`], which only a hang can reach; how long each case takes is measured by
//! `bench/hostile.py` and `bench/timed_checks.py`, not here). Also: partial failure and exit
//! codes, and the fuzzer's regression fixtures (testdata/fuzz-regressions).

#![allow(clippy::unwrap_used)] // tests may unwrap

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use serde_json::Value;

const BIN: &str = env!("CARGO_BIN_EXE_taintlint");

/// A hang guard, not a time limit: past this a run is taken to hang and killed. Every case
/// here finishes in seconds, even on a busy 2-core machine.
const HANG: Duration = Duration::from_secs(300);

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

struct Run {
    code: i32,
    json: Value,
}

/// `taintlint check --format json ARGS` in `dir`, killed if it outlives [`HANG`].
fn check(dir: &Path, args: &[&str]) -> Run {
    check_with(Command::new(BIN), dir, args)
}

/// [`check`] with `cmd` as the start of the command line (the binary, or a wrapper of it).
fn check_with(mut cmd: Command, dir: &Path, args: &[&str]) -> Run {
    let child = cmd
        .arg("check")
        .args(["--format", "json"])
        .args(args)
        .current_dir(dir)
        .env_remove("TAINTLINT_FORMAT")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn taintlint");
    let pid = child.id();
    let done = Arc::new(AtomicBool::new(false));
    let watchdog = {
        let done = Arc::clone(&done);
        std::thread::spawn(move || {
            let deadline = Instant::now() + HANG;
            while !done.load(Ordering::SeqCst) {
                if Instant::now() > deadline {
                    let _ = Command::new("kill").args(["-9", &pid.to_string()]).status();
                    return true;
                }
                std::thread::sleep(Duration::from_millis(10));
            }
            false
        })
    };
    let out = child.wait_with_output().unwrap();
    done.store(true, Ordering::SeqCst);
    assert!(
        !watchdog.join().unwrap(),
        "taintlint check {args:?} did not finish within {HANG:?}"
    );
    let stdout = String::from_utf8(out.stdout).expect("stdout is UTF-8");
    let json = serde_json::from_str(&stdout).unwrap_or_else(|e| {
        panic!(
            "invalid JSON ({e}):\n{}\n{}",
            &stdout[..stdout.len().min(2000)],
            String::from_utf8_lossy(&out.stderr)
        )
    });
    Run {
        code: out.status.code().expect("exit code"),
        json,
    }
}

/// (file, rule) of every finding.
fn rules(v: &Value) -> Vec<(String, String)> {
    v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["file"].as_str().unwrap().to_string(),
                f["rule"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

fn messages(v: &Value, file: &str) -> Vec<String> {
    v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["file"] == file)
        .map(|f| f["message"].as_str().unwrap().to_string())
        .collect()
}

fn pair(file: &str, rule: &str) -> (String, String) {
    (file.to_string(), rule.to_string())
}

/// `good.yaml`'s one finding: proof that it was linted.
const GOOD_RULE: &str = "toleration-exists-with-value";

/// The loader's rules and `GOOD_RULE`, so rules added later do not change the expectations.
const SEL: &str = "--select=input,toleration-exists-with-value";

/// A temporary folder holding `good.yaml`.
fn dir_with_good() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    fs::copy(
        root().join("testdata/input/good.yaml"),
        dir.path().join("good.yaml"),
    )
    .unwrap();
    dir
}

/// Writes `name` beside `good.yaml`, lints the folder with the default rules, and checks that
/// `name` gets exactly one finding of `rule` and `good.yaml` its own. Returns the run.
fn lint_beside_good(name: &str, bytes: &[u8], rule: &str) -> Run {
    let dir = dir_with_good();
    fs::write(dir.path().join(name), bytes).unwrap();
    expect_one(dir.path(), &["."], name, rule)
}

/// Lints `args` (with [`SEL`]): `name` has one finding of `rule`, `good.yaml` its own.
fn expect_one(dir: &Path, args: &[&str], name: &str, rule: &str) -> Run {
    let mut all = vec![SEL];
    all.extend_from_slice(args);
    let run = check(dir, &all);
    let mut want = vec![pair("good.yaml", GOOD_RULE), pair(name, rule)];
    want.sort();
    assert_eq!(rules(&run.json), want, "{name}");
    assert_eq!(run.code, 1);
    run
}

// ---------------------------------------------------------------- parser bombs

#[test]
fn alias_bomb() {
    // Billion laughs: ten levels of ten aliases each would expand to 10^10 nodes.
    let mut text = String::from(
        "a: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n",
    );
    let names: Vec<char> = ('a'..='j').collect();
    for w in names.windows(2) {
        let (prev, name) = (w[0], w[1]);
        let refs = vec![format!("*{prev}"); 10].join(",");
        text.push_str(&format!("{name}: &{name} [{refs}]\n"));
    }
    let run = lint_beside_good("bomb.yaml", text.as_bytes(), "yaml-too-complex");
    assert!(messages(&run.json, "bomb.yaml")[0].contains("aliasing"));
}

#[test]
fn deep_flow_nesting() {
    let text = "[".repeat(100_000);
    let run = lint_beside_good("deep.yaml", text.as_bytes(), "yaml-too-complex");
    assert!(messages(&run.json, "deep.yaml")[0].contains("levels deep"));
}

#[test]
fn deep_block_nesting() {
    // `- - - ... x`: 100,000 block sequences, one inside the other, on one line.
    let text = format!("{}x\n", "- ".repeat(100_000));
    let run = lint_beside_good("deep.yaml", text.as_bytes(), "yaml-too-complex");
    assert!(messages(&run.json, "deep.yaml")[0].contains("levels deep"));
    // And as nested block mappings, each key one column further right (10,000 levels: the
    // indentation alone makes the file 50 MB at 100,000).
    let text: String = (0..10_000)
        .map(|i| format!("{}k:\n", " ".repeat(i)))
        .collect();
    lint_beside_good("deep-map.yaml", text.as_bytes(), "yaml-too-complex");
}

// ---------------------------------------------------------------- size

#[test]
fn three_gigabyte_sparse_file_is_not_read() {
    let dir = dir_with_good();
    let f = fs::File::create(dir.path().join("huge.yaml")).unwrap();
    // Sparse: no disk used, and reading it would take seconds and 3 GB of memory.
    f.set_len(3 << 30).unwrap();
    drop(f);
    let run = expect_one(dir.path(), &["."], "huge.yaml", "unreadable-file");
    let msg = &messages(&run.json, "huge.yaml")[0];
    assert!(
        msg.contains("3221225472 bytes") && msg.contains("limit"),
        "{msg}"
    );
}

#[test]
fn one_megabyte_single_line_scalar() {
    // A toleration value of 1 MB on one line: one finding (not a valid label value).
    let value = "v".repeat(1 << 20);
    let text = format!(
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: big\nspec:\n  containers: [{{name: a, image: a}}]\n  tolerations:\n    - {{key: k, operator: Equal, value: {value}, effect: NoSchedule}}\n"
    );
    let dir = dir_with_good();
    fs::write(dir.path().join("big.yaml"), &text).unwrap();
    let sel = "--select=input,invalid-toleration-value,toleration-exists-with-value";
    expect_one(
        dir.path(),
        &[sel, "."],
        "big.yaml",
        "invalid-toleration-value",
    );
    // Every output format copes with it. The message quotes the value (as the API server
    // does), but no format multiplies it.
    for format in ["human", "json", "concise", "sarif", "github", "markdown"] {
        let out = Command::new(BIN)
            .args(["check", "--color", "never", "--format", format, sel, "."])
            .current_dir(dir.path())
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1), "{format}");
        assert!(out.stdout.len() < 8 << 20, "{format}: {}", out.stdout.len());
    }
}

#[test]
fn hundred_thousand_documents() {
    // 100,000 small documents, then a Pod whose toleration is the file's one finding: proof
    // that the last document was reached.
    let mut text: String = (0..100_000).map(|i| format!("---\na: {i}\n")).collect();
    // `value: batch` is the 11th line of the last document.
    let line = text.lines().count() + 11;
    text.push_str(
        "---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: last\nspec:\n  containers: [{name: a, image: a}]\n  tolerations:\n    - key: dedicated\n      operator: Exists\n      value: batch\n      effect: NoSchedule\n",
    );
    let run = lint_beside_good("many.yaml", text.as_bytes(), GOOD_RULE);
    let f = run.json["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["file"] == "many.yaml")
        .unwrap()
        .clone();
    assert_eq!(f["line"].as_u64(), Some(line as u64));
    assert_eq!(run.json["summary"]["documents"].as_u64(), Some(100_002));
}

// ---------------------------------------------------------------- encodings

#[test]
fn invalid_utf8() {
    let run = lint_beside_good("latin1.yaml", b"a: 1\nb: caf\xe9\n", "invalid-encoding");
    assert_eq!(
        run.json["findings"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["file"] == "latin1.yaml")
            .map(|f| (f["line"].as_u64(), f["column"].as_u64())),
        Some((Some(2), Some(7)))
    );
}

#[test]
fn nul_bytes() {
    lint_beside_good("nul.yaml", b"a: 1\n\0\0\0\nb: 2\n", "invalid-encoding");
}

#[test]
fn utf16() {
    let mut bytes = vec![0xFF, 0xFE];
    bytes.extend(
        "apiVersion: v1\nkind: Pod\n"
            .encode_utf16()
            .flat_map(u16::to_le_bytes),
    );
    let run = lint_beside_good("utf16.yaml", &bytes, "invalid-encoding");
    assert!(messages(&run.json, "utf16.yaml")[0].contains("UTF-16"));
}

/// Issue 20, item 7: a binary file named `.yaml` (or `/bin/ls` named on the command line) was
/// reported as UTF-16. It is reported as binary, without a snippet of its bytes.
#[test]
fn binary_files_are_reported_as_binary() {
    let mut png = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\x01\0\0\0\x01\x08\x06\0\0\0".to_vec();
    png.extend((0..400u32).map(|i| (i * 7 % 256) as u8));
    let run = lint_beside_good("logo.yaml", &png, "invalid-encoding");
    let msg = &messages(&run.json, "logo.yaml")[0];
    assert!(msg.contains("binary file (a PNG image)"), "{msg}");
    assert!(!msg.contains("UTF-16"), "{msg}");

    // The executable running this test: a real binary, whatever its format.
    let exe = fs::read(std::env::current_exe().unwrap()).unwrap();
    let run = lint_beside_good(
        "tool.yaml",
        &exe[..exe.len().min(64 * 1024)],
        "invalid-encoding",
    );
    let msg = &messages(&run.json, "tool.yaml")[0];
    assert!(msg.starts_with("binary file ("), "{msg}");
}

// ---------------------------------------------------------------- special files

#[cfg(unix)]
#[test]
fn fifo_named_yaml() {
    let dir = dir_with_good();
    let status = Command::new("mkfifo")
        .arg(dir.path().join("x.yaml"))
        .status()
        .expect("mkfifo");
    assert!(status.success());
    // Walked or named, it is reported and never opened (opening would block forever).
    for args in [&["."][..], &["x.yaml", "good.yaml"]] {
        let run = expect_one(dir.path(), args, "x.yaml", "unreadable-file");
        assert!(messages(&run.json, "x.yaml")[0].contains("FIFO"));
    }
}

#[cfg(unix)]
#[test]
fn symlink_loop_with_follow_links() {
    let dir = dir_with_good();
    std::os::unix::fs::symlink(".", dir.path().join("loop")).unwrap();
    let run = expect_one(
        dir.path(),
        &[".", "--follow-links"],
        "loop",
        "unreadable-file",
    );
    assert!(messages(&run.json, "loop")[0].contains("loop"));
}

#[cfg(unix)]
#[test]
fn dangling_symlink_with_follow_links() {
    let dir = dir_with_good();
    std::os::unix::fs::symlink("gone.yaml", dir.path().join("dangling.yaml")).unwrap();
    let run = expect_one(
        dir.path(),
        &[".", "--follow-links"],
        "dangling.yaml",
        "unreadable-file",
    );
    assert!(messages(&run.json, "dangling.yaml")[0].contains("dangling"));
    // Without --follow-links a link is neither read nor reported.
    let run = check(dir.path(), &[SEL, "."]);
    assert_eq!(rules(&run.json), [pair("good.yaml", GOOD_RULE)]);
}

#[cfg(unix)]
#[test]
fn link_to_a_parent_folder_reads_each_file_once() {
    // d/a/up -> .. : with --follow-links, d/a/up/b/x.yaml is d/b/x.yaml again (and
    // d/a/up/a is a loop). Each file is linted once, under the name without the link.
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    for sub in ["a", "b"] {
        fs::create_dir(d.join(sub)).unwrap();
    }
    fs::copy(root().join("testdata/input/good.yaml"), d.join("b/x.yaml")).unwrap();
    fs::copy(root().join("testdata/input/good.yaml"), d.join("top.yaml")).unwrap();
    std::os::unix::fs::symlink("..", d.join("a/up")).unwrap();
    // Also a second link to the same folder, and a link to a file.
    std::os::unix::fs::symlink("b", d.join("c")).unwrap();
    std::os::unix::fs::symlink("top.yaml", d.join("same.yaml")).unwrap();
    let run = check(d, &[SEL, ".", "--follow-links"]);
    let found = rules(&run.json);
    assert_eq!(
        found,
        [
            pair("a/up", "unreadable-file"),
            pair("b/x.yaml", GOOD_RULE),
            pair("top.yaml", GOOD_RULE),
        ],
        "{found:?}"
    );
    // Overlapping paths on the command line: once too.
    let run = check(d, &[SEL, "b", "./b", "b/x.yaml", "."]);
    assert_eq!(
        rules(&run.json),
        [pair("b/x.yaml", GOOD_RULE), pair("top.yaml", GOOD_RULE)]
    );
}

/// Is `path` still listable after `chmod 000`? Root (and CAP_DAC_OVERRIDE) can.
#[cfg(unix)]
fn privileged(path: &Path) -> bool {
    fs::read_dir(path).is_ok()
}

#[cfg(unix)]
#[test]
fn unreadable_directory() {
    use std::os::unix::fs::PermissionsExt;
    let dir = dir_with_good();
    let locked = dir.path().join("locked");
    fs::create_dir(&locked).unwrap();
    fs::write(locked.join("inside.yaml"), "a: 1\n").unwrap();
    fs::set_permissions(&locked, fs::Permissions::from_mode(0o000)).unwrap();
    let mut run = check(dir.path(), &[SEL, "."]);
    if privileged(&locked) {
        // Running as root: chmod 000 blocks nothing. The run must still be sane; then try
        // again as `nobody` if setpriv is there.
        assert_eq!(rules(&run.json), [pair("good.yaml", GOOD_RULE)]);
        fs::set_permissions(dir.path(), fs::Permissions::from_mode(0o755)).unwrap();
        let mut cmd = Command::new("setpriv");
        cmd.args(["--reuid=65534", "--regid=65534", "--clear-groups", BIN]);
        let usable = Command::new("setpriv")
            .args([
                "--reuid=65534",
                "--regid=65534",
                "--clear-groups",
                BIN,
                "--version",
            ])
            .output()
            .is_ok_and(|o| o.status.success());
        if !usable {
            fs::set_permissions(&locked, fs::Permissions::from_mode(0o755)).unwrap();
            eprintln!("unreadable_directory: privileged and no setpriv; the assertion is skipped");
            return;
        }
        run = check_with(cmd, dir.path(), &[SEL, "."]);
    }
    fs::set_permissions(&locked, fs::Permissions::from_mode(0o755)).unwrap();
    assert_eq!(
        rules(&run.json),
        [
            pair("good.yaml", GOOD_RULE),
            pair("locked", "unreadable-file")
        ]
    );
    assert!(messages(&run.json, "locked")[0].contains("permission denied"));
    assert_eq!(run.code, 1);
}

#[test]
fn file_that_disappears_between_walk_and_read() {
    use taintlint::engine::{Input, LintOptions, lint_inputs};
    use taintlint::load::walk::{WalkOptions, collect};
    use taintlint::rules::RuleSet;
    let dir = dir_with_good();
    fs::write(dir.path().join("gone.yaml"), "a: 1\n").unwrap();
    let opts = WalkOptions::new(&[], &[], false).unwrap();
    let entries = collect(&[dir.path().to_path_buf()], &opts).unwrap();
    assert_eq!(entries.len(), 2);
    fs::remove_file(dir.path().join("gone.yaml")).unwrap();
    let opts = LintOptions {
        rules: RuleSet::resolve(&["input".into(), GOOD_RULE.into()], &[]).unwrap(),
        ..LintOptions::default()
    };
    let findings = lint_inputs(entries.into_iter().map(Input::Entry).collect(), &opts)
        .unwrap()
        .findings;
    let found: Vec<(String, &str)> = findings
        .iter()
        .map(|f| {
            let name = Path::new(&*f.file).file_name().unwrap();
            (name.to_string_lossy().into_owned(), f.rule)
        })
        .collect();
    assert_eq!(
        found,
        [
            ("gone.yaml".to_string(), "unreadable-file"),
            ("good.yaml".to_string(), GOOD_RULE),
        ]
    );
    let gone = findings[0].message.clone();
    assert!(gone.contains("cannot read file"), "{gone}");
}

// ---------------------------------------------------------------- partial failure

#[cfg(unix)]
#[test]
fn unreadable_files_are_findings_not_tool_errors() {
    let dir = dir_with_good();
    // Files that cannot be read, whoever runs the test: a FIFO, and a dangling link named
    // explicitly.
    let status = Command::new("mkfifo")
        .arg(dir.path().join("pipe.yaml"))
        .status()
        .expect("mkfifo");
    assert!(status.success());
    std::os::unix::fs::symlink("gone.yaml", dir.path().join("link.yaml")).unwrap();
    let args = [SEL, "pipe.yaml", "good.yaml", "link.yaml"];
    let run = check(dir.path(), &args);
    assert_eq!(
        rules(&run.json),
        [
            pair("good.yaml", GOOD_RULE),
            pair("link.yaml", "unreadable-file"),
            pair("pipe.yaml", "unreadable-file"),
        ]
    );
    assert_eq!(run.code, 1);
    // Findings decide the exit code through --fail-on, whatever their kind.
    let mut never = args.to_vec();
    never.extend(["--fail-on", "never"]);
    let run = check(dir.path(), &never);
    assert_eq!(rules(&run.json).len(), 3);
    assert_eq!(run.code, 0);
    // Only what the user asked for and cannot be had is a tool error (exit 2).
    let out = Command::new(BIN)
        .args(["check", "missing.yaml", "good.yaml"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

// ---------------------------------------------------------------- fuzz regressions

/// Inputs of the `lint` target's crashes that are not fixed yet: each has an ignored test
/// below. (None so far.)
const OPEN_CRASHES: &[&str] = &[];

/// What the fuzz target checks (fuzz/fuzz_targets/lint.rs), for one input.
fn lint_like_the_fuzzer(bytes: &[u8]) {
    use clap::ValueEnum;
    use taintlint::engine::{self, LintOptions};
    use taintlint::load::{self, ReadFailure, SourceFile};
    use taintlint::report::{self, Format, HumanOptions, Summary};
    use taintlint::rules::RuleSet;

    let text = match load::decode(bytes.to_vec()) {
        Ok(text) => text,
        Err(ReadFailure::InvalidUtf8 { lossy, .. }) => lossy,
        Err(ReadFailure::Nul { text, .. }) => text.replace('\0', "\u{2400}"),
        // Not linted by the loader; linted here all the same, for the coverage.
        Err(ReadFailure::Binary(_)) => String::from_utf8_lossy(bytes).replace('\0', "\u{2400}"),
        Err(_) => return,
    };
    let source = SourceFile::new("fuzz.yaml", text);
    let opts = LintOptions {
        rules: RuleSet::resolve(&["all".into(), "stateful-eviction-timeout".into()], &[]).unwrap(),
        ..LintOptions::default()
    };
    let findings = engine::lint_text(&source.name, &source.text, &opts)
        .unwrap()
        .findings;
    for f in &findings {
        assert_ne!(f.rule, "internal-error", "{f:?}");
        if let Some(src) = &f.source {
            for l in f.primary.iter().chain(&f.secondary) {
                let (s, e) = (l.span.start, l.span.end);
                assert!(s <= e && e <= src.text.len(), "{f:?}");
                assert!(
                    src.text.is_char_boundary(s) && src.text.is_char_boundary(e),
                    "{f:?}"
                );
            }
        }
    }
    let summary = Summary::default();
    for format in Format::value_variants() {
        let mut out = Vec::new();
        report::write(
            *format,
            &findings,
            &summary,
            &HumanOptions::default(),
            &mut out,
        )
        .unwrap();
    }
}

/// The `.fuzz` files of testdata/fuzz-regressions.
fn regressions() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = fs::read_dir(root().join("testdata/fuzz-regressions"))
        .map(|d| {
            d.map(|e| e.unwrap().path())
                .filter(|p| p.extension().is_some_and(|x| x == "fuzz"))
                .collect()
        })
        .unwrap_or_default();
    files.sort();
    files
}

#[test]
fn fuzz_regressions_lint_cleanly() {
    for path in regressions() {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if OPEN_CRASHES.contains(&name.as_str()) {
            continue;
        }
        let bytes = fs::read(&path).unwrap();
        lint_like_the_fuzzer(&bytes);
    }
}

/// The binary gives no `internal-error` for any of them either.
#[test]
fn fuzz_regressions_through_the_binary() {
    let files: Vec<String> = regressions()
        .iter()
        .filter(|p| {
            let name = p.file_name().unwrap().to_string_lossy();
            !OPEN_CRASHES.contains(&name.as_ref())
        })
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    if files.is_empty() {
        return;
    }
    let mut args = vec!["--select", "all", "--fail-on", "never"];
    args.extend(files.iter().map(String::as_str));
    let run = check(&root(), &args);
    assert!(
        rules(&run.json).iter().all(|(_, r)| r != "internal-error"),
        "{:?}",
        run.json
    );
    assert_eq!(run.code, 0);
}

/// The fast path reports what `--full-parse` reports (fuzz target `fast_full`), on `file`.
fn fast_equals_full(file: &str) {
    let path = format!("testdata/fuzz-regressions/{file}");
    let fast = check(&root(), &["--select", "all", "--isolated", &path]);
    let full = check(
        &root(),
        &["--select", "all", "--isolated", "--full-parse", &path],
    );
    assert_eq!(fast.json["findings"], full.json["findings"], "{file}");
}

#[test]
fn fast_path_unterminated_quote_before_document_marker() {
    fast_equals_full("fast-path-unterminated-quote-before-document-marker.fuzz");
}

#[test]
fn fast_path_hides_syntax_error_in_skipped_kind() {
    fast_equals_full("fast-path-hides-syntax-error-in-skipped-kind.fuzz");
}

#[test]
fn fast_path_marker_followed_by_vertical_tab() {
    fast_equals_full("fast-path-marker-followed-by-vertical-tab.fuzz");
}

#[test]
fn fast_path_alias_to_anchor_of_another_document() {
    fast_equals_full("fast-path-alias-to-anchor-of-another-document.fuzz");
}

#[test]
fn fast_path_top_level_block_scalar_over_markers() {
    fast_equals_full("fast-path-top-level-block-scalar-over-markers.fuzz");
}

#[test]
fn fast_path_hides_indented_non_key_line() {
    fast_equals_full("fast-path-hides-indented-non-key-line.fuzz");
}

/// A tab error points at the tab: right before where the parser stopped (an indenting tab),
/// or lines after it (a plain scalar the tab cut short).
#[test]
fn tab_errors_point_at_the_tab() {
    let cases: &[(&str, &str, (u64, u64))] = &[
        (
            "indent.yaml",
            "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  tolerations:\n\t- key: a\n",
            (7, 1),
        ),
        (
            "scalar.yaml",
            "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  tolerations:\n  - key: dedicated\n\toperator: Exists\n",
            (8, 1),
        ),
    ];
    for (name, text, (line, column)) in cases {
        let run = lint_beside_good(name, text.as_bytes(), "yaml-syntax-error");
        let found = run.json["findings"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["file"] == *name)
            .unwrap();
        assert!(
            found["message"].as_str().unwrap().contains("tab"),
            "{found}"
        );
        assert_eq!(
            (found["line"].as_u64(), found["column"].as_u64()),
            (Some(*line), Some(*column)),
            "{name}: {found}"
        );
    }
}

// ---------------------------------------------------------------- budgets (#22)

/// [`check`] with the memory one document may take set to `bytes`.
fn check_with_budget(dir: &Path, args: &[&str], bytes: usize) -> Run {
    let mut cmd = Command::new(BIN);
    cmd.env("TAINTLINT_DOCUMENT_BUDGET", bytes.to_string());
    check_with(cmd, dir, args)
}

/// A Pod whose toleration is `good.yaml`'s finding (`Exists` with a value), named `name`.
fn pod_with_finding(name: &str) -> String {
    format!(
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: {name}\nspec:\n  containers: [{{name: a, image: a}}]\n  tolerations:\n    - {{key: k, operator: Exists, value: v, effect: NoSchedule}}\n"
    )
}

/// (rule, line) of the findings in `file`.
fn rules_at(v: &Value, file: &str) -> Vec<(String, u64)> {
    v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["file"] == file)
        .map(|f| {
            (
                f["rule"].as_str().unwrap().to_string(),
                f["line"].as_u64().unwrap(),
            )
        })
        .collect()
}

#[test]
fn document_over_the_memory_budget_is_reported_not_built() {
    // A Pod whose nodeSelector has 3,000 keys (about 250 KB of tree) against a 64 KiB budget,
    // between two small Pods with a finding each: the one before is checked, the big one is
    // reported at its start, and the file ends there (as at any load error).
    let keys: String = (0..3000).map(|i| format!("    k{i}: v\n")).collect();
    let block = format!(
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: big\nspec:\n  nodeSelector:\n{keys}"
    );
    let flow_keys: Vec<String> = (0..3000).map(|i| format!("k{i}: v")).collect();
    let flow = format!(
        "{{apiVersion: v1, kind: Pod, metadata: {{name: big}}, spec: {{nodeSelector: {{{}}}}}}}\n",
        flow_keys.join(", ")
    );
    // An anchor: the parser's, not the fast builder's.
    let anchored = format!(
        "{}  extra: &x [a]\n",
        block.replace("  nodeSelector:\n", "  nodeSelector: &n\n")
    );
    for (what, big) in [("block", &block), ("flow", &flow), ("anchored", &anchored)] {
        let text = format!(
            "{}---\n{big}---\n{}",
            pod_with_finding("before"),
            pod_with_finding("after")
        );
        // The big document starts at its `---` line.
        let big_line = pod_with_finding("before").lines().count() as u64 + 1;
        for mode in [&[][..], &["--full-parse"][..]] {
            let dir = dir_with_good();
            fs::write(dir.path().join("big.yaml"), &text).unwrap();
            let mut args = vec![SEL, "."];
            args.extend_from_slice(mode);
            let run = check_with_budget(dir.path(), &args, 64 << 10);
            assert_eq!(
                rules_at(&run.json, "big.yaml"),
                vec![
                    (GOOD_RULE.to_string(), 8),
                    ("yaml-too-complex".to_string(), big_line)
                ],
                "{what} {mode:?}"
            );
            let msg = &messages(&run.json, "big.yaml")[1];
            assert!(msg.contains("more than 64 KiB of memory"), "{msg}");
            assert_eq!(rules_at(&run.json, "good.yaml").len(), 1, "{what} {mode:?}");
            // With the default budget, the same file is linted whole.
            let run = check(dir.path(), &args);
            assert_eq!(
                rules_at(&run.json, "big.yaml"),
                vec![
                    (GOOD_RULE.to_string(), 8),
                    (GOOD_RULE.to_string(), big_line + block_lines(big) + 9),
                ],
                "{what} {mode:?}"
            );
        }
    }
}

/// Lines of `text` (each ends with a line feed).
fn block_lines(text: &str) -> u64 {
    text.lines().count() as u64
}

#[test]
fn parser_is_not_given_a_flow_collection_it_would_buffer_past_the_budget() {
    // saphyr holds every token of a flow collection until it closes: a List of 2,000 items
    // on one line, given to the parser (--full-parse), is over 64 KiB before any event.
    let items: Vec<String> = (0..2000).map(|i| format!("{{a: {i}, b: [x]}}")).collect();
    let text = format!(
        "{{apiVersion: v1, kind: List, items: [{}]}}\n",
        items.join(", ")
    );
    let dir = dir_with_good();
    fs::write(dir.path().join("list.yaml"), &text).unwrap();
    let run = check_with_budget(dir.path(), &[SEL, ".", "--full-parse"], 64 << 10);
    assert_eq!(
        rules_at(&run.json, "list.yaml"),
        vec![("yaml-too-complex".to_string(), 1)]
    );
}

/// A document whose aliases add 67,885 nodes: under the budget of 100,000 alone.
fn laughs(name: &str) -> String {
    let refs = |to: &str, n: usize| vec![format!("*{to}"); n].join(", ");
    format!(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\ndata:\n  a: &a [x, x, x, x, x, x, x, x, x, x]\n  b: &b [{}]\n  c: &c [{}]\n  d: &d [{}]\n  e: [{}]\n",
        refs("a", 10),
        refs("b", 10),
        refs("c", 10),
        refs("d", 5)
    )
}

#[test]
fn alias_budget_is_the_files_not_each_documents() {
    // Each document alone is under the budget; the second one takes the file over it. Once a
    // file could expand 100,000 nodes per document: 1,000 such documents took 27 s and
    // 7.6 GB with --full-parse.
    let text = format!(
        "{}---\n{}---\n{}---\n{}",
        pod_with_finding("first"),
        laughs("one"),
        laughs("two"),
        pod_with_finding("last")
    );
    let two_at = text.find("name: two").unwrap();
    let line = text[..two_at].lines().count() as u64;
    for mode in [&[][..], &["--full-parse"][..]] {
        let dir = dir_with_good();
        fs::write(dir.path().join("laughs.yaml"), &text).unwrap();
        let mut args = vec![SEL, "."];
        args.extend_from_slice(mode);
        let run = check(dir.path(), &args);
        let found = rules_at(&run.json, "laughs.yaml");
        assert_eq!(found.len(), 2, "{mode:?}: {found:?}");
        assert_eq!(found[0], (GOOD_RULE.to_string(), 8), "{mode:?}");
        assert_eq!(found[1].0, "yaml-too-complex", "{mode:?}");
        // In the second laughing document, after its name.
        assert!(found[1].1 > line, "{mode:?}: {found:?}");
        assert!(messages(&run.json, "laughs.yaml")[1].contains("aliasing"));
        // One such document alone is fine.
        fs::write(
            dir.path().join("laughs.yaml"),
            format!("{}---\n{}", laughs("one"), pod_with_finding("last")),
        )
        .unwrap();
        let run = check(dir.path(), &args);
        assert_eq!(rules_at(&run.json, "laughs.yaml").len(), 1, "{mode:?}");
    }
}

#[test]
fn template_comment_does_not_change_how_the_file_is_read() {
    // `{{ }}` in a comment once sent the whole stream to the parser at once (a million tiny
    // documents: 1.6 GB); the file is read document by document like any other, and since it
    // parses it is linted: the same findings as without the comment, one line further down.
    let body = format!(
        "{}---\n{}---\n{}",
        pod_with_finding("first"),
        // An anchor: this document is the parser's.
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata: &d {a: b}\n",
        pod_with_finding("last")
    );
    for mode in [&[][..], &["--full-parse"][..]] {
        let dir = dir_with_good();
        fs::write(dir.path().join("plain.yaml"), &body).unwrap();
        fs::write(
            dir.path().join("commented.yaml"),
            format!("# {{{{ .Values.note }}}}\n{body}"),
        )
        .unwrap();
        let mut args = vec![SEL, "."];
        args.extend_from_slice(mode);
        let run = check(dir.path(), &args);
        let plain = rules_at(&run.json, "plain.yaml");
        let shifted: Vec<_> = plain.iter().map(|(r, l)| (r.clone(), l + 1)).collect();
        assert_eq!(plain.len(), 2, "{mode:?}");
        assert_eq!(rules_at(&run.json, "commented.yaml"), shifted, "{mode:?}");
        // A real template is still one: a `{{ }}` key in the last document.
        fs::write(
            dir.path().join("commented.yaml"),
            format!("{body}---\n{{{{ .Values.extra }}}}: x\n"),
        )
        .unwrap();
        let run = check(dir.path(), &args);
        assert_eq!(
            rules(&run.json)
                .into_iter()
                .filter(|(f, _)| f == "commented.yaml")
                .collect::<Vec<_>>(),
            vec![pair("commented.yaml", "template-not-rendered")],
            "{mode:?}"
        );
    }
}
