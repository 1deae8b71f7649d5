//! What kubectl's reader does around go-yaml, for a stream that is not JSON (see
//! [`super::json`]). `k8s.io/apimachinery/pkg/util/yaml`'s `YAMLReader.Read` cuts the stream
//! line by line at separators, any line that starts with `---`; each piece goes alone to
//! `sigs.k8s.io/yaml`, whose go-yaml `Unmarshal` reads the first document of it and stops.
//! [`super::prescan::split_documents`] cuts where `YAMLReader` does (a piece here keeps its
//! separator line); [`Pieces`] walks the pieces with what `YAMLReader` refuses, and
//! [`first_document_end`] is where go-yaml stops reading one:
//!
//! - a separator line may carry a comment and nothing else ("invalid Yaml document
//!   separator"): `--- {a: 1}`, `---foo` or `----` end the stream there, before the piece that
//!   precedes the line is read (`Read` returns the error instead of it);
//! - a separator that ends a piece with anything in it (comment and blank lines included) is
//!   dropped, and the next piece starts after it; one that finds the piece empty (the first line
//!   of the stream, the line right after a dropped separator) starts the next piece. A piece
//!   whose first token is then a document end marker (`...`, nothing before it but comments) is
//!   refused by go-yaml (`yaml_parser_parse_document_start` skips a `...` only after a
//!   document: "did not find expected node content"; PyYAML refuses it too): `---` then `...`
//!   is an empty document at the start of a stream and an error after a document;
//! - anything after the first document of a piece (a second document after `...`, or text that
//!   does not parse) is never read.

use std::ops::Range;

use super::yaml::LoadError;

/// Whether a line (its bytes, from its start) is a document separator to `YAMLReader`: it
/// starts with `---`.
pub fn is_separator(line: &[u8]) -> bool {
    line.starts_with(b"---")
}

/// A document end marker line: `...` and then a blank, a line break or nothing.
fn is_document_end(line: &[u8]) -> bool {
    line.starts_with(b"...") && matches!(line.get(3), None | Some(b' ' | b'\t' | b'\r' | b'\n'))
}

/// A line with nothing but blanks and maybe a comment.
fn is_quiet(line: &[u8]) -> bool {
    let t = line.trim_ascii_start();
    t.is_empty() || t[0] == b'#'
}

/// The lines of `text[range]`, each with its offset in `text` and its line break.
fn lines(text: &str, range: Range<usize>) -> impl Iterator<Item = (usize, &[u8])> {
    let b = text.as_bytes().get(range.clone()).unwrap_or_default();
    let mut at = 0;
    std::iter::from_fn(move || {
        if at >= b.len() {
            return None;
        }
        let end = memchr::memchr(b'\n', &b[at..]).map_or(b.len(), |i| at + i + 1);
        let line = (range.start + at, &b[at..end]);
        at = end;
        Some(line)
    })
}

/// The separator line of a piece (its first line, or in the first piece the one after its
/// leading comments), with its offset.
fn separator(text: &str, range: Range<usize>) -> Option<(usize, &[u8])> {
    lines(text, range)
        .find(|(_, l)| !is_quiet(l) || is_separator(l))
        .filter(|(_, l)| is_separator(l))
}

/// `YAMLReader`'s error for the separator line of a piece: anything but a comment after
/// `---` (`strings.TrimSpace` of the rest must be empty or start with `#`).
fn bad_separator(text: &str, range: Range<usize>) -> Option<LoadError> {
    let (at, line) = separator(text, range)?;
    let rest = line[3..].trim_ascii();
    (!rest.is_empty() && rest[0] != b'#').then(|| LoadError::Syntax {
        message: "invalid document separator: kubectl's reader takes a line that starts with `---` for a separator, and only a comment may follow it there".to_string(),
        offset: at,
    })
}

/// The pieces of a stream ([`super::prescan::split_documents`]) in order, each to read, or
/// the error of kubectl's reader that ends the stream before it (see the module's notes).
pub struct Pieces<'a> {
    text: &'a str,
    ranges: Vec<Range<usize>>,
    next: usize,
    /// The piece before ended with a separator line that `YAMLReader` dropped.
    dropped_before: bool,
    done: bool,
}

impl<'a> Pieces<'a> {
    pub fn new(text: &'a str) -> Self {
        Pieces {
            text,
            ranges: super::prescan::split_documents(text),
            next: 0,
            dropped_before: false,
            done: false,
        }
    }

    /// The error for the piece `range`, whose separator line (if it has one) `YAMLReader`
    /// drops or keeps; whether it drops it and that line ends the piece.
    fn document_end_first(&self, range: Range<usize>) -> (Option<LoadError>, bool) {
        let sep = separator(self.text, range.clone());
        // Kept: the stream's first line, or the line right after a dropped separator.
        let kept = sep.is_some_and(|(at, _)| at == range.start)
            && (range.start == 0 || self.dropped_before);
        let from = match sep {
            Some((at, line)) if !kept => at + line.len(),
            Some(_) => return (None, false),
            None => range.start,
        };
        let first = lines(self.text, from..range.end).find(|(_, l)| !is_quiet(l));
        let error = first
            .filter(|(_, l)| is_document_end(l))
            .map(|(at, _)| LoadError::Syntax {
                message: "did not find expected node content: a document end marker (`...`) with no document before it in this part of the stream".to_string(),
                offset: at,
            });
        let ends = sep.is_some() && !kept && from == range.end;
        (error, ends)
    }
}

impl Iterator for Pieces<'_> {
    type Item = Result<Range<usize>, LoadError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        let range = self.ranges.get(self.next)?.clone();
        let i = self.next;
        self.next += 1;
        // A bad separator is refused when it is reached: before the piece it ends is read.
        let ahead = (i == 0)
            .then(|| bad_separator(self.text, range.clone()))
            .flatten()
            .or_else(|| {
                self.ranges
                    .get(i + 1)
                    .and_then(|r| bad_separator(self.text, r.clone()))
            });
        let (error, ends) = self.document_end_first(range.clone());
        self.dropped_before = ends;
        match ahead.or(error) {
            Some(e) => {
                self.done = true;
                Some(Err(e))
            }
            None => Some(Ok(range)),
        }
    }
}

/// Where go-yaml stops reading a piece whose first document ends at `doc_end`: its scanner
/// goes on to the next token, over the blank and comment lines after the document, and takes
/// a `...` line there; it stops before anything else. Nothing after that is read.
pub fn first_document_end(chunk: &str, doc_end: usize) -> usize {
    let b = chunk.as_bytes();
    let line_end = |from: usize| {
        memchr::memchr(b'\n', b.get(from..).unwrap_or_default()).map_or(b.len(), |i| from + i + 1)
    };
    let mut at = line_end(doc_end.min(b.len()));
    let mut next = at;
    while next < b.len() {
        let end = line_end(next);
        let l = &b[next..end];
        if is_document_end(l) {
            at = end;
            break;
        }
        if !is_quiet(l) {
            break;
        }
        next = end;
        at = end;
    }
    at
}

/// How far go-yaml's reader has checked the characters of a piece it read up to `read`: it
/// decodes its input 512 bytes at a time (`yaml_parser_update_raw_buffer`, `input_raw_buffer_size`)
/// and refuses a control character anywhere in what it decoded, a few characters of
/// look-ahead past `read` included.
pub fn checked_up_to(len: usize, read: usize) -> usize {
    const RAW_BUFFER: usize = 512;
    (read + 4)
        .div_ceil(RAW_BUFFER)
        .saturating_mul(RAW_BUFFER)
        .min(len)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The pieces read and the error that ends them, as (start, error offset).
    fn walk(text: &str) -> (Vec<usize>, Option<usize>) {
        let mut read = Vec::new();
        for p in Pieces::new(text) {
            match p {
                Ok(r) => read.push(r.start),
                Err(e) => return (read, Some(e.offset())),
            }
        }
        (read, None)
    }

    /// Each case checked with `kubectl apply --dry-run=client` (1.32).
    #[test]
    fn separators_and_document_ends_as_kubectl_reads_them() {
        // Read: a comment after `---`, a `---` then `...` at the start, `...` after a document.
        assert_eq!(walk("--- # c\na: 1\n"), (vec![0], None));
        assert_eq!(walk("---\n...\n"), (vec![0], None));
        assert_eq!(walk("---\n# c\n...\n"), (vec![0], None));
        assert_eq!(walk("a: 1\n...\n"), (vec![0], None));
        // `---` right after a dropped one is kept: its `...` is fine.
        assert_eq!(walk("a: 1\n---\n---\n...\n"), (vec![0, 5, 9], None));
        // Refused: a `...` first after a dropped separator, or first in the stream.
        assert_eq!(walk("...\n"), (vec![], Some(0)));
        assert_eq!(walk("# c\n...\n"), (vec![], Some(4)));
        assert_eq!(walk("a: 1\n---\n...\n"), (vec![0], Some(9)));
        assert_eq!(walk("a: 1\n---\n# c\n...\n"), (vec![0], Some(13)));
        assert_eq!(walk("---\n---\n...\n"), (vec![0], Some(8)));
        assert_eq!(walk("# c\n---\n...\n"), (vec![], Some(8)));
        // A bad separator, before the piece it ends is read.
        assert_eq!(walk("--- {a: 1}\n"), (vec![], Some(0)));
        assert_eq!(walk("---foo\n"), (vec![], Some(0)));
        assert_eq!(walk("a: 1\n----\nb: 1\n"), (vec![], Some(5)));
        assert_eq!(walk("a: 1\n---\n----\nb: 1\n"), (vec![0], Some(9)));
        assert_eq!(walk("# c\n--- x\n"), (vec![], Some(4)));
    }

    #[test]
    fn where_go_yaml_stops() {
        assert_eq!(first_document_end("a: 1\n# c\n...\nb: 2\n", 4), 13);
        assert_eq!(first_document_end("a: 1 # c\nb\n", 4), 9);
        assert_eq!(first_document_end("a: 1\n# c\n\nb\n", 4), 10);
        assert_eq!(first_document_end("a: 1", 4), 4);
        assert_eq!(checked_up_to(10_000, 13), 512);
        assert_eq!(checked_up_to(100, 13), 100);
        assert_eq!(checked_up_to(10_000, 510), 1024);
    }
}
