//! Cross-reference: groups node declarations into pools and decides, with the scheduler's
//! semantics (SEMANTICS §3, §4, §5), which pools admit each workload and why not. Identical
//! workload signatures are evaluated once, so thousands of replicas of one spec cost one.

use std::collections::{BTreeMap, HashMap};

use crate::analysis::inventory::{
    LabelValues, Labels, Loc, NodeDecl, POOL_NAME_LABELS, Place, PoolTaint, Requirement, TaintSpec,
    Term, Workload, WorkloadToleration, is_well_known_label, self_labels,
};
use crate::analysis::matching::{TaintRef, Tol, tolerates};
use crate::load::SourceFile;
use crate::settings::Settings;
use crate::util::intern;
use std::sync::Arc;

/// Taints that come and go with node conditions and lifecycle; they never make a pool
/// permanently unusable (SEMANTICS §3.5, §7).
pub fn is_transient_taint(key: &str) -> bool {
    matches!(
        key,
        "node.kubernetes.io/not-ready"
            | "node.kubernetes.io/unreachable"
            | "node.kubernetes.io/memory-pressure"
            | "node.kubernetes.io/disk-pressure"
            | "node.kubernetes.io/pid-pressure"
            | "node.kubernetes.io/network-unavailable"
            | "node.kubernetes.io/unschedulable"
            | "node.kubernetes.io/out-of-service"
            | "node.cloudprovider.kubernetes.io/uninitialized"
            | "node.cloudprovider.kubernetes.io/shutdown"
            | "karpenter.sh/disrupted"
            | "karpenter.sh/unregistered"
            | "karpenter.sh/disruption"
            | "ToBeDeletedByClusterAutoscaler"
            | "DeletionCandidateOfClusterAutoscaler"
            | "node.cluster.x-k8s.io/uninitialized"
            | "node.cluster.x-k8s.io/outdated-revision"
    )
}

/// Well-known taint keys (SEMANTICS §7): a toleration of one of them is never dead config.
pub const WELL_KNOWN_TAINT_KEYS: &[&str] = &[
    "node.kubernetes.io/not-ready",
    "node.kubernetes.io/unreachable",
    "node.kubernetes.io/memory-pressure",
    "node.kubernetes.io/disk-pressure",
    "node.kubernetes.io/pid-pressure",
    "node.kubernetes.io/network-unavailable",
    "node.kubernetes.io/unschedulable",
    "node.kubernetes.io/out-of-service",
    "node.cloudprovider.kubernetes.io/uninitialized",
    "node.cloudprovider.kubernetes.io/shutdown",
    "node-role.kubernetes.io/control-plane",
    "node-role.kubernetes.io/master",
    "ToBeDeletedByClusterAutoscaler",
    "DeletionCandidateOfClusterAutoscaler",
    "karpenter.sh/disrupted",
    "karpenter.sh/unregistered",
    "karpenter.sh/disruption",
    "node.cilium.io/agent-not-ready",
    "nvidia.com/gpu",
    "sandbox.gke.io/runtime",
    "cloud.google.com/gke-spot",
    "cloud.google.com/gke-preemptible",
    "kubernetes.azure.com/scalesetpriority",
    "CriticalAddonsOnly",
    "remediator.aks.microsoft.com/unschedulable",
    "eks.amazonaws.com/compute-type",
    "node.cluster.x-k8s.io/uninitialized",
    "node.cluster.x-k8s.io/outdated-revision",
    "node.alpha.kubernetes.io/notReady",
    "node.alpha.kubernetes.io/unreachable",
];

const HOSTNAME: &str = "kubernetes.io/hostname";

/// A group of nodes that schedule alike.
#[derive(Clone, Debug)]
pub struct Pool {
    pub name: Box<str>,
    pub origin: &'static str,
    pub labels: Labels,
    pub taints: Box<[PoolTaint]>,
    pub unschedulable: bool,
    pub open_labels: bool,
    /// Names of the Node objects in the pool (empty for templates).
    pub nodes: Box<[String]>,
    /// Where it is declared (see [`Inventory::loc`]).
    pub loc: Place,
}

impl Pool {
    /// Taints that filter pods (NoSchedule/NoExecute, not startup, not transient).
    pub fn blocking_taints(&self) -> impl Iterator<Item = (usize, &PoolTaint)> {
        self.taints.iter().enumerate().filter(|(_, t)| {
            !t.startup
                && !is_transient_taint(&t.taint.key)
                && matches!(&*t.taint.effect, "NoSchedule" | "NoExecute")
        })
    }

    pub fn label(&self, key: &str) -> Option<LabelValues> {
        if self_labels(self.origin).contains(&key) {
            // Not interned: pool names are many and each is looked up rarely.
            return Some(LabelValues::OneOf(Box::new([Arc::from(&*self.name)])));
        }
        match self.labels.get(key) {
            Some(v) => Some(v.clone()),
            None if self.open_labels && is_well_known_label(key) => Some(LabelValues::Any),
            None => None,
        }
    }

    /// Every label the pool's nodes carry, sorted by key: `labels` with the self labels
    /// (see [`self_labels`]).
    pub fn all_labels(&self) -> Vec<(Arc<str>, LabelValues)> {
        let mut all: Vec<(Arc<str>, LabelValues)> = self
            .labels
            .iter()
            .filter(|(k, _)| !self_labels(self.origin).iter().any(|s| *s == &***k))
            .map(|(k, v)| (Arc::clone(k), v.clone()))
            .collect();
        for key in self_labels(self.origin) {
            if let Some(values) = self.label(key) {
                all.push((intern(key), values));
            }
        }
        all.sort_by(|a, b| a.0.cmp(&b.0));
        all
    }

    /// `NodePool gpu`, `node ml-1`, `p3.2xlarge (2 nodes)`.
    pub fn title(&self) -> String {
        match self.nodes.len() {
            0 => format!("{} `{}`", self.origin, self.name),
            1 => format!("node `{}`", self.name),
            n => format!("`{}` ({n} nodes)", self.name),
        }
    }
}

/// Why a pool does not admit a pod.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Reason {
    /// Index into the pool's taints.
    Taint(usize),
    Selector,
    Unschedulable,
}

#[derive(Default)]
pub struct Inventory {
    /// Boxed: a pool takes the place of the declaration it is built from as that is freed,
    /// so a large inventory is not held twice while it is built (see `build_for`).
    #[allow(clippy::vec_box)]
    pub pools: Vec<Box<Pool>>,
    /// (pool, taint) indices by taint key: tolerations with a key only match taints with it.
    by_key: HashMap<String, Vec<(usize, usize)>>,
    /// The pools of each Node object, by node name (one, unless a name is declared twice).
    by_node: HashMap<String, Vec<usize>>,
    /// The stored sources of [`Place::Stored`] places, and where they are.
    places: Option<StoredPlaces>,
}

/// Where the sources of [`Place::Stored`] places are read back from: the run's store, which
/// keeps the source of each file with node declarations as they come.
pub trait PlaceSources: Send + Sync {
    /// The source of the `file`-th file with node declarations.
    fn source(&self, file: u32) -> Result<Arc<SourceFile>, String>;
}

/// The stored places of a run's node declarations (see [`Place`]).
struct StoredPlaces {
    sources: Box<dyn PlaceSources>,
    /// The first failure to read one back: the run cannot be trusted after it.
    failed: std::sync::Mutex<Option<String>>,
}

impl Inventory {
    /// Groups Node objects with identical taints, cordon state and relevant labels; every
    /// template (NodePool, node group, ...) is a pool of its own.
    pub fn build(decls: Vec<NodeDecl>, workloads: &[Workload]) -> Self {
        Inventory::build_for(
            decls.into_iter().map(Box::new).collect(),
            &Relevant::of(workloads),
        )
    }

    /// [`Inventory::build`] with the label keys the workloads select on collected already.
    /// The declarations come boxed: each is moved into its pool and freed, so a large
    /// inventory is not held twice while it is built.
    pub fn build_for(mut decls: Vec<Box<NodeDecl>>, selected: &Relevant) -> Self {
        let mut relevant: Vec<String> = POOL_NAME_LABELS
            .iter()
            .map(|s| (*s).to_string())
            .chain(selected.keys.iter().cloned())
            .collect();
        relevant.sort();
        relevant.dedup();
        // Every node has its own hostname: grouping by it would make each node a pool of its
        // own. Nodes are grouped without it, and the pool lists its nodes' hostnames.
        relevant.retain(|k| k != HOSTNAME);
        decls.sort_by(|a, b| (a.origin, &a.name).cmp(&(b.origin, &b.name)));

        type Key = (Vec<Arc<TaintSpec>>, bool, Vec<(Arc<str>, LabelValues)>);
        let mut groups: BTreeMap<Key, Vec<Box<NodeDecl>>> = BTreeMap::new();
        // Pools are kept for the whole run: the vector is made to size, and equal label sets
        // (templates copied from one another) share one copy.
        let mut pools = Vec::with_capacity(decls.iter().filter(|d| !d.is_node).count());
        let mut label_sets = std::collections::HashSet::new();
        for d in decls {
            if !d.is_node {
                let d = *d;
                pools.push(Box::new(Pool {
                    name: d.name.into(),
                    origin: d.origin,
                    labels: d.labels.share(&mut label_sets),
                    taints: d.taints.into(),
                    unschedulable: d.unschedulable,
                    open_labels: d.open_labels,
                    nodes: Box::default(),
                    loc: d.loc,
                }));
                continue;
            }
            let mut taints: Vec<Arc<TaintSpec>> = d
                .taints
                .iter()
                .filter(|t| !is_transient_taint(&t.taint.key))
                .map(|t| t.taint.clone())
                .collect();
            taints.sort();
            let labels = d
                .labels
                .iter()
                .filter(|(k, _)| relevant.binary_search_by(|r| r.as_str().cmp(k)).is_ok())
                .map(|(k, v)| (Arc::clone(k), v.clone()))
                .collect();
            groups
                .entry((taints, d.unschedulable, labels))
                .or_default()
                .push(d);
        }
        pools.reserve_exact(groups.len());
        for (_, members) in groups {
            let count = members.len();
            let Some(first) = members.first() else {
                continue;
            };
            // A single node is named by its name; a group by a label its nodes share.
            let name = if count == 1 {
                first.name.clone()
            } else {
                POOL_NAME_LABELS
                    .iter()
                    .find_map(|l| match first.labels.get(l) {
                        Some(LabelValues::OneOf(v)) if v.len() == 1 && !v[0].is_empty() => {
                            Some(v[0].to_string())
                        }
                        _ => None,
                    })
                    .unwrap_or_else(|| first.name.clone())
            };
            let hosts: Vec<Arc<str>> = if count > 1 {
                members
                    .iter()
                    .filter_map(|m| match m.labels.get(HOSTNAME) {
                        Some(LabelValues::OneOf(v)) => v.first().cloned(),
                        _ => None,
                    })
                    .collect()
            } else {
                Vec::new()
            };
            let unschedulable = members.iter().all(|m| m.unschedulable);
            // The pool takes the first node's labels, locations and taints (moved, not
            // copied: an inventory can have thousands of nodes) and every node's name.
            let mut members = members.into_iter();
            let Some(first) = members.next() else {
                continue;
            };
            let mut nodes = Vec::with_capacity(count);
            nodes.push(first.name);
            nodes.extend(members.map(|m| m.name));
            let mut labels = first.labels;
            if count > 1 {
                if hosts.is_empty() {
                    labels.remove(HOSTNAME);
                } else {
                    labels.insert(HOSTNAME, LabelValues::OneOf(hosts.into()));
                }
            }
            pools.push(Box::new(Pool {
                name: name.into(),
                origin: "Node",
                labels: labels.share(&mut label_sets),
                taints: first.taints.into(),
                unschedulable,
                open_labels: false,
                nodes: nodes.into(),
                loc: first.loc,
            }));
        }
        pools.sort_by(|a, b| (&a.name, a.origin).cmp(&(&b.name, b.origin)));
        Inventory::from_boxed(pools)
    }

    /// An inventory of these pools, as given.
    pub fn from_pools(pools: Vec<Pool>) -> Self {
        Inventory::from_boxed(pools.into_iter().map(Box::new).collect())
    }

    // Boxed on purpose (see `pools`).
    #[allow(clippy::vec_box)]
    fn from_boxed(pools: Vec<Box<Pool>>) -> Self {
        let mut by_key: HashMap<String, Vec<(usize, usize)>> = HashMap::new();
        for (p, pool) in pools.iter().enumerate() {
            for (t, taint) in pool.taints.iter().enumerate() {
                by_key
                    .entry(taint.taint.key.to_string())
                    .or_default()
                    .push((p, t));
            }
        }
        let mut by_node: HashMap<String, Vec<usize>> = HashMap::new();
        for (p, pool) in pools.iter().enumerate() {
            for n in &pool.nodes {
                by_node.entry(n.clone()).or_default().push(p);
            }
        }
        Inventory {
            pools,
            by_key,
            by_node,
            places: None,
        }
    }

    /// Where the stored places of the pools are to be read back from.
    pub fn set_places(&mut self, sources: Box<dyn PlaceSources>) {
        self.places = Some(StoredPlaces {
            sources,
            failed: std::sync::Mutex::new(None),
        });
    }

    /// The place, read back from the store when stored. `None` when it cannot be; then
    /// [`Inventory::failure`] says why.
    pub fn loc(&self, place: &Place) -> Option<Loc> {
        let (file, span) = match place {
            Place::Here(loc) => return Some(loc.clone()),
            Place::Stored { file, span } => (*file, *span),
        };
        let places = self.places.as_ref()?;
        match places.sources.source(file) {
            Ok(source) => Some(Loc { source, span }),
            Err(e) => {
                places
                    .failed
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner)
                    .get_or_insert(e);
                None
            }
        }
    }

    /// Why a stored place could not be read back, if one could not.
    pub fn failure(&self) -> Option<String> {
        self.places.as_ref().and_then(|p| {
            p.failed
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .clone()
        })
    }

    pub fn is_empty(&self) -> bool {
        self.pools.is_empty()
    }

    /// The taints with this key, with their pools (for keyed tolerations).
    pub fn taints_with_key(&self, key: &str) -> impl Iterator<Item = (&Pool, &PoolTaint)> {
        self.by_key
            .get(key)
            .into_iter()
            .flatten()
            .map(|&(p, t)| (&*self.pools[p], &self.pools[p].taints[t]))
    }

    /// (pool, taint) indices of the taints with this key.
    pub fn taint_indices(&self, key: &str) -> &[(usize, usize)] {
        self.by_key.get(key).map_or(&[], Vec::as_slice)
    }

    /// Distinct taint keys, sorted, for did-you-mean.
    pub fn taint_keys(&self) -> Vec<&str> {
        let mut keys: Vec<&str> = self.by_key.keys().map(String::as_str).collect();
        keys.sort_unstable();
        keys
    }

    /// Every taint of every pool, for did-you-mean and dead-toleration checks.
    pub fn all_taints(&self) -> impl Iterator<Item = (&Pool, &PoolTaint)> {
        self.pools
            .iter()
            .flat_map(|p| p.taints.iter().map(move |t| (&**p, t)))
    }

    pub fn node_pool(&self, node: &str) -> Option<&Pool> {
        self.node_pools(node)
            .first()
            .and_then(|&p| self.pools.get(p))
            .map(|p| &**p)
    }

    /// Indices of the pools with a Node object of this name.
    pub fn node_pools(&self, node: &str) -> &[usize] {
        self.by_node.get(node).map_or(&[], Vec::as_slice)
    }
}

/// The tolerations a pod really has after the DaemonSet controller (SEMANTICS §4.2) and the
/// DefaultTolerationSeconds plugin (§4.1).
pub fn effective_tolerations(w: &Workload) -> Vec<WorkloadToleration> {
    let mut out = w.tolerations.clone();
    let add = |out: &mut Vec<WorkloadToleration>, key: &str, effect: &str, seconds: Option<i64>| {
        out.push(WorkloadToleration {
            key: intern(key),
            operator: intern("Exists"),
            value: intern(""),
            effect: intern(effect),
            seconds,
            span: w.anchor,
            path: intern(""),
        });
    };
    if w.daemonset {
        add(&mut out, "node.kubernetes.io/not-ready", "NoExecute", None);
        add(
            &mut out,
            "node.kubernetes.io/unreachable",
            "NoExecute",
            None,
        );
        for k in [
            "disk-pressure",
            "memory-pressure",
            "pid-pressure",
            "unschedulable",
        ] {
            add(
                &mut out,
                &format!("node.kubernetes.io/{k}"),
                "NoSchedule",
                None,
            );
        }
        if w.host_network {
            add(
                &mut out,
                "node.kubernetes.io/network-unavailable",
                "NoSchedule",
                None,
            );
        }
    } else {
        for key in [
            "node.kubernetes.io/not-ready",
            "node.kubernetes.io/unreachable",
        ] {
            let blocked = w.tolerations.iter().any(|t| {
                (&*t.key == key || t.key.is_empty()) && matches!(&*t.effect, "" | "NoExecute")
            });
            if !blocked {
                add(&mut out, key, "NoExecute", Some(300));
            }
        }
    }
    out
}

fn tolerated(tols: &[WorkloadToleration], taint: &TaintSpec, gate: bool) -> bool {
    let t = TaintRef {
        key: &taint.key,
        value: &taint.value,
        effect: &taint.effect,
    };
    tols.iter().any(|tol| tolerates(&tol.tol(), &t, gate))
}

/// The first toleration that tolerates `taint` (it decides NoExecute eviction timing).
pub fn first_tolerating<'a>(
    tols: &'a [WorkloadToleration],
    taint: &TaintSpec,
    gate: bool,
) -> Option<&'a WorkloadToleration> {
    let t = TaintRef {
        key: &taint.key,
        value: &taint.value,
        effect: &taint.effect,
    };
    tols.iter().find(|tol| tolerates(&tol.tol(), &t, gate))
}

fn parse_label_int(s: &str) -> Option<i64> {
    s.parse::<i64>().ok()
}

fn requirement_matches(pool: &Pool, r: &Requirement) -> bool {
    let label = pool.label(&r.key);
    match r.operator.as_str() {
        "In" => match label {
            Some(LabelValues::Any) => true,
            Some(LabelValues::OneOf(vs)) => vs.iter().any(|v| r.values.iter().any(|x| **x == **v)),
            None => false,
        },
        "NotIn" => match label {
            None | Some(LabelValues::Any) => true,
            Some(LabelValues::OneOf(vs)) => vs.iter().any(|v| r.values.iter().all(|x| **x != **v)),
        },
        "Exists" => label.is_some(),
        "DoesNotExist" => label.is_none(),
        "Gt" | "Lt" => {
            let [want] = r.values.as_slice() else {
                return false;
            };
            let Some(want) = parse_label_int(want) else {
                return false;
            };
            match label {
                Some(LabelValues::Any) => true,
                Some(LabelValues::OneOf(vs)) => {
                    vs.iter().filter_map(|v| parse_label_int(v)).any(|v| {
                        if r.operator == "Gt" {
                            v > want
                        } else {
                            v < want
                        }
                    })
                }
                None => false,
            }
        }
        _ => false,
    }
}

/// A `matchFields` requirement against one node name (`None`: a template, whose nodes'
/// names are not known: `In` cannot be satisfied, `NotIn` can).
fn field_matches(node: Option<&str>, r: &Requirement) -> bool {
    if r.key != "metadata.name" {
        return false;
    }
    let [name] = r.values.as_slice() else {
        return false;
    };
    match r.operator.as_str() {
        "In" => node == Some(name.as_str()),
        "NotIn" => node != Some(name.as_str()),
        _ => false,
    }
}

fn term_matches(pool: &Pool, term: &Term) -> bool {
    if term.expressions.is_empty() && term.fields.is_empty() {
        return false;
    }
    // The fields of one term must hold for one and the same node of the pool.
    let fields = |node: Option<&str>| term.fields.iter().all(|r| field_matches(node, r));
    let fields_ok = if pool.nodes.is_empty() {
        fields(None)
    } else {
        pool.nodes.iter().any(|n| fields(Some(n)))
    };
    term.expressions
        .iter()
        .all(|r| requirement_matches(pool, r))
        && fields_ok
}

/// nodeSelector AND required node affinity (terms ORed).
pub fn selector_matches(w: &Workload, pool: &Pool) -> bool {
    let selector = w.node_selector.iter().all(|(k, v)| match pool.label(k) {
        Some(LabelValues::Any) => true,
        Some(LabelValues::OneOf(vs)) => vs.iter().any(|x| **x == **v),
        None => false,
    });
    selector
        && w.terms
            .as_ref()
            .is_none_or(|terms| terms.iter().any(|t| term_matches(pool, t)))
}

/// Every reason `pool` rejects `w`; empty when it admits it.
pub fn evaluate(w: &Workload, tols: &[WorkloadToleration], pool: &Pool, gate: bool) -> Vec<Reason> {
    let mut reasons = Vec::new();
    for (i, t) in pool.blocking_taints() {
        if !tolerated(tols, &t.taint, gate) {
            reasons.push(Reason::Taint(i));
        }
    }
    if pool.unschedulable {
        let cordon = TaintSpec::new("node.kubernetes.io/unschedulable", "", "NoSchedule");
        if !tolerated(tols, &cordon, gate) {
            reasons.push(Reason::Unschedulable);
        }
    }
    if !selector_matches(w, pool) {
        reasons.push(Reason::Selector);
    }
    reasons
}

/// The verdict for every (workload, pool) pair.
pub struct Evaluation {
    /// `fits[w]`: which pools admit workload `w` (shared by workloads with one signature).
    pub fits: Vec<std::sync::Arc<Verdicts>>,
    /// Pools that no workload of the run can tell apart.
    pub classes: Arc<PoolClasses>,
    /// What the cross rules work out per verdict, kept for the run (see [`Memo`]).
    pub memo: Arc<Memo>,
}

/// Answers the cross rules work out once per verdict (a message naming pools, the pools a
/// toleration opens), kept as long as the verdicts: a streamed run calls each rule once per
/// file, and the same verdicts come back in many files. Keyed by rule, the verdicts' address
/// (stable while the evaluator keeps them) and a rule-chosen text.
#[derive(Default)]
pub struct Memo {
    answers: std::sync::Mutex<MemoMap>,
}

type MemoMap = HashMap<(&'static str, usize, String), Arc<dyn std::any::Any + Send + Sync>>;

impl Memo {
    /// The remembered answer for `key`, or `compute`'s, remembered.
    pub fn get_or<T: Clone + Send + Sync + 'static>(
        &self,
        rule: &'static str,
        verdicts: &Arc<Verdicts>,
        key: &str,
        compute: impl FnOnce() -> T,
    ) -> T {
        let k = (rule, Arc::as_ptr(verdicts) as usize, key.to_string());
        let found = self
            .answers
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .get(&k)
            .and_then(|a| a.downcast_ref::<T>().cloned());
        if let Some(found) = found {
            return found;
        }
        let answer = compute();
        self.answers
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .insert(k, Arc::new(answer.clone()));
        answer
    }
}

/// Pools grouped by everything a verdict depends on: their blocking taints (in order),
/// cordon, the labels some workload selects on, open labels, and node names when some
/// workload uses `matchFields`. Every workload gets the same verdict, with the same reasons
/// in the same order, from every pool of a class, so each signature is evaluated once per
/// class, not once per pool: generated or templated inventories with thousands of pools
/// have few classes.
#[derive(Debug, Default)]
pub struct PoolClasses {
    /// `of[p]`: the class of pool `p`.
    pub of: std::sync::Arc<[u32]>,
    /// The first pool of each class.
    pub reps: Vec<usize>,
    /// Pools per class.
    pub sizes: Vec<usize>,
}

impl PoolClasses {
    /// The classes of these pools for workloads that select on `selected`.
    pub fn new(pools: &[Box<Pool>], selected: &Relevant) -> Self {
        let relevant = &selected.keys;
        let fields = selected.fields;
        type Key<'a> = (
            Vec<&'a TaintSpec>,
            bool,
            bool,
            Vec<(Arc<str>, LabelValues)>,
            &'a [String],
        );
        let mut index: HashMap<Key<'_>, u32> = HashMap::new();
        let mut of = Vec::with_capacity(pools.len());
        let (mut reps, mut sizes) = (Vec::new(), Vec::new());
        for (p, pool) in pools.iter().enumerate() {
            let key: Key<'_> = (
                pool.blocking_taints().map(|(_, t)| &*t.taint).collect(),
                pool.unschedulable,
                pool.open_labels,
                pool.all_labels()
                    .into_iter()
                    .filter(|(k, _)| relevant.contains(&**k))
                    .collect(),
                if fields { &pool.nodes } else { &[] },
            );
            let next = u32::try_from(reps.len()).unwrap_or(u32::MAX);
            let class = *index.entry(key).or_insert(next);
            if class == next {
                reps.push(p);
                sizes.push(0);
            }
            if let Some(n) = sizes.get_mut(class as usize) {
                *n += 1;
            }
            of.push(class);
        }
        PoolClasses {
            of: of.into(),
            reps,
            sizes,
        }
    }

    pub fn len(&self) -> usize {
        self.reps.len()
    }

    pub fn is_empty(&self) -> bool {
        self.reps.is_empty()
    }

    /// The class of pool `p`.
    pub fn class(&self, p: usize) -> usize {
        self.of.get(p).map_or(usize::MAX, |&c| c as usize)
    }
}

/// Which pools admit a workload: one bit per class of pools. The reasons a pool rejects it
/// are recomputed on demand (`reasons`), so thousands of pools × thousands of signatures
/// stay small.
#[derive(Debug)]
pub struct Verdicts {
    bits: Vec<u64>,
    /// The class of each pool (shared by all verdicts of a run).
    class_of: std::sync::Arc<[u32]>,
    /// The workload's tolerations after admission defaults.
    tolerations: Vec<WorkloadToleration>,
    gate: bool,
}

impl Verdicts {
    /// Does pool `p` admit the workload?
    pub fn admits(&self, p: usize) -> bool {
        self.class_of
            .get(p)
            .is_some_and(|&c| self.class_admits(c as usize))
    }

    /// Do the pools of class `c` admit the workload?
    pub fn class_admits(&self, c: usize) -> bool {
        self.bits
            .get(c / 64)
            .is_some_and(|word| word & (1u64 << (c % 64)) != 0)
    }

    /// Does any pool admit it?
    pub fn any(&self) -> bool {
        self.bits.iter().any(|w| *w != 0)
    }

    /// Number of pools.
    pub fn len(&self) -> usize {
        self.class_of.len()
    }

    pub fn is_empty(&self) -> bool {
        self.class_of.is_empty()
    }

    /// Every reason `pool` rejects `w` (the workload these verdicts are for).
    pub fn reasons(&self, w: &Workload, pool: &Pool) -> Vec<Reason> {
        evaluate(w, &self.tolerations, pool, self.gate)
    }
}

/// What a workload's verdicts depend on: its tolerations, DaemonSet and host network (for
/// the admission defaults), node selector and required affinity terms.
pub type Signature = (
    Vec<(Arc<str>, Arc<str>, Arc<str>, Arc<str>)>,
    bool,
    bool,
    Vec<(Arc<str>, Arc<str>)>,
    Option<Arc<[Term]>>,
);

pub fn signature(w: &Workload) -> Signature {
    (
        w.tolerations
            .iter()
            .map(|t| {
                (
                    t.key.clone(),
                    t.operator.clone(),
                    t.value.clone(),
                    t.effect.clone(),
                )
            })
            .collect(),
        w.daemonset,
        w.host_network,
        w.node_selector.clone(),
        w.terms.clone(),
    )
}

impl Evaluation {
    pub fn run(inv: &Inventory, workloads: &[Workload], settings: &Settings) -> Self {
        Evaluator::new(inv, &Relevant::of(workloads), settings).evaluate(workloads)
    }
}

/// What the workloads of a run select on: the label keys of their node selectors and
/// affinity terms, and whether any uses `matchFields`. It decides how node pools group
/// (`Inventory::build_for`, `PoolClasses`); a run collects it file by file.
#[derive(Clone, Debug, Default)]
pub struct Relevant {
    pub keys: std::collections::BTreeSet<String>,
    pub fields: bool,
}

impl Relevant {
    pub fn of(workloads: &[Workload]) -> Self {
        let mut r = Relevant::default();
        for w in workloads {
            r.add(w);
        }
        r
    }

    pub fn add(&mut self, w: &Workload) {
        for (k, _) in &w.node_selector {
            if !self.keys.contains(&**k) {
                self.keys.insert(k.to_string());
            }
        }
        for t in w.terms.iter().flat_map(|t| t.iter()) {
            for r in &t.expressions {
                if !self.keys.contains(&r.key) {
                    self.keys.insert(r.key.clone());
                }
            }
            self.fields |= !t.fields.is_empty();
        }
    }

    pub fn merge(&mut self, other: Relevant) {
        self.keys.extend(other.keys);
        self.fields |= other.fields;
    }
}

/// Verdicts for workloads as they come (file by file in a streamed run): one evaluation per
/// distinct scheduling signature, remembered for the run.
pub struct Evaluator<'a> {
    inv: &'a Inventory,
    classes: Arc<PoolClasses>,
    memo: Arc<Memo>,
    /// Shared by the threads of a streamed run.
    cache: std::sync::Mutex<HashMap<Signature, Arc<Verdicts>>>,
    gate: bool,
}

impl<'a> Evaluator<'a> {
    /// Classes of pools (pools that every workload judges alike).
    pub fn classes(&self) -> usize {
        self.classes.len()
    }

    /// Distinct scheduling signatures evaluated so far.
    pub fn signatures(&self) -> usize {
        self.cache
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .len()
    }

    pub fn new(inv: &'a Inventory, selected: &Relevant, settings: &Settings) -> Self {
        Evaluator {
            inv,
            classes: Arc::new(PoolClasses::new(&inv.pools, selected)),
            memo: Arc::new(Memo::default()),
            cache: std::sync::Mutex::new(HashMap::new()),
            gate: settings.comparison_operators,
        }
    }

    /// The verdicts of one workload.
    pub fn verdicts(&self, w: &Workload) -> Arc<Verdicts> {
        let sig = signature(w);
        let cache = || {
            self.cache
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
        };
        if let Some(hit) = cache().get(&sig) {
            return Arc::clone(hit);
        }
        let tolerations = effective_tolerations(w);
        let classes = &self.classes;
        let mut bits = vec![0u64; classes.len().div_ceil(64)];
        for (c, &rep) in classes.reps.iter().enumerate() {
            if let Some(pool) = self.inv.pools.get(rep)
                && evaluate(w, &tolerations, pool, self.gate).is_empty()
            {
                bits[c / 64] |= 1u64 << (c % 64);
            }
        }
        let verdicts = Arc::new(Verdicts {
            bits,
            class_of: Arc::clone(&classes.of),
            tolerations,
            gate: self.gate,
        });
        // Two threads may have worked out the same signature: the first one kept wins, so
        // that one signature has one verdicts (rules remember answers by its address).
        Arc::clone(cache().entry(sig).or_insert(verdicts))
    }

    /// The evaluation of these workloads (a whole run, or one file's).
    pub fn evaluate(&self, workloads: &[Workload]) -> Evaluation {
        Evaluation {
            fits: workloads.iter().map(|w| self.verdicts(w)).collect(),
            classes: Arc::clone(&self.classes),
            memo: Arc::clone(&self.memo),
        }
    }
}

/// Is `t` one of the tolerations a test can ignore because it names a well-known key?
pub fn is_well_known_key(key: &str) -> bool {
    WELL_KNOWN_TAINT_KEYS.contains(&key) || key.starts_with("node.kubernetes.io/")
}

/// Convenience for rules: the matching view of a toleration.
pub fn tol_of(t: &WorkloadToleration) -> Tol<'_> {
    t.tol()
}
