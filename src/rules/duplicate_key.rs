//! `duplicate-key`: a mapping key given twice; kubectl keeps the last one (SEMANTICS §6).

use super::decoding::*;

pub static DUPLICATE_KEY: RuleMeta = RuleMeta {
    name: "duplicate-key",
    summary: "A mapping key given twice; kubectl silently keeps the last one",
    category: Category::Correctness,
    severity: Severity::Warning,
    enabled: true,
    docs: include_str!("../../rules/duplicate-key.md"),
};

pub fn check_duplicate_key(ctx: &Ctx<'_>, out: &mut Vec<Finding>) {
    // Kinds without scheduling fields are out of scope (the fast path does not parse them).
    if crate::load::prescan::is_skippable_kind(ctx.object.kind, ctx.object.group) {
        return;
    }
    duplicates(ctx.object.node, "", out, 0);
}

fn duplicates(node: &Node, path: &str, out: &mut Vec<Finding>, depth: usize) {
    if depth > 200 {
        return;
    }
    match &node.value {
        Value::Map(entries) => {
            for (i, (k, v)) in entries.iter().enumerate() {
                let Some(key) = k.text() else { continue };
                let child = join(path, key);
                if let Some((wk, _)) = entries[i + 1..]
                    .iter()
                    .rev()
                    .find(|(k2, _)| k2.text() == Some(key))
                {
                    out.push(
                        Finding::new(
                            DUPLICATE_KEY.name,
                            DUPLICATE_KEY.severity,
                            format!("key `{key}` is given more than once; kubectl keeps only the last one and drops this one"),
                        )
                        .primary(k.span, "ignored")
                        .secondary(wk.span, "this one wins")
                        .help("remove one of the keys, or merge their contents")
                        .field(child.clone()),
                    );
                }
                duplicates(v, &child, out, depth + 1);
            }
        }
        Value::Seq(items) => {
            for (i, item) in items.iter().enumerate() {
                duplicates(item, &format!("{path}[{i}]"), out, depth + 1);
            }
        }
        Value::Scalar(_) => {}
    }
}
