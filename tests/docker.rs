//! The Dockerfile without a Docker engine: its build is the cargo command `.ci/static-build`
//! runs in `.ci/run` (the same RUSTFLAGS, the same command, with the `--target` that keeps
//! `+crt-static` off the proc-macro crates), and its image runs as a non-root user with a
//! `/tmp`. See: issue 32.

#![allow(clippy::unwrap_used)] // tests may unwrap

mod common;

fn read(path: &str) -> String {
    std::fs::read_to_string(common::cli::root().join(path)).unwrap()
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

#[test]
fn static_build_runs_the_dockerfiles_cargo_command() {
    let docker = read("Dockerfile");
    let script = read(".ci/static-build");
    let flags = between(&docker, "ENV RUSTFLAGS=", &["\n"]).trim_start_matches("ENV ");
    let script_flags = between(&script, "export RUSTFLAGS=", &["\n"]).trim_start_matches("export ");
    assert_eq!(flags, script_flags);
    assert!(flags.contains("+crt-static"), "{flags}");
    let cmd = between(&docker, "cargo build", &[" \\\n", " &&", "\n"]);
    let script_cmd = between(&script, "\ncargo build", &["\n"]);
    assert_eq!(cmd, script_cmd);
    // crt-static reaches proc-macro crates unless the target is given.
    assert!(cmd.contains("--target \"$target\""), "{cmd}");
    assert!(
        cmd.contains("--locked") && cmd.contains("--release"),
        "{cmd}"
    );
    // Both build for musl on the machine's own architecture, and the Dockerfile copies the
    // binary from where that target puts it.
    assert!(docker.contains("target=\"$(uname -m)-unknown-linux-musl\""));
    assert!(script.contains("target=$arch-unknown-linux-musl"));
    assert!(docker.contains("cp \"target/$target/release/taintlint\" /taintlint"));
    // .ci/run runs it.
    assert!(
        read(".ci/run")
            .lines()
            .any(|l| l.trim() == ".ci/static-build")
    );
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
