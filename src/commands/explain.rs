//! `taintlint explain`: why one workload can or cannot run on each node pool.

use std::io::Write;

use super::{ExitStatus, ToolError, io_err, run_view};
use crate::cli::ExplainArgs;
use crate::report::explain;

pub fn explain(args: &ExplainArgs, out: &mut dyn Write) -> Result<ExitStatus, ToolError> {
    let (view, opts) = run_view(&args.input)?;
    let chosen =
        explain::select(&view, args.workload.as_deref(), args.at.as_deref()).map_err(ToolError)?;
    let text = explain::render(&view, &chosen, opts.settings.comparison_operators);
    // Names and values from the input: no terminal sequence or line of their own.
    let text = crate::util::text::escape_keep_lines(&text);
    out.write_all(text.as_bytes()).map_err(io_err)?;
    Ok(ExitStatus::Clean)
}
