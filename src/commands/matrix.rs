//! `taintlint matrix`: every workload against every node pool.

use std::io::Write;

use super::{ExitStatus, Gathered, ToolError, io_err, lint_options, load_config, run_engine};
use crate::cli::{MatrixArgs, MatrixFormat};
use crate::engine::{Job, store};
use crate::report::matrix::{self, Style};

pub fn matrix(args: &MatrixArgs, out: &mut dyn Write) -> Result<ExitStatus, ToolError> {
    let cfg = load_config(&args.input)?;
    let mut opts = lint_options(&args.input, &[], &[], &cfg)?;
    // Every workload is a row: the run keeps them all.
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
    let style = match args.format {
        MatrixFormat::Table => Style::Table,
        MatrixFormat::Markdown => Style::Markdown,
        MatrixFormat::Mermaid => Style::Mermaid,
    };
    out.write_all(matrix::render(&view, style).as_bytes())
        .map_err(io_err)?;
    Ok(ExitStatus::Clean)
}
