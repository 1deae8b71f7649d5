//! `--format markdown`: a summary for `$GITHUB_STEP_SUMMARY` and pull-request comments:
//! counts, and a table of findings linking to the rule pages.

use std::io::{self, Write};

use crate::diagnostic::{Finding, Severity};

use super::{FindingSource, Summary, rule_url};

/// Text for a Markdown table cell: `|` escaped, line breaks as `<br>`.
pub(super) fn cell(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', "<br>")
}

pub(super) fn write(
    findings: &dyn FindingSource,
    summary: &Summary,
    out: &mut dyn Write,
) -> io::Result<()> {
    writeln!(out, "## taintlint")?;
    writeln!(out)?;
    if summary.errors + summary.warnings + summary.infos == 0 {
        let icon = if summary.files == 0 { "⚠️" } else { "✅" };
        writeln!(out, "{icon} {}", summary.line())?;
        return Ok(());
    }
    writeln!(
        out,
        "| errors | warnings | infos | files | documents |\n|---:|---:|---:|---:|---:|\n| {} | {} | {} | {} | {} |",
        summary.errors, summary.warnings, summary.infos, summary.files, summary.documents
    )?;
    writeln!(out)?;
    if summary.baselined > 0 {
        writeln!(out, "{} more hidden by the baseline.\n", summary.baselined)?;
    }
    writeln!(out, "| | rule | location | message |")?;
    writeln!(out, "|---|---|---|---|")?;
    findings.each(&mut |f: &Finding| {
        let icon = match f.severity {
            Severity::Error => "❌",
            Severity::Warning => "⚠️",
            Severity::Info => "ℹ️",
        };
        let (start, _) = f.range();
        writeln!(
            out,
            "| {icon} | [`{}`]({}) | `{}:{}:{}` | {} |",
            f.rule,
            rule_url(f.rule),
            cell(&f.file),
            start.line,
            start.column,
            match &f.cluster {
                Some(c) => cell(&format!("{} (cluster `{c}`)", f.message)),
                None => cell(&f.message),
            }
        )
    })
}
