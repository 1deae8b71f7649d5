//! `taintlint explain`: why one workload can or cannot run on each node pool.

use std::io::Write;

use super::{ExitStatus, ToolError, io_err, run_view};
use crate::cli::ExplainArgs;
use crate::report::explain;

pub fn explain(args: &ExplainArgs, out: &mut dyn Write) -> Result<ExitStatus, ToolError> {
    let (view, opts) = run_view(&args.input)?;
    // Each cluster inferred from the files has its own view (see `engine::Placement`): the
    // workload is explained in the one it lies in.
    let mut text = String::new();
    let mut first_error = None;
    let total: usize = std::iter::once(&view)
        .chain(&view.clusters)
        .map(|v| v.workloads.len())
        .sum();
    if args.workload.is_none() && args.at.is_none() && total > 1 && !view.clusters.is_empty() {
        return Err(ToolError(format!(
            "name the workload to explain with --workload KIND/NAMESPACE/NAME or --at FILE:LINE ({total} workloads found; `taintlint matrix` lists them all)"
        )));
    }
    for part in std::iter::once(&view).chain(&view.clusters) {
        match explain::select(part, args.workload.as_deref(), args.at.as_deref()) {
            Ok(chosen) if !chosen.is_empty() => {
                if !text.is_empty() {
                    text.push('\n');
                }
                text.push_str(&explain::render(
                    part,
                    &chosen,
                    opts.settings.comparison_operators,
                ));
            }
            Ok(_) => {}
            Err(e) => {
                first_error.get_or_insert(e);
            }
        }
    }
    if text.is_empty()
        && let Some(e) = first_error
    {
        return Err(ToolError(e));
    }
    // Names and values from the input: no terminal sequence or line of their own.
    let text = crate::util::text::escape_keep_lines(&text);
    out.write_all(text.as_bytes()).map_err(io_err)?;
    Ok(ExitStatus::Clean)
}
