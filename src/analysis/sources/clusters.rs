//! Clusters inferred from the files: which files belong to the cluster one of them defines.
//!
//! A cluster is *defined* by an anchor:
//!
//! - a Terraform root module (the directory `terraform plan` runs in) that creates a cluster:
//!   an `aws_eks_cluster`, `google_container_cluster` or `azurerm_kubernetes_cluster`
//!   resource, or the terraform-aws-modules/eks or terraform-google-modules/kubernetes-engine
//!   module, in the root or in a local module it calls;
//! - an eksctl `ClusterConfig` (its file's folder);
//! - a `clusters/<name>/` folder (the Flux and Argo CD layout of one folder per cluster).
//!
//! Each anchor's folder grows into its *stack*: from the anchor's folder up through every
//! folder named for infrastructure (a name with a word such as `terraform`, `tf`, `infra`,
//! `cluster` or `platform`: see [`INFRA_WORDS`]) to the folder that holds it, and no higher,
//! nor into a folder that holds another anchor. So `shop/infra/terraform` makes the stack
//! `shop/` (the project the infrastructure is for, with its manifests beside it), while a
//! tutorial whose own folder holds its `main.tf` (`samples/networking/`) keeps that folder: a
//! repository of many examples never joins a sibling example to a cluster it does not use.
//! One anchor in the run grows the same way: a quick start for one cloud in `aws/` says
//! nothing of the samples for other platforms beside it. A file belongs to the
//! stack whose folder is the deepest one it lies in; a file in no stack's folder belongs to
//! none. Two anchors in one folder (two eksctl files side by side) make a stack with no single
//! definition: it defines nothing.
//!
//! Each step is a lookup per folder of a path: the work is linear in the paths' lengths.

use std::collections::HashMap;

/// What kind of file defines a cluster.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum AnchorKind {
    Terraform,
    Eksctl,
    ClustersFolder,
}

/// A definition of a cluster among the files.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Anchor {
    pub kind: AnchorKind,
    /// Its folder, as the run names files (`""` for the top).
    pub dir: String,
    /// What defines it, for messages: the Terraform root, the eksctl file, the folder.
    pub path: String,
}

impl Anchor {
    /// `Terraform root `infra/terraform``, `eksctl ClusterConfig `cluster.yaml``,
    /// `folder `clusters/prod``.
    pub fn describe(&self) -> String {
        let path = crate::util::text::escape(if self.path.is_empty() {
            "."
        } else {
            &self.path
        });
        match self.kind {
            AnchorKind::Terraform => format!("the Terraform root `{path}`"),
            AnchorKind::Eksctl => format!("the eksctl ClusterConfig `{path}`"),
            AnchorKind::ClustersFolder => format!("the folder `{path}`"),
        }
    }

    /// `the cluster the Terraform root `infra/terraform` creates`.
    pub fn cluster(&self) -> String {
        match self.kind {
            AnchorKind::Terraform => format!("the cluster {} creates", self.describe()),
            _ => format!("the cluster of {}", self.describe()),
        }
    }
}

/// One inferred cluster: its folder and the anchors in it.
#[derive(Clone, Debug)]
pub struct Stack {
    /// The stack's folder (`""` for the top).
    pub root: String,
    pub anchors: Vec<Anchor>,
    /// Folders outside it that its own files apply (a Flux `Kustomization`'s `path`, an Argo
    /// CD `Application`'s), with the file that applies each: their files belong to it too.
    pub applied: Vec<(String, String)>,
}

impl Stack {
    /// The one anchor that defines the stack; `None` when two anchors share its folder.
    pub fn anchor(&self) -> Option<&Anchor> {
        match self.anchors.as_slice() {
            [one] => Some(one),
            _ => None,
        }
    }

    /// `infra/terraform` (a Terraform root), `.` for the top.
    pub fn name(&self) -> String {
        match self.anchor() {
            Some(a) if !a.path.is_empty() => a.path.clone(),
            _ if self.root.is_empty() => ".".to_string(),
            _ => self.root.clone(),
        }
    }

    /// Why a file belongs to it, for `explain` and `matrix`.
    pub fn why(&self) -> String {
        let folder = if self.root.is_empty() {
            "every linted file belongs to it (the files define no other cluster)".to_string()
        } else {
            let root = crate::util::text::escape(&self.root);
            match self.anchor() {
                Some(a) if a.dir != self.root => format!(
                    "the files under `{root}/` belong to it (its definition's folder, grown up through the folders named for infrastructure)"
                ),
                _ => format!("the files under `{root}/` belong to it (its definition's folder)"),
            }
        };
        match self.anchor() {
            Some(_) => folder,
            None => format!(
                "{folder}; {} definitions share this folder, so none defines it",
                self.anchors.len()
            ),
        }
    }
}

/// The clusters inferred from a run's anchors.
#[derive(Clone, Debug, Default)]
pub struct Stacks {
    pub stacks: Vec<Stack>,
    /// Stack index by stack folder.
    by_root: HashMap<String, usize>,
}

/// The cluster a run's pools were inferred to make up: every pool of the default cluster lies
/// in one stack, which one anchor defines. Its workloads are judged against its pools as a
/// cluster the files define (see `analysis::judgements::evidence`).
#[derive(Clone, Debug)]
pub struct ClusterDef {
    pub stacks: std::sync::Arc<Stacks>,
    pub stack: usize,
}

impl ClusterDef {
    /// Does this file belong to the cluster?
    pub fn holds(&self, file: &str) -> bool {
        self.stacks.of(file) == Some(self.stack)
    }

    pub fn stack(&self) -> Option<&Stack> {
        self.stacks.get(self.stack)
    }

    /// Is it defined by a file that creates it (a Terraform root, an eksctl `ClusterConfig`),
    /// not by a `clusters/<name>/` folder, whose base nodes may be made elsewhere?
    pub fn creates(&self) -> bool {
        self.stack()
            .and_then(Stack::anchor)
            .is_some_and(|a| matches!(a.kind, AnchorKind::Terraform | AnchorKind::Eksctl))
    }

    /// `the cluster the Terraform root `infra/terraform` creates`.
    pub fn describe(&self) -> String {
        match self.stack().and_then(Stack::anchor) {
            Some(a) => a.cluster(),
            None => "the cluster".to_string(),
        }
    }

    /// The stacks' folder of a Terraform root (`.` for the top), or a file's folder.
    pub fn home(dir: &str) -> &str {
        if dir == "." { "" } else { dir }
    }
}

/// The folder of a file name (`""` at the top).
pub fn dir_of(file: &str) -> &str {
    file.rfind('/').map_or("", |i| &file[..i])
}

/// The folders above `dir` and `dir` itself, deepest first, ending with the top (`""`).
fn ancestors(dir: &str) -> impl Iterator<Item = &str> {
    let mut next = Some(dir);
    std::iter::from_fn(move || {
        let cur = next?;
        next = if cur.is_empty() {
            None
        } else {
            Some(dir_of(cur))
        };
        Some(cur)
    })
}

/// The cluster definitions a file of the default cluster makes: its `clusters/<name>`
/// folder, and its folder when it is an eksctl config (one with eksctl's node groups).
/// Terraform roots are found by their directory's evaluation.
pub fn anchors_of_file(name: &str, nodes: &[crate::analysis::types::NodeDecl]) -> Vec<Anchor> {
    let mut anchors = Vec::new();
    if let Some(folder) = clusters_folder(name) {
        anchors.push(Anchor {
            kind: AnchorKind::ClustersFolder,
            dir: folder.to_string(),
            path: folder.to_string(),
        });
    }
    if nodes.iter().any(|n| n.origin.starts_with("eksctl")) {
        anchors.push(Anchor {
            kind: AnchorKind::Eksctl,
            dir: dir_of(name).to_string(),
            path: name.to_string(),
        });
    }
    anchors
}

/// The `clusters/<name>` folder a file lies under, if any (the innermost).
pub fn clusters_folder(file: &str) -> Option<&str> {
    let dir = dir_of(file);
    let mut found = None;
    let mut start = 0;
    let parts: Vec<&str> = dir.split('/').collect();
    for (i, p) in parts.iter().enumerate() {
        if *p == "clusters"
            && let Some(name) = parts.get(i + 1)
            && !name.is_empty()
        {
            let end = start + p.len() + 1 + name.len();
            found = dir.get(..end);
        }
        start += p.len() + 1;
    }
    found
}

/// Words that name a folder for the infrastructure a project runs on rather than the project
/// itself (`infra`, `terraform`, `gke-cluster`, `eks_platform`): a stack grows past them.
pub const INFRA_WORDS: &[&str] = &[
    "aks",
    "cluster",
    "clusters",
    "eks",
    "eksctl",
    "gke",
    "iac",
    "infra",
    "infrastructure",
    "opentofu",
    "platform",
    "terraform",
    "tf",
    "tofu",
];

/// The last name of a folder path.
fn last_name(dir: &str) -> &str {
    dir.rfind('/').map_or(dir, |i| &dir[i + 1..])
}

/// Is a folder named for infrastructure: one of its words (split at `-`, `_`, `.`) is in
/// [`INFRA_WORDS`], compared without case?
pub fn infra_named(name: &str) -> bool {
    name.split(['-', '_', '.'])
        .any(|w| INFRA_WORDS.iter().any(|i| i.eq_ignore_ascii_case(w)))
}

impl Stacks {
    /// The stacks of these anchors (see the module's text).
    pub fn infer(mut anchors: Vec<Anchor>) -> Stacks {
        anchors.sort();
        anchors.dedup();
        // How many anchor folders each folder holds (itself included).
        let mut dirs: Vec<&str> = anchors.iter().map(|a| a.dir.as_str()).collect();
        dirs.dedup();
        let mut holds: HashMap<&str, usize> = HashMap::new();
        for d in &dirs {
            for a in ancestors(d) {
                *holds.entry(a).or_default() += 1;
            }
        }
        let mut stacks: Vec<Stack> = Vec::new();
        let mut by_root: HashMap<String, usize> = HashMap::new();
        for a in anchors.iter() {
            // Up through the folders named for infrastructure, to the one holding them, while
            // the folder above holds no other anchor. One anchor alone grows no further: a
            // quick start's `aws/main.tf` says nothing of the samples beside it for other
            // platforms.
            let mut root = a.dir.as_str();
            while !root.is_empty() && infra_named(last_name(root)) {
                let up = dir_of(root);
                if holds.get(up).copied().unwrap_or(0) > 1 {
                    break;
                }
                root = up;
            }
            let i = *by_root.entry(root.to_string()).or_insert_with(|| {
                stacks.push(Stack {
                    root: root.to_string(),
                    anchors: Vec::new(),
                    applied: Vec::new(),
                });
                stacks.len() - 1
            });
            if let Some(s) = stacks.get_mut(i) {
                s.anchors.push(a.clone());
            }
        }
        Stacks { stacks, by_root }
    }

    /// The stack a file belongs to: the one whose folder is the deepest holding it.
    pub fn of(&self, file: &str) -> Option<usize> {
        if self.stacks.is_empty() {
            return None;
        }
        ancestors(dir_of(file)).find_map(|d| self.by_root.get(d).copied())
    }

    /// The stack of a folder (a Terraform root's): the deepest stack folder holding it.
    pub fn of_dir(&self, dir: &str) -> Option<usize> {
        if self.stacks.is_empty() {
            return None;
        }
        ancestors(dir).find_map(|d| self.by_root.get(d).copied())
    }

    pub fn get(&self, i: usize) -> Option<&Stack> {
        self.stacks.get(i)
    }

    pub fn is_empty(&self) -> bool {
        self.stacks.is_empty()
    }

    /// Adds the folders the clusters' own files apply (`links`: the applying file and the
    /// folder, as the run names them; see `sources::links`): a folder one cluster's files
    /// apply belongs to that cluster, as its own folder does. A folder applied by the files of
    /// several clusters (a shared base), or by files of none, stays where it was: nothing
    /// says which cluster it runs on. A folder that is a stack's own keeps its stack.
    pub fn link(&mut self, links: &[(String, String)]) {
        let mut by_folder: std::collections::BTreeMap<&str, Vec<(usize, &str)>> =
            std::collections::BTreeMap::new();
        for (from, folder) in links {
            let Some(k) = self
                .of(from)
                .filter(|&k| self.stacks.get(k).and_then(Stack::anchor).is_some())
            else {
                continue;
            };
            by_folder
                .entry(folder.as_str())
                .or_default()
                .push((k, from));
        }
        for (folder, mut froms) in by_folder {
            froms.sort_unstable();
            froms.dedup_by_key(|(k, _)| *k);
            let [(k, from)] = froms.as_slice() else {
                continue;
            };
            if self.by_root.contains_key(folder) {
                continue;
            }
            self.by_root.insert(folder.to_string(), *k);
            if let Some(s) = self.stacks.get_mut(*k) {
                s.applied.push((folder.to_string(), (*from).to_string()));
            }
        }
    }

    /// Why a file of stack `k` belongs to it, when a file of the stack applies its folder
    /// (see [`Stacks::link`]).
    pub fn applied_by(&self, file: &str) -> Option<(&str, &str)> {
        let k = self.of(file)?;
        let folder = ancestors(dir_of(file)).find(|d| self.by_root.contains_key(*d))?;
        self.stacks
            .get(k)?
            .applied
            .iter()
            .find(|(f, _)| f == folder)
            .map(|(f, from)| (f.as_str(), from.as_str()))
    }

    /// Are the files split into clusters judged alone? When one anchor alone defines at least
    /// one stack: each such stack is a cluster of its own, and the files and found pools in
    /// none of them are judged together, never against an inferred cluster's pools
    /// (`engine::Placement`).
    pub fn split(&self) -> bool {
        self.stacks.iter().any(|s| s.anchor().is_some())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tf(dir: &str) -> Anchor {
        Anchor {
            kind: AnchorKind::Terraform,
            dir: dir.to_string(),
            path: dir.to_string(),
        }
    }

    fn eksctl(file: &str) -> Anchor {
        Anchor {
            kind: AnchorKind::Eksctl,
            dir: dir_of(file).to_string(),
            path: file.to_string(),
        }
    }

    #[test]
    fn folders_a_clusters_files_apply_are_its_own() {
        let folder = |d: &str| Anchor {
            kind: AnchorKind::ClustersFolder,
            dir: d.to_string(),
            path: d.to_string(),
        };
        let mut s = Stacks::infer(vec![folder("clusters/prod"), folder("clusters/staging")]);
        let l = |from: &str, to: &str| (from.to_string(), to.to_string());
        s.link(&[
            l("clusters/prod/apps.yaml", "apps/prod"),
            l("clusters/staging/apps.yaml", "apps/staging"),
            // A base both apply: no one cluster's.
            l("clusters/prod/infra.yaml", "infrastructure"),
            l("clusters/staging/infra.yaml", "infrastructure"),
            // Applied from a file of no cluster: nothing said.
            l("argocd/app.yaml", "apps/dev"),
        ]);
        let prod = s.of("clusters/prod/x.yaml");
        assert!(prod.is_some());
        assert_eq!(s.of("apps/prod/web/deploy.yaml"), prod);
        assert_ne!(s.of("apps/staging/deploy.yaml"), prod);
        assert!(s.of("apps/staging/deploy.yaml").is_some());
        assert_eq!(s.of("infrastructure/ds.yaml"), None);
        assert_eq!(s.of("apps/dev/x.yaml"), None);
        assert_eq!(
            s.applied_by("apps/prod/web/deploy.yaml"),
            Some(("apps/prod", "clusters/prod/apps.yaml"))
        );
        assert_eq!(s.applied_by("clusters/prod/x.yaml"), None);
    }

    #[test]
    fn one_anchor_grows_as_any_other() {
        // Through the folders named for infrastructure: here the whole tree.
        let s = Stacks::infer(vec![tf("infra/terraform")]);
        assert_eq!(s.stacks.len(), 1);
        assert_eq!(s.stacks[0].root, "");
        assert_eq!(s.of("data-stacks/spark/app.yaml"), Some(0));
        assert_eq!(s.of("top.yaml"), Some(0));
        assert_eq!(s.stacks[0].name(), "infra/terraform");
        // A quick start for one cloud says nothing of the samples for others beside it.
        let s = Stacks::infer(vec![tf("quickstart/aws")]);
        assert_eq!(s.stacks[0].root, "quickstart/aws");
        assert_eq!(s.of("quickstart/aws/k8s/app.yaml"), Some(0));
        assert_eq!(s.of("samples/tpu/job.yaml"), None);
    }

    #[test]
    fn stacks_side_by_side() {
        let s = Stacks::infer(vec![
            tf("samples/a/terraform"),
            tf("samples/b"),
            eksctl("eksctl/c/cluster.yaml"),
        ]);
        let root = |f: &str| s.of(f).and_then(|i| s.get(i)).map(|s| s.root.clone());
        assert_eq!(
            root("samples/a/manifests/app.yaml").as_deref(),
            Some("samples/a")
        );
        assert_eq!(root("samples/b/app.yaml").as_deref(), Some("samples/b"));
        assert_eq!(root("eksctl/c/app.yaml").as_deref(), Some("eksctl/c"));
        assert_eq!(s.of("eksctl/other.yaml"), None);
        // Beside the stacks' folders: no stack.
        assert_eq!(s.of("samples/shared.yaml"), None);
        assert_eq!(s.of("README.yaml"), None);
    }

    #[test]
    fn stacks_grow_through_infrastructure_folders_only() {
        let s = Stacks::infer(vec![
            // A tutorial whose cluster lives in its `cluster/` folder, beside other tutorials.
            tf("ai-ml/ray/tpu/get-started/cluster"),
            tf("ai-ml/ray/gke-platform"),
            // Infrastructure two folders deep.
            tf("demos/vit/tf/platform"),
            // A tutorial folder that holds its own Terraform root.
            tf("autopilot/networking-tutorial"),
        ]);
        let root = |f: &str| s.of(f).and_then(|i| s.get(i)).map(|s| s.root.clone());
        assert_eq!(
            root("ai-ml/ray/tpu/get-started/train/ray.yaml").as_deref(),
            Some("ai-ml/ray/tpu/get-started")
        );
        // A sibling tutorial is no part of it.
        assert_eq!(root("ai-ml/ray/tpu/dws/rayjob.yaml"), None);
        assert_eq!(root("ai-ml/ray/tpu/job.yaml"), None);
        // `gke-platform` is named for infrastructure, but the folder above holds another
        // anchor: it stays where it is.
        assert_eq!(
            root("ai-ml/ray/gke-platform/x.yaml").as_deref(),
            Some("ai-ml/ray/gke-platform")
        );
        assert_eq!(root("ai-ml/ray/rayserve/x.yaml"), None);
        assert_eq!(
            root("demos/vit/yamls/spec.yaml").as_deref(),
            Some("demos/vit")
        );
        assert_eq!(root("demos/other/x.yaml"), None);
        assert_eq!(
            root("autopilot/networking-tutorial/k8s.yaml").as_deref(),
            Some("autopilot/networking-tutorial")
        );
        assert_eq!(root("autopilot/other/k8s.yaml"), None);
    }

    #[test]
    fn infrastructure_names() {
        for n in [
            "terraform",
            "tf",
            "infra",
            "gke-cluster",
            "eks_platform",
            "Terraform.aws",
        ] {
            assert!(infra_named(n), "{n}");
        }
        for n in [
            "get-started",
            "examples",
            "spark-on-k8s",
            "platformer",
            "dws",
            "",
        ] {
            assert!(!infra_named(n), "{n}");
        }
    }

    #[test]
    fn nested_anchor_keeps_its_own_folder() {
        let s = Stacks::infer(vec![tf("x"), tf("x/sub")]);
        let root = |f: &str| s.of(f).and_then(|i| s.get(i)).map(|s| s.root.clone());
        assert_eq!(root("x/sub/deeper/app.yaml").as_deref(), Some("x/sub"));
        assert_eq!(root("x/app.yaml").as_deref(), Some("x"));
        assert_eq!(root("y/app.yaml"), None);
    }

    #[test]
    fn two_anchors_in_one_folder_define_nothing() {
        let s = Stacks::infer(vec![eksctl("examples/01.yaml"), eksctl("examples/02.yaml")]);
        assert_eq!(s.stacks.len(), 1);
        assert!(s.stacks[0].anchor().is_none());
    }

    #[test]
    fn clusters_folders() {
        assert_eq!(
            clusters_folder("clusters/prod/apps/a.yaml"),
            Some("clusters/prod")
        );
        assert_eq!(
            clusters_folder("fleet/clusters/dev/a.yaml"),
            Some("fleet/clusters/dev")
        );
        assert_eq!(clusters_folder("clusters/a.yaml"), None);
        assert_eq!(clusters_folder("apps/a.yaml"), None);
        let s = Stacks::infer(vec![
            Anchor {
                kind: AnchorKind::ClustersFolder,
                dir: "clusters/prod".into(),
                path: "clusters/prod".into(),
            },
            Anchor {
                kind: AnchorKind::ClustersFolder,
                dir: "clusters/dev".into(),
                path: "clusters/dev".into(),
            },
        ]);
        let root = |f: &str| s.of(f).and_then(|i| s.get(i)).map(|s| s.root.clone());
        assert_eq!(
            root("clusters/prod/x/a.yaml").as_deref(),
            Some("clusters/prod")
        );
        assert_eq!(root("clusters/dev/a.yaml").as_deref(), Some("clusters/dev"));
        assert_eq!(root("base/a.yaml"), None);
    }
}
