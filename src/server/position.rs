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

/// A text's line starts, for converting both ways.
pub(crate) struct LineIndex {
    starts: Vec<usize>,
    encoding: Encoding,
}

impl LineIndex {
    pub(crate) fn new(text: &str, encoding: Encoding) -> Self {
        let bytes = text.as_bytes();
        let mut starts = vec![0];
        for (i, &b) in bytes.iter().enumerate() {
            if b == b'\n' || (b == b'\r' && bytes.get(i + 1) != Some(&b'\n')) {
                starts.push(i + 1);
            }
        }
        LineIndex { starts, encoding }
    }

    pub(crate) fn encoding(&self) -> Encoding {
        self.encoding
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
        let mut offset = offset.min(text.len());
        while !text.is_char_boundary(offset) {
            offset -= 1;
        }
        let (line, start) = self.line_of(offset);
        let prefix = text.get(start..offset).unwrap_or("");
        let character = match self.encoding {
            Encoding::Utf8 => prefix.len(),
            Encoding::Utf16 => prefix.chars().map(char::len_utf16).sum(),
        };
        Position {
            line: u32::try_from(line).unwrap_or(u32::MAX),
            character: u32::try_from(character).unwrap_or(u32::MAX),
        }
    }

    /// The byte offset in `text` of a protocol position.
    pub(crate) fn offset(&self, text: &str, pos: Position) -> usize {
        let Some((start, end)) = self.line_range(text, pos.line as usize) else {
            return text.len();
        };
        let want = pos.character as usize;
        let line = text.get(start..end).unwrap_or("");
        let mut units = 0;
        for (i, c) in line.char_indices() {
            if units >= want {
                return start + i;
            }
            units += match self.encoding {
                Encoding::Utf8 => c.len_utf8(),
                Encoding::Utf16 => c.len_utf16(),
            };
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

    #[test]
    fn utf8_counts_bytes() {
        let text = "é: x";
        let idx = LineIndex::new(text, Encoding::Utf8);
        assert_eq!(idx.position(text, 4), Position::new(0, 4));
        assert_eq!(idx.offset(text, Position::new(0, 1)), 2);
    }
}
