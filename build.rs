//! Puts the commit taintlint is built from into `--version` (`taintlint 0.1.0 (1a2b3c4d5e6f)`),
//! when it is built from a git checkout; a build from the crates.io package says the version
//! alone.

use std::process::Command;

fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git").args(args).output().ok()?;
    let text = String::from_utf8(out.stdout).ok()?;
    let text = text.trim();
    (out.status.success() && !text.is_empty()).then(|| text.to_string())
}

fn main() {
    let version = env!("CARGO_PKG_VERSION");
    // Only this crate's own checkout counts: not a repository it happens to be unpacked in.
    let manifest = std::env::var("CARGO_MANIFEST_DIR").unwrap_or_default();
    let top = git(&["-C", &manifest, "rev-parse", "--show-toplevel"]);
    let own =
        top.is_some_and(|t| std::fs::canonicalize(t).ok() == std::fs::canonicalize(&manifest).ok());
    let commit = own
        .then(|| git(&["-C", &manifest, "rev-parse", "--short=12", "HEAD"]))
        .flatten();
    match &commit {
        Some(c) => println!("cargo:rustc-env=TAINTLINT_VERSION={version} ({c})"),
        None => println!("cargo:rustc-env=TAINTLINT_VERSION={version}"),
    }
    // A new commit or checkout rebuilds with its hash. Only files that exist are watched:
    // cargo reruns a build script on every build for a watched file that is missing (a
    // checkout without `packed-refs`), which relinked the release binary each time. When a
    // loose ref is packed away, its file goes missing once, and the next run watches
    // `packed-refs` instead.
    let watch = |path: &str| {
        if let Some(p) = git(&["-C", &manifest, "rev-parse", "--git-path", path]) {
            let p = std::path::Path::new(&manifest).join(p);
            if p.exists() {
                println!("cargo:rerun-if-changed={}", p.display());
            }
        }
    };
    watch("HEAD");
    watch("packed-refs");
    if let Some(r) = git(&["-C", &manifest, "symbolic-ref", "-q", "HEAD"]) {
        watch(&r);
    }
    println!("cargo:rerun-if-changed=build.rs");
}
