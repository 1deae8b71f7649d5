//! `--format human`: miette's graphical report for each finding (file:line:col, snippet with
//! labelled spans, rule name, help, link) and a closing summary line.

use std::fmt;
use std::io::{self, Write};
use std::sync::Arc;

use miette::{
    Diagnostic, GraphicalReportHandler, GraphicalTheme, LabeledSpan, MietteError,
    MietteSpanContents, SourceCode, SourceSpan, SpanContents,
};

use crate::diagnostic::{Applicability, Finding, Severity};
use crate::load::SourceFile;

use super::{FindingSource, Summary, rule_url};
use crate::util::text::escape;

#[derive(Clone, Debug)]
pub struct HumanOptions {
    pub color: bool,
    pub width: usize,
    pub links: bool,
    pub quiet: bool,
}

impl Default for HumanOptions {
    fn default() -> Self {
        HumanOptions {
            color: false,
            width: 100,
            links: false,
            quiet: false,
        }
    }
}

/// A source file as miette's `SourceCode`, named, without copying its text.
///
/// `windowed`: the text has no carriage return, so its lines are the `\n` lines of the
/// line index and miette can be handed a window of it (see `read_span`).
struct Src {
    file: Arc<SourceFile>,
    windowed: bool,
}

impl fmt::Debug for Src {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.file.name)
    }
}

impl SourceCode for Src {
    fn read_span<'a>(
        &'a self,
        span: &SourceSpan,
        context_lines_before: usize,
        context_lines_after: usize,
    ) -> Result<Box<dyn SpanContents<'a> + 'a>, MietteError> {
        // miette finds lines by scanning the text from its start: hand it the text from the
        // first context line on (found with the line index), or a file with many findings
        // is scanned once per finding.
        // (A lone `\r` is an LF by now, see `lone_cr_as_lf`; a text with a CRLF is given whole.)
        let text = &self.file.text;
        let offset = span.offset().min(text.len());
        let first_line = self
            .file
            .position(offset)
            .line
            .saturating_sub(1 + context_lines_before);
        let base = self.file.line_start(first_line + 1).unwrap_or(0);
        let (window, base, first_line) = match text.get(base..) {
            Some(window) if self.windowed && base <= offset => (window, base, first_line),
            _ => (text.as_str(), 0, 0),
        };
        let local = SourceSpan::new((offset - base).into(), span.len());
        let inner = window.read_span(&local, context_lines_before, context_lines_after)?;
        Ok(Box::new(MietteSpanContents::new_named(
            escape(&self.file.name).into_owned(),
            inner.data(),
            SourceSpan::new((inner.span().offset() + base).into(), inner.span().len()),
            inner.line() + first_line,
            inner.column(),
            // miette counts the lines from the start of the text it was given (and decides
            // on merging snippets with it): count the lines before the window too.
            inner.line_count() + first_line,
        )))
    }
}

struct View<'a> {
    finding: &'a Finding,
    src: Option<Src>,
    help: Option<String>,
    message: String,
}

impl fmt::Debug for View<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl fmt::Display for View<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for View<'_> {}

impl Diagnostic for View<'_> {
    fn code<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        Some(Box::new(self.finding.rule))
    }

    fn severity(&self) -> Option<miette::Severity> {
        Some(match self.finding.severity {
            Severity::Error => miette::Severity::Error,
            Severity::Warning => miette::Severity::Warning,
            Severity::Info => miette::Severity::Advice,
        })
    }

    fn help<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        self.help
            .as_ref()
            .map(|h| Box::new(h) as Box<dyn fmt::Display>)
    }

    fn url<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        Some(Box::new(rule_url(self.finding.rule)))
    }

    fn source_code(&self) -> Option<&dyn SourceCode> {
        self.src.as_ref().map(|s| s as &dyn SourceCode)
    }

    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        self.src.as_ref()?;
        let f = self.finding;
        let primary = f.primary.iter().map(|l| {
            LabeledSpan::new_primary_with_span(
                Some(escape(&l.text).into_owned()),
                SourceSpan::from(l.span.start..l.span.end),
            )
        });
        let secondary = f.secondary.iter().map(|l| {
            LabeledSpan::new_with_span(
                Some(escape(&l.text).into_owned()),
                SourceSpan::from(l.span.start..l.span.end),
            )
        });
        Some(Box::new(primary.chain(secondary)))
    }
}

/// What miette prints of a finding. Every text in it that may quote the input (message,
/// labels, help, the API server's answer, related places, file names) is escaped one part at
/// a time, so the only line breaks are the ones put between the parts here.
fn view(f: &Finding, full: Option<Src>) -> View<'_> {
    let mut help = f.help.as_deref().map(|h| escape(h).into_owned());
    if let Some(api) = &f.api_error {
        let line = format!("the API server answers: {}", escape(api));
        help = Some(match help {
            Some(h) => format!("{h}\n{line}"),
            None => line,
        });
    }
    if let Some(fix) = &f.fix {
        let line = escape(&fix.marker()).into_owned();
        help = Some(match help {
            Some(h) => format!("{h}\n{line}"),
            None => line,
        });
    }
    for r in &f.related {
        let p = r.source.position(r.span.start);
        let line = format!(
            "see {}:{}:{}: {}",
            escape(&r.source.name),
            p.line,
            p.column,
            escape(&r.message)
        );
        help = Some(match help {
            Some(h) => format!("{h}\n{line}"),
            None => line,
        });
    }
    let has_labels = f.primary.is_some()
        && full
            .as_ref()
            .is_some_and(|src| !snippet_too_wide(f, &src.file));
    let message = if has_labels {
        escape(&f.message).into_owned()
    } else if f.primary.is_some() && f.source.is_some() {
        let (start, _) = f.range();
        format!(
            "{}:{}:{}: {}",
            escape(&f.file),
            start.line,
            start.column,
            escape(&f.message)
        )
    } else {
        format!("{}: {}", escape(&f.file), escape(&f.message))
    };
    View {
        finding: f,
        src: if has_labels { full } else { None },
        help,
        message,
    }
}

/// Lines longer than this (minified JSON, generated or hostile files) are not printed as a
/// snippet; the finding names its position instead.
const MAX_SNIPPET_LINE: usize = 500;

fn snippet_too_wide(f: &Finding, src: &SourceFile) -> bool {
    f.primary.iter().chain(&f.secondary).any(|l| {
        let first = src.position(l.span.start).line.saturating_sub(1).max(1);
        let last = src.position(l.span.end).line + 1;
        (first..=last.min(src.line_count())).any(|n| src.line_text(n).len() > MAX_SNIPPET_LINE)
    })
}

/// The finding's source with its text, made fit for a terminal (lone CRs as LFs, control
/// characters visible): a lite source (see `SourceFile::lite`) is read back from disk. Findings
/// come sorted by file, so the last file made fit is kept and each file is made fit once.
/// `None` when there is no text to show.
fn full_source(f: &Finding, cache: &mut Option<ReadBack>) -> Option<Src> {
    let src = f.source.as_ref()?;
    let full = |file: Arc<SourceFile>| {
        let file = visible_controls(lone_cr_as_lf(file));
        Src {
            windowed: memchr::memchr(b'\r', file.text.as_bytes()).is_none(),
            file,
        }
    };
    // A source in memory is the one text it holds (two parts of standard input may share a
    // name); a lite one is the file of its name.
    let key = if src.is_lite() {
        0
    } else {
        Arc::as_ptr(src) as usize
    };
    let (name, at, text) = match cache.take() {
        Some((name, at, text)) if name == src.name && at == key => (name, at, text),
        _ if !src.is_lite() => (src.name.clone(), key, Some(full(Arc::clone(src)))),
        _ => {
            let text = std::fs::read(&*src.name)
                .ok()
                .and_then(|bytes| crate::load::decode(bytes).ok())
                .map(|text| full(SourceFile::new(src.name.clone(), text)));
            (src.name.clone(), key, text)
        }
    };
    let found = text.as_ref().map(|t| Src {
        file: Arc::clone(&t.file),
        windowed: t.windowed,
    });
    *cache = Some((name, at, text));
    found
}

/// The file with each lone CR (a YAML line break, counted as one by the line index) turned
/// into an LF, byte for byte, so miette's snippet breaks its lines where the positions do;
/// the file itself when it has none.
fn lone_cr_as_lf(file: Arc<SourceFile>) -> Arc<SourceFile> {
    let bytes = file.text.as_bytes();
    let lone = |i: usize| bytes.get(i + 1) != Some(&b'\n');
    if !memchr::memchr_iter(b'\r', bytes).any(lone) {
        return file;
    }
    let mut text = file.text.clone().into_bytes();
    for i in memchr::memchr_iter(b'\r', bytes).filter(|&i| lone(i)) {
        text[i] = b'\n';
    }
    // CR and LF are both ASCII: the text stays UTF-8.
    match String::from_utf8(text) {
        Ok(text) => SourceFile::new(file.name.clone(), text),
        Err(_) => file,
    }
}

/// The file with every control character but LF and CR (ESC, BEL, NEL, bidi overrides: see
/// [`crate::util::text`]) replaced by a visible one of the same length, so the snippet cannot
/// drive the terminal or start a line of its own and the findings' offsets still fit; the
/// file itself when it has none.
fn visible_controls(file: Arc<SourceFile>) -> Arc<SourceFile> {
    match crate::util::text::visible_same_length(&file.text) {
        std::borrow::Cow::Borrowed(_) => file,
        std::borrow::Cow::Owned(text) => SourceFile::new(file.name.clone(), text),
    }
}

/// The file last made fit for snippets: its name, which source in memory it was made from
/// (0: read back from disk), and its text (`None`: unreadable now).
type ReadBack = (Arc<str>, usize, Option<Src>);

pub(super) fn write(
    findings: &dyn FindingSource,
    summary: &Summary,
    opts: &HumanOptions,
    out: &mut dyn Write,
) -> io::Result<()> {
    let theme = if opts.color {
        GraphicalTheme::unicode()
    } else {
        GraphicalTheme::unicode_nocolor()
    };
    let handler = GraphicalReportHandler::new_themed(theme)
        .with_width(opts.width)
        .with_links(opts.links)
        .with_context_lines(1);
    let mut cache: Option<ReadBack> = None;
    let (mut safe, mut unsafe_) = (0, 0);
    findings.each(&mut |f| {
        match f.fix.as_ref().map(|x| x.applicability) {
            Some(Applicability::Safe) => safe += 1,
            Some(Applicability::Unsafe) => unsafe_ += 1,
            None => {}
        }
        let mut s = String::new();
        let v = view(f, full_source(f, &mut cache));
        if handler.render_report(&mut s, &v).is_err() {
            s = format!(
                "{}[{}]: {}: {}\n",
                f.severity,
                f.rule,
                escape(&f.file),
                escape(&f.message)
            );
        }
        // miette wraps long lines at blanks and hyphens: an input's `::add-mask::` could start
        // a wrapped line, which a CI runner reads as a command.
        out.write_all(crate::util::text::guard_line_starts(&s).as_bytes())?;
        writeln!(out)
    })?;
    if opts.quiet {
        return Ok(());
    }
    // The hint comes before the summary, which stays the last line.
    match (safe, unsafe_) {
        (0, 0) => {}
        (s, 0) => writeln!(out, "[*] {s} fixable with `taintlint check --fix`")?,
        (0, u) => writeln!(
            out,
            "[*] {u} fixable with `taintlint check --fix --unsafe-fixes`"
        )?,
        (s, u) => writeln!(
            out,
            "[*] {s} fixable with `taintlint check --fix` ({u} more with `--unsafe-fixes`)"
        )?,
    }
    writeln!(out, "{}", summary.line())
}
