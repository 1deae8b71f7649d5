//! One buffer linted as the CLI would lint it in its workspace, and everything the editor
//! may ask about it afterwards: diagnostics, quick fixes, hovers and definitions. Worked
//! out on the worker thread; the main loop only looks answers up.

use crate::util::markup::{md_code, md_text};
use std::fmt::Write as _;
use std::sync::Arc;

use lsp_types::{
    CodeAction, CodeActionKind, CodeDescription, Diagnostic, DiagnosticRelatedInformation,
    DiagnosticSeverity, Location, NumberOrString, Range, TextEdit, Url, WorkspaceEdit,
};

use super::position::{Encoding, LineIndex};
use crate::analysis::judgements::schedule::term_matches;
use crate::analysis::types::{LabelValues, NodeDecl, Pool, Workload};
use crate::diagnostic::{Applicability, Finding, Severity};
use crate::engine::{self, Input, LintOptions, View};
use crate::load::{SourceFile, Span};

/// A buffer's text as linted, with its line index.
pub(crate) struct Text {
    pub(crate) text: Arc<str>,
    pub(crate) index: LineIndex,
}

impl Text {
    pub(crate) fn new(text: Arc<str>, encoding: Encoding) -> Self {
        let index = LineIndex::new(&text, encoding);
        Text { text, index }
    }

    pub(crate) fn range(&self, span: Span) -> Range {
        Range::new(
            self.index.position(&self.text, span.start),
            self.index.position(&self.text, span.end.max(span.start)),
        )
    }

    pub(crate) fn offset(&self, pos: lsp_types::Position) -> usize {
        self.index.offset(&self.text, pos)
    }
}

/// A finding's repairs: its fix and the suppression comment.
pub(crate) struct Repair {
    pub(crate) diagnostic: Diagnostic,
    pub(crate) rule: &'static str,
    pub(crate) fix: Option<crate::diagnostic::Fix>,
    /// Where the finding starts (its line takes the suppression comment); `None`: the file.
    pub(crate) at: Option<usize>,
}

/// Something to hover on: a toleration, a `nodeSelector` entry or an affinity term.
pub(crate) struct Target {
    pub(crate) span: Span,
    pub(crate) markdown: String,
    pub(crate) definitions: Vec<Location>,
}

/// What the worker worked out for one version of a buffer.
pub(crate) struct Analysis {
    pub(crate) version: i32,
    pub(crate) text: Text,
    pub(crate) repairs: Vec<Repair>,
    /// Worked out after the diagnostics are out (see [`Linted::finish`]); until then no
    /// hover.
    pub(crate) targets: std::sync::OnceLock<Vec<Target>>,
}

/// The linted buffer before its hovers are worked out (diagnostics go out first).
pub(crate) struct Linted {
    pub(crate) diagnostics: Vec<Diagnostic>,
    pub(crate) analysis: Arc<Analysis>,
    view: Option<View>,
    gate: bool,
    /// The buffer's own node declarations when its text parsed (`None`: it did not).
    pub(crate) own: Option<Vec<NodeDecl>>,
}

/// The file path a buffer is linted as.
pub(crate) fn name_of(uri: &Url) -> String {
    match uri.to_file_path() {
        Ok(p) => p.to_string_lossy().into_owned(),
        Err(()) => uri.path().to_string(),
    }
}

/// The URI of a file a finding or a pool names.
fn uri_of(name: &str, buffer: (&str, &Url)) -> Option<Url> {
    if name == buffer.0 {
        return Some(buffer.1.clone());
    }
    let path = std::path::Path::new(name);
    if path.is_absolute() {
        Url::from_file_path(path).ok()
    } else {
        std::env::current_dir()
            .ok()
            .and_then(|d| Url::from_file_path(d.join(path)).ok())
    }
}

/// Lints `text` as the file `name` with `opts` (the workspace's, see
/// `Scope::options_for`). `last_good`: the buffer's pools from its last text that parsed,
/// used while this one does not.
pub(crate) fn lint(
    uri: &Url,
    version: i32,
    text: Arc<str>,
    encoding: Encoding,
    opts_for: impl Fn(Option<&[NodeDecl]>) -> LintOptions,
    last_good: Option<&[NodeDecl]>,
) -> Linted {
    let name = name_of(uri);
    let text = Text::new(text, encoding);
    // The buffer's own pools, and whether it parses: a half-typed line keeps the pools of
    // the last text that did.
    let plain = opts_for(None);
    let own_report = engine::lint_one(
        Input::Text {
            name: name.clone(),
            text: Ok(text.text.to_string()),
        },
        &plain,
    );
    let parsed = !own_report
        .findings
        .iter()
        .any(|f| f.rule == crate::rules::YAML_SYNTAX_ERROR.name);
    let own = parsed.then_some(own_report.nodes);
    let opts = match (parsed, last_good) {
        (false, Some(last)) => opts_for(Some(last)),
        _ => plain,
    };
    let gate = opts.settings.comparison_operators;
    let (findings, view) = match engine::lint_text(&name, &text.text, &opts) {
        Ok(l) => (l.findings, Some(l.view)),
        Err(_) => (Vec::new(), None),
    };
    let mut diagnostics = Vec::new();
    let mut repairs = Vec::new();
    let mut others = Indexes::default();
    for f in findings
        .iter()
        .filter(|f| *f.file == *name && f.rule != crate::rules::POOL_TOLERATED_BY_NOTHING.name)
    {
        let d = diagnostic(f, &text, (&name, uri), &mut others);
        repairs.push(Repair {
            diagnostic: d.clone(),
            rule: f.rule,
            fix: f.fix.clone(),
            at: f.primary.as_ref().map(|l| l.span.start),
        });
        diagnostics.push(d);
    }
    Linted {
        diagnostics,
        analysis: Arc::new(Analysis {
            version,
            text,
            repairs,
            targets: std::sync::OnceLock::new(),
        }),
        view,
        gate,
        own,
    }
}

fn severity(s: Severity) -> DiagnosticSeverity {
    match s {
        Severity::Error => DiagnosticSeverity::ERROR,
        Severity::Warning => DiagnosticSeverity::WARNING,
        Severity::Info => DiagnosticSeverity::INFORMATION,
    }
}

/// The line indexes of the other files findings point into, each built once per lint (a
/// buffer may have thousands of findings related to one other file).
#[derive(Default)]
struct Indexes(std::collections::HashMap<Arc<str>, LineIndex>);

/// The range of `span` in a source other than the buffer: exact with its text, else from
/// its recorded line and column.
fn range_in(source: &SourceFile, span: Span, encoding: Encoding, indexes: &mut Indexes) -> Range {
    if source.is_lite() {
        let p = |o| {
            let p = source.position(o);
            lsp_types::Position::new(
                u32::try_from(p.line.saturating_sub(1)).unwrap_or(u32::MAX),
                u32::try_from(p.column.saturating_sub(1)).unwrap_or(u32::MAX),
            )
        };
        return Range::new(p(span.start), p(span.end));
    }
    let index = indexes
        .0
        .entry(Arc::clone(&source.name))
        .or_insert_with(|| LineIndex::new(&source.text, encoding));
    Range::new(
        index.position(&source.text, span.start),
        index.position(&source.text, span.end.max(span.start)),
    )
}

fn encoding_of(text: &Text) -> Encoding {
    text.index.encoding()
}

fn diagnostic(f: &Finding, text: &Text, buffer: (&str, &Url), others: &mut Indexes) -> Diagnostic {
    let range = f
        .primary
        .as_ref()
        .map_or_else(Range::default, |l| text.range(l.span));
    let mut message = f.message.to_string();
    if let Some(help) = &f.help {
        let _ = write!(message, "\nhelp: {help}");
    }
    let related: Vec<DiagnosticRelatedInformation> = f
        .related
        .iter()
        .filter_map(|r| {
            let uri = uri_of(&r.source.name, buffer)?;
            let range = if *r.source.name == *buffer.0 {
                text.range(r.span)
            } else {
                range_in(&r.source, r.span, encoding_of(text), others)
            };
            Some(DiagnosticRelatedInformation {
                location: Location::new(uri, range),
                message: r.message.clone(),
            })
        })
        .collect();
    Diagnostic {
        range,
        severity: Some(severity(f.severity)),
        code: Some(NumberOrString::String(f.rule.to_string())),
        code_description: Url::parse(&crate::report::rule_url(f.rule))
            .ok()
            .map(|href| CodeDescription { href }),
        source: Some("taintlint".to_string()),
        message,
        related_information: (!related.is_empty()).then_some(related),
        tags: None,
        data: None,
    }
}

impl Analysis {
    /// The quick fixes and "ignore" actions of the findings whose range meets `range`.
    pub(crate) fn code_actions(&self, uri: &Url, range: Range) -> Vec<CodeAction> {
        let (from, to) = (self.text.offset(range.start), self.text.offset(range.end));
        let mut out = Vec::new();
        for r in &self.repairs {
            let d = &r.diagnostic;
            let (s, e) = (
                self.text.offset(d.range.start),
                self.text.offset(d.range.end),
            );
            let meets = r.at.is_none() || (s <= to && from <= e);
            if !meets {
                continue;
            }
            if let Some(fix) = &r.fix {
                let edits: Vec<TextEdit> = fix
                    .edits
                    .iter()
                    .map(|e| TextEdit::new(self.text.range(e.span), e.replacement.clone()))
                    .collect();
                let safe = fix.applicability == Applicability::Safe;
                out.push(CodeAction {
                    title: if safe {
                        format!("Fix: {}", fix.title)
                    } else {
                        format!(
                            "Fix: {} (unsafe: changes what the manifest does)",
                            fix.title
                        )
                    },
                    kind: Some(CodeActionKind::QUICKFIX),
                    diagnostics: Some(vec![d.clone()]),
                    edit: Some(edit(uri, edits)),
                    is_preferred: Some(safe),
                    ..CodeAction::default()
                });
            }
            out.push(CodeAction {
                title: format!("Ignore `{}` here", r.rule),
                kind: Some(CodeActionKind::QUICKFIX),
                diagnostics: Some(vec![d.clone()]),
                edit: Some(edit(uri, vec![self.suppression(r)])),
                is_preferred: Some(false),
                ..CodeAction::default()
            });
        }
        out
    }

    /// The comment that suppresses `r`: `# taintlint: ignore[rule]` alone on the line above
    /// the finding's line, indented as it is (`ignore-file` at the top for a finding of the
    /// whole file).
    fn suppression(&self, r: &Repair) -> TextEdit {
        let text = &self.text.text;
        let newline = if text.contains("\r\n") { "\r\n" } else { "\n" };
        let Some(at) = r.at else {
            return TextEdit::new(
                Range::default(),
                format!("# taintlint: ignore-file[{}]{newline}", r.rule),
            );
        };
        let (_, start) = self.text.index.line_of(at.min(text.len()));
        let indent: String = text
            .get(start..)
            .unwrap_or("")
            .chars()
            .take_while(|c| *c == ' ' || *c == '\t')
            .collect();
        let pos = self.text.index.position(text, start);
        TextEdit::new(
            Range::new(pos, pos),
            format!("{indent}# taintlint: ignore[{}]{newline}", r.rule),
        )
    }

    /// The innermost target at `offset`.
    pub(crate) fn target_at(&self, offset: usize) -> Option<&Target> {
        self.targets
            .get()?
            .iter()
            .filter(|t| t.span.start <= offset && offset <= t.span.end)
            .min_by_key(|t| t.span.end - t.span.start)
    }
}

fn edit(uri: &Url, edits: Vec<TextEdit>) -> WorkspaceEdit {
    let mut changes = std::collections::HashMap::new();
    changes.insert(uri.clone(), edits);
    WorkspaceEdit {
        changes: Some(changes),
        ..WorkspaceEdit::default()
    }
}

/// Whether a pool passes one `nodeSelector` entry or affinity term.
type Admits = Box<dyn Fn(&Pool) -> bool>;

/// Pool names listed in a hover, at most this many.
const LIST: usize = 6;

fn names(pools: &[&Pool]) -> String {
    let mut s: Vec<String> = pools
        .iter()
        .take(LIST)
        .map(|p| p.title_markdown())
        .collect();
    if pools.len() > LIST {
        s.push(format!("and {} more", pools.len() - LIST));
    }
    s.join(", ")
}

impl Linted {
    /// Works out the hovers and definitions of the buffer's tolerations, `nodeSelector`
    /// entries and affinity terms (the analysis answers hovers from then on).
    pub(crate) fn finish(&self, uri: &Url) {
        let name = name_of(uri);
        let mut targets = Vec::new();
        let mut others = Indexes::default();
        if let Some(view) = &self.view {
            for (i, w) in view.workloads.iter().enumerate() {
                if *w.source.name != *name {
                    continue;
                }
                self.tolerations(view, i, w, (&name, uri), &mut others, &mut targets);
                self.selectors(view, i, w, &mut targets);
            }
        }
        let _ = self.analysis.targets.set(targets);
    }

    /// How many pools admit the workload, as `explain` says it.
    fn verdict(view: &View, i: usize, w: &Workload) -> String {
        let pools = &view.inventory.pools;
        if pools.is_empty() {
            return "No node pools are known: declare them in `.taintlint.yaml` or an inventory file.".to_string();
        }
        let Some(verdicts) = view.eval.fits.get(i) else {
            return String::new();
        };
        let ok = pools
            .iter()
            .filter(|p| verdicts.reasons(w, p).is_empty())
            .count();
        format!("Node pools: {ok} of {} can run this pod", pools.len())
    }

    fn tolerations(
        &self,
        view: &View,
        i: usize,
        w: &Workload,
        buffer: (&str, &Url),
        others: &mut Indexes,
        out: &mut Vec<Target>,
    ) {
        let pools = &view.inventory.pools;
        for t in &w.tolerations {
            let span = [t.scalars.key, t.scalars.value, t.scalars.effect]
                .into_iter()
                .flatten()
                .fold(t.span, Span::cover);
            let mut opened: Vec<String> = Vec::new();
            let mut definitions = Vec::new();
            let mut untouched: Vec<&Pool> = Vec::new();
            for p in pools {
                let matched: Vec<_> = p
                    .taints
                    .iter()
                    .filter(|pt| {
                        let r = pt.taint.taint_ref();
                        crate::analysis::semantics::matching::tolerates(&t.tol(), &r, self.gate)
                    })
                    .collect();
                if matched.is_empty() {
                    if p.blocking_taints().next().is_some() {
                        untouched.push(p);
                    }
                    continue;
                }
                let still = view
                    .eval
                    .fits
                    .get(i)
                    .map(|v| v.reasons(w, p))
                    .unwrap_or_default();
                let taints: Vec<String> = matched
                    .iter()
                    .map(|pt| md_code(&pt.taint.display()))
                    .collect();
                let mut line = format!(
                    "- {} {}: tolerates {}",
                    if still.is_empty() { "✓" } else { "✗" },
                    p.title_markdown(),
                    taints.join(", ")
                );
                if let Some(r) = still.first() {
                    let _ = write!(
                        line,
                        "; still kept off: {}",
                        md_text(&crate::report::explain::reason_text(
                            &view.inventory,
                            p,
                            r,
                            w.selects_by_spread_only()
                        ))
                    );
                }
                opened.push(line);
                for pt in matched {
                    if let Some(loc) = pt.loc.as_ref().and_then(|pl| view.inventory.loc(pl))
                        && let Some(uri) = uri_of(&loc.source.name, buffer)
                    {
                        let range = if *loc.source.name == *buffer.0 {
                            self.analysis.text.range(loc.span)
                        } else {
                            range_in(
                                &loc.source,
                                loc.span,
                                self.analysis.text.index.encoding(),
                                others,
                            )
                        };
                        definitions.push(Location::new(uri, range));
                    }
                }
            }
            let mut md = format!("**taintlint** · toleration {}\n\n", md_code(&t.display()));
            if opened.is_empty() {
                md.push_str("Tolerates no taint of any known node pool.\n");
            } else {
                md.push_str("Lets the pod onto (tolerates their taints):\n\n");
                for l in opened.iter().take(LIST) {
                    // (Made of Markdown-safe parts above.)
                    md.push_str(l);
                    md.push('\n');
                }
                if opened.len() > LIST {
                    let _ = writeln!(md, "- and {} more", opened.len() - LIST);
                }
            }
            if !untouched.is_empty() {
                let _ = writeln!(
                    md,
                    "\nDoes not help with the taints of {}",
                    names(&untouched)
                );
            }
            let _ = writeln!(md, "\n{}", Self::verdict(view, i, w));
            out.push(Target {
                span,
                markdown: md,
                definitions,
            });
        }
    }

    fn selectors(&self, view: &View, i: usize, w: &Workload, out: &mut Vec<Target>) {
        let text = &self.analysis.text.text;
        let pools = &view.inventory.pools;
        let Some(body) = text.get(w.object_span.start..w.object_span.end.min(text.len())) else {
            return;
        };
        for entry in super::scan::scan(body, w.object_span.start) {
            let (title, admits): (String, Admits) = match &entry.what {
                super::scan::What::Selector(k, v) => {
                    if !w
                        .node_selector
                        .iter()
                        .any(|(wk, wv)| **wk == **k && **wv == **v)
                    {
                        continue;
                    }
                    let (k2, v2) = (k.clone(), v.clone());
                    (
                        format!(
                            "nodeSelector {}",
                            md_code(&crate::util::text::label_entry(k, v))
                        ),
                        Box::new(move |p: &Pool| match p.label(&k2) {
                            Some(LabelValues::Any) => true,
                            Some(LabelValues::OneOf(vs)) => vs.iter().any(|x| **x == *v2),
                            None => false,
                        }),
                    )
                }
                super::scan::What::Term(n) => {
                    let Some(term) = w.terms.as_ref().and_then(|t| t.get(*n)).cloned() else {
                        continue;
                    };
                    (
                        format!("required node affinity term {}", n + 1),
                        Box::new(move |p: &Pool| term_matches(p, &term)),
                    )
                }
            };
            let (onto, off): (Vec<&Pool>, Vec<&Pool>) =
                pools.iter().map(|p| &**p).partition(|p| admits(p));
            // (`title` is made of Markdown-safe parts above.)
            let mut md = format!("**taintlint** · {title}\n\n");
            if pools.is_empty() {
                md.push_str("No node pools are known.\n");
            } else {
                if !onto.is_empty() {
                    let _ = writeln!(md, "Lets the pod onto: {}\n", names(&onto));
                }
                if !off.is_empty() {
                    let _ = writeln!(
                        md,
                        "Keeps it off (node(s) didn't match Pod's node affinity/selector): {}\n",
                        names(&off)
                    );
                }
            }
            let _ = writeln!(md, "{}", Self::verdict(view, i, w));
            out.push(Target {
                span: entry.span,
                markdown: md,
                definitions: Vec::new(),
            });
        }
    }
}
