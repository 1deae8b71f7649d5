//! The workspace as `taintlint check` run at its root sees it: per config (found from each
//! file's folder, as the CLI finds it), the options, the declared inventories and the node
//! pools of every file the walk would lint. Built on the worker thread, once at start-up
//! and again when files are saved or change on disk; the open buffers' own pools (of their
//! unsaved text) replace those of their files on disk.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use rayon::prelude::*;

use crate::analysis::judgements::admission::Fact;
use crate::analysis::sources::clusters::{Anchor, AnchorKind, anchors_of_file};
use crate::analysis::types::NodeDecl;
use crate::analysis::types::kueue::Kueue;
use crate::cli::InputArgs;
use crate::commands::{self, Gathered, ToolError};
use crate::engine::{self, Input, LintOptions};

/// The command-line defaults of `taintlint check ROOT`.
#[derive(clap::Parser)]
struct Defaults {
    #[command(flatten)]
    input: InputArgs,
}

fn input_args(root: &Path) -> Result<InputArgs, ToolError> {
    <Defaults as clap::Parser>::try_parse_from([
        std::ffi::OsStr::new("taintlint"),
        root.as_os_str(),
    ])
    .map(|d| d.input)
    .map_err(|e| ToolError(e.to_string()))
}

/// A workspace file as linted: (name, cluster slot, pools, admission facts, its Terraform
/// file to evaluate by directory).
type Found = (
    String,
    usize,
    Vec<NodeDecl>,
    Vec<Fact>,
    Option<engine::TerraformFile>,
    Extra,
);

/// A found file's cluster definitions and Kueue objects (for the default cluster's files
/// outside test data, as `check` counts them).
type Extra = (Vec<Anchor>, Option<Kueue>, Vec<Box<str>>);

/// What one config's run would know before it lints a buffer.
pub(crate) struct Scope {
    pub(crate) opts: LintOptions,
    /// The `--inventory`/`inventory:` files' pools (declared for every cluster), by file.
    inventory: BTreeMap<String, Vec<NodeDecl>>,
    /// Each cluster's `inventory:` files' pools: (cluster, declarations), by file.
    cluster_inventory: BTreeMap<String, Vec<(usize, NodeDecl)>>,
    /// The pools of the files the walk finds, by file: (cluster slot, declarations).
    files: BTreeMap<String, (usize, Vec<NodeDecl>)>,
    /// The Namespaces and RuntimeClasses of the files the walk finds, by file (for
    /// admission): (cluster slot, facts).
    facts: BTreeMap<String, (usize, Vec<Fact>)>,
    /// The cluster definitions among the files, with the file each comes from (`""` for a
    /// Terraform root's, found by its directory's evaluation).
    anchors: Vec<(String, Anchor)>,
    /// The Kueue objects of the files the walk finds, by file: (cluster slot, objects).
    kueue: BTreeMap<String, (usize, Kueue)>,
    /// The label keys the files the walk finds mention where no pool is read, by file (see
    /// `analysis::sources::mentions`).
    mentions: BTreeMap<String, Vec<Box<str>>>,
    /// The config's `exclude` (`None`: a glob that does not compile, reported by the walk).
    exclude: Option<crate::load::walk::WalkOptions>,
}

impl Scope {
    /// Reads the config for files in `dir` and the workspace at `root` as `check` would.
    /// What cannot be read is said in `problems` and left out: an unusable config lints
    /// with the defaults, an unwalkable workspace with no other file's pools.
    pub(crate) fn build(root: &Path, dir: &Path, problems: &mut Vec<String>) -> Scope {
        let cfg = commands::config_for(dir, root).unwrap_or_else(|e| {
            problems.push(format!("taintlint: {e}; linting with the default config"));
            crate::config::Config::default()
        });
        // The config's mistakes are findings on the config file, which the editor may not
        // have open: its errors are shown (a glob that cannot compile, a policy glob too
        // long…), a few of them.
        let errors: Vec<String> = cfg
            .findings
            .iter()
            .filter(|f| f.severity == crate::diagnostic::Severity::Error)
            .map(|f| {
                let (at, _) = f.range();
                format!(
                    "taintlint: {}:{}:{}: {}",
                    f.file, at.line, at.column, f.message
                )
            })
            .collect();
        const SHOWN: usize = 3;
        problems.extend(errors.iter().take(SHOWN).cloned());
        if errors.len() > SHOWN {
            problems.push(format!(
                "taintlint: and {} more errors in the config",
                errors.len() - SHOWN
            ));
        }
        let input = input_args(root);
        // The buffers' diagnostics are the CLI's, so its options, with every finding kept.
        let opts = match &input {
            Ok(input) => commands::lint_options(input, &[], &[], &cfg),
            Err(e) => Err(ToolError(e.0.clone())),
        };
        let opts = opts.unwrap_or_else(|e| {
            problems.push(format!("taintlint: {e}; linting with the default options"));
            LintOptions::default()
        });
        let mut opts = opts;
        opts.keep_sources = true;
        opts.budget = engine::store::UNLIMITED;
        let exclude = crate::load::walk::WalkOptions::new(&[], &cfg.exclude, false).ok();
        let lists = input
            .and_then(|input| Gathered::new(&input, &cfg)?.into_lists())
            .unwrap_or_else(|e| {
                problems.push(format!(
                    "taintlint: the workspace cannot be read ({e}); only the open files' node pools count"
                ));
                commands::WorkspaceLists {
                    files: Vec::new(),
                    inventory: Vec::new(),
                    cluster_inventory: Vec::new(),
                }
            });
        let decls = |inputs: Vec<Input>| -> Vec<(String, Vec<NodeDecl>)> {
            inputs
                .into_par_iter()
                .map(|i| {
                    let name = i.name();
                    let mut nodes = engine::lint_one(i, &opts).nodes;
                    nodes.iter_mut().for_each(|n| n.declared = true);
                    (name, nodes)
                })
                .collect()
        };
        let inventory: BTreeMap<String, Vec<NodeDecl>> =
            decls(lists.inventory).into_iter().collect();
        let mut cluster_inventory: BTreeMap<String, Vec<(usize, NodeDecl)>> = BTreeMap::new();
        for (cluster, i) in lists.cluster_inventory {
            for (name, nodes) in decls(vec![i]) {
                cluster_inventory
                    .entry(name)
                    .or_default()
                    .extend(nodes.into_iter().map(|n| (cluster, n)));
            }
        }
        let given: BTreeSet<&String> = inventory.keys().chain(cluster_inventory.keys()).collect();
        let found: Vec<Found> = lists
            .files
            .into_par_iter()
            .filter(|i| !given.contains(&i.name()))
            .map(|i| {
                let name = i.name();
                let mut report = engine::lint_one(i, &opts);
                let terraform = report.terraform.take().map(|t| *t);
                let facts = if engine::is_fixture(&name, &opts.roots) {
                    Vec::new()
                } else {
                    report.admission
                };
                let slot = opts.slot_of(&name);
                // As `engine::lint_spilled` counts them.
                let fixture = engine::is_fixture(&name, &opts.roots);
                let mentions = std::mem::take(&mut report.label_mentions);
                let extra: Extra = if fixture {
                    (Vec::new(), None, mentions)
                } else {
                    let anchors = if slot == opts.clusters.len() {
                        anchors_of_file(&name, &report.nodes)
                    } else {
                        Vec::new()
                    };
                    let kueue = std::mem::take(&mut report.kueue);
                    (anchors, (!kueue.is_empty()).then_some(kueue), mentions)
                };
                let nodes = file_decls(&opts, &name, report.nodes);
                (name, slot, nodes, facts, terraform, extra)
            })
            .filter(|(_, _, nodes, facts, tf, (anchors, kueue, mentions))| {
                !nodes.is_empty()
                    || !facts.is_empty()
                    || tf.is_some()
                    || !anchors.is_empty()
                    || kueue.is_some()
                    || !mentions.is_empty()
            })
            .collect();
        let mut files: BTreeMap<String, (usize, Vec<NodeDecl>)> = BTreeMap::new();
        let mut facts = BTreeMap::new();
        let mut terraform = Vec::new();
        let mut anchors = Vec::new();
        let mut kueue = BTreeMap::new();
        let mut mentions = BTreeMap::new();
        let found: Vec<(String, usize, Vec<NodeDecl>, Vec<Fact>)> = found
            .into_iter()
            .map(|(name, slot, nodes, f, tf, (file_anchors, k, m))| {
                if !m.is_empty() {
                    mentions.insert(name.clone(), m);
                }
                if let Some(tf) = tf {
                    terraform.push((name.clone(), slot, tf));
                }
                anchors.extend(file_anchors.into_iter().map(|a| (name.clone(), a)));
                if let Some(k) = k {
                    kueue.insert(name.clone(), (slot, k));
                }
                (name, slot, nodes, f)
            })
            .collect();
        // Terraform's pools, evaluated by directory (each given to its root's first file),
        // and the roots that create a cluster.
        let (pools, roots) = engine::workspace_pools(terraform, &opts);
        anchors.extend(roots.into_iter().map(|dir| {
            (
                String::new(),
                Anchor {
                    kind: AnchorKind::Terraform,
                    path: dir.clone(),
                    dir,
                },
            )
        }));
        for (name, slot, decl) in pools {
            files
                .entry(name)
                .or_insert_with(|| (slot, Vec::new()))
                .1
                .push(decl);
        }
        for (name, slot, nodes, f) in found {
            if !f.is_empty() {
                facts.insert(name.clone(), (slot, f));
            }
            if !nodes.is_empty() {
                files
                    .entry(name)
                    .or_insert_with(|| (slot, Vec::new()))
                    .1
                    .extend(nodes);
            }
        }
        Scope {
            opts,
            inventory,
            cluster_inventory,
            files,
            facts,
            anchors,
            kueue,
            mentions,
            exclude,
        }
    }

    /// The options for linting the buffer named `name`: the run's, with every pool it would
    /// know besides the buffer's own as `extra_nodes`. `open` are the open buffers' pools
    /// (their unsaved text), in place of their files'; `own` the buffer's pools from its last
    /// text that parsed, while its current one does not.
    pub(crate) fn options_for(
        &self,
        name: &str,
        open: &BTreeMap<String, Vec<NodeDecl>>,
        own: Option<&[NodeDecl]>,
    ) -> LintOptions {
        let mut opts = self.opts.clone();
        let slot = opts.slot_of(name);
        let mut extra = Vec::new();
        for (file, decls) in &self.inventory {
            if file != name {
                extra.extend(decls.iter().cloned());
            }
        }
        for (file, decls) in &self.cluster_inventory {
            if file != name {
                extra.extend(
                    decls
                        .iter()
                        .filter(|(c, _)| *c == slot)
                        .map(|(_, d)| d.clone()),
                );
            }
        }
        opts.extra_nodes.extend(extra);
        // The pools found in the other files, counted as `check` counts them: in their
        // folders, for the clusters the files define.
        let mut found = Vec::new();
        for (file, (s, decls)) in &self.files {
            if file != name && *s == slot && !open.contains_key(file) {
                let file: std::sync::Arc<str> = file.as_str().into();
                found.extend(decls.iter().map(|d| (file.clone(), slot, d.clone())));
            }
        }
        for (file, decls) in open {
            if file != name && opts.slot_of(file) == slot && !self.is_inventory(file) {
                let f: std::sync::Arc<str> = file.as_str().into();
                found.extend(
                    file_decls(&opts, file, decls.clone())
                        .into_iter()
                        .map(|d| (f.clone(), slot, d)),
                );
            }
        }
        if let Some(own) = own {
            let file: std::sync::Arc<str> = name.into();
            found.extend(own.iter().map(|d| (file.clone(), slot, d.clone())));
        }
        opts.workspace.nodes = found;
        // The buffer's own definitions come from its text.
        opts.workspace.anchors = self
            .anchors
            .iter()
            .filter(|(file, _)| file != name)
            .map(|(_, a)| a.clone())
            .collect();
        opts.workspace.kueue = self
            .kueue
            .iter()
            .filter(|(file, (s, _))| *file != name && *s == slot)
            .map(|(_, (s, k))| (*s, k.clone()))
            .collect();
        opts.workspace.mentions = self
            .mentions
            .iter()
            .filter(|(file, _)| *file != name)
            .flat_map(|(_, m)| m.iter().cloned())
            .collect();
        // The other files' Namespaces and RuntimeClasses, as saved.
        for (file, (s, facts)) in &self.facts {
            if file != name && *s == slot {
                opts.extra_admission.extend(facts.iter().cloned());
            }
        }
        opts
    }

    /// Whether the config excludes this file: `check` does not lint it even when named.
    pub(crate) fn excludes(&self, name: &str) -> bool {
        self.exclude
            .as_ref()
            .is_some_and(|w| w.excluded(Path::new(name)))
    }

    fn is_inventory(&self, name: &str) -> bool {
        self.inventory.contains_key(name) || self.cluster_inventory.contains_key(name)
    }

    /// How many pools the workspace's files and inventories declare (for the log).
    pub(crate) fn declarations(&self) -> usize {
        self.inventory.values().map(Vec::len).sum::<usize>()
            + self.cluster_inventory.values().map(Vec::len).sum::<usize>()
            + self.files.values().map(|(_, d)| d.len()).sum::<usize>()
    }
}

/// A found file's declarations as a run counts them: test data and vendored code keep only
/// what they declare (see `engine::is_fixture`).
fn file_decls(opts: &LintOptions, name: &str, mut nodes: Vec<NodeDecl>) -> Vec<NodeDecl> {
    if engine::is_fixture(name, &opts.roots) {
        nodes.retain(|n| n.declared);
    }
    nodes
}

/// The scopes of a workspace, by the config file they were built for (`None`: no config).
pub(crate) struct Workspace {
    pub(crate) root: PathBuf,
    scopes: BTreeMap<Option<PathBuf>, Scope>,
}

impl Workspace {
    pub(crate) fn new(root: PathBuf) -> Self {
        Workspace {
            root,
            scopes: BTreeMap::new(),
        }
    }

    /// Forgets every scope: they are built again when next needed.
    pub(crate) fn clear(&mut self) {
        self.scopes.clear();
    }

    /// The scope of a file in `dir`, built now if it is not yet; what could not be read
    /// while building it goes to `problems`.
    pub(crate) fn scope(&mut self, dir: &Path, problems: &mut Vec<String>) -> &Scope {
        let key = commands::config_path_for(dir);
        let root = self.root.clone();
        self.scopes
            .entry(key)
            .or_insert_with(|| Scope::build(&root, dir, problems))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A buffer is admitted with the RuntimeClasses and Namespaces of the workspace's other
    /// files, as `check` at the root admits it.
    #[test]
    fn other_files_runtime_classes_reach_a_buffer() {
        let dir = tempfile::tempdir().expect("temp dir");
        let rc = "apiVersion: node.k8s.io/v1\nkind: RuntimeClass\nmetadata: {name: gvisor}\nhandler: runsc\nscheduling:\n  nodeSelector: {sandbox: gvisor}\n";
        let pod = "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  runtimeClassName: gvisor\n  nodeSelector: {sandbox: runc}\n  containers: [{name: c, image: i}]\n";
        std::fs::write(dir.path().join("rc.yaml"), rc).expect("write");
        std::fs::write(dir.path().join("pod.yaml"), pod).expect("write");
        let mut problems = Vec::new();
        let scope = Scope::build(dir.path(), dir.path(), &mut problems);
        let name = dir.path().join("pod.yaml").display().to_string();
        let opts = scope.options_for(&name, &BTreeMap::new(), None);
        assert_eq!(opts.extra_admission.len(), 1, "{problems:?}");
        let linted = engine::lint_text(&name, pod, &opts).expect("linted");
        assert!(
            linted
                .findings
                .iter()
                .any(|f| f.rule == "admission-rejected"),
            "{:?}",
            linted.findings
        );
    }
}
