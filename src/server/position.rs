//! Positions as the protocol counts them: a zero-based line and a column in UTF-16 code
//! units (the protocol's default) or in bytes (`positionEncoding: utf-8`, when the client
//! offers it). Lines break at LF, CRLF and a lone CR, as YAML and `load::SourceFile` count
//! them. Every conversion clamps: a position past a line's end is its end, past the text's
//! end is the end, and an offset inside a character is that character's start.

use lsp_types::Position;

/// How columns are counted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Encoding {
    Utf16,
    Utf8,
}

/// The block size of [`LineIndex`]'s UTF-16 index.
const BLOCK: usize = 1024;

/// UTF-16 code units of the characters that start in `bytes`: one per leading byte, two for
/// the leading byte of a four-byte sequence (a surrogate pair); continuation bytes none.
fn units_in(bytes: &[u8]) -> usize {
    bytes
        .iter()
        .map(|&b| match b {
            0x80..=0xBF => 0,
            0xF0..=0xFF => 2,
            _ => 1,
        })
        .sum()
}

/// A text's line starts, and for UTF-16 the code units before each block of it, for
/// converting both ways: each conversion reads at most a block or two, never a line from
/// its start (a minified JSON file is one line of a megabyte, with thousands of findings).
pub(crate) struct LineIndex {
    starts: Vec<usize>,
    encoding: Encoding,
    /// UTF-16 code units before each [`BLOCK`]-byte block, and at the end (empty when
    /// columns are bytes: UTF-8 columns, or an ASCII text).
    block_units: Vec<usize>,
}

impl LineIndex {
    pub(crate) fn new(text: &str, encoding: Encoding) -> Self {
        let bytes = text.as_bytes();
        let mut starts = vec![0];
        starts.extend(
            memchr::memchr2_iter(b'\n', b'\r', bytes)
                .filter(|&i| bytes[i] == b'\n' || bytes.get(i + 1) != Some(&b'\n'))
                .map(|i| i + 1),
        );
        let mut block_units = Vec::new();
        if encoding == Encoding::Utf16 && !text.is_ascii() {
            let mut before = 0;
            for block in bytes.chunks(BLOCK) {
                block_units.push(before);
                before += units_in(block);
            }
            block_units.push(before);
        }
        LineIndex {
            starts,
            encoding,
            block_units,
        }
    }

    pub(crate) fn encoding(&self) -> Encoding {
        self.encoding
    }

    /// Columns before byte `offset` (a character boundary) from the start of the text: bytes,
    /// or UTF-16 code units.
    fn units_before(&self, text: &str, offset: usize) -> usize {
        if self.block_units.is_empty() {
            return offset;
        }
        let block = offset / BLOCK;
        self.block_units.get(block).copied().unwrap_or(0)
            + units_in(text.as_bytes().get(block * BLOCK..offset).unwrap_or(&[]))
    }

    /// The byte range of line `line` (zero-based) without its break.
    fn line_range(&self, text: &str, line: usize) -> Option<(usize, usize)> {
        let start = *self.starts.get(line)?;
        let next = self.starts.get(line + 1).copied().unwrap_or(text.len());
        let mut end = next;
        let bytes = text.as_bytes();
        while end > start && matches!(bytes.get(end - 1), Some(b'\n' | b'\r')) {
            end -= 1;
        }
        Some((start, end))
    }

    /// The zero-based line of a byte offset and that line's start.
    pub(crate) fn line_of(&self, offset: usize) -> (usize, usize) {
        let line = match self.starts.binary_search(&offset) {
            Ok(i) => i,
            Err(i) => i.saturating_sub(1),
        };
        (line, self.starts.get(line).copied().unwrap_or(0))
    }

    /// The protocol position of byte `offset` of `text`.
    pub(crate) fn position(&self, text: &str, offset: usize) -> Position {
        let offset = crate::util::text::floor_char(text, offset);
        let (line, start) = self.line_of(offset);
        let character = self.units_before(text, offset) - self.units_before(text, start);
        Position {
            line: u32::try_from(line).unwrap_or(u32::MAX),
            character: u32::try_from(character).unwrap_or(u32::MAX),
        }
    }

    /// The byte offset in `text` of a protocol position: the first character boundary of its
    /// line at or past its column, or the line's end.
    pub(crate) fn offset(&self, text: &str, pos: Position) -> usize {
        let Some((start, end)) = self.line_range(text, pos.line as usize) else {
            return text.len();
        };
        let want = pos.character as usize;
        if self.block_units.is_empty() {
            // Columns are bytes.
            return crate::util::text::ceil_char(text, start.saturating_add(want).min(end));
        }
        let target = self.units_before(text, start) + want;
        // The last block of the line starting at or before the target: from there, the
        // target is less than a block away (or the line ends first).
        let first = start / BLOCK;
        let last = (end / BLOCK).min(self.block_units.len().saturating_sub(1));
        let blocks = self.block_units.get(first..=last).unwrap_or(&[]);
        let b = first + blocks.partition_point(|&u| u <= target).saturating_sub(1);
        let from = crate::util::text::ceil_char(text, (b * BLOCK).max(start));
        let mut units = self.units_before(text, from);
        for (i, c) in text.get(from..end).unwrap_or("").char_indices() {
            if units >= target {
                return from + i;
            }
            units += c.len_utf16();
        }
        end
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utf16_counts_surrogate_pairs_and_clamps() {
        let text = "a: 😀x\r\nb: é\rc";
        let idx = LineIndex::new(text, Encoding::Utf16);
        let x = text.find('x').unwrap_or(0);
        assert_eq!(idx.position(text, x), Position::new(0, 5));
        assert_eq!(idx.offset(text, Position::new(0, 5)), x);
        let c = text.rfind('c').unwrap_or(0);
        assert_eq!(idx.position(text, c), Position::new(2, 0));
        assert_eq!(idx.offset(text, Position::new(1, 99)), c - 1);
        assert_eq!(idx.offset(text, Position::new(9, 0)), text.len());
        // Inside the emoji: its start.
        assert_eq!(idx.position(text, 4), Position::new(0, 3));
    }

    /// The conversions as they were: a walk from the line's start.
    fn naive_position(idx: &LineIndex, text: &str, offset: usize) -> Position {
        let offset = crate::util::text::floor_char(text, offset);
        let (line, start) = idx.line_of(offset);
        let prefix = &text[start..offset];
        let character = match idx.encoding {
            Encoding::Utf8 => prefix.len(),
            Encoding::Utf16 => prefix.chars().map(char::len_utf16).sum(),
        };
        Position::new(line as u32, character as u32)
    }

    fn naive_offset(idx: &LineIndex, text: &str, pos: Position) -> usize {
        let Some((start, end)) = idx.line_range(text, pos.line as usize) else {
            return text.len();
        };
        let want = pos.character as usize;
        let mut units = 0;
        for (i, c) in text[start..end].char_indices() {
            if units >= want {
                return start + i;
            }
            units += match idx.encoding {
                Encoding::Utf8 => c.len_utf8(),
                Encoding::Utf16 => c.len_utf16(),
            };
        }
        end
    }

    /// Every offset and many positions of texts with long lines, multi-byte characters on
    /// block boundaries and all three line breaks: the same answers as the walk.
    #[test]
    fn block_index_answers_as_the_walk() {
        let pieces = ["a", "é", "€", "😀", "\n", "\r\n", "\r", "xyz"];
        let mut seed = 7u64;
        for round in 0..40 {
            let mut text = String::new();
            let n = [10, 700, 3000][round % 3];
            for _ in 0..n {
                seed = seed
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                // Long lines: breaks are rare.
                let k = (seed >> 33) as usize % 100;
                let piece = if k < 2 {
                    pieces[4 + k % 3]
                } else {
                    pieces[[0, 1, 2, 3, 7][k % 5]]
                };
                text.push_str(piece);
            }
            for encoding in [Encoding::Utf8, Encoding::Utf16] {
                let idx = LineIndex::new(&text, encoding);
                for offset in (0..=text.len() + 2).step_by(1 + round % 5) {
                    assert_eq!(
                        idx.position(&text, offset),
                        naive_position(&idx, &text, offset),
                        "{encoding:?} {offset}"
                    );
                }
                let lines = idx.starts.len() as u32;
                for line in 0..=lines {
                    for character in (0..4200).step_by(37).chain([u32::MAX]) {
                        let pos = Position::new(line, character);
                        assert_eq!(
                            idx.offset(&text, pos),
                            naive_offset(&idx, &text, pos),
                            "{encoding:?} {pos:?}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn utf8_counts_bytes() {
        let text = "é: x";
        let idx = LineIndex::new(text, Encoding::Utf8);
        assert_eq!(idx.position(text, 4), Position::new(0, 4));
        assert_eq!(idx.offset(text, Position::new(0, 1)), 2);
    }
}
