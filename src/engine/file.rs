//! The pipeline for one file: load → parse → model → rules. Files are checked in parallel
//! (rayon); a panic while checking one file becomes an `internal-error` finding for it.
//! Per file, only the findings (which hold the source when they point into it) survive.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;

use crate::analysis::types::{NodeDecl, Place, Workload};
use crate::diagnostic::{Finding, Severity};
use crate::load::walk::Entry;
use crate::load::yaml::LoadError;
use crate::load::{self, ReadFailure, SourceFile, Span};
use crate::model;
use crate::rules::{self, Ctx};
use crate::util::text::floor_char;

use super::options::{Input, LintOptions};

/// What checking one file produced.
#[derive(Default)]
pub struct FileReport {
    pub findings: Vec<Finding>,
    pub documents: usize,
    pub objects: usize,
    /// Node pools declared in the file (for the cross-reference).
    pub nodes: Vec<crate::analysis::types::NodeDecl>,
    /// Scheduling signatures of the file's workloads (for the cross-reference).
    pub workloads: Vec<crate::analysis::types::Workload>,
    /// `taintlint: ignore` comments and annotations, applied after the cross-reference.
    pub suppressions: Vec<crate::suppress::Suppression>,
    /// Kueue queues and flavors (for `kueue-no-flavor-fits`; their places are lite copies).
    pub kueue: crate::analysis::types::kueue::Kueue,
    /// The label keys without a prefix the file mentions where no pool is read (see
    /// `analysis::sources::mentions`), sorted, each once.
    pub label_mentions: Vec<Box<str>>,
    /// Namespaces and RuntimeClasses, for admission (see `engine::admission`).
    pub admission: Vec<crate::analysis::judgements::admission::Fact>,
    /// The file is a Helm/Go template that was not linted (its notice may become its chart's:
    /// see `engine::charts`).
    pub helm_template: bool,
    /// A `.tf` file that parses: what evaluating its directory needs (see
    /// `engine::terraform::evaluate`).
    pub terraform: Option<Box<super::terraform::TerraformFile>>,
    /// The file is encrypted or marked not text: what it is (see `engine::folds`).
    pub sealed: Option<Box<str>>,
    /// What the file shows makes nodes the files do not show as pools, with the sign's line
    /// (see `analysis::sources::provisioners`).
    pub makers: Vec<(crate::analysis::sources::provisioners::Maker, usize)>,
    /// The folders the file applies to its cluster, as the run names them (see
    /// `analysis::sources::links`).
    pub links: Vec<String>,
}

/// One input's report; a panic becomes an `internal-error` finding on the file. Its message
/// names the place in taintlint's code, never the panic's payload, which may quote the input.
pub fn lint_one(input: Input, opts: &LintOptions) -> FileReport {
    lint_one_with(input, opts, super::terraform::Parse::Now)
}

/// [`lint_one`], a Terraform file's syntax read now or in the run's Terraform step (`parse`).
pub(super) fn lint_one_with(
    input: Input,
    opts: &LintOptions,
    parse: super::terraform::Parse,
) -> FileReport {
    let name = input.name();
    if let Some(bar) = &opts.progress {
        bar.inc(1);
    }
    match catch_unwind(AssertUnwindSafe(|| lint_input(input, opts, parse))) {
        Ok(r) => r,
        Err(_) => {
            let place = super::panic::take_place().map_or(String::new(), |p| format!(" (at {p})"));
            let mut f = rules::INTERNAL_ERROR
                .finding_at(
                    Severity::Error,
                    format!("taintlint crashed while checking this file{place}"),
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

fn lint_input(input: Input, opts: &LintOptions, parse: super::terraform::Parse) -> FileReport {
    let name = input.name();
    let kind = match &input {
        Input::Entry(_) => InputKind::Disk,
        Input::Text { .. } => InputKind::Memory,
    };
    let mut disk_path = None;
    let text = match input {
        Input::Entry(Entry::Error { message, .. }) => {
            return file_failure(&name, &rules::UNREADABLE_FILE, message, None, opts);
        }
        Input::Entry(Entry::File(path)) => {
            let text = load::read_file(&path, opts.max_file_size);
            disk_path = Some(path);
            text
        }
        Input::Text { text, .. } => text,
    };
    let on_disk = matches!(kind, InputKind::Disk);
    let (text, encoding) = match text {
        Ok(text) => (text, None),
        Err(failure) => {
            // Not text, and the repository says so: not a manifest (`encrypted-file`).
            if let Some(marked) = disk_path
                .as_deref()
                .filter(|_| failure.is_not_text())
                .and_then(|path| super::folds::gitattributes_mark(path, opts))
            {
                return super::folds::sealed(
                    &name,
                    &format!("marked `{marked}` in .gitattributes"),
                    opts,
                );
            }
            match super::encoding::decoded_as_kubectl(&name, failure) {
                Ok((text, note)) => (text, Some(note)),
                Err(failure) => return read_failure(&name, failure, opts),
            }
        }
    };
    let source = SourceFile::new(name, text);
    let mut report = if super::terraform::is_terraform(&source.name) {
        super::terraform::lint(&source, opts, parse)
    } else {
        match super::templates::template_extension(&source.name) {
            Some(ext) if !super::templates::plain_yaml(&source.text) => {
                super::templates::by_name(&source, ext, opts)
            }
            _ => lint_source(&source, opts),
        }
    };
    if opts.rules.needs_inventory()
        && (report.helm_template
            || super::terraform::is_terraform(&source.name)
            || super::templates::template_extension(&source.name).is_some())
    {
        // Text taintlint does not read as objects: every key it writes.
        crate::analysis::sources::mentions::in_text(&source.text, &mut report.label_mentions);
    }
    crate::analysis::sources::mentions::settle(&mut report.label_mentions);
    super::signs::gather(&mut report, &source, opts);
    let decoded = encoding.is_some();
    if let Some(note) = encoding {
        // The text linted is not the file's bytes: no fix may be written back from it.
        for f in &mut report.findings {
            f.fix = None;
        }
        if opts.rules.is_enabled(rules::INVALID_ENCODING.name) {
            report.findings.insert(0, note.finding(&source));
        }
    }
    // A decoded file keeps its text: the reporters cannot read its snippets back as UTF-8.
    if on_disk && !opts.keep_sources && !decoded {
        report.make_lite(&source);
    }
    report.shrink();
    report
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
        // Two labels of two offsets for most findings (a file may have half a million).
        let mut offsets: Vec<usize> = Vec::with_capacity(4 * self.findings.len());
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
        for s in self.workloads.iter().flat_map(Workload::spans) {
            span(s, &mut offsets);
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
        ReadFailure::Sealed(what) => return super::folds::sealed(name, what, opts),
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
            SourceFile::new(name, lossy.replace('\0', "\u{2400}")),
            offset,
            "file is not valid UTF-8; it was not read".to_string(),
            "re-save the file as UTF-8",
        ),
        ReadFailure::Utf16 { utf, .. } => {
            return file_failure(
                name,
                enc,
                format!(
                    "file is {} encoded; Terraform reads UTF-8 only",
                    utf.family()
                ),
                Some("convert it, e.g. `iconv -f UTF-16 -t UTF-8`"),
                opts,
            );
        }
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
        r.findings.push(
            enc.finding(message)
                .primary(char_at(&source.text, offset), "here")
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
    lint_templated(source, opts, None)
}

/// Lints one loaded source whose template markers, if it has any, are of `syntax` when given
/// (a Terraform heredoc's `${…}` are Terraform's), else of the syntax they look like.
pub(super) fn lint_templated(
    source: &Arc<SourceFile>,
    opts: &LintOptions,
    syntax: Option<super::templates::Syntax>,
) -> FileReport {
    // One meter for all the work reading this file causes (`util::work`).
    crate::util::work::per_file(source.text.len(), || {
        let mut report = lint_parsed(source, opts);
        if let Some(mut marker) = super::templates::find(&source.text) {
            if let Some(syntax) = syntax {
                marker.syntax = syntax;
            }
            super::templates::settle(&mut report, source, marker, opts);
        }
        report
    })
}

/// Parses and lints one loaded source (see [`lint_source`]). On every path the documents
/// are parsed and linted one at a time, each dropped before the next is built, and a file
/// with template markers is read the same way as any other (a `{{ }}` in a comment changes
/// nothing): it is a Helm/Go template when a document does not parse or has a mapping key
/// that is a collection (as `{{ .Values.x }}: y` parses).
fn lint_parsed(source: &Arc<SourceFile>, opts: &LintOptions) -> FileReport {
    let text = &source.text;
    let templated = looks_templated(text);
    let mut report = FileReport {
        suppressions: crate::suppress::scan_comments(source),
        ..FileReport::default()
    };
    let end = if load::json::is_json_stream(text) {
        lint_json(source, opts, templated, &mut report)
    } else if opts.fast {
        lint_fast(source, opts, templated, &mut report)
    } else {
        // `--full-parse`: the parser over the whole file.
        lint_parser(text, 0, opts.limits, source, opts, templated, &mut report)
    };
    match end {
        // Its own suppressions still apply to the notice (and are reported when unused).
        End::Template => FileReport {
            suppressions: report.suppressions,
            ..template_report(source, opts)
        },
        End::Error(err) => {
            report
                .findings
                .extend(load_error_finding(&err, source, opts));
            report
        }
        End::Json(err) => {
            report
                .findings
                .extend(json_error_finding(&err, source, opts));
            report
        }
        End::Done => report,
    }
}

/// Lints a JSON stream (`load::json`) as kubectl reads it: each value one after another, the
/// Kubernetes objects among them with their own lines. A stream that holds no Kubernetes
/// object and names none (`apiVersion` and `kind` nowhere in it: a data set in JSON Lines,
/// a package's metadata, an editor's settings with trailing commas) is no manifest: whether it
/// parses or not, nothing is reported of it.
fn lint_json(
    source: &Arc<SourceFile>,
    opts: &LintOptions,
    templated: bool,
    report: &mut FileReport,
) -> End {
    let text = &source.text;
    let mut objects = false;
    let outcome = load::json::parse_each(text, opts.limits, &mut |doc| {
        objects |= doc.root.as_ref().is_some_and(is_kubernetes_object);
        lint_document(&doc, source, opts, report);
        true
    });
    let Some(err) = outcome.error else {
        return End::Done;
    };
    let manifest = || {
        objects || {
            let b = text.as_bytes();
            memchr::memmem::find(b, b"apiVersion").is_some()
                && memchr::memmem::find(b, b"kind").is_some()
        }
    };
    let syntax = matches!(err, LoadError::Syntax { .. });
    // Kubernetes 1.34 and later read a stream that fails as JSON before its second value again
    // as YAML, from where its JSON ends (`load::json::yaml_restart`).
    if syntax && opts.settings.minor >= 34 && outcome.values <= 1 {
        let from = load::json::yaml_restart(text, outcome.consumed);
        let end = lint_parser(
            &text[from..],
            from,
            opts.limits,
            source,
            opts,
            templated,
            report,
        );
        return match end {
            End::Error(LoadError::Syntax { .. }) if !manifest() => End::Done,
            end => end,
        };
    }
    if !syntax {
        return End::Error(err);
    }
    if templated {
        return End::Template;
    }
    if manifest() {
        End::Json(err)
    } else {
        End::Done
    }
}

/// A mapping with a string `apiVersion` and `kind`: what kubectl takes for an object.
fn is_kubernetes_object(node: &load::yaml::Node) -> bool {
    let named = |key: &str| {
        node.get(key)
            .and_then(load::yaml::Node::text)
            .is_some_and(|t| !t.is_empty())
    };
    named("apiVersion") && named("kind")
}

/// The `yaml-syntax-error` of a JSON stream that does not parse.
fn json_error_finding(
    err: &LoadError,
    source: &Arc<SourceFile>,
    opts: &LintOptions,
) -> Option<Finding> {
    let meta = &rules::YAML_SYNTAX_ERROR;
    if !opts.rules.is_enabled(meta.name) {
        return None;
    }
    let LoadError::Syntax { message, .. } = err else {
        return load_error_finding(err, source, opts);
    };
    Some(
        meta.finding(format!("JSON syntax error: {message}"))
            .primary(char_at(&source.text, err.offset()), "here")
            .help("kubectl reads a file that starts with `{` as JSON values one after another, and stops at this error; the values before it were still checked")
            .in_file(source),
    )
}

/// How linting a file's documents ended.
enum End {
    Done,
    /// The error that ended the stream (the documents before it were linted).
    Error(LoadError),
    /// The file is a template: nothing of it is reported but that.
    Template,
    /// The syntax error that ended a JSON stream (the values before it were linted).
    Json(LoadError),
}

/// Lints the documents the parser reads from `text` (at byte `base` of the source), each as
/// soon as it is complete.
fn lint_parser(
    text: &str,
    base: usize,
    limits: load::yaml::Limits,
    source: &Arc<SourceFile>,
    opts: &LintOptions,
    templated: bool,
    report: &mut FileReport,
) -> End {
    let mut template = false;
    let outcome = load::yaml::parse_each(text, base, limits, &mut |doc| {
        if templated && doc.has_complex_key {
            template = true;
            return false;
        }
        lint_document(&doc, source, opts, report);
        true
    });
    match outcome.error {
        _ if template => End::Template,
        Some(LoadError::Syntax { .. }) if templated => End::Template,
        Some(err) => End::Error(err),
        None => End::Done,
    }
}

/// The fast path: split into documents with a line scan, skip the documents whose kind
/// cannot hold scheduling fields, and parse the rest one by one. Like the parser, stop at
/// the first error.
fn lint_fast(
    source: &Arc<SourceFile>,
    opts: &LintOptions,
    templated: bool,
    report: &mut FileReport,
) -> End {
    let text = &source.text;
    // The alias budget is the file's: what each document spends is gone for the next.
    let mut limits = opts.limits;
    for piece in load::kubectl::Pieces::new(text) {
        // kubectl's own refusals (a separator line, a `...` first) end the stream there.
        let range = match piece {
            Ok(range) => range,
            Err(err) => return End::Error(err),
        };
        let doc = &text[range.clone()];
        let plan = load::prescan::classify(doc, limits, |kind| {
            opts.settings.workload_kinds.iter().any(|k| k.kind == kind)
        });
        if plan == load::prescan::Prescan::Skip {
            report.documents += 1;
            report.objects += 1;
            continue;
        }
        // Plain block YAML is built directly from its lines; anything else, and every
        // error, is the parser's.
        // A document that cannot fit is not built at all.
        if load::yaml::tree_cost_floor_over(doc, limits.max_document_bytes) {
            return End::Error(LoadError::TooLarge {
                offset: range.start + load::yaml::first_content(doc),
                limit: limits.max_document_bytes,
            });
        }
        let built = match plan {
            load::prescan::Prescan::Parse => None,
            _ => load::fast_yaml::parse_at(doc, range.start, limits),
        };
        let stream = built.unwrap_or_else(|| load::yaml::parse_chunk(doc, range.start, limits));
        if templated && stream.documents.iter().any(|d| d.has_complex_key) {
            return End::Template;
        }
        let retry = match &stream.error {
            // The document alone is over the memory budget: so it is in the whole file. The
            // file's work meter is spent: reading the rest again would find it so.
            Some(LoadError::TooLarge { .. } | LoadError::OutOfWork { .. }) => false,
            Some(_) => true,
            None => stream.documents.iter().any(block_scalar_root),
        };
        if retry {
            // The line split may have cut where the parser would not (an unterminated quote
            // running into a `---` line; saphyr also runs a top-level block scalar on over
            // `---` lines): parse the rest of the file as one, as the slow path does, for its
            // documents and its exact error.
            drop(stream);
            return lint_parser(
                &text[range.start..],
                range.start,
                limits,
                source,
                opts,
                templated,
                report,
            );
        }
        limits.max_alias_nodes = limits.max_alias_nodes.saturating_sub(stream.alias_nodes);
        for doc in &stream.documents {
            lint_document(doc, source, opts, report);
        }
        if let Some(err) = stream.error {
            return End::Error(err);
        }
    }
    End::Done
}

/// The one finding of a file that is a Helm/Go template.
fn template_report(source: &Arc<SourceFile>, opts: &LintOptions) -> FileReport {
    let mut report = FileReport {
        helm_template: true,
        ..FileReport::default()
    };
    let meta = &rules::TEMPLATE_NOT_RENDERED;
    if opts.rules.is_enabled(meta.name) {
        let at = source.text.find("{{").unwrap_or(0);
        report.findings.push(
            meta.finding("this file is a Helm/Go template, not YAML; it was not linted")
                .primary(Span::new(at, at + 2), "template action")
                .help("render it first: `helm template ./chart | taintlint check -`")
                .in_file(source),
        );
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

/// Lints one parsed document.
fn lint_document(
    doc: &load::yaml::Document,
    source: &Arc<SourceFile>,
    opts: &LintOptions,
    report: &mut FileReport,
) {
    // kubectl skips an empty document, and one that is `null` (cli-runtime's `StreamVisitor`:
    // a `null` object is no object): neither counts.
    if doc
        .root
        .as_ref()
        .is_none_or(load::yaml::Node::is_null_document)
    {
        return;
    }
    report.documents += 1;
    let workloads = report.workloads.len();
    // The custom kinds already noted in this document (`unjudged-custom-kind`).
    let mut noted: Vec<String> = Vec::new();
    // One object at a time: the items of a List are built, linted and dropped in turn.
    model::each_object(doc, &opts.settings.workload_kinds, &mut |object| {
        let object = &object;
        report.objects += 1;
        let decoded = rules::decoded(object, &opts.rules);
        let ctx = Ctx {
            object,
            document: doc,
            source,
            settings: &opts.settings,
            decoded: &decoded,
        };
        let mut found = Vec::new();
        for (_, check) in opts.rules.enabled_checks() {
            check(&ctx, &mut found);
        }
        rules::gate_api_errors(&mut found);
        if let Some(at) = object.unproven {
            super::folds::unjudged_kind(object, at, source, opts, &mut noted, &mut found);
        }
        report
            .suppressions
            .extend(crate::suppress::scan_annotation(object, source));
        if opts.rules.needs_inventory() {
            report
                .nodes
                .extend(crate::analysis::sources::node_decls(object, source));
            report
                .workloads
                .extend(crate::analysis::types::workloads(object, source));
            report.kueue.add(object, source);
            report
                .admission
                .extend(crate::analysis::judgements::admission::fact(object));
            report
                .links
                .extend(crate::analysis::sources::links::of_object(object));
        }
        for f in &mut found {
            f.object = Some(object.id.clone());
            f.set_file(source);
        }
        // Moved, not copied one by one: an object may have half a million findings.
        if report.findings.is_empty() {
            report.findings = found;
        } else {
            report.findings.append(&mut found);
        }
    });
    // The labels a document writes where no pool is read (a chart's values, a flavor's node
    // labels); a workload's are its pods' own, and its placement is what is judged.
    if opts.rules.needs_inventory()
        && report.workloads.len() == workloads
        && let Some(root) = &doc.root
    {
        crate::analysis::sources::mentions::in_document(root, &mut report.label_mentions);
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
            // The budget is the file's (#22): the document where it runs out and the rest of the
            // file are not checked; the message stays what baselines know.
            "document contains excessive aliasing; it was not checked".to_string(),
            "this looks like a YAML alias bomb (billion laughs); kubectl refuses it too",
        ),
        LoadError::TooLarge { limit, .. } => (
            &rules::YAML_TOO_COMPLEX,
            format!(
                "document would take more than {} of memory to load; it and the rest of the file were not checked",
                size_text(*limit)
            ),
            "no Kubernetes object is this large; split the file, or raise the budget with TAINTLINT_DOCUMENT_BUDGET=<bytes>",
        ),
        LoadError::OutOfWork { what, .. } => (
            &rules::YAML_TOO_COMPLEX,
            format!(
                "reading this file as kubectl does took more work than its size allows ({what}); this document and the rest of the file were not checked"
            ),
            "kubectl's YAML reader accepts forms taintlint's parser reads only by re-reading the text; a file that needs this many of them (quoted scalars with `\\'`, flow collections at odd indentation, U+2028 line breaks) is generated or hostile: normalise it (e.g. `yq -P`)",
        ),
    };
    if !opts.rules.is_enabled(meta.name) {
        return None;
    }
    let mut at = floor_char(&source.text, err.offset());
    // The word, not the letters: `unprintable` is no tab error.
    if let LoadError::Syntax { message, .. } = err
        && message
            .split(|c: char| !c.is_ascii_alphabetic())
            .any(|w| w == "tab" || w == "tabs")
    {
        at = offending_tab(&source.text, at);
    }
    Some(
        meta.finding(message)
            .primary(char_at(&source.text, at), "here")
            .help(help)
            .in_file(source),
    )
}

/// The span of the character at byte `at` of `text` (at its start when `at` is inside one;
/// empty at the end).
pub(super) fn char_at(text: &str, at: usize) -> Span {
    let at = floor_char(text, at);
    let end = text[at..].chars().next().map_or(at, |c| at + c.len_utf8());
    Span::new(at, end)
}

/// `384 MiB`, or `64 KiB` for a budget under a MiB (as tests set).
fn size_text(bytes: usize) -> String {
    if bytes >= 1 << 20 {
        format!("{} MiB", bytes >> 20)
    } else {
        format!("{} KiB", bytes >> 10)
    }
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
