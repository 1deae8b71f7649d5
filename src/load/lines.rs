//! Lines and entries of a source's text, for the edits of `--fix` and the places they go:
//! where a line starts and ends (LF, CRLF and a lone CR), and whether a mapping entry is written
//! plainly where its nodes are.

use super::SourceFile;
use super::yaml::Node;

pub fn bytes(src: &SourceFile) -> &[u8] {
    src.text.as_bytes()
}

/// Start of the line holding `at` (LF, CRLF and a lone CR end lines, as in YAML).
pub fn line_start(src: &SourceFile, at: usize) -> usize {
    let b = bytes(src);
    let at = at.min(b.len());
    b[..at]
        .iter()
        .rposition(|&c| c == b'\n' || c == b'\r')
        .map_or(0, |i| i + 1)
}

/// The offset just past the line end (`\n`, `\r\n` or a lone `\r`) at or after `at`, or the
/// end of the text.
pub fn past_line_end(src: &SourceFile, at: usize) -> usize {
    let b = bytes(src);
    let at = at.min(b.len());
    match b[at..].iter().position(|&c| c == b'\n' || c == b'\r') {
        Some(i) if b[at + i] == b'\r' && b.get(at + i + 1) == Some(&b'\n') => at + i + 2,
        Some(i) => at + i + 1,
        None => b.len(),
    }
}

/// The line ending used by the line holding `at`: `\r\n`, `\r` or `\n`.
pub fn line_ending_at(src: &SourceFile, at: usize) -> &'static str {
    let end = past_line_end(src, at);
    let b = bytes(src);
    if end >= 2 && b.get(end - 1) == Some(&b'\n') && b.get(end - 2) == Some(&b'\r') {
        "\r\n"
    } else if end >= 1 && b.get(end - 1) == Some(&b'\r') {
        "\r"
    } else {
        "\n"
    }
}

pub fn is_flow(src: &SourceFile, node: &Node) -> bool {
    matches!(bytes(src).get(node.span.start), Some(b'{' | b'['))
}

/// Text between two offsets; `None` when out of order or out of bounds.
pub fn between(src: &SourceFile, from: usize, to: usize) -> Option<&[u8]> {
    bytes(src).get(from..to)
}

/// The key and value of a mapping entry are written where they appear, one after the other
/// (`key: value`): the value is not an alias whose span points at its anchor elsewhere, and
/// neither carries an anchor or tag between them.
pub fn is_direct_entry(src: &SourceFile, key: &Node, value: &Node) -> bool {
    if key.as_scalar().is_none() || key.span.is_empty() || value.span.start < key.span.end {
        return false;
    }
    let Some(gap) = between(src, key.span.end, value.span.start) else {
        return false;
    };
    let gap: Vec<u8> = gap
        .iter()
        .copied()
        .filter(|c| !matches!(c, b' ' | b'\t' | b'\r' | b'\n'))
        .collect();
    gap == b":"
}
