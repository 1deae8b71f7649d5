//! `duplicate-key`: a mapping key given twice; kubectl keeps the last one (kubectl's YAML decoding
//! (sigs.k8s.io/yaml over go-yaml v2) and the server's typed decoding).

use std::collections::HashMap;

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

/// The index of the last entry of each scalar key: one pass, so a mapping of 100,000 keys
/// costs what its keys cost, not their pairs (#22).
fn last_of_each_key(entries: &[(Node, Node)]) -> HashMap<&str, usize> {
    let mut last = HashMap::with_capacity(entries.len());
    for (i, (k, _)) in entries.iter().enumerate() {
        if let Some(key) = k.text() {
            last.insert(key, i);
        }
    }
    last
}

fn duplicates<'a>(node: &'a Node, path: &mut Vec<Step<'a>>, out: &mut Vec<Finding>) {
    if path.len() > 200 {
        return;
    }
    match &node.value {
        Value::Map(entries) => {
            // A few keys are compared directly; past that, an index.
            let last = (entries.len() > 16).then(|| last_of_each_key(entries));
            for (i, (k, v)) in entries.iter().enumerate() {
                let Some(key) = k.text() else { continue };
                path.push(Step::Key(key));
                let winner = match &last {
                    Some(last) => last
                        .get(key)
                        .filter(|&&j| j > i)
                        .and_then(|&j| entries.get(j)),
                    None => entries[i + 1..]
                        .iter()
                        .rev()
                        .find(|(k2, _)| k2.text() == Some(key)),
                };
                if let Some((wk, _)) = winner {
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

#[cfg(test)]
mod tests {
    use super::*;

    /// (duplicate key, winning key) spans of every finding over `text`'s first document.
    fn found(text: &str) -> Vec<(crate::load::Span, crate::load::Span, Option<String>)> {
        let stream = crate::load::yaml::parse(text, crate::load::yaml::Limits::default());
        let root = stream.documents[0].root.as_ref().unwrap();
        let mut out = Vec::new();
        duplicates(root, &mut Vec::new(), &mut out);
        out.iter()
            .map(|f| {
                (
                    f.primary.as_ref().unwrap().span,
                    f.secondary[0].span,
                    f.field.as_ref().map(ToString::to_string),
                )
            })
            .collect()
    }

    /// Past 16 keys the index names the same winner as a scan of the keys after each one:
    /// a mapping of 2,000 keys, one in five repeated, gives the scan's findings (#22).
    #[test]
    fn index_equals_the_scan() {
        let key = |i: usize| if i.is_multiple_of(5) { i % 40 } else { i };
        let mut big = String::from("m:\n");
        for i in 0..2000 {
            big.push_str(&format!("  k{}: {i}\n", key(i)));
        }
        let spans = found(&big);
        // The naive scan, by hand: for each key, the last later entry with the same key.
        let stream = crate::load::yaml::parse(&big, crate::load::yaml::Limits::default());
        let root = stream.documents[0].root.as_ref().unwrap();
        let entries = root.get("m").unwrap().as_map().unwrap();
        let mut want = Vec::new();
        for (i, (k, _)) in entries.iter().enumerate() {
            if let Some((w, _)) = entries[i + 1..].iter().rev().find(|(k2, _)| k2.text() == k.text()) {
                want.push((k.span, w.span, Some(format!("m.{}", k.text().unwrap()))));
            }
        }
        assert!(want.len() > 300, "{}", want.len());
        assert_eq!(spans, want);
    }
}
