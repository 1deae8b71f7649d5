//! The README's install one-liner, run as a new user would (by `sh`, which is dash here, and by
//! bash) against a release laid out as the release workflow publishes it — archives with the
//! binary at their top (upload-rust-binary-action without a leading directory) and a
//! SHA256SUMS made by `sha256sum taintlint-*` as its checksums job does — served over HTTP on
//! the loopback interface. See: issue 32 (the brace list with `-O` saved one file only).

#![allow(clippy::unwrap_used)] // tests may unwrap

use std::path::Path;
use std::process::Command;

mod common;
mod release_server;

const VERSION: &str = env!("CARGO_PKG_VERSION");
const TARGET: &str = "x86_64-unknown-linux-musl";

fn one_liner() -> String {
    let readme = std::fs::read_to_string(common::cli::root().join("README.md")).unwrap();
    let start = readme
        .find("<!-- install-one-liner -->\n```sh\n")
        .expect("the README's install one-liner, after its marker");
    let rest = &readme[start..];
    let body = &rest[rest.find("```sh\n").unwrap() + 6..];
    body[..body.find("\n```").unwrap()].to_string()
}

/// `<root>/v<version>/` with this target's archive (and another's) and SHA256SUMS.
fn release(root: &Path, tamper: bool) {
    let dir = root.join(format!("v{VERSION}"));
    let stage = root.join("stage");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::create_dir_all(&stage).unwrap();
    std::fs::copy(common::cli::BIN, stage.join("taintlint")).unwrap();
    for f in ["README.md", "LICENSE-MIT", "LICENSE-APACHE"] {
        std::fs::copy(common::cli::root().join(f), stage.join(f)).unwrap();
    }
    for target in [TARGET, "aarch64-unknown-linux-musl"] {
        let archive = dir.join(format!("taintlint-v{VERSION}-{target}.tar.gz"));
        let ok = Command::new("tar")
            .arg("czf")
            .arg(&archive)
            .arg("-C")
            .arg(&stage)
            .args(["taintlint", "README.md", "LICENSE-MIT", "LICENSE-APACHE"])
            .status()
            .unwrap()
            .success();
        assert!(ok);
    }
    let sums = Command::new("sh")
        .args(["-c", "sha256sum taintlint-* >SHA256SUMS"])
        .current_dir(&dir)
        .status()
        .unwrap();
    assert!(sums.success());
    if tamper {
        // The archive changes after its checksum was taken.
        let archive = dir.join(format!("taintlint-v{VERSION}-{TARGET}.tar.gz"));
        let mut bytes = std::fs::read(&archive).unwrap();
        bytes.extend_from_slice(b"tampered");
        std::fs::write(&archive, bytes).unwrap();
    }
}

fn install(shell: &str, base: &str, into: &Path) -> std::process::Output {
    let cmd = one_liner().replace(
        "https://github.com/<owner>/taintlint/releases/download",
        base,
    );
    Command::new(shell)
        .args(["-c", &cmd])
        .current_dir(into)
        .output()
        .unwrap()
}

#[test]
fn the_one_liner_installs_the_checked_binary() {
    let line = one_liner();
    assert!(line.contains(&format!("v={VERSION} ")), "{line}");
    assert!(line.contains(&format!("t={TARGET}")), "{line}");
    let served = tempfile::tempdir().unwrap();
    release(served.path(), false);
    let server = release_server::Server::start(served.path());
    for shell in ["sh", "bash"] {
        let into = tempfile::tempdir().unwrap();
        let out = install(shell, &server.url, into.path());
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "{shell}: {stdout}{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(stdout.contains(&format!("taintlint {VERSION}")), "{stdout}");
        assert!(
            stdout.contains(": OK"),
            "the checksum was checked: {stdout}"
        );
        // Only the binary is unpacked, and it is the one served.
        assert_eq!(
            std::fs::read(into.path().join("taintlint")).unwrap(),
            std::fs::read(common::cli::BIN).unwrap()
        );
        assert!(!into.path().join("README.md").exists());
    }
}

#[test]
fn the_one_liner_refuses_a_tampered_or_missing_archive() {
    let served = tempfile::tempdir().unwrap();
    release(served.path(), true);
    let server = release_server::Server::start(served.path());
    let into = tempfile::tempdir().unwrap();
    let out = install("sh", &server.url, into.path());
    assert!(!out.status.success());
    assert!(!into.path().join("taintlint").exists());
    // A release without this archive (a target that failed to build): nothing installed.
    let empty = tempfile::tempdir().unwrap();
    let server = release_server::Server::start(empty.path());
    let into = tempfile::tempdir().unwrap();
    let out = install("sh", &server.url, into.path());
    assert!(!out.status.success());
    assert!(!into.path().join("taintlint").exists());
}
