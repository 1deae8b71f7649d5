//! Small helpers shared by rules and the CLI.

pub mod fs;
pub mod glob;
pub mod nearest;
pub mod text;

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

/// The candidate nearest to `word` within `max` edits (case-insensitive match first).
pub fn nearest<'a>(word: &str, candidates: &[&'a str], max: usize) -> Option<&'a str> {
    if let Some(c) = candidates.iter().find(|c| c.eq_ignore_ascii_case(word)) {
        return Some(c);
    }
    candidates
        .iter()
        .map(|c| {
            (
                edit_distance(&word.to_ascii_lowercase(), &c.to_ascii_lowercase()),
                *c,
            )
        })
        .filter(|(d, _)| *d <= max)
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
