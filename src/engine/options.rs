//! What a run is given: its inputs and its options.

use crate::diagnostic::Finding;
use crate::load::ReadFailure;
use crate::load::walk::Entry;
use crate::load::yaml::Limits;
use crate::rules::RuleSet;
use crate::settings::Settings;

use super::store;

/// Everything a run needs to check files.
#[derive(Clone)]
pub struct LintOptions {
    pub rules: RuleSet,
    pub settings: Settings,
    pub max_file_size: u64,
    pub limits: Limits,
    /// Node pools given inline in the config.
    pub extra_nodes: Vec<crate::analysis::types::NodeDecl>,
    /// Namespaces and RuntimeClasses of files the run does not lint (the language server's
    /// other workspace files), for admission; after the run's own.
    pub extra_admission: Vec<crate::analysis::judgements::admission::Fact>,
    /// The language server's other workspace files, as `check ROOT` would find them beside
    /// the buffer it lints (see [`Workspace`]).
    pub workspace: Workspace,
    /// Mistakes found in the config file.
    pub config_findings: Vec<Finding>,
    /// `per-file-ignores`.
    pub per_file_ignores: PerFileIgnores,
    /// Skip documents whose kind cannot hold scheduling fields without parsing them
    /// (`load::prescan`); off with `--full-parse`.
    pub fast: bool,
    /// A progress bar on a terminal's stderr for long runs (never in CI or pipes).
    pub progress: Option<indicatif::ProgressBar>,
    /// Keep every file's text until reporting. Off in the CLI: files on disk keep only the
    /// positions their findings need, and the human reporter reads snippets back.
    pub keep_sources: bool,
    /// Bytes of results the run keeps as they are before it spills them to its store
    /// ([`store::budget`]; [`store::UNLIMITED`] keeps everything, as `--fix`, `explain`
    /// and `matrix` need).
    pub budget: usize,
    /// The folders and files linted, as findings name them: a file's path below its root
    /// decides whether it is vendored code or test data (`engine::fixtures`).
    pub roots: Vec<String>,
    /// The configured clusters (`clusters:`); files no cluster claims form the default one.
    pub clusters: Vec<Cluster>,
    /// `--follow-links`: a Terraform module directory may be read through a symbolic link.
    pub follow_links: bool,
}

/// What a run that lints one buffer (the language server) knows of the workspace's other
/// files, counted as if they were linted with it: the pools found in them (by file, with the
/// file's cluster slot), the cluster definitions among them, and their Kueue objects. So the
/// buffer is judged as `check ROOT` judges it: the clusters its files define, each inferred
/// cluster's own pools (`analysis::sources::clusters`), its queues and flavors.
#[derive(Clone, Debug, Default)]
pub struct Workspace {
    /// (file, cluster slot, a pool found in it).
    pub nodes: Vec<(std::sync::Arc<str>, usize, crate::analysis::types::NodeDecl)>,
    /// The cluster definitions of the default cluster's files.
    pub anchors: Vec<crate::analysis::sources::clusters::Anchor>,
    /// (cluster slot, a file's Kueue objects).
    pub kueue: Vec<(usize, crate::analysis::types::kueue::Kueue)>,
    /// The label keys the other files mention where no pool is read (see
    /// `analysis::sources::mentions`).
    pub mentions: Vec<Box<str>>,
}

/// A configured cluster: the files its path globs match.
#[derive(Clone, Debug)]
pub struct Cluster {
    pub name: std::sync::Arc<str>,
    pub paths: crate::util::glob::PathGlobs,
}

impl LintOptions {
    /// How many clusters a run judges separately: the configured ones and the default.
    pub fn slots(&self) -> usize {
        self.clusters.len() + 1
    }

    /// The cluster a file belongs to: the first whose paths match it, else the default (the
    /// last slot).
    pub fn slot_of(&self, file: &str) -> usize {
        self.clusters
            .iter()
            .position(|c| c.paths.matches(file))
            .unwrap_or(self.clusters.len())
    }

    /// The name findings give a slot: `None` for the default cluster.
    pub fn cluster_name(&self, slot: usize) -> Option<std::sync::Arc<str>> {
        self.clusters
            .get(slot)
            .map(|c| std::sync::Arc::clone(&c.name))
    }
}

impl LintOptions {
    /// Applies configured severities and `per-file-ignores`.
    pub fn apply_ignores(&self, findings: &mut Vec<Finding>) {
        for f in findings.iter_mut() {
            if let Some(sev) = self.rules.severity_override(f.rule) {
                f.severity = sev;
            }
        }
        if self.per_file_ignores.is_empty() {
            return;
        }
        // The rules ignored in each file, worked out once per file (not per finding: a file
        // may have hundreds of thousands).
        let mut ignored: std::collections::HashMap<
            std::sync::Arc<str>,
            std::collections::HashSet<&str>,
        > = std::collections::HashMap::new();
        findings.retain(|f| {
            let rules = ignored
                .entry(std::sync::Arc::clone(&f.file))
                .or_insert_with(|| self.per_file_ignores.rules_for(&f.file));
            !rules.contains(f.rule)
        });
    }

    /// Whether `per-file-ignores` ignore `rule` in `file` (one file's question; the whole
    /// run's findings go through [`Self::apply_ignores`]).
    pub fn ignored(&self, rule: &str, file: &str) -> bool {
        !self.per_file_ignores.is_empty() && self.per_file_ignores.rules_for(file).contains(rule)
    }
}

/// `per-file-ignores`: every glob compiled into one matcher, matched once per file (a config
/// of thousands of globs costs one pass per file, not one per glob; #49), and the rules of
/// each glob.
#[derive(Clone, Default)]
pub struct PerFileIgnores {
    globs: Option<crate::util::glob::PathGlobs>,
    /// The rules of each glob, by its index.
    rules: Vec<Vec<String>>,
}

impl PerFileIgnores {
    /// The entries (glob, rules), each glob one the config found usable.
    pub fn new(entries: &[(&str, Vec<String>)]) -> PerFileIgnores {
        let globs: Vec<&str> = entries.iter().map(|(g, _)| *g).collect();
        PerFileIgnores {
            globs: crate::util::glob::PathGlobs::new(&globs).ok(),
            rules: entries.iter().map(|(_, r)| r.clone()).collect(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.globs.as_ref().is_none_or(|g| g.is_empty())
    }

    /// The rules ignored in `file`.
    pub fn rules_for(&self, file: &str) -> std::collections::HashSet<&str> {
        let Some(globs) = &self.globs else {
            return std::collections::HashSet::new();
        };
        globs
            .matching(file)
            .into_iter()
            .filter_map(|i| self.rules.get(i))
            .flat_map(|r| r.iter().map(String::as_str))
            .collect()
    }
}

/// One input: a path from the walker, or stdin's text.
pub enum Input {
    Entry(Entry),
    Text {
        name: String,
        text: Result<String, ReadFailure>,
    },
}

impl Input {
    pub fn name(&self) -> String {
        match self {
            Input::Entry(e) => crate::load::display_path(e.path()),
            Input::Text { name, .. } => name.clone(),
        }
    }
}

/// The YAML limits of a run: the defaults, with `TAINTLINT_DOCUMENT_BUDGET=<bytes>` for the
/// memory one document may take.
fn limits() -> Limits {
    let mut limits = Limits::default();
    if let Some(bytes) = std::env::var("TAINTLINT_DOCUMENT_BUDGET")
        .ok()
        .and_then(|v| v.parse().ok())
    {
        limits.max_document_bytes = bytes;
    }
    limits
}

impl Default for LintOptions {
    /// The defaults of `taintlint check`: default rules, Kubernetes 1.35, 64 MiB files.
    fn default() -> Self {
        LintOptions {
            rules: RuleSet::defaults(),
            settings: Settings::default(),
            max_file_size: 64 * 1024 * 1024,
            limits: limits(),
            extra_nodes: Vec::new(),
            extra_admission: Vec::new(),
            workspace: Workspace::default(),
            config_findings: Vec::new(),
            per_file_ignores: PerFileIgnores::default(),
            keep_sources: true,
            fast: true,
            progress: None,
            budget: store::budget(),
            roots: Vec::new(),
            clusters: Vec::new(),
            follow_links: false,
        }
    }
}
