//! The rule pages in `rules/` are checked against the registry: one page per rule, the right
//! headings and metadata, examples that really produce (or do not produce) the rule's
//! findings, and the README's rules table. `TAINTLINT_BLESS=1 cargo test --test docs`
//! rewrites the README table.

#![allow(clippy::unwrap_used)] // tests may unwrap

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use taintlint::engine::lint_text;

mod common;
use taintlint::rules::{RULES, Rule};

const HEADINGS: &[&str] = &[
    "## What it does",
    "## Why is this bad?",
    "## Example",
    "## Configuration",
    "## Suppression",
    "## References",
];

const TABLE_START: &str = "<!-- rules-table:start -->";
const TABLE_END: &str = "<!-- rules-table:end -->";

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn page_path(name: &str) -> PathBuf {
    root().join("rules").join(format!("{name}.md"))
}

fn read_page(rule: &Rule) -> String {
    let path = page_path(rule.meta.name);
    std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: missing rule page: {e}", path.display()))
}

fn default_severity(rule: &Rule) -> &'static str {
    if rule.meta.enabled {
        rule.meta.severity.as_str()
    } else {
        "off"
    }
}

#[test]
fn every_rule_has_a_page_and_every_page_a_rule() {
    let registered: BTreeSet<String> = RULES.iter().map(|r| r.meta.name.to_string()).collect();
    let mut pages = BTreeSet::new();
    for entry in std::fs::read_dir(root().join("rules")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().and_then(|e| e.to_str()) != Some("md") {
            continue;
        }
        let stem = path.file_stem().unwrap().to_str().unwrap().to_string();
        if stem == "README" {
            continue;
        }
        pages.insert(stem);
    }
    let missing: Vec<_> = registered.difference(&pages).collect();
    let orphans: Vec<_> = pages.difference(&registered).collect();
    assert!(
        missing.is_empty(),
        "rules without a page in rules/: {missing:?}"
    );
    assert!(
        orphans.is_empty(),
        "pages in rules/ naming no registered rule: {orphans:?}"
    );
}

#[test]
fn pages_embedded_in_the_binary_are_the_files() {
    for rule in RULES {
        assert_eq!(
            rule.meta.docs,
            read_page(rule),
            "{}: META.docs is not rules/{0}.md",
            rule.meta.name
        );
    }
}

/// The `| category | default severity | fix |` table right below the title.
fn meta_table(page: &str) -> Option<(String, String)> {
    let mut lines = page.lines().skip_while(|l| !l.starts_with("| category"));
    let header = lines.next()?;
    let cols: Vec<&str> = header.split('|').map(str::trim).collect();
    let cat = cols.iter().position(|c| *c == "category")?;
    let sev = cols.iter().position(|c| *c == "default severity")?;
    let _separator = lines.next()?;
    let row: Vec<&str> = lines.next()?.split('|').map(str::trim).collect();
    Some((row.get(cat)?.to_string(), row.get(sev)?.to_string()))
}

#[test]
fn pages_have_the_skeleton_and_the_rule_metadata() {
    let mut problems = Vec::new();
    for rule in RULES {
        let name = rule.meta.name;
        let page = read_page(rule);
        let title = format!("# `{name}`");
        if page.lines().next() != Some(title.as_str()) {
            problems.push(format!("{name}: first line must be {title}"));
        }
        let mut at = 0;
        for h in HEADINGS {
            match page.lines().skip(at).position(|l| l.trim_end() == *h) {
                Some(i) => at += i + 1,
                None => problems.push(format!("{name}: heading `{h}` missing or out of order")),
            }
        }
        match meta_table(&page) {
            Some((cat, sev)) => {
                if cat != rule.meta.category.as_str() {
                    problems.push(format!(
                        "{name}: page says category `{cat}`, META says `{}`",
                        rule.meta.category.as_str()
                    ));
                }
                if sev != default_severity(rule) {
                    problems.push(format!(
                        "{name}: page says severity `{sev}`, META says `{}`",
                        default_severity(rule)
                    ));
                }
            }
            None => problems.push(format!("{name}: no category/default severity table")),
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// A fenced code block: its info string, the 1-based line of the fence in the page, the text.
struct Block {
    info: String,
    line: usize,
    text: String,
}

fn code_blocks(page: &str) -> Vec<Block> {
    let mut blocks = Vec::new();
    let mut open: Option<Block> = None;
    for (i, line) in page.lines().enumerate() {
        match &mut open {
            None => {
                if let Some(info) = line.strip_prefix("```") {
                    open = Some(Block {
                        info: info.trim().to_string(),
                        line: i + 1,
                        text: String::new(),
                    });
                }
            }
            Some(b) => {
                if line.trim_end() == "```" {
                    blocks.extend(open.take());
                } else {
                    b.text.push_str(line);
                    b.text.push('\n');
                }
            }
        }
    }
    assert!(open.is_none(), "unclosed code block");
    blocks
}

/// Lines (1-based, within the block) of this rule's findings' primary spans.
fn finding_lines(name: &str, text: &str, config: Option<&str>) -> BTreeSet<usize> {
    // A page may hold a ```yaml config``` block: the taintlint config its examples run with.
    let cfg = match config {
        Some(c) => taintlint::config::parse("taintlint.yaml", c.to_string(), Path::new("."))
            .unwrap_or_else(|e| panic!("{name}: config block: {e}")),
        None => taintlint::config::Config::default(),
    };
    let opts = taintlint::options_from_config(&cfg, None, None, &[name.to_string()], &[])
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    // The whole engine, so the cross-reference rules see the example's nodes and workloads.
    lint_text(&format!("{name}.md"), text, &opts)
        .unwrap_or_else(|e| panic!("{name}: {e}"))
        .findings
        .iter()
        .filter(|f| f.rule == name)
        .map(|f| f.range().0.line)
        .collect()
}

#[test]
fn examples_produce_exactly_the_expected_findings() {
    let mut problems = Vec::new();
    let mut executed = 0;
    for rule in RULES {
        let name = rule.meta.name;
        let page = read_page(rule);
        let marker = format!("# expect: {name}");
        let blocks = code_blocks(&page);
        let config = blocks
            .iter()
            .find(|b| b.info == "yaml config")
            .map(|b| b.text.clone());
        for block in blocks {
            let mut words = block.info.split_whitespace();
            if words.next() != Some("yaml") {
                continue;
            }
            let kind = words.next();
            if kind == Some("config") {
                continue;
            }
            let expected: BTreeSet<usize> = block
                .text
                .lines()
                .enumerate()
                .filter(|(_, l)| l.contains(&marker))
                .map(|(i, _)| i + 1)
                .collect();
            let found = finding_lines(name, &block.text, config.as_deref());
            let at = format!("rules/{name}.md:{}", block.line);
            match kind {
                Some("invalid") => {
                    executed += 1;
                    if expected.is_empty() {
                        problems.push(format!("{at}: invalid example has no `{marker}` line"));
                    }
                    if found != expected {
                        problems.push(format!(
                            "{at}: expected findings on block lines {expected:?}, got {found:?}"
                        ));
                    }
                }
                Some("valid") => {
                    executed += 1;
                    if !found.is_empty() {
                        problems.push(format!(
                            "{at}: valid example produces `{name}` on block lines {found:?}"
                        ));
                    }
                }
                _ => problems.push(format!(
                    "{at}: yaml blocks must be marked `yaml invalid` or `yaml valid`"
                )),
            }
        }
    }
    assert!(executed > 0, "no examples were executed");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn rules_with_a_check_have_executable_examples() {
    for rule in RULES.iter().filter(|r| r.check.is_some()) {
        let page = read_page(rule);
        let blocks = code_blocks(&page);
        for kind in ["yaml invalid", "yaml valid"] {
            assert!(
                blocks.iter().any(|b| b.info == kind),
                "rules/{}.md has no ```{kind} example",
                rule.meta.name
            );
        }
    }
}

/// The README's rules table, generated from the registry.
fn rules_table() -> String {
    let mut t =
        String::from("| rule | category | default severity | summary |\n|---|---|---|---|\n");
    for r in RULES {
        t.push_str(&format!(
            "| [`{0}`](rules/{0}.md) | {1} | {2} | {3} |\n",
            r.meta.name,
            r.meta.category.as_str(),
            default_severity(r),
            r.meta.summary.replace('|', "\\|"),
        ));
    }
    t
}

/// Checks (or, with `TAINTLINT_BLESS=1`, rewrites) the README text between two markers.
fn check_readme_section(start_marker: &str, end_marker: &str, want: &str) {
    let path: &Path = &root().join("README.md");
    let readme = std::fs::read_to_string(path).unwrap();
    let start = readme
        .find(start_marker)
        .unwrap_or_else(|| panic!("README.md has no {start_marker} marker"))
        + start_marker.len();
    let end = readme[start..]
        .find(end_marker)
        .unwrap_or_else(|| panic!("README.md has no {end_marker} marker"))
        + start;
    let want = format!("\n{want}");
    if readme[start..end] == want {
        return;
    }
    if std::env::var_os("TAINTLINT_BLESS").is_some_and(|v| v == "1") {
        let updated = format!("{}{want}{}", &readme[..start], &readme[end..]);
        std::fs::write(path, updated).unwrap();
        return;
    }
    panic!(
        "README.md section {start_marker} is out of date; run `TAINTLINT_BLESS=1 cargo test --test docs`.\n\
         expected:\n{want}\nfound:\n{}",
        &readme[start..end]
    );
}

#[test]
fn readme_rules_table_matches_the_registry() {
    check_readme_section(TABLE_START, TABLE_END, &rules_table());
}

/// The README pastes the output of its quick-start command; keep it real.
#[test]
fn readme_example_output_is_current() {
    let text = common::cli::taintlint(&["check", "--color", "never", "testdata/examples"])
        .run()
        .stdout;
    check_readme_section(
        "<!-- example-output:start -->",
        "<!-- example-output:end -->",
        &format!("```text\n$ cargo run --release -- check testdata/examples\n{text}```\n"),
    );
}
