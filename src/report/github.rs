//! `--format github`: GitHub Actions workflow commands, which GitHub turns into annotations
//! on the pull request (`::error file=…,line=…,endLine=…,col=…,endColumn=…,title=…::msg`).

use std::io::{self, Write};

use crate::diagnostic::{Finding, Severity};
use crate::util::text::escape;

use super::{FindingSource, Summary};

/// A command's message as the runner decodes it: every character `util::text` calls unsafe
/// but LF escaped as the terminal formats escape it (`\e`, `\r`, `\u{202e}`, …: the step log
/// is a terminal for whoever reads it raw), then `%` and LF encoded as the actions toolkit
/// encodes them (`%25`, `%0A`). LF is kept for the tool's own line breaks (help, the API
/// server's answer): input text is put in through [`escape`] first, so none of its own.
pub fn escape_data(s: &str) -> String {
    let visible = crate::util::text::escape_but_lf(s);
    let mut out = String::with_capacity(visible.len() + 8);
    for c in visible.chars() {
        match c {
            '%' => out.push_str("%25"),
            '\n' => out.push_str("%0A"),
            c => out.push(c),
        }
    }
    out
}

/// Escaping of a property value: [`escape_data`], and `:` and `,`, which end a property.
pub fn escape_property(s: &str) -> String {
    escape_data(s).replace(':', "%3A").replace(',', "%2C")
}

/// The help and the API server's answer after the message, each on a line of its own, the
/// input text in them escaped.
fn push_help_and_api(text: &mut String, f: &Finding) {
    if let Some(h) = &f.help {
        text.push_str("\nhelp: ");
        text.push_str(&escape(h));
    }
    if let Some(api) = &f.api_error {
        text.push_str("\nAPI server: ");
        text.push_str(&escape(api));
    }
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
        // does not repeat it. Input text is escaped as the terminal formats escape it.
        let mut message = escape(&f.message).into_owned();
        push_help_and_api(&mut message, f);
        let mut props = vec![format!("file={}", escape_property(&escape(&f.file)))];
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
        assert_eq!(escape_data("50% a\nb"), "50%25 a%0Ab");
        assert_eq!(escape_property("a:b,c%"), "a%3Ab%2Cc%25");
    }

    /// Whatever the text, a command is one line of printable text: no control character,
    /// separator or bidi control reaches the log, and the runner's decoding (`%0A` back to
    /// a line break) gives no line that starts a command.
    #[test]
    fn hostile_text_stays_one_inert_command() {
        for h in crate::util::text::HOSTILE {
            let t = format!("a{h}b");
            for e in [escape_data(&escape(&t)), escape_property(&escape(&t))] {
                assert!(
                    !e.chars().any(crate::util::text::is_unsafe),
                    "{t:?} -> {e:?}"
                );
                let decoded = e
                    .replace("%0A", "\n")
                    .replace("%0D", "\r")
                    .replace("%3A", ":")
                    .replace("%2C", ",")
                    .replace("%25", "%");
                assert!(!decoded.contains(['\n', '\r']), "{t:?} -> {decoded:?}");
            }
        }
        // A CR of the input is shown, not encoded as a break the runner would decode.
        assert_eq!(escape_data("a\rb"), "a\\rb");
    }
}
