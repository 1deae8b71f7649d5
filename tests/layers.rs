//! The source reads top-down as the pipeline: each top-level module of `src/` uses only the
//! modules above it in [`LAYERS`], so the module graph is a DAG and stays one. This test reads
//! every `crate::<module>` path (and every `use crate::{…}` group) outside unit-test modules
//! and comments, and fails on one that points down the list. Inside `src/analysis/` it does
//! the same for the room's own layers ([`ANALYSIS_LAYERS`]) and fails on any import cycle
//! among sibling modules. It also keeps `lib.rs` thin and rule names inside the rules and the
//! reporters.

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
        // A braceless item (`#[cfg(test)] mod tests;`): up to its `;`.
        if let Some(semi) = after[..open].find(';') {
            rest = &after[semi + 1..];
            continue;
        }
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

/// The layers of `src/analysis/`, lowest first: a layer may use the layers before it, none
/// after it (see `src/analysis/mod.rs`).
const ANALYSIS_LAYERS: &[&str] = &["semantics", "types", "sources", "judgements"];

/// A module of `src/analysis/` as a path below `analysis` (`[]` for `analysis/mod.rs`,
/// `["types", "pool"]` for `analysis/types/pool.rs`).
type ModPath = Vec<String>;

fn mod_path(analysis: &Path, file: &Path) -> ModPath {
    let rel = file.strip_prefix(analysis).unwrap();
    let mut path: ModPath = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().to_string())
        .collect();
    let last = path.pop().unwrap();
    if last != "mod.rs" {
        path.push(last.trim_end_matches(".rs").to_string());
    }
    path
}

fn ident(s: &str) -> &str {
    let end = s
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(s.len());
    &s[..end]
}

/// The items of a `{…}` group (its text after the `{`), split at its top-level commas, up to
/// its closing brace.
fn group_items(group: &str) -> Vec<&str> {
    let mut items = Vec::new();
    let (mut depth, mut start) = (0usize, 0usize);
    for (i, c) in group.char_indices() {
        match c {
            '{' => depth += 1,
            '}' if depth == 0 => {
                items.push(group[start..i].trim());
                break;
            }
            '}' => depth -= 1,
            ',' if depth == 0 => {
                items.push(group[start..i].trim());
                start = i + 1;
            }
            _ => {}
        }
    }
    items.retain(|i| !i.is_empty());
    items
}

/// The segments of a path (`a::b::{c, d::e}` gives `[a, b, c]` and `[a, b, d, e]`), each
/// path cut at its first non-segment (a `(`, a `<`, an `as`).
fn expand(path: &str, prefix: &[String], out: &mut Vec<Vec<String>>) {
    let mut segs = prefix.to_vec();
    let mut rest = path.trim_start();
    loop {
        if let Some(group) = rest.strip_prefix('{') {
            for item in group_items(group) {
                expand(item, &segs, out);
            }
            return;
        }
        let seg = ident(rest);
        if seg.is_empty() {
            break;
        }
        segs.push(seg.to_string());
        rest = &rest[seg.len()..];
        match rest.strip_prefix("::") {
            Some(r) => rest = r.trim_start(),
            None => break,
        }
    }
    out.push(segs);
}

/// The paths a piece of code names from inside the analysis room: (base, segments), where
/// the base is `crate` or the module reached by `self`/`super`s.
fn analysis_paths(code: &str, module: &[String]) -> Vec<ModPath> {
    let mut found = Vec::new();
    let bytes = code.as_bytes();
    let mut at = 0;
    while at < code.len() {
        let rest = &code[at..];
        let starts = ["crate::", "super::", "self::"]
            .iter()
            .any(|s| rest.starts_with(s));
        let boundary = at == 0 || {
            let b = bytes[at - 1];
            !(b.is_ascii_alphanumeric() || b == b'_' || b == b':' || b == b'$')
        };
        if !(starts && boundary) {
            at += rest.chars().next().map_or(1, char::len_utf8);
            continue;
        }
        // The base module, then the path after it.
        let mut base: ModPath = module.to_vec();
        let mut tail = rest;
        if let Some(t) = tail.strip_prefix("crate::") {
            if ident(t) != "analysis" || !t[ident(t).len()..].starts_with("::") {
                at += "crate::".len();
                continue;
            }
            base.clear();
            tail = &t["analysis::".len()..];
        } else if let Some(t) = tail.strip_prefix("self::") {
            tail = t;
        } else {
            while let Some(t) = tail.strip_prefix("super::") {
                if base.pop().is_none() {
                    break;
                }
                tail = t;
            }
        }
        let mut paths = Vec::new();
        expand(tail, &[], &mut paths);
        for segs in paths {
            let mut full = base.clone();
            full.extend(segs);
            found.push(full);
        }
        at += rest.len() - tail.len();
    }
    found
}

/// Import problems among `files` (module path, code without comments and test modules): a
/// use of a later layer of `ANALYSIS_LAYERS`, a module in no layer, or a cycle among the
/// modules of one parent. A name a module re-exports (`pub use child::Name`) counts as a use
/// of the child that defines it.
fn analysis_problems(files: &[(ModPath, String)]) -> Vec<String> {
    let modules: BTreeSet<&ModPath> = files.iter().map(|(m, _)| m).collect();
    // Re-exports: (module, name) -> the child module it comes from.
    let mut reexports: BTreeMap<(ModPath, String), String> = BTreeMap::new();
    for (module, code) in files {
        for (at, _) in code.match_indices("use ") {
            let before = code[..at].trim_end();
            if !(before.ends_with("pub") || before.ends_with(')')) {
                continue;
            }
            let stmt = &code[at + "use ".len()..];
            let stmt = &stmt[..stmt.find(';').unwrap_or(stmt.len())];
            let child = ident(stmt.trim_start());
            let mut with_child = module.clone();
            with_child.push(child.to_string());
            if !modules.contains(&with_child) {
                continue;
            }
            for word in stmt.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_')) {
                if !word.is_empty() && word != child && word != "as" && word != "self" {
                    reexports.insert((module.clone(), word.to_string()), child.to_string());
                }
            }
        }
    }
    let resolve = |path: &[String]| -> ModPath {
        let mut cur: ModPath = Vec::new();
        for seg in path {
            let mut next = cur.clone();
            next.push(seg.clone());
            if modules.contains(&next) {
                cur = next;
                continue;
            }
            if let Some(child) = reexports.get(&(cur.clone(), seg.clone())) {
                cur.push(child.clone());
            }
            break;
        }
        cur
    };
    let rank = |layer: &str| ANALYSIS_LAYERS.iter().position(|l| *l == layer);
    let mut problems = BTreeSet::new();
    // Per parent module: its children's uses of one another.
    let mut graphs: BTreeMap<ModPath, BTreeMap<String, BTreeSet<String>>> = BTreeMap::new();
    for (module, code) in files {
        if let Some(top) = module.first()
            && rank(top).is_none()
        {
            problems.insert(format!(
                "analysis::{top}: in no layer of ANALYSIS_LAYERS (tests/layers.rs)"
            ));
        }
        for path in analysis_paths(code, module) {
            let used = resolve(&path);
            let common = module.iter().zip(&used).take_while(|(a, b)| a == b).count();
            // A module's use of its ancestors or descendants is no edge between siblings.
            if common == module.len() || common == used.len() {
                continue;
            }
            let (from, to) = (&module[common], &used[common]);
            if common == 0 {
                if let (Some(a), Some(b)) = (rank(from), rank(to))
                    && b > a
                {
                    problems.insert(format!(
                        "analysis::{} uses analysis::{}: {from} is below {to}",
                        module.join("::"),
                        used.join("::")
                    ));
                }
                continue;
            }
            graphs
                .entry(module[..common].to_vec())
                .or_default()
                .entry(from.clone())
                .or_default()
                .insert(to.clone());
        }
    }
    for (parent, graph) in &graphs {
        if let Some(cycle) = find_cycle(graph) {
            problems.insert(format!(
                "import cycle in analysis::{}: {}",
                parent.join("::"),
                cycle.join(" -> ")
            ));
        }
    }
    problems.into_iter().collect()
}

/// A cycle of `graph` (its nodes in order, the first repeated at the end), if it has one.
fn find_cycle(graph: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit<'a>(
        node: &'a str,
        graph: &'a BTreeMap<String, BTreeSet<String>>,
        done: &mut BTreeSet<&'a str>,
        stack: &mut Vec<&'a str>,
    ) -> Option<Vec<String>> {
        if let Some(i) = stack.iter().position(|n| *n == node) {
            let mut cycle: Vec<String> = stack[i..].iter().map(|s| s.to_string()).collect();
            cycle.push(node.to_string());
            return Some(cycle);
        }
        if !done.insert(node) {
            return None;
        }
        stack.push(node);
        for next in graph.get(node).into_iter().flatten() {
            if let Some(cycle) = visit(next, graph, done, stack) {
                return Some(cycle);
            }
        }
        stack.pop();
        None
    }
    let mut done = BTreeSet::new();
    graph
        .keys()
        .find_map(|n| visit(n, graph, &mut done, &mut Vec::new()))
}

fn analysis_files() -> Vec<(ModPath, String)> {
    let analysis = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/analysis");
    let mut files = Vec::new();
    rust_files(&analysis, &mut files);
    files.sort();
    files
        .iter()
        .map(|f| {
            let code = stripped(&std::fs::read_to_string(f).unwrap());
            (mod_path(&analysis, f), code)
        })
        .collect()
}

/// `src/analysis/` in layers: semantics, types, sources, judgements; each uses only the ones
/// before it, and no modules of one parent (the layers' files, a folder's files) use one
/// another in a cycle.
#[test]
fn analysis_layers_and_no_cycles() {
    let files = analysis_files();
    assert!(
        files.len() > 20,
        "src/analysis/ read: {} files",
        files.len()
    );
    let problems = analysis_problems(&files);
    assert!(
        problems.is_empty(),
        "imports against the layers of src/analysis/ (semantics, types, sources, judgements):\n  {}",
        problems.join("\n  ")
    );
}

#[test]
fn the_analysis_checker_finds_upward_uses_and_cycles() {
    let m = |path: &str| -> ModPath {
        path.split('/')
            .filter(|s| !s.is_empty())
            .map(String::from)
            .collect()
    };
    let room = |extra: &[(&str, &str)]| -> Vec<String> {
        let mut files: Vec<(ModPath, String)> = [
            (
                "",
                "pub mod semantics; pub mod types; pub mod sources; pub mod judgements;",
            ),
            ("semantics", "pub mod matching;"),
            ("semantics/matching", ""),
            (
                "types",
                "pub mod pool; pub mod workload;\npub use workload::{Workload, Term};",
            ),
            ("types/pool", ""),
            ("types/workload", ""),
            ("sources", "pub mod inventory;"),
            (
                "sources/inventory",
                "use crate::analysis::types::{Workload, pool::Pool};",
            ),
            ("judgements", "pub mod schedule; pub mod kueue;"),
            (
                "judgements/schedule",
                "use super::super::sources::inventory::Inventory;",
            ),
        ]
        .iter()
        .map(|(p, c)| (m(p), c.to_string()))
        .collect();
        for (p, c) in extra {
            files.retain(|(fp, _)| *fp != m(p));
            files.push((m(p), c.to_string()));
        }
        analysis_problems(&files)
    };
    // The room as given is clean: uses of lower layers, of the parent, of children.
    assert_eq!(room(&[]), Vec::<String>::new());
    assert_eq!(
        room(&[(
            "judgements/kueue",
            "use super::schedule::X; use crate::analysis::semantics::matching::tolerates;"
        )]),
        Vec::<String>::new()
    );
    // A type that uses a judgement: upward, by `crate::` or by `super::`.
    assert_eq!(
        room(&[(
            "types/pool",
            "let r = crate::analysis::judgements::schedule::Reason::Selector;"
        )]),
        ["analysis::types::pool uses analysis::judgements::schedule: types is below judgements"]
    );
    assert_eq!(
        room(&[(
            "semantics/matching",
            "use super::super::{types::Workload, semantics};"
        )]),
        ["analysis::semantics::matching uses analysis::types::workload: semantics is below types"]
    );
    // Two judgements that use each other, one through a `use super::{…}` group.
    assert_eq!(
        room(&[
            ("judgements/kueue", "use super::{schedule::Verdicts, near};"),
            (
                "judgements/schedule",
                "fn f() { crate::analysis::judgements::kueue::no_fit(); }"
            ),
        ]),
        ["import cycle in analysis::judgements: kueue -> schedule -> kueue"]
    );
    // A cycle through a name the layer re-exports (`types::Workload` is `types::workload`'s).
    assert_eq!(
        room(&[
            (
                "types/workload",
                "pub struct Workload { pool: super::pool::Pool }"
            ),
            ("types/pool", "use super::Workload;")
        ]),
        ["import cycle in analysis::types: pool -> workload -> pool"]
    );
    // A module outside the layers.
    assert_eq!(
        room(&[("helpers", "")]),
        ["analysis::helpers: in no layer of ANALYSIS_LAYERS (tests/layers.rs)"]
    );
}
