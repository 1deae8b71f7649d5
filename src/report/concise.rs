//! `--format concise`: `path:line:col: severity[rule] message`, one line per finding, for
//! editors and grep. The file name and message are escaped (`crate::util::text`): one finding
//! is one line, whatever the input holds.

use std::io::{self, Write};

use super::{FindingSource, Summary};
use crate::util::text::escape;

pub(super) fn write(
    findings: &dyn FindingSource,
    summary: &Summary,
    quiet: bool,
    out: &mut dyn Write,
) -> io::Result<()> {
    findings.each(&mut |f| {
        let (start, _) = f.range();
        let line = format!(
            "{}:{}:{}: {}[{}] {}",
            escape(&f.file),
            start.line,
            start.column,
            f.severity,
            f.rule,
            escape(&f.message)
        );
        // A file named `::add-mask::x.yaml` must not start a command.
        writeln!(out, "{}", crate::util::text::guard_line_starts(&line))
    })?;
    if !quiet {
        writeln!(out, "{}", summary.line())?;
    }
    Ok(())
}
