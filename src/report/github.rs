//! `--format github`: GitHub Actions workflow commands, which GitHub turns into annotations
//! on the pull request (`::error file=…,line=…,endLine=…,col=…,endColumn=…,title=…::msg`).

use std::io::{self, Write};

use crate::diagnostic::{Finding, Severity};

use super::{FindingSource, Summary};

/// Escaping of a command's message (`%`, CR, LF).
pub fn escape_data(s: &str) -> String {
    s.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// Escaping of a property value (also `:` and `,`).
pub fn escape_property(s: &str) -> String {
    escape_data(s).replace(':', "%3A").replace(',', "%2C")
}

pub fn write(
    findings: &dyn FindingSource,
    summary: &Summary,
    out: &mut dyn Write,
) -> io::Result<()> {
    if summary.files == 0 {
        writeln!(out, "::warning title=taintlint::{}", super::NO_FILES)?;
    }
    findings.each(&mut |f: &Finding| {
        let level = match f.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Info => "notice",
        };
        let (start, end) = f.range();
        // The place is in the properties (GitHub shows it with the annotation): the message
        // does not repeat it.
        let mut message = f.message.clone();
        super::push_help_and_api(&mut message, f);
        let mut props = vec![format!("file={}", escape_property(&f.file))];
        if f.primary.is_some() {
            props.push(format!("line={}", start.line));
            props.push(format!("endLine={}", end.line));
            props.push(format!("col={}", start.column));
            props.push(format!("endColumn={}", end.column));
        }
        props.push(format!("title={}", escape_property(f.rule)));
        writeln!(
            out,
            "::{level} {}::{}",
            props.join(","),
            escape_data(&message)
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_like_the_actions_toolkit() {
        assert_eq!(escape_data("50% a\r\nb"), "50%25 a%0D%0Ab");
        assert_eq!(escape_property("a:b,c%"), "a%3Ab%2Cc%25");
    }
}
