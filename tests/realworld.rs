//! The real-repository regression suite: manifests of public repositories taintlint was not
//! written against (`testdata/realworld/<owner>__<repo>/`, with their licences and
//! `SOURCES.md`), linted as a new user would (`taintlint check <repo> --isolated`), and every
//! error and warning judged by hand in `testdata/realworld/JUDGED.md` and `judged.tsv`.
//!
//! The test fails when a judged true positive disappears, when a judged false positive comes
//! back, or when an error or warning appears that nobody judged (judge it, then add its row).
//!
//! The same holds for whole repositories: `../shared/realworld/<owner>__<repo>/` has every
//! manifest-like file of twenty public repositories, linted at each one's root as a user runs
//! the tool (`taintlint check .`), judged in `testdata/realworld/judged-whole.tsv`. That test
//! skips, saying so, where `../shared` is absent (a user's bare clone).

#![allow(clippy::unwrap_used)] // tests may unwrap

use std::collections::BTreeSet;
use std::path::Path;

use serde_json::Value;

mod common;

/// (repo, rule, file below the repo folder, line).
type Key = (String, String, String, u64);

fn suite() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/realworld")
}

/// The judged rows of `judged.tsv`: (key, verdict).
fn judged() -> Vec<(Key, String)> {
    judged_in("judged.tsv", 5)
}

/// The judged rows of a verdict table with `columns` columns (repo, rule, file, line, verdict
/// and, in `judged-whole.tsv`, the reason).
fn judged_in(table: &str, columns: usize) -> Vec<(Key, String)> {
    let text = std::fs::read_to_string(suite().join(table)).unwrap();
    text.lines()
        .skip(1)
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let cols: Vec<&str> = l.split('\t').collect();
            assert_eq!(cols.len(), columns, "{table}: {l}");
            assert!(
                columns < 6 || !cols[5].trim().is_empty(),
                "{table}: a verdict without its reason: {l}"
            );
            let line = cols[3].parse().unwrap_or_else(|_| panic!("{table}: {l}"));
            (
                (
                    cols[0].to_string(),
                    cols[1].to_string(),
                    cols[2].to_string(),
                    line,
                ),
                cols[4].to_string(),
            )
        })
        .collect()
}

/// The repositories of the suite.
fn repos() -> Vec<String> {
    let mut repos: Vec<String> = std::fs::read_dir(suite())
        .unwrap()
        .map(|e| e.unwrap())
        .filter(|e| e.path().is_dir())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        // The precision audits' verdicts (see `audit_verdicts_are_well_formed`), no repository.
        .filter(|name| name != "audits")
        .collect();
    repos.sort();
    repos
}

/// The committed verdicts of the precision audits on repositories never used here
/// (`testdata/realworld/audits/YYYY-MM-DD-roundN.tsv`, one row per error and warning): the
/// columns the issue names, a verdict of `TP`, `FP` or `debatable`, a repository as
/// `OWNER/NAME@COMMIT`, and a reason.
#[test]
fn audit_verdicts_are_well_formed() {
    let dir = suite().join("audits");
    let mut rounds = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if !name.ends_with(".tsv") {
            continue;
        }
        rounds += 1;
        let (date, round) = name.trim_end_matches(".tsv").split_at(10);
        assert!(
            date.len() == 10 && date.as_bytes()[4] == b'-',
            "{name}: not YYYY-MM-DD-roundN"
        );
        assert!(round.starts_with("-round"), "{name}: not YYYY-MM-DD-roundN");
        let text = std::fs::read_to_string(&path).unwrap();
        let mut lines = text.lines();
        assert_eq!(
            lines.next(),
            Some("repo\tfile\tline\trule\tseverity\tverdict\treason"),
            "{name}: header"
        );
        for (i, line) in lines.enumerate() {
            let cols: Vec<&str> = line.split('\t').collect();
            let at = format!("{name}:{}", i + 2);
            assert_eq!(cols.len(), 7, "{at}: {line}");
            let (repo, commit) = cols[0]
                .split_once('@')
                .unwrap_or_else(|| panic!("{at}: repo"));
            assert!(repo.contains('/'), "{at}: repo {repo}");
            assert!(
                commit.len() == 40 && commit.bytes().all(|b| b.is_ascii_hexdigit()),
                "{at}: commit {commit}"
            );
            assert!(cols[2].parse::<usize>().is_ok(), "{at}: line");
            assert!(
                taintlint::rules::find(cols[3]).is_some(),
                "{at}: rule {}",
                cols[3]
            );
            assert!(matches!(cols[4], "error" | "warning"), "{at}: severity");
            assert!(
                matches!(cols[5], "TP" | "FP" | "debatable"),
                "{at}: verdict"
            );
            assert!(!cols[6].trim().is_empty(), "{at}: reason");
        }
    }
    assert!(rounds >= 1, "no audit round in {}", dir.display());
}

/// The errors and warnings of one repository, as a new user gets them.
fn findings(repo: &str) -> BTreeSet<Key> {
    let out = common::cli::taintlint(&["check", repo, "--format", "json", "--isolated"])
        .in_dir(&suite())
        .run();
    keys(repo, &out)
}

/// The errors and warnings of a run's JSON report, keyed by repository.
fn keys(repo: &str, out: &common::cli::Run) -> BTreeSet<Key> {
    assert!(matches!(out.code, 0 | 1), "{repo}: {}", out.stderr);
    let v: Value = serde_json::from_str(&out.stdout).unwrap();
    v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["severity"] == "error" || f["severity"] == "warning")
        .map(|f| {
            let file = f["file"].as_str().unwrap();
            let below = file
                .strip_prefix(repo)
                .and_then(|r| r.strip_prefix('/'))
                .unwrap_or(file);
            (
                repo.to_string(),
                f["rule"].as_str().unwrap().to_string(),
                below.to_string(),
                f["line"].as_u64().unwrap_or(0),
            )
        })
        .collect()
}

#[test]
fn every_repository_has_its_licence_and_source() {
    let sources = std::fs::read_to_string(suite().join("SOURCES.md")).unwrap();
    let repos = repos();
    assert!(
        repos.len() >= 6,
        "the suite has {} repositories",
        repos.len()
    );
    for repo in repos {
        assert!(
            suite().join(&repo).join("LICENSE").is_file(),
            "{repo}: no LICENSE"
        );
        let name = repo.replacen("__", "/", 1);
        assert!(sources.contains(&name), "{repo}: not in SOURCES.md");
    }
}

#[test]
fn judged_findings_stay_judged() {
    let mut seen: BTreeSet<Key> = BTreeSet::new();
    for repo in repos() {
        seen.extend(findings(&repo));
    }
    let problems = compare(&judged(), &seen);
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// `../shared/realworld`, where CI has it beside the checkout (or the folder
/// `TAINTLINT_REALWORLD` names, for a worktree elsewhere); `None` in a bare clone.
fn whole_trees() -> Option<std::path::PathBuf> {
    common::realworld_trees()
}

/// Twenty whole repositories, each linted at its root as a user runs the tool
/// (`taintlint check .`, no config), against the verdicts of `judged-whole.tsv`. The
/// repositories are linted side by side (a debug build takes a few seconds for the 38 MB).
#[test]
fn whole_repositories_stay_judged() {
    let Some(dir) = whole_trees() else {
        eprintln!(
            "skipped: ../shared/realworld is absent (a bare clone; TAINTLINT_REALWORLD may name the trees elsewhere); CI runs this test with ../shared beside the checkout"
        );
        return;
    };
    let mut repos: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap())
        .filter(|e| e.path().is_dir())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    repos.sort();
    assert!(repos.len() >= 20, "{} repositories", repos.len());
    let next = std::sync::atomic::AtomicUsize::new(0);
    let workers = std::thread::available_parallelism().map_or(2, |n| n.get().min(4));
    let seen: BTreeSet<Key> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..workers)
            .map(|_| {
                s.spawn(|| {
                    let mut seen = BTreeSet::new();
                    loop {
                        let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        let Some(repo) = repos.get(i) else { break };
                        let out = common::cli::taintlint(&[
                            "check",
                            ".",
                            "--format",
                            "json",
                            "--isolated",
                        ])
                        .in_dir(&dir.join(repo))
                        .run();
                        seen.extend(keys(repo, &out));
                    }
                    seen
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap())
            .collect()
    });
    let judged = judged_in("judged-whole.tsv", 6);
    // Precision per rule, as the README reports it (true positives among what is reported).
    let mut per_rule: std::collections::BTreeMap<&str, (usize, usize)> = Default::default();
    for (key, verdict) in &judged {
        if seen.contains(key) {
            let e = per_rule.entry(key.1.as_str()).or_default();
            e.1 += 1;
            e.0 += usize::from(verdict.starts_with("TP"));
        }
    }
    for (rule, (tp, all)) in &per_rule {
        eprintln!("{rule}: {tp}/{all} true positives");
    }
    let problems = compare(&judged, &seen);
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// What is wrong with the findings `seen` against the verdicts: a true positive gone, a false
/// positive back, a finding nobody judged. Verdicts: `TP` must be reported, `FP` must not be;
/// `TP-elsewhere` is a true positive now reported by another rule on its line (that line must
/// keep a finding); `FP-open` a false positive the current build still reports (judged, not
/// fixed yet); `unclear` is only judged.
fn compare(judged: &[(Key, String)], seen: &BTreeSet<Key>) -> Vec<String> {
    let mut problems = Vec::new();
    let judged_keys: BTreeSet<&Key> = judged.iter().map(|(k, _)| k).collect();
    for (key, verdict) in judged {
        let present = seen.contains(key);
        // Another rule's finding on the same line of the same file.
        let elsewhere = || {
            seen.iter()
                .any(|k| (&k.0, &k.2, k.3) == (&key.0, &key.2, key.3))
        };
        match verdict.as_str() {
            "TP" if !present => problems.push(format!("a true positive disappeared: {key:?}")),
            "TP-elsewhere" if !elsewhere() => problems.push(format!(
                "a true positive disappeared (no rule reports its line any more): {key:?}"
            )),
            "FP" if present => problems.push(format!("a false positive came back: {key:?}")),
            "TP" | "FP" | "unclear" | "TP-elsewhere" | "FP-open" => {}
            other => problems.push(format!("unknown verdict `{other}` for {key:?}")),
        }
    }
    for key in seen {
        if !judged_keys.contains(key) {
            problems.push(format!(
                "not judged yet (judge it by hand, then add it to JUDGED.md and judged.tsv or judged-whole.tsv): {key:?}"
            ));
        }
    }
    problems
}
