//! taintlint: a static analyzer for Kubernetes scheduling policy.
//!
//! The modules are the pipeline, each using only those above it (a test keeps it so):
//!
//! - `util`: edit distance, interning, the atomic file writer;
//! - `load`: walking, reading, standard input, YAML with spans (`yaml`, the fast builder
//!   `fast_yaml`, `prescan`), YAML 1.1 values (`yaml11`), sources and positions, the record
//!   codec;
//! - `diagnostic`: findings, severities, fixes, fingerprints;
//! - `settings`: the Kubernetes version, feature gates and policies a run assumes;
//! - `model`: objects, pod specs, tolerations and taints found in documents;
//! - `analysis`: the Kubernetes semantics rules rest on (validation, matching, node pools and
//!   workloads, the cross-reference's inventory and verdicts; in layers: `semantics`, `types`,
//!   `sources`, `judgements`);
//! - `fix`: edits of YAML text;
//! - `rules`: one file per rule, the registry, rule selection;
//! - `suppress`, `config`, `baseline`: what a user says to leave out or change;
//! - `engine`: the one way a run goes, per file and then per run, in bounded memory;
//! - `report`: the output formats and the `explain`/`matrix` views;
//! - `cli`, `commands`: the command line and what each command does;
//! - `server`: `taintlint server`, the language server (the commands' config and workspace,
//!   the engine's lint of one unsaved buffer).

pub mod analysis;
pub mod baseline;
pub mod cli;
pub mod commands;
pub mod config;
pub mod diagnostic;
pub mod engine;
pub mod fix;
pub mod load;
pub mod model;
pub mod report;
pub mod rules;
pub mod server;
pub mod settings;
pub mod suppress;
pub mod util;

use std::io::Write;

pub use commands::{
    ExitStatus, Gathered, ToolError, lint_options, load_config, options_from_config, pair_outputs,
};

use crate::cli::{Cli, Command, ConfigCommand};

/// Runs the command the command line asks for, writing its output to `out`.
pub fn run(cli: Cli, out: &mut dyn Write) -> Result<ExitStatus, ToolError> {
    match cli.command {
        Command::Check(mut args) => {
            commands::default_paths(&mut args.input);
            commands::check(&args, out)
        }
        Command::Explain(mut args) => {
            commands::default_paths(&mut args.input);
            commands::explain(&args, out)
        }
        Command::Matrix(mut args) => {
            commands::default_paths(&mut args.input);
            commands::matrix(&args, out)
        }
        Command::Rules => commands::list_rules(out),
        Command::Rule { name } => commands::show_rule(&name, out),
        Command::Config(ConfigCommand::Init { path, force }) => {
            commands::config_init(&path, force, out)
        }
        // The protocol goes to the process's standard output, not `out`.
        Command::Server { debounce_ms } => server::run(&server::Options {
            debounce: std::time::Duration::from_millis(debounce_ms),
        }),
        Command::Completions { shell } => {
            let mut cmd = <Cli as clap::CommandFactory>::command();
            clap_complete::generate(shell, &mut cmd, "taintlint", out);
            Ok(ExitStatus::Clean)
        }
    }
}
