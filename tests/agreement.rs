//! `check` and `explain` agree on every workload: where `explain` says no node pool can run a
//! pod ("Node pools: 0 of N"), `check` reports `unschedulable-workload` for it (counting the
//! same N pools), or `explain` says why `check` does not; and `check` reports no pod that
//! `explain` says a pool can run. Walked over every scenario of `testdata/scenarios/` and,
//! where `../shared/realworld` is beside the checkout (or `TAINTLINT_REALWORLD` names the
//! folder), over the twenty whole repositories; that part skips, saying so, when absent.
//! A DaemonSet that `check` says runs on K of N pools (`daemonset-misses-pools`) is one
//! `explain` says K of N pools can run.

#![allow(clippy::unwrap_used)] // tests may unwrap

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use clap::Parser;
use serde_json::Value;
use taintlint::cli::{Cli, Command};

/// A workload as both commands name it: (file, kind, namespace, name, spec path).
type Key = (String, String, String, String, String);

/// What `check DIR --isolated --format json` says: the `unschedulable-workload` findings, with
/// the pool count of their message, and the `daemonset-misses-pools` findings, with the pools
/// their message says the DaemonSet runs on and the pools counted.
struct Checked {
    unschedulable: BTreeMap<Key, usize>,
    daemonsets: BTreeMap<Key, (usize, usize)>,
}

fn checked(dir: &str) -> Checked {
    let cli =
        Cli::try_parse_from(["taintlint", "check", dir, "--isolated", "--format", "json"]).unwrap();
    let mut out = Vec::new();
    taintlint::run(cli, &mut out).unwrap();
    let report: Value = serde_json::from_slice(&out).unwrap();
    let mut found = BTreeMap::new();
    let mut daemonsets = BTreeMap::new();
    for f in report["findings"].as_array().unwrap() {
        let daemonset = f["rule"] == "daemonset-misses-pools";
        if f["rule"] != "unschedulable-workload" && !daemonset {
            continue;
        }
        let o = &f["object"];
        let text = |v: &Value| v.as_str().unwrap_or("").to_string();
        let key = (
            text(&f["file"]),
            text(&o["kind"]),
            text(&o["namespace"]),
            text(&o["name"]),
            text(&f["field"]),
        );
        let message = text(&f["message"]);
        if daemonset {
            // `DaemonSet runs on K/N node pools; not on: …`
            let counts = message
                .split_once(" runs on ")
                .and_then(|(_, m)| m.split(' ').next())
                .and_then(|n| n.split_once('/'))
                .and_then(|(k, n)| Some((k.parse().ok()?, n.parse().ok()?)))
                .unwrap_or_else(|| panic!("{message}"));
            daemonsets.insert(key, counts);
            continue;
        }
        // `0/N node pools ... can run this pod`
        let total = message
            .strip_prefix("0/")
            .and_then(|m| m.split(' ').next())
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("{message}"));
        found.insert(key, total);
    }
    Checked {
        unschedulable: found,
        daemonsets,
    }
}

/// What `explain DIR --isolated` says of every workload: the keys of those no pool can run
/// (with the pool count) that `explain` does not say `check` is silent about, of those some
/// pool can run, and every workload's (pools that can run it, pools counted).
struct Explained {
    none: BTreeMap<Key, usize>,
    some: BTreeSet<Key>,
    counts: BTreeMap<Key, (usize, usize)>,
}

fn explained(dir: &str) -> Explained {
    let cli = Cli::try_parse_from(["taintlint", "explain", dir, "--isolated"]).unwrap();
    let Command::Explain(args) = cli.command else {
        unreachable!()
    };
    let (view, opts) = taintlint::commands::run_view(&args.input).unwrap();
    let mut out = Explained {
        none: BTreeMap::new(),
        some: BTreeSet::new(),
        counts: BTreeMap::new(),
    };
    // Each inferred cluster is a view of its own (its files against its own pools).
    for view in std::iter::once(&view).chain(&view.clusters) {
        explain_view(view, &opts, &mut out);
    }
    out
}

fn explain_view(
    view: &taintlint::engine::View,
    opts: &taintlint::engine::LintOptions,
    out: &mut Explained,
) {
    if view.inventory.pools.is_empty() {
        return;
    }
    for (i, w) in view.workloads.iter().enumerate() {
        let text =
            taintlint::report::explain::render(view, &[i], opts.settings.comparison_operators);
        let line = text
            .lines()
            .find_map(|l| l.strip_prefix("Node pools: "))
            .unwrap_or_else(|| panic!("{text}"));
        let (ok, total) = line
            .strip_suffix(" can run this pod")
            .and_then(|l| l.split_once(" of "))
            .unwrap_or_else(|| panic!("{line}"));
        let (ok, total): (usize, usize) = (ok.parse().unwrap(), total.parse().unwrap());
        let key = (
            w.source.name.to_string(),
            w.object.kind.clone(),
            w.object.namespace.clone().unwrap_or_default(),
            w.object.name.clone().unwrap_or_default(),
            w.spec_path.to_string(),
        );
        out.counts.insert(key.clone(), (ok, total));
        if ok > 0 {
            out.some.insert(key);
        } else if !text.contains("(`check` does not report this: ") {
            out.none.insert(key, total);
        }
    }
}

/// The disagreements of the two commands on `dir`, how many workloads both judged
/// unschedulable, and how many DaemonSets' counts were compared.
fn disagreements(dir: &str) -> (Vec<String>, usize, usize) {
    let Checked {
        unschedulable: check,
        daemonsets,
    } = checked(dir);
    let Explained { none, some, counts } = explained(dir);
    eprintln!(
        "{dir}: {} unschedulable by check, {} by explain, {} schedulable",
        check.len(),
        none.len(),
        some.len()
    );
    let mut problems = Vec::new();
    let both = none
        .keys()
        .filter(|k| check.contains_key(*k) && !some.contains(*k))
        .count();
    for (key, total) in &none {
        match check.get(key) {
            None => problems.push(format!(
                "{dir}: explain says 0 of {total} pools can run {key:?}, check is silent and explain does not say why"
            )),
            Some(n) if n != total => problems.push(format!(
                "{dir}: explain counts {total} pools for {key:?}, check {n}"
            )),
            Some(_) => {}
        }
    }
    for key in check.keys() {
        if !none.contains_key(key) {
            problems.push(format!(
                "{dir}: check reports {key:?} unschedulable, explain does not say 0 pools can run it"
            ));
        }
    }
    for (key, runs) in &daemonsets {
        if counts.get(key) != Some(runs) {
            problems.push(format!(
                "{dir}: check says {key:?} runs on {}/{} pools, explain says {:?}",
                runs.0,
                runs.1,
                counts.get(key)
            ));
        }
    }
    (problems, both, daemonsets.len())
}

#[test]
fn check_and_explain_agree_on_the_scenarios() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/scenarios");
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    let mut problems = Vec::new();
    let mut judged = 0;
    let mut daemonsets = 0;
    for dir in &dirs {
        // A scenario run with other arguments (`args.txt`) is not the plain folder.
        if dir.join("args.txt").is_file() {
            continue;
        }
        let (p, both, ds) = disagreements(&dir.to_string_lossy());
        problems.extend(p);
        judged += both;
        daemonsets += ds;
    }
    assert!(judged > 10, "{judged}");
    assert!(daemonsets >= 2, "{daemonsets}");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// `../shared/realworld` beside the checkout, or the folder `TAINTLINT_REALWORLD` names.
fn whole_trees() -> Option<PathBuf> {
    let dir = std::env::var_os("TAINTLINT_REALWORLD").map_or_else(
        || Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/realworld"),
        PathBuf::from,
    );
    dir.join("SOURCES.md").is_file().then_some(dir)
}

#[test]
fn check_and_explain_agree_on_whole_repositories() {
    let Some(dir) = whole_trees() else {
        eprintln!(
            "skipped: ../shared/realworld is absent (a bare clone); CI runs this test with ../shared beside the checkout"
        );
        return;
    };
    let mut repos: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    repos.sort();
    let mut problems = Vec::new();
    for repo in &repos {
        problems.extend(disagreements(&repo.to_string_lossy()).0);
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
