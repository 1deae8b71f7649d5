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

/// The hostile strings every output format is tested with — the single table of them: the
/// unit tests of this module and of each reporter (`report::*`), and `tests/security.rs`,
/// which puts each in a file name and in values and runs every format and view. Each C0
/// control, DEL and each C1 control alone; terminal sequences (OSC 52 clipboard writes, OSC 8
/// links, CSI erase and cursor moves, 8-bit CSI, BEL); every bidi control; the line and
/// paragraph separators and NEL; workflow commands at a line start, after a line break, and
/// percent-encoded for GitHub's decoder.
pub const HOSTILE: &[&str] = &[
    "\u{0}",
    "\u{1}",
    "\u{2}",
    "\u{3}",
    "\u{4}",
    "\u{5}",
    "\u{6}",
    "\u{7}",
    "\u{8}",
    "\u{9}",
    "\u{a}",
    "\u{b}",
    "\u{c}",
    "\u{d}",
    "\u{e}",
    "\u{f}",
    "\u{10}",
    "\u{11}",
    "\u{12}",
    "\u{13}",
    "\u{14}",
    "\u{15}",
    "\u{16}",
    "\u{17}",
    "\u{18}",
    "\u{19}",
    "\u{1a}",
    "\u{1b}",
    "\u{1c}",
    "\u{1d}",
    "\u{1e}",
    "\u{1f}",
    "\u{7f}",
    "\u{80}",
    "\u{81}",
    "\u{82}",
    "\u{83}",
    "\u{84}",
    "\u{85}",
    "\u{86}",
    "\u{87}",
    "\u{88}",
    "\u{89}",
    "\u{8a}",
    "\u{8b}",
    "\u{8c}",
    "\u{8d}",
    "\u{8e}",
    "\u{8f}",
    "\u{90}",
    "\u{91}",
    "\u{92}",
    "\u{93}",
    "\u{94}",
    "\u{95}",
    "\u{96}",
    "\u{97}",
    "\u{98}",
    "\u{99}",
    "\u{9a}",
    "\u{9b}",
    "\u{9c}",
    "\u{9d}",
    "\u{9e}",
    "\u{9f}",
    // OSC 52: write "evil" to the clipboard (BEL and ST terminated).
    "\u{1b}]52;c;ZXZpbA==\u{7}",
    "\u{1b}]52;c;ZXZpbA==\u{1b}\\",
    // OSC 8: a link whose text hides where it goes.
    "\u{1b}]8;;https://evil.example/\u{1b}\\docs\u{1b}]8;;\u{1b}\\",
    // CSI: erase the line, move up, colour; the 8-bit CSI; a title change.
    "\u{1b}[2K\u{1b}[1A\u{1b}[31mok\u{1b}[0m",
    "\u{9b}2K\u{9b}1A",
    "\u{1b}]0;title\u{7}",
    // Bidi controls (CVE-2021-42574), alone and as a Trojan Source reordering.
    "\u{61c}",
    "\u{200e}",
    "\u{200f}",
    "\u{202a}",
    "\u{202b}",
    "\u{202c}",
    "\u{202d}",
    "\u{202e}",
    "\u{2066}",
    "\u{2067}",
    "\u{2068}",
    "\u{2069}",
    "admin\u{202e}\u{2066}// not\u{2069}\u{2066}",
    // Line breaks of Unicode, YAML 1.1 and some viewers.
    "a\u{2028}b",
    "a\u{2029}b",
    "a\u{85}b",
    // Workflow commands: at the start, after each kind of line break, percent-encoded.
    "::add-mask::secret",
    "x\n::error file=a.yaml::pwned",
    "x\r::warning::pwned",
    "x\r\n::stop-commands::token",
    "x\u{2028}::error::pwned",
    "x\u{85}##[error]pwned",
    "x%0A::error::pwned%0D%25",
    "x\n##vso[task.setvariable variable=a]b",
];

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

/// [`escape`] but LF, with no line guarded: for a format that encodes line breaks itself
/// (GitHub's workflow commands write `%0A`), whose input text was put in through [`escape`].
pub fn escape_but_lf(text: &str) -> Cow<'_, str> {
    escape_but(text, |c| c == '\n')
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

    /// Every string of the table escapes to one line of safe text, with no line starting a
    /// command, and the same-length view keeps only the line breaks.
    #[test]
    fn the_hostile_table_is_inert() {
        for h in HOSTILE {
            for t in [h.to_string(), format!("a{h}b"), format!("{h}{h}")] {
                let e = escape(&t);
                assert!(!e.chars().any(is_unsafe), "{t:?} -> {e:?}");
                let k = escape_keep_lines(&t);
                assert!(!k.chars().any(|c| is_unsafe(c) && c != '\n'), "{t:?}");
                for line in k.split('\n') {
                    assert!(!line.trim_start().starts_with("::"), "{t:?}: {line:?}");
                }
                let v = visible_same_length(&t);
                assert!(!v.chars().any(|c| is_unsafe(c) && !matches!(c, '\n' | '\r')));
            }
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
