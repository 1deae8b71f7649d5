//! A release of taintlint as the release workflow publishes it, served on the loopback
//! interface: for the Action's download (`tests/action.rs`) and the `taintlint-release`
//! pre-commit hook (`tests/precommit.rs`).

#![allow(unreachable_pub)] // a test helper module, not an API
#![allow(dead_code)] // each test crate uses a part
#![allow(clippy::unwrap_used)] // tests may unwrap

use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// `python3 -m http.server` on 127.0.0.1 serving `dir`, on a port of its choosing; bounded by
/// `timeout` and killed when dropped.
pub struct Server {
    child: std::process::Child,
    pub url: String,
}

impl Server {
    pub fn start(dir: &Path) -> Server {
        use std::io::BufRead;
        let mut child = Command::new("timeout")
            .args([
                "120",
                "python3",
                "-u",
                "-m",
                "http.server",
                "0",
                "--bind",
                "127.0.0.1",
            ])
            .arg("--directory")
            .arg(dir)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("python3 -m http.server");
        let mut line = String::new();
        std::io::BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        // "Serving HTTP on 127.0.0.1 port 41231 (http://127.0.0.1:41231/) ..."
        let port = line
            .split(" port ")
            .nth(1)
            .and_then(|rest| rest.split_whitespace().next())
            .unwrap_or_else(|| panic!("no port in {line:?}"));
        Server {
            child,
            url: format!("http://127.0.0.1:{port}"),
        }
    }
}

impl Drop for Server {
    /// `timeout` passes SIGTERM on to the server; a SIGKILL (`Child::kill`) would kill
    /// `timeout` alone and leave the server running with nothing to stop it.
    fn drop(&mut self) {
        let stopped = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status()
            .is_ok_and(|s| s.success());
        if !stopped {
            let _ = self.child.kill();
        }
        let _ = self.child.wait();
    }
}

/// This machine's release target, as run.sh names it.
pub fn release_target() -> String {
    let out = Command::new("bash")
        .arg(root().join("action/run.sh"))
        .arg("target")
        .output()
        .unwrap();
    let target = String::from_utf8(out.stdout).unwrap().trim().to_string();
    assert!(!target.is_empty(), "no release target for this machine");
    target
}

fn sha256(path: &Path) -> String {
    let out = Command::new("python3")
        .args([
            "-c",
            "import hashlib, sys; print(hashlib.sha256(open(sys.argv[1], 'rb').read()).hexdigest())",
        ])
        .arg(path)
        .output()
        .unwrap();
    String::from_utf8(out.stdout).unwrap().trim().to_string()
}

/// A release directory as the release workflow publishes it: `v<version>/` with the archive
/// of this machine's target (the binary under test, in a folder, with the README) and
/// `SHA256SUMS`. `corrupt` writes a wrong checksum; `with_archive: false` leaves the archive
/// out (and SHA256SUMS does not list it).
pub fn release(corrupt: bool, with_archive: bool) -> tempfile::TempDir {
    let root_dir = tempfile::tempdir().unwrap();
    let version = env!("CARGO_PKG_VERSION");
    let dir = root_dir.path().join(format!("v{version}"));
    let name = format!("taintlint-v{version}-{}", release_target());
    let stage = root_dir.path().join("stage").join(&name);
    std::fs::create_dir_all(&stage).unwrap();
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::copy(env!("CARGO_BIN_EXE_taintlint"), stage.join("taintlint")).unwrap();
    std::fs::copy(root().join("README.md"), stage.join("README.md")).unwrap();
    let archive = dir.join(format!("{name}.tar.gz"));
    let out = Command::new("tar")
        .arg("czf")
        .arg(&archive)
        .arg("-C")
        .arg(stage.parent().unwrap())
        .arg(&name)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "tar: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut sum = sha256(&archive);
    if corrupt {
        sum = sum.replace(&sum[..1], if sum.starts_with('0') { "1" } else { "0" });
    }
    let mut sums = format!("{sum}  {name}.tar.gz\n");
    sums.push_str(&format!(
        "{}  taintlint-v{version}-other-target.tar.gz\n",
        "ab".repeat(32)
    ));
    if !with_archive {
        std::fs::remove_file(&archive).unwrap();
        sums = sums.lines().skip(1).map(|l| format!("{l}\n")).collect();
    }
    std::fs::write(dir.join("SHA256SUMS"), sums).unwrap();
    root_dir
}
