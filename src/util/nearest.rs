//! Words indexed for edit-distance questions ("which of them is nearest to this one, and how
//! near"), answered as [`edit_distance`] answers them word by word, without comparing the
//! question with every word: the words share their prefixes in a trie, and a search walks it
//! computing one row of the distance table per trie node, leaving a branch as soon as no word
//! below it can be near enough (the smallest value of a row never shrinks further down). A
//! did-you-mean over thousands of taint keys or label values costs about the words that are
//! really near, not all of them.
//!
//! Each search walks at most [`BUDGET`] table cells: on hostile input (thousands of long words
//! all far from the question) it then answers with what it found within that walk — possibly
//! no word, or not the nearest — instead of comparing every pair.

use super::{LONGEST, edit_distance};

/// The most distance-table cells one search computes.
pub const BUDGET: usize = 1 << 20;

#[derive(Debug, Default)]
struct Node {
    /// Children by letter, sorted.
    children: Vec<(char, u32)>,
    /// The word that ends here: its number and length in bytes.
    word: Option<(u32, usize)>,
    /// The longest word (in bytes) at or below this node.
    longest: usize,
}

/// A set of words, each known by its number (its place in the list it was built from).
#[derive(Debug)]
pub struct Lexicon {
    nodes: Vec<Node>,
    /// Words longer than [`LONGEST`] bytes, which `edit_distance` does not compare letter by
    /// letter: (number, the word).
    long: Vec<(u32, Box<str>)>,
    /// Every word of the trie, for questions longer than [`LONGEST`] bytes.
    short: Vec<(u32, Box<str>)>,
}

impl Lexicon {
    /// The words, numbered in order (a word given twice keeps its first number).
    pub fn new<'a>(words: impl IntoIterator<Item = &'a str>) -> Self {
        let mut lex = Lexicon {
            nodes: vec![Node::default()],
            long: Vec::new(),
            short: Vec::new(),
        };
        for (n, word) in words.into_iter().enumerate() {
            let id = u32::try_from(n).unwrap_or(u32::MAX);
            if word.len() > LONGEST {
                lex.long.push((id, word.into()));
                continue;
            }
            let mut at = 0usize;
            lex.nodes[0].longest = lex.nodes[0].longest.max(word.len());
            for c in word.chars() {
                let next = match lex.nodes[at].children.binary_search_by_key(&c, |(k, _)| *k) {
                    Ok(i) => lex.nodes[at].children[i].1 as usize,
                    Err(i) => {
                        let new = lex.nodes.len();
                        lex.nodes.push(Node::default());
                        lex.nodes[at]
                            .children
                            .insert(i, (c, u32::try_from(new).unwrap_or(u32::MAX)));
                        new
                    }
                };
                at = next;
                lex.nodes[at].longest = lex.nodes[at].longest.max(word.len());
            }
            if lex.nodes[at].word.is_none() {
                lex.nodes[at].word = Some((id, word.len()));
                lex.short.push((id, word.into()));
            }
        }
        lex
    }

    /// The words nearest to `query` among those within `bound(len)` edits of it (`len`: the
    /// word's length in bytes; `bound` must not shrink as `len` grows): their distance and
    /// numbers (in no particular order). `None` when no word is that near.
    pub fn nearest(
        &self,
        query: &str,
        bound: impl Fn(usize) -> usize,
    ) -> Option<(usize, Vec<u32>)> {
        let mut best: Option<(usize, Vec<u32>)> = None;
        let words = self.long.iter().chain(if query.len() > LONGEST {
            &self.short[..]
        } else {
            &[]
        });
        for (id, word) in words {
            let d = edit_distance(query, word);
            if d <= bound(word.len()) {
                offer(&mut best, d, *id);
            }
        }
        if query.len() > LONGEST {
            return best;
        }
        // The question itself is nearest of all.
        if let Some((id, _)) = self.word(query) {
            offer(&mut best, 0, id);
            return best;
        }
        // Deepen the search: most questions have a near word, found with a small cap.
        let longest = self.nodes[0].longest;
        let ceiling = bound(longest).min(query.chars().count().max(longest));
        let mut cap = 1usize.min(ceiling);
        let mut budget = BUDGET;
        loop {
            let start = best.as_ref().map_or(cap, |(b, _)| (*b).min(cap));
            self.walk(query, start, &bound, &mut budget, &mut |d, id| {
                offer(&mut best, d, id);
                d
            });
            if best.as_ref().is_some_and(|(b, _)| *b <= cap) || cap >= ceiling || budget == 0 {
                return best;
            }
            cap = (cap * 2).min(ceiling);
        }
    }

    /// The word equal to `text`, if it is one: its number and length.
    fn word(&self, text: &str) -> Option<(u32, usize)> {
        let mut at = 0usize;
        for c in text.chars() {
            let node = &self.nodes[at];
            let i = node.children.binary_search_by_key(&c, |(k, _)| *k).ok()?;
            at = node.children[i].1 as usize;
        }
        self.nodes[at].word
    }

    /// Every word within `cap` edits of `query`, with its distance (in no particular order;
    /// at most [`BUDGET`] table cells are walked).
    pub fn within(&self, query: &str, cap: usize) -> Vec<(u32, usize)> {
        let mut out = Vec::new();
        let words = self.long.iter().chain(if query.len() > LONGEST {
            &self.short[..]
        } else {
            &[]
        });
        for (id, word) in words {
            let d = edit_distance(query, word);
            if d <= cap {
                out.push((*id, d));
            }
        }
        if query.len() <= LONGEST {
            let mut budget = BUDGET;
            self.walk(query, cap, &|_| cap, &mut budget, &mut |d, id| {
                out.push((id, d));
                cap
            });
        }
        out
    }

    /// Offers each word within `cap` edits of `query` and within `bound` of its own length to
    /// `offer`, which answers the cap for the rest of the walk. A branch is left when the
    /// smallest value of its row is over the cap or over `bound` of the longest word below.
    fn walk(
        &self,
        query: &str,
        mut cap: usize,
        bound: &dyn Fn(usize) -> usize,
        budget: &mut usize,
        offer: &mut dyn FnMut(usize, u32) -> usize,
    ) {
        let q: Vec<char> = query.chars().collect();
        let width = q.len() + 1;
        // Row `depth` of the table: the distances from the query's prefixes to the word's
        // first `depth` letters.
        let mut rows: Vec<usize> = (0..width).collect();
        if let Some((id, len)) = self.nodes[0].word
            && q.len() <= cap
            && q.len() <= bound(len)
        {
            cap = offer(q.len(), id);
        }
        // (node, its depth, the next child to visit)
        let mut stack: Vec<(usize, usize, usize)> = vec![(0, 0, 0)];
        while let Some(top) = stack.last_mut() {
            let (at, depth, next) = *top;
            let Some(&(c, child)) = self.nodes[at].children.get(next) else {
                stack.pop();
                continue;
            };
            top.2 += 1;
            let ci = child as usize;
            let child = &self.nodes[ci];
            let limit = cap.min(bound(child.longest));
            if *budget < width {
                *budget = 0;
                return;
            }
            *budget -= width;
            let base = depth * width;
            if rows.len() < base + 2 * width {
                rows.resize(base + 2 * width, 0);
            }
            let (prev, cur) = rows.split_at_mut(base + width);
            let prev = &prev[base..];
            let cur = &mut cur[..width];
            cur[0] = depth + 1;
            let mut smallest = cur[0];
            for j in 1..width {
                let cost = usize::from(q[j - 1] != c);
                cur[j] = (prev[j - 1] + cost).min(prev[j] + 1).min(cur[j - 1] + 1);
                smallest = smallest.min(cur[j]);
            }
            if smallest > limit {
                continue;
            }
            if let Some((id, len)) = child.word {
                let d = cur[width - 1];
                if d <= cap && d <= bound(len) {
                    cap = offer(d, id);
                }
            }
            stack.push((ci, depth + 1, 0));
        }
    }
}

/// Strings compared in lowercase (ASCII), as the did-you-mean helpers compare them: their
/// distinct lowercase forms in a [`Lexicon`], and for each form the places (in the list the
/// strings came in) of the strings that have it.
#[derive(Debug)]
pub struct Folded {
    lexicon: Lexicon,
    places: Vec<Vec<usize>>,
}

impl Folded {
    pub fn new<'a>(strings: impl IntoIterator<Item = &'a str>) -> Self {
        let mut forms: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
        let mut order: Vec<String> = Vec::new();
        let mut places: Vec<Vec<usize>> = Vec::new();
        for (i, s) in strings.into_iter().enumerate() {
            let lower = s.to_ascii_lowercase();
            let next = order.len();
            let n = *forms.entry(lower.clone()).or_insert(next);
            if n == next {
                order.push(lower);
                places.push(Vec::new());
            }
            places[n].push(i);
        }
        Folded {
            lexicon: Lexicon::new(order.iter().map(String::as_str)),
            places,
        }
    }

    /// The places of the strings whose lowercase forms are nearest to `query`'s, among those
    /// within `bound(len)` edits (see [`Lexicon::nearest`]): the distance and the places,
    /// sorted.
    pub fn nearest(
        &self,
        query: &str,
        bound: impl Fn(usize) -> usize,
    ) -> Option<(usize, Vec<usize>)> {
        let (d, words) = self.lexicon.nearest(&query.to_ascii_lowercase(), bound)?;
        let mut out: Vec<usize> = words
            .into_iter()
            .flat_map(|w| self.places.get(w as usize).into_iter().flatten().copied())
            .collect();
        out.sort_unstable();
        Some((d, out))
    }

    /// The places of the strings within `cap` edits of `query` (in lowercase), with their
    /// distances, sorted by place.
    pub fn within(&self, query: &str, cap: usize) -> Vec<(usize, usize)> {
        let mut out: Vec<(usize, usize)> = self
            .lexicon
            .within(&query.to_ascii_lowercase(), cap)
            .into_iter()
            .flat_map(|(w, d)| {
                self.places
                    .get(w as usize)
                    .into_iter()
                    .flatten()
                    .map(move |&i| (i, d))
            })
            .collect();
        out.sort_unstable();
        out
    }
}

/// Keeps the nearest words: `id` at distance `d`.
fn offer(best: &mut Option<(usize, Vec<u32>)>, d: usize, id: u32) {
    match best {
        Some((b, ids)) if d == *b => ids.push(id),
        Some((b, _)) if d > *b => {}
        _ => *best = Some((d, vec![id])),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What [`Lexicon::nearest`] must answer: every word compared.
    fn brute(
        words: &[&str],
        query: &str,
        bound: impl Fn(usize) -> usize,
    ) -> Option<(usize, Vec<u32>)> {
        let mut best: Option<(usize, Vec<u32>)> = None;
        for (i, w) in words.iter().enumerate() {
            if words[..i].contains(w) {
                continue;
            }
            let d = edit_distance(query, w);
            if d > bound(w.len()) {
                continue;
            }
            match &mut best {
                Some((b, ids)) if d == *b => ids.push(i as u32),
                Some((b, _)) if d > *b => {}
                _ => best = Some((d, vec![i as u32])),
            }
        }
        best
    }

    #[test]
    fn nearest_and_within_are_every_word_compared() {
        let seed = std::cell::Cell::new(0x1234_5678_9abc_def1_u64);
        let next = |n: usize| {
            let mut s = seed.get();
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            seed.set(s);
            (s % n as u64) as usize
        };
        let letters = ['a', 'b', 'c', 'é', '-'];
        let word = |max: usize| -> String {
            (0..next(max))
                .map(|_| letters[next(letters.len())])
                .collect()
        };
        for _ in 0..3000 {
            let owned: Vec<String> = (0..next(12)).map(|_| word(8)).collect();
            let words: Vec<&str> = owned.iter().map(String::as_str).collect();
            let lex = Lexicon::new(words.iter().copied());
            let q = word(9);
            let sorted = |r: Option<(usize, Vec<u32>)>| {
                r.map(|(d, mut ids)| {
                    ids.sort_unstable();
                    (d, ids)
                })
            };
            assert_eq!(
                sorted(lex.nearest(&q, |_| usize::MAX)),
                sorted(brute(&words, &q, |_| usize::MAX)),
                "{q} in {words:?}"
            );
            let b = |len: usize| 1.max(len / 3);
            assert_eq!(
                sorted(lex.nearest(&q, b)),
                sorted(brute(&words, &q, b)),
                "{q} in {words:?}"
            );
            for cap in 0..4 {
                let mut got = lex.within(&q, cap);
                got.sort_unstable();
                let mut want: Vec<(u32, usize)> = words
                    .iter()
                    .enumerate()
                    .filter(|(i, w)| !words[..*i].contains(w))
                    .map(|(i, w)| (i as u32, edit_distance(&q, w)))
                    .filter(|(_, d)| *d <= cap)
                    .collect();
                want.sort_unstable();
                assert_eq!(got, want, "{q} within {cap} in {words:?}");
            }
        }
        // Words and questions past the letter-by-letter length.
        let long = "x".repeat(600);
        let words = ["abc", long.as_str()];
        let lex = Lexicon::new(words);
        assert_eq!(lex.nearest("abd", |_| usize::MAX), Some((1, vec![0])));
        assert_eq!(lex.nearest(&long, |_| usize::MAX), Some((0, vec![1])));
    }
}
