//! The one way the integration tests run the real binary: in a folder, with arguments,
//! optional standard input and environment, the user's output settings (`NO_COLOR`,
//! `TAINTLINT_FORMAT`, `TAINTLINT_SPILL_BUDGET`) removed, stdout and stderr drained while it
//! runs, and a watchdog that kills it if it hangs.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

/// The binary under test.
pub const BIN: &str = env!("CARGO_BIN_EXE_taintlint");

/// A hang guard, not a time limit: a run still going after this long is killed and the test
/// fails. Every run here takes seconds, even on a busy 2-core machine; only a hang (a read of
/// `/dev/zero`, a loop) reaches it. No test asserts how long something takes: times are
/// measured in `bench/`.
pub const HANG: Duration = Duration::from_secs(300);

/// The repository's root (tests run there unless they say otherwise).
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// What a run printed and how it ended.
pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

/// A run to make: arguments, then where, what on standard input and which environment.
pub struct Cmd<'a> {
    args: Vec<String>,
    dir: PathBuf,
    stdin: Option<&'a [u8]>,
    envs: Vec<(String, String)>,
}

/// `taintlint ARGS` in the repository's root.
pub fn taintlint(args: &[&str]) -> Cmd<'static> {
    Cmd {
        args: args.iter().map(|a| (*a).to_string()).collect(),
        dir: root(),
        stdin: None,
        envs: Vec::new(),
    }
}

impl<'a> Cmd<'a> {
    pub fn in_dir(mut self, dir: &Path) -> Self {
        self.dir = dir.to_path_buf();
        self
    }

    pub fn stdin<'b>(self, bytes: &'b [u8]) -> Cmd<'b> {
        Cmd {
            args: self.args,
            dir: self.dir,
            stdin: Some(bytes),
            envs: self.envs,
        }
    }

    pub fn env(mut self, key: &str, value: &str) -> Self {
        self.envs.push((key.to_string(), value.to_string()));
        self
    }

    pub fn envs(mut self, envs: &[(&str, &str)]) -> Self {
        for (k, v) in envs {
            self = self.env(k, v);
        }
        self
    }

    /// Runs it, killing it if it has not finished within 60 s (a FIFO opened by mistake).
    pub fn run(self) -> Run {
        let mut cmd = Command::new(BIN);
        cmd.args(&self.args)
            .current_dir(&self.dir)
            .env_remove("NO_COLOR")
            .env_remove("TAINTLINT_FORMAT")
            .env_remove("TAINTLINT_SPILL_BUDGET")
            .stdin(if self.stdin.is_some() {
                Stdio::piped()
            } else {
                Stdio::null()
            })
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        for (k, v) in &self.envs {
            cmd.env(k, v);
        }
        let mut child = cmd.spawn().expect("spawn taintlint");
        if let Some(bytes) = self.stdin {
            let mut pipe = child.stdin.take().expect("stdin");
            pipe.write_all(bytes).expect("write stdin");
        }
        // Drain stdout and stderr while the child runs, so a large output cannot fill the pipe
        // and block it; a watchdog kills a child that hangs.
        let pid = child.id();
        let done = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let watchdog = {
            let done = std::sync::Arc::clone(&done);
            std::thread::spawn(move || {
                let deadline = Instant::now() + HANG;
                while !done.load(std::sync::atomic::Ordering::SeqCst) {
                    if Instant::now() > deadline {
                        let _ = Command::new("kill").args(["-9", &pid.to_string()]).status();
                        return true;
                    }
                    std::thread::sleep(Duration::from_millis(10));
                }
                false
            })
        };
        let out = child.wait_with_output().expect("wait for taintlint");
        done.store(true, std::sync::atomic::Ordering::SeqCst);
        if watchdog.join().unwrap_or(false) {
            panic!("taintlint {:?} hung: killed after {HANG:?}", self.args);
        }
        Run {
            code: out.status.code().expect("exit code"),
            stdout: String::from_utf8(out.stdout).expect("stdout is UTF-8"),
            stderr: String::from_utf8(out.stderr).expect("stderr is UTF-8"),
        }
    }

    /// Runs it and parses its standard output as JSON.
    pub fn json(self) -> (i32, Value) {
        let r = self.run();
        let v: Value = serde_json::from_str(&r.stdout)
            .unwrap_or_else(|e| panic!("invalid JSON ({e}):\n{}\n{}", r.stdout, r.stderr));
        (r.code, v)
    }
}
