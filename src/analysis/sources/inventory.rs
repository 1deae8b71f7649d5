//! The inventory: node declarations (Node objects, NodePools, node groups… read by the
//! `sources`) grouped into node pools (`types::Pool`), with the taints and labels the scheduler
//! sees. Extracted per file into owned values, so a file's YAML tree can be dropped right away;
//! in a streamed run the places they were declared at are read back from the run's store.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use crate::load::{Loc, SourceFile};
use crate::util::nearest::Folded;

use crate::analysis::semantics::well_known::{is_transient_taint, is_well_known_label};
use crate::analysis::types::{
    LabelValues, NodeDecl, POOL_NAME_LABELS, Place, Pool, PoolTaint, Relevant, TaintSpec,
    UnknownTaints, Workload,
};

const HOSTNAME: &str = "kubernetes.io/hostname";

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
    /// [`Inventory::found_in`], worked out once.
    found_in: std::sync::OnceLock<String>,
    /// The label keys the pools declare themselves (see [`Inventory::declares_label`]).
    label_keys: std::sync::OnceLock<std::collections::HashSet<Arc<str>>>,
    /// [`Inventory::closed`], worked out once.
    closed: std::sync::OnceLock<bool>,
    /// Some pool is declared (worked out once: asked per workload and per file).
    declared: std::sync::OnceLock<bool>,
    /// [`Inventory::taint_indices_with`]' index, built once.
    by_key_value: std::sync::OnceLock<ByKeyValue>,
    /// [`Inventory::titles`], worked out once.
    titles: std::sync::OnceLock<Titles>,
    /// [`Inventory::nearest_taint_keys`]' index, built once.
    key_words: std::sync::OnceLock<(Vec<String>, Folded)>,
    /// [`Inventory::nearest_taint_values`]' indexes, one per taint key asked about.
    value_words: std::sync::Mutex<HashMap<String, Arc<Folded>>>,
    /// Keys of taints some pool may have but does not show (see `UnknownTaints`), and whether
    /// a pool may have taints of any key.
    unknown_taint_keys: std::sync::OnceLock<(std::collections::HashSet<Arc<str>>, bool)>,
    /// [`Inventory::shown_may_have_unknown_taint`]'s keys, worked out once.
    shown_unknown_taint_keys: std::sync::OnceLock<(std::collections::HashSet<Arc<str>>, bool)>,
    /// The cluster the files define, when every pool lies in it (see `sources::clusters`).
    cluster: Option<super::clusters::ClusterDef>,
    /// The clusters the files define, when their pools are not all in one (see
    /// [`Inventory::stacks`]).
    stacks: Option<Arc<super::clusters::Stacks>>,
    /// Why these pools may not be all the cluster's: what in the files makes nodes they do
    /// not show, with its place (see `sources::provisioners`).
    open: Option<String>,
    /// [`Inventory::owned_label`]'s answers, one per label key asked about.
    owned: std::sync::Mutex<HashMap<String, Option<Arc<OwnedLabel>>>>,
    /// Every pool is shown with every label it sets (see [`Inventory::lacks_private_label`]),
    /// worked out once.
    labels_shown: std::sync::OnceLock<bool>,
    /// The label keys the run's files mention where no pool is read (see
    /// `sources::mentions`).
    mentions: Option<Arc<std::collections::HashSet<Box<str>>>>,
}

/// A label key every pool of a defined cluster sets, with a known value (see
/// [`Inventory::owned_label`]).
#[derive(Debug)]
pub struct OwnedLabel {
    /// The distinct values, each with the first pool that has it, in pool order.
    pub values: Vec<(Arc<str>, usize)>,
}

/// (pool, taint) indices by taint key, then value.
type ByKeyValue = HashMap<String, HashMap<String, Vec<(usize, usize)>>>;

/// How messages name the pools (`Pool::title`), worked out once for the run: pools with one
/// name (the same NodePool in two files, two copies of a node group) are alternatives, and
/// messages count and name each name once, by its first pool.
#[derive(Debug, Default)]
pub struct Titles {
    /// Each pool's title.
    pub text: Vec<String>,
    /// Each pool's title's number (the order of first appearance).
    pub id: Vec<u32>,
    /// Is the pool the first with its title?
    pub first: Vec<bool>,
    /// Distinct titles.
    pub distinct: usize,
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
    /// Each file's source once read back: a run with thousands of findings naming the same
    /// pools reads each record once (the sources are lite: positions, no text).
    read: std::sync::Mutex<HashMap<u32, Arc<SourceFile>>>,
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
        // Sizes set by objects of other files (MachineAutoscalers), which are not pools.
        super::scaling::link(&mut decls);
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
                    any_label: d.any_label,
                    extended_resource_toleration: d.extended_resource_toleration,
                    unknown_taints: d.unknown_taints,
                    nodes: Box::default(),
                    mixed_labels: Box::default(),
                    max_nodes: d.max_nodes,
                    loc: d.loc,
                    declared: d.declared,
                    terraform: d.terraform,
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
            let mixed_labels: Box<[Arc<str>]> = first
                .labels
                .iter()
                .filter(|(k, v)| members.iter().any(|m| m.labels.get(k) != Some(*v)))
                .map(|(k, _)| Arc::clone(k))
                .collect();
            let unschedulable = members.iter().all(|m| m.unschedulable);
            let declared = members.iter().any(|m| m.declared);
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
                any_label: false,
                extended_resource_toleration: false,
                unknown_taints: UnknownTaints::None,
                nodes: nodes.into(),
                mixed_labels,
                max_nodes: None,
                loc: first.loc,
                declared,
                terraform: None,
            }));
        }
        // A group is named by a label its nodes share, which other groups may share too
        // (groups that differ in their taints, say, with one instance type): such a name does
        // not tell the pools apart, so each of those groups is named by its first node.
        let mut group_names: HashMap<Box<str>, usize> = HashMap::new();
        for p in pools.iter().filter(|p| p.nodes.len() > 1) {
            *group_names.entry(p.name.clone()).or_default() += 1;
        }
        for p in pools.iter_mut().filter(|p| p.nodes.len() > 1) {
            if group_names.get(&p.name).is_some_and(|n| *n > 1)
                && let Some(first) = p.nodes.first()
            {
                p.name = first.as_str().into();
            }
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
            found_in: std::sync::OnceLock::new(),
            label_keys: std::sync::OnceLock::new(),
            closed: std::sync::OnceLock::new(),
            declared: std::sync::OnceLock::new(),
            titles: std::sync::OnceLock::new(),
            by_key_value: std::sync::OnceLock::new(),
            key_words: std::sync::OnceLock::new(),
            value_words: std::sync::Mutex::new(HashMap::new()),
            unknown_taint_keys: std::sync::OnceLock::new(),
            shown_unknown_taint_keys: std::sync::OnceLock::new(),
            cluster: None,
            stacks: None,
            open: None,
            owned: std::sync::Mutex::new(HashMap::new()),
            labels_shown: std::sync::OnceLock::new(),
            mentions: None,
        }
    }

    /// The label keys the run's files mention where no pool is read: a pool the files do not
    /// show as one may set them (see [`Inventory::lacks_private_label`]).
    pub fn set_mentions(&mut self, mentions: Arc<std::collections::HashSet<Box<str>>>) {
        self.mentions = Some(mentions);
    }

    /// These pools are every pool of a cluster the files define.
    pub fn set_cluster(&mut self, def: super::clusters::ClusterDef) {
        self.cluster = Some(def);
    }

    /// The clusters the files define when the pools are not all of one of them: shown by
    /// `explain` and `matrix`, not judged with (one inventory per inferred cluster is not
    /// built).
    pub fn set_stacks(&mut self, stacks: Arc<super::clusters::Stacks>) {
        self.stacks = Some(stacks);
    }

    /// Something in the files makes nodes these pools do not show (`why`, with its place):
    /// what no pool admits may still run (see `sources::provisioners`).
    pub fn set_open(&mut self, why: String) {
        self.open = Some(why);
    }

    /// See [`Inventory::set_open`]; never for declared pools (the user's inventory is the
    /// whole cluster).
    pub fn open(&self) -> Option<&str> {
        self.open.as_deref().filter(|_| !self.declared())
    }

    /// Are some of these pools Karpenter NodePools (the files show Karpenter's pools)?
    pub fn has_karpenter_pools(&self) -> bool {
        self.pools.iter().any(|p| p.origin == "NodePool")
    }

    /// See [`Inventory::set_stacks`].
    pub fn stacks(&self) -> Option<&super::clusters::Stacks> {
        self.stacks.as_deref()
    }

    /// The cluster the files define, when these pools are all of it (see
    /// `sources::clusters`).
    pub fn cluster(&self) -> Option<&super::clusters::ClusterDef> {
        self.cluster.as_ref()
    }

    /// The cluster the files define, when the file `name` belongs to it: its workloads are
    /// judged against these pools as the whole cluster for the keys they own.
    pub fn cluster_of(&self, name: &str) -> Option<&super::clusters::ClusterDef> {
        self.cluster.as_ref().filter(|c| c.holds(name))
    }

    /// A label key the pools *own*: every pool sets it itself, to a known value (a pool whose
    /// value is not known — a Terraform value, a template's well-known label — or that may
    /// carry any label keeps the key open). Worked out once per key.
    pub fn owned_label(&self, key: &str) -> Option<Arc<OwnedLabel>> {
        let mut cache = self
            .owned
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(answer) = cache.get(key) {
            return answer.clone();
        }
        let mut values: Vec<(Arc<str>, usize)> = Vec::new();
        let mut seen = std::collections::HashSet::new();
        let mut owned = false;
        for (p, pool) in self.pools.iter().enumerate() {
            // Groups the files do not show prove nothing either way (unknown is local).
            if pool.stands_for_unknown_groups() {
                continue;
            }
            owned = true;
            let Some(label) = pool.label_ref(key) else {
                owned = false;
                break;
            };
            let Some(vs) = label.values() else {
                owned = false;
                break;
            };
            let mut any = false;
            for v in vs {
                any = true;
                if seen.insert(v.to_string()) {
                    values.push((Arc::from(v), p));
                }
            }
            if !any {
                owned = false;
                break;
            }
        }
        let owned = owned && !values.is_empty();
        let answer = owned.then(|| Arc::new(OwnedLabel { values }));
        cache.insert(key.to_string(), answer.clone());
        answer
    }

    /// Is `key` a label key without a prefix that no pool sets and no file mentions where no
    /// pool is read (a chart's values, a Terraform heredoc: `sources::mentions`), while every
    /// pool is shown with every label it sets (none stands for groups the files do not show,
    /// none may carry any label)? A key without a prefix is the user's own: "If the prefix is omitted, the
    /// label Key is presumed to be private to the user. Automated system components (…) which
    /// add labels to end-user objects must specify a prefix" (kubernetes/website,
    /// `content/en/docs/concepts/overview/working-with-objects/labels.md`). No node agent
    /// adds it, so no node these pools make has it. A lookup in sets worked out once.
    pub fn lacks_private_label(&self, key: &str) -> bool {
        if key.contains('/')
            || self.declares_label(key)
            || self.mentions.as_ref().is_some_and(|m| m.contains(key))
        {
            return false;
        }
        *self.labels_shown.get_or_init(|| {
            !self.pools.is_empty()
                && self
                    .pools
                    .iter()
                    .all(|p| !p.any_label && !p.stands_for_unknown_groups())
        })
    }

    /// Where the stored places of the pools are to be read back from.
    pub fn set_places(&mut self, sources: Box<dyn PlaceSources>) {
        self.places = Some(StoredPlaces {
            sources,
            read: std::sync::Mutex::new(HashMap::new()),
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
        let read = || {
            places
                .read
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
        };
        if let Some(source) = read().get(&file) {
            return Some(Loc {
                source: Arc::clone(source),
                span,
            });
        }
        match places.sources.source(file) {
            Ok(source) => {
                read().insert(file, Arc::clone(&source));
                Some(Loc { source, span })
            }
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

    /// Does some pool declare label `key` itself (in its labels, or as the label naming it,
    /// `karpenter.sh/nodepool`)? The well-known labels a template's nodes get some value of
    /// (zone, instance type) do not count unless a pool fixes them.
    pub fn declares_label(&self, key: &str) -> bool {
        self.label_keys
            .get_or_init(|| {
                self.pools
                    .iter()
                    .flat_map(|p| p.all_labels())
                    .map(|(k, _)| k)
                    .collect()
            })
            .contains(key)
    }

    /// Do the nodes of some pool carry label `key` (declared, or well-known on a template)?
    pub fn has_label(&self, key: &str) -> bool {
        self.declares_label(key)
            || (is_well_known_label(key) && self.pools.iter().any(|p| p.open_labels))
    }

    /// Does some pool have a taint with this key?
    pub fn has_taint_key(&self, key: &str) -> bool {
        self.by_key.contains_key(key)
    }

    /// Where the pools were found, for messages about pools that are only found, not declared:
    /// the files with the most pools first, with their counts (`` `nodes.yaml` (3),
    /// `infra/nodepools.yaml` (2) and 4 more files ``). Worked out once per inventory.
    pub fn found_in(&self) -> &str {
        self.found_in.get_or_init(|| {
            let mut files: HashMap<Arc<str>, usize> = HashMap::new();
            let mut unknown = 0usize;
            for pool in &self.pools {
                match self.loc(&pool.loc) {
                    Some(loc) => *files.entry(Arc::clone(&loc.source.name)).or_default() += 1,
                    None => unknown += 1,
                }
            }
            let mut files: Vec<(Arc<str>, usize)> = files.into_iter().collect();
            files.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
            const SHOWN: usize = 3;
            let mut parts: Vec<String> = files
                .iter()
                .take(SHOWN)
                .map(|(name, n)| format!("`{name}` ({n})"))
                .collect();
            let more = files.len().saturating_sub(SHOWN);
            if more > 0 {
                parts.push(format!(
                    "{more} more file{}",
                    if more == 1 { "" } else { "s" }
                ));
            } else if unknown > 0 {
                parts.push(format!("{unknown} elsewhere"));
            }
            match parts.len() {
                0 => String::new(),
                1 => parts.remove(0),
                n => {
                    let last = parts.remove(n - 1);
                    format!("{} and {last}", parts.join(", "))
                }
            }
        })
    }

    /// [`Inventory::may_have_unknown_taint`] of the pools the files show, leaving out those
    /// that stand for groups the files do not show (`Pool::stands_for_unknown_groups`): what a
    /// cluster the files define proves about taint keys (see `analysis::judgements::evidence`).
    pub fn shown_may_have_unknown_taint(&self, key: &str) -> bool {
        let (keys, any) = self.shown_unknown_taint_keys.get_or_init(|| {
            let mut keys = std::collections::HashSet::new();
            let mut any = false;
            for p in self.pools.iter().filter(|p| !p.stands_for_unknown_groups()) {
                match &p.unknown_taints {
                    UnknownTaints::None => {}
                    UnknownTaints::Keys(k) => keys.extend(k.iter().cloned()),
                    UnknownTaints::Any => any = true,
                }
            }
            (keys, any)
        });
        *any || keys.contains(key)
    }

    /// May some pool have a taint with this key that it does not show (a Terraform value or
    /// `dynamic` block; see `UnknownTaints::may_have`)? Worked out once for every key.
    pub fn may_have_unknown_taint(&self, key: &str) -> bool {
        let (keys, any) = self.unknown_taint_keys.get_or_init(|| {
            let mut keys = std::collections::HashSet::new();
            let mut any = false;
            for p in &self.pools {
                match &p.unknown_taints {
                    UnknownTaints::None => {}
                    UnknownTaints::Keys(k) => keys.extend(k.iter().cloned()),
                    UnknownTaints::Any => any = true,
                }
            }
            (keys, any)
        });
        *any || keys.contains(key)
    }

    /// The taint keys nearest to `query` (compared in lowercase, by edit distance) among those
    /// within `bound(len)` edits of it (`len`: the key's length): the distance and the keys,
    /// sorted. See `util::nearest` for the cost (and its bound on hostile input).
    pub fn nearest_taint_keys(
        &self,
        query: &str,
        bound: impl Fn(usize) -> usize,
    ) -> Option<(usize, Vec<&str>)> {
        let (keys, words) = self.key_words();
        let (d, places) = words.nearest(query, bound)?;
        Some((
            d,
            places
                .into_iter()
                .filter_map(|i| keys.get(i).map(String::as_str))
                .collect(),
        ))
    }

    /// The sorted taint keys, indexed (built once).
    fn key_words(&self) -> &(Vec<String>, Folded) {
        self.key_words.get_or_init(|| {
            let keys: Vec<String> = self.taint_keys().into_iter().map(str::to_string).collect();
            let words = Folded::new(keys.iter().map(String::as_str));
            (keys, words)
        })
    }

    /// The taint keys within `cap` edits of `query` (compared in lowercase), with their
    /// distances, sorted by key.
    pub fn taint_keys_within(&self, query: &str, cap: usize) -> Vec<(&str, usize)> {
        let (keys, words) = self.key_words();
        let mut out: Vec<(&str, usize)> = words
            .within(query, cap)
            .into_iter()
            .filter_map(|(i, d)| Some((keys.get(i)?.as_str(), d)))
            .collect();
        out.sort_unstable();
        out
    }

    /// The taints with key `key` whose values are nearest to `value` (compared in lowercase,
    /// by edit distance): the distance and the taints' places in [`Inventory::taints_with_key`]
    /// order, sorted.
    pub fn nearest_taint_values(&self, key: &str, value: &str) -> Option<(usize, Vec<usize>)> {
        let indices = self.taint_indices(key);
        let values = || {
            indices
                .iter()
                .map(|&(p, t)| &*self.pools[p].taints[t].taint.value)
        };
        // A few taints are compared one by one; more are indexed, once per key.
        const INDEXED: usize = 16;
        let value = value.to_ascii_lowercase();
        if indices.len() <= INDEXED {
            let mut best: Option<(usize, Vec<usize>)> = None;
            for (i, v) in values().enumerate() {
                let d = crate::util::edit_distance(&value, &v.to_ascii_lowercase());
                match &mut best {
                    Some((b, list)) if d == *b => list.push(i),
                    Some((b, _)) if d > *b => {}
                    _ => best = Some((d, vec![i])),
                }
            }
            return best;
        }
        let words = {
            let mut cache = self
                .value_words
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            Arc::clone(
                cache
                    .entry(key.to_string())
                    .or_insert_with(|| Arc::new(Folded::new(values()))),
            )
        };
        words.nearest(&value, |_| usize::MAX)
    }

    /// The pools' titles (see [`Titles`]).
    pub fn titles(&self) -> &Titles {
        self.titles.get_or_init(|| {
            let mut t = Titles::default();
            let mut ids: HashMap<String, u32> = HashMap::new();
            for pool in &self.pools {
                let title = pool.title();
                let next = u32::try_from(ids.len()).unwrap_or(u32::MAX);
                let id = *ids.entry(title.clone()).or_insert(next);
                t.first.push(id == next);
                t.id.push(id);
                t.text.push(title);
            }
            t.distinct = ids.len();
            t
        })
    }

    /// Did the user declare (some of) these pools as the cluster's? Otherwise they are only
    /// the pools found among the linted files, which may be a part of the cluster (node groups
    /// made by Terraform or a cloud CLI are not in any manifest).
    pub fn declared(&self) -> bool {
        *self
            .declared
            .get_or_init(|| self.pools.iter().any(|p| p.declared))
    }

    /// Are these pools the whole cluster (a closed world), so that what none of them admits
    /// cannot run? Declared pools are; so are pools made only of found `Node` objects (a node
    /// dump, `kubectl get nodes -o yaml`, lists the cluster's nodes themselves). Templates
    /// merely found among the linted files (NodePools, node groups) are not: the cluster may
    /// have pools no file describes (see `analysis::judgements::evidence`).
    pub fn closed(&self) -> bool {
        *self
            .closed
            .get_or_init(|| self.declared() || self.pools.iter().all(|p| p.origin == "Node"))
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

    /// The `i`-th taint with this key (in [`Inventory::taints_with_key`] order), with its pool.
    pub fn taint_at(&self, key: &str, i: usize) -> Option<(&Pool, &PoolTaint)> {
        let &(p, t) = self.taint_indices(key).get(i)?;
        let pool = self.pools.get(p)?;
        Some((&**pool, pool.taints.get(t)?))
    }

    /// (pool, taint) indices of the taints with this key and value (built once for every key
    /// and value).
    pub fn taint_indices_with(&self, key: &str, value: &str) -> &[(usize, usize)] {
        self.by_key_value
            .get_or_init(|| {
                // In pool order within each (key, value), as `taint_indices` lists them.
                let mut map: ByKeyValue = HashMap::new();
                for (p, pool) in self.pools.iter().enumerate() {
                    for (t, taint) in pool.taints.iter().enumerate() {
                        map.entry(taint.taint.key.to_string())
                            .or_default()
                            .entry(taint.taint.value.to_string())
                            .or_default()
                            .push((p, t));
                    }
                }
                map
            })
            .get(key)
            .and_then(|by_value| by_value.get(value))
            .map_or(&[], Vec::as_slice)
    }

    /// Distinct taint keys, sorted, for did-you-mean.
    pub fn taint_keys(&self) -> Vec<&str> {
        let mut keys: Vec<&str> = self.by_key.keys().map(String::as_str).collect();
        keys.sort_unstable();
        keys
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
