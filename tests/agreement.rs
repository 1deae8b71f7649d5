//! `check` and `explain` agree on every workload: where `explain` says no node pool can run a
//! pod ("Node pools: 0 of N"), `check` reports `unschedulable-workload` for it (counting the
//! same N pools), or `explain` says why `check` does not; and `check` reports no pod that
//! `explain` says a pool can run. Walked over every scenario of `testdata/scenarios/` and,
//! where `../shared/realworld` is beside the checkout (or `TAINTLINT_REALWORLD` names the
//! folder), over the twenty whole repositories; that part skips, saying so, when absent.

#![allow(clippy::unwrap_used)] // tests may unwrap

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use clap::Parser;
use serde_json::Value;
use taintlint::cli::{Cli, Command};

/// A workload as both commands name it: (file, kind, namespace, name, spec path).
type Key = (String, String, String, String, String);

/// `check DIR --isolated --format json`: the `unschedulable-workload` findings, with the pool
/// count of their message.
fn checked(dir: &str) -> BTreeMap<Key, usize> {
    let cli =
        Cli::try_parse_from(["taintlint", "check", dir, "--isolated", "--format", "json"]).unwrap();
    let mut out = Vec::new();
    taintlint::run(cli, &mut out).unwrap();
    let report: Value = serde_json::from_slice(&out).unwrap();
    let mut found = BTreeMap::new();
    for f in report["findings"].as_array().unwrap() {
        if f["rule"] != "unschedulable-workload" {
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
        // `0/N node pools ... can run this pod`
        let message = text(&f["message"]);
        let total = message
            .strip_prefix("0/")
            .and_then(|m| m.split(' ').next())
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("{message}"));
        found.insert(key, total);
    }
    found
}

/// `explain DIR --isolated` of every workload: the keys of those no pool can run (with the
/// pool count) that `explain` does not say `check` is silent about, and of those some pool can
/// run.
fn explained(dir: &str) -> (BTreeMap<Key, usize>, BTreeSet<Key>) {
    let cli = Cli::try_parse_from(["taintlint", "explain", dir, "--isolated"]).unwrap();
    let Command::Explain(args) = cli.command else {
        unreachable!()
    };
    let (view, opts) = taintlint::commands::run_view(&args.input).unwrap();
    let (mut none, mut some) = (BTreeMap::new(), BTreeSet::new());
    // Each inferred cluster is a view of its own (its files against its own pools).
    for view in std::iter::once(&view).chain(&view.clusters) {
        explain_view(view, &opts, &mut none, &mut some);
    }
    (none, some)
}

fn explain_view(
    view: &taintlint::engine::View,
    opts: &taintlint::engine::LintOptions,
    none: &mut BTreeMap<Key, usize>,
    some: &mut BTreeSet<Key>,
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
        if ok > 0 {
            some.insert(key);
        } else if !text.contains("(`check` does not report this: ") {
            none.insert(key, total);
        }
    }
}

/// The disagreements of the two commands on `dir`, and how many workloads both judged
/// unschedulable.
fn disagreements(dir: &str) -> (Vec<String>, usize) {
    let check = checked(dir);
    let (none, some) = explained(dir);
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
    (problems, both)
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
    for dir in &dirs {
        // A scenario run with other arguments (`args.txt`) is not the plain folder.
        if dir.join("args.txt").is_file() {
            continue;
        }
        let (p, both) = disagreements(&dir.to_string_lossy());
        problems.extend(p);
        judged += both;
    }
    assert!(judged > 10, "{judged}");
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
