//! `taintlint explain`: why one workload can or cannot run on each node pool.

use std::io::Write;

use super::{ExitStatus, Gathered, ToolError, io_err, lint_options, load_config, run_engine};
use crate::cli::ExplainArgs;
use crate::engine::{Job, store};
use crate::report::explain;

pub fn explain(args: &ExplainArgs, out: &mut dyn Write) -> Result<ExitStatus, ToolError> {
    let cfg = load_config(&args.input)?;
    let mut opts = lint_options(&args.input, &[], &[], &cfg)?;
    // Every workload is shown: the run keeps them all.
    opts.budget = store::UNLIMITED;
    let mut gathered = Gathered::new(&args.input, &cfg)?;
    let job = Job {
        view: true,
        ..Job::default()
    };
    let run = run_engine(&mut gathered, &args.input, &opts, &cfg, job)?;
    let view = run
        .view
        .ok_or_else(|| ToolError("the run kept no workloads".to_string()))?;
    let chosen =
        explain::select(&view, args.workload.as_deref(), args.at.as_deref()).map_err(ToolError)?;
    let text = explain::render(&view, &chosen, opts.settings.comparison_operators);
    out.write_all(text.as_bytes()).map_err(io_err)?;
    Ok(ExitStatus::Clean)
}
