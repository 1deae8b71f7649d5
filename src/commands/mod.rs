//! The commands (`check`, `check --fix`, `explain`, `matrix`, `rules`, `config init`): each
//! turns its arguments into options, runs the engine and writes what it asked for.

mod check;
mod config_init;
mod explain;
mod fix;
mod matrix;
mod rules;

use std::io::{self, IsTerminal};

pub use check::{check, pair_outputs};
pub use config_init::init as config_init;
pub use explain::explain;
pub use matrix::matrix;
pub use rules::{list as list_rules, show as show_rule};

use crate::cli::InputArgs;
use crate::config::{self, Config, GlobUsage};
use crate::diagnostic::Finding;
use crate::engine::{self, Input, Job, LintOptions, Outcome};
use crate::load::walk::{self, WalkOptions};
use crate::rules::RuleSet;
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

impl std::error::Error for ToolError {}

fn io_err(e: io::Error) -> ToolError {
    ToolError(e.to_string())
}

/// Runs with at least this many files show a progress bar (on a terminal).
const PROGRESS_MIN_FILES: usize = 500;

/// Seconds without a byte on a standard input nobody named before taintlint says what it
/// is waiting for.
const STDIN_HINT_AFTER: u64 = 3;

/// Gives a command without paths its default, kubeconform's: standard input when something is
/// piped or redirected into it, else `.`. Standard input is read here, so that an empty one
/// (what pre-commit and some CI runners pass on) falls back to `.`, with a note; one still
/// open with nothing on it after a few seconds gets a hint on stderr, since taintlint waits
/// for it.
pub fn default_paths(input: &mut InputArgs) {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, Ordering};
    if !input.paths.is_empty() {
        return;
    }
    if !crate::load::stdin::is_redirected() {
        input.paths.push(".".into());
        return;
    }
    /// Standard input, noting when its first byte arrives.
    struct Watched<R> {
        inner: R,
        arrived: Arc<AtomicBool>,
    }
    impl<R: io::Read> io::Read for Watched<R> {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            let n = self.inner.read(buf)?;
            if n > 0 {
                self.arrived.store(true, Ordering::Relaxed);
            }
            Ok(n)
        }
    }
    let arrived = Arc::new(AtomicBool::new(false));
    let done = Arc::new(AtomicBool::new(false));
    let hint = {
        let (arrived, done) = (Arc::clone(&arrived), Arc::clone(&done));
        std::thread::spawn(move || {
            for _ in 0..STDIN_HINT_AFTER * 10 {
                if arrived.load(Ordering::Relaxed) || done.load(Ordering::Relaxed) {
                    return;
                }
                std::thread::sleep(std::time::Duration::from_millis(100));
            }
            eprintln!(
                "taintlint: reading standard input (no path was given); give a path, e.g. `.`, to lint files instead"
            );
        })
    };
    let stdin = Watched {
        inner: io::stdin().lock(),
        arrived,
    };
    let text = crate::load::read_limited(stdin, 0, input.max_file_size);
    done.store(true, Ordering::Relaxed);
    drop(hint);
    if matches!(&text, Ok(t) if t.is_empty()) {
        eprintln!("taintlint: standard input is empty: linting `.`");
        input.paths.push(".".into());
        return;
    }
    input.paths.push("-".into());
    *input.piped.borrow_mut() = Some(text);
}

/// Finds and loads the config the input flags ask for.
pub fn load_config(input: &InputArgs) -> Result<Config, ToolError> {
    if input.isolated {
        return Ok(Config::default());
    }
    let path = match &input.config {
        Some(p) => {
            if !p.exists() {
                return Err(ToolError(format!(
                    "config file {} does not exist",
                    p.display()
                )));
            }
            Some(p.clone())
        }
        None => config::discover(std::path::Path::new(".")),
    };
    if input.config.is_none()
        && let Some(p) = &path
    {
        refuse_outside_link(p, std::path::Path::new("."))?;
    }
    match path {
        Some(p) => config::load(&p).map_err(|e| ToolError(e.to_string())),
        None => Ok(Config::default()),
    }
}

/// Where the config `check` would use for a file in `dir` is, when run there without
/// `--config`: the first `.taintlint.yaml` (or its other names) from `dir` up, walking up
/// the path as it is written (a linked folder's `..` is not where its link is), named as the
/// editor names files. `None`: there is none.
pub fn config_path_for(dir: &std::path::Path) -> Option<std::path::PathBuf> {
    let dir = lexical(dir);
    dir.ancestors().find_map(|d| {
        config::FILE_NAMES
            .iter()
            .map(|name| d.join(name))
            .find(|p| p.is_file())
    })
}

/// The config for a file in `dir` (see [`config_path_for`]), refused when it lies in the
/// repository of `workspace` only through a link out of it (the language server's per-file
/// config: a committed link to a folder outside, opened in the editor).
pub fn config_for(dir: &std::path::Path, workspace: &std::path::Path) -> Result<Config, ToolError> {
    match config_path_for(dir) {
        Some(p) => {
            refuse_outside_link(&p, workspace)?;
            config::load(&p).map_err(|e| ToolError(e.to_string()))
        }
        None => Ok(Config::default()),
    }
}

/// `path` made absolute (from the working directory) with `.` and `..` resolved as written,
/// not through links.
fn lexical(path: &std::path::Path) -> std::path::PathBuf {
    let absolute = if path.is_absolute() {
        path.to_path_buf()
    } else {
        std::env::current_dir().map_or_else(|_| path.to_path_buf(), |d| d.join(path))
    };
    let mut out = std::path::PathBuf::new();
    for c in absolute.components() {
        match c {
            std::path::Component::ParentDir => {
                out.pop();
            }
            std::path::Component::CurDir => {}
            c => out.push(c),
        }
    }
    out
}

/// A discovered config inside the checkout must really be there: every component of its
/// path below the repository root (the git work tree holding `anchor`, the working directory
/// or the editor's workspace folder, else `anchor` itself) is the checkout's, so a link
/// among them — the config file, or any folder above it — that leads outside the repository
/// makes it unreadable (taintlint would read, and quote in findings, a file of the
/// machine's). A config above the repository, found walking up from it, is the machine's
/// own and is read. `--config` names such a file on purpose.
fn refuse_outside_link(path: &std::path::Path, anchor: &std::path::Path) -> Result<(), ToolError> {
    let anchor = lexical(anchor);
    let repo = anchor
        .ancestors()
        .find(|d| std::fs::symlink_metadata(d.join(".git")).is_ok())
        .unwrap_or(&anchor);
    let written = lexical(path);
    if !written.starts_with(repo) {
        return Ok(());
    }
    let inside = match (std::fs::canonicalize(repo), std::fs::canonicalize(&written)) {
        (Ok(root), Ok(target)) => target.starts_with(root),
        _ => false,
    };
    if inside {
        Ok(())
    } else {
        Err(ToolError(format!(
            "config {} leads outside the repository through a symbolic link (it or a folder above it); it was not read (name it with --config to read it, or --isolated to use none)",
            crate::util::text::escape(&path.display().to_string())
        )))
    }
}

/// Builds the options a run needs from its arguments and the config.
pub fn lint_options(
    input: &InputArgs,
    select: &[String],
    ignore: &[String],
    cfg: &Config,
) -> Result<LintOptions, ToolError> {
    let mut opts = options_from_config(
        cfg,
        input.kube_version.as_deref(),
        input.feature_gates.as_deref(),
        select,
        ignore,
    )?;
    for name in &input.admission_plugin {
        let plugin =
            crate::analysis::judgements::admission::Plugin::parse(name).map_err(ToolError)?;
        opts.settings.admission.plugins.insert(plugin);
    }
    opts.max_file_size = input.max_file_size;
    opts.roots = input
        .paths
        .iter()
        .filter(|p| p.as_os_str() != "-")
        .map(|p| crate::load::display_path(p))
        .collect();
    opts.keep_sources = false;
    opts.follow_links = input.follow_links;
    opts.fast = !input.full_parse;
    for p in &input.policy {
        let pc = config::load(p).map_err(|e| ToolError(e.to_string()))?;
        opts.settings.policies.extend(pc.policies);
        opts.config_findings.extend(pc.findings);
    }
    Ok(opts)
}

/// Options from a config plus the command-line values that override it.
pub fn options_from_config(
    cfg: &Config,
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
    settings.admission.clone_from(&cfg.admission);
    let mut rules = RuleSet::resolve(select, ignore).map_err(ToolError)?;
    rules.configure(&cfg.rules, select, ignore);
    let clusters = cfg
        .clusters
        .iter()
        .map(|c| crate::engine::Cluster {
            name: c.name.as_str().into(),
            // The config kept only globs that compile (the others are findings).
            paths: crate::util::glob::PathGlobs::new(
                &c.paths.iter().map(|(g, _)| g.as_str()).collect::<Vec<_>>(),
            )
            .unwrap_or_else(|_| crate::util::glob::PathGlobs::none()),
        })
        .collect();
    let per_file_ignores = crate::engine::PerFileIgnores::new(
        &cfg.per_file_ignores
            .iter()
            .map(|(g, r, _)| (g.as_str(), r.clone()))
            .collect::<Vec<_>>(),
    );
    Ok(LintOptions {
        rules,
        settings,
        extra_nodes: cfg.inline_pools.clone(),
        config_findings: cfg.findings.clone(),
        per_file_ignores,
        clusters,
        ..LintOptions::default()
    })
}

/// The inputs of a run: standard input's parts, the files still to be walked, and the
/// `--inventory` files.
pub struct Gathered {
    /// Each configured cluster's `inventory:` files, by cluster.
    cluster_inventory: Vec<(usize, std::path::PathBuf)>,
    /// The clusters `--cluster` names (empty: all).
    only: Vec<usize>,
    /// Standard input's parts (and, once [`Gathered::collect`] ran, the walked files).
    pub inputs: Vec<Input>,
    /// The files still to be walked: a run lints files as they are found.
    walk: Option<walk::Walk>,
    inventory_paths: Vec<std::path::PathBuf>,
    walk_opts: WalkOptions,
}

impl Gathered {
    /// Reads standard input and checks the paths, leaving the walk itself to the run.
    pub fn new(input: &InputArgs, cfg: &Config) -> Result<Self, ToolError> {
        Self::reading(input, cfg, true)
    }

    /// As [`Gathered::new`]; `split: false` keeps standard input one input, named
    /// `--stdin-filename` (default `<stdin>`), even when it is `helm template` output (`--fix`
    /// prints it back as one stream).
    fn reading(input: &InputArgs, cfg: &Config, split: bool) -> Result<Self, ToolError> {
        let mut exclude = input.exclude.clone();
        exclude.extend(cfg.exclude.iter().cloned());
        let walk_opts = WalkOptions::new(&input.include, &exclude, input.follow_links)
            .map_err(|e| ToolError(e.to_string()))?;
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
            let text = input
                .piped
                .borrow_mut()
                .take()
                .unwrap_or_else(|| crate::load::stdin::read(input.max_file_size));
            match text {
                Ok(text) if !split => inputs.push(Input::Text {
                    name,
                    text: Ok(text),
                }),
                Ok(text) => {
                    for src in crate::load::stdin::outside_sources(&text) {
                        eprintln!(
                            "taintlint: note: `# Source: {}` is not a path inside the repository; its documents are reported as {}",
                            crate::util::text::escape(&src),
                            crate::util::text::escape(&name)
                        );
                    }
                    inputs.extend(
                        crate::load::stdin::name_documents(
                            input.stdin_filename.as_deref(),
                            input.source_root.as_deref(),
                            text,
                        )
                        .into_iter()
                        .map(|(name, text)| Input::Text {
                            name,
                            text: Ok(text),
                        }),
                    );
                }
                Err(e) => inputs.push(Input::Text { name, text: Err(e) }),
            }
        }
        let walk = walk::stream(&file_paths, &walk_opts).map_err(|e| ToolError(e.to_string()))?;
        let mut inventory_paths = input.inventory.clone();
        inventory_paths.extend(cfg.inventory_files.iter().filter(|p| p.exists()).cloned());
        let cluster_inventory = cfg
            .clusters
            .iter()
            .enumerate()
            .flat_map(|(i, c)| {
                c.inventory
                    .iter()
                    .filter(|p| p.exists())
                    .map(move |p| (i, p.clone()))
            })
            .collect();
        let mut only = Vec::new();
        for name in &input.cluster {
            let slot = if name == "default" {
                cfg.clusters.len()
            } else {
                cfg.clusters
                    .iter()
                    .position(|c| &c.name == name)
                    .ok_or_else(|| {
                        let known: Vec<String> = cfg.clusters.iter().map(|c| crate::util::text::escape(&c.name).into_owned()).collect();
                        ToolError(format!(
                            "no cluster `{name}` in the config (clusters: {}; `default` is the files no cluster claims)",
                            if known.is_empty() { "none".to_string() } else { known.join(", ") }
                        ))
                    })?
            };
            if !only.contains(&slot) {
                only.push(slot);
            }
        }
        Ok(Gathered {
            cluster_inventory,
            only,
            inputs,
            walk: Some(walk),
            inventory_paths,
            walk_opts,
        })
    }

    /// Everything the run would read, listed now: the files it lints, the `--inventory` and
    /// config `inventory:` files, and each cluster's `inventory:` files (the language
    /// server's workspace: it lints the open buffers against these files' node pools).
    pub fn into_lists(mut self) -> Result<WorkspaceLists, ToolError> {
        self.collect();
        Ok(WorkspaceLists {
            inventory: self.inventory()?,
            cluster_inventory: self.cluster_inventory()?,
            files: self.inputs,
        })
    }

    /// Walks now and keeps the list (`--fix` lints the same inputs again after each round).
    fn collect(&mut self) {
        let t = std::time::Instant::now();
        if let Some(walk) = self.walk.take() {
            self.inputs.extend(walk.map(Input::Entry));
        }
        engine::timing("walk", t.elapsed());
    }

    /// The same run with other inputs (`--fix` replays them with the fixed texts).
    fn replayed(&self, inputs: Vec<Input>) -> Self {
        Gathered {
            cluster_inventory: self.cluster_inventory.clone(),
            only: self.only.clone(),
            inputs,
            walk: None,
            inventory_paths: self.inventory_paths.clone(),
            walk_opts: self.walk_opts.clone(),
        }
    }

    /// Each cluster's `inventory:` files as inputs, by cluster.
    fn cluster_inventory(&self) -> Result<Vec<(usize, Input)>, ToolError> {
        let mut out = Vec::new();
        for (cluster, path) in &self.cluster_inventory {
            for entry in walk::collect(std::slice::from_ref(path), &self.walk_opts)
                .map_err(|e| ToolError(e.to_string()))?
            {
                out.push((*cluster, Input::Entry(entry)));
            }
        }
        Ok(out)
    }

    /// The `--inventory` files as inputs.
    fn inventory(&self) -> Result<Vec<Input>, ToolError> {
        if self.inventory_paths.is_empty() {
            return Ok(Vec::new());
        }
        Ok(walk::collect(&self.inventory_paths, &self.walk_opts)
            .map_err(|e| ToolError(e.to_string()))?
            .into_iter()
            .map(Input::Entry)
            .collect())
    }
}

/// What [`Gathered::into_lists`] gives.
pub struct WorkspaceLists {
    pub files: Vec<Input>,
    pub inventory: Vec<Input>,
    pub cluster_inventory: Vec<(usize, Input)>,
}

/// A progress bar where a person watches (stderr a terminal, not CI) and the run is large.
/// `files`: how many inputs there are, `None` while they are still being walked (the bar
/// then grows with the walk and shows itself once the run is large enough).
fn progress(files: Option<usize>) -> Option<indicatif::ProgressBar> {
    let watched = io::stderr().is_terminal() && std::env::var_os("CI").is_none();
    if !watched || files.is_some_and(|n| n < PROGRESS_MIN_FILES) {
        return None;
    }
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
    Some(bar)
}

/// The configuration's globs that matched no input, as findings (when that rule runs).
fn unmatched_globs(cfg: &Config, usage: &GlobUsage, opts: &LintOptions) -> Vec<Finding> {
    if opts.rules.is_enabled(crate::rules::INVALID_CONFIG.name) {
        cfg.unmatched_in(usage)
    } else {
        Vec::new()
    }
}

/// The run `explain` and `matrix` show: every workload and node pool, with their verdicts
/// (an unlimited budget keeps them all), and the options it ran with.
pub fn run_view(input: &InputArgs) -> Result<(engine::View, LintOptions), ToolError> {
    let cfg = load_config(input)?;
    let mut opts = lint_options(input, &[], &[], &cfg)?;
    opts.budget = engine::store::UNLIMITED;
    let mut gathered = Gathered::new(input, &cfg)?;
    let job = Job {
        view: true,
        ..Job::default()
    };
    let run = run_engine(&mut gathered, input, &opts, &cfg, job)?;
    let view = run
        .view
        .ok_or_else(|| ToolError("the run kept no workloads".to_string()))?;
    Ok((view, opts))
}

/// The most worker threads a run starts: past a few per core they only cost (10,000 threads
/// took minutes to start). More is clamped, with a note.
pub const MAX_THREADS_PER_CORE: usize = 4;

/// `--threads N` as the run uses it: 0 (rayon's default, one per core) when not given, and at
/// most [`MAX_THREADS_PER_CORE`] per core (64 at least).
fn worker_threads(asked: Option<usize>) -> usize {
    let Some(n) = asked else { return 0 };
    let cores = std::thread::available_parallelism().map_or(1, std::num::NonZero::get);
    let max = (cores * MAX_THREADS_PER_CORE).max(64);
    if n > max {
        eprintln!("taintlint: note: --threads {n} is more than this machine can use; using {max}");
        max
    } else {
        n
    }
}

/// Runs the engine over the gathered inputs: standard input's parts and the walked files (as
/// they are walked, or the list [`Gathered::collect`] made), on `--threads` worker threads.
pub fn run_engine(
    gathered: &mut Gathered,
    input: &InputArgs,
    opts: &LintOptions,
    cfg: &Config,
    job: Job,
) -> Result<Outcome, ToolError> {
    let listed = gathered.walk.is_none();
    let mut opts = opts.clone();
    opts.progress = progress(listed.then_some(gathered.inputs.len()));
    let job = Job {
        inventory: gathered.inventory()?,
        cluster_inventory: gathered.cluster_inventory()?,
        only: gathered.only.clone(),
        ..job
    };
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(worker_threads(input.threads))
        .build()
        .map_err(|e| ToolError(format!("cannot start worker threads: {e}")))?;
    let opts = &opts;
    let usage = cfg.glob_usage();
    // A bar that grows with the walk shows itself once the run has enough files.
    let growing = opts.progress.as_ref().filter(|_| !listed);
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
    let result =
        pool.install(|| engine::run(inputs, job, opts, || unmatched_globs(cfg, &usage, opts)));
    if let Some(bar) = &opts.progress {
        bar.finish_and_clear();
    }
    result.map_err(|e| ToolError(e.to_string()))
}
