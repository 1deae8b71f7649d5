//! Per-rule fixtures: `testdata/rules/<rule>/{valid,invalid}.yaml`, linted with only that rule
//! selected. `valid.yaml` must produce none of the rule's findings; in `invalid.yaml` the set of
//! lines where the rule's findings start must equal the set of lines marked
//! `# expect: <rule>`. The human output and a compact `line:col rule field | api_error` listing
//! of every invalid fixture are snapshotted.

use std::collections::BTreeSet;

mod common;
use std::path::{Path, PathBuf};

use taintlint::diagnostic::Finding;
use taintlint::report::{self, Format, HumanOptions, Summary};
use taintlint::rules::{RULES, RuleSet};

fn rules_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("testdata/rules")
}

/// Every fixture directory, sorted by name.
fn fixture_dirs() -> Vec<(String, PathBuf)> {
    let mut dirs: Vec<(String, PathBuf)> = std::fs::read_dir(rules_dir())
        .expect("testdata/rules")
        .map(|e| e.expect("dir entry").path())
        .filter(|p| p.is_dir())
        .map(|p| {
            let name = p
                .file_name()
                .and_then(|n| n.to_str())
                .expect("utf-8 name")
                .to_string();
            (name, p)
        })
        .collect();
    dirs.sort();
    dirs
}

/// The path as the report shows it: relative to the crate, with `/`.
fn display(path: &Path) -> String {
    path.strip_prefix(env!("CARGO_MANIFEST_DIR"))
        .unwrap_or(path)
        .to_string_lossy()
        .replace('\\', "/")
}

/// Lints one fixture with only `rule` selected; findings sorted as the CLI sorts them.
fn lint(rule: &str, path: &Path) -> (String, Vec<Finding>) {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    // A `taintlint.yaml` beside the fixtures is the config they run with (policies...).
    let cfg_path = path.with_file_name("taintlint.yaml");
    let cfg = if cfg_path.is_file() {
        // Named by its path relative to the repository, so snapshots do not depend on where
        // the checkout lives.
        let text = std::fs::read_to_string(&cfg_path).unwrap_or_else(|e| panic!("{e}"));
        let dir = cfg_path.parent().unwrap_or(Path::new("."));
        taintlint::config::parse(&display(&cfg_path), text, dir).unwrap_or_else(|e| panic!("{e}"))
    } else {
        taintlint::config::Config::default()
    };
    let opts = taintlint::options_from_config(&cfg, None, None, &[rule.to_string()], &[])
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    // The whole engine, so the cross-reference rules see the fixture's nodes and workloads.
    let mut findings: Vec<Finding> = taintlint::engine::lint_text(&display(path), &text, &opts)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .findings
        .into_iter()
        .filter(|f| f.rule == rule)
        .collect();
    taintlint::diagnostic::sort_findings(&mut findings);
    (text, findings)
}

fn expected_lines(rule: &str, text: &str) -> BTreeSet<usize> {
    let marker = format!("# expect: {rule}");
    text.lines()
        .enumerate()
        .filter(|(_, l)| l.contains(&marker))
        .map(|(i, _)| i + 1)
        .collect()
}

fn human(findings: &[Finding]) -> String {
    let mut summary = Summary {
        files: 1,
        ..Summary::default()
    };
    summary.count(findings);
    let mut buf = Vec::new();
    report::write(
        Format::Human,
        &findings,
        &summary,
        &HumanOptions::default(),
        &mut buf,
    )
    .expect("write report");
    String::from_utf8(buf).expect("utf-8 report")
}

fn compact(findings: &[Finding]) -> String {
    let mut out = String::new();
    for f in findings {
        let (start, _) = f.range();
        out.push_str(&format!(
            "{}:{} {} {} | {}\n",
            start.line,
            start.column,
            f.rule,
            f.field.as_deref().unwrap_or("-"),
            f.api_error.as_deref().unwrap_or("-"),
        ));
    }
    out
}

#[test]
fn fixtures_produce_exactly_the_expected_findings() {
    let mut problems = Vec::new();
    let dirs = fixture_dirs();
    assert!(!dirs.is_empty(), "no fixtures in testdata/rules");
    for (rule, dir) in &dirs {
        if RuleSet::resolve(std::slice::from_ref(rule), &[]).is_err() {
            problems.push(format!(
                "testdata/rules/{rule}: no rule of that name is registered"
            ));
            continue;
        }
        let valid = dir.join("valid.yaml");
        let (_, found) = lint(rule, &valid);
        if !found.is_empty() {
            let lines: BTreeSet<usize> = found.iter().map(|f| f.range().0.line).collect();
            problems.push(format!(
                "{}: valid fixture produces `{rule}` on lines {lines:?}",
                display(&valid)
            ));
        }
        let invalid = dir.join("invalid.yaml");
        let (text, found) = lint(rule, &invalid);
        let expected = expected_lines(rule, &text);
        let got: BTreeSet<usize> = found.iter().map(|f| f.range().0.line).collect();
        if expected.is_empty() {
            problems.push(format!("{}: no `# expect: {rule}` line", display(&invalid)));
        }
        if got != expected {
            let missing: Vec<_> = expected.difference(&got).collect();
            let unexpected: Vec<_> = got.difference(&expected).collect();
            problems.push(format!(
                "{}: missing findings on lines {missing:?}, unexpected findings on lines {unexpected:?}",
                display(&invalid)
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// A rule that also reads Terraform has `valid.tf` and `invalid.tf` beside its YAML fixtures,
/// checked the same way.
#[test]
fn terraform_fixtures_produce_exactly_the_expected_findings() {
    let mut problems = Vec::new();
    for (rule, dir) in fixture_dirs() {
        let (valid, invalid) = (dir.join("valid.tf"), dir.join("invalid.tf"));
        if !valid.is_file() && !invalid.is_file() {
            continue;
        }
        let (_, found) = lint(&rule, &valid);
        if !found.is_empty() {
            problems.push(format!(
                "{}: valid fixture produces `{rule}`",
                display(&valid)
            ));
        }
        let (text, found) = lint(&rule, &invalid);
        let expected = expected_lines(&rule, &text);
        let got: BTreeSet<usize> = found.iter().map(|f| f.range().0.line).collect();
        if expected.is_empty() || got != expected {
            problems.push(format!(
                "{}: expected findings on lines {expected:?}, got {got:?}",
                display(&invalid)
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn invalid_fixtures_snapshots() {
    for (rule, dir) in fixture_dirs() {
        let (_, findings) = lint(&rule, &dir.join("invalid.yaml"));
        insta::with_settings!({ snapshot_suffix => rule.clone() }, {
            insta::assert_snapshot!("invalid_human", human(&findings));
            insta::assert_snapshot!("invalid_compact", compact(&findings));
        });
    }
}

#[test]
fn every_rule_with_a_check_has_fixtures() {
    let mut missing = Vec::new();
    for rule in RULES.iter().filter(|r| r.check.is_some()) {
        let dir = rules_dir().join(rule.meta.name);
        for file in ["valid.yaml", "invalid.yaml"] {
            if !dir.join(file).is_file() {
                missing.push(format!("testdata/rules/{}/{file}", rule.meta.name));
            }
        }
    }
    assert!(
        missing.is_empty(),
        "missing fixtures:\n{}",
        missing.join("\n")
    );
}

/// The binary on the same fixtures, read from disk: a file's text is let go after linting
/// (only the places its findings and workloads point at are kept), so a place the report
/// forgot to keep would put a cross-reference finding on the wrong line here, not above.
#[test]
fn the_binary_puts_every_finding_on_its_line() {
    let mut problems = Vec::new();
    for (rule, dir) in fixture_dirs() {
        let invalid = dir.join("invalid.yaml");
        let text = std::fs::read_to_string(&invalid).unwrap_or_else(|e| panic!("{e}"));
        let path = display(&invalid);
        let cfg = display(&dir.join("taintlint.yaml"));
        let mut args = vec![
            "check",
            path.as_str(),
            "--select",
            rule.as_str(),
            "--format",
            "json",
            "--fail-on",
            "never",
        ];
        if dir.join("taintlint.yaml").is_file() {
            args.extend(["--config", cfg.as_str()]);
        } else {
            args.push("--isolated");
        }
        let out = common::cli::taintlint(&args).run();
        let report: serde_json::Value = serde_json::from_str(&out.stdout)
            .unwrap_or_else(|e| panic!("{rule}: {e}: {}{}", out.stdout, out.stderr));
        let lines: BTreeSet<usize> = report["findings"]
            .as_array()
            .map(|fs| {
                fs.iter()
                    .filter(|f| f["rule"] == rule.as_str())
                    .filter_map(|f| f["line"].as_u64())
                    .map(|l| usize::try_from(l).unwrap_or(0))
                    .collect()
            })
            .unwrap_or_default();
        let expected = expected_lines(&rule, &text);
        if lines != expected {
            problems.push(format!(
                "{path}: the binary reports lines {lines:?}, expected {expected:?}"
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
