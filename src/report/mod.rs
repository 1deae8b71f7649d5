//! Report: turns sorted findings into output. One file per format; this module holds the
//! summary and the format switch, and is the only place that writes to stdout.

mod concise;
pub mod explain;
mod explain_kueue;
pub mod github;
pub mod gitlab;
mod human;
mod json;
pub mod junit;
mod markdown;
pub mod matrix;
mod rdjson;
mod safe_json;
pub mod sarif;

use std::io::{self, Write};

use crate::diagnostic::{Finding, Severity};

pub use human::HumanOptions;

/// Where rule pages are published: `rules/` of the repository (Cargo.toml's `repository`) at
/// this version's release tag, so a link shows the page of the rule as this binary has it.
pub const RULE_URL_BASE: &str = concat!(
    env!("CARGO_PKG_REPOSITORY"),
    "/blob/v",
    env!("CARGO_PKG_VERSION"),
    "/rules/"
);

/// The page of `rule`: `<repository>/blob/v<version>/rules/<rule>.md`.
pub fn rule_url(rule: &str) -> String {
    format!("{RULE_URL_BASE}{rule}.md")
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// Graphical diagnostics with source snippets (miette).
    Human,
    /// `path:line:col: severity[rule] message`, one line each.
    Concise,
    /// The stable JSON contract (see docs/output.md).
    Json,
    /// SARIF 2.1.0, for GitHub code scanning.
    Sarif,
    /// GitHub Actions workflow commands (annotations).
    Github,
    /// A Markdown summary for `$GITHUB_STEP_SUMMARY` and PR comments.
    Markdown,
    /// JUnit XML, one failed test case per finding (Jenkins, GitLab, Azure DevOps).
    Junit,
    /// GitLab Code Quality JSON, for the merge request's widget and diff.
    Gitlab,
    /// reviewdog's Diagnostic Format, with the safe fixes as suggestions.
    Rdjson,
}

#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct Summary {
    pub files: usize,
    pub documents: usize,
    pub objects: usize,
    pub errors: usize,
    pub warnings: usize,
    pub infos: usize,
    /// Findings hidden by `--baseline`.
    pub baselined: usize,
}

impl Summary {
    pub fn count(&mut self, findings: &[Finding]) {
        for f in findings {
            match f.severity {
                Severity::Error => self.errors += 1,
                Severity::Warning => self.warnings += 1,
                Severity::Info => self.infos += 1,
            }
        }
    }

    /// `2 errors, 1 warning in 14 files (52 documents)`; a run that linted no file says so
    /// (`no findings: no files were linted`), as it is no pass.
    pub fn line(&self) -> String {
        fn plural(n: usize, one: &str, many: &str) -> String {
            format!("{n} {}", if n == 1 { one } else { many })
        }
        let mut parts = Vec::new();
        if self.errors > 0 {
            parts.push(plural(self.errors, "error", "errors"));
        }
        if self.warnings > 0 {
            parts.push(plural(self.warnings, "warning", "warnings"));
        }
        if self.infos > 0 {
            parts.push(plural(self.infos, "info", "infos"));
        }
        let head = if parts.is_empty() {
            "no findings".to_string()
        } else {
            parts.join(", ")
        };
        let mut line = if self.files == 0 {
            format!("{head}: {NO_FILES}")
        } else {
            format!(
                "{head} in {} ({})",
                plural(self.files, "file", "files"),
                plural(self.documents, "document", "documents")
            )
        };
        if self.baselined > 0 {
            line.push_str(&format!("; {} hidden by the baseline", self.baselined));
        }
        line
    }
}

/// What every report says of a run that linted no file.
pub const NO_FILES: &str = "no files were linted";

pub use crate::diagnostic::FindingSource;

/// Is this finding a cross-reference one, judged within a cluster (the scheduling rules)?
fn judged_by_cluster(f: &Finding) -> bool {
    crate::rules::find(f.rule)
        .is_some_and(|r| r.meta.category == crate::rules::Category::Scheduling)
}

/// Serialises every finding of a source as one JSON array, each written by `element` as it
/// comes (the findings are never all in memory as output values).
pub(crate) fn serialize_seq<S, F>(
    findings: &dyn FindingSource,
    serializer: S,
    element: F,
) -> Result<S::Ok, S::Error>
where
    S: serde::Serializer,
    F: Fn(&mut S::SerializeSeq, &Finding) -> Result<(), S::Error>,
{
    use serde::ser::{Error, SerializeSeq};
    let mut seq = serializer.serialize_seq(None)?;
    let mut failed = None;
    let read = findings.each(&mut |f| {
        element(&mut seq, f).map_err(|e| {
            failed = Some(e);
            io::Error::other("serialisation failed")
        })
    });
    if let Some(e) = failed {
        return Err(e);
    }
    read.map_err(S::Error::custom)?;
    seq.end()
}

/// Appends the finding's help and the API server's answer, each on a line of its own, as the
/// plain-text formats (SARIF, GitHub annotations) give them.
pub(crate) fn push_help_and_api(text: &mut String, f: &Finding) {
    if let Some(h) = &f.help {
        text.push_str("\nhelp: ");
        text.push_str(h);
    }
    if let Some(api) = &f.api_error {
        text.push_str("\nAPI server: ");
        text.push_str(api);
    }
}

/// Appends each related place (the earlier toleration that shadows this one, the pool's
/// taint) as a `file:line:col: message` line, for the formats without a field for them.
pub(crate) fn push_related(text: &mut String, f: &Finding) {
    for r in &f.related {
        let p = r.source.position(r.span.start);
        text.push_str(&format!(
            "\n{}:{}:{}: {}",
            r.source.name, p.line, p.column, r.message
        ));
    }
}

/// Writes the findings (already sorted) in `format`.
pub fn write(
    format: Format,
    findings: &dyn FindingSource,
    summary: &Summary,
    human: &HumanOptions,
    out: &mut dyn Write,
) -> io::Result<()> {
    match format {
        Format::Human => human::write(findings, summary, human, out),
        Format::Json => json::write(findings, summary, out),
        Format::Concise => concise::write(findings, summary, human.quiet, out),
        Format::Sarif => sarif::write(findings, summary, out),
        Format::Github => github::write(findings, summary, out),
        Format::Markdown => markdown::write(findings, summary, out),
        Format::Junit => junit::write(findings, summary, out),
        Format::Gitlab => gitlab::write(findings, out),
        Format::Rdjson => rdjson::write(findings, out),
    }
}
