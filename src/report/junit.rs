//! `--format junit`: JUnit XML, the test report Jenkins (`junit`), GitLab
//! (`artifacts:reports:junit`) and Azure DevOps (`PublishTestResults@2`) read. Each linted
//! file with findings is a `<testsuite>` and each finding a failed `<testcase>` named
//! `RULE at FILE:LINE:COLUMN` (the name is what every one of them shows), with `file` and
//! `line` attributes (GitLab's and Jenkins' links) and `classname` the file without its
//! extension (Jenkins splits a class name at its last dot, so `k8s/web.yaml` would show as
//! class `yaml` of package `k8s/web`); a run without findings is one passing test case, so a
//! CI that requires test results sees one.
//!
//! Every text from the input is escaped for XML 1.0: the five markup characters, line breaks
//! and tabs in attributes (which a parser would otherwise fold into spaces), and the control
//! characters XML 1.0 forbids even as character references, written as `\u{1B}`-style text;
//! the other characters `util::text` calls unsafe (DEL, the C1 controls, U+2028/U+2029, the
//! bidi controls) are character references, so a report printed on a terminal or in a CI log
//! holds none of them raw, and an XML reader still reads the same text.

use std::fmt::Write as _;
use std::io::{self, Write};

use crate::diagnostic::Finding;

use super::{FindingSource, Summary};

/// Text for XML 1.0 element content or a double-quoted attribute value.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            // Kept as they are by a parser only when written as references.
            '\n' => out.push_str("&#10;"),
            '\r' => out.push_str("&#13;"),
            '\t' => out.push_str("&#9;"),
            // Forbidden in XML 1.0 in any form (the Char production): shown, not dropped.
            '\0'..='\u{1F}' | '\u{FFFE}' | '\u{FFFF}' => {
                let _ = write!(out, "\\u{{{:X}}}", u32::from(c));
            }
            // Allowed but "discouraged" (DEL and the C1 controls), line separators and bidi
            // controls: as references, so no terminal acts on them when the report is
            // printed.
            c if crate::util::text::is_unsafe(c) => {
                let _ = write!(out, "&#x{:X};", u32::from(c));
            }
            c => out.push(c),
        }
    }
    out
}

/// The text of a finding's `<failure>`: where, what, the help and the API server's answer.
fn body(f: &Finding) -> String {
    let (start, _) = f.range();
    let mut text = format!(
        "{}:{}:{}: {}[{}] {}",
        f.file, start.line, start.column, f.severity, f.rule, f.message
    );
    if let Some(cluster) = &f.cluster {
        let _ = write!(text, " (cluster `{cluster}`)");
    }
    super::push_help_and_api(&mut text, f);
    super::push_related(&mut text, f);
    text
}

/// The file without its extension, as a JUnit class name.
fn classname(file: &str) -> &str {
    let name_at = file.rfind(['/', '\\']).map_or(0, |i| i + 1);
    match file[name_at..].rfind('.') {
        Some(dot) if dot > 0 => &file[..name_at + dot],
        _ => file,
    }
}

fn testcase(f: &Finding) -> String {
    let (start, _) = f.range();
    let file = escape(&f.file);
    format!(
        "    <testcase name=\"{rule} at {file}:{line}:{col}\" classname=\"{class}\" file=\"{file}\" line=\"{line}\">\n      <failure message=\"{msg}\" type=\"{sev}\">{body}</failure>\n    </testcase>\n",
        class = escape(classname(&f.file)),
        rule = f.rule,
        line = start.line,
        col = start.column,
        msg = escape(&f.message),
        sev = f.severity,
        body = escape(&body(f)),
    )
}

/// Writes one file's test suite.
fn suite(out: &mut dyn Write, file: &str, cases: &str, count: usize) -> io::Result<()> {
    writeln!(
        out,
        "  <testsuite name=\"{file}\" tests=\"{count}\" failures=\"{count}\" errors=\"0\" skipped=\"0\">",
        file = escape(file)
    )?;
    out.write_all(cases.as_bytes())?;
    writeln!(out, "  </testsuite>")
}

pub(super) fn write(
    findings: &dyn FindingSource,
    summary: &Summary,
    out: &mut dyn Write,
) -> io::Result<()> {
    let total = summary.errors + summary.warnings + summary.infos;
    writeln!(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>")?;
    if total == 0 {
        // One test case, so a CI that requires results gets one; skipped when nothing was
        // linted at all, which is not a pass.
        let skip = format!("\n      <skipped message=\"{}\"/>\n    ", super::NO_FILES);
        let (name, inner) = if summary.files == 0 {
            (super::NO_FILES, skip.as_str())
        } else {
            ("no findings", "")
        };
        let skipped = usize::from(summary.files == 0);
        writeln!(
            out,
            "<testsuites name=\"taintlint\" tests=\"1\" failures=\"0\" errors=\"0\" skipped=\"{skipped}\">"
        )?;
        writeln!(
            out,
            "  <testsuite name=\"taintlint\" tests=\"1\" failures=\"0\" errors=\"0\" skipped=\"{skipped}\">"
        )?;
        writeln!(
            out,
            "    <testcase name=\"{name}\" classname=\"taintlint\">{inner}</testcase>"
        )?;
        writeln!(
            out,
            "    <system-out>{}</system-out>",
            escape(&summary.line())
        )?;
        writeln!(out, "  </testsuite>")?;
        return writeln!(out, "</testsuites>");
    }
    writeln!(
        out,
        "<testsuites name=\"taintlint\" tests=\"{total}\" failures=\"{total}\" errors=\"0\" skipped=\"0\">"
    )?;
    // Findings come sorted by file: a suite is written when its file's findings end.
    let mut current: Option<(String, String, usize)> = None;
    findings.each(&mut |f| {
        if let Some((file, cases, count)) = &mut current {
            if **file == *f.file {
                cases.push_str(&testcase(f));
                *count += 1;
                return Ok(());
            }
            suite(out, file, cases, *count)?;
        }
        current = Some((f.file.to_string(), testcase(f), 1));
        Ok(())
    })?;
    if let Some((file, cases, count)) = &current {
        suite(out, file, cases, *count)?;
    }
    writeln!(out, "</testsuites>")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_markup_breaks_and_forbidden_controls() {
        assert_eq!(
            escape("a<b>&\"c'\n\r\t"),
            "a&lt;b&gt;&amp;&quot;c&apos;&#10;&#13;&#9;"
        );
        assert_eq!(escape("\u{1b}[31m\0x"), "\\u{1B}[31m\\u{0}x");
        assert_eq!(escape("\u{7f}\u{85}\u{ffff}é"), "&#x7F;&#x85;\\u{FFFF}é");
        assert_eq!(escape("\u{2028}\u{202e}"), "&#x2028;&#x202E;");
    }

    /// No hostile string leaves a character XML forbids or a terminal acts on, and each
    /// reads back (references decoded) as itself where XML can hold it.
    #[test]
    fn hostile_text_is_inert_xml() {
        for h in crate::util::text::HOSTILE {
            let e = escape(h);
            assert!(
                !e.chars().any(crate::util::text::is_unsafe),
                "{h:?} -> {e:?}"
            );
            assert!(!e.contains(['<', '>', '"', '\'']), "{h:?} -> {e:?}");
        }
    }

    #[test]
    fn class_names_drop_the_extension_only() {
        assert_eq!(classname("k8s/web.yaml"), "k8s/web");
        assert_eq!(classname("k8s.d/web"), "k8s.d/web");
        assert_eq!(classname("a.b/.hidden"), "a.b/.hidden");
        assert_eq!(classname("<stdin>"), "<stdin>");
        assert_eq!(classname("c\\x.v2.yml"), "c\\x.v2");
    }
}
