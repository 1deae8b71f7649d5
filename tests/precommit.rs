//! The pre-commit hooks (`.pre-commit-hooks.yaml`) with the real `pre-commit` from PyPI:
//! `pre-commit try-repo` against this repository, run in a temporary git repository with the
//! binary under test first on `PATH` (the `taintlint-system` hook, so pre-commit does not build
//! the crate again through its `rust` language support).
//!
//! pre-commit is installed once into a virtualenv under `target/tmp/precommit-venv` and reused
//! by later runs. Installing it needs the network (PyPI): without it, the tests that run
//! pre-commit print why and pass without checking anything (`TAINTLINT_REQUIRE_NETWORK=1`, as
//! CI sets it, makes them fail instead). The checks of the hooks file itself need nothing.

#![cfg(unix)]
#![allow(clippy::unwrap_used)] // tests may unwrap

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

use taintlint::load::yaml::{Limits, Node, parse};

mod release_server;

const HOOKS: &str = ".pre-commit-hooks.yaml";

const GOOD: &str = "\
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

fn text(out: &Output) -> String {
    format!(
        "exit {:?}\n--- stdout\n{}--- stderr\n{}",
        out.status.code(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// `git` with the caller's repository variables removed (cargo test may run inside a hook).
fn git(dir: &Path, args: &[&str]) -> Output {
    Command::new("git")
        .args([
            "-c",
            "user.name=taintlint tests",
            "-c",
            "user.email=tests@taintlint.invalid",
        ])
        .args([
            "-c",
            "commit.gpgsign=false",
            "-c",
            "init.defaultBranch=main",
        ])
        .args(args)
        .current_dir(dir)
        .env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE")
        .env_remove("GIT_INDEX_FILE")
        .output()
        .expect("git is installed")
}

fn git_ok(dir: &Path, args: &[&str]) {
    let out = git(dir, args);
    assert!(out.status.success(), "git {args:?}: {}", text(&out));
}

/// The virtualenv's Python, with pre-commit installed; created on first use. `None` (with the
/// reason on stderr) when pre-commit cannot be installed and the network is not required.
fn venv_python() -> Option<&'static Path> {
    static PYTHON: OnceLock<Option<PathBuf>> = OnceLock::new();
    PYTHON
        .get_or_init(|| match std::panic::catch_unwind(install_pre_commit) {
            Ok(python) => Some(python),
            Err(_) if std::env::var_os("TAINTLINT_REQUIRE_NETWORK").is_none_or(|v| v != "1") => {
                eprintln!(
                    "skipped: pre-commit could not be installed from PyPI (no network?); \
                     set TAINTLINT_REQUIRE_NETWORK=1 to make this a failure"
                );
                None
            }
            Err(e) => std::panic::resume_unwind(e),
        })
        .as_deref()
}

/// Whether pre-commit runs here; the tests that need it return early when it does not.
fn have_pre_commit() -> bool {
    venv_python().is_some()
}

/// Creates (or reuses) the virtualenv and installs pre-commit into it; panics with the reason.
fn install_pre_commit() -> PathBuf {
    let venv = Path::new(env!("CARGO_TARGET_TMPDIR")).join("precommit-venv");
    let python = venv.join("bin/python");
    let works = |python: &Path| {
        Command::new(python)
            .args(["-m", "pre_commit", "--version"])
            .output()
            .is_ok_and(|o| o.status.success())
    };
    if works(&python) {
        return python;
    }
    // Build it beside the final place and rename it in, so an interrupted install is
    // never mistaken for a finished one. `python -m` works from the renamed venv.
    let building = venv.with_extension(format!("building-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&building);
    let out = Command::new("python3")
        .args(["-m", "venv"])
        .arg(&building)
        .output()
        .unwrap_or_else(|e| panic!("python3 is needed for the pre-commit tests: {e}"));
    assert!(out.status.success(), "python3 -m venv: {}", text(&out));
    let out = Command::new(building.join("bin/python"))
        .args([
            "-m",
            "pip",
            "install",
            "--disable-pip-version-check",
            "--quiet",
        ])
        .args(["--timeout", "20", "--retries", "2", "pre-commit"])
        .output()
        .unwrap();
    if !out.status.success() {
        let _ = std::fs::remove_dir_all(&building);
        panic!(
            "could not install pre-commit from PyPI (is the network available? these tests \
             need `pip install pre-commit` to work once; later runs reuse {}):\n{}",
            venv.display(),
            text(&out)
        );
    }
    // Another `cargo test` may have finished one meanwhile, and may be using it: keep it.
    // Only a broken one is replaced.
    if !works(&python) {
        let _ = std::fs::remove_dir_all(&venv);
    }
    if std::fs::rename(&building, &venv).is_err() {
        let _ = std::fs::remove_dir_all(&building);
    }
    assert!(
        works(&python),
        "pre-commit does not run from {}",
        venv.display()
    );
    python
}

/// Runs `python -m pre_commit ARGS` in `dir`, with the binary under test first on PATH.
fn pre_commit(dir: &Path, home: &Path, args: &[&str]) -> Output {
    pre_commit_env(dir, home, args, &[])
}

/// [`pre_commit`] with more environment (the release server's address for
/// `taintlint-release`).
fn pre_commit_env(dir: &Path, home: &Path, args: &[&str], env: &[(&str, &OsStr)]) -> Output {
    let bin = Path::new(env!("CARGO_BIN_EXE_taintlint")).parent().unwrap();
    let mut path = vec![bin.to_path_buf()];
    path.extend(std::env::split_paths(
        &std::env::var_os("PATH").unwrap_or_default(),
    ));
    Command::new(venv_python().expect("pre-commit is installed (have_pre_commit)"))
        .args(["-m", "pre_commit"])
        .args(args)
        .current_dir(dir)
        .env("PATH", std::env::join_paths(path).unwrap())
        .env("PRE_COMMIT_HOME", home)
        .env("PRE_COMMIT_COLOR", "never")
        .env("NO_COLOR", "1")
        .env_remove("TAINTLINT_FORMAT")
        .env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE")
        .env_remove("GIT_INDEX_FILE")
        .env_remove("RUNNER_TOOL_CACHE")
        .env_remove("TAINTLINT_INSTALL_DIR")
        .env_remove("TAINTLINT_RELEASE_URL")
        .env_remove("GITHUB_ACTION_PATH")
        .env_remove("GITHUB_ACTION_REPOSITORY")
        .envs(env.iter().copied())
        .output()
        .unwrap()
}

/// The repository `try-repo` is pointed at: this one when it is a git checkout that tracks the
/// hooks file (try-repo then commits any uncommitted changes into a shadow copy), otherwise a
/// temporary repository holding the working tree's hooks file.
fn hooks_repo(scratch: &Path) -> PathBuf {
    let tracked = git(&root(), &["ls-files", "--error-unmatch", HOOKS]);
    if tracked.status.success() {
        return root();
    }
    eprintln!("{HOOKS} is not tracked by git here: trying a copy of it");
    copy_of_hooks(scratch, |s| s.to_string())
}

/// A temporary git repository whose only file is the hooks file, rewritten by `edit`.
fn copy_of_hooks(scratch: &Path, edit: impl Fn(&str) -> String) -> PathBuf {
    let repo = scratch.join("hooks-repo");
    std::fs::create_dir_all(&repo).unwrap();
    let hooks = std::fs::read_to_string(root().join(HOOKS)).unwrap();
    std::fs::write(repo.join(HOOKS), edit(&hooks)).unwrap();
    git_ok(&repo, &["init", "-q"]);
    git_ok(&repo, &["add", HOOKS]);
    git_ok(&repo, &["commit", "-q", "-m", "hooks"]);
    repo
}

/// A temporary git repository with these files, staged.
fn consumer(scratch: &Path, files: &[(&str, &str)]) -> PathBuf {
    let repo = scratch.join("consumer");
    for (name, content) in files {
        let path = repo.join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, content).unwrap();
    }
    git_ok(&repo, &["init", "-q"]);
    git_ok(&repo, &["add", "."]);
    repo
}

fn try_repo(scratch: &Path, hooks: &Path, repo: &Path, hook: &str, extra: &[&str]) -> Output {
    let hooks = hooks.to_str().unwrap();
    let mut args = vec!["try-repo", hooks, hook, "--verbose"];
    args.extend_from_slice(extra);
    pre_commit(repo, &scratch.join("pre-commit-home"), &args)
}

/// A Node with a dedicated taint and label.
const NODES: &str = "\
apiVersion: v1
kind: Node
metadata:
  name: infra-1
  labels:
    role: infra
spec:
  taints:
    - key: dedicated
      value: infra
      effect: NoSchedule
";

/// A Node without taints or labels: it cannot run a workload that selects `role: infra`.
const GENERAL: &str = "\
apiVersion: v1
kind: Node
metadata:
  name: general-1
";

/// A workload that runs only on those nodes: unschedulable when its linter does not see them.
const PINNED: &str = "\
apiVersion: v1
kind: Pod
metadata:
  name: agent
spec:
  nodeSelector:
    role: infra
  tolerations:
    - key: dedicated
      operator: Equal
      value: infra
      effect: NoSchedule
  containers:
    - name: agent
      image: busybox
";

#[test]
fn the_hooks_file_is_a_valid_pre_commit_manifest() {
    if !have_pre_commit() {
        return;
    }
    let scratch = tempfile::tempdir().unwrap();
    let out = pre_commit(
        &root(),
        &scratch.path().join("home"),
        &["validate-manifest", HOOKS],
    );
    assert!(out.status.success(), "{}", text(&out));
}

#[test]
fn system_hook_fails_on_a_bad_manifest() {
    if !have_pre_commit() {
        return;
    }
    let scratch = tempfile::tempdir().unwrap();
    let hooks = hooks_repo(scratch.path());
    let repo = consumer(
        scratch.path(),
        &[("k8s/bad.yaml", BAD), ("k8s/good.yaml", GOOD)],
    );
    let out = try_repo(
        scratch.path(),
        &hooks,
        &repo,
        "taintlint-system",
        &["--files", "k8s/bad.yaml", "k8s/good.yaml"],
    );
    let all = text(&out);
    assert_eq!(out.status.code(), Some(1), "{all}");
    assert!(all.contains("Failed"), "{all}");
    assert!(all.contains("k8s/bad.yaml"), "{all}");
    assert!(all.contains("toleration-exists-with-value"), "{all}");
}

#[test]
fn system_hook_passes_on_a_good_repository_and_skips_without_manifests() {
    if !have_pre_commit() {
        return;
    }
    let scratch = tempfile::tempdir().unwrap();
    let hooks = hooks_repo(scratch.path());
    let repo = consumer(
        scratch.path(),
        &[
            ("k8s/good.yaml", GOOD),
            ("k8s/config.json", "{\"replicas\": 3}\n"),
            ("README.md", "not linted\n"),
        ],
    );
    let out = try_repo(
        scratch.path(),
        &hooks,
        &repo,
        "taintlint-system",
        &["--files", "k8s/good.yaml", "README.md"],
    );
    let all = text(&out);
    assert_eq!(out.status.code(), Some(0), "{all}");
    assert!(all.contains("Passed"), "{all}");
    // The repository, not the files given: both manifests.
    assert!(all.contains("no findings in 2 files"), "{all}");

    // No YAML or JSON among the changed files: the hook does not run.
    let out = try_repo(
        scratch.path(),
        &hooks,
        &repo,
        "taintlint-system",
        &["--files", "README.md"],
    );
    let all = text(&out);
    assert_eq!(out.status.code(), Some(0), "{all}");
    assert!(all.contains("Skipped"), "{all}");
}

#[test]
fn default_hook_lints_files_it_was_not_given() {
    if !have_pre_commit() {
        return;
    }
    // `taintlint` and `taintlint-all` build with cargo; run them through the system language.
    let scratch = tempfile::tempdir().unwrap();
    let hooks = copy_of_hooks(scratch.path(), |s| {
        s.replace("language: rust", "language: system")
    });
    let repo = consumer(
        scratch.path(),
        &[("k8s/good.yaml", GOOD), ("other/bad.yaml", BAD)],
    );
    for id in ["taintlint", "taintlint-all"] {
        let out = try_repo(
            scratch.path(),
            &hooks,
            &repo,
            id,
            &["--files", "k8s/good.yaml"],
        );
        let all = text(&out);
        assert_eq!(out.status.code(), Some(1), "{id}: {all}");
        assert!(all.contains("other/bad.yaml"), "{id}: {all}");
    }
}

/// Issue 21: `taintlint-release` downloads the release binary of the hooks' version (here from
/// a release served on 127.0.0.1), verifies it, caches it, and lints the repository with it.
#[test]
fn release_hook_runs_the_verified_release_binary() {
    if !have_pre_commit() {
        return;
    }
    let tracked = git(&root(), &["ls-files", "--error-unmatch", "action/run.sh"]);
    if !tracked.status.success() {
        eprintln!("skipped: action/run.sh is not tracked by git here");
        return;
    }
    let files = release_server::release(false, true);
    let server = release_server::Server::start(files.path());
    let scratch = tempfile::tempdir().unwrap();
    let repo = consumer(
        scratch.path(),
        &[("k8s/good.yaml", GOOD), ("other/bad.yaml", BAD)],
    );
    let cache = scratch.path().join("xdg-cache");
    let env = [
        ("TAINTLINT_RELEASE_URL", OsStr::new(&server.url)),
        ("XDG_CACHE_HOME", cache.as_os_str()),
        ("NO_PROXY", OsStr::new("127.0.0.1")),
        ("no_proxy", OsStr::new("127.0.0.1")),
    ];
    let root = root();
    let args = [
        "try-repo",
        root.to_str().unwrap(),
        "taintlint-release",
        "--verbose",
        "--files",
        "k8s/good.yaml",
    ];
    let out = pre_commit_env(&repo, &scratch.path().join("home"), &args, &env);
    let all = text(&out);
    assert_eq!(out.status.code(), Some(1), "{all}");
    assert!(all.contains("verified taintlint-v"), "{all}");
    assert!(all.contains("other/bad.yaml"), "{all}");
    assert!(all.contains("toleration-exists-with-value"), "{all}");
    let version = env!("CARGO_PKG_VERSION");
    let installed = cache
        .join(format!("taintlint/v{version}"))
        .join(release_server::release_target())
        .join("taintlint");
    assert!(installed.is_file(), "{}", installed.display());
}

/// Issue 20, item 2: with thousands of changed files pre-commit splits the file names over
/// several processes even with `require_serial`; a hook that took file names then
/// cross-referenced each share alone and reported a pinned workload as unschedulable.
#[test]
fn many_changed_files_are_linted_in_one_run() {
    if !have_pre_commit() {
        return;
    }
    let scratch = tempfile::tempdir().unwrap();
    let hooks = copy_of_hooks(scratch.path(), |s| {
        s.replace("language: rust", "language: system")
    });
    // 1,500 names of ~120 bytes: over pre-commit's 128 KiB command-line budget (it split such
    // lists in two), with the dedicated Node first, and a general Node and the workload last
    // in the sorted list.
    let pad = "x".repeat(100);
    let fillers: Vec<(String, String)> = (0..1500)
        .map(|i| {
            (
                format!("k8s/m{i:04}-{pad}.yaml"),
                format!("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c{i}\n"),
            )
        })
        .collect();
    let mut files: Vec<(&str, &str)> = vec![
        ("k8s/a-nodes.yaml", NODES),
        ("k8s/y-general.yaml", GENERAL),
        ("k8s/z-agent.yaml", PINNED),
    ];
    files.extend(fillers.iter().map(|(n, c)| (n.as_str(), c.as_str())));
    let repo = consumer(scratch.path(), &files);
    let out = try_repo(scratch.path(), &hooks, &repo, "taintlint", &["--all-files"]);
    let all = text(&out);
    assert_eq!(out.status.code(), Some(0), "{all}");
    assert!(!all.contains("unschedulable-workload"), "{all}");
    assert_eq!(
        all.matches("no findings in 1503 files").count(),
        1,
        "one run over the whole repository: {all}"
    );

    // What the old hook (file names passed) did with the same list: more than one process,
    // and the false finding (if pre-commit stops splitting, this fails: drop it then).
    let split_hooks = scratch.path().join("split");
    std::fs::create_dir_all(&split_hooks).unwrap();
    let old = copy_of_hooks(&split_hooks, |s| {
        s.replace("language: rust", "language: system")
            .replace("  pass_filenames: false\n  args: [.]\n", "")
    });
    let out = try_repo(&split_hooks, &old, &repo, "taintlint", &["--all-files"]);
    let all = text(&out);
    let runs = regex::Regex::new(r"(?m) in \d+ files? \(").unwrap();
    assert!(
        runs.find_iter(&all).count() > 1,
        "pre-commit no longer splits: {all}"
    );
    assert!(all.contains("unschedulable-workload"), "{all}");
}

fn hook<'a>(hooks: &'a [Node], id: &str) -> &'a Node {
    hooks
        .iter()
        .find(|h| h.get("id").and_then(Node::text) == Some(id))
        .unwrap_or_else(|| panic!("no hook {id}"))
}

fn field(hook: &Node, key: &str) -> String {
    match hook.get(key) {
        Some(node) => match node.as_seq() {
            Some(items) => items
                .iter()
                .filter_map(Node::text)
                .collect::<Vec<_>>()
                .join(","),
            None => node.text().unwrap_or("").to_string(),
        },
        None => String::new(),
    }
}

#[test]
fn the_hooks_declare_what_the_readme_promises() {
    let text = std::fs::read_to_string(root().join(HOOKS)).unwrap();
    let stream = parse(&text, Limits::default());
    assert!(stream.error.is_none(), "{HOOKS}: {:?}", stream.error);
    let hooks = stream.documents[0].root.as_ref().unwrap().as_seq().unwrap();
    let ids: Vec<_> = hooks
        .iter()
        .filter_map(|h| h.get("id").and_then(Node::text))
        .collect();
    assert_eq!(
        ids,
        [
            "taintlint",
            "taintlint-release",
            "taintlint-system",
            "taintlint-all"
        ]
    );
    for (id, language, entry) in [
        ("taintlint", "rust", "taintlint check"),
        // The download and the verification are tested in tests/action.rs (`run.sh exec`).
        ("taintlint-release", "script", "action/run.sh exec check"),
        ("taintlint-system", "system", "taintlint check"),
        ("taintlint-all", "rust", "taintlint check"),
    ] {
        let h = hook(hooks, id);
        assert_eq!(field(h, "language"), language, "{id}");
        assert_eq!(field(h, "entry"), entry, "{id}");
        assert_eq!(field(h, "types_or"), "yaml,json", "{id}");
        assert_eq!(field(h, "require_serial"), "true", "{id}");
        // Issue 20, item 2: never a share of the files; the repository.
        assert_eq!(field(h, "pass_filenames"), "false", "{id}");
        assert_eq!(field(h, "args"), ".", "{id}");
    }

    let guide = std::fs::read_to_string(root().join("docs/ci.md")).unwrap();
    for id in &ids {
        assert!(
            guide.contains(&format!("id: {id}\n")),
            "docs/ci.md shows no .pre-commit-config.yaml for {id}"
        );
    }
    // The README's brief recipe names a hook that exists.
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    assert!(
        ids.iter()
            .any(|id| readme.contains(&format!("id: {id} "))
                || readme.contains(&format!("id: {id}\n"))),
        "README.md's pre-commit recipe names no hook"
    );
}
