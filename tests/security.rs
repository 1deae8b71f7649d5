//! taintlint on a pull request from a stranger: everything in the checkout (manifests, config,
//! baselines, links) is the attacker's. Each test plants one attack from SECURITY.md in a
//! temporary repository beside a folder that stands for the rest of the machine, runs the
//! real binary as the Action and pre-commit do, and checks that nothing outside the
//! repository changed, nothing outside it was read into the output, and no line of the output
//! is a command for the CI runner or a sequence for the terminal.

#![allow(clippy::unwrap_used)] // tests may unwrap
#![cfg(unix)]

use std::collections::BTreeMap;
use std::io::{BufRead, Read};
use std::os::unix::fs::{PermissionsExt, symlink};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

mod common;

use common::cli::{BIN, Run, taintlint};

/// A checkout (`repo/`, with a `.git` folder) and the machine around it (`outside/`, holding
/// a script another step runs and a secret).
struct Site {
    _dir: tempfile::TempDir,
    repo: PathBuf,
    outside: PathBuf,
}

const SCRIPT: &str = "#!/bin/sh\necho the next step\n";
const SECRET: &str = "aws_secret_access_key: SECRET-1234567890\n";

const POD: &str = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  tolerations:\n  - key: dedicated\n    operator: Exists\n    value: infra\n  containers: [{name: a, image: b}]\n";

fn site() -> Site {
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path().join("repo");
    let outside = dir.path().join("outside");
    std::fs::create_dir_all(repo.join(".git")).unwrap();
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(outside.join("next-step.sh"), SCRIPT).unwrap();
    std::fs::set_permissions(
        outside.join("next-step.sh"),
        std::fs::Permissions::from_mode(0o755),
    )
    .unwrap();
    std::fs::write(outside.join("credentials"), SECRET).unwrap();
    std::fs::write(repo.join("pod.yaml"), POD).unwrap();
    Site {
        _dir: dir,
        repo,
        outside,
    }
}

impl Site {
    /// Every file below `outside/` with its bytes and mode.
    fn outside_state(&self) -> BTreeMap<String, (Vec<u8>, u32)> {
        let mut out = BTreeMap::new();
        for e in walkdir(&self.outside) {
            let meta = std::fs::symlink_metadata(&e).unwrap();
            let bytes = if meta.is_file() {
                std::fs::read(&e).unwrap()
            } else {
                Vec::new()
            };
            out.insert(
                e.strip_prefix(&self.outside).unwrap().display().to_string(),
                (bytes, meta.permissions().mode()),
            );
        }
        out
    }

    fn run(&self, args: &[&str]) -> Run {
        taintlint(args).in_dir(&self.repo).run()
    }

    /// Runs `args` and checks the attack left `outside/` as it was.
    fn run_contained(&self, args: &[&str]) -> Run {
        let before = self.outside_state();
        let r = self.run(args);
        assert_eq!(
            self.outside_state(),
            before,
            "{args:?} changed a file outside the repository\n{}{}",
            r.stdout,
            r.stderr
        );
        assert!(!r.stdout.contains("SECRET-") && !r.stderr.contains("SECRET-"));
        r
    }
}

fn walkdir(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if std::fs::symlink_metadata(&p).unwrap().is_dir() {
            out.extend(walkdir(&p));
        }
        out.push(p);
    }
    out.sort();
    out
}

/// No line a CI runner would read as a command (after the blanks it trims), no terminal
/// control sequence, no line break but LF.
fn assert_inert(what: &str, text: &str) {
    for line in text.split('\n') {
        let t = line.trim_start();
        assert!(
            !t.starts_with("::"),
            "{what}: a line starts a workflow command: {line:?}"
        );
    }
    for c in text.chars() {
        assert!(
            c == '\n' || c == '\t' || !taintlint::util::text::is_unsafe(c),
            "{what}: holds {c:?}:\n{text}"
        );
    }
}

// --- Writes ---

#[test]
fn links_at_the_writers_old_temporary_names_do_not_redirect_the_sarif() {
    let s = site();
    // The old writer's temporary names, `.NAME.taintlint-PID-N.tmp`, for the pids the next
    // processes are likely to get, each a link to the script another step runs.
    let pid = std::process::id();
    for p in pid..pid + 400 {
        for n in 0..2 {
            symlink(
                s.outside.join("next-step.sh"),
                s.repo
                    .join(format!(".taintlint.sarif.taintlint-{p}-{n}.tmp")),
            )
            .unwrap();
        }
    }
    let r = s.run_contained(&[
        "check",
        ".",
        "--format",
        "sarif",
        "--output-file",
        "taintlint.sarif",
    ]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    let sarif = std::fs::read_to_string(s.repo.join("taintlint.sarif")).unwrap();
    assert!(sarif.contains("toleration-exists-with-value"));
    // No temporary file is left behind.
    let left: Vec<_> = std::fs::read_dir(&s.repo)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".taintlint.tmp"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

#[test]
fn output_paths_do_not_follow_committed_links() {
    let s = site();
    symlink(s.outside.join("next-step.sh"), s.repo.join("report.sarif")).unwrap();
    symlink(s.outside.join("created.json"), s.repo.join("dangling.json")).unwrap();
    symlink(&s.outside, s.repo.join("reports")).unwrap();
    symlink(
        s.outside.join("baseline.json"),
        s.repo.join("baseline.json"),
    )
    .unwrap();
    symlink(s.outside.join("config.yaml"), s.repo.join("taintlint.yaml")).unwrap();
    for args in [
        &[
            "check",
            "pod.yaml",
            "--format",
            "sarif",
            "-o",
            "report.sarif",
        ][..],
        &[
            "check",
            "pod.yaml",
            "--format",
            "json",
            "-o",
            "dangling.json",
        ],
        &[
            "check",
            "pod.yaml",
            "--format",
            "sarif",
            "-o",
            "reports/x.sarif",
        ],
        // A missing folder below the linked one is not made (outside the repository).
        &[
            "check",
            "pod.yaml",
            "--format",
            "sarif",
            "-o",
            "reports/new/x.sarif",
        ],
        &["check", "pod.yaml", "--write-baseline", "baseline.json"],
        &["config", "init", "taintlint.yaml"],
        &["config", "init", "taintlint.yaml", "--force"],
    ] {
        let r = s.run_contained(args);
        assert_eq!(r.code, 2, "{args:?}: {}{}", r.stdout, r.stderr);
        assert!(
            r.stderr.contains("symbolic link") || r.stderr.contains("already exists"),
            "{args:?}: {}",
            r.stderr
        );
    }
    assert!(!s.outside.join("new").exists());
    // Missing folders of the repository's own are made.
    let r = s.run_contained(&[
        "check",
        "pod.yaml",
        "--format",
        "sarif",
        "-o",
        "out/ci/x.sarif",
    ]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(s.repo.join("out/ci/x.sarif").is_file());
    // Asked for on the command line, the link is followed.
    let r = s.run(&[
        "check",
        "pod.yaml",
        "--follow-links",
        "--format",
        "json",
        "-o",
        "dangling.json",
    ]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(s.outside.join("created.json").is_file());
    assert!(
        std::fs::symlink_metadata(s.repo.join("dangling.json"))
            .unwrap()
            .file_type()
            .is_symlink()
    );
}

#[test]
fn fix_writes_only_plain_files_of_the_repository_and_keeps_owner_and_mode() {
    let s = site();
    // A committed link to a file outside: --fix must not write the fixed manifest there.
    std::fs::write(s.outside.join("victim.yaml"), POD).unwrap();
    symlink(s.outside.join("victim.yaml"), s.repo.join("linked.yaml")).unwrap();
    let r = s.run_contained(&["check", "linked.yaml", "--fix", "--isolated"]);
    assert_eq!(r.code, 2, "{}{}", r.stdout, r.stderr);
    assert!(r.stderr.contains("symbolic link"), "{}", r.stderr);
    assert!(r.stderr.contains("no file was changed"), "{}", r.stderr);
    // A hard link: refused, both names unchanged.
    std::fs::hard_link(s.repo.join("pod.yaml"), s.repo.join("alias.yaml")).unwrap();
    let r = s.run_contained(&["check", "pod.yaml", "--fix", "--isolated"]);
    assert_eq!(r.code, 2, "{}{}", r.stdout, r.stderr);
    assert!(r.stderr.contains("hard links"), "{}", r.stderr);
    assert_eq!(
        std::fs::read_to_string(s.repo.join("alias.yaml")).unwrap(),
        POD
    );
    std::fs::remove_file(s.repo.join("alias.yaml")).unwrap();
    // A plain file is fixed; its mode stays, less set-user-ID and set-group-ID.
    std::fs::set_permissions(
        s.repo.join("pod.yaml"),
        std::fs::Permissions::from_mode(0o6750),
    )
    .unwrap();
    let r = s.run_contained(&["check", "pod.yaml", "--fix", "--isolated"]);
    assert!(r.code == 0 || r.code == 1, "{}{}", r.stdout, r.stderr);
    let fixed = std::fs::read_to_string(s.repo.join("pod.yaml")).unwrap();
    assert!(!fixed.contains("value: infra"), "{fixed}");
    let mode = std::fs::metadata(s.repo.join("pod.yaml"))
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o7777, 0o750);
}

// --- What reaches a terminal or a CI log ---

/// `text` as the inside of a YAML double-quoted scalar: printable ASCII as it is, the rest
/// as `\uXXXX` escapes (the loader gets the hostile characters themselves).
fn yaml_escaped(text: &str) -> String {
    let mut out = String::new();
    for c in text.chars() {
        match c {
            '"' | '\\' => {
                out.push('\\');
                out.push(c);
            }
            ' '..='~' => out.push(c),
            c => out.push_str(&format!("\\u{:04x}", u32::from(c))),
        }
    }
    out
}

/// One file per string of the shared hostile table (`util::text::HOSTILE`), named with it,
/// whose Node and Deployment carry it in names, namespaces, label keys and values, taint and
/// toleration keys and values, and an effect: every kind of finding quotes it. Also a file of
/// raw control characters (go-yaml refuses them: a syntax error with a snippet of the line).
fn hostile_site() -> (Site, Vec<String>) {
    let s = site();
    let mut names = Vec::new();
    for (i, h) in taintlint::util::text::HOSTILE.iter().enumerate() {
        let e = yaml_escaped(h);
        let text = format!(
            "apiVersion: v1\nkind: Node\nmetadata:\n  name: \"node-{e}\"\n  labels: {{\"pool{e}\": \"gpu{e}\"}}\nspec:\n  taints:\n  - {{key: \"dedicated{e}\", value: \"v{e}\", effect: NoSchedule}}\n---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  namespace: \"ns{e}\"\nspec:\n  template:\n    spec:\n      nodeSelector: {{\"pool{e}\": \"gpu{e}x\"}}\n      tolerations:\n      - key: \"dedicated{e}\"\n        operator: Exists\n        value: \"v{e}\"\n      - key: \"dedicatex{e}\"\n        operator: Equal\n        value: \"v{e}\"\n        effect: \"NoSchedul{e}\"\n      containers: [{{name: a, image: b}}]\n"
        );
        // A file name holds anything but NUL and `/`.
        let name = if h.contains(['\0', '/']) {
            format!("f{i:02}.yaml")
        } else {
            format!("f{i:02}-{h}.yaml")
        };
        std::fs::write(s.repo.join(&name), &text).unwrap();
        names.push(name);
    }
    std::fs::write(
        s.repo.join("raw.yaml"),
        "kind: Pod\nmetadata: {name: a}\nspec:\n  tolerations:\n  - key: k\u{1b}]52;c;aGk=\u{7}\u{85}::add-mask::t\u{202e}\u{2028}\n",
    )
    .unwrap();
    (s, names)
}

/// Every format and view, each string of the shared hostile table in file names and values:
/// no output holds a character a terminal or CI log acts on, no line a runner reads as a
/// command (GitHub annotations: every line is one of taintlint's own), and the machine
/// formats still read back the file names exactly.
#[test]
fn no_format_lets_the_input_start_a_line_or_drive_the_terminal() {
    let (s, names) = hostile_site();
    for format in [
        "human", "concise", "markdown", "json", "sarif", "github", "junit", "gitlab", "rdjson",
    ] {
        let r = s.run_contained(&["check", ".", "--isolated", "--format", format]);
        assert_eq!(r.code, 1, "{format}: {}", r.stderr);
        assert!(r.stdout.contains("f00"), "{format}");
        assert_inert(&format!("{format} stderr"), &r.stderr);
        for c in r.stdout.chars() {
            assert!(
                c == '\n' || c == '\t' || !taintlint::util::text::is_unsafe(c),
                "{format}: holds {c:?}"
            );
        }
        for line in r.stdout.split('\n') {
            let t = line.trim_start();
            if format == "github" {
                // Annotations are commands by design: each line is one, and nothing else is.
                assert!(
                    line.is_empty()
                        || ["::error ", "::warning ", "::notice "]
                            .iter()
                            .any(|p| line.starts_with(p)),
                    "{line}"
                );
                let (props, _) = line
                    .split_once("::")
                    .map_or(("", ""), |(_, r)| r.split_once("::").unwrap_or((r, "")));
                assert!(!props.contains(':'), "a property holds a raw `:`: {line}");
            } else {
                assert!(
                    !t.starts_with("::"),
                    "{format}: a line starts a command: {line:?}"
                );
            }
        }
        // Where each machine format lists its findings, and each finding's file.
        let places = match format {
            "json" => Some(("/findings", "/file")),
            "gitlab" => Some(("", "/location/path")),
            "rdjson" => Some(("/diagnostics", "/location/path")),
            "sarif" => Some((
                "/runs/0/results",
                "/locations/0/physicalLocation/artifactLocation/uri",
            )),
            _ => None,
        };
        let files: Vec<String> = places.map_or_else(Vec::new, |(list, file)| {
            let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
            v.pointer(list)
                .and_then(|l| l.as_array())
                .unwrap()
                .iter()
                .map(|f| {
                    f.pointer(file)
                        .and_then(|f| f.as_str())
                        .unwrap()
                        .to_string()
                })
                .collect()
        });
        if format != "sarif" && !files.is_empty() {
            // Every hostile file has findings, named exactly.
            for name in &names {
                assert!(
                    files
                        .iter()
                        .any(|f| f.strip_prefix("./").unwrap_or(f) == name),
                    "{format}: no finding names {name:?}"
                );
            }
        }
        if format == "markdown" {
            for bad in ["<img", "<!--", "**", "@", "<a "] {
                assert!(!r.stdout.contains(bad), "markdown holds {bad}");
            }
            // Every row is one line of five cells with one link, the rule's page.
            let rows = r
                .stdout
                .lines()
                .filter(|l| l.starts_with("| ❌") || l.starts_with("| ⚠"));
            let mut n = 0;
            for line in rows {
                assert_eq!(line.matches('|').count(), 5, "{line}");
                assert_eq!(line.matches("](").count(), 1, "{line}");
                n += 1;
            }
            assert!(n >= 4, "{}", r.stdout);
        }
    }
    for view in [
        &["explain", ".", "--isolated", "--workload", "Deployment/web"][..],
        &["matrix", ".", "--isolated"],
    ] {
        let r = s.run_contained(view);
        assert!(
            r.stdout.contains("web"),
            "{view:?}: {}{}",
            r.stdout,
            r.stderr
        );
        assert_inert("explain/matrix", &r.stdout);
        assert_inert("explain/matrix", &r.stderr);
    }
}

#[test]
fn tool_errors_escape_what_the_config_says() {
    let s = site();
    std::fs::write(
        s.repo.join(".taintlint.yaml"),
        "exclude: [\"[z-a]\\n::add-mask::tok\\e[2K\"]\n",
    )
    .unwrap();
    let r = s.run_contained(&["check", "."]);
    assert_eq!(r.code, 2, "{}{}", r.stdout, r.stderr);
    assert!(r.stderr.contains("invalid glob"), "{}", r.stderr);
    assert_inert("stderr", &r.stderr);
}

/// The panic class of `engine/file.rs` (a syntax error's offset inside a NEL, LS or PS after
/// a block scalar): every placement, every break character, every format, no panic, and no
/// input text on standard error.
#[test]
fn line_separators_near_block_scalars_do_not_crash() {
    let s = site();
    let breaks = ["\u{85}", "\u{2028}", "\u{2029}"];
    for (n, br) in breaks.into_iter().enumerate() {
        for (i, shape) in [
            "a: |\n  x\n{b}-\n",
            "a: |\n  x\n-{b}\n",
            "a: >\n x\n {b}- b\n",
            "- |\n  x\n{b}- y\n",
            "a: |-\n  x{b}\n- b\n",
            "k: |2\n   x\n {b}-\n",
            "- >\n {b}\n-\n",
            "a: \"x{b}\n- y\"\n",
            "a: 'x\n{b}-'\n",
            "a: |\n  x\n# c{b}- d\n",
        ]
        .iter()
        .enumerate()
        {
            let text = format!("::add-mask::in-file\n{}", shape.replace("{b}", br));
            std::fs::write(s.repo.join(format!("b{n}-{i}.yaml")), text).unwrap();
        }
    }
    for format in ["human", "concise", "json", "sarif", "github", "markdown"] {
        let r = s.run(&["check", ".", "--isolated", "--format", format]);
        assert!(
            matches!(r.code, 0 | 1),
            "{format}: {}{}",
            r.stdout,
            r.stderr
        );
        // (SARIF lists every rule, internal-error among them: its results must not.)
        let crashed = match format {
            "sarif" => r.stdout.contains("\"ruleId\": \"internal-error\""),
            "json" => r.stdout.contains("\"rule\": \"internal-error\""),
            _ => r.stdout.contains("internal-error"),
        };
        assert!(!crashed, "{format}: {}", r.stdout);
        assert!(
            !r.stderr.contains("internal error"),
            "{format}: {}",
            r.stderr
        );
        assert!(!r.stderr.contains("in-file"), "{format}: {}", r.stderr);
    }
}

// --- Reads ---

#[test]
fn a_committed_config_cannot_read_outside_the_repository() {
    let s = site();
    for inventory in ["/", "../outside/credentials", "../outside"] {
        std::fs::write(
            s.repo.join(".taintlint.yaml"),
            format!("inventory: [\"{inventory}\"]\n"),
        )
        .unwrap();
        let r = s.run_contained(&["check", ".", "--format", "json"]);
        assert_eq!(r.code, 1, "{inventory}: {}", r.stderr);
        assert!(
            r.stdout.contains("is outside the repository"),
            "{inventory}: {}",
            r.stdout
        );
    }
    // Named on the command line, the file is read.
    std::fs::remove_file(s.repo.join(".taintlint.yaml")).unwrap();
    let r = s.run(&[
        "check",
        ".",
        "--inventory",
        "../outside/credentials",
        "--format",
        "json",
    ]);
    assert!(matches!(r.code, 0 | 1), "{}", r.stderr);
    // A config that is itself a link to a file outside is not read.
    std::fs::write(s.outside.join("config.yaml"), "rules: {x: y}\n").unwrap();
    symlink(
        s.outside.join("credentials"),
        s.repo.join(".taintlint.yaml"),
    )
    .unwrap();
    let r = s.run_contained(&["check", "."]);
    assert_eq!(r.code, 2, "{}{}", r.stdout, r.stderr);
    assert!(r.stderr.contains("outside the repository"), "{}", r.stderr);
}

#[test]
fn settings_files_must_be_small_regular_files() {
    let s = site();
    symlink("/dev/zero", s.repo.join("zero.json")).unwrap();
    let fifo = s.repo.join("fifo.json");
    let made = Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(made.success());
    for (flag, file) in [
        ("--baseline", "zero.json"),
        ("--baseline", "fifo.json"),
        ("--policy", "zero.json"),
        ("--policy", "fifo.json"),
        ("--config", "fifo.json"),
    ] {
        // Reading /dev/zero or a FIFO would never end: the harness's hang guard would fail
        // the test. (bench/timed_checks.py times the refusal.)
        let r = s.run_contained(&["check", "pod.yaml", flag, file]);
        assert_eq!(r.code, 2, "{flag} {file}: {}{}", r.stdout, r.stderr);
        assert!(
            r.stderr.contains("not a regular file"),
            "{flag} {file}: {}",
            r.stderr
        );
    }
}

#[test]
fn helm_sources_outside_the_chart_are_not_locations() {
    let s = site();
    let stream = format!(
        "---\n# Source: ../../outside/next-step.sh\n{POD}---\n# Source: /etc/passwd\n{POD}---\n# Source: chart/templates/ok.yaml\n{POD}"
    );
    let r = taintlint(&["check", "-", "--isolated", "--format", "sarif"])
        .in_dir(&s.repo)
        .stdin(stream.as_bytes())
        .run();
    assert_eq!(r.code, 1, "{}", r.stderr);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    let mut uris = Vec::new();
    for res in v["runs"][0]["results"].as_array().unwrap() {
        uris.push(
            res["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
                .as_str()
                .unwrap()
                .to_string(),
        );
    }
    assert!(
        uris.iter().any(|u| u == "chart/templates/ok.yaml"),
        "{uris:?}"
    );
    for u in &uris {
        assert!(
            !u.starts_with('/') && !u.split('/').any(|p| p == ".."),
            "{u}"
        );
    }
    assert!(
        r.stderr.contains("is not a path inside the repository"),
        "{}",
        r.stderr
    );
}

// --- Resources ---

#[test]
fn thread_counts_are_clamped() {
    let s = site();
    let r = s.run(&["check", "pod.yaml", "--isolated", "--threads", "100000"]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(
        r.stderr.contains("--threads 100000 is more than"),
        "{}",
        r.stderr
    );
}

#[test]
fn a_reader_that_stops_early_is_no_error() {
    let root = common::cli::root();
    for format in ["sarif", "human", "json"] {
        let mut child = Command::new(BIN)
            .args(["check", "testdata/corpus", "--format", format])
            .current_dir(&root)
            .env_remove("NO_COLOR")
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut first = String::new();
        std::io::BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut first)
            .unwrap();
        // Closing our end is what `head -1` does.
        let status = child.wait().unwrap();
        let mut err = String::new();
        child
            .stderr
            .take()
            .unwrap()
            .read_to_string(&mut err)
            .unwrap();
        assert_eq!(status.code(), Some(1), "{format}: {err}");
        assert!(!err.contains("Broken pipe"), "{format}: {err}");
    }
}

// --- Fuzzing the character-boundary class through every output format ---

mod generated {
    use clap::ValueEnum;
    use proptest::prelude::*;
    use taintlint::engine::{self, LintOptions};
    use taintlint::report::{self, Format, HumanOptions, Summary};
    use taintlint::rules::RuleSet;

    /// Pieces of YAML around block scalars and sequence dashes, with the line breaks go-yaml
    /// knows (NEL, LS, PS besides CR and LF) and hostile text, put together at random.
    fn piece() -> impl Strategy<Value = &'static str> {
        proptest::sample::select(vec![
            "a: |\n",
            "a: >-\n",
            "- |2\n",
            "k: |+\n",
            "  x\n",
            " y\n",
            "-",
            "- ",
            ": ",
            "\n",
            "\r",
            "\r\n",
            "\u{85}",
            "\u{2028}",
            "\u{2029}",
            "\t",
            " ",
            "'",
            "\"",
            "#",
            "::",
            "::add-mask::t",
            "\u{1b}[2K",
            "\u{1b}]52;c;aGk=\u{7}",
            "\u{202e}",
            "\u{9b}",
            "é",
            "日",
            "tolerations:\n",
            "  - key: k\n",
            "    operator: Exists\n",
            "    value: v\n",
            "kind: Pod\n",
            "spec:\n",
            "---\n",
            "{",
            "}",
            "[",
            "]",
            ",",
            "\\",
            "\\e",
            "\\n",
        ])
    }

    fn document() -> impl Strategy<Value = String> {
        proptest::collection::vec(piece(), 1..40).prop_map(|p| p.concat())
    }

    fn options(fast: bool) -> LintOptions {
        LintOptions {
            rules: RuleSet::resolve(&["all".into()], &[]).expect("every rule resolves"),
            fast,
            ..LintOptions::default()
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(600))]

        #[test]
        fn no_panic_and_inert_output(text in document()) {
            for fast in [true, false] {
                let opts = options(fast);
                let outcome = engine::lint_text("fuzz.yaml", &text, &opts).expect("in memory");
                for f in &outcome.findings {
                    prop_assert_ne!(f.rule, "internal-error", "{:?}: {:?}", text, f.message);
                    if let Some(src) = &f.source {
                        for l in f.primary.iter().chain(&f.secondary) {
                            prop_assert!(src.text.is_char_boundary(l.span.start)
                                && src.text.is_char_boundary(l.span.end), "{:?}", text);
                        }
                    }
                }
                let mut summary = Summary { files: 1, ..Summary::default() };
                summary.count(&outcome.findings);
                for format in Format::value_variants() {
                    for color in [false, true] {
                        let human = HumanOptions { color, ..HumanOptions::default() };
                        let mut out = Vec::new();
                        report::write(*format, &outcome.findings, &summary, &human, &mut out)
                            .expect("writing into a Vec");
                        let out = String::from_utf8(out).expect("UTF-8");
                        if matches!(format, Format::Human | Format::Concise) {
                            for line in out.split('\n') {
                                prop_assert!(!line.trim_start().starts_with("::"), "{:?}: {:?}", text, line);
                            }
                            // Colour codes are the tool's own ESC; nothing else is unsafe.
                            let bad = out.chars().any(|c| c != '\n' && c != '\u{1b}'
                                && taintlint::util::text::is_unsafe(c));
                            prop_assert!(!bad, "{:?}: {}", text, out);
                            if !color {
                                prop_assert!(!out.contains('\u{1b}'), "{:?}: {}", text, out);
                            }
                        }
                        if !matches!(format, Format::Human) {
                            break; // colour matters to the human format only
                        }
                    }
                }
            }
        }
    }
}
