//! The GitHub Action (`action.yml` + `action/run.sh`) in a simulated runner: temporary
//! `GITHUB_OUTPUT`, `GITHUB_STEP_SUMMARY`, `RUNNER_TEMP` and workspace, the inputs as the
//! composite action passes them (`INPUT_*` environment variables), and the binary under test
//! first on `PATH`, so the probe step finds this version and the install step is skipped.

#![cfg(unix)]
#![allow(clippy::unwrap_used)] // tests may unwrap

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use taintlint::load::yaml::{Limits, Node, parse};

mod release_server;
use release_server::{Server, release};

const INPUTS: &[&str] = &[
    "paths",
    "args",
    "config",
    "fail-on",
    "sarif-file",
    "summary",
];
const OUTPUTS: &[&str] = &["findings", "errors", "sarif-file"];

const CLEAN: &str = "\
apiVersion: v1
kind: Pod
metadata:
  name: web
spec:
  containers:
    - name: web
      image: nginx
";

const BAD: &str = "\
apiVersion: v1
kind: Pod
metadata:
  name: debug
spec:
  tolerations:
    - key: dedicated
      operator: Exists
      value: infra
      effect: NoSchedule
  containers:
    - name: debug
      image: busybox
";

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn path_with_first(dir: &Path) -> std::ffi::OsString {
    let mut dirs = vec![dir.to_path_buf()];
    dirs.extend(std::env::split_paths(
        &std::env::var_os("PATH").unwrap_or_default(),
    ));
    std::env::join_paths(dirs).unwrap()
}

fn bin_dir() -> PathBuf {
    Path::new(env!("CARGO_BIN_EXE_taintlint"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// One simulated job: the runner's files live in a temporary directory.
struct Runner {
    dir: tempfile::TempDir,
    path: std::ffi::OsString,
    /// More environment for every step (the release server's address).
    env: Vec<(String, String)>,
}

struct Step {
    code: i32,
    stdout: String,
    stderr: String,
    outputs: BTreeMap<String, String>,
    summary: String,
}

impl Runner {
    fn new() -> Self {
        Runner {
            dir: tempfile::tempdir().unwrap(),
            path: path_with_first(&bin_dir()),
            env: Vec::new(),
        }
    }

    fn file(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// Runs `action/run.sh MODE` in `workspace` with these inputs.
    fn run(&self, mode: &str, workspace: &Path, inputs: &[(&str, &str)]) -> Step {
        let runner_temp = self.file("runner-temp");
        std::fs::create_dir_all(&runner_temp).unwrap();
        // Each step of a job gets a fresh output file.
        let output = self.file("github-output");
        std::fs::write(&output, "").unwrap();
        let mut cmd = Command::new("bash");
        cmd.arg(root().join("action/run.sh"))
            .arg(mode)
            .current_dir(workspace)
            .env("PATH", &self.path)
            .env("GITHUB_ACTIONS", "true")
            .env("GITHUB_ACTION_PATH", root())
            .env("GITHUB_WORKSPACE", workspace)
            .env("GITHUB_OUTPUT", &output)
            .env("GITHUB_STEP_SUMMARY", self.file("step-summary.md"))
            .env("GITHUB_PATH", self.file("github-path"))
            .env("RUNNER_TEMP", &runner_temp)
            // No taintlint from a real ~/.cargo/bin: only the PATH this test chooses.
            .env("CARGO_HOME", self.file("cargo-home"))
            .env("NO_COLOR", "1")
            .env("RUNNER_TOOL_CACHE", self.file("tool-cache"))
            .env_remove("TAINTLINT_FORMAT")
            .env_remove("TAINTLINT_RELEASE_URL")
            .env_remove("TAINTLINT_INSTALL_DIR")
            .env_remove("GITHUB_ACTION_REPOSITORY");
        for (k, v) in &self.env {
            cmd.env(k, v);
        }
        for name in INPUTS {
            cmd.env_remove(input_var(name));
        }
        for (name, value) in inputs {
            assert!(
                INPUTS.contains(name),
                "{name} is not an input of the action"
            );
            cmd.env(input_var(name), value);
        }
        let out = cmd.output().expect("run bash action/run.sh");
        let outputs = std::fs::read_to_string(&output)
            .unwrap()
            .lines()
            .map(|l| {
                let (k, v) = l
                    .split_once('=')
                    .unwrap_or_else(|| panic!("not name=value in GITHUB_OUTPUT: {l:?}"));
                (k.to_string(), v.to_string())
            })
            .collect();
        assert!(
            std::fs::read_dir(&runner_temp).unwrap().next().is_none(),
            "run.sh left temporary files in RUNNER_TEMP"
        );
        Step {
            code: out.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
            outputs,
            summary: std::fs::read_to_string(self.file("step-summary.md")).unwrap_or_default(),
        }
    }
}

fn input_var(name: &str) -> String {
    format!("INPUT_{}", name.to_uppercase().replace('-', "_"))
}

fn sarif(path: &Path) -> serde_json::Value {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("{}: no SARIF file: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: not JSON: {e}", path.display()))
}

fn sarif_results(doc: &serde_json::Value) -> &[serde_json::Value] {
    assert_eq!(doc["version"], "2.1.0");
    doc["runs"][0]["results"].as_array().unwrap()
}

fn count_level(results: &[serde_json::Value], level: &str) -> usize {
    results.iter().filter(|r| r["level"] == level).count()
}

/// The checks every `check` step shares: outputs agree with the SARIF file and the annotations.
fn assert_consistent(step: &Step, sarif_path: &Path) -> usize {
    let doc = sarif(sarif_path);
    let results = sarif_results(&doc);
    assert_eq!(
        step.outputs.get("findings"),
        Some(&results.len().to_string()),
        "{}",
        step.stdout
    );
    let errors = count_level(results, "error");
    assert_eq!(step.outputs.get("errors"), Some(&errors.to_string()));
    let annotations = step
        .stdout
        .lines()
        .filter(|l| l.starts_with("::error file="))
        .count();
    assert_eq!(
        annotations, errors,
        "one ::error annotation per error:\n{}",
        step.stdout
    );
    errors
}

#[test]
fn probe_skips_the_install_when_this_version_is_on_path() {
    let runner = Runner::new();
    let step = runner.run("probe", runner.dir.path(), &[]);
    assert_eq!(step.code, 0, "{}{}", step.stdout, step.stderr);
    assert_eq!(step.outputs["install"], "false");
    assert_eq!(step.outputs["version"], env!("CARGO_PKG_VERSION"));
    for name in ["lock-hash", "source-hash"] {
        let hash = &step.outputs[name];
        assert!(
            hash.len() == 32 && hash.bytes().all(|b| b.is_ascii_hexdigit()),
            "{name}={hash}"
        );
    }
    assert!(step.stdout.contains("already installed"), "{}", step.stdout);
}

#[test]
fn probe_asks_for_an_install_when_another_version_is_on_path() {
    let mut runner = Runner::new();
    let fake = runner.file("fake-bin");
    std::fs::create_dir_all(&fake).unwrap();
    let script = fake.join("taintlint");
    std::fs::write(&script, "#!/bin/sh\necho 'taintlint 0.0.0-old'\n").unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    runner.path = path_with_first(&fake);
    let step = runner.run("probe", runner.dir.path(), &[]);
    assert_eq!(step.code, 0, "{}{}", step.stdout, step.stderr);
    assert_eq!(step.outputs["install"], "true");
    assert!(step.stdout.contains("0.0.0-old"), "{}", step.stdout);

    // And `check` refuses to run the wrong version rather than lint with it.
    let step = runner.run("check", runner.dir.path(), &[]);
    assert_eq!(step.code, 2, "{}{}", step.stdout, step.stderr);
    assert!(step.stdout.contains("::error"), "{}", step.stdout);
}

#[test]
fn failing_fixture_annotates_summarises_and_fails_the_step() {
    let runner = Runner::new();
    let sarif_path = runner.file("reports/taintlint.sarif");
    let sarif_input = sarif_path.to_str().unwrap();
    let step = runner.run(
        "check",
        &root(),
        &[
            ("paths", "testdata/examples"),
            ("sarif-file", sarif_input),
            ("fail-on", "warning"),
        ],
    );
    assert_eq!(step.code, 1, "{}{}", step.stdout, step.stderr);
    assert!(
        step.stdout.contains(
            "::error file=testdata/examples/pod-debug.yaml,line=14,endLine=14,col=14,endColumn=19,\
             title=toleration-exists-with-value::"
        ),
        "{}",
        step.stdout
    );
    assert!(
        step.stdout
            .contains("::error title=taintlint::findings at or above 'warning'"),
        "{}",
        step.stdout
    );
    let errors = assert_consistent(&step, &sarif_path);
    assert!(errors >= 2, "the examples hold two API-server errors");
    assert_eq!(step.outputs["sarif-file"], sarif_input);

    // The Markdown summary: the counts table and a row per finding, linking the rule page.
    assert!(step.summary.contains("## taintlint"), "{}", step.summary);
    assert!(step.summary.contains("| errors |"), "{}", step.summary);
    assert!(
        step.summary.contains(&format!(
            "[`toleration-exists-with-value`]({})",
            taintlint::report::rule_url("toleration-exists-with-value")
        )),
        "{}",
        step.summary
    );
    assert!(
        step.summary
            .contains("<code>testdata/examples/pod-debug.yaml:14:14</code>"),
        "{}",
        step.summary
    );
}

#[test]
fn fail_on_never_passes_the_step_but_still_reports() {
    let runner = Runner::new();
    let sarif_path = runner.file("taintlint.sarif");
    let step = runner.run(
        "check",
        &root(),
        &[
            ("paths", "testdata/examples"),
            ("sarif-file", sarif_path.to_str().unwrap()),
            ("fail-on", "never"),
        ],
    );
    assert_eq!(step.code, 0, "{}{}", step.stdout, step.stderr);
    assert!(step.stdout.contains("::error file=testdata/examples/"));
    assert!(!step.stdout.contains("::error title=taintlint::"));
    assert!(assert_consistent(&step, &sarif_path) >= 2);
    assert!(step.summary.contains("| errors |"));
}

#[test]
fn fail_on_error_ignores_warnings_but_not_errors() {
    let runner = Runner::new();
    let ws = tempfile::tempdir().unwrap();
    // Only a warning: a toleration of every taint.
    std::fs::write(
        ws.path().join("agent.yaml"),
        CLEAN.replace(
            "spec:\n",
            "spec:\n  tolerations:\n    - operator: Exists\n      effect: NoSchedule\n",
        ),
    )
    .unwrap();
    let warn_only = runner.run("check", ws.path(), &[("fail-on", "error")]);
    assert_eq!(
        warn_only.code, 0,
        "{}{}",
        warn_only.stdout, warn_only.stderr
    );
    assert_eq!(warn_only.outputs["errors"], "0");
    assert_ne!(warn_only.outputs["findings"], "0", "{}", warn_only.stdout);

    std::fs::write(ws.path().join("bad.yaml"), BAD).unwrap();
    let with_error = runner.run("check", ws.path(), &[("fail-on", "error")]);
    assert_eq!(with_error.code, 1, "{}", with_error.stdout);
    assert_consistent(&with_error, &ws.path().join("taintlint.sarif"));
}

#[test]
fn clean_fixture_passes_with_the_defaults() {
    let runner = Runner::new();
    let ws = tempfile::tempdir().unwrap();
    std::fs::write(ws.path().join("web.yaml"), CLEAN).unwrap();
    // No inputs at all: paths `.`, fail-on warning, taintlint.sarif in the workspace, summary on.
    let step = runner.run("check", ws.path(), &[]);
    assert_eq!(step.code, 0, "{}{}", step.stdout, step.stderr);
    assert!(!step.stdout.contains("::error"), "{}", step.stdout);
    assert!(!step.stdout.contains("::warning"), "{}", step.stdout);
    assert_eq!(step.outputs["findings"], "0");
    assert_eq!(step.outputs["errors"], "0");
    assert_eq!(step.outputs["sarif-file"], "taintlint.sarif");
    let doc = sarif(&ws.path().join("taintlint.sarif"));
    assert!(sarif_results(&doc).is_empty());
    assert!(step.summary.contains("## taintlint"), "{}", step.summary);
}

#[test]
fn summary_false_leaves_the_job_summary_alone() {
    let runner = Runner::new();
    let ws = tempfile::tempdir().unwrap();
    std::fs::write(ws.path().join("bad.yaml"), BAD).unwrap();
    let step = runner.run("check", ws.path(), &[("summary", "false")]);
    assert_eq!(step.code, 1, "{}{}", step.stdout, step.stderr);
    assert_eq!(step.summary, "");
    assert_consistent(&step, &ws.path().join("taintlint.sarif"));

    let step = runner.run("check", ws.path(), &[("summary", "maybe")]);
    assert_eq!(step.code, 2, "{}", step.stdout);
    assert!(step.stdout.contains("summary input must be true or false"));
}

#[test]
fn paths_and_args_are_split_like_shell_words() {
    let runner = Runner::new();
    let ws = tempfile::tempdir().unwrap();
    let dir = ws.path().join("my manifests");
    std::fs::create_dir_all(dir.join("vendor")).unwrap();
    std::fs::write(dir.join("web.yaml"), CLEAN).unwrap();
    std::fs::write(dir.join("vendor/bad.yaml"), BAD).unwrap();
    std::fs::write(ws.path().join("elsewhere.yaml"), BAD).unwrap();
    let step = runner.run(
        "check",
        ws.path(),
        &[
            ("paths", "'my manifests'\n"),
            ("args", "--exclude \"**/vendor/**\" --kube-version 1.33"),
        ],
    );
    assert_eq!(step.code, 0, "{}{}", step.stdout, step.stderr);
    assert_eq!(step.outputs["findings"], "0");

    let step = runner.run("check", ws.path(), &[("paths", "'my manifests")]);
    assert_eq!(step.code, 2, "{}", step.stdout);
    assert!(step.stdout.contains("unbalanced quote"), "{}", step.stdout);
}

/// Reports for other tools from the same run: `--format` with `-o` in `args`.
#[test]
fn args_add_reports_for_other_ci_tools() {
    let runner = Runner::new();
    let ws = tempfile::tempdir().unwrap();
    std::fs::write(ws.path().join("bad.yaml"), BAD).unwrap();
    let step = runner.run(
        "check",
        ws.path(),
        &[(
            "args",
            "--format junit -o taintlint.xml --format gitlab -o gl-code-quality.json",
        )],
    );
    assert_eq!(step.code, 1, "{}{}", step.stdout, step.stderr);
    let findings: usize = step.outputs["findings"].parse().unwrap();
    assert!(findings > 0);
    let xml = std::fs::read_to_string(ws.path().join("taintlint.xml")).unwrap();
    assert_eq!(xml.matches("<testcase ").count(), findings, "{xml}");
    let gitlab: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(ws.path().join("gl-code-quality.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(gitlab.as_array().unwrap().len(), findings);
    // The annotations still go to the log.
    assert!(step.stdout.contains("::error "), "{}", step.stdout);
}

#[test]
fn a_tool_error_fails_the_step_whatever_fail_on_says() {
    let runner = Runner::new();
    let ws = tempfile::tempdir().unwrap();
    let step = runner.run(
        "check",
        ws.path(),
        &[("paths", "does-not-exist"), ("fail-on", "never")],
    );
    assert_eq!(step.code, 2, "{}{}", step.stdout, step.stderr);
    assert!(
        step.stdout
            .contains("::error title=taintlint::taintlint failed with exit code 2"),
        "{}",
        step.stdout
    );
    assert!(step.stderr.contains("does-not-exist"), "{}", step.stderr);
    assert!(!step.outputs.contains_key("findings"));

    let step = runner.run("check", ws.path(), &[("config", "missing.yaml")]);
    assert_eq!(step.code, 2, "{}{}", step.stdout, step.stderr);
}

fn map_keys(node: &Node) -> Vec<String> {
    node.as_map()
        .unwrap_or_else(|| panic!("expected a mapping, found a {}", node.kind_name()))
        .iter()
        .filter_map(|(k, _)| k.text().map(str::to_string))
        .collect()
}

#[test]
fn action_yml_declares_the_inputs_outputs_and_steps() {
    let text = std::fs::read_to_string(root().join("action.yml")).unwrap();
    let stream = parse(&text, Limits::default());
    assert!(stream.error.is_none(), "action.yml: {:?}", stream.error);
    assert_eq!(stream.documents.len(), 1);
    let doc = stream.documents[0]
        .root
        .as_ref()
        .expect("action.yml is empty");
    for key in ["name", "description"] {
        assert!(doc.get(key).and_then(Node::text).is_some(), "no {key}");
    }

    let inputs = doc.get("inputs").expect("no inputs");
    assert_eq!(map_keys(inputs), INPUTS, "the inputs, in the issue's order");
    let default = |name: &str| {
        inputs
            .path(&[name, "default"])
            .and_then(Node::text)
            .unwrap_or_else(|| panic!("input {name} has no default"))
            .to_string()
    };
    assert_eq!(default("paths"), ".");
    assert_eq!(default("fail-on"), "warning");
    assert_eq!(default("sarif-file"), "taintlint.sarif");
    assert_eq!(default("summary"), "true");
    for name in INPUTS {
        assert!(
            inputs.path(&[name, "description"]).is_some(),
            "input {name} has no description"
        );
    }

    let outputs = doc.get("outputs").expect("no outputs");
    assert_eq!(map_keys(outputs), OUTPUTS);
    for name in OUTPUTS {
        let value = outputs.path(&[name, "value"]).and_then(Node::text);
        assert_eq!(
            value,
            Some(format!("${{{{ steps.check.outputs.{name} }}}}").as_str()),
            "output {name}"
        );
    }

    let runs = doc.get("runs").expect("no runs");
    assert_eq!(runs.get("using").and_then(Node::text), Some("composite"));
    let steps = runs.get("steps").and_then(Node::as_seq).expect("no steps");
    let step = |id: &str| {
        steps
            .iter()
            .find(|s| s.get("id").and_then(Node::text) == Some(id))
            .unwrap_or_else(|| panic!("no step with id {id}"))
    };
    let run_of = |s: &Node| s.get("run").and_then(Node::text).unwrap_or("").to_string();
    assert!(run_of(step("probe")).contains("action/run.sh\" probe"));
    let check = step("check");
    assert!(run_of(check).contains("action/run.sh\" check"));
    // Every input reaches the check step under the name run.sh reads.
    let env = check.get("env").expect("the check step has no env");
    for name in INPUTS {
        assert_eq!(
            env.get(&input_var(name)).and_then(Node::text),
            Some(format!("${{{{ inputs.{name} }}}}").as_str()),
            "input {name}"
        );
    }
    // The download runs when the probe finds no taintlint of this version; the cache and
    // the build only when the download found no release.
    let download = step("download");
    assert!(run_of(download).contains("action/run.sh\" download"));
    assert_eq!(
        download.get("if").and_then(Node::text),
        Some("steps.probe.outputs.install == 'true'")
    );
    let build = steps
        .iter()
        .find(|s| run_of(s).contains("action/run.sh\" build"))
        .expect("no build step");
    let cache = steps
        .iter()
        .find(|s| {
            s.get("uses")
                .and_then(Node::text)
                .is_some_and(|u| u.starts_with("actions/cache@"))
        })
        .expect("no actions/cache step");
    for s in [build, cache] {
        assert_eq!(
            s.get("if").and_then(Node::text),
            Some("steps.download.outputs.build == 'true'")
        );
    }
    for s in steps {
        if s.get("run").is_some() {
            assert_eq!(s.get("shell").and_then(Node::text), Some("bash"));
        }
    }
}

#[test]
fn the_script_is_strict_bash() {
    let script = std::fs::read_to_string(root().join("action/run.sh")).unwrap();
    assert!(script.contains("ACTION_PATH=${GITHUB_ACTION_PATH:-"));
    assert!(script.starts_with("#!/usr/bin/env bash\n"));
    assert!(script.contains("\nset -euo pipefail\n"));
}

/// Issue 20, item 6: `args: --fail-on …` was passed beside the action's own `--fail-on`, and
/// taintlint refused the second one. The one in args wins.
#[test]
fn fail_on_in_args_overrides_the_input() {
    let runner = Runner::new();
    let ws = tempfile::tempdir().unwrap();
    std::fs::write(ws.path().join("bad.yaml"), BAD).unwrap();
    for args in [
        "--fail-on never",
        "--fail-on=never",
        "--kube-version 1.33 --fail-on never",
    ] {
        let step = runner.run(
            "check",
            ws.path(),
            &[("args", args), ("fail-on", "warning")],
        );
        assert_eq!(step.code, 0, "{args}: {}{}", step.stdout, step.stderr);
        assert_consistent(&step, &ws.path().join("taintlint.sarif"));
    }
    let step = runner.run(
        "check",
        ws.path(),
        &[("args", "--fail-on error"), ("fail-on", "never")],
    );
    assert_eq!(step.code, 1, "{}{}", step.stdout, step.stderr);
    assert!(
        step.stdout.contains("findings at or above 'error'"),
        "{}",
        step.stdout
    );
}

/// Issue 20, item 6: a job summary over GitHub's 1 MiB limit per step (2.8 MB for 6,080
/// findings) is cut at a findings row, with a line saying how many are not shown.
#[test]
fn the_job_summary_stays_under_one_mib() {
    let runner = Runner::new();
    let ws = tempfile::tempdir().unwrap();
    let pods: String = (0..5000)
        .map(|i| BAD.replace("name: debug\n", &format!("name: debug-{i}\n")) + "---\n")
        .collect();
    std::fs::write(ws.path().join("many.yaml"), pods).unwrap();
    let step = runner.run("check", ws.path(), &[("fail-on", "never")]);
    assert_eq!(step.code, 0, "{}", step.stderr);
    let findings: usize = step.outputs["findings"].parse().unwrap();
    assert!(findings >= 5000, "{findings}");
    assert!(
        step.summary.len() <= 1024 * 1024,
        "{} bytes",
        step.summary.len()
    );
    assert!(
        step.summary.len() > 900 * 1024,
        "{} bytes: cut too early",
        step.summary.len()
    );
    let shown = step
        .summary
        .lines()
        .filter(|l| l.starts_with("| ❌") || l.starts_with("| ⚠️") || l.starts_with("| ℹ️"))
        .count();
    let note = step.summary.lines().last().unwrap();
    assert_eq!(
        note,
        format!(
            "… and {} more findings, not shown: a summary holds 1 MiB at most (every finding is in the JSON and SARIF reports)",
            findings - shown
        ),
        "{shown} of {findings} shown"
    );
    assert!(
        step.summary.starts_with("## taintlint\n"),
        "the counts come first"
    );

    // A summary that fits is appended whole.
    let ws = tempfile::tempdir().unwrap();
    std::fs::write(ws.path().join("bad.yaml"), BAD).unwrap();
    let small = Runner::new().run("check", ws.path(), &[]);
    assert!(!small.summary.contains("more finding"), "{}", small.summary);
    assert_eq!(
        small
            .summary
            .lines()
            .filter(|l| l.starts_with("| ❌"))
            .count(),
        1
    );
}

/// Issue 20, item 6: the cache key follows the action's source, not only its Cargo.lock.
#[test]
fn the_cache_key_includes_the_action_source() {
    let text = std::fs::read_to_string(root().join("action.yml")).unwrap();
    assert!(
        text.contains("key: taintlint-action-${{ runner.os }}-${{ runner.arch }}-${{ steps.probe.outputs.lock-hash }}-${{ steps.probe.outputs.source-hash }}"),
        "{text}"
    );
    // The hash changes with a source file, not with the workspace: copy the action, edit one
    // file of src/, probe both.
    let copy = tempfile::tempdir().unwrap();
    for f in ["Cargo.toml", "Cargo.lock", "action/run.sh"] {
        let to = copy.path().join(f);
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::copy(root().join(f), to).unwrap();
    }
    std::fs::create_dir_all(copy.path().join("src")).unwrap();
    std::fs::write(copy.path().join("src/main.rs"), "fn main() {}\n").unwrap();
    let probe = |action: &Path| {
        let out = Command::new("bash")
            .arg(action.join("action/run.sh"))
            .arg("probe")
            .env("GITHUB_ACTION_PATH", action)
            .env_remove("GITHUB_OUTPUT")
            .env("PATH", path_with_first(&bin_dir()))
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        let get = |k: &str| {
            text.lines()
                .find_map(|l| l.strip_prefix(&format!("{k}=")))
                .unwrap_or_else(|| panic!("no {k}: {text}"))
                .to_string()
        };
        (get("lock-hash"), get("source-hash"))
    };
    let before = probe(copy.path());
    std::fs::write(
        copy.path().join("src/main.rs"),
        "fn main() { println!(); }\n",
    )
    .unwrap();
    let after = probe(copy.path());
    assert_eq!(before.0, after.0, "same Cargo.lock");
    assert_ne!(before.1, after.1, "another source");
    assert_ne!(probe(&root()).1, after.1);
}

// ---------------------------------------------------------------- release downloads (issue 21)

/// A runner whose PATH has no taintlint, downloading from `server`.
fn bare_runner(server: &Server) -> Runner {
    let mut runner = Runner::new();
    let system: Vec<PathBuf> = std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())
        .filter(|d| !d.join("taintlint").exists())
        .collect();
    runner.path = std::env::join_paths(system).unwrap();
    runner.env = vec![
        ("TAINTLINT_RELEASE_URL".into(), server.url.clone()),
        ("NO_PROXY".into(), "127.0.0.1".into()),
        ("no_proxy".into(), "127.0.0.1".into()),
    ];
    runner
}

/// What the runner does between steps: the directories a step added to GITHUB_PATH go first
/// on PATH for the next ones.
fn apply_github_path(runner: &mut Runner) -> Vec<PathBuf> {
    let added: Vec<PathBuf> = std::fs::read_to_string(runner.file("github-path"))
        .unwrap_or_default()
        .lines()
        .map(PathBuf::from)
        .collect();
    prepend_path(runner, added.clone());
    added
}

/// Puts `dirs` first on the runner's PATH.
fn prepend_path(runner: &mut Runner, mut dirs: Vec<PathBuf>) {
    dirs.extend(std::env::split_paths(&runner.path));
    runner.path = std::env::join_paths(dirs).unwrap();
}

/// (How long the download takes is measured by `bench/timed_checks.py`, not here: a test
/// asserts no time.)
#[test]
fn the_download_step_installs_a_verified_release() {
    let files = release(false, true);
    let server = Server::start(files.path());
    let mut runner = bare_runner(&server);
    let ws = tempfile::tempdir().unwrap();
    std::fs::write(ws.path().join("bad.yaml"), BAD).unwrap();

    let probe = runner.run("probe", ws.path(), &[]);
    assert_eq!(probe.outputs["install"], "true", "{}", probe.stdout);
    // Issue 39: the probe says what comes next (a download), not a build that may not happen.
    assert!(!probe.stdout.contains("will be built"), "{}", probe.stdout);
    assert!(
        probe
            .stdout
            .contains("is not on PATH: the next step downloads its release binary"),
        "{}",
        probe.stdout
    );
    let step = runner.run("download", ws.path(), &[]);
    assert_eq!(step.code, 0, "{}{}", step.stdout, step.stderr);
    assert_eq!(step.outputs["build"], "false", "{}", step.stdout);
    assert!(
        step.stdout.contains("verified taintlint-v"),
        "{}",
        step.stdout
    );
    // In the order it happens: the download, its verification, the install.
    assert_in_order(
        &step.stdout,
        &["Downloading ", "verified taintlint-v", "installed in "],
    );
    let added = apply_github_path(&mut runner);
    assert_eq!(added.len(), 1, "{added:?}");
    assert!(added[0].starts_with(runner.file("tool-cache")), "{added:?}");
    assert!(added[0].join("taintlint").is_file());

    // The next steps find it on PATH: the probe skips the install, the check runs.
    let probe = runner.run("probe", ws.path(), &[]);
    assert_eq!(probe.outputs["install"], "false", "{}", probe.stdout);
    let step = runner.run("check", ws.path(), &[]);
    assert_eq!(step.code, 1, "{}{}", step.stdout, step.stderr);
    assert_consistent(&step, &ws.path().join("taintlint.sarif"));
}

#[test]
fn a_checksum_mismatch_fails_and_installs_nothing() {
    let files = release(true, true);
    let server = Server::start(files.path());
    let mut runner = bare_runner(&server);
    let ws = tempfile::tempdir().unwrap();
    std::fs::write(ws.path().join("bad.yaml"), BAD).unwrap();
    let step = runner.run("download", ws.path(), &[]);
    assert_eq!(step.code, 2, "{}{}", step.stdout, step.stderr);
    assert!(
        step.stdout
            .contains("::error title=taintlint action::checksum mismatch for taintlint-v"),
        "{}",
        step.stdout
    );
    assert!(
        !step.outputs.contains_key("build"),
        "no fallback build after a mismatch"
    );
    assert!(apply_github_path(&mut runner).is_empty());
    let installed = walk_files(&runner.file("tool-cache"));
    assert!(installed.is_empty(), "installed: {installed:?}");
    // Nothing runs: the check step finds no taintlint.
    let step = runner.run("check", ws.path(), &[]);
    assert_eq!(step.code, 2, "{}", step.stdout);
    assert!(step.stdout.contains("no taintlint"), "{}", step.stdout);

    // `install` (download, else build) stops there too.
    let step = runner.run("install", ws.path(), &[]);
    assert_eq!(step.code, 2, "{}", step.stdout);
    assert!(step.stdout.contains("checksum mismatch"), "{}", step.stdout);
}

fn walk_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    if let Ok(entries) = std::fs::read_dir(dir) {
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                out.extend(walk_files(&p));
            } else {
                out.push(p);
            }
        }
    }
    out
}

/// A `cargo` that records its arguments and "installs" the binary under test, so the fallback
/// build is seen without building the crate again.
fn fake_cargo(runner: &mut Runner) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let dir = runner.file("fake-cargo");
    std::fs::create_dir_all(&dir).unwrap();
    let log = runner.file("cargo-args");
    let script = format!(
        "#!/bin/sh\nprintf '%s\\n' \"$*\" >>'{}'\nmkdir -p \"$CARGO_HOME/bin\"\ncp '{}' \"$CARGO_HOME/bin/taintlint\"\n",
        log.display(),
        env!("CARGO_BIN_EXE_taintlint")
    );
    std::fs::write(dir.join("cargo"), script).unwrap();
    std::fs::set_permissions(dir.join("cargo"), std::fs::Permissions::from_mode(0o755)).unwrap();
    prepend_path(runner, vec![dir]);
    log
}

#[test]
fn a_missing_release_falls_back_to_building() {
    let files = release(false, false);
    let server = Server::start(files.path());
    let mut runner = bare_runner(&server);
    let log = fake_cargo(&mut runner);
    let ws = tempfile::tempdir().unwrap();
    std::fs::write(ws.path().join("bad.yaml"), BAD).unwrap();

    let step = runner.run("download", ws.path(), &[]);
    assert_eq!(step.code, 0, "{}{}", step.stdout, step.stderr);
    assert_eq!(step.outputs["build"], "true");
    assert!(
        step.stdout.contains("lists no taintlint-v"),
        "{}",
        step.stdout
    );
    assert!(
        step.stdout
            .contains("for this runner: the next steps build it from source"),
        "{}",
        step.stdout
    );
    assert!(!log.exists(), "download does not build");

    let step = runner.run("build", ws.path(), &[]);
    assert_eq!(step.code, 0, "{}{}", step.stdout, step.stderr);
    // Said before cargo runs, and what came of it after.
    assert_in_order(
        &step.stdout,
        &[
            &format!(
                "Building taintlint {} from {}",
                env!("CARGO_PKG_VERSION"),
                root().display()
            ),
            "installed in ",
        ],
    );
    let args = std::fs::read_to_string(&log).unwrap();
    assert!(
        args.starts_with(&format!(
            "install --locked --force --path {}",
            root().display()
        )),
        "{args}"
    );
    let added = apply_github_path(&mut runner);
    assert_eq!(added, [runner.file("cargo-home/bin")]);
    let step = runner.run("check", ws.path(), &[]);
    assert_eq!(step.code, 1, "{}{}", step.stdout, step.stderr);

    // No release at all for the version (a branch or SHA ref: no v<version>/ directory):
    // `install` builds.
    let empty = tempfile::tempdir().unwrap();
    let server = Server::start(empty.path());
    let mut runner = bare_runner(&server);
    let log = fake_cargo(&mut runner);
    let step = runner.run("install", ws.path(), &[]);
    assert_eq!(step.code, 0, "{}{}", step.stdout, step.stderr);
    assert!(step.stdout.contains("HTTP 404"), "{}", step.stdout);
    assert!(
        std::fs::read_to_string(&log)
            .unwrap()
            .starts_with("install --locked")
    );
}

/// The pre-commit hook `taintlint-release` (`run.sh exec`): downloads and verifies once, then
/// runs from its cache, without the server.
#[test]
fn exec_runs_the_release_binary_from_its_cache() {
    let files = release(false, true);
    let server = Server::start(files.path());
    let runner = bare_runner(&server);
    let ws = tempfile::tempdir().unwrap();
    std::fs::write(ws.path().join("bad.yaml"), BAD).unwrap();
    let cache = runner.file("xdg-cache");
    let exec = |url: &str| {
        Command::new("bash")
            .arg(root().join("action/run.sh"))
            .args(["exec", "check", "--format", "concise", "."])
            .current_dir(ws.path())
            .env("PATH", &runner.path)
            .env("XDG_CACHE_HOME", &cache)
            .env("TAINTLINT_RELEASE_URL", url)
            .env("NO_PROXY", "127.0.0.1")
            .env("no_proxy", "127.0.0.1")
            .env("NO_COLOR", "1")
            .env_remove("RUNNER_TOOL_CACHE")
            .env_remove("GITHUB_ACTION_PATH")
            .env_remove("TAINTLINT_INSTALL_DIR")
            .output()
            .unwrap()
    };
    let out = exec(&server.url);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stdout}{stderr}");
    assert!(
        stdout.contains("bad.yaml:9:14: error[toleration-exists-with-value]"),
        "{stdout}"
    );
    assert!(stderr.contains("verified taintlint-v"), "{stderr}");
    drop(server);
    // The second run needs no server.
    let out = exec("http://127.0.0.1:9");
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stderr).is_empty());

    // No release (the server answers 404), and no server at all (a network failure): each
    // says which, exit 2.
    let empty = tempfile::tempdir().unwrap();
    let no_release = Server::start(empty.path());
    for (url, want, not) in [
        (
            no_release.url.as_str(),
            "no release binary of version",
            "cannot download",
        ),
        (
            "http://127.0.0.1:9",
            "cannot download the release binary of version",
            "no release binary",
        ),
    ] {
        let out = Command::new("bash")
            .arg(root().join("action/run.sh"))
            .args(["exec", "check"])
            .env("PATH", &runner.path)
            .env("XDG_CACHE_HOME", runner.file("other-cache"))
            .env("TAINTLINT_RELEASE_URL", url)
            .env("NO_PROXY", "127.0.0.1")
            .env("no_proxy", "127.0.0.1")
            .env_remove("RUNNER_TOOL_CACHE")
            .env_remove("GITHUB_ACTION_PATH")
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{stderr}");
        assert!(stderr.contains(want), "{url}: {stderr}");
        assert!(!stderr.contains(not), "{url}: {stderr}");
    }
}

/// Each of `parts` is in `text`, each after the one before.
fn assert_in_order(text: &str, parts: &[&str]) {
    let mut at = 0;
    for part in parts {
        match text[at..].find(part) {
            Some(i) => at += i + part.len(),
            None => panic!("{part:?} missing, or not after {:?}:\n{text}", &text[..at]),
        }
    }
}
