//! The globs of a config and of the command line, in time linear in the text they are matched
//! against, and bounded in what they cost to build (a pull request's `.taintlint.yaml` is the
//! author's: a glob of 100,000 `*` made globset's `compile_matcher` panic, and a policy glob
//! against a long key backtracked at every position of the key).
//!
//! Two kinds:
//! - **Path globs** (`exclude`, `--include`/`--exclude`, `per-file-ignores`, `clusters:`
//!   `paths`): globset's syntax (`*`, `?`, `**`, `[...]`, `{a,b}`), matched against a path
//!   and each of its suffixes after a `/`. They are compiled with [`GlobSetBuilder`], which
//!   reports a regex over its size limit as an error instead of panicking, and matched once
//!   per path: `**/` put before the glob matches a suffix after any `/` in one pass of the
//!   regex, where matching each suffix in turn cost the path's depth times its length.
//! - **Key globs** (`policies:` `taint`, `namespaces`, `workloads`): `*` for any run of
//!   characters, `?` for one ([`key_match`]): the pattern is cut at its stars, and each piece
//!   is found leftmost in turn (a piece without `?` by `memchr::memmem`, one with `?` by a
//!   bit-parallel scan), so a match costs the key's length, not the key's times the
//!   pattern's.
//!
//! Every glob is at most [`MAX_GLOB_BYTES`] long: a longer one is refused where it is written
//! (an `invalid-config` finding at its place, or exit 2 for the command line and `exclude`).
//! No label key, namespace or `Kind/namespace/name` is half as long (a key is at most 317
//! bytes), and no path name a glob would spell out is anywhere near it in practice.

use globset::{Glob, GlobSet, GlobSetBuilder};

/// The longest glob accepted, in bytes.
pub const MAX_GLOB_BYTES: usize = 1024;

/// A glob for messages: escaped, and cut to its first 60 characters when longer (a
/// refused glob may be 100,000 characters).
pub fn shown(glob: &str) -> String {
    const SHOWN: usize = 60;
    let escaped = crate::util::text::escape(glob);
    match escaped.char_indices().nth(SHOWN) {
        Some((at, _)) => format!("`{}…` ({} bytes)", &escaped[..at], glob.len()),
        None => format!("`{escaped}`"),
    }
}

/// Why a glob cannot be used: too long, or not a glob globset can compile.
pub fn check_length(glob: &str) -> Result<(), String> {
    if glob.len() > MAX_GLOB_BYTES {
        return Err(format!(
            "it is {} bytes long; a glob may be at most {MAX_GLOB_BYTES}",
            glob.len()
        ));
    }
    Ok(())
}

fn compile(globs: &[&str]) -> Result<GlobSet, String> {
    let mut b = GlobSetBuilder::new();
    for g in globs {
        b.add(Glob::new(g).map_err(|e| e.kind().to_string())?);
    }
    // A regex over globset's size limit is an error here (`compile_matcher` panics on it).
    b.build().map_err(|e| e.kind().to_string())
}

/// `glob` with `**/` before it, which matches a path whose suffix after some `/` the glob
/// matches (globset reads `**/` as `(?:/?|.*/)`). The empty glob matches only an empty
/// suffix, which `**/` does not say: it gets none.
fn anywhere(glob: &str) -> Option<String> {
    (!glob.is_empty()).then(|| format!("**/{glob}"))
}

/// A set of path globs, matched as a path or any suffix of it after a `/`.
#[derive(Clone, Debug)]
pub struct PathGlobs {
    /// The globs as written, against the whole path.
    whole: GlobSet,
    /// Each with `**/` before it (see [`anywhere`]).
    suffixes: GlobSet,
    len: usize,
    /// One of the globs is empty: it matches an empty path or suffix only.
    has_empty: bool,
    /// The glob (its index in the list given) of each of `suffixes`' globs.
    suffix_of: Vec<usize>,
    /// The empty globs' indices.
    empties: Vec<usize>,
}

/// A glob that cannot be used, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GlobError {
    pub glob: String,
    pub reason: String,
}

impl std::fmt::Display for GlobError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "invalid glob {}: {}",
            shown(&self.glob),
            crate::util::text::escape(&self.reason)
        )
    }
}

impl std::error::Error for GlobError {}

impl PathGlobs {
    /// Compiles `globs`; the first that cannot be used is the error.
    pub fn new<S: AsRef<str>>(globs: &[S]) -> Result<PathGlobs, GlobError> {
        let error = |glob: &str, reason: String| GlobError {
            glob: glob.to_string(),
            reason,
        };
        for g in globs {
            let g = g.as_ref();
            check_length(g).map_err(|r| error(g, r))?;
            // Each alone first, so an error names its glob.
            compile(&[g]).map_err(|r| error(g, r))?;
        }
        let all: Vec<&str> = globs.iter().map(AsRef::as_ref).collect();
        let whole = compile(&all).map_err(|r| error(all.first().copied().unwrap_or(""), r))?;
        let (suffix_of, prefixed): (Vec<usize>, Vec<String>) = all
            .iter()
            .enumerate()
            .filter_map(|(i, g)| Some((i, anywhere(g)?)))
            .unzip();
        let prefixed: Vec<&str> = prefixed.iter().map(String::as_str).collect();
        let suffixes =
            compile(&prefixed).map_err(|r| error(all.first().copied().unwrap_or(""), r))?;
        Ok(PathGlobs {
            whole,
            suffixes,
            len: all.len(),
            has_empty: all.iter().any(|g| g.is_empty()),
            suffix_of,
            empties: (0..all.len()).filter(|&i| all[i].is_empty()).collect(),
        })
    }

    /// The globs (their indices in the list given to [`PathGlobs::new`], ascending) that
    /// match `path` as [`PathGlobs::matches`] reads it: one pass of the compiled sets, however
    /// many globs there are.
    pub fn matching(&self, path: &str) -> Vec<usize> {
        if self.is_empty() {
            return Vec::new();
        }
        let p = path.strip_prefix("./").unwrap_or(path);
        // Which globs match is dearer to ask than whether any does (the regex set cannot stop
        // at the first match): most paths match none.
        let mut out = if self.whole.is_match(p) {
            self.whole.matches(p)
        } else {
            Vec::new()
        };
        if self.suffixes.is_match(p) {
            out.extend(
                self.suffixes
                    .matches(p)
                    .into_iter()
                    .filter_map(|i| self.suffix_of.get(i).copied()),
            );
        }
        if self.has_empty && p.ends_with('/') {
            out.extend(self.empties.iter().copied());
        }
        out.sort_unstable();
        out.dedup();
        out
    }

    /// One glob (see [`PathGlobs::new`]).
    pub fn one(glob: &str) -> Result<PathGlobs, GlobError> {
        PathGlobs::new(&[glob])
    }

    /// A set of no globs: it matches nothing.
    pub fn none() -> PathGlobs {
        let empty = GlobSet::empty();
        PathGlobs {
            whole: empty.clone(),
            suffixes: empty,
            len: 0,
            has_empty: false,
            suffix_of: Vec::new(),
            empties: Vec::new(),
        }
    }

    /// No globs at all.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Whether a glob matches `path` as it is, or its part after any `/` (less a leading
    /// `./`): `charts/**` matches `./charts/x.yaml`, `x.yaml` matches `a/b/x.yaml`.
    pub fn matches(&self, path: &str) -> bool {
        if self.is_empty() {
            return false;
        }
        let p = path.strip_prefix("./").unwrap_or(path);
        self.whole.is_match(p) || self.suffixes.is_match(p) || (self.has_empty && p.ends_with('/'))
    }

    /// [`PathGlobs::matches`] of a path: its whole text, then its components joined with
    /// `/` (a leading `./`, repeated separators and inner `.` dropped, as
    /// [`std::path::Path::components`] reads them).
    pub fn matches_path(&self, path: &std::path::Path) -> bool {
        if self.is_empty() {
            return false;
        }
        if self.whole.is_match(path) {
            return true;
        }
        let stripped = path.strip_prefix("./").unwrap_or(path);
        let normal: std::path::PathBuf = stripped.components().collect();
        !normal.as_os_str().is_empty() && self.suffixes.is_match(&normal)
    }
}

/// Whether `text` matches the key glob `pattern`: `*` any run of characters (`/` too, and
/// none), `?` exactly one character, every other character itself.
///
/// The pattern is cut at its stars into pieces: the first must match at the start, the last
/// at the end, and each other is found leftmost after the one before (leftmost is never
/// worse: it leaves the most text for the rest). So the text is read about once per match.
pub fn key_match(pattern: &str, text: &str) -> bool {
    let pieces: Vec<&str> = pattern.split('*').collect();
    let (Some(first), Some(last)) = (pieces.first(), pieces.last()) else {
        return text.is_empty();
    };
    if pieces.len() == 1 {
        return match_at_start(first, text) == Some(text.len());
    }
    let Some(mut at) = match_at_start(first, text) else {
        return false;
    };
    let Some(end) = match_at_end(last, &text[at..]).map(|s| at + s) else {
        return false;
    };
    for piece in &pieces[1..pieces.len() - 1] {
        if piece.is_empty() {
            continue;
        }
        match find_piece(piece, &text[at..end]) {
            Some(after) => at += after,
            None => return false,
        }
    }
    true
}

/// The byte offset in `text` after `piece` matched at its start, if it does.
fn match_at_start(piece: &str, text: &str) -> Option<usize> {
    let mut chars = text.char_indices();
    for p in piece.chars() {
        let (_, c) = chars.next()?;
        if p != '?' && p != c {
            return None;
        }
    }
    Some(chars.next().map_or(text.len(), |(i, _)| i))
}

/// The byte offset in `text` where `piece` starts when it matches at its end, if it does.
fn match_at_end(piece: &str, text: &str) -> Option<usize> {
    let mut chars = text.char_indices().rev();
    let mut start = text.len();
    for p in piece.chars().rev() {
        let (i, c) = chars.next()?;
        if p != '?' && p != c {
            return None;
        }
        start = i;
    }
    Some(start)
}

/// The byte offset in `text` just after the leftmost match of `piece` (not empty).
fn find_piece(piece: &str, text: &str) -> Option<usize> {
    if !piece.contains('?') {
        return memchr::memmem::find(text.as_bytes(), piece.as_bytes()).map(|i| i + piece.len());
    }
    // Shift-And (Baeza-Yates–Gonnet): bit j of `state` is set when the first j + 1
    // characters of the piece match the text ending here; a `?` matches any character.
    let piece: Vec<char> = piece.chars().collect();
    let words = piece.len().div_ceil(64);
    let mut any = vec![0u64; words];
    let mut masks: std::collections::HashMap<char, Vec<u64>> = std::collections::HashMap::new();
    for (j, &p) in piece.iter().enumerate() {
        if p == '?' {
            any[j / 64] |= 1 << (j % 64);
        }
    }
    for (j, &p) in piece.iter().enumerate() {
        if p != '?' {
            masks.entry(p).or_insert_with(|| any.clone())[j / 64] |= 1 << (j % 64);
        }
    }
    let last = piece.len() - 1;
    let mut state = vec![0u64; words];
    for (i, c) in text.char_indices() {
        let mask = masks.get(&c).unwrap_or(&any);
        let mut carry = 1u64;
        for (s, m) in state.iter_mut().zip(mask) {
            let next = *s >> 63;
            *s = ((*s << 1) | carry) & m;
            carry = next;
        }
        if state[last / 64] & (1 << (last % 64)) != 0 {
            return Some(i + c.len_utf8());
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// One set of many globs tells which of them match a path, as each alone would.
    #[test]
    fn matching_names_each_glob_that_matches() {
        let globs = [
            "charts/**",
            "x.yaml",
            "",
            "**/*.json",
            "a/b/*.yaml",
            "deploy/*",
            "/abs/*.yaml",
        ];
        let set = PathGlobs::new(&globs).expect("compiles");
        for path in [
            "./charts/a/x.yaml",
            "a/b/x.yaml",
            "x.json",
            "deploy/y.yaml",
            "other/deploy/y.yaml",
            "dir/",
            "/abs/p.yaml",
            "nothing.txt",
        ] {
            let alone: Vec<usize> = (0..globs.len())
                .filter(|&i| PathGlobs::one(globs[i]).expect("one").matches(path))
                .collect();
            assert_eq!(set.matching(path), alone, "{path}");
        }
        assert!(PathGlobs::none().matching("x.yaml").is_empty());
    }

    /// The two-pointer matcher `settings::glob_match` was (it backtracks: pattern x key).
    fn backtracking(pattern: &str, text: &str) -> bool {
        let p: Vec<char> = pattern.chars().collect();
        let t: Vec<char> = text.chars().collect();
        let (mut pi, mut ti, mut star, mut mark) = (0usize, 0usize, None::<usize>, 0usize);
        while ti < t.len() {
            if pi < p.len() && (p[pi] == '?' || p[pi] == t[ti]) {
                pi += 1;
                ti += 1;
            } else if pi < p.len() && p[pi] == '*' {
                star = Some(pi);
                pi += 1;
                mark = ti;
            } else if let Some(sp) = star {
                pi = sp + 1;
                mark += 1;
                ti = mark;
            } else {
                return false;
            }
        }
        while pi < p.len() && p[pi] == '*' {
            pi += 1;
        }
        pi == p.len()
    }

    /// The path-glob matching `config::path_matches` was: the glob against the path, then
    /// against each suffix after a `/`.
    fn each_suffix(glob: &str, path: &str) -> bool {
        let Ok(m) = Glob::new(glob).map(|g| g.compile_matcher()) else {
            return false;
        };
        let p = path.strip_prefix("./").unwrap_or(path);
        if m.is_match(p) {
            return true;
        }
        let parts: Vec<&str> = p.split('/').collect();
        (1..parts.len()).any(|i| m.is_match(parts[i..].join("/")))
    }

    #[test]
    fn key_globs() {
        for (p, t, want) in [
            ("nvidia.com/*", "nvidia.com/gpu", true),
            ("nvidia.com/*", "nvidia.com", false),
            ("*", "", true),
            ("", "", true),
            ("", "a", false),
            ("a?c", "abc", true),
            ("a?c", "aéc", true),
            ("a?c", "ac", false),
            ("*a?c*", "xxaac", true),
            ("*a?c*", "xxabx", false),
            ("*a?c*", "xxabcx", true),
            ("ml-*", "ml-", true),
            ("**a**", "a", true),
            ("*aa*a", "aaa", true),
            ("*aa*aa", "aaa", false),
        ] {
            assert_eq!(key_match(p, t), want, "{p:?} {t:?}");
            assert_eq!(backtracking(p, t), want, "{p:?} {t:?}");
        }
    }

    /// A piece with `?` longer than a machine word.
    #[test]
    fn long_pieces_with_wildcards() {
        let piece: String = (0..150)
            .map(|i| if i % 7 == 3 { '?' } else { 'a' })
            .collect();
        let pattern = format!("*{piece}b*");
        let text = format!("{}b{}", "a".repeat(300), "a".repeat(149));
        assert!(key_match(&pattern, &text));
        assert!(!key_match(&pattern, &"a".repeat(500)));
        assert_eq!(key_match(&pattern, &text), backtracking(&pattern, &text));
    }

    /// The case at its size: keys of 200,000 bytes against a star-split pattern
    /// (the old matcher took minutes); the outcome, not the time, is asserted.
    #[test]
    fn long_keys_match_in_one_pass() {
        let key = format!("{}b{}", "a".repeat(200_000), 7);
        let pattern = format!("*{}b*", "a".repeat(1000));
        assert!(key_match(&pattern, &key));
        let pattern = format!("*{}?b*", "a".repeat(1000));
        assert!(key_match(&pattern, &key));
        assert!(!key_match(&format!("*{}c*", "a".repeat(1000)), &key));
    }

    fn glob_text() -> impl Strategy<Value = String> {
        proptest::collection::vec(
            proptest::sample::select(vec!["a", "b", "é", "*", "?", "a", "b"]),
            0..10,
        )
        .prop_map(|p| p.concat())
    }

    fn key_text() -> impl Strategy<Value = String> {
        proptest::collection::vec(proptest::sample::select(vec!["a", "b", "é", "/"]), 0..14)
            .prop_map(|p| p.concat())
    }

    fn path_glob() -> impl Strategy<Value = String> {
        proptest::collection::vec(
            proptest::sample::select(vec![
                "a",
                "b",
                "/",
                "*",
                "?",
                "**",
                "**/",
                "/**",
                "{a,b}",
                "{a/**,*b}",
                "[ab]",
                "[!a]",
                ".",
                "./",
                "\\*",
                "",
                "{**/a,b}",
                "{a,**}",
                "{,a}",
            ]),
            0..7,
        )
        .prop_map(|p| p.concat())
    }

    /// The path-glob matching `load::walk` did: the whole path, then each suffix of its
    /// components.
    fn each_component_suffix(glob: &str, path: &std::path::Path) -> bool {
        let Ok(m) = Glob::new(glob).map(|g| g.compile_matcher()) else {
            return false;
        };
        if m.is_match(path) {
            return true;
        }
        let stripped = path.strip_prefix("./").unwrap_or(path);
        let comps: Vec<_> = stripped.components().collect();
        (0..comps.len()).any(|i| {
            let sub: std::path::PathBuf = comps[i..].iter().collect();
            m.is_match(&sub)
        })
    }

    fn path_text() -> impl Strategy<Value = String> {
        proptest::collection::vec(
            proptest::sample::select(vec!["a", "b", "/", "./", "ab", "*", ".", "\n"]),
            0..9,
        )
        .prop_map(|p| p.concat())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(6000))]

        #[test]
        fn key_match_is_the_backtracking_matcher(p in glob_text(), t in key_text()) {
            prop_assert_eq!(key_match(&p, &t), backtracking(&p, &t), "{:?} {:?}", p, t);
        }

        #[test]
        fn one_pass_path_match_is_each_suffix(g in path_glob(), p in path_text()) {
            // A path ending in `..` names a folder, never a file to lint; globset's sets
            // match no file name there (its `file_name` is `None`), its single matchers do.
            prop_assume!(
                !p.trim_end_matches('/').ends_with("..")
                    && std::path::Path::new(&p).components().next_back()
                        != Some(std::path::Component::ParentDir)
            );
            if let Ok(set) = PathGlobs::one(&g) {
                prop_assert_eq!(set.matches(&p), each_suffix(&g, &p), "{:?} {:?}", g, p);
                let path = std::path::Path::new(&p);
                prop_assert_eq!(
                    set.matches_path(path),
                    each_component_suffix(&g, path),
                    "{:?} {:?}", g, p
                );
            }
        }
    }

    /// The case: a glob of 100,000 `*` is refused, not a panic; so is one whose
    /// regex is over globset's limit although it is short.
    #[test]
    fn globs_that_cannot_compile_are_errors() {
        let long = "*".repeat(100_000);
        let e = PathGlobs::one(&long).expect_err("too long");
        assert!(e.reason.contains("at most 1024"), "{e}");
        assert!(e.to_string().len() < 200, "{e}");
        assert!(PathGlobs::one("[z-a]").is_err());
        let e = PathGlobs::new(&["*.yaml", "{a"]).expect_err("unclosed");
        assert_eq!(e.glob, "{a");
        let ok = PathGlobs::new(&["*.yaml", "charts/**"]).expect("valid");
        assert!(ok.matches("./charts/x/y.txt") && ok.matches("a/b.yaml"));
        assert!(!ok.matches("a/b.json"));
    }

    #[test]
    fn shown_globs_are_short_and_escaped() {
        assert_eq!(shown("a\u{1b}*"), "`a\\e*`");
        let s = shown(&"*".repeat(100_000));
        assert!(
            s.starts_with("`***") && s.ends_with("…` (100000 bytes)"),
            "{s}"
        );
    }
}
