//! Configuration: `.taintlint.yaml` (or `taintlint.yaml`) found by walking up from the
//! working directory, `--config FILE` to name one, `--isolated` to ignore it. Parsed with the
//! project's own span-keeping YAML loader, so every mistake in it is a finding that points
//! into the config file; a config that cannot be used at all is a tool error (exit 2).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::analysis::types::NodeDecl;
use crate::diagnostic::{Finding, Severity};
use crate::load::Loc;
use crate::load::yaml::{Limits, LoadError, Node};
use crate::load::{SourceFile, Span};
use crate::rules;
use crate::settings::{Policy, WorkloadKind};

/// The most `per-file-ignores` globs a config may have (#49: 60,000 globs of a 2.6 MB config
/// took 2.4 GB compiled one by one). They are compiled into one matcher, but globset tries
/// each glob that needs the path's extension in turn (`RequiredExtensionStrategy`): matching a
/// file costs up to one regex per glob, so the number of globs is bounded. A real config has
/// tens.
const MAX_IGNORE_GLOBS: usize = 1_024;

pub const FILE_NAMES: &[&str] = &[".taintlint.yaml", "taintlint.yaml"];

/// The commented default written by `taintlint config init`.
pub const DEFAULT_CONFIG: &str = include_str!("../taintlint.default.yaml");

const KEYS: &[&str] = &[
    "rules",
    "exclude",
    "per-file-ignores",
    "dedicated-exempt-keys",
    "inventory",
    "policies",
    "kube-version",
    "feature-gates",
    "workload-kinds",
    "clusters",
    "admission-plugins",
    "admission-config",
];

pub use crate::rules::Level;

#[derive(Debug, Default)]
pub struct Config {
    pub source: Option<Arc<SourceFile>>,
    /// The folder the config lives in: relative paths in it are relative to this.
    pub dir: PathBuf,
    pub rules: Vec<(String, Level)>,
    pub exclude: Vec<String>,
    /// (glob, rules, where).
    pub per_file_ignores: Vec<(String, Vec<String>, Span)>,
    pub dedicated_exempt_keys: Vec<String>,
    pub inventory_files: Vec<PathBuf>,
    pub inline_pools: Vec<NodeDecl>,
    pub policies: Vec<Policy>,
    pub kube_version: Option<String>,
    pub feature_gates: Option<String>,
    pub workload_kinds: Vec<WorkloadKind>,
    /// `clusters:`: which files belong to which cluster (see [`ClusterConfig`]).
    pub clusters: Vec<ClusterConfig>,
    /// `admission-plugins:` and `admission-config:`: what the cluster's API server runs.
    pub admission: crate::settings::AdmissionConfig,
    /// Mistakes in the config file.
    pub findings: Vec<Finding>,
}

/// One entry of `clusters:`: the files under `paths` (globs, as `per-file-ignores` matches
/// them) are one cluster; its workloads are judged against its own node pools, plus its
/// `inventory` files and the top-level inventory.
#[derive(Debug, Clone)]
pub struct ClusterConfig {
    pub name: String,
    /// (glob, where).
    pub paths: Vec<(String, Span)>,
    pub inventory: Vec<PathBuf>,
    /// The entry's `name`, for findings about the entry.
    pub span: Span,
}

/// Finds the first of `FILE_NAMES` walking up from `start`. The path is `start` joined with
/// as many `..` as needed, so a relative `start` gives a relative path (findings in the config
/// then name it as `../.taintlint.yaml`, not by an absolute path).
pub fn discover(start: &Path) -> Option<PathBuf> {
    let canonical = std::fs::canonicalize(start).unwrap_or_else(|_| start.to_path_buf());
    let mut rel = start.to_path_buf();
    for dir in canonical.ancestors() {
        for name in FILE_NAMES {
            if dir.join(name).is_file() {
                return Some(rel.join(name));
            }
        }
        rel.push("..");
    }
    None
}

/// Why a config file cannot be used at all (mistakes inside a usable one are findings).
#[derive(Debug)]
pub enum ConfigError {
    Read {
        path: PathBuf,
        error: String,
    },
    Syntax {
        name: String,
        line: usize,
        column: usize,
        /// What the parser found wrong there.
        reason: String,
    },
    NotAMapping {
        name: String,
        /// What the file holds instead: `a list`, `a string`.
        found: &'static str,
    },
    /// A setting that cannot be used and cannot be left out either: an `exclude` glob that
    /// does not compile (linting without it would lint what the author meant to exclude).
    Invalid {
        name: String,
        line: usize,
        column: usize,
        reason: String,
    },
}

impl std::fmt::Display for ConfigError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ConfigError::Read { path, error } => {
                write!(f, "cannot read config {}: {error}", path.display())
            }
            ConfigError::Syntax {
                name,
                line,
                column,
                reason,
            } => {
                write!(
                    f,
                    "config {name}:{line}:{column} is not valid YAML: {reason}"
                )
            }
            ConfigError::Invalid {
                name,
                line,
                column,
                reason,
            } => write!(f, "config {name}:{line}:{column}: {reason}"),
            ConfigError::NotAMapping { name, found } => {
                write!(
                    f,
                    "config {name} must be a mapping of settings (`rules:`, `exclude:`, …), not {found}"
                )
            }
        }
    }
}

impl std::error::Error for ConfigError {}

/// Reads and validates a config file. `Err` means it cannot be used.
pub fn load(path: &Path) -> Result<Config, ConfigError> {
    let text = crate::load::read_settings_file(path).map_err(|error| ConfigError::Read {
        path: path.to_path_buf(),
        error,
    })?;
    let name = crate::load::display_path(path);
    parse(&name, text, path.parent().unwrap_or(Path::new(".")))
}

/// Parses config text named `name` whose relative paths are relative to `dir`.
pub fn parse(name: &str, text: String, dir: &Path) -> Result<Config, ConfigError> {
    let source = SourceFile::new(name, text);
    let stream = crate::load::yaml::parse(&source.text, Limits::default());
    if let Some(err) = &stream.error {
        let p = source.position(err.offset());
        let reason = match err {
            LoadError::Syntax { message, .. } => message.clone(),
            LoadError::UnknownAlias { .. } => "alias refers to an unknown anchor".to_string(),
            LoadError::TooDeep { limit, .. } => format!("nests more than {limit} levels deep"),
            LoadError::ExcessiveAliasing { .. } => "excessive aliasing".to_string(),
            LoadError::TooLarge { .. } => "too large to load".to_string(),
            LoadError::OutOfWork { .. } => "too costly to read".to_string(),
        };
        return Err(ConfigError::Syntax {
            name: name.to_string(),
            line: p.line,
            column: p.column,
            reason,
        });
    }
    let mut cfg = Config {
        source: Some(Arc::clone(&source)),
        dir: dir.to_path_buf(),
        ..Config::default()
    };
    let Some(root) = stream.documents.first().and_then(|d| d.root.as_ref()) else {
        return Ok(cfg); // an empty config is the default config
    };
    let Some(entries) = root.as_map() else {
        let found = match &root.value {
            crate::load::yaml::Value::Seq(_) => "a list",
            _ => "a single value",
        };
        return Err(ConfigError::NotAMapping {
            name: name.to_string(),
            found,
        });
    };
    let mut v = Validator {
        source: &source,
        findings: Vec::new(),
        root: repository_root(dir),
    };
    for (k, val) in entries {
        let key = k.text().unwrap_or("");
        match key {
            "rules" => cfg.rules = v.rules(val),
            "exclude" => {
                cfg.exclude = v.strings(val, "exclude");
                for item in val.as_seq().unwrap_or_default() {
                    let Some(glob) = item.text() else { continue };
                    if let Err(e) = crate::util::glob::PathGlobs::one(glob) {
                        let p = source.position(item.span.start);
                        return Err(ConfigError::Invalid {
                            name: name.to_string(),
                            line: p.line,
                            column: p.column,
                            reason: format!("`exclude`: {e}"),
                        });
                    }
                }
            }
            "per-file-ignores" => cfg.per_file_ignores = v.per_file_ignores(val),
            "dedicated-exempt-keys" => {
                cfg.dedicated_exempt_keys = v.strings(val, "dedicated-exempt-keys");
            }
            "inventory" => v.inventory(val, &source, dir, &mut cfg),
            "clusters" => cfg.clusters = v.clusters(val, dir),
            "policies" => cfg.policies = v.policies(val),
            "kube-version" => match val.text() {
                Some(s) if crate::settings::Settings::parse_version(s).is_ok() => {
                    cfg.kube_version = Some(s.to_string());
                }
                _ => v.error(
                    val.span,
                    "`kube-version` must be a version from 1.30 to 1.37, e.g. \"1.35\"".to_string(),
                ),
            },
            "feature-gates" => {
                let mut parts = Vec::new();
                for (gk, gv) in val.as_map().unwrap_or_default() {
                    let g = gk.text().unwrap_or("");
                    if g != "TaintTolerationComparisonOperators" {
                        v.error(gk.span, format!("unknown feature gate `{g}` (known: TaintTolerationComparisonOperators)"));
                        continue;
                    }
                    match crate::load::yaml11::resolve(gv) {
                        crate::load::yaml11::Resolved::Bool(b) => parts.push(format!("{g}={b}")),
                        _ => v.error(gv.span, format!("feature gate `{g}` must be true or false")),
                    }
                }
                if val.as_map().is_none() {
                    v.error(val.span, "`feature-gates` must be a mapping like {TaintTolerationComparisonOperators: true}".to_string());
                }
                if !parts.is_empty() {
                    cfg.feature_gates = Some(parts.join(","));
                }
            }
            "workload-kinds" => cfg.workload_kinds = v.workload_kinds(val),
            "admission-plugins" => {
                for item in val.as_seq().unwrap_or_default() {
                    match crate::analysis::judgements::admission::Plugin::parse(
                        item.text().unwrap_or(""),
                    ) {
                        Ok(p) => {
                            cfg.admission.plugins.insert(p);
                        }
                        Err(e) => v.error(item.span, e),
                    }
                }
                if val.as_seq().is_none() && !val.is_null() {
                    v.error(
                        val.span,
                        "`admission-plugins` must be a list of plugin names".to_string(),
                    );
                }
            }
            "admission-config" => v.admission_config(val, &mut cfg.admission),
            other => {
                let hint = crate::util::nearest(other, KEYS, 3)
                    .map_or_else(String::new, |s| format!(" (did you mean `{s}`?)"));
                v.error(k.span, format!("unknown config key `{other}`{hint}"));
            }
        }
    }
    cfg.findings = v.findings;
    Ok(cfg)
}

struct Validator<'a> {
    source: &'a Arc<SourceFile>,
    findings: Vec<Finding>,
    /// What the config's paths must stay inside (see [`repository_root`]).
    root: Option<PathBuf>,
}

/// The folder a config's paths must stay inside: the git work tree holding `dir` (the first
/// folder up from it with a `.git`), else `dir` itself; canonical. A config comes with the
/// files it configures, from whoever committed them: it may name files of its repository,
/// not `/`, `../secret` or `~/.aws/credentials` (the command line's `--inventory` may).
pub fn repository_root(dir: &Path) -> Option<PathBuf> {
    let dir = std::fs::canonicalize(dir).ok()?;
    let root = dir
        .ancestors()
        .find(|d| std::fs::symlink_metadata(d.join(".git")).is_ok())
        .unwrap_or(&dir);
    Some(root.to_path_buf())
}

impl Validator<'_> {
    /// `dir/name`, a file the config names, when it may be read: `None` (and a finding) when
    /// it is outside the repository (see [`repository_root`]), links resolved. A file that
    /// does not exist is reported and kept (nothing is read from it).
    fn confined(&mut self, dir: &Path, name: &str, span: Span) -> Option<PathBuf> {
        let p = dir.join(name);
        let Ok(real) = std::fs::canonicalize(&p) else {
            self.error(span, format!("inventory file `{name}` does not exist"));
            return Some(p);
        };
        match &self.root {
            Some(root) if real.starts_with(root) => Some(p),
            _ => {
                self.error(
                    span,
                    format!(
                        "inventory file `{name}` is outside the repository; a config may only name files inside it, so it was not read (pass it with `--inventory` to read it)"
                    ),
                );
                None
            }
        }
    }

    fn push(&mut self, severity: Severity, span: Span, message: String) {
        let meta = &rules::INVALID_CONFIG;
        self.findings.push(
            meta.finding_at(severity, message)
                .primary(span, "here")
                .help("see `taintlint config init` for every key with comments")
                .in_file(self.source),
        );
    }

    fn error(&mut self, span: Span, message: String) {
        self.push(Severity::Error, span, message);
    }

    fn strings(&mut self, node: &Node, key: &str) -> Vec<String> {
        match node.as_seq() {
            Some(items) => items
                .iter()
                .filter_map(|i| match i.text() {
                    Some(t) if i.as_scalar().is_some() => Some(t.to_string()),
                    _ => {
                        self.error(i.span, format!("`{key}` entries must be strings"));
                        None
                    }
                })
                .collect(),
            None if node.is_null() => Vec::new(),
            None => {
                self.error(node.span, format!("`{key}` must be a list of strings"));
                Vec::new()
            }
        }
    }

    fn rule_name(&mut self, node: &Node) -> Option<String> {
        let name = node.text()?;
        if rules::find(name).is_some() {
            Some(name.to_string())
        } else {
            self.error(node.span, rules::unknown_rule_message(name));
            None
        }
    }

    fn rules(&mut self, node: &Node) -> Vec<(String, Level)> {
        let mut out = Vec::new();
        let Some(entries) = node.as_map() else {
            if !node.is_null() {
                self.error(
                    node.span,
                    "`rules` must map rule names to off|info|warning|error".to_string(),
                );
            }
            return out;
        };
        for (k, v) in entries {
            let Some(name) = self.rule_name(k) else {
                continue;
            };
            // `off` is the YAML 1.1 boolean false when unquoted; accept both spellings.
            let level = match (v.text(), crate::load::yaml11::resolve(v)) {
                (Some("off"), _) | (_, crate::load::yaml11::Resolved::Bool(false)) => Level::Off,
                (Some("info"), _) => Level::On(Severity::Info),
                (Some("warning"), _) => Level::On(Severity::Warning),
                (Some("error"), _) => Level::On(Severity::Error),
                (other, _) => {
                    self.error(
                        v.span,
                        format!(
                            "invalid severity `{}` for `{name}`: expected off, info, warning or error",
                            other.unwrap_or("")
                        ),
                    );
                    continue;
                }
            };
            out.push((name, level));
        }
        out
    }

    fn per_file_ignores(&mut self, node: &Node) -> Vec<(String, Vec<String>, Span)> {
        let mut out = Vec::new();
        let entries = node.as_map().unwrap_or_default();
        if let Some((k, _)) = entries.get(MAX_IGNORE_GLOBS) {
            self.error(
                k.span,
                format!(
                    "`per-file-ignores` has {} globs; taintlint reads the first {MAX_IGNORE_GLOBS} (each is compiled and kept in memory): merge them (`dir/**`, `{{a,b}}`)",
                    entries.len()
                ),
            );
        }
        for (k, v) in entries.iter().take(MAX_IGNORE_GLOBS) {
            let Some(glob) = k.text() else { continue };
            if let Err(e) = crate::util::glob::PathGlobs::one(glob) {
                self.error(k.span, e.to_string());
                continue;
            }
            let names: Vec<String> = match (v.as_seq(), v.text()) {
                (Some(items), _) => items.iter().filter_map(|i| self.rule_name(i)).collect(),
                (None, Some(_)) => self.rule_name(v).into_iter().collect(),
                _ => {
                    self.error(
                        v.span,
                        "list the rules to ignore for these files".to_string(),
                    );
                    continue;
                }
            };
            out.push((glob.to_string(), names, k.span));
        }
        if node.as_map().is_none() && !node.is_null() {
            self.error(
                node.span,
                "`per-file-ignores` must map globs to rule lists".to_string(),
            );
        }
        out
    }

    fn clusters(&mut self, node: &Node, dir: &Path) -> Vec<ClusterConfig> {
        let Some(items) = node.as_seq() else {
            if !node.is_null() {
                self.error(
                    node.span,
                    "`clusters` must be a list of `{name, paths, inventory}`".to_string(),
                );
            }
            return Vec::new();
        };
        let mut out: Vec<ClusterConfig> = Vec::new();
        for item in items {
            let Some(entries) = item.as_map() else {
                self.error(
                    item.span,
                    "a cluster is `{name: …, paths: [globs], inventory: [files]}`".to_string(),
                );
                continue;
            };
            for (k, _) in entries {
                if !matches!(k.text(), Some("name" | "paths" | "inventory")) {
                    self.error(
                        k.span,
                        format!(
                            "unknown cluster key `{}`: expected `name`, `paths` or `inventory`",
                            k.text().unwrap_or("")
                        ),
                    );
                }
            }
            let name_node = item.get("name");
            let Some(name) = name_node.and_then(Node::text).filter(|n| !n.is_empty()) else {
                self.error(item.span, "a cluster needs a `name`".to_string());
                continue;
            };
            let span = name_node.map_or(item.span, |n| n.span);
            if name == "default" || out.iter().any(|c| c.name == name) {
                self.error(
                    span,
                    format!("cluster name `{name}` is taken (`default` names the files no cluster claims)"),
                );
                continue;
            }
            let mut paths = Vec::new();
            match item.get("paths") {
                Some(list) if list.as_seq().is_some() => {
                    for p in list.as_seq().unwrap_or_default() {
                        match p.text().map(|g| (g, crate::util::glob::PathGlobs::one(g))) {
                            Some((glob, Ok(_))) => {
                                paths.push((glob.to_string(), p.span));
                            }
                            Some((_, Err(e))) => self.error(p.span, e.to_string()),
                            None => self.error(p.span, "not a valid glob".to_string()),
                        }
                    }
                }
                _ => self.error(span, format!("cluster `{name}` needs `paths: [globs]`")),
            }
            let mut inventory = Vec::new();
            if let Some(f) = item.get("inventory") {
                for file in self.strings(f, "inventory") {
                    if let Some(p) = self.confined(dir, &file, f.span) {
                        inventory.push(p);
                    }
                }
            }
            out.push(ClusterConfig {
                name: name.to_string(),
                paths,
                inventory,
                span,
            });
        }
        out
    }

    fn inventory(&mut self, node: &Node, source: &Arc<SourceFile>, dir: &Path, cfg: &mut Config) {
        let (files, pools) = match (node.as_seq(), node.as_map()) {
            (Some(_), _) => (Some(node), None),
            (_, Some(_)) => {
                for (k, _) in node.as_map().unwrap_or_default() {
                    if !matches!(k.text(), Some("files" | "pools")) {
                        self.error(
                            k.span,
                            format!(
                                "unknown `inventory` key `{}`: expected `files` or `pools`",
                                k.text().unwrap_or("")
                            ),
                        );
                    }
                }
                (node.get("files"), node.get("pools"))
            }
            _ => {
                self.error(
                    node.span,
                    "`inventory` must be a list of files, or {files: [...], pools: [...]}"
                        .to_string(),
                );
                (None, None)
            }
        };
        if let Some(f) = files {
            for name in self.strings(f, "inventory") {
                if let Some(p) = self.confined(dir, &name, f.span) {
                    cfg.inventory_files.push(p);
                }
            }
        }
        if let Some(p) = pools {
            cfg.inline_pools = crate::analysis::sources::inventory_pools(p, source);
            for f in crate::rules::invalid_taint_spec::check_pools(p) {
                self.findings.push(f.in_file(source));
            }
        }
    }

    fn policies(&mut self, node: &Node) -> Vec<Policy> {
        let mut out = Vec::new();
        let Some(items) = node.as_seq() else {
            if !node.is_null() {
                self.error(node.span, "`policies` must be a list".to_string());
            }
            return out;
        };
        for item in items {
            let Some(taint) = item.get("taint").and_then(Node::text) else {
                self.error(
                    item.span,
                    "a policy needs `taint:` (a toleration key or glob)".to_string(),
                );
                continue;
            };
            if let Err(why) = crate::util::glob::check_length(taint) {
                let at = item.get("taint").map_or(item.span, |n| n.span);
                self.error(
                    at,
                    format!(
                        "policy glob {} is not used: {why}",
                        crate::util::glob::shown(taint)
                    ),
                );
                continue;
            }
            for (k, _) in item.as_map().unwrap_or_default() {
                if !matches!(k.text(), Some("taint" | "namespaces" | "workloads")) {
                    self.error(
                        k.span,
                        format!(
                            "unknown policy key `{}`: expected taint, namespaces, workloads",
                            k.text().unwrap_or("")
                        ),
                    );
                }
            }
            let namespaces = item
                .get("namespaces")
                .map(|n| self.key_globs(n, "namespaces"))
                .unwrap_or_default();
            let workloads = item
                .get("workloads")
                .map(|n| self.key_globs(n, "workloads"))
                .unwrap_or_default();
            out.push(Policy {
                taint: taint.to_string(),
                namespaces,
                workloads,
                loc: Some(Loc {
                    source: Arc::clone(self.source),
                    span: item.span,
                }),
            });
        }
        out
    }

    /// A list of key globs (`namespaces`, `workloads` of a policy): each at most
    /// `util::glob::MAX_GLOB_BYTES` long, a longer one reported and left out.
    fn key_globs(&mut self, node: &Node, key: &str) -> Vec<String> {
        let globs = self.strings(node, key);
        // `strings` keeps the scalar items, in order: pair each with its item for its place.
        let items = node
            .as_seq()
            .unwrap_or_default()
            .iter()
            .filter(|i| i.as_scalar().is_some() && i.text().is_some());
        let mut out = Vec::with_capacity(globs.len());
        for (glob, item) in globs.into_iter().zip(items) {
            match crate::util::glob::check_length(&glob) {
                Ok(()) => out.push(glob),
                Err(why) => self.error(
                    item.span,
                    format!(
                        "`{key}` glob {} is not used: {why}",
                        crate::util::glob::shown(&glob)
                    ),
                ),
            }
        }
        out
    }

    /// `admission-config:`: the cluster-wide settings of the admission plugins, as the API
    /// server's `--admission-control-config-file` gives them.
    fn admission_config(
        &mut self,
        node: &Node,
        out: &mut crate::analysis::judgements::admission::Config,
    ) {
        let settings = crate::settings::Settings::default();
        let selector = |v: &mut Self, n: &Node| -> Option<String> {
            let text = n.text().filter(|_| n.as_scalar().is_some()).unwrap_or("");
            match crate::analysis::judgements::admission::merge::parse_selector(text, &settings) {
                Ok(_) if n.as_scalar().is_some() || n.is_null() => Some(text.to_string()),
                Ok(_) => {
                    v.error(
                        n.span,
                        "a node selector must be a string like \"env=prod,tier=web\"".to_string(),
                    );
                    None
                }
                Err(e) => {
                    v.error(n.span, format!("invalid node selector: {e}"));
                    None
                }
            }
        };
        for (plugin, conf) in node.as_map().unwrap_or_default() {
            match plugin.text().unwrap_or("") {
                "PodNodeSelector" => {
                    for (k, val) in conf.as_map().unwrap_or_default() {
                        if let (Some(k), Some(sel)) = (k.text(), selector(self, val)) {
                            out.pod_node_selector.insert(k.to_string(), sel);
                        }
                    }
                }
                "PodTolerationRestriction" => {
                    for (k, val) in conf.as_map().unwrap_or_default() {
                        let list = self.tolerations(val);
                        match k.text() {
                            Some("default") => out.default_tolerations = Some(list),
                            Some("whitelist") => out.whitelist = Some(list),
                            other => self.error(
                                k.span,
                                format!("unknown PodTolerationRestriction key `{}`: expected default, whitelist", other.unwrap_or("")),
                            ),
                        }
                    }
                }
                "OpenShiftProjectNodeSelector" => {
                    for (k, val) in conf.as_map().unwrap_or_default() {
                        if k.text() == Some("defaultNodeSelector") {
                            if let Some(sel) = selector(self, val) {
                                out.openshift_default_node_selector = sel;
                            }
                        } else {
                            self.error(k.span, "unknown OpenShiftProjectNodeSelector key: expected defaultNodeSelector".to_string());
                        }
                    }
                }
                other => self.error(
                    plugin.span,
                    format!("`admission-config` has no settings for `{other}` (known: PodNodeSelector, PodTolerationRestriction, OpenShiftProjectNodeSelector)"),
                ),
            }
        }
    }

    /// A list of tolerations written as in a pod spec.
    fn tolerations(&mut self, node: &Node) -> Vec<crate::settings::PlainToleration> {
        let Some(items) = node.as_seq() else {
            if !node.is_null() {
                self.error(node.span, "expected a list of tolerations".to_string());
            }
            return Vec::new();
        };
        let field = |t: &Node, k: &str| t.get(k).and_then(Node::text).unwrap_or("").to_string();
        items
            .iter()
            .filter(|t| {
                let ok = t.as_map().is_some();
                if !ok {
                    self.error(t.span, "a toleration must be a mapping".to_string());
                }
                ok
            })
            .map(|t| crate::settings::PlainToleration {
                key: field(t, "key"),
                operator: field(t, "operator"),
                value: field(t, "value"),
                effect: field(t, "effect"),
                seconds: t
                    .get("tolerationSeconds")
                    .map(crate::load::yaml11::resolve)
                    .and_then(|r| r.as_i64()),
            })
            .collect()
    }

    /// `workload-kinds:`: kinds whose pods an operator makes, with where each pod role keeps
    /// its placement (the vocabulary of `model::roles`, the catalogue's).
    fn workload_kinds(&mut self, node: &Node) -> Vec<WorkloadKind> {
        let Some(items) = node.as_seq() else {
            if !node.is_null() {
                self.error(
                    node.span,
                    "`workload-kinds` must be a list of kinds".to_string(),
                );
            }
            return Vec::new();
        };
        let mut out = Vec::new();
        for item in items {
            let mut errors = Vec::new();
            let kind = crate::model::roles::parse_kind(item, &mut |span, message| {
                errors.push((span, message));
            });
            for (span, message) in errors {
                self.error(span, message);
            }
            out.extend(kind);
        }
        out
    }
}

impl Config {
    /// A record of which `per-file-ignores` globs the linted files match, filled as files
    /// come (a streamed run keeps no list of its files).
    pub fn glob_usage(&self) -> GlobUsage {
        // Every glob, in the order `unmatched_in` reports them, with its cluster (if a
        // cluster's path). The config kept only globs that compile (the others are findings).
        let (globs, clusters): (Vec<&str>, Vec<Option<usize>>) =
            self.per_file_ignores
                .iter()
                .map(|(glob, _, _)| (glob.as_str(), None))
                .chain(
                    self.clusters.iter().enumerate().flat_map(|(c, cl)| {
                        cl.paths.iter().map(move |(g, _)| (g.as_str(), Some(c)))
                    }),
                )
                .unzip();
        GlobUsage {
            set: crate::util::glob::PathGlobs::new(&globs).ok(),
            matched: clusters
                .iter()
                .map(|_| std::sync::atomic::AtomicBool::new(false))
                .collect(),
            clusters,
            cluster_count: self.clusters.len(),
            twice: std::sync::Mutex::new(Vec::new()),
        }
    }

    /// The `per-file-ignores` globs `usage` saw match nothing, as findings.
    pub fn unmatched_in(&self, usage: &GlobUsage) -> Vec<Finding> {
        let Some(source) = &self.source else {
            return Vec::new();
        };
        let mut out = Vec::new();
        let globs = self
            .per_file_ignores
            .iter()
            .map(|(glob, _, span)| (format!("`per-file-ignores` glob `{glob}`"), *span))
            .chain(self.clusters.iter().flat_map(|c| {
                c.paths
                    .iter()
                    .map(|(glob, span)| (format!("cluster `{}` path `{glob}`", c.name), *span))
            }));
        for ((what, span), matched) in globs.zip(&usage.matched) {
            if matched.load(std::sync::atomic::Ordering::Relaxed) {
                continue;
            }
            out.push(
                rules::INVALID_CONFIG.finding_at(Severity::Warning, format!("{what} matches no linted file"),
                )
                .primary(span, "matches nothing")
                .help("remove the entry, or fix the glob (it is matched against paths as given, and their suffixes)")
                .in_file(source),
            );
        }
        // A file two clusters claim belongs to the first; say so once per pair of clusters.
        let twice = usage
            .twice
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let mut pairs: Vec<(usize, usize, &str)> = Vec::new();
        for (file, first, second) in twice.iter() {
            if !pairs.iter().any(|(a, b, _)| (a, b) == (first, second)) {
                pairs.push((*first, *second, file));
            }
        }
        pairs.sort();
        for (first, second, file) in pairs {
            let (Some(a), Some(b)) = (self.clusters.get(first), self.clusters.get(second)) else {
                continue;
            };
            out.push(
                rules::INVALID_CONFIG
                    .finding(format!(
                        "clusters `{}` and `{}` both claim `{file}` (and perhaps more files); it belongs to `{}`, the first",
                        a.name, b.name, a.name
                    ))
                    .primary(b.span, "claims a file of another cluster")
                    .help("make the clusters' `paths` disjoint: a file belongs to one cluster")
                    .in_file(source),
            );
        }
        out
    }
}

/// Which `per-file-ignores` and cluster globs matched a linted file, and which files two
/// clusters claim (see [`Config::glob_usage`]).
pub struct GlobUsage {
    /// Every glob that compiles, in one matcher (#49: a config of thousands of globs costs
    /// one pass per file, not one per glob).
    set: Option<crate::util::glob::PathGlobs>,
    /// For each glob: whether a file matched it.
    matched: Vec<std::sync::atomic::AtomicBool>,
    /// For each glob: its cluster (if a cluster's path).
    clusters: Vec<Option<usize>>,
    /// How many clusters the config names.
    cluster_count: usize,
    /// Files claimed by two clusters: (file, first cluster, second cluster).
    twice: std::sync::Mutex<Vec<(String, usize, usize)>>,
}

impl GlobUsage {
    /// No globs to look for.
    pub fn is_empty(&self) -> bool {
        self.matched.is_empty()
    }

    /// Records a linted file's name. Safe to call from several threads.
    pub fn see(&self, file: &str) {
        let Some(set) = &self.set else { return };
        let mut claimed: Vec<usize> = Vec::new();
        for i in set.matching(file) {
            if let Some(m) = self.matched.get(i) {
                m.store(true, std::sync::atomic::Ordering::Relaxed);
            }
            claimed.extend(self.clusters.get(i).copied().flatten());
        }
        if self.cluster_count > 1 {
            claimed.sort_unstable();
            claimed.dedup();
            if let [first, second, ..] = claimed[..] {
                self.twice
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner)
                    .push((file.to_string(), first, second));
            }
        }
    }
}
