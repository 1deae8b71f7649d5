//! A loaded source file: its display name, its text, and a line index that turns byte offsets
//! into 1-based line and column numbers (columns count Unicode scalar values).

use std::sync::Arc;

/// A byte range into a [`SourceFile`]'s text.
#[derive(
    Clone,
    Copy,
    Debug,
    Default,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    serde::Serialize,
    serde::Deserialize,
)]
pub struct Span {
    pub start: usize,
    pub end: usize,
}

impl Span {
    pub const fn new(start: usize, end: usize) -> Self {
        Span { start, end }
    }

    pub const fn empty(at: usize) -> Self {
        Span { start: at, end: at }
    }

    pub const fn len(self) -> usize {
        self.end.saturating_sub(self.start)
    }

    pub const fn is_empty(self) -> bool {
        self.len() == 0
    }

    /// The smallest span covering both.
    #[must_use]
    pub fn cover(self, other: Span) -> Span {
        Span::new(self.start.min(other.start), self.end.max(other.end))
    }
}

/// A line/column position, both 1-based.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
pub struct Position {
    pub line: usize,
    pub column: usize,
}

/// A recorded position: byte offset, line, column (packed: a large tree has millions).
pub type Packed = (u32, u32, u32);

/// The block size of [`SourceFile`]'s character index.
const BLOCK: usize = 1024;

/// Characters in `bytes`: the bytes that do not continue a UTF-8 sequence (a sequence cut
/// at the end counts as one character).
fn chars_in(bytes: &[u8]) -> usize {
    bytes.iter().filter(|&&b| (b & 0xC0) != 0x80).count()
}

#[derive(Debug)]
pub struct SourceFile {
    /// The path as the user gave it (or the stdin name); shared with the findings in it.
    pub name: Arc<str>,
    /// The text; empty in a *lite* source (see [`SourceFile::lite`]).
    pub text: String,
    line_starts: Vec<usize>,
    /// Characters before each [`BLOCK`]-byte block of the text (empty when the text is ASCII,
    /// where a column is a byte count): a column costs at most two block scans, never a scan
    /// from the start of its line, so a megabyte-long line costs what many short ones do.
    block_chars: Vec<usize>,
    /// A lite source keeps only the positions of the offsets findings need, so a run over a
    /// large tree does not keep every file's text in memory.
    /// Sorted by offset, deduplicated: (offset, line, column), packed (a large tree has
    /// millions of them).
    positions: Option<Box<[Packed]>>,
}

impl SourceFile {
    pub fn new(name: impl Into<Arc<str>>, text: String) -> Arc<Self> {
        // YAML's line breaks are LF, CRLF and a lone CR (YAML 1.2 §5.4; libyaml's and go-yaml's
        // scanner, `yaml_parser_scan_to_next_token` / `skip_line`, count each as one line):
        // a CR starts a line unless an LF follows it.
        let bytes = text.as_bytes();
        let mut line_starts = vec![0];
        if memchr::memchr(b'\r', bytes).is_none() {
            line_starts.extend(memchr::memchr_iter(b'\n', bytes).map(|i| i + 1));
        } else {
            line_starts.extend(
                memchr::memchr2_iter(b'\n', b'\r', bytes)
                    .filter(|&i| bytes[i] == b'\n' || bytes.get(i + 1) != Some(&b'\n'))
                    .map(|i| i + 1),
            );
        }
        let mut block_chars = Vec::new();
        if !text.is_ascii() {
            let mut before = 0;
            for block in text.as_bytes().chunks(BLOCK) {
                block_chars.push(before);
                before += chars_in(block);
            }
            // For an offset at the end of a text of whole blocks.
            block_chars.push(before);
        }
        Arc::new(SourceFile {
            name: name.into(),
            text,
            line_starts,
            block_chars,
            positions: None,
        })
    }

    /// A copy that remembers only the positions of `offsets`: no text, no line index.
    /// Reporters that need a snippet read the file again.
    pub fn lite(&self, offsets: impl IntoIterator<Item = usize>) -> Arc<Self> {
        let pack = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
        let mut offsets: Vec<usize> = offsets.into_iter().collect();
        offsets.sort_unstable();
        offsets.dedup();
        // The offsets ascend: one sweep of the line starts for all of them (as `position`
        // finds them, the last line start at or before the offset), not a search each.
        let mut line_idx = 0usize;
        let positions = offsets
            .into_iter()
            .map(|o| {
                if self.positions.is_some() {
                    let p = self.position(o);
                    return (pack(o), pack(p.line), pack(p.column));
                }
                let offset = o.min(self.text.len());
                while self
                    .line_starts
                    .get(line_idx + 1)
                    .is_some_and(|&s| s <= offset)
                {
                    line_idx += 1;
                }
                let line_start = self.line_starts.get(line_idx).copied().unwrap_or(0);
                let column = self
                    .chars_before(offset)
                    .saturating_sub(self.chars_before(line_start));
                (pack(o), pack(line_idx + 1), pack(column + 1))
            })
            .collect();
        Arc::new(SourceFile {
            name: self.name.clone(),
            text: String::new(),
            line_starts: Vec::new(),
            block_chars: Vec::new(),
            positions: Some(positions),
        })
    }

    /// A lite source's name and recorded positions (`None` for a source with its text).
    pub fn lite_parts(&self) -> Option<(&Arc<str>, &[Packed])> {
        self.positions.as_deref().map(|p| (&self.name, p))
    }

    /// The lite source these parts describe (see [`SourceFile::lite_parts`]).
    pub fn from_lite_parts(name: Arc<str>, positions: Vec<Packed>) -> Arc<Self> {
        Arc::new(SourceFile {
            name,
            text: String::new(),
            line_starts: Vec::new(),
            block_chars: Vec::new(),
            positions: Some(positions.into_boxed_slice()),
        })
    }

    pub fn is_lite(&self) -> bool {
        self.positions.is_some()
    }

    /// Line and column (1-based) of a byte offset. Offsets past the end clamp to the end;
    /// offsets inside a multi-byte character count that character.
    pub fn position(&self, offset: usize) -> Position {
        if let Some(table) = &self.positions {
            // Exact for recorded offsets; the nearest recorded one before it otherwise.
            let offset = u32::try_from(offset).unwrap_or(u32::MAX);
            let i = table.partition_point(|&(o, _, _)| o <= offset);
            return i.checked_sub(1).and_then(|i| table.get(i)).map_or(
                Position { line: 1, column: 1 },
                |&(_, line, column)| Position {
                    line: line as usize,
                    column: column as usize,
                },
            );
        }
        let offset = offset.min(self.text.len());
        let line_idx = match self.line_starts.binary_search(&offset) {
            Ok(i) => i,
            Err(i) => i.saturating_sub(1),
        };
        let line_start = self.line_starts.get(line_idx).copied().unwrap_or(0);
        let prefix = self
            .chars_before(offset)
            .saturating_sub(self.chars_before(line_start));
        Position {
            line: line_idx + 1,
            column: prefix + 1,
        }
    }

    /// Characters in the text before byte `offset` (at most the text's length); a character
    /// that `offset` cuts counts. Constant time: one block of [`BLOCK`] bytes at most.
    fn chars_before(&self, offset: usize) -> usize {
        let offset = offset.min(self.text.len());
        if self.block_chars.is_empty() {
            return offset;
        }
        let block = offset / BLOCK;
        let bytes = self.text.as_bytes();
        self.block_chars.get(block).copied().unwrap_or(0)
            + chars_in(bytes.get(block * BLOCK..offset).unwrap_or(&[]))
    }

    /// The text of line `line` (1-based) without its line terminator.
    pub fn line_text(&self, line: usize) -> &str {
        let Some(&start) = self.line_starts.get(line.wrapping_sub(1)) else {
            return "";
        };
        let end = self
            .line_starts
            .get(line)
            .copied()
            .unwrap_or(self.text.len());
        self.text
            .get(start..end)
            .unwrap_or("")
            .trim_end_matches(['\n', '\r'])
    }

    pub fn line_count(&self) -> usize {
        self.line_starts.len()
    }

    /// Byte offset of the start of line `line` (1-based).
    pub fn line_start(&self, line: usize) -> Option<usize> {
        self.line_starts.get(line.wrapping_sub(1)).copied()
    }

    pub fn slice(&self, span: Span) -> &str {
        self.text.get(span.start..span.end).unwrap_or("")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_count_characters_and_lines() {
        let f = SourceFile::new("x", "a: b\nkéy: v\r\nz".to_string());
        assert_eq!(f.position(0), Position { line: 1, column: 1 });
        assert_eq!(f.position(5), Position { line: 2, column: 1 });
        // 'y' after the two-byte 'é'
        assert_eq!(f.position(8), Position { line: 2, column: 3 });
        assert_eq!(f.line_text(2), "kéy: v");
        assert_eq!(f.position(1000).line, 3);
    }

    /// A lite source records, for every offset asked, the position the full one gives (one
    /// sweep of the lines for all offsets), multi-byte characters and line ends included.
    #[test]
    fn lite_positions_are_the_full_ones() {
        let mut text = String::new();
        for i in 0..3000 {
            text.push_str(if i % 7 == 0 {
                "kéy: välue\r\n"
            } else {
                "a: b\n"
            });
            if i % 13 == 0 {
                text.push('\r');
            }
        }
        let f = SourceFile::new("x", text.clone());
        let offsets: Vec<usize> = (0..text.len() + 5).step_by(3).collect();
        let lite = f.lite(offsets.iter().rev().copied());
        for &o in &offsets {
            assert_eq!(lite.position(o), f.position(o), "offset {o}");
        }
    }

    /// A lone CR is a line break, as a CRLF is one (YAML 1.2 §5.4, go-yaml's scanner).
    #[test]
    fn lone_cr_breaks_lines() {
        let f = SourceFile::new("x", "a: 1\rb: 2\r\nc: 3\r\rd: 4\n".to_string());
        assert_eq!(f.position(5), Position { line: 2, column: 1 });
        assert_eq!(f.position(11), Position { line: 3, column: 1 });
        assert_eq!(f.position(17), Position { line: 5, column: 1 });
        assert_eq!(f.line_text(2), "b: 2");
        assert_eq!(f.line_text(4), "");
        assert_eq!(f.line_count(), 6);
    }

    /// The block index gives what counting from the line start gives, across block
    /// boundaries, inside multi-byte characters and at the very end.
    #[test]
    fn columns_match_a_count_from_the_line_start() {
        let mut text = String::new();
        for i in 0..3000 {
            text.push(['a', 'é', '€', '𝄞', '\n'][i % 7 % 5]);
        }
        text.push_str(&"x".repeat(2048 - text.len() % 1024));
        for multiple in [text.clone(), "é".repeat(1024), "ab".repeat(1024)] {
            let f = SourceFile::new("x", multiple.clone());
            for offset in 0..=multiple.len() + 2 {
                let clamped = offset.min(multiple.len());
                let bytes = &multiple.as_bytes()[..clamped];
                let line_start = bytes.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
                let naive = String::from_utf8_lossy(&multiple.as_bytes()[line_start..clamped])
                    .chars()
                    .count();
                assert_eq!(f.position(offset).column, naive + 1, "offset {offset}");
            }
        }
    }
}

/// A place in a file.
#[derive(Clone, Debug)]
pub struct Loc {
    pub source: Arc<SourceFile>,
    pub span: Span,
}
