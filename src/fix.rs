//! `--fix`: building edits that repair findings, and applying them to a file's text.
//!
//! A fix is a set of byte-range replacements in the source text, never a re-serialised YAML
//! tree, so comments, quoting, anchors, indentation and CRLF line ends stay as they were.
//! The builders here refuse (return `None`) whenever the text around a node is not the plain
//! shape they expect: a value reached through an alias, an anchored item, a comment in an
//! odd place. A finding without a provable repair simply has no fix.

use crate::analysis::semantics::selector_slot::SelectorSlot;
use crate::diagnostic::{Applicability, Edit, Fix};
use crate::load::lines::{between, bytes, is_direct_entry, is_flow, line_start, past_line_end};
use crate::load::yaml::{Node, Style};
use crate::load::yaml11::{Resolved, resolve_plain};
use crate::load::{SourceFile, Span};

/// How many times `--fix` re-lints and re-applies before it stops.
pub const MAX_ROUNDS: usize = 10;

fn is_blank(s: &[u8]) -> bool {
    s.iter().all(|c| matches!(c, b' ' | b'\t'))
}

/// The rest of a line after `at` is blank or a comment: returns the offset past its end.
fn rest_of_line_is_free(src: &SourceFile, at: usize) -> Option<usize> {
    let end = past_line_end(src, at);
    let b = bytes(src);
    let rest = b.get(at..end)?;
    let rest = rest.strip_suffix(b"\n").unwrap_or(rest);
    let rest = rest.strip_suffix(b"\r").unwrap_or(rest);
    let trimmed: &[u8] = {
        let n = rest
            .iter()
            .take_while(|c| matches!(c, b' ' | b'\t'))
            .count();
        &rest[n..]
    };
    // A comment needs whitespace before `#` (or nothing at all).
    let ok = trimmed.is_empty() || (trimmed.starts_with(b"#") && trimmed.len() < rest.len());
    ok.then_some(end)
}

/// Replaces the content of a scalar value, keeping its quotes: `exists` → `Exists`,
/// `'noSchedule'` → `'NoSchedule'`. `None` for block scalars, escapes, or indirect values.
pub fn replace_scalar(src: &SourceFile, key: &Node, value: &Node, new: &str) -> Option<Edit> {
    if !is_direct_entry(src, key, value) {
        return None;
    }
    let scalar = value.as_scalar()?;
    if scalar.tag.is_some() {
        return None;
    }
    let span = match scalar.style {
        Style::Plain => value.span,
        Style::SingleQuoted | Style::DoubleQuoted => {
            if value.span.len() < 2 {
                return None;
            }
            Span::new(value.span.start + 1, value.span.end - 1)
        }
        Style::Literal | Style::Folded => return None,
    };
    // The raw text must be the scalar itself: no escapes, no folding, no comments.
    if src.text.get(span.start..span.end)? != &*scalar.text {
        return None;
    }
    // A new plain scalar must stay the same string to YAML.
    if scalar.style == Style::Plain && !is_plain_safe(new) {
        return None;
    }
    Some(Edit::new(src, span, new))
}

/// Quotes a plain scalar that YAML 1.1 would read as a boolean or number:
/// `yes` → `"yes"`, `010` → `"010"`.
pub fn quote_scalar(src: &SourceFile, key: &Node, value: &Node) -> Option<Edit> {
    if !is_direct_entry(src, key, value) {
        return None;
    }
    let scalar = value.as_scalar()?;
    if scalar.style != Style::Plain || scalar.tag.is_some() {
        return None;
    }
    if src.text.get(value.span.start..value.span.end)? != &*scalar.text || scalar.text.is_empty() {
        return None;
    }
    Some(Edit::new(src, value.span, double_quoted(&scalar.text)))
}

fn double_quoted(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// A string that can be written as a plain scalar and reads back as the same string.
fn is_plain_safe(s: &str) -> bool {
    !s.is_empty()
        && s.bytes()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'-' | b'_' | b'.' | b'/'))
        && !s.starts_with(['-', '.', '/'])
        && matches!(resolve_plain(s), Resolved::Str)
}

/// A scalar for new YAML text: plain when that is safe, else double-quoted.
fn yaml_scalar(s: &str) -> String {
    if is_plain_safe(s) {
        s.to_string()
    } else {
        double_quoted(s)
    }
}

/// Removes the entry whose key node is `key` from the mapping `map`.
///
/// Block style: the entry's whole line, line end included (`- key: v` as the first entry of
/// a list item keeps the `- ` and pulls the next entry up). Flow style: `, key: v` (or
/// `key: v, ` for the first entry).
pub fn remove_entry(src: &SourceFile, map: &Node, key: &Node) -> Option<Vec<Edit>> {
    let entries = map.as_map()?;
    let i = entries.iter().position(|(k, _)| std::ptr::eq(k, key))?;
    let (k, v) = &entries[i];
    if !is_direct_entry(src, k, v) || v.span.is_empty() {
        return None;
    }
    // Entries of one mapping appear in order in the text (no alias reordering).
    if entries
        .windows(2)
        .any(|w| w[1].0.span.start < w[0].1.span.end.max(w[0].0.span.end))
    {
        return None;
    }
    if is_flow(src, map) {
        let span = flow_removal(
            src,
            i,
            entries.len(),
            |j| entries[j].0.span.start,
            |j| entries[j].0.span.end.max(entries[j].1.span.end),
        )?;
        return Some(vec![Edit::new(src, span, "")]);
    }
    // Block style: one line only.
    if between(src, k.span.start, v.span.end)?
        .iter()
        .any(|&c| c == b'\n' || c == b'\r')
    {
        return None;
    }
    let start = line_start(src, k.span.start);
    let prefix = between(src, start, k.span.start)?;
    let end = rest_of_line_is_free(src, v.span.end)?;
    if is_blank(prefix) {
        return Some(vec![Edit::new(src, Span::new(start, end), "")]);
    }
    // `- key: v` followed by the next entry on the next line: pull that one up.
    if is_item_prefix(prefix) {
        let (nk, _) = entries.get(i + 1)?;
        // Exactly one line break and the next key's indentation in between.
        let gap = between(src, end, nk.span.start)?;
        if !is_blank(gap) {
            return None;
        }
        return Some(vec![Edit::new(
            src,
            Span::new(k.span.start, nk.span.start),
            "",
        )]);
    }
    None
}

/// `  - ` : indentation, a dash, spaces.
fn is_item_prefix(prefix: &[u8]) -> bool {
    let trimmed = {
        let mut p = prefix;
        while let Some((last, rest)) = p.split_last() {
            if matches!(last, b' ' | b'\t') {
                p = rest;
            } else {
                break;
            }
        }
        p
    };
    trimmed.len() < prefix.len()
        && trimmed
            .split_last()
            .is_some_and(|(last, rest)| *last == b'-' && is_blank(rest))
}

/// The span to delete to remove element `i` of `n` of a flow collection, given each
/// element's start and end: `, x` after the previous element, or `x, ` before the next.
fn flow_removal(
    src: &SourceFile,
    i: usize,
    n: usize,
    start: impl Fn(usize) -> usize,
    end: impl Fn(usize) -> usize,
) -> Option<Span> {
    let comma_only = |from: usize, to: usize| -> bool {
        between(src, from, to).is_some_and(|g| {
            g.iter().filter(|c| **c == b',').count() == 1
                && g.iter()
                    .all(|c| matches!(c, b',' | b' ' | b'\t' | b'\r' | b'\n'))
        })
    };
    if i > 0 {
        let prev_end = end(i - 1);
        (comma_only(prev_end, start(i))).then(|| Span::new(prev_end, end(i)))
    } else if i + 1 < n {
        let next = start(i + 1);
        (comma_only(end(i), next)).then(|| Span::new(start(i), next))
    } else {
        None
    }
}

/// The items of one sequence, checked once, any of which can then be removed: a list of
/// 250,000 duplicate tolerations has 249,999 removals, and checking the whole list for each
/// made them quadratic.
pub struct SeqItems<'a> {
    src: &'a SourceFile,
    seq: &'a Node,
    items: &'a [Node],
    flow: bool,
}

impl<'a> SeqItems<'a> {
    /// `None` when no item of `seq` can be removed: not a sequence, or items that are not
    /// written in order (an alias's span points at its anchor elsewhere).
    pub fn new(src: &'a SourceFile, seq: &'a Node) -> Option<Self> {
        let items = seq.as_seq()?;
        if items
            .windows(2)
            .any(|w| w[1].span.start < w[0].span.end.max(w[0].span.start + 1))
        {
            return None;
        }
        Some(SeqItems {
            src,
            seq,
            items,
            flow: is_flow(src, seq),
        })
    }

    /// Removes item `index`: its whole lines in block style, `, item` in flow style.
    /// Anchored or aliased items are refused.
    pub fn remove(&self, index: usize) -> Option<Edit> {
        let (src, seq, items) = (self.src, self.seq, self.items);
        let item = items.get(index)?;
        if item.span.is_empty() || item.span.start < seq.span.start || item.span.end > seq.span.end
        {
            return None;
        }
        if self.flow {
            let span = flow_removal(
                src,
                index,
                items.len(),
                |j| items[j].span.start,
                |j| items[j].span.end,
            )?;
            return Some(Edit::new(src, span, ""));
        }
        let start = line_start(src, item.span.start);
        if !is_item_prefix(between(src, start, item.span.start)?) {
            return None;
        }
        // A block scalar's span can end after its line break: refuse rather than guess.
        if matches!(
            bytes(src).get(item.span.end.checked_sub(1)?),
            Some(b'\n' | b'\r')
        ) {
            return None;
        }
        let end = rest_of_line_is_free(src, item.span.end)?;
        Some(Edit::new(src, Span::new(start, end), ""))
    }
}

/// Removes item `index` of the sequence `seq` (see [`SeqItems::remove`]; to remove several,
/// make one [`SeqItems`]).
pub fn remove_item(src: &SourceFile, seq: &Node, index: usize) -> Option<Edit> {
    SeqItems::new(src, seq)?.remove(index)
}

/// Inserts `nodeSelector:\n  <key>: <value>` at `slot`, at the spec's own indentation,
/// with its line end.
pub fn insert_node_selector(src: &SourceFile, slot: &SelectorSlot, key: &str, value: &str) -> Edit {
    let indent = " ".repeat(usize::from(slot.indent));
    let eol = slot.eol.as_str();
    let text = format!(
        "{indent}nodeSelector:{eol}{indent}  {}: {}{eol}",
        yaml_scalar(key),
        yaml_scalar(value)
    );
    Edit::new(src, Span::empty(slot.at), text)
}

/// A fix from one edit, when there is one.
pub fn single(
    applicability: Applicability,
    title: impl Into<std::borrow::Cow<'static, str>>,
    edit: Option<Edit>,
) -> Option<Fix> {
    edit.map(|e| Fix {
        applicability,
        title: title.into(),
        edits: vec![e],
    })
}

fn overlaps(a: Span, b: Span) -> bool {
    if a.is_empty() || b.is_empty() {
        // An insertion conflicts with anything touching its point.
        let (p, other) = if a.is_empty() {
            (a.start, b)
        } else {
            (b.start, a)
        };
        return other.start <= p && p <= other.end;
    }
    a.start < b.end && b.start < a.end
}

/// The edits `apply` takes from `fixes`, sorted by position, and the number of fixes they
/// come from: every fix whose edits are valid (in range, on character boundaries) and
/// overlap no edit taken before, in order of position. A fix identical to one already taken
/// (the same finding reached through an alias) counts once. In n log n: the taken edits are
/// kept ordered, and each new edit is compared with its neighbours there only.
pub fn plan<'a>(text: &str, fixes: &[&'a Fix]) -> (Vec<&'a Edit>, usize) {
    let mut order: Vec<&Fix> = fixes
        .iter()
        .copied()
        .filter(|f| !f.edits.is_empty())
        .collect();
    order.sort_by_key(|f| f.edits.iter().map(|e| (e.span.start, e.span.end)).min());
    let mut taken = Taken::default();
    let mut taken_fixes: std::collections::HashSet<&[Edit]> = std::collections::HashSet::new();
    let mut count = 0;
    for fix in order {
        if taken_fixes.contains(fix.edits.as_slice()) {
            continue;
        }
        let valid = fix.edits.iter().all(|e| {
            e.span.start <= e.span.end
                && e.span.end <= text.len()
                && text.is_char_boundary(e.span.start)
                && text.is_char_boundary(e.span.end)
        });
        if !valid || fix.edits.iter().any(|e| taken.conflicts(e.span)) || self_overlaps(fix) {
            continue;
        }
        for e in &fix.edits {
            taken.insert(e);
        }
        taken_fixes.insert(&fix.edits);
        count += 1;
    }
    (taken.into_sorted(), count)
}

/// Whether two edits of one fix overlap each other.
fn self_overlaps(fix: &Fix) -> bool {
    let mut seen = Taken::default();
    fix.edits.iter().any(|e| {
        let conflict = seen.conflicts(e.span);
        seen.insert(e);
        conflict
    })
}

/// The edits taken so far, by (start, end): no two of them [`overlaps`], so their ends
/// grow with their starts, and a new span can meet only the last ones starting at or before
/// its end.
#[derive(Default)]
struct Taken<'a> {
    edits: std::collections::BTreeMap<(usize, usize), &'a Edit>,
}

impl<'a> Taken<'a> {
    fn conflicts(&self, span: Span) -> bool {
        // Every taken edit starting at or before `span.end`, latest first: once one ends
        // before `span` starts (and is not an insertion at its start), no earlier one can
        // reach it.
        for (&(start, end), _) in self.edits.range(..=(span.end, usize::MAX)).rev() {
            if overlaps(Span::new(start, end), span) {
                return true;
            }
            if end < span.start {
                return false;
            }
        }
        false
    }

    fn insert(&mut self, e: &'a Edit) {
        self.edits.insert((e.span.start, e.span.end), e);
    }

    fn into_sorted(self) -> Vec<&'a Edit> {
        self.edits.into_values().collect()
    }
}

/// Applies the fixes `plan` takes to `text`: the new text and the number of fixes applied.
pub fn apply(text: &str, fixes: &[&Fix]) -> (String, usize) {
    let (taken, n) = plan(text, fixes);
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for e in &taken {
        out.push_str(text.get(at..e.span.start).unwrap_or(""));
        out.push_str(&e.replacement);
        at = e.span.end;
    }
    out.push_str(text.get(at..).unwrap_or(""));
    (out, n)
}

/// A unified diff of one file (`--- a/name` / `+++ b/name`), empty when nothing changed.
pub fn unified_diff(name: &str, old: &str, new: &str) -> String {
    if old == new {
        return String::new();
    }
    // `a/` and `b/` as git writes them: `git apply` and `patch -p1` take the diff as it is.
    let path = name.strip_prefix("./").unwrap_or(name);
    crate::util::diff::unified(&format!("a/{path}"), &format!("b/{path}"), old, new)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::load::yaml::{Limits, parse};

    fn src(text: &str) -> std::sync::Arc<SourceFile> {
        SourceFile::new("t.yaml", text.to_string())
    }

    fn root(text: &str) -> Node {
        parse(text, Limits::default())
            .documents
            .remove(0)
            .root
            .expect("root")
    }

    fn run(text: &str, edits: Vec<Edit>) -> String {
        let fix = Fix::safe("t", edits);
        apply(text, &[&fix]).0
    }

    #[test]
    fn removes_block_entry_lines_keeping_crlf() {
        let text = "a: 1\r\nb: 2 # c\r\nc: 3\r\n";
        let s = src(text);
        let r = root(text);
        let (k, _) = r.entry("b").expect("b");
        let edits = remove_entry(&s, &r, k).expect("edit");
        assert_eq!(run(text, edits), "a: 1\r\nc: 3\r\n");
    }

    #[test]
    fn removes_first_entry_of_an_item() {
        let text = "l:\n  - value: x\n    key: a\n";
        let s = src(text);
        let r = root(text);
        let m = &r.get("l").expect("l").as_seq().expect("seq")[0];
        let (k, _) = m.entry("value").expect("value");
        let edits = remove_entry(&s, m, k).expect("edit");
        assert_eq!(run(text, edits), "l:\n  - key: a\n");
    }

    #[test]
    fn removes_flow_entries() {
        for (text, key, want) in [
            (
                "{key: a, operator: Exists, value: x}",
                "value",
                "{key: a, operator: Exists}",
            ),
            (
                "{value: x, key: a, operator: Exists}",
                "value",
                "{key: a, operator: Exists}",
            ),
        ] {
            let s = src(text);
            let r = root(text);
            let (k, _) = r.entry(key).expect("key");
            let edits = remove_entry(&s, &r, k).expect("edit");
            assert_eq!(run(text, edits), want);
        }
    }

    #[test]
    fn refuses_aliases() {
        let text = "x: &v gpu\nm:\n  value: *v\n  key: a\n";
        let s = src(text);
        let r = root(text);
        let m = r.get("m").expect("m");
        let (k, v) = m.entry("value").expect("value");
        assert!(remove_entry(&s, m, k).is_none());
        assert!(quote_scalar(&s, k, v).is_none());
    }

    #[test]
    fn removes_items() {
        let text = "l:\n  - a: 1\n    b: 2\n  - a: 1 # dup\n    b: 2\nz: [x, y, y]\n";
        let s = src(text);
        let r = root(text);
        let l = r.get("l").expect("l");
        let e = remove_item(&s, l, 1).expect("edit");
        assert_eq!(run(text, vec![e]), "l:\n  - a: 1\n    b: 2\nz: [x, y, y]\n");
        let z = r.get("z").expect("z");
        let e = remove_item(&s, z, 2).expect("edit");
        assert_eq!(
            run(text, vec![e]),
            "l:\n  - a: 1\n    b: 2\n  - a: 1 # dup\n    b: 2\nz: [x, y]\n"
        );
    }

    #[test]
    fn replaces_keeping_quotes() {
        let text = "a: 'exists'\nb: exists\n";
        let s = src(text);
        let r = root(text);
        let (k, v) = r.entry("a").expect("a");
        let e = replace_scalar(&s, k, v, "Exists").expect("a");
        let (k, v) = r.entry("b").expect("b");
        let e2 = replace_scalar(&s, k, v, "Exists").expect("b");
        assert_eq!(run(text, vec![e, e2]), "a: 'Exists'\nb: Exists\n");
    }

    /// `plan` as it was: every fix compared with every fix taken before (quadratic).
    fn pairwise_plan<'a>(text: &str, fixes: &[&'a Fix]) -> (Vec<&'a Edit>, usize) {
        let mut order: Vec<&Fix> = fixes
            .iter()
            .copied()
            .filter(|f| !f.edits.is_empty())
            .collect();
        order.sort_by_key(|f| f.edits.iter().map(|e| (e.span.start, e.span.end)).min());
        let mut taken: Vec<&Edit> = Vec::new();
        let mut taken_fixes: Vec<&Fix> = Vec::new();
        for fix in order {
            if taken_fixes.iter().any(|t| t.edits == fix.edits) {
                continue;
            }
            let valid = fix.edits.iter().all(|e| {
                e.span.start <= e.span.end
                    && e.span.end <= text.len()
                    && text.is_char_boundary(e.span.start)
                    && text.is_char_boundary(e.span.end)
            });
            let conflict = fix.edits.iter().enumerate().any(|(i, e)| {
                taken.iter().any(|t| overlaps(t.span, e.span))
                    || fix.edits[i + 1..].iter().any(|o| overlaps(o.span, e.span))
            });
            if valid && !conflict {
                taken.extend(&fix.edits);
                taken_fixes.push(fix);
            }
        }
        taken.sort_by_key(|e| (e.span.start, e.span.end));
        (taken, taken_fixes.len())
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(3000))]

        /// The ordered plan takes the fixes the pairwise one took: insertions, touching and
        /// nested spans, duplicates, edits past the end, several edits per fix.
        #[test]
        fn plan_is_the_pairwise_plan(
            fixes in proptest::collection::vec(
                proptest::collection::vec((0usize..24, 0usize..5, 0usize..2), 1..4),
                0..12,
            )
        ) {
            let text = "abcdefghij\u{e9}klmnopqrs";
            let s = src(text);
            let fixes: Vec<Fix> = fixes
                .iter()
                .map(|edits| {
                    Fix::safe(
                        "t",
                        edits
                            .iter()
                            .map(|&(start, len, r)| {
                                Edit::new(&s, Span::new(start, start + len), ["", "x"][r])
                            })
                            .collect(),
                    )
                })
                .collect();
            let refs: Vec<&Fix> = fixes.iter().collect();
            let (a, n) = plan(text, &refs);
            let (b, m) = pairwise_plan(text, &refs);
            proptest::prop_assert_eq!(n, m);
            proptest::prop_assert_eq!(a, b);
        }
    }

    /// 250,000 duplicate items (the issue's case): one edit each but the first, planned
    /// and applied in one pass.
    #[test]
    fn removing_many_items_keeps_the_first() {
        let mut text = String::from("l:\n");
        for _ in 0..250_000 {
            text.push_str("  - key: a\n    operator: Exists\n");
        }
        let s = src(&text);
        let r = root(&text);
        let l = r.get("l").expect("l");
        let items = SeqItems::new(&s, l).expect("items");
        let fixes: Vec<Fix> = (1..250_000)
            .map(|i| Fix::safe("t", vec![items.remove(i).expect("edit")]))
            .collect();
        let refs: Vec<&Fix> = fixes.iter().collect();
        let (fixed, n) = apply(&text, &refs);
        assert_eq!(n, 249_999);
        assert_eq!(fixed, "l:\n  - key: a\n    operator: Exists\n");
    }

    #[test]
    fn overlapping_fixes_are_skipped() {
        let text = "abcdef";
        let s = src(text);
        let a = Fix::safe("a", vec![Edit::new(&s, Span::new(1, 3), "X")]);
        let b = Fix::safe("b", vec![Edit::new(&s, Span::new(2, 4), "Y")]);
        let c = Fix::safe("c", vec![Edit::new(&s, Span::new(4, 5), "Z")]);
        assert_eq!(apply(text, &[&b, &a, &c]), ("aXdZf".to_string(), 2));
    }
}
