//! taintlint: a static analyzer for Kubernetes scheduling policy.
//!
//! The pipeline is visible in the modules: `load` (walk, read, parse YAML with spans) →
//! `model` (objects, pod specs, tolerations, taints) → `rules` + `analysis` (checks and the
//! Kubernetes semantics they rest on) → `report` (human, JSON).

pub mod analysis;
pub mod baseline;
pub mod cli;
pub mod config;
pub mod diagnostic;
pub mod fix;
pub mod lint;
pub mod load;
pub mod model;
pub mod report;
pub mod rules;
pub mod settings;
pub mod spill;
pub mod streamed;
pub mod suppress;
pub mod util;

use std::collections::BTreeMap;
use std::io::{self, IsTerminal, Write};

use crate::cli::{CheckArgs, Cli, ColorChoice, Command, FailOn, InputArgs};
use crate::diagnostic::Severity;
use crate::lint::{Input, LintOptions};
use crate::load::walk::{self, WalkOptions};
use crate::report::{HumanOptions, Summary};
use crate::rules::{RULES, RuleSet};
use crate::settings::Settings;

/// How a run ended; `main` maps it to the process exit code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExitStatus {
    /// Nothing at or above `--fail-on`.
    Clean = 0,
    /// Findings at or above `--fail-on`.
    Findings = 1,
    /// The tool could not do what was asked (bad flag, missing path, unusable config).
    Error = 2,
}

/// A failure that stops the run (exit 2).
#[derive(Debug)]
pub struct ToolError(pub String);

impl std::fmt::Display for ToolError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

pub fn run(cli: Cli, out: &mut dyn Write) -> Result<ExitStatus, ToolError> {
    match cli.command {
        Command::Check(args) => check(&args, out),
        Command::Explain(args) => report::explain::run(&args, out),
        Command::Matrix(args) => report::matrix::run(&args, out),
        Command::Rules => {
            list_rules(out).map_err(io_err)?;
            Ok(ExitStatus::Clean)
        }
        Command::Config(cli::ConfigCommand::Init { path, force }) => config_init(&path, force, out),
        Command::Completions { shell } => {
            let mut cmd = <Cli as clap::CommandFactory>::command();
            clap_complete::generate(shell, &mut cmd, "taintlint", out);
            Ok(ExitStatus::Clean)
        }
        Command::Rule { name } => match rules::find(&name) {
            Some(rule) => {
                out.write_all(rule.meta.docs.as_bytes()).map_err(io_err)?;
                Ok(ExitStatus::Clean)
            }
            None => Err(ToolError(rules::unknown_rule_message(&name))),
        },
    }
}

fn config_init(
    path: &std::path::Path,
    force: bool,
    out: &mut dyn Write,
) -> Result<ExitStatus, ToolError> {
    if path.as_os_str() == "-" {
        out.write_all(config::DEFAULT_CONFIG.as_bytes())
            .map_err(io_err)?;
        return Ok(ExitStatus::Clean);
    }
    if path.exists() && !force {
        return Err(ToolError(format!(
            "{} already exists (use --force to overwrite)",
            path.display()
        )));
    }
    util::fs::write_atomic(path, config::DEFAULT_CONFIG.as_bytes())
        .map_err(|e| ToolError(format!("cannot write {}: {e}", path.display())))?;
    eprintln!("taintlint: wrote {}", path.display());
    Ok(ExitStatus::Clean)
}

fn io_err(e: io::Error) -> ToolError {
    ToolError(e.to_string())
}

fn list_rules(out: &mut dyn Write) -> io::Result<()> {
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

/// Runs with at least this many files show a progress bar (on a terminal).
const PROGRESS_MIN_FILES: usize = 500;

/// Finds and loads the config the input flags ask for.
pub fn load_config(input: &InputArgs) -> Result<config::Config, ToolError> {
    if input.isolated {
        return Ok(config::Config::default());
    }
    let path = match &input.config {
        Some(p) => {
            if !p.is_file() {
                return Err(ToolError(format!(
                    "config file {} does not exist",
                    p.display()
                )));
            }
            Some(p.clone())
        }
        None => config::discover(std::path::Path::new(".")),
    };
    match path {
        Some(p) => config::load(&p).map_err(ToolError),
        None => Ok(config::Config::default()),
    }
}

/// Builds the options a run needs from its arguments and the config.
pub fn lint_options(
    input: &InputArgs,
    select: &[String],
    ignore: &[String],
    cfg: &config::Config,
) -> Result<LintOptions, ToolError> {
    let mut opts = options_from_config(
        cfg,
        input.kube_version.as_deref(),
        input.feature_gates.as_deref(),
        select,
        ignore,
    )?;
    opts.max_file_size = input.max_file_size;
    opts.keep_sources = false;
    opts.fast = !input.full_parse;
    for p in &input.policy {
        let pc = config::load(p).map_err(ToolError)?;
        opts.settings.policies.extend(pc.policies);
        opts.config_findings.extend(pc.findings);
    }
    Ok(opts)
}

/// Options from a config plus the command-line values that override it.
pub fn options_from_config(
    cfg: &config::Config,
    kube_version: Option<&str>,
    feature_gates: Option<&str>,
    select: &[String],
    ignore: &[String],
) -> Result<LintOptions, ToolError> {
    let version = kube_version
        .or(cfg.kube_version.as_deref())
        .unwrap_or("1.35");
    let mut settings = Settings {
        minor: Settings::parse_version(version).map_err(ToolError)?,
        ..Settings::default()
    };
    if let Some(g) = &cfg.feature_gates {
        settings.apply_feature_gates(g).map_err(ToolError)?;
    }
    if let Some(g) = feature_gates {
        settings.apply_feature_gates(g).map_err(ToolError)?;
    }
    settings
        .dedicated_exempt_keys
        .clone_from(&cfg.dedicated_exempt_keys);
    settings.policies.clone_from(&cfg.policies);
    settings.workload_kinds.clone_from(&cfg.workload_kinds);
    let mut rules = RuleSet::resolve(select, ignore).map_err(ToolError)?;
    rules.configure(&cfg.rules, select, ignore);
    let per_file_ignores = cfg
        .per_file_ignores
        .iter()
        .filter_map(|(g, r, _)| Some((globset::Glob::new(g).ok()?.compile_matcher(), r.clone())))
        .collect();
    Ok(LintOptions {
        rules,
        settings,
        extra_nodes: cfg.inline_pools.clone(),
        config_findings: cfg.findings.clone(),
        per_file_ignores,
        ..LintOptions::default()
    })
}

/// The inputs of a run, gathered once: `--fix` lints them again after each round of fixes.
pub struct Gathered {
    /// Standard input's parts, then the walked files (unless they are left in `walk`).
    pub inputs: Vec<Input>,
    /// The files still to be walked, for a streamed run ([`gather_streamed`]).
    walk: Option<walk::Walk>,
    pub inventory_paths: Vec<std::path::PathBuf>,
    walk_opts: WalkOptions,
}

/// Walks the paths and reads standard input.
pub fn gather_inputs(input: &InputArgs, cfg: &config::Config) -> Result<Gathered, ToolError> {
    let mut gathered = gather_streamed(input, cfg)?;
    let t = std::time::Instant::now();
    if let Some(walk) = gathered.walk.take() {
        gathered.inputs.extend(walk.map(Input::Entry));
    }
    lint::timing("walk", t.elapsed());
    Ok(gathered)
}

/// Reads standard input and checks the paths, leaving the walk itself to the run: a
/// streamed run lints files as they are found and keeps no list of them.
pub fn gather_streamed(input: &InputArgs, cfg: &config::Config) -> Result<Gathered, ToolError> {
    let mut exclude = input.exclude.clone();
    exclude.extend(cfg.exclude.iter().cloned());
    let walk_opts =
        WalkOptions::new(&input.include, &exclude, input.follow_links).map_err(ToolError)?;
    let mut inputs = Vec::new();
    let file_paths: Vec<_> = input
        .paths
        .iter()
        .filter(|p| p.as_os_str() != "-")
        .cloned()
        .collect();
    if input.paths.iter().any(|p| p.as_os_str() == "-") {
        let name = input
            .stdin_filename
            .clone()
            .unwrap_or_else(|| "<stdin>".to_string());
        match load::stdin::read(input.max_file_size) {
            Ok(text) => inputs.extend(
                load::stdin::name_documents(
                    input.stdin_filename.as_deref(),
                    input.source_root.as_deref(),
                    text,
                )
                .into_iter()
                .map(|(name, text)| Input::Text {
                    name,
                    text: Ok(text),
                }),
            ),
            Err(e) => inputs.push(Input::Text { name, text: Err(e) }),
        }
    }
    let walk = walk::stream(&file_paths, &walk_opts).map_err(ToolError)?;
    let mut inventory_paths = input.inventory.clone();
    inventory_paths.extend(cfg.inventory_files.iter().filter(|p| p.exists()).cloned());
    Ok(Gathered {
        inputs,
        walk: Some(walk),
        inventory_paths,
        walk_opts,
    })
}

/// What both ways of linting gathered inputs set up: the `--inventory` inputs, the options
/// (with a progress bar where a person watches) and the worker threads.
struct Prepared {
    inventory_inputs: Vec<Input>,
    opts: LintOptions,
    pool: rayon::ThreadPool,
}

/// `files`: how many inputs there are, `None` when they are still being walked (the progress
/// bar then grows with the walk and shows itself once the run is large enough).
fn prepare(
    files: Option<usize>,
    gathered: &Gathered,
    input: &InputArgs,
    opts: &LintOptions,
) -> Result<Prepared, ToolError> {
    let mut inventory_inputs = Vec::new();
    if !gathered.inventory_paths.is_empty() {
        for entry in
            walk::collect(&gathered.inventory_paths, &gathered.walk_opts).map_err(ToolError)?
        {
            inventory_inputs.push(Input::Entry(entry));
        }
    }
    // A progress bar only where a person watches: stderr is a terminal, not CI, many files.
    let watched = io::stderr().is_terminal() && std::env::var_os("CI").is_none();
    let mut opts = opts.clone();
    if watched && files.is_none_or(|n| n >= PROGRESS_MIN_FILES) {
        let target = if files.is_some() {
            indicatif::ProgressDrawTarget::stderr()
        } else {
            indicatif::ProgressDrawTarget::hidden()
        };
        let bar = indicatif::ProgressBar::with_draw_target(Some(files.unwrap_or(0) as u64), target);
        // Files linted as they are walked are counted: the walk stays just ahead of the
        // workers, so a bar against the files found so far would always look full.
        let template = if files.is_some() {
            "{bar:40} {pos}/{len} files {elapsed}"
        } else {
            "{spinner} {pos} files checked {elapsed}"
        };
        bar.set_style(
            indicatif::ProgressStyle::with_template(template)
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
        );
        opts.progress = Some(bar);
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(input.threads.unwrap_or(0))
        .build()
        .map_err(|e| ToolError(format!("cannot start worker threads: {e}")))?;
    Ok(Prepared {
        inventory_inputs,
        opts,
        pool,
    })
}

/// The configuration's globs that matched no input, as findings (when that rule runs).
fn unmatched_globs(
    cfg: &config::Config,
    usage: &config::GlobUsage,
    opts: &LintOptions,
) -> Vec<diagnostic::Finding> {
    if opts.rules.is_enabled(rules::INVALID_CONFIG.name) {
        cfg.unmatched_in(usage)
    } else {
        Vec::new()
    }
}

/// Lints gathered inputs (consumed) and runs the cross-reference.
pub fn lint_gathered(
    inputs: Vec<Input>,
    gathered: &Gathered,
    input: &InputArgs,
    opts: &LintOptions,
    cfg: &config::Config,
) -> Result<lint::Outcome, ToolError> {
    let Prepared {
        inventory_inputs,
        opts,
        pool,
    } = prepare(Some(inputs.len()), gathered, input, opts)?;
    let opts = &opts;
    let usage = cfg.glob_usage();
    if !usage.is_empty() {
        inputs.iter().for_each(|i| usage.see(&i.name()));
    }
    let unmatched = unmatched_globs(cfg, &usage, opts);
    let mut outcome = pool.install(|| {
        let t = std::time::Instant::now();
        let reports = lint::lint_all(inputs, opts);
        let extra = lint::lint_all(inventory_inputs, opts);
        lint::timing("per-file lint", t.elapsed());
        let t = std::time::Instant::now();
        let outcome = lint::finish(reports, extra, opts);
        lint::timing("finish (cross-reference, suppressions, sort)", t.elapsed());
        outcome
    });
    if let Some(bar) = &opts.progress {
        bar.finish_and_clear();
    }
    if !unmatched.is_empty() {
        outcome.findings.extend(unmatched);
        diagnostic::sort_findings(&mut outcome.findings);
    }
    Ok(outcome)
}

/// What a streamed run gives: the findings, read back by the reporters, and the counts.
pub struct StreamedRun {
    pub findings: streamed::SpilledFindings,
    pub files: usize,
    pub documents: usize,
    pub objects: usize,
}

/// [`lint_gathered`] in bounded memory (`streamed`): the walk goes on while files are linted
/// (no list of them is kept), each file's results are spilled as they come and the
/// cross-reference runs file by file; `known` (a baseline) filters the output.
pub fn lint_gathered_streamed(
    mut gathered: Gathered,
    input: &InputArgs,
    opts: &LintOptions,
    cfg: &config::Config,
    known: Option<baseline::Known>,
) -> Result<StreamedRun, ToolError> {
    let Prepared {
        inventory_inputs,
        opts,
        pool,
    } = prepare(None, &gathered, input, opts)?;
    let opts = &opts;
    let usage = cfg.glob_usage();
    // The bar grows with the walk and shows itself once the run has enough files.
    let growing = opts.progress.as_ref();
    let stdin = std::mem::take(&mut gathered.inputs);
    let walked = gathered.walk.take().into_iter().flatten().map(Input::Entry);
    let inputs = stdin.into_iter().chain(walked).inspect(|i| {
        if !usage.is_empty() {
            usage.see(&i.name());
        }
        if let Some(bar) = growing {
            bar.inc_length(1);
            if bar.length() == Some(PROGRESS_MIN_FILES as u64) {
                bar.set_draw_target(indicatif::ProgressDrawTarget::stderr());
            }
        }
    });
    let result = pool.install(|| {
        let t = std::time::Instant::now();
        let spilled = streamed::lint_spilled(inputs, inventory_inputs, opts);
        lint::timing("walk and per-file lint", t.elapsed());
        let (files, documents, objects) = (spilled.files, spilled.documents, spilled.objects);
        let late = unmatched_globs(cfg, &usage, opts);
        let t = std::time::Instant::now();
        let findings = streamed::finish_spilled(spilled, opts, late, known);
        lint::timing("finish (cross-reference, suppressions, sort)", t.elapsed());
        findings.map(|findings| StreamedRun {
            findings,
            files,
            documents,
            objects,
        })
    });
    if let Some(bar) = &opts.progress {
        bar.finish_and_clear();
    }
    result.map_err(|e| ToolError(format!("cannot read back this run's spilled results: {e}")))
}

/// Walks, reads and lints the inputs, then runs the cross-reference. Returns the outcome and
/// the number of files read.
pub fn lint_inputs(
    input: &InputArgs,
    opts: &LintOptions,
    cfg: &config::Config,
) -> Result<(lint::Outcome, usize), ToolError> {
    let mut gathered = gather_inputs(input, cfg)?;
    let inputs = std::mem::take(&mut gathered.inputs);
    let files = inputs.len();
    let outcome = lint_gathered(inputs, &gathered, input, opts, cfg)?;
    Ok((outcome, files))
}

fn clone_failure(f: &load::ReadFailure) -> load::ReadFailure {
    use load::ReadFailure as R;
    match f {
        R::Io(e) => R::Io(e.clone()),
        R::NotRegular(w) => R::NotRegular(w),
        R::TooLarge { size, limit } => R::TooLarge {
            size: *size,
            limit: *limit,
        },
        R::InvalidUtf8 { offset, lossy } => R::InvalidUtf8 {
            offset: *offset,
            lossy: lossy.clone(),
        },
        R::Utf16 => R::Utf16,
        R::Binary(w) => R::Binary(w),
        R::Nul { offset, text } => R::Nul {
            offset: *offset,
            text: text.clone(),
        },
    }
}

/// The inputs again, with the texts fixed so far in place of the files on disk.
fn replay(inputs: &[Input], fixed: &BTreeMap<String, FixedFile>) -> Vec<Input> {
    inputs
        .iter()
        .map(|i| match i {
            Input::Entry(walk::Entry::File(p)) => match fixed.get(&lint::display_path(p)) {
                Some(f) => Input::Text {
                    name: lint::display_path(p),
                    text: Ok(f.current.clone()),
                },
                None => Input::Entry(walk::Entry::File(p.clone())),
            },
            Input::Entry(walk::Entry::Error { path, message }) => {
                Input::Entry(walk::Entry::Error {
                    path: path.clone(),
                    message: message.clone(),
                })
            }
            Input::Text { name, text } => Input::Text {
                name: name.clone(),
                text: match text {
                    Ok(t) => Ok(t.clone()),
                    Err(e) => Err(clone_failure(e)),
                },
            },
        })
        .collect()
}

/// A file `--fix` changed: where it is, its text as read, its text now.
struct FixedFile {
    path: std::path::PathBuf,
    original: String,
    current: String,
}

/// The fixes of one file and the text they were made from.
type FileFixes<'a> = (
    &'a std::sync::Arc<load::SourceFile>,
    Vec<&'a diagnostic::Fix>,
);

/// What the fix loop produced.
struct FixRun {
    outcome: lint::Outcome,
    findings: Vec<diagnostic::Finding>,
    fixed: BTreeMap<String, FixedFile>,
    applied: usize,
}

/// Lints, applies the fixes in memory, and lints again until nothing changes (at most
/// `fix::MAX_ROUNDS` rounds). Only files on disk are fixed.
fn fix_loop(
    args: &CheckArgs,
    gathered: &Gathered,
    opts: &LintOptions,
    cfg: &config::Config,
    known: Option<&baseline::Known>,
) -> Result<FixRun, ToolError> {
    use diagnostic::Applicability;
    let on_disk: BTreeMap<String, std::path::PathBuf> = gathered
        .inputs
        .iter()
        .filter_map(|i| match i {
            Input::Entry(walk::Entry::File(p)) => Some((lint::display_path(p), p.clone())),
            _ => None,
        })
        .collect();
    let stdin_names: std::collections::BTreeSet<String> = gathered
        .inputs
        .iter()
        .filter(|i| matches!(i, Input::Text { .. }))
        .map(Input::name)
        .collect();
    let mut fixed: BTreeMap<String, FixedFile> = BTreeMap::new();
    let mut applied = 0;
    let mut round = 0;
    loop {
        let inputs = replay(&gathered.inputs, &fixed);
        let outcome = lint_gathered(inputs, gathered, &args.input, opts, cfg)?;
        let mut findings = outcome.findings.clone();
        if let Some(k) = known {
            baseline::filter(&mut findings, k.clone());
        }
        if round >= fix::MAX_ROUNDS {
            return Ok(FixRun {
                outcome,
                findings,
                fixed,
                applied,
            });
        }
        round += 1;
        // The fixes of each file on disk, with the text they were made from.
        let mut by_file: BTreeMap<&str, FileFixes<'_>> = BTreeMap::new();
        for f in &findings {
            let (Some(fix), Some(src)) = (&f.fix, &f.source) else {
                continue;
            };
            let allowed = fix.applicability == Applicability::Safe || args.unsafe_fixes;
            if !allowed
                || src.is_lite()
                || src.name != f.file
                || !on_disk.contains_key(&*f.file)
                || stdin_names.contains(&*f.file)
            {
                continue;
            }
            let entry = by_file.entry(&f.file).or_insert((src, Vec::new()));
            // Every fix of a file must be made from the same text.
            if std::sync::Arc::ptr_eq(entry.0, src) {
                entry.1.push(fix);
            }
        }
        let mut changed = false;
        for (name, (src, fixes)) in by_file {
            let (text, n) = fix::apply(&src.text, &fixes);
            if n == 0 || text == src.text {
                continue;
            }
            applied += n;
            changed = true;
            match fixed.get_mut(name) {
                Some(f) => f.current = text,
                None => {
                    let path = on_disk.get(name).cloned().unwrap_or_default();
                    fixed.insert(
                        name.to_string(),
                        FixedFile {
                            path,
                            original: src.text.clone(),
                            current: text,
                        },
                    );
                }
            }
        }
        if !changed {
            return Ok(FixRun {
                outcome,
                findings,
                fixed,
                applied,
            });
        }
    }
}

fn check(args: &CheckArgs, out: &mut dyn Write) -> Result<ExitStatus, ToolError> {
    let cfg = load_config(&args.input)?;
    let mut opts = lint_options(&args.input, &args.select, &args.ignore, &cfg)?;
    if args.unsafe_fixes && !args.fix && !args.diff {
        return Err(ToolError(
            "--unsafe-fixes only applies with --fix or --diff".to_string(),
        ));
    }
    let fixing = args.fix || args.diff;
    // Fixes edit the text the findings were made from: keep it.
    opts.keep_sources |= fixing;
    let known = match &args.baseline {
        Some(path) => Some(baseline::load(path).map_err(ToolError)?),
        None => None,
    };
    if !fixing && args.write_baseline.is_none() && streaming() {
        // The usual run: bounded memory (see `streamed`).
        let gathered = gather_streamed(&args.input, &cfg)?;
        let run = lint_gathered_streamed(gathered, &args.input, &opts, &cfg, known)?;
        let findings = &run.findings;
        let summary = Summary {
            files: run.files,
            documents: run.documents,
            objects: run.objects,
            errors: findings.errors,
            warnings: findings.warnings,
            infos: findings.infos,
        };
        let failing = fail_threshold(args).is_some_and(|t| findings.any_at_least(t));
        return emit(args, findings, &summary, failing, out);
    }
    let mut gathered = gather_inputs(&args.input, &cfg)?;
    let files = gathered.inputs.len();
    let (outcome, findings) = if fixing {
        let run = fix_loop(args, &gathered, &opts, &cfg, known.as_ref())?;
        let changed: Vec<&FixedFile> = run
            .fixed
            .values()
            .filter(|f| f.current != f.original)
            .collect();
        if args.diff {
            for (name, f) in &run.fixed {
                out.write_all(fix::unified_diff(name, &f.original, &f.current).as_bytes())
                    .map_err(io_err)?;
            }
            eprintln!(
                "taintlint: would fix {} finding(s) in {} file(s)",
                run.applied,
                changed.len()
            );
            return Ok(if changed.is_empty() {
                ExitStatus::Clean
            } else {
                ExitStatus::Findings
            });
        }
        for f in &changed {
            util::fs::write_atomic(&f.path, f.current.as_bytes())
                .map_err(|e| ToolError(format!("cannot write {}: {e}", f.path.display())))?;
        }
        if run.applied > 0 {
            eprintln!(
                "taintlint: fixed {} finding(s) in {} file(s)",
                run.applied,
                changed.len()
            );
        }
        (run.outcome, run.findings)
    } else {
        let inputs = std::mem::take(&mut gathered.inputs);
        let mut outcome = lint_gathered(inputs, &gathered, &args.input, &opts, &cfg)?;
        let mut findings = std::mem::take(&mut outcome.findings);
        if let Some(path) = &args.write_baseline {
            let text = baseline::render(&findings);
            util::fs::write_atomic(path, text.as_bytes())
                .map_err(|e| ToolError(format!("cannot write {}: {e}", path.display())))?;
            eprintln!(
                "taintlint: wrote {} finding(s) to the baseline {}",
                findings.len(),
                path.display()
            );
            return Ok(ExitStatus::Clean);
        }
        if let Some(k) = known {
            baseline::filter(&mut findings, k);
        }
        (outcome, findings)
    };

    let mut summary = Summary {
        files,
        documents: outcome.documents,
        objects: outcome.objects,
        ..Summary::default()
    };
    summary.count(&findings);
    let failing = fail_threshold(args).is_some_and(|t| findings.iter().any(|f| f.severity >= t));
    emit(args, &findings, &summary, failing, out)
}

/// `TAINTLINT_SPILL=off` makes `check` keep everything in memory (`lint::finish`), as `--fix`
/// does: the tests compare both ways.
fn streaming() -> bool {
    std::env::var_os("TAINTLINT_SPILL").is_none_or(|v| v != "off")
}

/// The severity at and above which findings fail the run (`--fail-on`).
fn fail_threshold(args: &CheckArgs) -> Option<Severity> {
    match args.fail_on {
        FailOn::Error => Some(Severity::Error),
        FailOn::Warning => Some(Severity::Warning),
        FailOn::Info => Some(Severity::Info),
        FailOn::Never => None,
    }
}

/// Writes the findings in every requested format; the exit status says whether they fail.
fn emit(
    args: &CheckArgs,
    findings: &dyn report::FindingSource,
    summary: &Summary,
    failing: bool,
    out: &mut dyn Write,
) -> Result<ExitStatus, ToolError> {
    let color = match args.color {
        ColorChoice::Always => true,
        ColorChoice::Never => false,
        ColorChoice::Auto => {
            std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty()) && io::stdout().is_terminal()
        }
    };
    let human = HumanOptions {
        color,
        width: 100,
        links: false,
        quiet: args.quiet,
    };
    let outputs = if args.outputs.is_empty() {
        pair_outputs(&args.format, &args.output_file, None)?
    } else {
        args.outputs.clone()
    };
    let t = std::time::Instant::now();
    for (format, dest) in &outputs {
        match dest {
            None => {
                if let Err(e) = report::write(*format, findings, summary, &human, out)
                    && e.kind() != io::ErrorKind::BrokenPipe
                {
                    return Err(io_err(e));
                }
            }
            Some(path) => {
                let plain = HumanOptions {
                    color: false,
                    ..human.clone()
                };
                util::fs::write_atomic_with(path, &mut |w| {
                    report::write(*format, findings, summary, &plain, w)
                })
                .map_err(|e| ToolError(format!("cannot write {}: {e}", path.display())))?;
            }
        }
    }
    lint::timing("output", t.elapsed());
    Ok(if failing {
        ExitStatus::Findings
    } else {
        ExitStatus::Clean
    })
}

/// Pairs each `--output-file` with the `--format` given before it. `order` holds the
/// command-line positions of the two lists when known (from clap); without it, formats and
/// files pair by position. Unpaired formats go to stdout; only one may.
pub fn pair_outputs(
    formats: &[report::Format],
    files: &[std::path::PathBuf],
    order: Option<(&[usize], &[usize])>,
) -> Result<Vec<(report::Format, Option<std::path::PathBuf>)>, ToolError> {
    let formats: Vec<report::Format> = if formats.is_empty() {
        vec![report::Format::Human]
    } else {
        formats.to_vec()
    };
    let mut dest: Vec<Option<std::path::PathBuf>> = vec![None; formats.len()];
    for (k, file) in files.iter().enumerate() {
        let slot = match order {
            Some((fi, oi)) if fi.len() == formats.len() => {
                let at = oi.get(k).copied().unwrap_or(usize::MAX);
                (0..formats.len())
                    .rev()
                    .find(|&i| fi[i] < at && dest[i].is_none())
            }
            _ => (k < formats.len() && dest[k].is_none()).then_some(k),
        };
        // `-o x.sarif --format sarif`: a lone format takes the lone file.
        let slot = slot.or_else(|| (formats.len() == 1 && dest[0].is_none()).then_some(0));
        match slot {
            Some(i) => dest[i] = Some(file.clone()),
            None => {
                return Err(ToolError(format!(
                    "--output-file {} has no --format before it",
                    file.display()
                )));
            }
        }
    }
    if dest.iter().filter(|d| d.is_none()).count() > 1 {
        return Err(ToolError(
            "several formats would go to stdout: give each but one an --output-file".to_string(),
        ));
    }
    Ok(formats.into_iter().zip(dest).collect())
}
