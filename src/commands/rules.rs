//! `taintlint rules` (the table of rules) and `taintlint rule NAME` (one rule's page).

use std::io::{self, Write};

use super::{ExitStatus, ToolError, io_err};
use crate::rules::{self, RULES};

pub fn list(out: &mut dyn Write) -> Result<ExitStatus, ToolError> {
    write_list(out).map_err(io_err)?;
    Ok(ExitStatus::Clean)
}

fn write_list(out: &mut dyn Write) -> io::Result<()> {
    let width = RULES.iter().map(|r| r.meta.name.len()).max().unwrap_or(0);
    writeln!(
        out,
        "{:width$}  {:8}  {:12}  SUMMARY",
        "RULE", "SEVERITY", "CATEGORY"
    )?;
    for r in RULES {
        let sev = if r.meta.enabled {
            r.meta.severity.as_str().to_string()
        } else {
            "off".to_string()
        };
        writeln!(
            out,
            "{:width$}  {:8}  {:12}  {}",
            r.meta.name,
            sev,
            r.meta.category.as_str(),
            r.meta.summary
        )?;
    }
    Ok(())
}

pub fn show(name: &str, out: &mut dyn Write) -> Result<ExitStatus, ToolError> {
    match rules::find(name) {
        Some(rule) => {
            out.write_all(rule.meta.docs.as_bytes()).map_err(io_err)?;
            Ok(ExitStatus::Clean)
        }
        None => Err(ToolError(rules::unknown_rule_message(name))),
    }
}
