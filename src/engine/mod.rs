//! The engine: one way to run taintlint over a set of inputs.
//!
//! `file` lints one input (read → parse → model → per-object rules) and gives a
//! [`FileReport`]; `run` lints every input in parallel, keeps what the cross-reference needs
//! (node declarations, what workloads select on,
//! Kueue's queues and flavors), keeps or spills each report within the
//! run's budget (`store`, `index`), then works file by file in output order: cross-reference
//! rules, suppressions, ignores, the baseline, sorting. `--fix`, `explain` and `matrix` run
//! the same engine with an unlimited budget.

mod admission;
mod charts;
mod encoding;
mod file;
mod fixtures;
mod folds;
mod index;
mod options;
mod panic;
pub mod run;
mod signs;
pub mod store;
mod templates;
mod terraform;

pub use file::{FileReport, lint_one, lint_source};
pub use fixtures::is_fixture;
pub use options::{Cluster, Input, LintOptions, PerFileIgnores};
pub use panic::install_panic_hook;
pub use run::{SpilledFindings as Findings, View};
pub use terraform::{TerraformFile, workspace_pools};

use crate::baseline::Known;
use crate::diagnostic::Finding;

/// What a run gives: its findings (kept or spilled, read back by the reporters), its counts,
/// and, when asked for, its [`View`].
pub struct Outcome {
    pub findings: Findings,
    /// Inputs linted (not counting `--inventory` files).
    pub files: usize,
    pub documents: usize,
    pub objects: usize,
    pub view: Option<View>,
}

/// A run's failure: results it set aside could not be read back.
#[derive(Debug)]
pub struct EngineError(pub store::StoreError);

impl std::fmt::Display for EngineError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "cannot read back this run's spilled results: {}", self.0)
    }
}

impl std::error::Error for EngineError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.0)
    }
}

/// What a run is asked for besides its inputs.
#[derive(Default)]
pub struct Job {
    /// `--inventory` files: their node pools count, their workloads are not linted.
    pub inventory: Vec<Input>,
    /// A cluster's own `inventory:` files, by cluster (see `LintOptions::clusters`).
    pub cluster_inventory: Vec<(usize, Input)>,
    /// The clusters whose files to lint (`--cluster`); empty: all.
    pub only: Vec<usize>,
    /// The baseline: its findings are dropped.
    pub known: Option<Known>,
    /// Keep every workload and return the [`View`] (`explain`, `matrix`).
    pub view: bool,
}

/// The run: lints `inputs` (an iterator that may still be walking) in parallel on the current
/// rayon pool, then the cross-reference, suppressions, ignores and the baseline, file by
/// file in output order. `late` gives findings known only once every input was seen (the
/// configuration's unmatched globs).
pub fn run(
    inputs: impl Iterator<Item = Input> + Send,
    job: Job,
    opts: &LintOptions,
    late: impl FnOnce() -> Vec<Finding>,
) -> Result<Outcome, EngineError> {
    let t = std::time::Instant::now();
    let inventory = job
        .inventory
        .into_iter()
        .map(|i| (None, i))
        .chain(job.cluster_inventory.into_iter().map(|(c, i)| (Some(c), i)))
        .collect();
    // The view is of one cluster: the one asked for, else the default.
    let view_slot = match job.only.as_slice() {
        [one] => *one,
        _ => opts.clusters.len(),
    };
    let spilled = run::lint_spilled(inputs, inventory, &job.only, opts);
    timing("walk and per-file lint", t.elapsed());
    let (files, documents, objects) = (spilled.files, spilled.documents, spilled.objects);
    let late = late();
    let t = std::time::Instant::now();
    let (findings, view) = run::finish_spilled(spilled, opts, late, job.known, job.view, view_slot)
        .map_err(EngineError)?;
    timing("finish (cross-reference, suppressions, sort)", t.elapsed());
    Ok(Outcome {
        findings,
        files,
        documents,
        objects,
        view,
    })
}

/// A run with everything kept in memory (see [`lint_inputs`]).
pub struct Linted {
    pub findings: Vec<Finding>,
    pub files: usize,
    pub documents: usize,
    pub objects: usize,
    pub view: View,
}

/// Lints these inputs with everything kept in memory and returns the findings as a vector
/// with the run's view: the engine's one run, for tests, fuzzers and tools that want the
/// whole result at hand.
pub fn lint_inputs(inputs: Vec<Input>, opts: &LintOptions) -> Result<Linted, EngineError> {
    let opts = LintOptions {
        budget: store::UNLIMITED,
        ..opts.clone()
    };
    let job = Job {
        view: true,
        ..Job::default()
    };
    let outcome = run(inputs.into_iter(), job, &opts, Vec::new)?;
    let findings = outcome
        .findings
        .to_vec()
        .map_err(|e| EngineError(store::StoreError::Read(e)))?;
    let view = outcome.view.ok_or(EngineError(store::StoreError::Corrupt(
        "the run kept no view",
    )))?;
    Ok(Linted {
        findings,
        files: outcome.files,
        documents: outcome.documents,
        objects: outcome.objects,
        view,
    })
}

/// [`lint_inputs`] of one text, named `name`.
pub fn lint_text(name: &str, text: &str, opts: &LintOptions) -> Result<Linted, EngineError> {
    let input = Input::Text {
        name: name.to_string(),
        text: Ok(text.to_string()),
    };
    lint_inputs(vec![input], opts)
}

/// Phase timings on stderr when `TAINTLINT_TIMING` is set (for the benchmark, never in tests).
pub fn timing(what: &str, d: std::time::Duration) {
    if std::env::var_os("TAINTLINT_TIMING").is_some() {
        // Memory so far (Linux): current and peak resident set, for the benchmark.
        let mem = std::fs::read_to_string("/proc/self/status")
            .map(|s| {
                s.lines()
                    .filter(|l| l.starts_with("VmRSS") || l.starts_with("VmHWM"))
                    .map(|l| l.split_whitespace().take(2).collect::<Vec<_>>().join(" "))
                    .collect::<Vec<_>>()
                    .join(", ")
            })
            .unwrap_or_default();
        eprintln!("timing: {what}: {:.3}s ({mem})", d.as_secs_f64());
    }
}
