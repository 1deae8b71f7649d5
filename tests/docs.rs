//! The rule pages in `rules/` are checked against the registry: one page per rule, the right
//! headings and metadata, examples that really produce (or do not produce) the rule's
//! findings; the rules index `docs/rules.md`, generated from the pages, and the README's
//! example output are current; every relative link of the README, the guides in `docs/` and
//! the rule pages resolves. `TAINTLINT_BLESS=1 cargo test --test docs` rewrites the index and
//! the example output.

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

/// The `| category | default severity | fix |` table right below the title: the category and
/// the default severity.
fn meta_table(page: &str) -> Option<(String, String)> {
    let [cat, sev, _fix] = page_meta(page)?;
    Some((cat, sev))
}

/// The page's `| category | default severity | fix |` row.
fn page_meta(page: &str) -> Option<[String; 3]> {
    let mut lines = page.lines().skip_while(|l| !l.starts_with("| category"));
    let header = lines.next()?;
    let cols: Vec<&str> = header.split('|').map(str::trim).collect();
    let at = |name: &str| cols.iter().position(|c| *c == name);
    let (cat, sev, fix) = (at("category")?, at("default severity")?, at("fix")?);
    let _separator = lines.next()?;
    let row: Vec<&str> = lines.next()?.split('|').map(str::trim).collect();
    Some([
        row.get(cat)?.to_string(),
        row.get(sev)?.to_string(),
        row.get(fix)?.to_string(),
    ])
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

/// What each category holds, in `Category::ALL`'s order.
const CATEGORIES: &[(&str, &str)] = &[
    (
        "input",
        "Files and settings taintlint cannot use as they are (unreadable files, encodings, YAML \
         syntax, YAML bombs, unrendered templates, mistakes in `.taintlint.yaml`), suppressions \
         that hide nothing, and taintlint's own failures.",
    ),
    (
        "correctness",
        "What the API server (or kubectl before it) rejects, or silently reads as something \
         else: invalid tolerations, taints, selectors, affinity and spread constraints, YAML 1.1 \
         values, unknown and duplicate fields.",
    ),
    (
        "suspicious",
        "Accepted, but almost certainly not what the author meant: heuristics, quiet in test \
         data.",
    ),
    (
        "scheduling",
        "Found by cross-referencing workloads with the node pools of the inventory, after \
         admission: see [Cross-reference](cross-reference.md).",
    ),
];

/// `docs/rules.md`, generated from the rule pages (`rules/*.md`: the name in the title, the
/// category, default severity and fix of the table below it) and each rule's one-line summary
/// (what `taintlint rules` prints).
fn rules_index() -> String {
    let mut pages: Vec<(String, [String; 3])> = Vec::new();
    for entry in std::fs::read_dir(root().join("rules")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().and_then(|e| e.to_str()) != Some("md") {
            continue;
        }
        let page = std::fs::read_to_string(&path).unwrap();
        let name = page
            .lines()
            .next()
            .and_then(|t| t.strip_prefix("# `"))
            .and_then(|t| t.strip_suffix('`'))
            .unwrap_or_else(|| panic!("{}: no `# `name`` title", path.display()))
            .to_string();
        let meta = page_meta(&page)
            .unwrap_or_else(|| panic!("{}: no category/severity/fix table", path.display()));
        pages.push((name, meta));
    }
    pages.sort();
    let summary = |name: &str| {
        RULES
            .iter()
            .find(|r| r.meta.name == name)
            .map(|r| r.meta.summary.replace('|', "\\|"))
            .unwrap_or_else(|| panic!("rules/{name}.md names no registered rule"))
    };
    let mut t = format!(
        "# Rules\n\n\
         <!-- Generated from rules/*.md by `TAINTLINT_BLESS=1 cargo test --test docs`: edit the \
         rule pages, not this file. -->\n\n\
         taintlint has {} rules in four categories. Each has a page in [`rules/`](../rules) \
         (also `taintlint rule NAME`) with what it does, why, examples the test suite executes, \
         and how to turn it off; `taintlint rules` lists them. A rule's level is set in \
         [`.taintlint.yaml`](configuration.md) (`rules:`), `--select` and `--ignore` take names \
         or categories, and a rule that is `off` by default runs when it is named. How often \
         the rules are right on real repositories: [Precision](precision.md).\n",
        pages.len()
    );
    for (category, about) in CATEGORIES {
        let rows: Vec<_> = pages.iter().filter(|(_, m)| m[0] == *category).collect();
        t.push_str(&format!(
            "\n## {category} ({})\n\n{about}\n\n\
             | rule | default severity | fix | summary |\n|---|---|---|---|\n",
            rows.len()
        ));
        for (name, [_, severity, fix]) in rows {
            t.push_str(&format!(
                "| [`{name}`](../rules/{name}.md) | {severity} | {fix} | {} |\n",
                summary(name)
            ));
        }
    }
    let unknown: Vec<_> = pages
        .iter()
        .filter(|(_, m)| !CATEGORIES.iter().any(|(c, _)| *c == m[0]))
        .map(|(n, m)| format!("{n}: {}", m[0]))
        .collect();
    assert!(
        unknown.is_empty(),
        "pages in no known category: {unknown:?}"
    );
    t
}

/// Checks (or, with `TAINTLINT_BLESS=1`, rewrites) a whole generated file.
fn check_generated(rel: &str, want: &str) {
    let path = root().join(rel);
    let have = std::fs::read_to_string(&path).unwrap_or_default();
    if have == want {
        return;
    }
    if bless() {
        std::fs::write(&path, want).unwrap();
        return;
    }
    panic!(
        "{rel} is out of date; run `TAINTLINT_BLESS=1 cargo test --test docs`.\n\
         expected:\n{want}\nfound:\n{have}"
    );
}

fn bless() -> bool {
    std::env::var_os("TAINTLINT_BLESS").is_some_and(|v| v == "1")
}

#[test]
fn the_rules_index_is_generated_from_the_pages() {
    let index = rules_index();
    for rule in RULES {
        assert!(
            index.contains(&format!("[`{0}`](../rules/{0}.md)", rule.meta.name)),
            "{} is not in the index",
            rule.meta.name
        );
    }
    check_generated("docs/rules.md", &index);
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
    if bless() {
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

/// The Markdown files whose relative links must resolve: the README, the guides, the rule
/// pages and the other documents of the repository.
fn markdown_files() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = [
        "README.md",
        "SECURITY.md",
        "bench/README.md",
        "fuzz/README.md",
        "editors/vscode/README.md",
    ]
    .iter()
    .map(|f| root().join(f))
    .collect();
    for dir in ["docs", "rules"] {
        for e in std::fs::read_dir(root().join(dir)).unwrap() {
            let p = e.unwrap().path();
            if p.extension().is_some_and(|x| x == "md") {
                files.push(p);
            }
        }
    }
    files.sort();
    files
}

/// Lines outside fenced code blocks, with inline code spans blanked: (1-based line, text).
fn prose_lines(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut fence: Option<&str> = None;
    for (i, line) in text.lines().enumerate() {
        let t = line.trim_start();
        let marker = if t.starts_with("```") {
            Some("```")
        } else if t.starts_with("~~~") {
            Some("~~~")
        } else {
            None
        };
        match (fence, marker) {
            (None, Some(m)) => fence = Some(m),
            (Some(f), Some(m)) if f == m => fence = None,
            (None, None) => out.push((i + 1, blank_code_spans(line))),
            _ => {}
        }
    }
    out
}

/// `line` with the text of each inline code span (`` `x` ``, ``` ``x`` ```) replaced by spaces.
fn blank_code_spans(line: &str) -> String {
    let chars: Vec<char> = line.chars().collect();
    let mut out = String::new();
    let mut i = 0;
    while i < chars.len() {
        if chars[i] != '`' {
            out.push(chars[i]);
            i += 1;
            continue;
        }
        let run = chars[i..].iter().take_while(|c| **c == '`').count();
        // The closing run of the same length.
        let mut j = i + run;
        let mut close = None;
        while j < chars.len() {
            if chars[j] == '`' {
                let r = chars[j..].iter().take_while(|c| **c == '`').count();
                if r == run {
                    close = Some(j);
                    break;
                }
                j += r;
            } else {
                j += 1;
            }
        }
        match close {
            Some(c) => {
                out.extend(std::iter::repeat_n(' ', c + run - i));
                i = c + run;
            }
            None => {
                out.extend(&chars[i..i + run]);
                i += run;
            }
        }
    }
    out
}

/// The anchors of a Markdown file's headings as GitHub makes them (the heading's text without
/// its markup, lower-cased, punctuation but `-` and `_` dropped, spaces as `-`, a repeated
/// one numbered), and the `<a id>`/`<a name>` anchors.
fn anchors(text: &str) -> BTreeSet<String> {
    let link = regex::Regex::new(r"!?\[([^\]]*)\]\([^)]*\)").unwrap();
    let html = regex::Regex::new(r#"<a\s+(?:id|name)="([^"]+)""#).unwrap();
    let mut seen: std::collections::HashMap<String, usize> = Default::default();
    let mut out = BTreeSet::new();
    let mut fence = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fence = !fence;
            continue;
        }
        if fence {
            continue;
        }
        for c in html.captures_iter(line) {
            out.insert(c[1].to_string());
        }
        let hashes = line.chars().take_while(|c| *c == '#').count();
        if !(1..=6).contains(&hashes) || !line[hashes..].starts_with(' ') {
            continue;
        }
        let title = link.replace_all(line[hashes..].trim(), "$1");
        let slug: String = title
            .to_lowercase()
            .chars()
            .filter_map(|c| match c {
                ' ' => Some('-'),
                c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
                _ => None,
            })
            .collect();
        let n = seen.entry(slug.clone()).or_insert(0);
        out.insert(if *n == 0 {
            slug.clone()
        } else {
            format!("{slug}-{n}")
        });
        *n += 1;
    }
    out
}

/// Every relative link (`[text](target)`, `![alt](target)`, `[label]: target`) in the README,
/// the guides and the rule pages names a file or folder of the repository, and every
/// `#anchor` into a Markdown file (or within the page) names one of its headings.
#[test]
fn relative_links_resolve() {
    let inline = regex::Regex::new(r#"\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)"#).unwrap();
    let reference = regex::Regex::new(r"^\s{0,3}\[[^\]]+\]:\s+<?(\S+?)>?(?:\s|$)").unwrap();
    let files = markdown_files();
    assert!(files.len() > 60, "{files:?}");
    let mut problems = Vec::new();
    let mut checked = 0;
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        let rel = file.strip_prefix(root()).unwrap().display().to_string();
        for (n, line) in prose_lines(&text) {
            let targets = inline
                .captures_iter(&line)
                .chain(reference.captures_iter(&line))
                .map(|c| c[1].to_string());
            for target in targets {
                let scheme = target.split_once(':').is_some_and(|(s, _)| {
                    !s.is_empty() && s.chars().all(|c| c.is_ascii_alphabetic())
                });
                if scheme {
                    continue; // https:, mailto:
                }
                checked += 1;
                let (path, anchor) = match target.split_once('#') {
                    Some((p, a)) => (p, Some(a)),
                    None => (target.as_str(), None),
                };
                let resolved = if path.is_empty() {
                    file.clone()
                } else if path.starts_with('/') {
                    root().join(path.trim_start_matches('/'))
                } else {
                    file.parent().unwrap().join(path)
                };
                if !resolved.exists() {
                    problems.push(format!("{rel}:{n}: `{target}`: no such file or folder"));
                    continue;
                }
                let canonical = resolved.canonicalize().unwrap();
                if !canonical.starts_with(root().canonicalize().unwrap()) {
                    problems.push(format!("{rel}:{n}: `{target}` leaves the repository"));
                    continue;
                }
                if let Some(anchor) = anchor
                    && resolved.extension().is_some_and(|x| x == "md")
                {
                    let target_text = std::fs::read_to_string(&resolved).unwrap();
                    if !anchors(&target_text).contains(anchor) {
                        problems.push(format!(
                            "{rel}:{n}: `{target}`: no heading makes the anchor #{anchor}"
                        ));
                    }
                }
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    assert!(checked > 80, "only {checked} links checked");
}

/// The anchors are GitHub's.
#[test]
fn heading_anchors_are_githubs() {
    let text = "# Rules\n## The `Inventory` file\n## Admission: what the cluster runs\n\
                ## input (4)\n## Neovim 0.8–0.10\n## [Link](x.md) here\n## Rules\n\
                ```\n# not a heading\n```\n<a id=\"custom\"></a>\n";
    let got = anchors(text);
    let want: BTreeSet<String> = [
        "rules",
        "the-inventory-file",
        "admission-what-the-cluster-runs",
        "input-4",
        "neovim-08010",
        "link-here",
        "rules-1",
        "custom",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    assert_eq!(got, want);
}

/// The README is a front door (issue 39): at most 400 lines, the two set-up commands in its
/// Quick start (build and run on the examples; the tests), and a link to every guide.
#[test]
fn the_readme_is_a_front_door() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let lines = readme.lines().count();
    assert!(lines <= 400, "README.md has {lines} lines");
    for section in [
        "## Install",
        "## Quick start",
        "## CI",
        "## Editors",
        "## Documentation",
    ] {
        assert!(
            readme.lines().any(|l| l == section),
            "README.md has no {section}"
        );
    }
    let quick = &readme[readme.find("## Quick start").unwrap()..];
    let block = &quick[quick.find("```sh\n").unwrap() + 6..];
    let block = &block[..block.find("```").unwrap()];
    assert_eq!(
        block.lines().collect::<Vec<_>>(),
        [
            "cargo run --release -- check testdata/examples",
            "cargo test"
        ],
        "the Quick start's set-up commands"
    );
    for e in std::fs::read_dir(root().join("docs")).unwrap() {
        let name = e.unwrap().file_name().to_string_lossy().into_owned();
        if name.ends_with(".md") && name != "README.md" {
            assert!(
                readme.contains(&format!("](docs/{name})")),
                "README.md links no docs/{name}"
            );
        }
    }
}
