//! The Dockerfile without a Docker engine (issues 32 and 39). The image's build context is
//! assembled as Docker assembles it — the build stage's `COPY` lines, after `.dockerignore` —
//! in a temporary folder: it must hold every file the crate's build reads (a missing `build.rs`
//! once broke the image while every build from the checkout passed), and, in
//! `.ci/static-build` (run by `.ci/run`), it is built with the Dockerfile's own cargo command
//! and `RUSTFLAGS` (a static binary; the `--target` keeps `+crt-static` off the proc-macro
//! crates). The image runs as a non-root user with a `/tmp`.

#![allow(clippy::unwrap_used)] // tests may unwrap

use std::path::{Path, PathBuf};
use std::process::Command;

mod common;
use common::cli::root;

fn read(path: &str) -> String {
    std::fs::read_to_string(root().join(path)).unwrap()
}

/// The text between the first `start` in `text` and the first of `ends` after it.
fn between<'a>(text: &'a str, start: &str, ends: &[&str]) -> &'a str {
    let from = text
        .find(start)
        .unwrap_or_else(|| panic!("no `{start}` in:\n{text}"));
    let rest = &text[from..];
    let to = ends
        .iter()
        .filter_map(|e| rest[start.len()..].find(e).map(|i| i + start.len()))
        .min()
        .unwrap_or(rest.len());
    rest[..to].trim()
}

/// A Docker glob (Go's `filepath.Match` with `**`, as moby/patternmatcher reads
/// `.dockerignore`, and as Cargo's `include` reads its gitignore-style patterns) as a regex
/// over a `/`-separated path.
fn glob(pattern: &str) -> regex::Regex {
    let p = pattern.trim_start_matches('/').trim_end_matches('/');
    let mut re = String::from("^");
    let chars: Vec<char> = p.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        match chars[i] {
            '*' if chars.get(i + 1) == Some(&'*') => {
                if chars.get(i + 2) == Some(&'/') {
                    re.push_str("(?:.*/)?");
                    i += 3;
                } else {
                    re.push_str(".*");
                    i += 2;
                }
                continue;
            }
            '*' => re.push_str("[^/]*"),
            '?' => re.push_str("[^/]"),
            c => re.push_str(&regex::escape(&c.to_string())),
        }
        i += 1;
    }
    re.push('$');
    regex::Regex::new(&re).unwrap()
}

/// `.dockerignore`: its patterns in order, each `(re-included, pattern)`.
fn dockerignore() -> Vec<(bool, regex::Regex)> {
    read(".dockerignore")
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|l| match l.strip_prefix('!') {
            Some(p) => (true, glob(p.trim())),
            None => (false, glob(l)),
        })
        .collect()
}

/// Whether Docker leaves `rel` out of the context: the last pattern that matches it, or one of
/// its parent folders, decides.
fn ignored(rules: &[(bool, regex::Regex)], rel: &str) -> bool {
    let parents: Vec<&str> = rel
        .match_indices('/')
        .map(|(i, _)| &rel[..i])
        .chain([rel])
        .collect();
    let mut out = false;
    for (include, re) in rules {
        if parents.iter().any(|p| re.is_match(p)) {
            out = !include;
        }
    }
    out
}

/// Every file under `dir`, as paths relative to the repository's root.
fn files_under(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                let rel = p.strip_prefix(root()).unwrap();
                out.push(rel.to_string_lossy().replace('\\', "/"));
            }
        }
    }
    out.sort();
    out
}

/// The `COPY` lines of the Dockerfile that copy from the build context (not `--from`), as
/// (sources, destination), of the build stage (`build_stage`) or of the final one.
fn context_copies(build_stage: bool) -> Vec<(Vec<String>, String)> {
    let docker = read("Dockerfile");
    let last = docker.rfind("\nFROM ").unwrap();
    let stage = if build_stage {
        &docker[..last]
    } else {
        &docker[last..]
    };
    stage
        .lines()
        .filter_map(|l| l.strip_prefix("COPY "))
        .filter(|l| !l.starts_with("--from"))
        .map(|l| {
            let mut words: Vec<String> = l.split_whitespace().map(String::from).collect();
            let dest = words.pop().unwrap();
            (words, dest)
        })
        .collect()
}

/// The build stage's context, assembled in `into` as Docker would copy it into the WORKDIR:
/// each `COPY` source after `.dockerignore` (a folder's files below the destination folder).
/// Returns the files copied (relative to `into`).
fn assemble_context(into: &Path) -> Vec<String> {
    let rules = dockerignore();
    let docker = read("Dockerfile");
    assert!(docker.contains("\nWORKDIR /build\n"), "{docker}");
    let mut copied = Vec::new();
    for (sources, dest) in context_copies(true) {
        for src in sources {
            assert!(
                !ignored(&rules, &src),
                "the Dockerfile copies {src}, which .dockerignore leaves out of the context"
            );
            let path = root().join(&src);
            let files = if path.is_dir() {
                files_under(&path)
            } else {
                assert!(path.is_file(), "the Dockerfile copies {src}: no such file");
                vec![src.clone()]
            };
            for f in files.iter().filter(|f| !ignored(&rules, f)) {
                // `COPY a b ./`: files into the folder; `COPY src src`: the folder's contents
                // below `src`.
                let rel = if path.is_dir() {
                    format!("{}/{}", dest.trim_end_matches('/'), &f[src.len() + 1..])
                } else {
                    format!("{}/{}", dest.trim_end_matches('/'), f)
                };
                let rel = rel.trim_start_matches("./").to_string();
                let to = into.join(&rel);
                std::fs::create_dir_all(to.parent().unwrap()).unwrap();
                std::fs::copy(root().join(f), &to).unwrap();
                copied.push(rel);
            }
        }
    }
    copied.sort();
    copied
}

/// The files the crate's build reads: those Cargo.toml's `include` patterns select in the
/// checkout (what `cargo package` ships and crates.io builds).
fn crate_files() -> Vec<String> {
    let manifest = read("Cargo.toml");
    let list = between(&manifest, "include = [", &["]"]);
    let patterns: Vec<regex::Regex> = list
        .lines()
        .filter_map(|l| l.trim().strip_prefix('"'))
        .filter_map(|l| l.split('"').next())
        .map(glob)
        .collect();
    assert!(patterns.len() >= 5, "{list}");
    let mut files: Vec<String> = std::fs::read_dir(root())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file())
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    for dir in ["src", "rules"] {
        files.extend(files_under(&root().join(dir)));
    }
    files.retain(|f| patterns.iter().any(|p| p.is_match(f)));
    files.sort();
    files
}

/// The context holds every file the build reads (build.rs among them), and the final stage's
/// `COPY` sources (the licences) are in the context too.
#[test]
fn the_image_context_holds_what_the_build_reads() {
    let tmp = tempfile::tempdir().unwrap();
    let copied = assemble_context(tmp.path());
    let needed = crate_files();
    for f in [
        "build.rs",
        "Cargo.toml",
        "Cargo.lock",
        "src/main.rs",
        "src/lib.rs",
    ] {
        assert!(needed.iter().any(|n| n == f), "{f} not in {needed:?}");
    }
    let missing: Vec<&String> = needed.iter().filter(|f| !copied.contains(f)).collect();
    assert!(
        missing.is_empty(),
        "the image's build context lacks what the crate's build reads: {missing:?}"
    );
    // Nothing the build does not need (tests, test data, CI files) goes into the image's build.
    let extra: Vec<&String> = copied.iter().filter(|f| !needed.contains(f)).collect();
    assert!(extra.is_empty(), "{extra:?}");
    let rules = dockerignore();
    for (sources, _) in context_copies(false) {
        for src in sources {
            assert!(!ignored(&rules, &src), "{src} is left out of the context");
            assert!(root().join(&src).is_file(), "{src}");
        }
    }
}

#[test]
fn dockerignore_is_read_as_docker_reads_it() {
    let rules = vec![
        (false, glob("*")),
        (true, glob("src/")),
        (true, glob("Cargo.toml")),
        (false, glob("src/**/*.bak")),
    ];
    assert!(ignored(&rules, "tests/cli.rs"));
    assert!(ignored(&rules, "build.rs"));
    assert!(!ignored(&rules, "Cargo.toml"));
    assert!(!ignored(&rules, "src/main.rs"));
    assert!(!ignored(&rules, "src/a/b.rs"));
    assert!(ignored(&rules, "src/a/b.bak"));
    assert!(ignored(&rules, "src/x.bak"));
}

/// The Dockerfile's cargo command and `RUSTFLAGS`, and the target it builds for: the musl
/// target of this machine's architecture, as the image builds, or where that target is not
/// installed (`rustup target add` needs the Rust distribution server) the host's gnu target
/// with the same flags, which shows as well that nothing in the dependency tree needs a
/// shared C library.
fn dockerfile_build() -> (String, String, String) {
    let docker = read("Dockerfile");
    let flags = between(&docker, "ENV RUSTFLAGS=", &["\n"])
        .trim_start_matches("ENV RUSTFLAGS=")
        .trim_matches('"')
        .to_string();
    let cmd = between(&docker, "cargo build", &[" \\\n", " &&", "\n"]).to_string();
    let arch = std::env::consts::ARCH;
    let musl = format!("{arch}-unknown-linux-musl");
    let installed = Command::new("rustc")
        .args(["--print", "target-libdir", "--target", &musl])
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| PathBuf::from(String::from_utf8_lossy(&o.stdout).trim()))
        .is_some_and(|d| d.is_dir());
    let target = if installed {
        musl
    } else {
        eprintln!(
            "the {musl} target is not installed here (rustup target add {musl}); building {arch}-unknown-linux-gnu with the same flags instead"
        );
        format!("{arch}-unknown-linux-gnu")
    };
    (flags, cmd, target)
}

#[test]
fn the_dockerfile_builds_a_static_binary_for_its_own_target() {
    let docker = read("Dockerfile");
    let (flags, cmd, _) = dockerfile_build();
    assert!(flags.contains("+crt-static"), "{flags}");
    // crt-static reaches proc-macro crates unless the target is given.
    assert!(cmd.contains("--target \"$target\""), "{cmd}");
    assert!(
        cmd.contains("--locked") && cmd.contains("--release"),
        "{cmd}"
    );
    // It builds for musl on the machine's own architecture, and copies the binary from where
    // that target puts it.
    assert!(docker.contains("target=\"$(uname -m)-unknown-linux-musl\""));
    assert!(docker.contains("cp \"target/$target/release/taintlint\" /taintlint"));
    // .ci/static-build runs the build below, and .ci/run runs it.
    let script = read(".ci/static-build");
    assert!(
        script.contains("the_image_context_builds_with_the_dockerfiles_command"),
        "{script}"
    );
    assert!(
        read(".ci/run")
            .lines()
            .any(|l| l.trim() == ".ci/static-build")
    );
}

/// The context, built with the Dockerfile's cargo command and flags into `target/static`
/// (its dependencies built once and reused), gives a static binary that runs. A release build:
/// `.ci/static-build` runs it (`cargo test --test docker -- --ignored`), not every
/// `cargo test`.
#[test]
#[ignore = "a release build of a few minutes: .ci/static-build runs it"]
fn the_image_context_builds_with_the_dockerfiles_command() {
    let tmp = tempfile::tempdir().unwrap();
    let context = tmp.path().join("build");
    assemble_context(&context);
    let (flags, cmd, target) = dockerfile_build();
    let target_dir = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .filter(|d| d.ends_with("static"))
        .unwrap_or_else(|| root().join("target/static"));
    eprintln!(
        "building {} with RUSTFLAGS=\"{flags}\": {cmd}",
        context.display()
    );
    let status = Command::new("sh")
        .arg("-c")
        .arg(format!("target={target} && {cmd}"))
        .current_dir(&context)
        .env("RUSTFLAGS", &flags)
        .env("CARGO_TARGET_DIR", &target_dir)
        .env_remove("CARGO_BUILD_TARGET")
        .env_remove("RUSTC_WRAPPER")
        .status()
        .unwrap();
    assert!(status.success(), "the Dockerfile's build failed: {status}");
    let bin = target_dir.join(&target).join("release/taintlint");
    let out = Command::new(&bin).arg("--version").output().unwrap();
    let version = String::from_utf8_lossy(&out.stdout);
    // No git checkout in the context: the version alone.
    assert_eq!(
        version.trim(),
        format!("taintlint {}", env!("CARGO_PKG_VERSION")),
        "{}",
        bin.display()
    );
    if let Ok(ldd) = Command::new("ldd").arg(&bin).output() {
        let text = String::from_utf8_lossy(&ldd.stdout).into_owned()
            + &String::from_utf8_lossy(&ldd.stderr);
        assert!(
            !text.contains("=>"),
            "{} is dynamically linked:\n{text}",
            bin.display()
        );
    }
    eprintln!("{} ({target}) is static: {}", bin.display(), version.trim());
}

#[test]
fn the_image_runs_as_a_non_root_user_with_a_tmp() {
    let docker = read("Dockerfile");
    let last = &docker[docker.rfind("\nFROM ").unwrap()..];
    assert!(last.starts_with("\nFROM scratch"), "{last}");
    let user = between(last, "\nUSER ", &["\n"])
        .trim_start_matches("USER ")
        .to_string();
    let uid = user.split(':').next().unwrap();
    assert!(
        uid.parse::<u32>().is_ok_and(|u| u != 0),
        "a numeric non-root user (scratch has no /etc/passwd): {user}"
    );
    // The user comes before the entry point, so every command runs as it.
    assert!(last.find("\nUSER ").unwrap() < last.find("\nENTRYPOINT").unwrap());
    // /tmp: made sticky and world-writable in the build stage, copied in whole.
    assert!(docker.contains("chmod 1777 /rootfs/tmp"), "{docker}");
    assert!(last.contains("COPY --from=build /rootfs/ /"), "{last}");
    assert!(last.contains("WORKDIR /src"));
}
