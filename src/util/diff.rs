//! A unified line diff in linear time, for `check --diff` (#49).
//!
//! **Why not `similar`'s diff.** `similar` (which this module replaced) computes a shortest
//! edit script with Myers' algorithm: its work is the lines times the edits, so a file of a
//! few MB whose fixes touch every other line took 43 s; its only bound is a wall-clock
//! deadline, after which the diff depends on the machine's speed, and output must not. A
//! diff of fixes needs no shortest script: any script that turns the old text into the new
//! one is applied the same by `git apply` and `patch`. This one keeps the lines the two texts
//! share at their start and end, then walks the rest in step: where the lines differ it looks
//! a bounded distance ([`WINDOW`] lines) ahead in each text for the line the other has, and
//! takes the nearer as a deletion or an insertion, else replaces one line by one — at most
//! [`WINDOW`] comparisons per line. Fixes delete or rewrite a few lines in place, which this
//! finds as a shortest script would.

/// Lines looked ahead for a line the other text has (see the module's text).
const WINDOW: usize = 64;

/// Lines of context around each change.
const CONTEXT: usize = 3;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Op {
    Same,
    Delete,
    Insert,
}

/// A unified diff of `old` and `new` (`--- a/name` / `+++ b/name` headers written by the
/// caller through `old_name` and `new_name`); empty when they are the same.
pub fn unified(old_name: &str, new_name: &str, old: &str, new: &str) -> String {
    if old == new {
        return String::new();
    }
    let a: Vec<&str> = old.split_inclusive('\n').collect();
    let b: Vec<&str> = new.split_inclusive('\n').collect();
    let script = script(&a, &b);
    let mut out = format!("--- {old_name}\n+++ {new_name}\n");
    // Hunks: runs of changes with CONTEXT lines around them, merged where their contexts meet.
    let changes: Vec<usize> = script
        .iter()
        .enumerate()
        .filter(|(_, (op, _, _))| *op != Op::Same)
        .map(|(k, _)| k)
        .collect();
    let mut k = 0;
    while k < changes.len() {
        let start = changes[k].saturating_sub(CONTEXT);
        let mut last = changes[k];
        while k + 1 < changes.len() && changes[k + 1] <= last + 2 * CONTEXT + 1 {
            k += 1;
            last = changes[k];
        }
        k += 1;
        let end = (last + CONTEXT + 1).min(script.len());
        hunk(&mut out, &script[start..end], &a, &b);
    }
    out
}

/// The edit script: each step with the index of its line in `a` and in `b` (the position
/// before which it stands, for the side it is not on).
fn script(a: &[&str], b: &[&str]) -> Vec<(Op, usize, usize)> {
    let prefix = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    let suffix = a[prefix..]
        .iter()
        .rev()
        .zip(b[prefix..].iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    let (a_end, b_end) = (a.len() - suffix, b.len() - suffix);
    let mut out: Vec<(Op, usize, usize)> = (0..prefix).map(|i| (Op::Same, i, i)).collect();
    let (mut i, mut j) = (prefix, prefix);
    while i < a_end || j < b_end {
        if i < a_end && j < b_end && a[i] == b[j] {
            out.push((Op::Same, i, j));
            i += 1;
            j += 1;
            continue;
        }
        // The nearest resynchronisation: `a`'s lines deleted until `b[j]`, or `b`'s inserted
        // until `a[i]`.
        let deleted = ahead(a, i, a_end, b.get(j).filter(|_| j < b_end));
        let inserted = ahead(b, j, b_end, a.get(i).filter(|_| i < a_end));
        // The nearer of the two (a deletion when as near).
        let insert = inserted.filter(|n| deleted.is_none_or(|d| *n < d));
        match (deleted, insert) {
            (_, Some(n)) => {
                out.extend((j..j + n).map(|jj| (Op::Insert, i, jj)));
                j += n;
            }
            (Some(d), None) => {
                out.extend((i..i + d).map(|ii| (Op::Delete, ii, j)));
                i += d;
            }
            (None, None) => {
                if i < a_end {
                    out.push((Op::Delete, i, j));
                    i += 1;
                }
                if j < b_end {
                    out.push((Op::Insert, i, j));
                    j += 1;
                }
            }
        }
    }
    out.extend((0..suffix).map(|k| (Op::Same, a_end + k, b_end + k)));
    // Within a run of changes, deletions before insertions (as diffs are read).
    let mut k = 0;
    while k < out.len() {
        if out[k].0 == Op::Same {
            k += 1;
            continue;
        }
        let run_end = out[k..]
            .iter()
            .position(|s| s.0 == Op::Same)
            .map_or(out.len(), |p| k + p);
        out[k..run_end].sort_by_key(|s| (s.0 == Op::Insert, s.1, s.2));
        k = run_end;
    }
    out
}

/// How far past `from` (at most [`WINDOW`] lines, before `end`) `lines` has `line`.
fn ahead(lines: &[&str], from: usize, end: usize, line: Option<&&str>) -> Option<usize> {
    let line = line?;
    (1..=WINDOW)
        .take_while(|k| from + k < end)
        .find(|k| lines[from + k] == *line)
}

/// One hunk of the steps `steps` (a slice of the script).
fn hunk(out: &mut String, steps: &[(Op, usize, usize)], a: &[&str], b: &[&str]) {
    let Some(&(_, a0, b0)) = steps.first() else {
        return;
    };
    let a_len = steps.iter().filter(|s| s.0 != Op::Insert).count();
    let b_len = steps.iter().filter(|s| s.0 != Op::Delete).count();
    // GNU diff's ranges: the first line (1-based), or the line before an empty range.
    let range = |start: usize, len: usize| match len {
        0 => format!("{start},0"),
        1 => format!("{}", start + 1),
        _ => format!("{},{len}", start + 1),
    };
    out.push_str(&format!(
        "@@ -{} +{} @@\n",
        range(a0, a_len),
        range(b0, b_len)
    ));
    for &(op, i, j) in steps {
        let (mark, line) = match op {
            Op::Same => (' ', a[i]),
            Op::Delete => ('-', a[i]),
            Op::Insert => ('+', b[j]),
        };
        out.push(mark);
        out.push_str(line);
        if !line.ends_with('\n') {
            out.push_str("\n\\ No newline at end of file\n");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Applies a unified diff to `old` as `patch` does (hunks in order, context checked).
    fn apply(old: &str, diff: &str) -> String {
        let a: Vec<&str> = old.split_inclusive('\n').collect();
        let mut out = String::new();
        let mut at = 0usize;
        let mut lines = diff.split_inclusive('\n').skip(2).peekable();
        while let Some(h) = lines.next() {
            let h = h.strip_prefix("@@ -").expect("hunk header");
            let old_range = h.split(' ').next().expect("range");
            let mut parts = old_range.split(',');
            let first: usize = parts.next().expect("start").parse().expect("number");
            let len: usize = parts.next().map_or(1, |l| l.parse().expect("number"));
            let start = if len == 0 { first } else { first - 1 };
            out.extend(a[at..start].iter().copied());
            at = start;
            while let Some(l) = lines.next_if(|l| !l.starts_with("@@")) {
                let (mark, text) = l.split_at(1);
                let no_newline = lines.next_if(|n| n.starts_with("\\ No newline"));
                let text = if no_newline.is_some() {
                    text.strip_suffix('\n').expect("line")
                } else {
                    text
                };
                match mark {
                    " " => {
                        assert_eq!(a[at], text, "context");
                        out.push_str(text);
                        at += 1;
                    }
                    "-" => {
                        assert_eq!(a[at], text, "deleted line");
                        at += 1;
                    }
                    "+" => out.push_str(text),
                    _ => panic!("{l:?}"),
                }
            }
        }
        out.extend(a[at..].iter().copied());
        out
    }

    #[test]
    fn diffs_apply_and_read_as_diffs() {
        let old = "a\nb\nc\nd\ne\nf\ng\nh\ni\nj\nk\n";
        let new = "a\nb\nc\nd\nf\ng\nh\ni\nJ\nk\n";
        let d = unified("a/x", "b/x", old, new);
        assert_eq!(
            d,
            "--- a/x\n+++ b/x\n@@ -2,10 +2,9 @@\n b\n c\n d\n-e\n f\n g\n h\n i\n-j\n+J\n k\n"
        );
        assert_eq!(apply(old, &d), new);
        assert_eq!(unified("a/x", "b/x", old, old), "");
        // Far apart: two hunks.
        let long: String = (0..40).map(|i| format!("l{i}\n")).collect();
        let edited = long.replace("l2\n", "").replace("l30\n", "L30\n");
        let d = unified("a/x", "b/x", &long, &edited);
        assert_eq!(d.matches("@@ -").count(), 2, "{d}");
        assert_eq!(apply(&long, &d), edited);
        // No newline at the end, on either side.
        for (o, n) in [
            ("a\nb", "a\nc"),
            ("a\nb\n", "a\nb"),
            ("a", "b\n"),
            ("", "x\n"),
            ("x\n", ""),
        ] {
            let d = unified("a/x", "b/x", o, n);
            assert_eq!(apply(o, &d), n, "{o:?} -> {n:?}: {d}");
        }
    }

    /// Random edits of random texts (few distinct lines, so that many lines repeat): each
    /// diff applies to the old text and gives the new one.
    #[test]
    fn every_diff_applies() {
        let mut seed = 0x9e37_79b9_7f4a_7c15_u64;
        let mut next = |n: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % n
        };
        for _ in 0..500 {
            let lines: Vec<String> = (0..next(30)).map(|_| format!("l{}\n", next(4))).collect();
            let mut edited = lines.clone();
            for _ in 0..next(6) {
                let at = next(edited.len() as u64 + 1) as usize;
                match next(3) {
                    0 if at < edited.len() => {
                        edited.remove(at);
                    }
                    1 => edited.insert(at, format!("n{}\n", next(3))),
                    _ if at < edited.len() => edited[at] = format!("r{}\n", next(3)),
                    _ => {}
                }
            }
            let (old, new) = (lines.concat(), edited.concat());
            let d = unified("a/x", "b/x", &old, &new);
            assert_eq!(apply(&old, &d), new, "{old:?} -> {new:?}:\n{d}");
        }
    }

    /// Identical lines everywhere (a hostile file's duplicated tolerations, most removed): one
    /// pass with bounded look-ahead, not lines times edits.
    #[test]
    fn many_identical_lines_stay_linear() {
        let line = "    - {key: dedicated, operator: Equal, value: gpu, effect: NoSchedule}\n";
        let old = format!("spec:\n  tolerations:\n{}end: 1\n", line.repeat(200_000));
        let new = format!("spec:\n  tolerations:\n{line}end: 1\n");
        let d = unified("a/x", "b/x", &old, &new);
        assert_eq!(d.matches("\n-").count(), 199_999);
        assert_eq!(apply(&old, &d), new);
    }
}
