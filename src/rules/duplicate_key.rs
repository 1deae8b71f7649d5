//! `duplicate-key`: a mapping key given twice; kubectl keeps the last one (SEMANTICS §6).

use super::Rule;
use super::decoding::*;

pub static META: RuleMeta = RuleMeta {
    name: "duplicate-key",
    summary: "A mapping key given twice; kubectl silently keeps the last one",
    category: Category::Correctness,
    severity: Severity::Warning,
    enabled: true,
    docs: include_str!("../../rules/duplicate-key.md"),
};

pub static RULE: Rule = Rule::new(&META).check(check);

pub fn check(ctx: &Ctx<'_>, out: &mut Vec<Finding>) {
    // Kinds without scheduling fields are out of scope (the fast path does not parse them).
    if crate::load::prescan::is_skippable_kind(ctx.object.kind, ctx.object.group) {
        return;
    }
    duplicates(ctx.object.node, &mut Vec::new(), out);
}

/// A step of a field path, kept unformatted until a finding needs it.
enum Step<'a> {
    Key(&'a str),
    Index(usize),
}

fn path_text(path: &[Step<'_>]) -> String {
    let mut s = String::new();
    for step in path {
        match step {
            Step::Key(k) => {
                if !s.is_empty() {
                    s.push('.');
                }
                s.push_str(k);
            }
            Step::Index(i) => s.push_str(&format!("[{i}]")),
        }
    }
    s
}

fn duplicates<'a>(node: &'a Node, path: &mut Vec<Step<'a>>, out: &mut Vec<Finding>) {
    if path.len() > 200 {
        return;
    }
    match &node.value {
        Value::Map(entries) => {
            for (i, (k, v)) in entries.iter().enumerate() {
                let Some(key) = k.text() else { continue };
                path.push(Step::Key(key));
                if let Some((wk, _)) = entries[i + 1..]
                    .iter()
                    .rev()
                    .find(|(k2, _)| k2.text() == Some(key))
                {
                    out.push(
                        META.finding(format!("key `{key}` is given more than once; kubectl keeps only the last one and drops this one"),
                        )
                        .primary(k.span, "ignored")
                        .secondary(wk.span, "this one wins")
                        .help("remove one of the keys, or merge their contents")
                        .field(path_text(path)),
                    );
                }
                duplicates(v, path, out);
                path.pop();
            }
        }
        Value::Seq(items) => {
            for (i, item) in items.iter().enumerate() {
                path.push(Step::Index(i));
                duplicates(item, path, out);
                path.pop();
            }
        }
        Value::Scalar(_) => {}
    }
}
