//! Text from the input on a terminal or in a CI log: every character that could move the
//! cursor, start a new line the CI runner reads as a command (GitHub's `::add-mask::`,
//! `::stop-commands::`), talk to the terminal (ESC, BEL, OSC hyperlinks, clipboard writes) or
//! reorder what is shown (bidi overrides) is made visible instead.
//!
//! Which characters: the C0 controls but tab, DEL, the C1 controls (NEL, U+0085, among them),
//! the Unicode line and paragraph separators U+2028/U+2029 (line breaks for YAML 1.1 and for
//! some viewers), and the bidirectional formatting characters (U+061C, U+200E, U+200F,
//! U+202A–U+202E, U+2066–U+2069; CVE-2021-42574 "Trojan Source").

use std::borrow::Cow;
use std::fmt::Write as _;

/// Whether `c` must not reach a terminal or a CI log as it is (tab may: it starts nothing).
pub fn is_unsafe(c: char) -> bool {
    matches!(c,
        '\u{0}'..='\u{8}'
        | '\u{a}'..='\u{1f}'
        | '\u{7f}'..='\u{9f}'
        | '\u{61c}'
        | '\u{200e}'
        | '\u{200f}'
        | '\u{2028}'
        | '\u{2029}'
        | '\u{202a}'..='\u{202e}'
        | '\u{2066}'..='\u{2069}')
}

/// Whether `text` holds a character [`is_unsafe`] (fast on ASCII text).
fn has_unsafe(text: &str) -> bool {
    text.bytes()
        .any(|b| (b < 0x20 && b != b'\t') || b == 0x7f || b == 0xC2 || b == 0xD8 || b == 0xE2)
        && text.chars().any(is_unsafe)
}

/// `text` with each unsafe character written as an escape: `\n`, `\r`, `\e` (ESC) or
/// `\u{…}`. One line of text stays one line.
pub fn escape(text: &str) -> Cow<'_, str> {
    escape_but(text, |_| false)
}

/// [`escape`] for a text the tool breaks into lines itself: its `\n` stay line breaks, every
/// other unsafe character is escaped, and no line starts a command ([`guard_line_starts`]).
/// Only for text whose line breaks are the tool's own.
pub fn escape_keep_lines(text: &str) -> Cow<'_, str> {
    guarded(escape_but(text, |c| c == '\n'))
}

/// [`escape_keep_lines`] for a file's own lines (a diff of it): CR stays too, so a CRLF file's
/// diff still applies; only its other control characters are escaped.
pub fn escape_file_lines(text: &str) -> Cow<'_, str> {
    guarded(escape_but(text, |c| c == '\n' || c == '\r'))
}

/// `text` with each unsafe character but those `keep` accepts escaped.
fn escape_but(text: &str, keep: impl Fn(char) -> bool) -> Cow<'_, str> {
    let risky = |c: char| is_unsafe(c) && !keep(c);
    if !has_unsafe(text) || !text.chars().any(risky) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if risky(c) {
            push_escaped(&mut out, c);
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// [`guard_line_starts`] of an escaped text, borrowing what needs no change.
fn guarded(text: Cow<'_, str>) -> Cow<'_, str> {
    match text {
        Cow::Borrowed(t) => guard_line_starts(t),
        Cow::Owned(t) => Cow::Owned(guard_line_starts(&t).into_owned()),
    }
}

/// The prefixes a CI runner reads as a command at the start of a line, after the blanks it
/// trims: GitHub's `::name::` and its older `##[name]`, Azure Pipelines' `##vso[`.
const COMMAND_STARTS: &[&str] = &["::", "##[", "##vso["];

/// `text` with a `\` put before a command prefix that starts a line (after white space):
/// wrapping can put an input's `::add-mask::` at the start of a line without any line break
/// in the input. Lines the tool writes never start so, so they are unchanged.
pub fn guard_line_starts(text: &str) -> Cow<'_, str> {
    let starts = |line: &str| {
        let t = line.trim_start();
        COMMAND_STARTS.iter().any(|p| t.starts_with(p))
    };
    if !text.contains("::") && !text.contains("##") || !text.split('\n').any(starts) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for (i, line) in text.split('\n').enumerate() {
        if i > 0 {
            out.push('\n');
        }
        if starts(line) {
            let blank = line.len() - line.trim_start().len();
            out.push_str(&line[..blank]);
            out.push('\\');
            out.push_str(&line[blank..]);
        } else {
            out.push_str(line);
        }
    }
    Cow::Owned(out)
}

fn push_escaped(out: &mut String, c: char) {
    match c {
        '\n' => out.push_str("\\n"),
        '\r' => out.push_str("\\r"),
        '\u{1b}' => out.push_str("\\e"),
        c if is_unsafe(c) => {
            let _ = write!(out, "\\u{{{:x}}}", u32::from(c));
        }
        c => out.push(c),
    }
}

/// `text` with each unsafe character but LF and CR replaced by a visible one of the same
/// length in bytes (`?`, `¿` or `�`), so byte offsets into it stay valid: for source
/// snippets, whose labels point into the text by offset.
pub fn visible_same_length(text: &str) -> Cow<'_, str> {
    let risky = |c: char| is_unsafe(c) && c != '\n' && c != '\r';
    if !has_unsafe(text) || !text.chars().any(risky) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if !risky(c) {
            out.push(c);
            continue;
        }
        out.push(match c.len_utf8() {
            1 => '?',
            2 => '¿',
            _ => '\u{fffd}',
        });
    }
    debug_assert_eq!(out.len(), text.len());
    Cow::Owned(out)
}

/// `at`, or the start of the character it falls inside (the text's length past its end).
pub fn floor_char(text: &str, at: usize) -> usize {
    let mut at = at.min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

/// `at`, or the end of the character it falls inside (the text's length past its end).
pub fn ceil_char(text: &str, at: usize) -> usize {
    let mut at = at.min(text.len());
    while !text.is_char_boundary(at) {
        at += 1;
    }
    at
}

/// `key: value` as a selector or label entry is shown to the user, an empty value as `""`
/// (`{node-role.kubernetes.io/infra: ""}`, as YAML writes it, not `{…infra: }`). Not escaped:
/// the caller escapes the whole line.
pub fn label_entry(key: &str, value: &str) -> String {
    if value.is_empty() {
        format!("{key}: \"\"")
    } else {
        format!("{key}: {value}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_text_is_borrowed() {
        for t in ["", "toleration `a=b:NoSchedule`", "tab\there", "日本語 ä é"] {
            assert!(matches!(escape(t), Cow::Borrowed(_)), "{t}");
            assert!(matches!(visible_same_length(t), Cow::Borrowed(_)), "{t}");
        }
    }

    #[test]
    fn every_line_start_and_terminal_sequence_is_escaped() {
        let hostile = "a\n::add-mask::x\r::warning::y\u{1b}]52;c;ZXZpbA==\u{7}\u{85}z\u{2028}\u{2029}\u{202e}\u{2066}\u{9b}2K\u{7f}";
        let e = escape(hostile);
        assert!(!e.chars().any(is_unsafe), "{e}");
        assert_eq!(
            e,
            "a\\n::add-mask::x\\r::warning::y\\e]52;c;ZXZpbA==\\u{7}\\u{85}z\\u{2028}\\u{2029}\\u{202e}\\u{2066}\\u{9b}2K\\u{7f}"
        );
        let kept = escape_keep_lines("one\ntwo\u{1b}[2K\u{2028}");
        assert_eq!(kept, "one\ntwo\\e[2K\\u{2028}");
    }

    #[test]
    fn no_line_starts_a_command() {
        let t = "help: set `key:\n        ::add-mask::x`\n\u{a0}##[set-output]y\n##vso[task]z\nok :: fine";
        let g = guard_line_starts(t);
        for line in g.split('\n') {
            let l = line.trim_start();
            assert!(!l.starts_with("::") && !l.starts_with("##"), "{line:?}");
        }
        assert!(g.ends_with("\nok :: fine"));
        assert!(matches!(guard_line_starts("a::b\nc"), Cow::Borrowed(_)));
    }

    #[test]
    fn same_length_replacement_keeps_offsets() {
        let t = "a: |\n  x\u{85}-\u{1b}[31m\u{2028}\r\n\u{202e}b\u{7}";
        let v = visible_same_length(t);
        assert_eq!(v.len(), t.len());
        assert!(!v.chars().any(|c| is_unsafe(c) && c != '\n' && c != '\r'));
        for (i, _) in t.char_indices() {
            assert!(v.is_char_boundary(i));
        }
    }

    #[test]
    fn char_boundaries() {
        let t = "a\u{85}b\u{2028}";
        assert_eq!(floor_char(t, 2), 1);
        assert_eq!(ceil_char(t, 2), 3);
        assert_eq!(floor_char(t, 5), 4);
        assert_eq!(ceil_char(t, 5), 7);
        assert_eq!(floor_char(t, 99), t.len());
    }
}
