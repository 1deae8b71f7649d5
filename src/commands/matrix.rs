//! `taintlint matrix`: every workload against every node pool.

use std::io::Write;

use super::{ExitStatus, ToolError, io_err, run_view};
use crate::cli::{MatrixArgs, MatrixFormat};
use crate::report::matrix::{self, Style};

pub fn matrix(args: &MatrixArgs, out: &mut dyn Write) -> Result<ExitStatus, ToolError> {
    let (view, opts) = run_view(&args.input)?;
    let style = match args.format {
        MatrixFormat::Table => Style::Table,
        MatrixFormat::Markdown => Style::Markdown,
        MatrixFormat::Mermaid => Style::Mermaid,
        MatrixFormat::Json => Style::Json,
    };
    let text = matrix::render(&view, style, opts.settings.comparison_operators);
    // Names and values from the input: no terminal sequence or line of their own.
    out.write_all(crate::util::text::escape_keep_lines(&text).as_bytes())
        .map_err(io_err)?;
    Ok(ExitStatus::Clean)
}
