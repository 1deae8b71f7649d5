//! The release workflow's shell steps, run here on a local repository and a stand-in for the
//! `gh` CLI: the major and minor tags follow each release (so `@v0` resolves), and the
//! checksums cover whatever built while a missing target fails the run loudly. See: issue 32.

#![allow(clippy::unwrap_used)] // tests may unwrap

use std::path::Path;
use std::process::Command;

mod common;

/// The `run: |` block of the step named `step` in .github/workflows/release.yml, dedented.
fn step_script(step: &str) -> String {
    let text =
        std::fs::read_to_string(common::cli::root().join(".github/workflows/release.yml")).unwrap();
    let at = text
        .find(&format!("- name: {step}\n"))
        .unwrap_or_else(|| panic!("no step `{step}`"));
    let rest = &text[at..];
    let run = rest.find("run: |\n").unwrap();
    let indent = rest[..run].rsplit('\n').next().unwrap().len();
    let mut out = String::new();
    for line in rest[run + "run: |\n".len()..].lines() {
        let depth = line.len() - line.trim_start().len();
        if !line.trim().is_empty() && depth <= indent {
            break;
        }
        out.push_str(line.get(indent + 2..).unwrap_or(""));
        out.push('\n');
    }
    out
}

fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .args([
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@t",
            "-c",
            "init.defaultBranch=main",
        ])
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap().trim().to_string()
}

#[test]
fn a_release_moves_its_major_and_minor_tags() {
    let script = step_script("Move v<major> and v<major>.<minor> to this release");
    let tmp = tempfile::tempdir().unwrap();
    let origin = tmp.path().join("origin.git");
    let work = tmp.path().join("work");
    std::fs::create_dir_all(&work).unwrap();
    git(
        tmp.path(),
        &["init", "-q", "--bare", origin.to_str().unwrap()],
    );
    git(&work, &["init", "-q"]);
    git(
        &work,
        &["remote", "add", "origin", origin.to_str().unwrap()],
    );
    let release = |tag: &str| {
        git(&work, &["commit", "-q", "--allow-empty", "-m", tag]);
        let sha = git(&work, &["rev-parse", "HEAD"]);
        git(&work, &["tag", tag]);
        git(&work, &["push", "-q", "origin", "HEAD:main", tag]);
        let out = Command::new("bash")
            .args(["-e", "-c", &script])
            .env("TAG", tag)
            .env("GITHUB_SHA", &sha)
            .current_dir(&work)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        sha
    };
    let tag_at = |tag: &str| git(&origin, &["rev-parse", &format!("{tag}^{{commit}}")]);
    let first = release("v0.1.0");
    assert_eq!(tag_at("v0"), first);
    assert_eq!(tag_at("v0.1"), first);
    let second = release("v0.2.0");
    assert_eq!(tag_at("v0"), second);
    assert_eq!(tag_at("v0.2"), second);
    assert_eq!(tag_at("v0.1"), first);
    let third = release("v1.0.0");
    assert_eq!(tag_at("v1"), third);
    assert_eq!(tag_at("v0"), second);
    // The workflow only runs on full version tags, which these moving tags are not, and skips
    // pre-releases.
    let text =
        std::fs::read_to_string(common::cli::root().join(".github/workflows/release.yml")).unwrap();
    assert!(text.contains("tags: [\"v[0-9]+.[0-9]+.[0-9]+*\"]"));
    assert!(text.contains("if: ${{ !contains(github.ref_name, '-') }}"));
}

/// The checksums step with `gh` standing in: `release download` copies what built,
/// `release upload` records what it was given.
fn checksums(built: &[&str]) -> (bool, String, Option<String>) {
    let script = step_script("SHA256SUMS of every archive that built");
    let targets = [
        "x86_64-unknown-linux-musl",
        "aarch64-unknown-linux-musl",
        "x86_64-apple-darwin",
        "aarch64-apple-darwin",
        "x86_64-pc-windows-msvc",
    ];
    let tmp = tempfile::tempdir().unwrap();
    let release = tmp.path().join("release");
    let bin = tmp.path().join("bin");
    let work = tmp.path().join("work");
    for d in [&release, &bin, &work] {
        std::fs::create_dir_all(d).unwrap();
    }
    for t in built {
        let ext = if t.contains("windows") {
            "zip"
        } else {
            "tar.gz"
        };
        std::fs::write(release.join(format!("taintlint-v9.9.9-{t}.{ext}")), t).unwrap();
    }
    let gh = format!(
        "#!/usr/bin/env bash\ncase \"$1 $2\" in\n  'release download') cp {r}/taintlint-* . 2>/dev/null || {{ echo 'no assets' >&2; exit 1; }} ;;\n  'release upload') cp \"$4\" {r}/uploaded-\"$4\" ;;\n  *) exit 9 ;;\nesac\n",
        r = release.display()
    );
    std::fs::write(bin.join("gh"), gh).unwrap();
    Command::new("chmod")
        .arg("+x")
        .arg(bin.join("gh"))
        .status()
        .unwrap();
    let out = Command::new("bash")
        .args(["-e", "-c", &script])
        .env("TAG", "v9.9.9")
        .env("GITHUB_REPOSITORY", "o/taintlint")
        .env("TARGETS", targets.join(" "))
        .env(
            "PATH",
            format!("{}:{}", bin.display(), std::env::var("PATH").unwrap()),
        )
        .current_dir(&work)
        .output()
        .unwrap();
    let uploaded = std::fs::read_to_string(release.join("uploaded-SHA256SUMS")).ok();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        uploaded,
    )
}

#[test]
fn checksums_cover_what_built_and_a_missing_target_fails_loudly() {
    let all = [
        "x86_64-unknown-linux-musl",
        "aarch64-unknown-linux-musl",
        "x86_64-apple-darwin",
        "aarch64-apple-darwin",
        "x86_64-pc-windows-msvc",
    ];
    let (ok, _, sums) = checksums(&all);
    assert!(ok);
    assert_eq!(sums.unwrap().lines().count(), 5);
    // macOS x86_64 failed to build: the other four are summed and published, and the job
    // fails with an error naming the missing target.
    let (ok, stdout, sums) = checksums(
        &all[..2]
            .iter()
            .chain(&all[3..])
            .copied()
            .collect::<Vec<_>>(),
    );
    assert!(!ok);
    assert!(
        stdout.contains("::error::no release archive for x86_64-apple-darwin"),
        "{stdout}"
    );
    let sums = sums.unwrap();
    assert_eq!(sums.lines().count(), 4);
    assert!(sums.contains("taintlint-v9.9.9-x86_64-pc-windows-msvc.zip"));
    // Nothing built: nothing to sum, and a failure.
    let (ok, _, sums) = checksums(&[]);
    assert!(!ok);
    assert!(sums.is_none());
}
