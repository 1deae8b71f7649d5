//! Files that are not UTF-8 and that kubectl reads all the same (cli-runtime's
//! `FileVisitor` decodes every file and standard input through
//! `unicode.BOMOverride(unicode.UTF8.NewDecoder())`): they are linted from the text kubectl
//! reads, with an `invalid-encoding` finding that says so.

use std::sync::Arc;

use super::file::char_at;
use crate::diagnostic::{Finding, Severity};
use crate::load::{self, ReadFailure, SourceFile};
use crate::rules;

/// A file that is not UTF-8 and that kubectl reads all the same, with its text as kubectl
/// reads it: UTF-16 with a byte order mark, and UTF-8 with invalid bytes, which kubectl's
/// decoder replaces with U+FFFD (cli-runtime's `FileVisitor`:
/// `unicode.BOMOverride(unicode.UTF8.NewDecoder())`). Not a Terraform file (Terraform reads
/// UTF-8 only), nor a text with a NUL (go-yaml and `encoding/json` refuse it): `Err` keeps
/// the failure.
pub(super) fn decoded_as_kubectl(
    name: &str,
    failure: ReadFailure,
) -> Result<(String, EncodingNote), ReadFailure> {
    if super::terraform::is_terraform(name) {
        return Err(failure);
    }
    match failure {
        ReadFailure::Utf16 { utf, text } => Ok((text, EncodingNote::Utf16(utf))),
        ReadFailure::InvalidUtf8 { offset, lossy } if !lossy.contains('\0') => {
            Ok((lossy, EncodingNote::InvalidUtf8(offset)))
        }
        other => Err(other),
    }
}

/// The `invalid-encoding` finding of a file linted as kubectl decodes it.
pub(super) enum EncodingNote {
    Utf16(load::Utf),
    /// The offset of the first invalid byte (the same in the decoded text).
    InvalidUtf8(usize),
}

impl EncodingNote {
    pub(super) fn finding(&self, source: &Arc<SourceFile>) -> Finding {
        let meta = &rules::INVALID_ENCODING;
        match self {
            EncodingNote::Utf16(utf) => meta
                .finding_at(
                    Severity::Warning,
                    format!(
                        "file is {} encoded (with a byte order mark), not UTF-8",
                        utf.family()
                    ),
                )
                .primary(char_at(&source.text, 0), "here")
                .help("kubectl reads it converted to UTF-8, and so does taintlint; git and many other tools do not: convert it, e.g. `iconv -f UTF-16 -t UTF-8`")
                .in_file(source),
            EncodingNote::InvalidUtf8(offset) => meta
                .finding("file is not valid UTF-8".to_string())
                .primary(char_at(&source.text, *offset), "here")
                .help("kubectl reads each byte that is not UTF-8 as U+FFFD (`\u{fffd}`), so the cluster gets a value the file does not hold; re-save the file as UTF-8")
                .in_file(source),
        }
    }
}
