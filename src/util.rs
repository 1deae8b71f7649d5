//! Small helpers shared by rules and the CLI.

/// Levenshtein distance, for did-you-mean suggestions.
pub fn edit_distance(a: &str, b: &str) -> usize {
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
