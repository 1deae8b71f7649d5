//! `--format concise`: `path:line:col: severity[rule] message`, one line per finding, for
//! editors and grep.

use std::io::{self, Write};

use super::{FindingSource, Summary};

pub(super) fn write(
    findings: &dyn FindingSource,
    summary: &Summary,
    quiet: bool,
    out: &mut dyn Write,
) -> io::Result<()> {
    findings.each(&mut |f| {
        let (start, _) = f.range();
        writeln!(
            out,
            "{}:{}:{}: {}[{}] {}",
            f.file, start.line, start.column, f.severity, f.rule, f.message
        )
    })?;
    if !quiet {
        writeln!(out, "{}", summary.line())?;
    }
    Ok(())
}
