//! The differential suite against kubectl's reader (issue 35): every YAML and JSON file of
//! `testdata/` and of `../shared/realworld` (twenty whole public repositories) is read by
//! kubectl and by taintlint, and the two must agree on each file: both read it, with the same
//! number of documents, or both refuse it (with the same number of documents read before the
//! error).
//!
//! kubectl reads without a cluster: `kubectl apply --dry-run=client --validate=false -f FILE`
//! decodes every document of FILE (`resource.Builder`'s `StreamVisitor`:
//! `yaml.NewYAMLOrJSONDecoder`, then `sigs.k8s.io/yaml` per document), then asks the API server
//! what each object is, which fails with no server: one `unable to recognize "FILE"` per object,
//! one `unable to decode "FILE"` per document that is no object (no `kind`, a list, a scalar),
//! and `error parsing FILE: …` where the stream cannot be read; empty and `null` documents
//! are skipped, and reading a file stops at its first error. The server is an address nothing
//! listens on and the config file one that does not exist, so nothing outside `target/` is
//! read or written and no real cluster is ever asked.
//!
//! taintlint "reads" a file when it reports none of the findings that say it could not: a
//! `yaml-syntax-error`, `invalid-encoding`, `unreadable-file` or `yaml-too-complex`, or a
//! `template-not-rendered` that says the file is "not YAML" (a Helm template that does not
//! parse). Its document count is the engine's (`FileReport::documents`), with `--full-parse`
//! (every document parsed, none skipped after a line scan) and the Kubernetes version of the
//! kubectl on the machine.
//!
//! The test skips, saying so, where kubectl is not on the PATH (or `KUBECTL` names none) and,
//! for the real-world trees, where `../shared` is absent. kubectl runs on batches of files, as
//! many at once as there are cores: one process per file would take minutes, and one for a
//! whole tree slows down with the number of objects it holds.

#![allow(clippy::unwrap_used)] // tests may unwrap

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};

use taintlint::config::Config;
use taintlint::diagnostic::Finding;
use taintlint::engine::{Input, LintOptions, lint_one};
use taintlint::load::walk::Entry;

mod common;

/// What a reader made of a file.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Verdict {
    /// Documents read (before the error, if there is one).
    documents: usize,
    /// Why the file could not be read.
    error: Option<String>,
    /// No count of the documents read before the error to compare: taintlint took the file
    /// for an unrendered template (it reports that and nothing else), or it reports a value
    /// kubectl cannot decode and lints the documents after it.
    uncounted: bool,
    /// taintlint reported nothing at all of the file.
    silent: bool,
}

impl Verdict {
    fn agrees(&self, other: &Verdict) -> bool {
        self.error.is_some() == other.error.is_some()
            && (self.documents == other.documents || self.uncounted || other.uncounted)
    }

    fn show(&self) -> String {
        match &self.error {
            None => format!("reads {} document(s)", self.documents),
            Some(e) => format!("refuses after {} document(s): {e}", self.documents),
        }
    }
}

/// kubectl, from `KUBECTL` or the PATH, and its minor version: `None` when there is none.
fn kubectl() -> Option<(PathBuf, String)> {
    let exe = std::env::var_os("KUBECTL").map(PathBuf::from).or_else(|| {
        std::env::var_os("PATH").and_then(|paths| {
            std::env::split_paths(&paths)
                .map(|p| p.join("kubectl"))
                .find(|p| p.is_file())
        })
    })?;
    let out = Command::new(&exe)
        .args(["version", "--client", "-o", "json"])
        .env("KUBECONFIG", no_config())
        .output()
        .ok()?;
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).ok()?;
    let minor = v["clientVersion"]["minor"].as_str()?;
    let minor: String = minor.chars().take_while(char::is_ascii_digit).collect();
    Some((exe, format!("1.{minor}")))
}

/// A kubeconfig path that does not exist, in the test's own scratch directory.
fn no_config() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).join("kubectl-parity/no-kubeconfig")
}

/// The YAML and JSON files below `root` (the extensions `kubectl apply -R` reads), sorted; not
/// `*.tf.json`, Terraform's JSON syntax, which taintlint reads as Terraform does (as `.tf`
/// files), not as a manifest.
fn files_below(root: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = walkdir::WalkDir::new(root)
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file())
        .map(walkdir::DirEntry::into_path)
        .filter(|p| {
            p.extension()
                .is_some_and(|e| e == "yaml" || e == "yml" || e == "json")
                && !p.to_string_lossy().ends_with(".tf.json")
        })
        .collect();
    out.sort();
    out
}

/// Runs `work` on every item, as many at once as there are cores.
fn parallel<T: Sync, R: Send>(items: &[T], work: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let next = AtomicUsize::new(0);
    let workers = std::thread::available_parallelism().map_or(2, |n| n.get().min(8));
    let mut out: Vec<(usize, R)> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..workers)
            .map(|_| {
                s.spawn(|| {
                    let mut done = Vec::new();
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let Some(item) = items.get(i) else { break };
                        done.push((i, work(item)));
                    }
                    done
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap())
            .collect()
    });
    out.sort_by_key(|(i, _)| *i);
    out.into_iter().map(|(_, r)| r).collect()
}

/// How many files one kubectl process reads.
const BATCH: usize = 40;

/// kubectl's verdict on each file.
fn kubectl_verdicts(exe: &Path, files: &[PathBuf]) -> BTreeMap<PathBuf, Verdict> {
    let cache = Path::new(env!("CARGO_TARGET_TMPDIR")).join("kubectl-parity/cache");
    let batches: Vec<&[PathBuf]> = files.chunks(BATCH).collect();
    let outputs = parallel(&batches, |batch| {
        let mut cmd = Command::new(exe);
        cmd.args(["apply", "--dry-run=client", "--validate=false"])
            // Nothing listens on port 1: no cluster is ever asked.
            .args(["--server", "http://127.0.0.1:1"])
            .arg("--cache-dir")
            .arg(&cache)
            .env("KUBECONFIG", no_config());
        for f in *batch {
            cmd.arg("-f").arg(f);
        }
        let out = cmd.output().unwrap();
        let text = format!(
            "{}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        parse_kubectl(&text, batch)
    });
    let mut all = BTreeMap::new();
    for (batch, verdicts) in batches.iter().zip(outputs) {
        for f in *batch {
            all.insert(f.clone(), verdicts.get(f).cloned().unwrap_or_default());
        }
    }
    all
}

/// The verdicts kubectl's output gives the files of one batch. Each message starts a line;
/// a line that starts none continues the one before (a decode error quotes the document,
/// line breaks and all).
fn parse_kubectl(output: &str, batch: &[PathBuf]) -> BTreeMap<PathBuf, Verdict> {
    let names: Vec<(String, &PathBuf)> = batch
        .iter()
        .map(|p| (p.to_string_lossy().into_owned(), p))
        .collect();
    // The file a message names: the longest name it starts with, then the delimiter.
    let named = |rest: &str, after: &str| -> Option<&PathBuf> {
        names
            .iter()
            .filter(|(n, _)| {
                rest.strip_prefix(n.as_str())
                    .is_some_and(|r| r.starts_with(after))
            })
            .max_by_key(|(n, _)| n.len())
            .map(|(_, p)| *p)
    };
    let mut verdicts: BTreeMap<PathBuf, Verdict> = BTreeMap::new();
    for line in output.lines() {
        let line = line.strip_prefix("error: ").unwrap_or(line);
        let object = line
            .strip_prefix("unable to recognize \"")
            .or_else(|| line.strip_prefix("unable to decode \""));
        if let Some(rest) = object {
            let file = named(rest, "\"").unwrap_or_else(|| panic!("which file? {line}"));
            let v = verdicts.entry(file.clone()).or_default();
            assert!(v.error.is_none(), "a document after the error: {line}");
            v.documents += 1;
        } else if let Some(rest) = line.strip_prefix("error parsing ") {
            let file = named(rest, ": ").unwrap_or_else(|| panic!("which file? {line}"));
            let message = rest[file.to_string_lossy().len() + 2..].to_string();
            verdicts.entry(file.clone()).or_default().error = Some(message);
        } else if line.contains("memcache.go")
            || line == "no objects passed to apply"
            || line.starts_with("the path ")
        {
            // Discovery's log lines; a batch with no object at all.
            assert!(!line.starts_with("the path "), "{line}");
        }
        // Anything else continues the message before it.
    }
    verdicts
}

/// The rules whose finding says taintlint could not read the file.
const UNREADABLE: &[&str] = &[
    "yaml-syntax-error",
    "invalid-encoding",
    "unreadable-file",
    "yaml-too-complex",
];

/// taintlint's verdict on each file.
fn taintlint_verdicts(files: &[PathBuf], version: &str) -> BTreeMap<PathBuf, Verdict> {
    let mut opts =
        taintlint::options_from_config(&Config::default(), Some(version), None, &[], &[])
            .expect("options");
    opts.fast = false;
    opts.keep_sources = false;
    let opts: &LintOptions = &opts;
    let verdicts = parallel(files, |f| {
        let report = lint_one(Input::Entry(Entry::File(f.clone())), opts);
        let template =
            |x: &Finding| x.rule == "template-not-rendered" && x.message.contains("not YAML");
        // A file kubectl decodes although it is not UTF-8 is linted as kubectl decodes it.
        let decoded = |x: &Finding| {
            x.rule == "invalid-encoding"
                && x.help
                    .as_deref()
                    .is_some_and(|h| h.contains("kubectl reads"))
        };
        // A value go-yaml cannot turn into JSON (`.inf`, a tag that does not fit): kubectl
        // stops there; taintlint reports it and goes on with the documents after it.
        let undecodable = |x: &Finding| {
            x.rule == "yaml-type-mismatch" && x.message.contains("stops reading the file here")
        };
        let error = report
            .findings
            .iter()
            .find(|x| {
                (UNREADABLE.contains(&x.rule) && !decoded(x)) || template(x) || undecodable(x)
            })
            .map(|x| format!("{}: {}", x.rule, x.message));
        Verdict {
            documents: report.documents,
            error,
            uncounted: report
                .findings
                .iter()
                .any(|x| template(x) || undecodable(x)),
            silent: report.findings.is_empty(),
        }
    });
    files.iter().cloned().zip(verdicts).collect()
}

/// The one class of files kubectl refuses and taintlint reads on purpose: a JSON stream
/// (kubectl decodes a file that starts with `{` as JSON) that does not parse and names no
/// Kubernetes object (`apiVersion` and `kind` nowhere in it), such as a `tsconfig.json`
/// with trailing commas. kubectl is right that it cannot read it, but nobody applies it: it
/// is no manifest, and taintlint reports nothing of it, as of any JSON that holds no
/// Kubernetes object (a data set in JSON Lines, a package's metadata). It must have read what
/// kubectl read before the error, and said nothing.
fn not_a_manifest(file: &Path, kube: &Verdict, lint: &Verdict) -> bool {
    let json_error = kube
        .error
        .as_deref()
        .is_some_and(|e| e.starts_with("json: ") || e == "unexpected EOF");
    let names_objects =
        std::fs::read_to_string(file).is_ok_and(|t| t.contains("apiVersion") && t.contains("kind"));
    json_error
        && !names_objects
        && lint.error.is_none()
        && lint.silent
        && lint.documents == kube.documents
}

/// The disagreements on the files below `root` (named below it), the one class above left out.
fn disagreements(exe: &Path, version: &str, root: &Path) -> Vec<String> {
    let files = files_below(root);
    assert!(!files.is_empty(), "no files below {}", root.display());
    let kube = kubectl_verdicts(exe, &files);
    let lint = taintlint_verdicts(&files, version);
    let mut out = Vec::new();
    for f in &files {
        let (k, t) = (&kube[f], &lint[f]);
        let below = f.strip_prefix(root).unwrap_or(f).to_string_lossy();
        if k.agrees(t) || not_a_manifest(f, k, t) {
            continue;
        }
        out.push(format!(
            "{below}\n    kubectl:   {}\n    taintlint: {}",
            k.show(),
            t.show()
        ));
    }
    eprintln!(
        "{}: {} files, {} disagreements",
        root.display(),
        files.len(),
        out.len()
    );
    out
}

#[test]
fn testdata_reads_as_kubectl_reads_it() {
    let Some((exe, version)) = kubectl() else {
        eprintln!("skipped: no kubectl on the PATH (set KUBECTL to one)");
        return;
    };
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata");
    let problems = disagreements(&exe, &version, &root);
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn real_world_trees_read_as_kubectl_reads_them() {
    let Some((exe, version)) = kubectl() else {
        eprintln!("skipped: no kubectl on the PATH (set KUBECTL to one)");
        return;
    };
    let Some(root) = common::realworld_trees() else {
        eprintln!(
            "skipped: ../shared/realworld is absent (a bare clone; TAINTLINT_REALWORLD may name the trees elsewhere); CI runs this test with ../shared beside the checkout"
        );
        return;
    };
    let problems = disagreements(&exe, &version, &root);
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
