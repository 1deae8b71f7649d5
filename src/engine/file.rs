//! The pipeline for one file: load → parse → model → rules. Files are checked in parallel
//! (rayon); a panic while checking one file becomes an `internal-error` finding for it.
//! Per file, only the findings (which hold the source when they point into it) survive.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;

use crate::analysis::{NodeDecl, Place};
use crate::diagnostic::{Finding, Severity};
use crate::load::walk::Entry;
use crate::load::yaml::LoadError;
use crate::load::{self, ReadFailure, SourceFile, Span};
use crate::model;
use crate::rules::{self, Ctx};

use super::options::{Input, LintOptions};

/// What checking one file produced.
#[derive(Default)]
pub struct FileReport {
    pub findings: Vec<Finding>,
    pub documents: usize,
    pub objects: usize,
    /// Node pools declared in the file (for the cross-reference).
    pub nodes: Vec<crate::analysis::NodeDecl>,
    /// Scheduling signatures of the file's workloads (for the cross-reference).
    pub workloads: Vec<crate::analysis::Workload>,
    /// `taintlint: ignore` comments and annotations, applied after the cross-reference.
    pub suppressions: Vec<crate::suppress::Suppression>,
}

/// One input's report; a panic becomes an `internal-error` finding on the file.
pub fn lint_one(input: Input, opts: &LintOptions) -> FileReport {
    let name = input.name();
    if let Some(bar) = &opts.progress {
        bar.inc(1);
    }
    match catch_unwind(AssertUnwindSafe(|| lint_input(input, opts))) {
        Ok(r) => r,
        Err(panic) => {
            let what = panic
                .downcast_ref::<&str>()
                .map(|s| (*s).to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".to_string());
            let mut f = rules::INTERNAL_ERROR
                .finding_at(
                    Severity::Error,
                    format!("taintlint crashed while checking this file: {what}"),
                )
                .help("this is a bug in taintlint; please report it with the file attached");
            f.file = name.into();
            FileReport {
                findings: vec![f],
                ..FileReport::default()
            }
        }
    }
}

enum InputKind {
    Disk,
    Memory,
}

fn lint_input(input: Input, opts: &LintOptions) -> FileReport {
    let name = input.name();
    let kind = match &input {
        Input::Entry(_) => InputKind::Disk,
        Input::Text { .. } => InputKind::Memory,
    };
    let text = match input {
        Input::Entry(Entry::Error { message, .. }) => {
            return file_failure(&name, &rules::UNREADABLE_FILE, message, None, opts);
        }
        Input::Entry(Entry::File(path)) => load::read_file(&path, opts.max_file_size),
        Input::Text { text, .. } => text,
    };
    let on_disk = matches!(kind, InputKind::Disk);
    match text {
        Ok(text) => {
            let source = SourceFile::new(name, text);
            let mut report = match super::templates::template_extension(&source.name) {
                Some(ext) => super::templates::by_name(&source, ext, opts),
                None => lint_source(&source, opts),
            };
            if on_disk && !opts.keep_sources {
                report.make_lite(&source);
            }
            report.shrink();
            report
        }
        Err(failure) => read_failure(&name, failure, opts),
    }
}

impl FileReport {
    /// Gives back the spare capacity of the report's vectors: they grew by pushing, and most
    /// files have one or two findings or workloads, which would otherwise hold room for four
    /// until the end of the run.
    pub fn shrink(&mut self) {
        self.findings.shrink_to_fit();
        self.nodes.shrink_to_fit();
        self.workloads.shrink_to_fit();
        self.suppressions.shrink_to_fit();
    }

    /// Replaces `source` everywhere in the report by a lite copy that keeps only the
    /// positions the report refers to, so the file's text can be freed.
    pub fn make_lite(&mut self, source: &Arc<SourceFile>) {
        let mut offsets: Vec<usize> = Vec::new();
        let mine = |s: &Arc<SourceFile>| Arc::ptr_eq(s, source);
        let span = |sp: Span, offsets: &mut Vec<usize>| {
            offsets.push(sp.start);
            offsets.push(sp.end.max(sp.start));
        };
        for f in &self.findings {
            for l in f.primary.iter().chain(&f.secondary) {
                span(l.span, &mut offsets);
            }
            for r in f.related.iter().filter(|r| mine(&r.source)) {
                span(r.span, &mut offsets);
            }
        }
        for w in &self.workloads {
            span(w.anchor, &mut offsets);
            span(w.object_span, &mut offsets);
            if let Some(s) = w.selector_span {
                span(s, &mut offsets);
            }
            if let Some((_, s)) = &w.node_name {
                span(*s, &mut offsets);
            }
            for t in &w.tolerations {
                span(t.span, &mut offsets);
                for s in [t.scalars.key, t.scalars.value, t.scalars.effect]
                    .into_iter()
                    .flatten()
                {
                    span(s, &mut offsets);
                }
            }
        }
        for place in self.nodes.iter().flat_map(NodeDecl::places) {
            span(place.span(), &mut offsets);
        }
        for s in &self.suppressions {
            span(s.span, &mut offsets);
            for (_, r) in &s.rules {
                span(*r, &mut offsets);
            }
        }
        let lite = source.lite(offsets);
        let relink = |s: &mut Arc<SourceFile>| {
            if Arc::ptr_eq(s, source) {
                *s = Arc::clone(&lite);
            }
        };
        for f in &mut self.findings {
            if let Some(s) = &mut f.source {
                relink(s);
            }
            for r in &mut f.related {
                relink(&mut r.source);
            }
        }
        for w in &mut self.workloads {
            relink(&mut w.source);
        }
        for n in &mut self.nodes {
            for place in n.places_mut() {
                if let Place::Here(loc) = place {
                    relink(&mut loc.source);
                }
            }
        }
        for s in &mut self.suppressions {
            relink(&mut s.source);
        }
    }
}

fn file_failure(
    name: &str,
    meta: &'static rules::RuleMeta,
    message: String,
    help: Option<&str>,
    opts: &LintOptions,
) -> FileReport {
    let mut r = FileReport::default();
    if opts.rules.is_enabled(meta.name) {
        let mut f = meta.finding(message);
        f.help = help.map(|h| h.to_string().into());
        f.file = name.into();
        r.findings.push(f);
    }
    r
}

fn read_failure(name: &str, failure: ReadFailure, opts: &LintOptions) -> FileReport {
    let enc = &rules::INVALID_ENCODING;
    let (source, offset, message, help) = match failure {
        ReadFailure::Io(e) => {
            return file_failure(
                name,
                &rules::UNREADABLE_FILE,
                format!("cannot read file: {e}"),
                None,
                opts,
            );
        }
        ReadFailure::NotRegular(what) => {
            return file_failure(
                name,
                &rules::UNREADABLE_FILE,
                format!("not a regular file ({what}); it was not opened"),
                None,
                opts,
            );
        }
        ReadFailure::TooLarge { size, limit } => {
            return file_failure(
                name,
                &rules::UNREADABLE_FILE,
                format!("file is {size} bytes, over the {limit}-byte limit; it was not read"),
                Some("raise the limit with `--max-file-size`, or exclude the file"),
                opts,
            );
        }
        ReadFailure::Utf(utf, bom) => {
            // With a byte order mark iconv finds the byte order itself; without one it must be
            // told (and the message says which was detected).
            let (family, order) = if bom {
                (utf.family(), String::new())
            } else {
                (utf.name(), format!(" ({}, no byte order mark)", utf.name()))
            };
            return file_failure(
                name,
                enc,
                format!(
                    "file is {} encoded{order}; Kubernetes manifests must be UTF-8",
                    utf.family()
                ),
                Some(&format!("convert it, e.g. `iconv -f {family} -t UTF-8`")),
                opts,
            );
        }
        ReadFailure::Binary(what) => {
            return file_failure(
                name,
                enc,
                format!("binary file ({what}), not a text manifest"),
                Some("exclude it (`--exclude`, or `exclude:` in the config) or rename it"),
                opts,
            );
        }
        ReadFailure::InvalidUtf8 { offset, lossy } => (
            SourceFile::new(name, lossy),
            offset,
            "file is not valid UTF-8".to_string(),
            "kubectl rejects non-UTF-8 input; re-save the file as UTF-8",
        ),
        ReadFailure::Nul { offset, text } => (
            // Show NULs as U+2400 so the snippet never writes a raw NUL to the terminal.
            SourceFile::new(name, text.replace('\0', "\u{2400}")),
            offset,
            "file contains a NUL byte, which YAML does not allow".to_string(),
            "remove the NUL bytes; is this a binary file?",
        ),
    };
    let mut r = FileReport::default();
    if opts.rules.is_enabled(enc.name) {
        let offset = offset.min(source.text.len());
        let end = source
            .text
            .get(offset..)
            .and_then(|t| t.chars().next())
            .map_or(offset, |c| offset + c.len_utf8());
        r.findings.push(
            enc.finding(message)
                .primary(Span::new(offset, end), "here")
                .help(help)
                .in_file(&source),
        );
    }
    r
}

/// Does the text look like an unrendered Go template?
fn looks_templated(text: &str) -> bool {
    let bytes = text.as_bytes();
    memchr::memmem::find(bytes, b"{{").is_some() && memchr::memmem::find(bytes, b"}}").is_some()
}

/// Lints one loaded source.
pub fn lint_source(source: &Arc<SourceFile>, opts: &LintOptions) -> FileReport {
    let mut report = lint_parsed(source, opts);
    if let Some(marker) = super::templates::find(&source.text) {
        super::templates::settle(&mut report, source, marker, opts);
    }
    report
}

/// Parses and lints one loaded source (see [`lint_source`]).
fn lint_parsed(source: &Arc<SourceFile>, opts: &LintOptions) -> FileReport {
    let mut report = FileReport::default();
    let text = &source.text;
    let templated = looks_templated(text);
    // `{{` in a file that is plain block YAML (alert rules, Argo workflows, rendered docs)
    // is text, not a template: when the fast builder takes every document of it, there is
    // no syntax error for the parser to find.
    if opts.fast && templated {
        let streams: Option<Vec<_>> = load::prescan::split_documents(text)
            .into_iter()
            .map(|range| load::fast_yaml::parse_at(&text[range.clone()], range.start, opts.limits))
            .collect();
        if let Some(streams) = streams {
            report.suppressions = crate::suppress::scan_comments(source);
            for stream in &streams {
                lint_stream(stream, source, opts, &mut report);
            }
            return report;
        }
    }
    // Templates and the slow path parse the whole file at once.
    if !opts.fast || templated {
        let stream = load::yaml::parse(text, opts.limits);
        let templated = templated
            && (matches!(stream.error, Some(LoadError::Syntax { .. }))
                || stream.documents.iter().any(|d| d.has_complex_key));
        if templated {
            let meta = &rules::TEMPLATE_NOT_RENDERED;
            if opts.rules.is_enabled(meta.name) {
                let at = text.find("{{").unwrap_or(0);
                report.findings.push(
                    meta.finding("this file is a Helm/Go template, not YAML; it was not linted")
                        .primary(Span::new(at, at + 2), "template action")
                        .help("render it first: `helm template ./chart | taintlint check -`")
                        .in_file(source),
                );
            }
            return report;
        }
        report.suppressions = crate::suppress::scan_comments(source);
        lint_stream(&stream, source, opts, &mut report);
        return report;
    }
    // The fast path: split into documents with a line scan, skip the documents whose kind
    // cannot hold scheduling fields, and parse the rest one by one. Like the parser, stop
    // at the first error.
    report.suppressions = crate::suppress::scan_comments(source);
    for range in load::prescan::split_documents(text) {
        let doc = &text[range.clone()];
        let plan = load::prescan::classify(doc, opts.limits, |kind| {
            opts.settings.workload_kinds.iter().any(|k| k.kind == kind)
        });
        if plan == load::prescan::Prescan::Skip {
            report.documents += 1;
            report.objects += 1;
            continue;
        }
        // Plain block YAML is built directly from its lines; anything else, and every
        // error, is the parser's.
        let built = match plan {
            load::prescan::Prescan::Parse => None,
            _ => load::fast_yaml::parse_at(doc, range.start, opts.limits),
        };
        let stream = built.unwrap_or_else(|| load::yaml::parse_at(doc, range.start, opts.limits));
        if stream.error.is_some() || stream.documents.iter().any(block_scalar_root) {
            // The line split may have cut where the parser would not (an unterminated quote
            // running into a `---` line; saphyr also runs a top-level block scalar on over
            // `---` lines): parse the rest of the file as one, as the slow path does, for its
            // documents and its exact error.
            let rest = load::yaml::parse_at(&text[range.start..], range.start, opts.limits);
            lint_stream(&rest, source, opts, &mut report);
            break;
        }
        if lint_stream(&stream, source, opts, &mut report) {
            break;
        }
    }
    report
}

/// A document that is a literal or folded scalar (never a manifest).
fn block_scalar_root(doc: &load::yaml::Document) -> bool {
    doc.root
        .as_ref()
        .and_then(load::yaml::Node::as_scalar)
        .is_some_and(|s| {
            matches!(
                s.style,
                load::yaml::Style::Literal | load::yaml::Style::Folded
            )
        })
}

/// Lints the parsed documents of a stream; reports its error. True when there was one.
fn lint_stream(
    stream: &load::yaml::Stream,
    source: &Arc<SourceFile>,
    opts: &LintOptions,
    report: &mut FileReport,
) -> bool {
    for doc in &stream.documents {
        if doc.root.is_none() {
            continue;
        }
        report.documents += 1;
        let objects = model::objects(doc, &opts.settings.workload_kinds);
        report.objects += objects.len();
        for object in &objects {
            let ctx = Ctx {
                object,
                document: doc,
                source,
                settings: &opts.settings,
            };
            let mut found = Vec::new();
            for (_, check) in opts.rules.enabled_checks() {
                check(&ctx, &mut found);
            }
            rules::gate_api_errors(&mut found);
            report
                .suppressions
                .extend(crate::suppress::scan_annotation(object, source));
            if opts.rules.needs_inventory() {
                report
                    .nodes
                    .extend(crate::analysis::node_decls(object, source));
                report
                    .workloads
                    .extend(crate::analysis::workloads(object, source));
            }
            for mut f in found {
                f.object = Some(object.id.clone());
                report.findings.push(f.in_file(source));
            }
        }
    }
    match &stream.error {
        Some(err) => {
            report
                .findings
                .extend(load_error_finding(err, source, opts));
            true
        }
        None => false,
    }
}

fn load_error_finding(
    err: &LoadError,
    source: &Arc<SourceFile>,
    opts: &LintOptions,
) -> Option<Finding> {
    let (meta, message, help) = match err {
        LoadError::Syntax { message, .. } => (
            &rules::YAML_SYNTAX_ERROR,
            format!("YAML syntax error: {message}"),
            "fix the syntax; documents before this point were still checked",
        ),
        LoadError::UnknownAlias { .. } => (
            &rules::YAML_SYNTAX_ERROR,
            "YAML syntax error: alias refers to an unknown anchor".to_string(),
            "define the anchor (`&name`) before using it (`*name`)",
        ),
        LoadError::TooDeep { limit, .. } => (
            &rules::YAML_TOO_COMPLEX,
            format!("document nests more than {limit} levels deep; it was not checked"),
            "no Kubernetes object nests this deep; is this file generated or hostile?",
        ),
        LoadError::ExcessiveAliasing { .. } => (
            &rules::YAML_TOO_COMPLEX,
            "document contains excessive aliasing; it was not checked".to_string(),
            "this looks like a YAML alias bomb (billion laughs); kubectl refuses it too",
        ),
    };
    if !opts.rules.is_enabled(meta.name) {
        return None;
    }
    let mut at = err.offset().min(source.text.len());
    // The word, not the letters: `unprintable` is no tab error.
    if let LoadError::Syntax { message, .. } = err
        && message
            .split(|c: char| !c.is_ascii_alphabetic())
            .any(|w| w == "tab" || w == "tabs")
    {
        at = offending_tab(&source.text, at);
    }
    let end = source.text[at..]
        .chars()
        .next()
        .map_or(at, |c| at + c.len_utf8());
    Some(
        meta.finding(message)
            .primary(Span::new(at, end), "here")
            .help(help)
            .in_file(source),
    )
}

/// The tab a tab error is about. The parser marks where it was when it gave up: right after
/// an indenting tab (`tabs disallowed within this context`), or at the start of the plain
/// scalar a tab cut short (`while scanning a plain scalar, found a tab`), possibly lines
/// before it. `at` itself when no tab is near.
fn offending_tab(text: &str, at: usize) -> usize {
    let bytes = text.as_bytes();
    if at > 0 && bytes.get(at - 1) == Some(&b'\t') {
        return at - 1;
    }
    if bytes.get(at) == Some(&b'\t') {
        return at;
    }
    // The scalar continues until the tab: look a few lines ahead.
    let window = &bytes[at..bytes.len().min(at + 4096)];
    let mut lines = 0;
    for (i, &b) in window.iter().enumerate() {
        match b {
            b'\t' => return at + i,
            b'\n' if lines == 8 => break,
            b'\n' => lines += 1,
            _ => {}
        }
    }
    at
}
