//! The finding: what a rule (or the loader) reports. One runtime type for every rule; the
//! reporters in `report/` turn it into miette graphics, JSON and the other formats.

mod fingerprint;
pub use fingerprint::{fingerprint, uri};

use std::borrow::Cow;
use std::fmt;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::load::{Position, SourceFile, Span};

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Info,
    Warning,
    Error,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Info => "info",
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Identity of the Kubernetes object a finding is about.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct ObjectId {
    #[serde(rename = "apiVersion")]
    pub api_version: String,
    pub kind: String,
    pub namespace: Option<String>,
    pub name: Option<String>,
}

impl fmt::Display for ObjectId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.kind)?;
        if let Some(ns) = &self.namespace {
            write!(f, "/{ns}")?;
        }
        write!(f, "/{}", self.name.as_deref().unwrap_or("<unnamed>"))
    }
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Label {
    pub span: Span,
    pub text: Cow<'static, str>,
}

/// A location in another file (or elsewhere in this one) that explains the finding.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Related {
    #[serde(with = "crate::load::codec::source")]
    pub source: Arc<SourceFile>,
    pub span: Span,
    pub message: String,
}

/// Whether a fix may be applied without the user's review.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Applicability {
    /// Applied by `--fix`: the repair is certain and keeps the meaning the author intended.
    Safe,
    /// Applied only with `--fix --unsafe-fixes`: it changes what the manifest does.
    Unsafe,
}

impl Applicability {
    pub fn as_str(self) -> &'static str {
        match self {
            Applicability::Safe => "safe",
            Applicability::Unsafe => "unsafe",
        }
    }
}

/// One byte-range replacement in a file's text. The positions are those of `span` in the
/// text the finding was made from (kept here because a lite source cannot compute them).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Edit {
    pub span: Span,
    pub replacement: String,
    pub start: Position,
    pub end: Position,
}

impl Edit {
    pub fn new(source: &SourceFile, span: Span, replacement: impl Into<String>) -> Self {
        Edit {
            span,
            replacement: replacement.into(),
            start: source.position(span.start),
            end: source.position(span.end.max(span.start)),
        }
    }
}

/// A repair of a finding: edits of the finding's file that are applied together or not at all.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Fix {
    pub applicability: Applicability,
    /// What the fix does, imperative: "remove `value`" (mostly a fixed text: borrowed).
    pub title: Cow<'static, str>,
    pub edits: Vec<Edit>,
}

impl Fix {
    pub fn safe(title: impl Into<Cow<'static, str>>, edits: Vec<Edit>) -> Self {
        Fix {
            applicability: Applicability::Safe,
            title: title.into(),
            edits,
        }
    }

    pub fn unsafe_(title: impl Into<Cow<'static, str>>, edits: Vec<Edit>) -> Self {
        Fix {
            applicability: Applicability::Unsafe,
            title: title.into(),
            edits,
        }
    }

    /// `[*] fixable` or `[*] fixable with --unsafe-fixes`, and the title.
    pub fn marker(&self) -> String {
        match self.applicability {
            Applicability::Safe => format!("[*] fixable: {}", self.title),
            Applicability::Unsafe => {
                format!("[*] fixable with --unsafe-fixes: {}", self.title)
            }
        }
    }
}

/// Serialisable for spilling (`load::codec`, `engine::store`), not as an output format (see
/// `report/`).
#[derive(Clone, Debug, Serialize)]
pub struct Finding {
    pub rule: &'static str,
    pub severity: Severity,
    /// Borrowed when fixed (a rule's one sentence for half a million duplicates), so a
    /// finding costs no copy of it.
    pub message: Cow<'static, str>,
    /// Mostly a fixed text: borrowed, not copied into every finding.
    pub help: Option<Cow<'static, str>>,
    /// The file; `None` only before the finding is attached to one.
    #[serde(with = "crate::load::codec::opt_source")]
    pub source: Option<Arc<SourceFile>>,
    /// The file's name when there is no source text (unreadable files).
    pub file: Arc<str>,
    pub primary: Option<Label>,
    pub secondary: Vec<Label>,
    pub related: Vec<Related>,
    pub object: Option<Arc<ObjectId>>,
    pub field: Option<String>,
    pub api_error: Option<String>,
    /// A repair the rule can prove, as edits of the source text.
    pub fix: Option<Fix>,
    /// The configured cluster a cross-reference finding was judged in (`None`: the default).
    pub cluster: Option<Arc<str>>,
    /// The taint key a heuristic's finding is about: node pools found in the linted files
    /// supersede it only when one of them has a taint with this key (see
    /// `rules::superseded`).
    pub taint_key: Option<Arc<str>>,
}

impl<'de> Deserialize<'de> for Finding {
    /// Read back from a spill: as derived, but the rule name is looked up in the registry
    /// (a derived impl would borrow `&'static str` from the input).
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        struct Data {
            rule: String,
            severity: Severity,
            message: Cow<'static, str>,
            help: Option<Cow<'static, str>>,
            #[serde(with = "crate::load::codec::opt_source")]
            source: Option<Arc<SourceFile>>,
            file: Arc<str>,
            primary: Option<Label>,
            secondary: Vec<Label>,
            related: Vec<Related>,
            object: Option<Arc<ObjectId>>,
            field: Option<String>,
            api_error: Option<String>,
            fix: Option<Fix>,
            cluster: Option<Arc<str>>,
            taint_key: Option<Arc<str>>,
        }
        let x = Data::deserialize(d)?;
        Ok(Finding {
            rule: crate::diagnostic::static_rule_name(&x.rule),
            severity: x.severity,
            message: x.message,
            help: x.help,
            source: x.source,
            file: x.file,
            primary: x.primary,
            secondary: x.secondary,
            related: x.related,
            object: x.object,
            field: x.field,
            api_error: x.api_error,
            fix: x.fix,
            cluster: x.cluster,
            taint_key: x.taint_key,
        })
    }
}

impl Finding {
    /// Roughly the bytes this finding holds in memory, its own text included (for the spill
    /// budgets: a cross-reference finding with a dozen related places is ten times a plain
    /// one).
    pub fn approx_size(&self) -> usize {
        // A heap block's bookkeeping and rounding.
        const BLOCK: usize = 16;
        let text = |s: &str| if s.is_empty() { 0 } else { s.len() + BLOCK };
        let cow = |c: &Cow<'static, str>| match c {
            Cow::Owned(s) => text(s),
            Cow::Borrowed(_) => 0,
        };
        let labels = self.primary.iter().chain(&self.secondary);
        std::mem::size_of::<Finding>()
            + cow(&self.message)
            + self.help.as_ref().map_or(0, cow)
            + labels.map(|l| cow(&l.text)).sum::<usize>()
            + self.secondary.len() * std::mem::size_of::<Label>()
            + self
                .related
                .iter()
                .map(|r| std::mem::size_of::<Related>() + text(&r.message))
                .sum::<usize>()
            + self.field.as_deref().map_or(0, text)
            + self.api_error.as_deref().map_or(0, text)
            + self.fix.as_ref().map_or(0, |fix| {
                cow(&fix.title)
                    + fix
                        .edits
                        .iter()
                        .map(|e| std::mem::size_of::<Edit>() + text(&e.replacement))
                        .sum::<usize>()
            })
    }

    pub fn new(
        rule: &'static str,
        severity: Severity,
        message: impl Into<Cow<'static, str>>,
    ) -> Self {
        Finding {
            rule,
            severity,
            message: message.into(),
            help: None,
            source: None,
            file: Arc::from(""),
            primary: None,
            secondary: Vec::new(),
            related: Vec::new(),
            object: None,
            field: None,
            api_error: None,
            fix: None,
            cluster: None,
            taint_key: None,
        }
    }

    #[must_use]
    pub fn primary(mut self, span: Span, text: impl Into<Cow<'static, str>>) -> Self {
        self.primary = Some(Label {
            span,
            text: text.into(),
        });
        self
    }

    #[must_use]
    pub fn secondary(mut self, span: Span, text: impl Into<Cow<'static, str>>) -> Self {
        // Most findings have one: room for exactly one (a push would make room for four).
        self.secondary.reserve_exact(1);
        self.secondary.push(Label {
            span,
            text: text.into(),
        });
        self
    }

    #[must_use]
    pub fn help(mut self, help: impl Into<Cow<'static, str>>) -> Self {
        self.help = Some(help.into());
        self
    }

    #[must_use]
    pub fn field(mut self, field: impl Into<String>) -> Self {
        self.field = Some(field.into());
        self
    }

    /// The taint key this heuristic finding is about (see [`Finding::taint_key`]).
    #[must_use]
    pub fn taint_key(mut self, key: &str) -> Self {
        self.taint_key = Some(Arc::from(key));
        self
    }

    /// Adds a sentence after the help already written (or starts it). One line: the
    /// renderers escape a help's line breaks.
    #[must_use]
    pub fn help_line(mut self, line: String) -> Self {
        self.help = Some(match self.help.take() {
            Some(h) => format!("{h}; {line}").into(),
            None => line.into(),
        });
        self
    }

    #[must_use]
    pub fn api_error(mut self, text: impl Into<String>) -> Self {
        self.api_error = Some(text.into());
        self
    }

    /// Attaches a fix when the rule could build one.
    #[must_use]
    pub fn fix(mut self, fix: Option<Fix>) -> Self {
        self.fix = fix;
        self
    }

    #[must_use]
    pub fn in_file(mut self, source: &Arc<SourceFile>) -> Self {
        self.set_file(source);
        self
    }

    /// Attaches the finding to `source` in place (see [`Finding::in_file`]).
    pub fn set_file(&mut self, source: &Arc<SourceFile>) {
        self.file.clone_from(&source.name);
        self.source = Some(Arc::clone(source));
    }

    /// The 1-based start and end positions of the primary span, or 1:1.
    pub fn range(&self) -> (crate::load::Position, crate::load::Position) {
        let one = crate::load::Position { line: 1, column: 1 };
        match (&self.source, &self.primary) {
            (Some(src), Some(label)) => (
                src.position(label.span.start),
                src.position(label.span.end.max(label.span.start)),
            ),
            _ => (one, one),
        }
    }
}

/// Sorts findings into output order (file, line and column of the start, rule, then
/// message), stably, without copying their
/// file names and messages: the borrowed keys (positions computed once) order an index
/// list, and the findings are then moved into that order in place.
pub fn sort_findings(findings: &mut [Finding]) {
    let ranges: Vec<_> = findings.iter().map(Finding::range).collect();
    let order = output_order(findings, &ranges);
    permute(findings, &order);
}

/// [`sort_findings`], then drops each finding that repeats the one before it (same rule,
/// file, message and range): the positions are computed once for both.
pub fn sort_and_dedup_findings(findings: &mut Vec<Finding>) {
    let ranges: Vec<_> = findings.iter().map(Finding::range).collect();
    let order = output_order(findings, &ranges);
    // Whether the finding at each output place stays: compared with the last one kept.
    let mut keep = Vec::with_capacity(order.len());
    let mut last: Option<usize> = None;
    for &i in &order {
        let repeated = last.is_some_and(|j| {
            let (a, b) = (&findings[i], &findings[j]);
            a.rule == b.rule && a.file == b.file && a.message == b.message && ranges[i] == ranges[j]
        });
        if !repeated {
            last = Some(i);
        }
        keep.push(!repeated);
    }
    permute(findings, &order);
    let mut keep = keep.into_iter();
    findings.retain(|_| keep.next().unwrap_or(true));
}

/// The indices of `findings` in output order (`ranges`: each one's [`Finding::range`]).
fn output_order(findings: &[Finding], ranges: &[(Position, Position)]) -> Vec<usize> {
    let keys: Vec<_> = findings
        .iter()
        .zip(ranges)
        .map(|(f, (start, _))| (&*f.file, start.line, start.column, f.rule, &*f.message))
        .collect();
    let mut order: Vec<usize> = (0..findings.len()).collect();
    order.sort_by(|&a, &b| keys[a].cmp(&keys[b]));
    order
}

/// Moves `findings` into `order` in place: slot k takes the finding at `order[k]`.
fn permute(findings: &mut [Finding], order: &[usize]) {
    // Follow each cycle of the permutation once.
    let mut placed = vec![false; findings.len()];
    for start in 0..findings.len() {
        let mut k = start;
        while !placed[k] {
            placed[k] = true;
            let from = order[k];
            if from == start {
                break;
            }
            findings.swap(k, from);
            k = from;
        }
    }
}

/// The names of the rules whose findings were read back from records (a few dozen at most:
/// records hold only findings this run made).
static RULE_NAMES: std::sync::Mutex<Vec<&'static str>> = std::sync::Mutex::new(Vec::new());

/// A rule name read back from a record, as the `&'static str` findings carry: one copy per
/// distinct name for the whole process.
pub fn static_rule_name(name: &str) -> &'static str {
    let mut names = RULE_NAMES
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if let Some(known) = names.iter().find(|n| **n == name) {
        return known;
    }
    let leaked: &'static str = Box::leak(name.to_string().into_boxed_str());
    names.push(leaked);
    leaked
}

/// Findings for the reporters, in output order: a vector, or a run's spilled findings read
/// back one file at a time (`engine::run::SpilledFindings`).
pub trait FindingSource {
    /// Calls `f` with every finding, in order; stops at its first error.
    fn each(&self, f: &mut dyn FnMut(&Finding) -> std::io::Result<()>) -> std::io::Result<()>;
}

impl FindingSource for Vec<Finding> {
    fn each(&self, f: &mut dyn FnMut(&Finding) -> std::io::Result<()>) -> std::io::Result<()> {
        self.iter().try_for_each(f)
    }
}

impl FindingSource for &[Finding] {
    fn each(&self, f: &mut dyn FnMut(&Finding) -> std::io::Result<()>) -> std::io::Result<()> {
        self.iter().try_for_each(f)
    }
}

#[cfg(test)]
mod sort_tests {
    use super::*;

    #[test]
    fn approx_size_counts_text_and_related_places() {
        let plain = Finding::new("unschedulable-workload", Severity::Error, "m");
        let base = plain.approx_size();
        assert!(base >= std::mem::size_of::<Finding>());
        let source = SourceFile::new("nodes.yaml", String::new());
        let mut busy = plain.clone().help(format!("{:100}", "help"));
        busy.message = "x".repeat(300).into();
        for _ in 0..12 {
            busy.related.push(Related {
                source: Arc::clone(&source),
                span: Span::default(),
                message: "y".repeat(80),
            });
        }
        let related = 12 * (std::mem::size_of::<Related>() + 80);
        assert!(busy.approx_size() >= base + 300 + 100 + related);
        // A fixed help text is borrowed: it costs nothing.
        assert_eq!(plain.clone().help("fixed").approx_size(), base);
    }

    /// Sorting and deduplicating with the positions computed once gives what sorting, then
    /// comparing each finding's range with the last one kept, gives.
    #[test]
    fn sort_and_dedup_equals_sort_then_dedup() {
        let text: String = (0..40).map(|i| format!("k{i}: v\n")).collect();
        let source = SourceFile::new("f.yaml", text);
        let mut findings = Vec::new();
        let mut x: u32 = 11;
        for i in 0..600 {
            x = x.wrapping_mul(1_103_515_245).wrapping_add(12_345);
            let start = (x >> 8) as usize % 30;
            let mut f = Finding::new(
                ["b", "a"][(x >> 12) as usize % 2],
                Severity::Warning,
                ["m", "n"][(x >> 14) as usize % 2],
            )
            .primary(Span::new(start, start + (x >> 16) as usize % 3), "x")
            .help(i.to_string());
            if x >> 20 & 1 == 0 {
                f = f.in_file(&source);
            } else {
                f.file = "f.yaml".into();
            }
            findings.push(f);
        }
        let mut expected = findings.clone();
        sort_findings(&mut expected);
        expected.dedup_by(|a, b| {
            a.rule == b.rule && a.file == b.file && a.message == b.message && a.range() == b.range()
        });
        sort_and_dedup_findings(&mut findings);
        let helps = |v: &[Finding]| -> Vec<String> {
            v.iter()
                .map(|f| f.help.as_deref().unwrap_or("").to_string())
                .collect()
        };
        assert!(findings.len() < 600);
        assert_eq!(helps(&findings), helps(&expected));
    }

    #[test]
    fn sort_findings_is_the_stable_sort_by_key() {
        // A deterministic shuffle of findings with ties in every key part.
        let mut findings = Vec::new();
        let mut x: u32 = 7;
        for i in 0..500 {
            x = x.wrapping_mul(1_103_515_245).wrapping_add(12_345);
            let mut f = Finding::new(
                ["b", "a", "c"][(x >> 8) as usize % 3],
                Severity::Warning,
                format!("m{}", (x >> 12) % 4),
            );
            f.file = format!("f{}", (x >> 16) % 5).into();
            // Same key, different help: tells a stable sort from an unstable one.
            f.help = Some(i.to_string().into());
            findings.push(f);
        }
        let keys = |findings: &[Finding]| -> Vec<(String, &str, String, Option<String>)> {
            findings
                .iter()
                .map(|f| {
                    (
                        f.file.to_string(),
                        f.rule,
                        f.message.to_string(),
                        f.help.as_deref().map(str::to_string),
                    )
                })
                .collect()
        };
        let mut expected = keys(&findings);
        expected.sort_by(|a, b| (&a.0, a.1, &a.2).cmp(&(&b.0, b.1, &b.2)));
        sort_findings(&mut findings);
        let got = keys(&findings);
        assert_eq!(got, expected);
    }
}
