//! Small helpers shared by rules and the CLI.

pub mod diff;
pub mod fs;
pub mod glob;
pub mod markup;
pub mod nearest;
pub mod text;
pub mod work;

/// Texts longer than this (in bytes) are not compared letter by letter (see [`edit_distance`]).
const LONGEST: usize = 512;

/// Levenshtein distance, for did-you-mean suggestions. Texts longer than any Kubernetes name
/// (hostile input) are not compared letter by letter: their distance is the longer length.
pub fn edit_distance(a: &str, b: &str) -> usize {
    if a.len() > LONGEST || b.len() > LONGEST {
        return if a == b {
            0
        } else {
            a.chars().count().max(b.chars().count())
        };
    }
    // No bound: every cell of the table is within `max(len)` of the diagonal.
    let all = a.len().max(b.len());
    table(a, b, all).unwrap_or(all)
}

/// [`edit_distance`] when it is at most `max`, else `None`: the same number, found without
/// filling the whole table, for a did-you-mean that only wants near words.
pub fn edit_distance_within(a: &str, b: &str, max: usize) -> Option<usize> {
    if a.len() > LONGEST || b.len() > LONGEST {
        return Some(edit_distance(a, b)).filter(|d| *d <= max);
    }
    table(a, b, max)
}

/// The Levenshtein table of `a` and `b` (letters: bytes when both are ASCII, else `char`s),
/// saturated at `max + 1`: only the cells within `max` of the diagonal are computed (a cell
/// is at least its distance from the diagonal), and it stops when a whole row is past `max`
/// (a row's least cell never decreases).
fn table(a: &str, b: &str, max: usize) -> Option<usize> {
    if a.is_ascii() && b.is_ascii() {
        banded(a.as_bytes(), b.as_bytes(), max)
    } else {
        let a: Vec<char> = a.chars().collect();
        let b: Vec<char> = b.chars().collect();
        banded(&a, &b, max)
    }
}

fn banded<T: PartialEq>(a: &[T], b: &[T], max: usize) -> Option<usize> {
    if a.len().abs_diff(b.len()) > max {
        return None;
    }
    let cap = max.saturating_add(1);
    let m = b.len();
    let mut prev: Vec<usize> = (0..=m).map(|j| j.min(cap)).collect();
    let mut cur = vec![cap; m + 1];
    for (i, ca) in a.iter().enumerate() {
        let row = i + 1;
        let lo = row.saturating_sub(max).max(1);
        let hi = row.saturating_add(max).min(m);
        cur[0] = row.min(cap);
        // The cells just outside the band, read by this row and the next.
        if lo > 1 {
            cur[lo - 1] = cap;
        }
        if hi < m {
            cur[hi + 1] = cap;
        }
        let mut least = cur[0];
        for j in lo..=hi {
            let cost = usize::from(*ca != b[j - 1]);
            let v = (prev[j - 1] + cost)
                .min(prev[j] + 1)
                .min(cur[j - 1] + 1)
                .min(cap);
            cur[j] = v;
            least = least.min(v);
        }
        if least >= cap {
            return None;
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    Some(prev[m]).filter(|d| *d <= max)
}

/// The candidate nearest to `word` within `max` edits (case-insensitive match first).
pub fn nearest<'a>(word: &str, candidates: &[&'a str], max: usize) -> Option<&'a str> {
    if let Some(c) = candidates.iter().find(|c| c.eq_ignore_ascii_case(word)) {
        return Some(c);
    }
    let word = word.to_ascii_lowercase();
    candidates
        .iter()
        .filter_map(|c| {
            Some((
                edit_distance_within(&word, &c.to_ascii_lowercase(), max)?,
                *c,
            ))
        })
        .min()
        .map(|(_, c)| c)
}

/// Entries an interning table keeps per thread; past it, values are shared no more (a
/// corpus of unique values must not grow the table without bound).
pub const INTERN_MAX: usize = 1 << 16;

thread_local! {
    static STRINGS: std::cell::RefCell<std::collections::HashSet<std::sync::Arc<str>>> =
        std::cell::RefCell::new(std::collections::HashSet::new());
}

/// One shared copy of `s` per worker thread. The scheduling data kept for every workload
/// until the cross-reference runs (keys, operators, effects, field paths) repeats across
/// thousands of replicas of one spec; sharing it keeps that memory small.
pub fn intern(s: &str) -> std::sync::Arc<str> {
    STRINGS.with(|table| {
        let Ok(mut table) = table.try_borrow_mut() else {
            return std::sync::Arc::from(s);
        };
        if let Some(shared) = table.get(s) {
            return std::sync::Arc::clone(shared);
        }
        let shared: std::sync::Arc<str> = std::sync::Arc::from(s);
        if table.len() < INTERN_MAX {
            table.insert(std::sync::Arc::clone(&shared));
        }
        shared
    })
}

#[cfg(test)]
mod intern_tests {
    use super::*;

    #[test]
    fn equal_strings_share_one_copy() {
        let a = intern("node.kubernetes.io/not-ready");
        let b = intern(&String::from("node.kubernetes.io/not-ready"));
        assert!(std::sync::Arc::ptr_eq(&a, &b));
        assert_eq!(&*a, "node.kubernetes.io/not-ready");
        assert!(!std::sync::Arc::ptr_eq(&a, &intern("other")));
    }
}

#[cfg(test)]
mod distance_tests {
    use super::*;

    /// The whole table over `char`s, as `edit_distance` computed it before the band.
    fn full(a: &str, b: &str) -> usize {
        let b: Vec<char> = b.chars().collect();
        let mut prev: Vec<usize> = (0..=b.len()).collect();
        let mut cur = vec![0; b.len() + 1];
        for (i, ca) in a.chars().enumerate() {
            cur[0] = i + 1;
            for (j, cb) in b.iter().enumerate() {
                let cost = usize::from(ca != *cb);
                cur[j + 1] = (prev[j] + cost).min(prev[j + 1] + 1).min(cur[j] + 1);
            }
            std::mem::swap(&mut prev, &mut cur);
        }
        prev[b.len()]
    }

    #[test]
    fn the_band_gives_the_whole_tables_distance() {
        // Words over a small alphabet (ASCII and not), so that near and far pairs both occur;
        // a fixed linear congruential sequence keeps the test repeatable.
        let letters = ['a', 'b', 'c', '.', '/', 'é', 'ß'];
        let mut seed = 0x2545_f491_u64;
        let mut next = |n: u64| {
            seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
            (seed >> 33) % n
        };
        let mut words = vec![String::new(), "kubernetes.io/hostname".to_string()];
        for _ in 0..300 {
            let len = next(12);
            let ascii = next(2) == 0;
            words.push(
                (0..len)
                    .map(|_| letters[next(if ascii { 5 } else { 7 }) as usize])
                    .collect(),
            );
        }
        for a in &words {
            for b in words.iter().take(60) {
                let d = full(a, b);
                assert_eq!(edit_distance(a, b), d, "{a:?} {b:?}");
                for max in 0..=6 {
                    let want = (d <= max).then_some(d);
                    assert_eq!(edit_distance_within(a, b, max), want, "{a:?} {b:?} {max}");
                }
                assert_eq!(edit_distance_within(a, b, usize::MAX), Some(d));
            }
        }
        let long = "x".repeat(LONGEST + 1);
        assert_eq!(edit_distance(&long, "x"), LONGEST + 1);
        assert_eq!(edit_distance_within(&long, &long, 0), Some(0));
        assert_eq!(edit_distance_within(&long, "x", 3), None);
    }

    #[test]
    fn nearest_prefers_case_then_distance_then_order() {
        let ops = ["In", "NotIn", "Exists", "DoesNotExist"];
        assert_eq!(nearest("in", &ops, 2), Some("In"));
        assert_eq!(nearest("Exist", &ops, 2), Some("Exists"));
        assert_eq!(nearest("NotInn", &ops, 2), Some("NotIn"));
        assert_eq!(nearest("operatorValue", &ops, 2), None);
    }
}
