//! `--format rdjson`: reviewdog's Diagnostic Format (`reviewdog -f=rdjson`), which reviewdog
//! turns into review comments on GitHub, GitLab, Bitbucket or Gerrit, with the safe fixes as
//! suggested changes a reviewer applies in one click.
//!
//! reviewdog counts columns in UTF-8 bytes (taintlint's other formats count characters), and
//! its ranges end exclusively, as taintlint's do. Byte columns need the line's text: a file
//! whose text the run did not keep is read back (once per file, findings come sorted by
//! file); when it cannot be, the diagnostic names lines only and offers no suggestion rather
//! than a column that may be wrong. Strings are written as the JSON format writes them
//! (`report::safe_json`): no control character, line separator or bidi control of the input
//! raw.

use std::io::{self, Write};
use std::sync::Arc;

use serde::Serialize;

use crate::diagnostic::{Applicability, Finding, Severity};
use crate::load::{SourceFile, Span};

use super::{FindingSource, rule_url};

#[derive(Serialize)]
struct Output<'a> {
    source: Source,
    diagnostics: Diagnostics<'a>,
}

#[derive(Serialize)]
struct Source {
    name: &'static str,
    url: &'static str,
}

const SOURCE: Source = Source {
    name: "taintlint",
    url: env!("CARGO_PKG_REPOSITORY"),
};

#[derive(Serialize)]
struct Diagnostic<'a> {
    message: String,
    location: Location<'a>,
    severity: &'static str,
    source: Source,
    code: Code<'a>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    suggestions: Vec<Suggestion<'a>>,
}

#[derive(Serialize)]
struct Location<'a> {
    path: &'a str,
    range: Range,
}

#[derive(Serialize)]
struct Range {
    start: Position,
    end: Position,
}

#[derive(Serialize)]
struct Position {
    line: usize,
    /// In UTF-8 bytes, from 1; absent when the line's text is not known.
    #[serde(skip_serializing_if = "Option::is_none")]
    column: Option<usize>,
}

#[derive(Serialize)]
struct Code<'a> {
    value: &'a str,
    url: String,
}

#[derive(Serialize)]
struct Suggestion<'a> {
    range: Range,
    text: &'a str,
}

fn severity(s: Severity) -> &'static str {
    match s {
        Severity::Error => "ERROR",
        Severity::Warning => "WARNING",
        Severity::Info => "INFO",
    }
}

/// The file last read back: its name and its text (`None`: not readable now).
type ReadBack = (Arc<str>, Option<Arc<SourceFile>>);

/// The finding's file with its text, read back from disk for a source the run kept only the
/// positions of.
fn full_source(src: &Arc<SourceFile>, cache: &mut Option<ReadBack>) -> Option<Arc<SourceFile>> {
    if !src.is_lite() {
        return Some(Arc::clone(src));
    }
    if let Some((name, text)) = cache.as_ref()
        && *name == src.name
    {
        return text.clone();
    }
    let text = std::fs::read(&*src.name)
        .ok()
        .and_then(|bytes| crate::load::decode(bytes).ok())
        .map(|text| SourceFile::new(Arc::clone(&src.name), text));
    *cache = Some((Arc::clone(&src.name), text.clone()));
    text
}

/// Line and UTF-8 byte column (1-based) of a byte offset of `src`.
fn byte_position(src: &SourceFile, offset: usize) -> Position {
    let line = src.position(offset).line;
    let column = src
        .line_start(line)
        .map(|start| offset.saturating_sub(start) + 1);
    Position { line, column }
}

/// The range of `span` in byte columns, or of its lines when the text is not known.
fn range(text: Option<&SourceFile>, lines: &SourceFile, span: Span) -> Range {
    let end = span.end.max(span.start);
    match text {
        Some(src) => Range {
            start: byte_position(src, span.start),
            end: byte_position(src, end),
        },
        None => Range {
            start: Position {
                line: lines.position(span.start).line,
                column: None,
            },
            end: Position {
                line: lines.position(end).line,
                column: None,
            },
        },
    }
}

fn diagnostic<'a>(f: &'a Finding, cache: &mut Option<ReadBack>) -> Diagnostic<'a> {
    let mut message = f.message.to_string();
    if let Some(cluster) = &f.cluster {
        message.push_str(&format!(" (cluster `{cluster}`)"));
    }
    super::push_help_and_api(&mut message, f);
    super::push_related(&mut message, f);
    let text = f.source.as_ref().and_then(|s| full_source(s, cache));
    let range = match (&f.source, &f.primary) {
        (Some(src), Some(label)) => range(text.as_deref(), src, label.span),
        // A finding about the whole file (unreadable, not UTF-8): its first line.
        _ => Range {
            start: Position {
                line: 1,
                column: Some(1),
            },
            end: Position {
                line: 1,
                column: Some(1),
            },
        },
    };
    // Only the fixes that keep what the author meant; the unsafe ones need a person's
    // judgement beyond one click. Without the text no edit has a trustworthy column.
    let suggestions = match (&f.fix, text.as_deref()) {
        (Some(fix), Some(src)) if fix.applicability == Applicability::Safe => fix
            .edits
            .iter()
            .map(|e| Suggestion {
                range: Range {
                    start: byte_position(src, e.span.start),
                    end: byte_position(src, e.span.end.max(e.span.start)),
                },
                text: &e.replacement,
            })
            .collect(),
        _ => Vec::new(),
    };
    Diagnostic {
        message,
        location: Location {
            path: &f.file,
            range,
        },
        severity: severity(f.severity),
        source: SOURCE,
        code: Code {
            value: f.rule,
            url: rule_url(f.rule),
        },
        suggestions,
    }
}

/// The diagnostics, each built as it is written.
struct Diagnostics<'a>(&'a dyn FindingSource);

impl Serialize for Diagnostics<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let cache = std::cell::RefCell::new(None);
        super::serialize_seq(self.0, serializer, |seq, f| {
            let d = diagnostic(f, &mut cache.borrow_mut());
            serde::ser::SerializeSeq::serialize_element(seq, &d)
        })
    }
}

pub(super) fn write(findings: &dyn FindingSource, out: &mut dyn Write) -> io::Result<()> {
    let doc = Output {
        source: SOURCE,
        diagnostics: Diagnostics(findings),
    };
    super::safe_json::write(&mut *out, &doc)?;
    writeln!(out)
}
