//! `--format markdown`: a summary for `$GITHUB_STEP_SUMMARY` and pull-request comments:
//! counts, and a table of findings linking to the rule pages.
//!
//! Everything from the input (file names, and the names, keys and values messages quote) is
//! written as escaped text: no character of it can close a code span, open HTML (`<img>`
//! tracking pixels, `<!--` hiding the rest), make a link, emphasis, a mention or a math span,
//! or end the table row. The summary is capped at [`MAX_BYTES`]: GitHub refuses a step summary
//! over 1 MiB, and a run with a million findings should not produce one.

use std::fmt::Write as _;
use std::io::{self, Write};

use crate::diagnostic::{Finding, Severity};

use super::{FindingSource, Summary, rule_url};

/// The summary's size at most (GitHub's limit for one step's summary is 1 MiB).
pub(super) const MAX_BYTES: usize = 1 << 20;

/// Room kept for the closing note when rows are cut.
const NOTE_ROOM: usize = 512;

/// Text as inert Markdown: each character that Markdown, GitHub's extensions or HTML could
/// read as syntax is a character reference (shown as the character itself), control
/// characters and line breaks are escaped as `\n`, `\e`, `\u{…}` (see `crate::util::text`).
pub(super) fn text(s: &str) -> String {
    let s = crate::util::text::escape(s);
    let mut out = String::with_capacity(s.len() + 8);
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            // `https://` and the like make autolinks; `a:b` is left readable.
            ':' if chars.peek() == Some(&'/') => out.push_str("&#58;"),
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            // Table cells, code spans, escapes, emphasis, links and images, strikethrough,
            // issue references, mentions and e-mail autolinks, math.
            '|' | '`' | '\\' | '*' | '_' | '[' | ']' | '~' | '#' | '@' | '$' => {
                let _ = write!(out, "&#{};", u32::from(c));
            }
            c => out.push(c),
        }
    }
    out
}

/// A message for a table cell: its `code spans` (the tool quotes names and values in
/// backticks) as `<code>` elements, everything inside and outside them as [`text`]. A
/// backtick with no partner is shown as one.
pub(super) fn cell(s: &str) -> String {
    let parts: Vec<&str> = s.split('`').collect();
    let mut out = String::with_capacity(s.len() + 16);
    for (i, part) in parts.iter().enumerate() {
        if i % 2 == 0 {
            out.push_str(&text(part));
        } else if i + 1 < parts.len() {
            out.push_str("<code>");
            out.push_str(&text(part));
            out.push_str("</code>");
        } else {
            out.push_str("&#96;");
            out.push_str(&text(part));
        }
    }
    out
}

pub(super) fn write(
    findings: &dyn FindingSource,
    summary: &Summary,
    out: &mut dyn Write,
) -> io::Result<()> {
    let mut doc = String::new();
    doc.push_str("## taintlint\n\n");
    let total = summary.errors + summary.warnings + summary.infos;
    if total == 0 {
        let icon = if summary.files == 0 { "⚠️" } else { "✅" };
        let _ = writeln!(doc, "{icon} {}", summary.line());
        return out.write_all(doc.as_bytes());
    }
    let _ = writeln!(
        doc,
        "| errors | warnings | infos | files | documents |\n|---:|---:|---:|---:|---:|\n| {} | {} | {} | {} | {} |\n",
        summary.errors, summary.warnings, summary.infos, summary.files, summary.documents
    );
    if summary.baselined > 0 {
        let _ = writeln!(doc, "{} more hidden by the baseline.\n", summary.baselined);
    }
    doc.push_str("| | rule | location | message |\n|---|---|---|---|\n");
    let mut shown = 0usize;
    let mut full = false;
    findings.each(&mut |f: &Finding| {
        if full {
            return Ok(());
        }
        let row = row(f);
        if doc.len() + row.len() > MAX_BYTES - NOTE_ROOM {
            full = true;
            return Ok(());
        }
        doc.push_str(&row);
        shown += 1;
        Ok(())
    })?;
    if shown < total {
        let n = total - shown;
        let _ = writeln!(
            doc,
            "\n… and {n} more finding{}, not shown: a summary holds 1 MiB at most (every finding is in the JSON and SARIF reports)",
            if n == 1 { "" } else { "s" }
        );
    }
    out.write_all(doc.as_bytes())
}

/// One finding's table row.
fn row(f: &Finding) -> String {
    let icon = match f.severity {
        Severity::Error => "❌",
        Severity::Warning => "⚠️",
        Severity::Info => "ℹ️",
    };
    let (start, _) = f.range();
    let message = match &f.cluster {
        Some(c) => format!("{} (cluster `{c}`)", f.message),
        None => f.message.to_string(),
    };
    format!(
        "| {icon} | [`{}`]({}) | <code>{}:{}:{}</code> | {} |\n",
        f.rule,
        rule_url(f.rule),
        text(&f.file),
        start.line,
        start.column,
        cell(&message)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn input_cannot_leave_its_cell() {
        for hostile in [
            "`<img src=https://t.example/p.png>`",
            "x`**bold**`[link](https://e.example)",
            "a\rb\n| c | d |\n<!-- hide",
            "@org/team #1 $x^2$ ~~s~~ \\| :smile: https://e.example www.e.example",
            "\u{1b}]8;;https://e.example\u{7}click",
        ] {
            let c = cell(hostile);
            for bad in [
                "<img", "<!--", "**", "](", "|", "\n", "\r", "@", "$", "`", "\u{1b}", "://",
            ] {
                assert!(!c.contains(bad), "{hostile:?} -> {c:?} holds {bad:?}");
            }
            let t = text(hostile);
            assert!(
                !t.contains('<') && !t.contains('|') && !t.contains('\n'),
                "{t}"
            );
        }
    }

    /// The control characters, separators, bidi controls and commands of the shared table:
    /// none raw in a cell, no line break, no table cell ended.
    #[test]
    fn hostile_table_stays_in_its_cell() {
        for h in crate::util::text::HOSTILE {
            for s in [format!("a{h}b"), format!("`{h}`")] {
                let c = cell(&s);
                assert!(
                    !c.chars().any(crate::util::text::is_unsafe),
                    "{s:?} -> {c:?}"
                );
                let bare = c.replace("<code>", "").replace("</code>", "");
                assert!(!bare.contains(['|', '<', '>', '`', '\n']), "{s:?} -> {c:?}");
            }
        }
    }

    #[test]
    fn the_tools_code_spans_stay_code() {
        assert_eq!(
            cell("toleration `a=b:NoSchedule` matches"),
            "toleration <code>a=b:NoSchedule</code> matches"
        );
        assert_eq!(cell("odd ` one"), "odd &#96; one");
    }
}
