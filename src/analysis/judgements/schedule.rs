//! The scheduler's verdicts (its TaintToleration and NodeAffinity plugins, after the admission
//! defaults): which node pools admit each workload and
//! why not — admission defaults, toleration matching, node selectors and affinity. Identical
//! workload signatures are evaluated once per class of pools, so thousands of replicas of one
//! spec on thousands of pools cost one evaluation per class.

use std::collections::HashMap;
use std::sync::Arc;

use crate::settings::Settings;
use crate::util::intern;

use crate::analysis::semantics::matching::tolerates;
use crate::analysis::sources::inventory::Inventory;
use crate::analysis::types::{
    LabelValues, Pool, Relevant, Requirement, TaintSpec, Term, Workload, WorkloadToleration,
};

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
