//! The scheduler's verdicts (its TaintToleration and NodeAffinity plugins, after the admission
//! defaults): which node pools admit each workload and
//! why not — admission defaults, toleration matching, node selectors and affinity. Identical
//! workload signatures are evaluated once per class of pools, so thousands of replicas of one
//! spec on thousands of pools cost one evaluation per class.

use std::collections::HashMap;
use std::sync::Arc;

use crate::settings::Settings;
use crate::util::intern;

use super::class_index::ClassIndex;
use crate::analysis::semantics::matching::tolerates;
use crate::analysis::sources::inventory::Inventory;
use crate::analysis::types::{
    LabelValues, Pool, Relevant, Requirement, TaintSpec, Term, Workload, WorkloadToleration,
};
use crate::util::nearest::Folded;

/// Why a pool does not admit a pod.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Reason {
    /// Index into the pool's taints.
    Taint(usize),
    Selector,
    Unschedulable,
}

/// The tolerations a pod really has after the DaemonSet controller
/// (pkg/controller/daemon/util/daemonset_util.go) and the
/// DefaultTolerationSeconds plugin (§4.1).
///
/// After admission (`analysis::judgements::admission`), the pod's tolerations are those it left with.
pub fn effective_tolerations(w: &Workload) -> Vec<WorkloadToleration> {
    if let Some(admitted) = w.admission.as_ref().and_then(|a| a.tolerations.as_ref()) {
        return admitted.clone();
    }
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
            scalars: Default::default(),
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
    let t = taint.taint_ref();
    tols.iter().any(|tol| tolerates(&tol.tol(), &t, gate))
}

/// Tolerated by the ExtendedResourceToleration admission plugin: on a cluster that runs it, a pod
/// requesting an extended resource gets `{key: <resource>, operator: Exists, effect: NoSchedule}`
/// (<https://kubernetes.io/docs/reference/access-authn-authz/admission-controllers/#extendedresourcetoleration>).
fn requested(w: &Workload, pool: &Pool, taint: &TaintSpec) -> bool {
    pool.extended_resource_toleration
        && &*taint.effect == "NoSchedule"
        && w.resources.iter().any(|r| **r == *taint.key)
}

/// The first toleration that tolerates `taint` (it decides NoExecute eviction timing).
pub fn first_tolerating<'a>(
    tols: &'a [WorkloadToleration],
    taint: &TaintSpec,
    gate: bool,
) -> Option<&'a WorkloadToleration> {
    let t = taint.taint_ref();
    tols.iter().find(|tol| tolerates(&tol.tol(), &t, gate))
}

fn parse_label_int(s: &str) -> Option<i64> {
    s.parse::<i64>().ok()
}

fn requirement_matches(pool: &Pool, r: &Requirement) -> bool {
    let label = pool.label_ref(&r.key);
    match r.operator.as_str() {
        "In" => label.is_some_and(|l| match l.values() {
            None => true,
            Some(mut vs) => vs.any(|v| r.values.iter().any(|x| **x == *v)),
        }),
        "NotIn" => label.is_none_or(|l| match l.values() {
            None => true,
            Some(mut vs) => vs.any(|v| r.values.iter().all(|x| **x != *v)),
        }),
        "Exists" => label.is_some(),
        "DoesNotExist" => label.is_none(),
        "Gt" | "Lt" => {
            let [want] = r.values.as_slice() else {
                return false;
            };
            let Some(want) = parse_label_int(want) else {
                return false;
            };
            label.is_some_and(|l| match l.values() {
                None => true,
                Some(vs) => vs.filter_map(parse_label_int).any(|v| {
                    if r.operator == "Gt" {
                        v > want
                    } else {
                        v < want
                    }
                }),
            })
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

/// Does `pool` match one required node affinity term (all its requirements)?
pub fn term_matches(pool: &Pool, term: &Term) -> bool {
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
    let selector = w
        .node_selector
        .iter()
        .all(|(k, v)| pool.label_ref(k).is_some_and(|l| l.admits(v)));
    selector
        && w.terms
            .as_ref()
            .is_none_or(|terms| terms.iter().any(|t| term_matches(pool, t)))
}

/// Every reason `pool` rejects `w`; empty when it admits it.
pub fn evaluate(w: &Workload, tols: &[WorkloadToleration], pool: &Pool, gate: bool) -> Vec<Reason> {
    let mut reasons = Vec::new();
    for (i, t) in pool.blocking_taints() {
        if !tolerated(tols, &t.taint, gate) && !requested(w, pool, &t.taint) {
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
        self.remembered(
            (rule, Arc::as_ptr(verdicts) as usize, key.to_string()),
            compute,
        )
    }

    /// The remembered answer for `key` that does not depend on any verdicts (a table of the
    /// run's pools), or `compute`'s, remembered.
    pub fn get_run<T: Clone + Send + Sync + 'static>(
        &self,
        rule: &'static str,
        key: &str,
        compute: impl FnOnce() -> T,
    ) -> T {
        self.remembered((rule, 0, key.to_string()), compute)
    }

    /// The answer remembered under `k`, or `compute`'s, remembered (the lock is not held while
    /// it computes: a rule's computation may ask the memo again).
    fn remembered<T: Clone + Send + Sync + 'static>(
        &self,
        k: (&'static str, usize, String),
        compute: impl FnOnce() -> T,
    ) -> T {
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
    /// The classes by label and taint (see `class_index`).
    pub index: ClassIndex,
    /// Per class, what its blocking taints do to a pod whose tolerations name none of their
    /// keys or values: for each of the four ways tolerations without a key can tolerate every
    /// `NoSchedule` and/or every `NoExecute` taint ([`wildcard`]), the first taint left
    /// untolerated and how many are. See [`Judged`].
    baseline: Vec<[Untolerated; 4]>,
    /// Per class, its pools are cordoned.
    cordoned: Vec<bool>,
    /// The pools of each class, in inventory order.
    pub members: Vec<Vec<u32>>,
    /// The distinct scheduler forms (`{key: value}`) of the classes' blocking taints, and
    /// per class the number of each of its taints' form (`u32::MAX` for one that does not
    /// block): messages count pools by the untolerated taint that stops them.
    pub phrases: Vec<String>,
    phrase_of: Vec<Box<[u32]>>,
    /// Per label key asked about ([`PoolClasses::nearest_label_values`]): the classes'
    /// values of it, indexed, and the class of each.
    label_words: std::sync::Mutex<HashMap<String, Arc<ClassValues>>>,
}

/// The classes' values of one label key, indexed ([`PoolClasses::nearest_label_values`]),
/// with the class of each value.
type ClassValues = (Folded, Vec<u32>);

/// The blocking taints of a class a pod leaves untolerated: the first (its index in the
/// pool's taints) and how many.
#[derive(Clone, Copy, Debug, Default)]
struct Untolerated {
    first: Option<u32>,
    count: u32,
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
                pool.any_label,
                pool.extended_resource_toleration,
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
        let index = ClassIndex::new(reps.iter().filter_map(|&p| pools.get(p).map(|b| &**b)));
        let mut baseline = Vec::with_capacity(reps.len());
        let mut cordoned = Vec::with_capacity(reps.len());
        for &rep in &reps {
            let Some(pool) = pools.get(rep) else {
                baseline.push([Untolerated::default(); 4]);
                cordoned.push(false);
                continue;
            };
            let mut row = [Untolerated::default(); 4];
            for (variant, u) in row.iter_mut().enumerate() {
                for (i, t) in pool.blocking_taints() {
                    let tolerated = match &*t.taint.effect {
                        "NoSchedule" => variant & NO_SCHEDULE != 0,
                        _ => variant & NO_EXECUTE != 0,
                    };
                    if !tolerated {
                        u.first.get_or_insert(u32::try_from(i).unwrap_or(u32::MAX));
                        u.count += 1;
                    }
                }
            }
            baseline.push(row);
            cordoned.push(pool.unschedulable);
        }
        let mut phrases: Vec<String> = Vec::new();
        let mut phrase_ids: HashMap<String, u32> = HashMap::new();
        let mut phrase_of = Vec::with_capacity(reps.len());
        for &rep in &reps {
            let Some(pool) = pools.get(rep) else {
                phrase_of.push(Box::default());
                continue;
            };
            let mut row = vec![u32::MAX; pool.taints.len()];
            for (i, t) in pool.blocking_taints() {
                let phrase = t.taint.scheduler_form();
                let next = u32::try_from(phrases.len()).unwrap_or(u32::MAX);
                let id = *phrase_ids.entry(phrase.clone()).or_insert(next);
                if id == next {
                    phrases.push(phrase);
                }
                row[i] = id;
            }
            phrase_of.push(row.into_boxed_slice());
        }
        let mut members = vec![Vec::new(); reps.len()];
        for (p, &c) in of.iter().enumerate() {
            if let Some(m) = members.get_mut(c as usize) {
                m.push(u32::try_from(p).unwrap_or(u32::MAX));
            }
        }
        PoolClasses {
            of: of.into(),
            reps,
            sizes,
            index,
            baseline,
            cordoned,
            members,
            phrases,
            phrase_of,
            label_words: std::sync::Mutex::default(),
        }
    }

    pub fn len(&self) -> usize {
        self.reps.len()
    }

    /// The classes (sorted) whose pools carry under `key` a value nearest to `wanted`
    /// (compared in lowercase, by edit distance), and that distance; classes whose value of
    /// the key is not known or that lack it are not among them. See `util::nearest`.
    pub fn nearest_label_values(
        &self,
        pools: &[Box<Pool>],
        key: &str,
        wanted: &str,
    ) -> Option<(usize, Vec<u32>)> {
        let words = {
            let mut cache = self
                .label_words
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            Arc::clone(cache.entry(key.to_string()).or_insert_with(|| {
                let mut values: Vec<&str> = Vec::new();
                let mut of: Vec<u32> = Vec::new();
                for (c, &rep) in self.reps.iter().enumerate() {
                    let Some(vs) = pools
                        .get(rep)
                        .and_then(|p| p.label_ref(key))
                        .and_then(|l| l.values())
                    else {
                        continue;
                    };
                    for v in vs {
                        values.push(v);
                        of.push(u32::try_from(c).unwrap_or(u32::MAX));
                    }
                }
                Arc::new((Folded::new(values), of))
            }))
        };
        let (folded, of) = &*words;
        let (d, places) = folded.nearest(wanted, |_| usize::MAX)?;
        let mut classes: Vec<u32> = places
            .into_iter()
            .filter_map(|i| of.get(i).copied())
            .collect();
        classes.dedup();
        Some((d, classes))
    }

    /// [`PoolClasses::nearest_label_values`] for several wanted values: the classes nearest to
    /// any of them, at the smallest distance of all.
    pub fn nearest_label_values_of(
        &self,
        pools: &[Box<Pool>],
        key: &str,
        wanted: &[&str],
    ) -> Option<(usize, Vec<u32>)> {
        let mut near: Option<(usize, Vec<u32>)> = None;
        for v in wanted {
            let Some((d, list)) = self.nearest_label_values(pools, key, v) else {
                continue;
            };
            match &mut near {
                Some((b, l)) if d == *b => l.extend(list),
                Some((b, _)) if d > *b => {}
                _ => near = Some((d, list)),
            }
        }
        let (d, mut list) = near?;
        list.sort_unstable();
        list.dedup();
        Some((d, list))
    }

    /// Are the pools of class `c` cordoned?
    pub fn cordoned(&self, c: usize) -> bool {
        self.cordoned.get(c).copied().unwrap_or(false)
    }

    /// The first blocking taint of class `c` (an index into its first pool's taints) that
    /// tolerations naming none of its taints leave untolerated, for a wildcard `variant` (see
    /// `Judged::baseline_key`).
    pub fn baseline_first(&self, c: usize, variant: usize) -> Option<usize> {
        self.baseline
            .get(c)
            .and_then(|row| row.get(variant))
            .and_then(|u| u.first)
            .map(|i| i as usize)
    }

    /// The number of the scheduler form of taint `i` (an index into its first pool's taints)
    /// of class `c`, when it blocks (see [`PoolClasses::phrases`]).
    pub fn phrase(&self, c: usize, i: usize) -> Option<u32> {
        self.phrase_of
            .get(c)
            .and_then(|row| row.get(i))
            .copied()
            .filter(|&id| id != u32::MAX)
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
    classes: Arc<PoolClasses>,
    /// The workload's tolerations after admission defaults.
    tolerations: Vec<WorkloadToleration>,
    gate: bool,
}

impl Verdicts {
    /// Does pool `p` admit the workload?
    pub fn admits(&self, p: usize) -> bool {
        self.classes
            .of
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
        self.classes.of.len()
    }

    pub fn is_empty(&self) -> bool {
        self.classes.of.is_empty()
    }

    /// Every reason `pool` rejects `w` (the workload these verdicts are for).
    pub fn reasons(&self, w: &Workload, pool: &Pool) -> Vec<Reason> {
        evaluate(w, &self.tolerations, pool, self.gate)
    }

    /// The classes that admit the workload, in order.
    pub fn admitting_classes(&self) -> impl Iterator<Item = usize> + '_ {
        self.bits.iter().enumerate().flat_map(|(i, &word)| {
            (0..64)
                .filter(move |b| word & (1u64 << b) != 0)
                .map(move |b| i * 64 + b)
        })
    }

    /// Why each class of pools rejects `w` (the workload these verdicts are for), worked out
    /// exactly only for the classes its selection or tolerations single out (see [`Judged`]).
    pub fn judge<'a>(&'a self, w: &'a Workload, pools: &'a [Box<Pool>]) -> Judged<'a> {
        Judged::new(w, &self.tolerations, self.gate, pools, &self.classes)
    }

    /// The classes of the pools these verdicts are about.
    pub fn classes(&self) -> &PoolClasses {
        &self.classes
    }
}

/// Tolerations without a key tolerate every `NoSchedule` taint (bit 1) and/or every
/// `NoExecute` taint (bit 2): the four variants of [`PoolClasses`]' baseline.
const NO_SCHEDULE: usize = 1;
const NO_EXECUTE: usize = 2;

/// Which blocking taints of any key these tolerations tolerate through `operator: Exists`
/// without a key (as [`NO_SCHEDULE`] and [`NO_EXECUTE`] bits).
fn wildcard(tolerations: &[WorkloadToleration]) -> usize {
    let mut v = 0;
    for t in tolerations {
        if t.key.is_empty() && &*t.operator == "Exists" {
            match &*t.effect {
                "" => v |= NO_SCHEDULE | NO_EXECUTE,
                "NoSchedule" => v |= NO_SCHEDULE,
                "NoExecute" => v |= NO_EXECUTE,
                _ => {}
            }
        }
    }
    v
}

/// Why each class of pools rejects one workload, as [`evaluate`] says, without evaluating
/// every class. A class none of whose blocking taints has a key (or, for a toleration
/// without a key, a value) that the workload's tolerations name, and which its selection
/// does not single out, rejects it alike: every blocking taint untolerated but those the
/// tolerations without a key tolerate (the class's baseline), the cordon unless the pod
/// tolerates it, the selector when the pod selects anything. Only the other classes — a
/// handful, found through the index — are evaluated.
pub struct Judged<'a> {
    pools: &'a [Box<Pool>],
    classes: &'a PoolClasses,
    /// The classes evaluated, sorted, with their reasons.
    exact: Vec<(u32, Vec<Reason>)>,
    /// Every class is evaluated (a toleration without a key compares values by number).
    all: bool,
    variant: usize,
    cordon_ok: bool,
    /// The workload selects nodes (a class it does not single out may still fail its selector).
    selects: bool,
    /// The classes the selection may admit are known: one outside them fails it.
    narrowed: bool,
    w: &'a Workload,
}

impl<'a> Judged<'a> {
    fn new(
        w: &'a Workload,
        tolerations: &[WorkloadToleration],
        gate: bool,
        pools: &'a [Box<Pool>],
        classes: &'a PoolClasses,
    ) -> Self {
        let selected = classes.index.selected(w);
        let singled = classes.index.singled_out(tolerations, &w.resources, gate);
        let all = singled.is_none();
        let evaluated: Vec<u32> = if all {
            (0..classes.len())
                .filter_map(|c| u32::try_from(c).ok())
                .collect()
        } else {
            let mut v = singled.unwrap_or_default();
            v.extend(selected.iter().flatten());
            v.sort_unstable();
            v.dedup();
            v
        };
        let exact = evaluated
            .into_iter()
            .filter_map(|c| {
                let pool = pools.get(*classes.reps.get(c as usize)?)?;
                Some((c, evaluate(w, tolerations, pool, gate)))
            })
            .collect();
        let cordon = TaintSpec::new("node.kubernetes.io/unschedulable", "", "NoSchedule");
        Judged {
            pools,
            classes,
            exact,
            all,
            variant: wildcard(tolerations),
            cordon_ok: tolerated(tolerations, &cordon, gate),
            selects: !w.node_selector.is_empty() || w.terms.is_some(),
            narrowed: selected.is_some(),
            w,
        }
    }

    fn exact(&self, c: usize) -> Option<&[Reason]> {
        let c = u32::try_from(c).ok()?;
        self.exact
            .binary_search_by_key(&c, |(k, _)| *k)
            .ok()
            .map(|i| self.exact[i].1.as_slice())
    }

    /// A class not evaluated: its untolerated taints, cordon and selector.
    fn baseline(&self, c: usize) -> (Untolerated, bool, bool) {
        let u = self
            .classes
            .baseline
            .get(c)
            .map_or_else(Untolerated::default, |row| row[self.variant]);
        let cordoned = self.classes.cordoned.get(c).copied().unwrap_or(false) && !self.cordon_ok;
        let selector = self.selects
            && (self.narrowed
                || self
                    .classes
                    .reps
                    .get(c)
                    .and_then(|&r| self.pools.get(r))
                    .is_none_or(|p| !selector_matches(self.w, p)));
        (u, cordoned, selector)
    }

    /// Every reason the pools of class `c` reject the workload (as [`evaluate`] lists them).
    pub fn reasons(&self, c: usize) -> Vec<Reason> {
        if let Some(r) = self.exact(c) {
            return r.to_vec();
        }
        if self.all {
            return Vec::new();
        }
        let (u, cordoned, selector) = self.baseline(c);
        let mut out = Vec::new();
        if u.count > 0
            && let Some(pool) = self.classes.reps.get(c).and_then(|&r| self.pools.get(r))
        {
            out.extend(pool.blocking_taints().filter_map(|(i, t)| {
                let tolerated = match &*t.taint.effect {
                    "NoSchedule" => self.variant & NO_SCHEDULE != 0,
                    _ => self.variant & NO_EXECUTE != 0,
                };
                (!tolerated).then_some(Reason::Taint(i))
            }));
        }
        if cordoned {
            out.push(Reason::Unschedulable);
        }
        if selector {
            out.push(Reason::Selector);
        }
        out
    }

    /// The first filter that rejects the pods of class `c`, in the scheduler's order
    /// (NodeUnschedulable, TaintToleration, NodeAffinity); `None` when it admits them.
    pub fn first(&self, c: usize) -> Option<Reason> {
        let first = |reasons: &[Reason]| {
            reasons
                .iter()
                .find(|r| matches!(r, Reason::Unschedulable))
                .or_else(|| reasons.iter().find(|r| matches!(r, Reason::Taint(_))))
                .or_else(|| reasons.first())
                .cloned()
        };
        if let Some(r) = self.exact(c) {
            return first(r);
        }
        if self.all {
            return None;
        }
        let (u, cordoned, selector) = self.baseline(c);
        if cordoned {
            Some(Reason::Unschedulable)
        } else if let Some(i) = u.first {
            Some(Reason::Taint(i as usize))
        } else if selector {
            Some(Reason::Selector)
        } else {
            None
        }
    }

    /// How many reasons the pools of class `c` reject the workload for.
    pub fn count(&self, c: usize) -> usize {
        if let Some(r) = self.exact(c) {
            return r.len();
        }
        if self.all {
            return 0;
        }
        let (u, cordoned, selector) = self.baseline(c);
        u.count as usize + usize::from(cordoned) + usize::from(selector)
    }

    /// The classes evaluated exactly (those the workload's selection and tolerations single
    /// out), in order.
    pub fn exact_classes(&self) -> impl Iterator<Item = usize> + '_ {
        self.exact.iter().map(|(c, _)| *c as usize)
    }

    /// When the classes not evaluated fail alike: the wildcard variant of their baseline (see
    /// `PoolClasses`), whether the pod tolerates the cordon, and whether it selects nodes (so
    /// that a class not singled out fails its selector). `None` when every class is evaluated
    /// or a selection that narrows nothing is checked class by class.
    pub fn baseline_key(&self) -> Option<(usize, bool, bool)> {
        (!self.all && (self.narrowed || !self.selects)).then_some((
            self.variant,
            self.cordon_ok,
            self.selects,
        ))
    }

    /// The classes the workload's selection admits, in order.
    pub fn selected_classes(&self) -> Vec<usize> {
        if self.narrowed && !self.all {
            // Outside the classes it singles out, a narrowed selection admits none.
            return self
                .exact
                .iter()
                .filter(|(_, r)| !r.contains(&Reason::Selector))
                .map(|(c, _)| *c as usize)
                .collect();
        }
        (0..self.classes.len())
            .filter(|&c| self.selected(c))
            .collect()
    }

    /// Does the workload's selection admit the pools of class `c`?
    pub fn selected(&self, c: usize) -> bool {
        if let Some(r) = self.exact(c) {
            return !r.contains(&Reason::Selector);
        }
        if self.all {
            return true;
        }
        !self.baseline(c).2
    }
}

/// What a workload's verdicts depend on: its tolerations, DaemonSet and host network (for
/// the admission defaults), node selector, required affinity terms and extended resources
/// (see `requested`), and whether its tolerations are those admission left it with (then
/// complete: no admission default is added to them).
pub type Signature = (
    Vec<(Arc<str>, Arc<str>, Arc<str>, Arc<str>)>,
    bool,
    bool,
    Vec<(Arc<str>, Arc<str>)>,
    Option<Arc<[Term]>>,
    Box<[Arc<str>]>,
    bool,
);

pub fn signature(w: &Workload) -> Signature {
    let admitted = w.admission.as_ref().and_then(|a| a.tolerations.as_ref());
    (
        admitted
            .unwrap_or(&w.tolerations)
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
        w.resources.clone(),
        admitted.is_some(),
    )
}

impl Evaluation {
    pub fn run(inv: &Inventory, workloads: &[Workload], settings: &Settings) -> Self {
        Evaluator::new(inv, &Relevant::of(workloads), settings).evaluate(workloads)
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
        // Only the classes the workload's selection and tolerations may admit are evaluated.
        for c in classes.index.candidates(w, &tolerations, self.gate) {
            let c = c as usize;
            if let Some(pool) = classes.reps.get(c).and_then(|&rep| self.inv.pools.get(rep))
                && evaluate(w, &tolerations, pool, self.gate).is_empty()
            {
                bits[c / 64] |= 1u64 << (c % 64);
            }
        }
        let verdicts = Arc::new(Verdicts {
            bits,
            classes: Arc::clone(classes),
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

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::analysis::sources::node_decls;
    use crate::analysis::types::workloads;
    use crate::load::SourceFile;
    use crate::load::yaml::{Limits, parse};
    use crate::model::each_object;

    /// A small deterministic generator.
    struct Rng(u64);

    impl Rng {
        fn pick<'a>(&mut self, of: &[&'a str]) -> &'a str {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            of[(self.0 % of.len() as u64) as usize]
        }

        fn below(&mut self, n: usize) -> usize {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            (self.0 % n as u64) as usize
        }
    }

    const KEYS: &[&str] = &[
        "a",
        "b",
        "kubernetes.io/os",
        "node.kubernetes.io/instance-type",
    ];
    const VALUES: &[&str] = &["x", "y", "1", "7"];
    const EFFECTS: &[&str] = &["NoSchedule", "NoExecute", "PreferNoSchedule", ""];

    fn toleration(r: &mut Rng) -> String {
        let key = r.pick(&["a", "b", "t", "", "node.kubernetes.io/unschedulable"]);
        let op = r.pick(&["Exists", "Equal", "", "Lt", "Gt"]);
        let value = r.pick(VALUES);
        let effect = r.pick(EFFECTS);
        format!("{{key: '{key}', operator: '{op}', value: '{value}', effect: '{effect}'}}")
    }

    fn inventory_yaml(r: &mut Rng) -> String {
        let mut y = String::new();
        for i in 0..r.below(12) + 1 {
            let labels: Vec<String> = (0..r.below(3))
                .map(|_| format!("'{}': '{}'", r.pick(KEYS), r.pick(VALUES)))
                .collect();
            let taints: Vec<String> = (0..r.below(3))
                .map(|_| {
                    format!(
                        "{{key: '{}', value: '{}', effect: '{}'}}",
                        r.pick(&["a", "t", "b"]),
                        r.pick(VALUES),
                        r.pick(&["NoSchedule", "NoExecute", "PreferNoSchedule"])
                    )
                })
                .collect();
            if r.below(3) == 0 {
                y.push_str(&format!(
                    "---\napiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {{name: np{i}}}\nspec:\n  template:\n    metadata: {{labels: {{{}}}}}\n    spec:\n      nodeClassRef: {{group: karpenter.k8s.aws, kind: EC2NodeClass, name: d}}\n      taints: [{}]\n",
                    labels.join(", "),
                    taints.join(", ")
                ));
            } else {
                y.push_str(&format!(
                    "---\napiVersion: v1\nkind: Node\nmetadata: {{name: n{i}, labels: {{{}}}}}\nspec: {{unschedulable: {}, taints: [{}]}}\n",
                    labels.join(", "),
                    r.below(4) == 0,
                    taints.join(", ")
                ));
            }
        }
        y
    }

    fn pod_yaml(r: &mut Rng, i: usize) -> String {
        let mut spec = String::new();
        if r.below(2) == 0 {
            let sel: Vec<String> = (0..r.below(2) + 1)
                .map(|_| format!("'{}': '{}'", r.pick(KEYS), r.pick(VALUES)))
                .collect();
            spec.push_str(&format!("  nodeSelector: {{{}}}\n", sel.join(", ")));
        }
        if r.below(2) == 0 {
            let terms: Vec<String> = (0..r.below(3))
                .map(|_| {
                    let exprs: Vec<String> = (0..r.below(3))
                        .map(|_| {
                            let op = r.pick(&["In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"]);
                            let values = match op {
                                "Exists" | "DoesNotExist" => String::new(),
                                _ => format!(", values: ['{}']", r.pick(VALUES)),
                            };
                            format!("{{key: '{}', operator: {op}{values}}}", r.pick(KEYS))
                        })
                        .collect();
                    format!("{{matchExpressions: [{}]}}", exprs.join(", "))
                })
                .collect();
            spec.push_str(&format!(
                "  affinity: {{nodeAffinity: {{requiredDuringSchedulingIgnoredDuringExecution: {{nodeSelectorTerms: [{}]}}}}}}\n",
                terms.join(", ")
            ));
        }
        let tols: Vec<String> = (0..r.below(4)).map(|_| toleration(r)).collect();
        spec.push_str(&format!("  tolerations: [{}]\n", tols.join(", ")));
        format!(
            "---\napiVersion: v1\nkind: Pod\nmetadata: {{name: p{i}}}\nspec:\n{spec}  containers: [{{name: c, image: i}}]\n"
        )
    }

    /// Generated inventories (Nodes and NodePools with few labels, taints and cordons, so that
    /// pools share them) with eight generated pods each: (the YAML, its inventory, its pods).
    pub(crate) fn generated(rounds: usize) -> Vec<(String, Inventory, Vec<Workload>)> {
        let mut r = Rng(0x2545_f491_4f6c_dd1d);
        (0..rounds)
            .map(|_| {
                let mut yaml = inventory_yaml(&mut r);
                for i in 0..8 {
                    yaml.push_str(&pod_yaml(&mut r, i));
                }
                let source = Arc::new(SourceFile::new("t.yaml", yaml.clone()));
                let stream = parse(&source.text, Limits::default());
                let (mut decls, mut ws) = (Vec::new(), Vec::new());
                for doc in &stream.documents {
                    each_object(doc, &[], &mut |o| {
                        decls.extend(node_decls(&o, &source));
                        ws.extend(workloads(&o, &source));
                    });
                }
                let inv = Inventory::build(decls, &ws);
                (yaml, inv, ws)
            })
            .collect()
    }

    /// The index narrows, never decides: on generated pools and pods, the verdicts and every
    /// class's reasons are those of evaluating every class.
    #[test]
    fn judged_classes_are_evaluated_classes() {
        let (mut admitted, mut rejected) = (0, 0);
        for (round, (yaml, inv, ws)) in generated(300).into_iter().enumerate() {
            for gate in [false, true] {
                let settings = Settings {
                    comparison_operators: gate,
                    ..Settings::default()
                };
                let evaluator = Evaluator::new(&inv, &Relevant::of(&ws), &settings);
                let classes = &evaluator.classes;
                for w in &ws {
                    let v = evaluator.verdicts(w);
                    let tols = effective_tolerations(w);
                    let judged = v.judge(w, &inv.pools);
                    for (c, &rep) in classes.reps.iter().enumerate() {
                        let reasons = evaluate(w, &tols, &inv.pools[rep], gate);
                        let ctx = format!("round {round}, class {c}:\n{yaml}");
                        assert_eq!(v.class_admits(c), reasons.is_empty(), "{ctx}");
                        if reasons.is_empty() {
                            admitted += 1;
                        } else {
                            rejected += 1;
                        }
                        assert_eq!(judged.reasons(c), reasons, "{ctx}");
                        assert_eq!(judged.count(c), reasons.len(), "{ctx}");
                        assert_eq!(
                            judged.selected(c),
                            !reasons.contains(&Reason::Selector),
                            "{ctx}"
                        );
                        let first = reasons
                            .iter()
                            .find(|r| matches!(r, Reason::Unschedulable))
                            .or_else(|| reasons.iter().find(|r| matches!(r, Reason::Taint(_))))
                            .or_else(|| reasons.first())
                            .cloned();
                        assert_eq!(judged.first(c), first, "{ctx}");
                    }
                }
            }
        }
        // The generator gives both verdicts often.
        assert!(admitted > 1000 && rejected > 1000, "{admitted} {rejected}");
    }
}
