//! The source reads top-down as the pipeline: each top-level module of `src/` uses only the
//! modules above it in [`LAYERS`], so the module graph is a DAG and stays one. This test reads
//! every `crate::<module>` path (and every `use crate::{…}` group) outside unit-test modules
//! and comments, and fails on one that points down the list. It also keeps `lib.rs` thin and
//! rule names inside the rules and the reporters.

#![allow(clippy::unwrap_used)] // tests may unwrap

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The layers, lowest first: a module may use any module before it, none after it.
const LAYERS: &[&str] = &[
    "util",
    "load",
    "diagnostic",
    "settings",
    "model",
    "analysis",
    "fix",
    "rules",
    "suppress",
    "config",
    "baseline",
    "engine",
    "report",
    "cli",
    "commands",
    // The language server: the commands' config and workspace discovery, the engine's lint
    // of one buffer; only `lib` (the `server` command) starts it.
    "server",
    "lib",
];

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The top-level module a file of `src/` belongs to (`lib` for `lib.rs` and `main.rs`).
fn module_of(src: &Path, file: &Path) -> String {
    let rel = file.strip_prefix(src).unwrap();
    let first = rel
        .components()
        .next()
        .unwrap()
        .as_os_str()
        .to_string_lossy();
    let name = first.trim_end_matches(".rs").to_string();
    if name == "main" {
        "lib".to_string()
    } else {
        name
    }
}

/// The file's code without comments and without its `#[cfg(test)]` items (each up to the end
/// of its braces).
fn stripped(text: &str) -> String {
    let code: String = text
        .lines()
        .map(|l| match l.find("//") {
            Some(i) => &l[..i],
            None => l,
        })
        .collect::<Vec<_>>()
        .join("\n");
    let mut out = String::new();
    let mut rest = code.as_str();
    while let Some(at) = rest.find("#[cfg(test)]") {
        out.push_str(&rest[..at]);
        let after = &rest[at..];
        let Some(open) = after.find('{') else {
            rest = "";
            break;
        };
        let mut depth = 0usize;
        let mut end = after.len();
        for (i, c) in after[open..].char_indices() {
            match c {
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        end = open + i + 1;
                        break;
                    }
                }
                _ => {}
            }
        }
        rest = &after[end..];
    }
    out.push_str(rest);
    out
}

/// The top-level modules a piece of code names through `crate::`.
fn used_modules(code: &str) -> BTreeSet<String> {
    let mut used = BTreeSet::new();
    let ident = |s: &str| -> String {
        s.chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect()
    };
    for (at, _) in code.match_indices("crate::") {
        let rest = &code[at + "crate::".len()..];
        if let Some(group) = rest.strip_prefix('{') {
            // `use crate::{a::X, b, c::{Y, Z}}`: the first segment of each top-level item.
            let mut depth = 0;
            let mut start = true;
            for (i, c) in group.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => break,
                    '}' => depth -= 1,
                    ',' if depth == 0 => start = true,
                    c if start && !c.is_whitespace() => {
                        start = false;
                        let name = ident(&group[i..]);
                        if !name.is_empty() && name != "self" {
                            used.insert(name);
                        }
                    }
                    _ => {}
                }
            }
        } else {
            let name = ident(rest);
            if !name.is_empty() {
                used.insert(name);
            }
        }
    }
    used
}

#[test]
fn modules_use_only_the_layers_above_them() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    files.sort();
    let rank = |m: &str| LAYERS.iter().position(|l| *l == m);
    let mut wrong: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for file in &files {
        let module = module_of(&src, file);
        let Some(own) = rank(&module) else {
            panic!(
                "{}: module `{module}` is in no layer of LAYERS",
                file.display()
            );
        };
        let text = std::fs::read_to_string(file).unwrap();
        for used in used_modules(&stripped(&text)) {
            if used == module {
                continue;
            }
            // Not a module of the crate (a macro's `$crate::` path to an item of lib.rs).
            let Some(theirs) = rank(&used) else {
                continue;
            };
            if theirs > own {
                let rel = file.strip_prefix(&src).unwrap().display().to_string();
                wrong
                    .entry(format!("{module} -> {used}"))
                    .or_default()
                    .insert(rel);
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "imports against the layer order (util, load, … commands, lib):\n{}",
        wrong
            .iter()
            .map(|(edge, files)| format!("  {edge}: {files:?}"))
            .collect::<Vec<_>>()
            .join("\n")
    );
}

#[test]
fn every_top_level_module_has_a_layer() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    for entry in std::fs::read_dir(&src).unwrap() {
        let path = entry.unwrap().path();
        let module = module_of(&src, &path);
        assert!(
            LAYERS.contains(&module.as_str()),
            "src/{module}: add it to LAYERS in tests/layers.rs"
        );
    }
}

#[test]
fn the_checker_reads_groups_and_paths() {
    let code = "use crate::{load::Span, diagnostic::{Finding, Severity}, self};\n\
                let x = crate::engine::run(); use crate::util;";
    let used: Vec<String> = used_modules(code).into_iter().collect();
    assert_eq!(used, ["diagnostic", "engine", "load", "util"]);
    assert_eq!(
        stripped("a // crate::x\n#[cfg(test)]\nmod t { use crate::y; }\nb"),
        "a \n\nb"
    );
}

#[test]
fn lib_rs_stays_thin() {
    let lib =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("src/lib.rs")).unwrap();
    let lines = lib.lines().count();
    assert!(
        lines <= 200,
        "src/lib.rs has {lines} lines; keep it to modules and `run`"
    );
}

/// The engine, the loader and the commands name no rule: what they need to know about one is
/// a field or a hook of its registry entry. Only the rules, the reporters and unit tests spell
/// rule names.
#[test]
fn rule_names_stay_in_rules_and_reports() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let names: Vec<String> = taintlint::rules::RULES
        .iter()
        .map(|r| format!("\"{}\"", r.meta.name))
        .collect();
    let mut found = Vec::new();
    for file in &files {
        let module = module_of(&src, file);
        if module == "rules" || module == "report" {
            continue;
        }
        let text = stripped(&std::fs::read_to_string(file).unwrap());
        for name in &names {
            if text.contains(name.as_str()) {
                found.push(format!("{}: {name}", file.display()));
            }
        }
    }
    assert!(
        found.is_empty(),
        "rule names outside src/rules and src/report: {found:?}"
    );
}
