//! A `textDocument/didChange`'s edits applied to an open document (#49).
//!
//! The protocol applies a notification's content changes one after another, each range read in
//! the text the changes before it left. Re-indexing the whole document for each one (the line
//! index, then the copy a `replace_range` makes) cost the document's size per edit: a
//! replace-all of 8,000 edits in a 2 MB document blocked the server 12–15 s, a hover waiting
//! behind it. Several edits are applied to a rope instead (`ropey`, which keeps its lines and
//! UTF-16 units indexed as it is edited): each edit costs the logarithm of the size, and the
//! text is made once at the end. `ropey` is built to count only `\n`, `\r\n` and `\r` as line
//! breaks (its `cr_lines` feature without `unicode_lines`), as the protocol does.

use lsp_types::{Position, TextDocumentContentChangeEvent};
use ropey::Rope;

use super::position::{Encoding, LineIndex};

/// Applies `changes` to `text` in order (a change without a range replaces the whole text).
pub(crate) fn apply(
    text: &mut String,
    changes: Vec<TextDocumentContentChangeEvent>,
    enc: Encoding,
) {
    let ranged = changes.iter().filter(|c| c.range.is_some()).count();
    if ranged <= 1 {
        for change in changes {
            match change.range {
                None => *text = change.text,
                Some(range) => {
                    let index = LineIndex::new(text, enc);
                    let start = index.offset(text, range.start);
                    let end = index.offset(text, range.end).max(start);
                    text.replace_range(start..end, &change.text);
                }
            }
        }
        return;
    }
    let mut rope = Rope::from_str(text);
    for change in changes {
        match change.range {
            None => rope = Rope::from_str(&change.text),
            Some(range) => {
                let start = char_at(&rope, range.start, enc);
                let end = char_at(&rope, range.end, enc).max(start);
                rope.remove(start..end);
                rope.insert(start, &change.text);
            }
        }
    }
    *text = rope.to_string();
}

/// A conversion between character indices and an encoding's units of a rope.
type Convert = fn(&Rope, usize) -> usize;

/// The character index of a protocol position, as [`LineIndex::offset`] finds its byte: the
/// first character boundary of its line at or past its column, or the line's end (before its
/// line break); past the last line, the end of the text.
fn char_at(rope: &Rope, pos: Position, enc: Encoding) -> usize {
    let line = pos.line as usize;
    if line >= rope.len_lines() {
        return rope.len_chars();
    }
    let start = rope.line_to_char(line);
    let slice = rope.line(line);
    let mut len = slice.len_chars();
    // Without its line break.
    if len > 0 && slice.char(len - 1) == '\n' {
        len -= 1;
    }
    if len > 0 && slice.char(len - 1) == '\r' {
        len -= 1;
    }
    let end = start + len;
    let want = pos.character as usize;
    // The column in the encoding's units from the line's start, rounded up to a character.
    let (to_units, from_units): (Convert, Convert) = match enc {
        Encoding::Utf16 => (Rope::char_to_utf16_cu, Rope::utf16_cu_to_char),
        Encoding::Utf8 => (Rope::char_to_byte, Rope::byte_to_char),
    };
    let target = to_units(rope, start)
        .saturating_add(want)
        .min(to_units(rope, end));
    let c = from_units(rope, target);
    if to_units(rope, c) < target { c + 1 } else { c }
}

#[cfg(test)]
mod tests {
    use super::*;
    use lsp_types::Range;

    fn change(l0: u32, c0: u32, l1: u32, c1: u32, text: &str) -> TextDocumentContentChangeEvent {
        TextDocumentContentChangeEvent {
            range: Some(Range::new(Position::new(l0, c0), Position::new(l1, c1))),
            range_length: None,
            text: text.to_string(),
        }
    }

    /// The rope gives what one edit at a time over the line index gives: the same texts and
    /// edits (ASCII, two-byte, surrogate pairs, CRLF and CR breaks, columns past a line's
    /// end, lines past the text's end, ranges ending before they start), both encodings.
    #[test]
    fn many_edits_apply_as_one_at_a_time() {
        let texts = [
            "a: 1\nb: 2\n",
            "é: ü\r\nx: 😀y\rz\n\nlast",
            "",
            "one line, no break",
        ];
        let mut seed = 0x2545_f491_4f6c_dd1d_u64;
        let mut next = |n: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % n) as u32
        };
        for enc in [Encoding::Utf16, Encoding::Utf8] {
            for text in texts {
                for _ in 0..200 {
                    let changes: Vec<_> = (0..(2 + next(6)))
                        .map(|_| {
                            let ins = ["", "x", "é\n", "😀", "\r\n", "ab\rc"][next(6) as usize];
                            change(next(5), next(9), next(5), next(9), ins)
                        })
                        .collect();
                    let mut one = text.to_string();
                    for c in changes.clone() {
                        apply(&mut one, vec![c], enc);
                    }
                    let mut all = text.to_string();
                    apply(&mut all, changes.clone(), enc);
                    assert_eq!(all, one, "{text:?} {changes:?}");
                }
            }
        }
    }

    #[test]
    fn a_change_without_a_range_replaces_the_text_between_edits() {
        let mut text = "abc\n".to_string();
        let whole = TextDocumentContentChangeEvent {
            range: None,
            range_length: None,
            text: "xyz\n".to_string(),
        };
        apply(
            &mut text,
            vec![
                change(0, 0, 0, 1, "A"),
                whole,
                change(0, 0, 0, 0, "<"),
                change(0, 4, 0, 4, ">"),
            ],
            Encoding::Utf16,
        );
        assert_eq!(text, "<xyz>\n");
    }
}
