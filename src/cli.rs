//! The command line (clap derive). Every flag is documented here; `--help` is the manual.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

use crate::report::Format;

#[derive(Debug, Parser)]
#[command(
    name = "taintlint",
    // The version and, built from a git checkout, its commit (build.rs).
    version = env!("TAINTLINT_VERSION"),
    about = "Static analysis of Kubernetes taints, tolerations, nodeSelector and node affinity",
    long_about = "taintlint checks Kubernetes manifests for scheduling mistakes: tolerations the API \
server rejects, YAML 1.1 surprises, pitfalls it accepts, and workloads that no node pool can run. \
Run `taintlint check` in a repository, or pipe rendered output in: \
`helm template ./chart | taintlint check -`."
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Lint manifests (files, directories, or `-` for stdin).
    Check(Box<CheckArgs>),
    /// Explain where one workload can run: per node pool, every reason it cannot, its
    /// effective tolerations and its eviction timing.
    Explain(Box<ExplainArgs>),
    /// Workloads × node pools: which pool can run which workload.
    Matrix(Box<MatrixArgs>),
    /// List every rule: name, default severity, category, summary.
    Rules,
    /// Print a rule's documentation page.
    Rule {
        /// The rule's name, e.g. `toleration-exists-with-value`.
        name: String,
    },
    /// Run the language server (LSP over standard input and output) for editors.
    Server {
        /// Milliseconds to wait after an edit for the next before linting.
        #[arg(long, value_name = "MS", default_value_t = 150)]
        debounce_ms: u64,
    },
    /// Configuration helpers.
    #[command(subcommand)]
    Config(ConfigCommand),
    /// Print a shell completion script.
    Completions {
        /// The shell.
        shell: clap_complete::Shell,
    },
}

#[derive(Debug, Subcommand)]
pub enum ConfigCommand {
    /// Write a commented default `.taintlint.yaml` (to stdout with `-`).
    Init {
        /// Where to write it.
        #[arg(default_value = ".taintlint.yaml")]
        path: PathBuf,
        /// Overwrite an existing file.
        #[arg(long)]
        force: bool,
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum FailOn {
    Error,
    Warning,
    Info,
    Never,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ColorChoice {
    Auto,
    Always,
    Never,
}

/// What to read: shared by `check`, `explain` and `matrix`.
#[derive(Debug, Args)]
pub struct InputArgs {
    /// Files or directories to lint; `-` reads standard input. Default: standard input when
    /// something is piped or redirected into it (`helm template ./chart | taintlint check`),
    /// else `.`.
    pub paths: Vec<PathBuf>,

    /// Standard input, read already because no path was given and something was piped in
    /// (see `commands::default_paths`).
    #[arg(skip)]
    pub piped: std::cell::RefCell<Option<Result<String, crate::load::ReadFailure>>>,

    /// Name standard input in diagnostics (with `-`).
    #[arg(long, value_name = "NAME")]
    pub stdin_filename: Option<String>,

    /// The directory of the chart whose `helm template` output is on standard input: findings
    /// in `chart/templates/x.yaml` are reported in `DIR/templates/x.yaml`.
    #[arg(long, value_name = "DIR")]
    pub source_root: Option<PathBuf>,

    /// Worker threads (default: all cores).
    #[arg(long, value_name = "N")]
    pub threads: Option<usize>,

    /// Skip paths matching GLOB (repeatable).
    #[arg(long, value_name = "GLOB")]
    pub exclude: Vec<String>,

    /// Lint files matching GLOB when walking directories (repeatable; default `*.yaml`,
    /// `*.yml`, `*.json`, `*.tf` and `*.yaml.j2`-style templates).
    #[arg(long, value_name = "GLOB")]
    pub include: Vec<String>,

    /// Follow symbolic links while walking (loops are detected).
    #[arg(long)]
    pub follow_links: bool,

    /// Files larger than this many bytes are reported, not read.
    #[arg(long, value_name = "BYTES", default_value_t = 64 * 1024 * 1024)]
    pub max_file_size: u64,

    /// Node pools defined elsewhere (Nodes, NodePools, eksctl/kubeadm configs, Inventory
    /// files): used for the cross-reference, not linted as workloads (repeatable).
    #[arg(long, value_name = "FILE")]
    pub inventory: Vec<PathBuf>,

    /// Lint only the files of this cluster of the config's `clusters:` (`default`: the files
    /// no cluster claims); repeatable.
    #[arg(long, value_name = "NAME")]
    pub cluster: Vec<String>,

    /// Kubernetes version whose messages and features to reproduce (1.30 to 1.37;
    /// default: the config's `kube-version`, else 1.35).
    #[arg(long, value_name = "X.Y")]
    pub kube_version: Option<String>,

    /// Use this config file instead of discovering `.taintlint.yaml`.
    #[arg(long, value_name = "FILE", conflicts_with = "isolated")]
    pub config: Option<PathBuf>,

    /// Ignore any config file.
    #[arg(long)]
    pub isolated: bool,

    /// Parse every document, also those whose kind cannot hold scheduling fields (CRDs,
    /// ConfigMaps, RBAC...), which are otherwise skipped after a line scan. Slower; finds
    /// YAML syntax errors inside them too.
    #[arg(long)]
    pub full_parse: bool,

    /// Toleration policies (a YAML file with a `policies:` list, as in the config).
    #[arg(long, value_name = "FILE")]
    pub policy: Vec<PathBuf>,

    /// Feature gates, e.g. `TaintTolerationComparisonOperators=true`.
    #[arg(long, value_name = "GATES")]
    pub feature_gates: Option<String>,

    /// An admission plugin the cluster's API server runs, besides those on by default
    /// (repeatable): PodNodeSelector, PodTolerationRestriction, ExtendedResourceToleration,
    /// OpenShiftProjectNodeSelector.
    #[arg(long, value_name = "NAME")]
    pub admission_plugin: Vec<String>,
}

#[derive(Debug, Args)]
pub struct CheckArgs {
    #[command(flatten)]
    pub input: InputArgs,

    /// Output format (repeatable: each `--format` may be followed by its own
    /// `--output-file`; at most one format goes to stdout). Default: human.
    #[arg(long, value_enum, env = "TAINTLINT_FORMAT", value_name = "FORMAT")]
    pub format: Vec<Format>,

    /// Write the preceding `--format` to PATH instead of stdout (repeatable).
    #[arg(long, short = 'o', value_name = "PATH")]
    pub output_file: Vec<PathBuf>,

    /// Formats paired with their destinations (`None` = stdout), resolved from the order of
    /// `--format` and `--output-file` on the command line.
    #[arg(skip)]
    pub outputs: Vec<(Format, Option<PathBuf>)>,

    /// Run only these rules (names, categories or `all`; comma-separated or repeated).
    #[arg(long, value_delimiter = ',', value_name = "RULE")]
    pub select: Vec<String>,

    /// Do not run these rules (names or categories).
    #[arg(long, value_delimiter = ',', value_name = "RULE")]
    pub ignore: Vec<String>,

    /// Exit 1 when a finding at or above this severity exists.
    #[arg(long, value_enum, default_value_t = FailOn::Warning)]
    pub fail_on: FailOn,

    /// Colour in human output (`NO_COLOR` is honoured with `auto`).
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto)]
    pub color: ColorChoice,

    /// Print findings only: no summary line.
    #[arg(short, long)]
    pub quiet: bool,

    /// Hide findings recorded in this baseline file (adopt taintlint, fail only on new ones).
    #[arg(long, value_name = "FILE")]
    pub baseline: Option<PathBuf>,

    /// Record the current findings in FILE as a baseline, then exit 0.
    #[arg(long, value_name = "FILE")]
    pub write_baseline: Option<PathBuf>,

    /// Apply the safe fixes to the files (atomically, keeping permissions), then report what
    /// remains. Files without a fix are not touched. Standard input is printed to stdout,
    /// fixed, and the report goes to stderr.
    #[arg(long, conflicts_with = "write_baseline")]
    pub fix: bool,

    /// With `--fix` or `--diff`: apply the unsafe fixes too (they change what the manifest
    /// does: removing tolerations, adding a nodeSelector).
    #[arg(long)]
    pub unsafe_fixes: bool,

    /// Print a unified diff of what `--fix` would change and write nothing; exit 1 when
    /// there is a diff.
    #[arg(long, conflicts_with_all = ["write_baseline", "fix"])]
    pub diff: bool,
}

#[derive(Debug, Args)]
pub struct ExplainArgs {
    #[command(flatten)]
    pub input: InputArgs,

    /// The workload: `KIND/NAMESPACE/NAME` or `KIND/NAME` (e.g. `Deployment/ml/trainer`).
    #[arg(long, value_name = "KIND/NS/NAME", conflicts_with = "at")]
    pub workload: Option<String>,

    /// The workload defined at this place, e.g. `deploy.yaml:12`.
    #[arg(long, value_name = "FILE:LINE")]
    pub at: Option<String>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum MatrixFormat {
    /// An aligned table for the terminal.
    Table,
    /// A Markdown table for PR comments and step summaries.
    Markdown,
    /// A Mermaid flowchart GitHub renders.
    Mermaid,
    /// JSON: every pool, every workload with its file and line and its verdict per pool.
    Json,
}

#[derive(Debug, Args)]
pub struct MatrixArgs {
    #[command(flatten)]
    pub input: InputArgs,

    /// Output format.
    #[arg(long, value_enum, default_value_t = MatrixFormat::Table)]
    pub format: MatrixFormat,
}
