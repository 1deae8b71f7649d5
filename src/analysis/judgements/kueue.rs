//! Kueue's queues and flavors as the linted files declare them, and what Kueue's flavor
//! assigner makes of a workload submitted to one of its queues.
//!
//! A `ResourceFlavor` is no node pool (see `sources`): it is Kueue's quota view of some nodes.
//! What the files can prove is narrower: a workload labelled `kueue.x-k8s.io/queue-name` goes
//! to that LocalQueue of its namespace, whose `spec.clusterQueue` lends it the flavors of its
//! resource groups; Kueue assigns a flavor only if the pod template tolerates the flavor's
//! `nodeTaints` (with the flavor's own `tolerations` added) and its node selection matches the
//! flavor's `nodeLabels` (pkg/scheduler/flavorassigner/flavorassigner.go in
//! kubernetes-sigs/kueue, `findFlavorForPodSetResource`). When no flavor of a resource group
//! the pod requests from passes, the workload is never admitted.
//!
//! The files are an open world: a LocalQueue, ClusterQueue or flavor they do not declare may
//! exist in the cluster, so any missing link (or a flavor the files do not declare) gives no
//! verdict. Objects declared twice (copies in overlays, samples) give a verdict only when
//! every copy fails.

use std::collections::BTreeSet;

use crate::analysis::semantics::matching::{TaintRef, Tol, tolerates};
use crate::analysis::types::kueue::{
    ClusterQueue, Flavor, Kueue, LocalQueue, ResourceGroup, Submission,
};
use crate::analysis::types::workload::{Requirement, Term, Workload};

/// Why Kueue cannot assign a flavor, in the flavor assigner's words.
#[derive(Clone, Debug)]
pub struct Refusal<'a> {
    pub flavor: &'a Flavor,
    pub reason: String,
}

/// A workload no flavor of its ClusterQueue fits.
#[derive(Clone, Debug)]
pub struct NoFit<'a> {
    pub local_queue: &'a LocalQueue,
    pub cluster_queue: &'a ClusterQueue,
    /// The resources of the failing group the pod requests.
    pub resources: Vec<&'a str>,
    /// Every flavor of the group, with why it does not fit.
    pub refusals: Vec<Refusal<'a>>,
}

/// Go's `%s` of a `corev1.Taint` value, as Kueue's message prints it (`{key value effect
/// <nil>}`: the generated `String` method is on the pointer).
fn go_taint(key: &str, value: &str, effect: &str) -> String {
    format!("{{{key} {value} {effect} <nil>}}")
}

impl Kueue {
    /// The flavors no flavor of which fits `w`, when the files show all of its queue's chain;
    /// `None` when some flavor may fit or a link is not in the files.
    pub fn no_fit<'a>(&'a self, w: &Workload, gate: bool) -> Option<NoFit<'a>> {
        let sub = w.kueue.as_deref()?;
        if self.local_queues.is_empty() {
            return None;
        }
        let namespace = w.object.namespace.as_deref();
        let mut first = None;
        let local = self
            .local_queues
            .iter()
            .filter(|q| *q.name == *sub.queue && q.namespace.as_deref() == namespace);
        for lq in local {
            let mut queues = self
                .cluster_queues
                .iter()
                .filter(|c| c.name == lq.cluster_queue)
                .peekable();
            queues.peek()?;
            for cq in queues {
                let (resources, refusals) = self.failing_group(cq, w, sub, gate)?;
                first.get_or_insert(NoFit {
                    local_queue: lq,
                    cluster_queue: cq,
                    resources,
                    refusals,
                });
            }
        }
        first
    }

    /// The first resource group the pod requests from whose flavors all refuse it.
    fn failing_group<'a>(
        &'a self,
        cq: &'a ClusterQueue,
        w: &Workload,
        sub: &Submission,
        gate: bool,
    ) -> Option<(Vec<&'a str>, Vec<Refusal<'a>>)> {
        for g in &cq.groups {
            let judged = self.judge_group(g, w, sub, gate);
            if judged.requested.is_empty() || !judged.refuses() {
                continue;
            }
            // One refusal per flavor: its first copy's.
            let refusals = judged
                .flavors
                .iter()
                .filter_map(|f| {
                    let (flavor, reason) = f.copies.first()?;
                    Some(Refusal {
                        flavor,
                        reason: reason.clone()?,
                    })
                })
                .collect();
            return Some((judged.requested, refusals));
        }
        None
    }

    /// Every flavor of a resource group judged for `w` as Kueue's flavor assigner judges it:
    /// what `kueue-no-flavor-fits` and `explain` both say.
    pub fn judge_group<'a>(
        &'a self,
        g: &'a ResourceGroup,
        w: &Workload,
        sub: &Submission,
        gate: bool,
    ) -> GroupJudgement<'a> {
        let requested = |r: &str| r == "pods" || sub.requests.iter().any(|q| **q == *r);
        let resources: Vec<&str> = g
            .covered
            .iter()
            .map(String::as_str)
            .filter(|r| requested(r))
            .collect();
        let defs: Vec<(&str, Vec<&Flavor>)> = g
            .flavors
            .iter()
            .map(|name| {
                let found = self.flavors.iter().filter(|f| f.name == *name).collect();
                (name.as_str(), found)
            })
            .collect();
        // The group's label keys: every nodeLabels key of its flavors
        // (pkg/cache ClusterQueue `updateLabelKeys`).
        let keys: BTreeSet<&str> = defs
            .iter()
            .flat_map(|(_, copies)| copies.iter())
            .flat_map(|f| f.node_labels.iter().map(|(k, _)| k.as_str()))
            .collect();
        let flavors = defs
            .into_iter()
            .map(|(name, copies)| FlavorJudgement {
                name,
                copies: copies
                    .into_iter()
                    .map(|f| (f, refusal(f, w, &keys, gate)))
                    .collect(),
            })
            .collect();
        GroupJudgement {
            group: g,
            requested: resources,
            flavors,
        }
    }

    /// The workload's way through its queues as the files show it: each LocalQueue of its
    /// name in its namespace, each ClusterQueue of that name, and their groups judged
    /// (for `explain`). Empty when the workload is submitted to no queue or its LocalQueue is
    /// not in the files.
    pub fn routes<'a>(&'a self, w: &Workload, gate: bool) -> Vec<Route<'a>> {
        let Some(sub) = w.kueue.as_deref() else {
            return Vec::new();
        };
        let namespace = w.object.namespace.as_deref();
        self.local_queues
            .iter()
            .filter(|q| *q.name == *sub.queue && q.namespace.as_deref() == namespace)
            .map(|lq| Route {
                local_queue: lq,
                cluster_queues: self
                    .cluster_queues
                    .iter()
                    .filter(|c| c.name == lq.cluster_queue)
                    .map(|cq| {
                        let groups = cq
                            .groups
                            .iter()
                            .map(|g| self.judge_group(g, w, sub, gate))
                            .collect();
                        (cq, groups)
                    })
                    .collect(),
            })
            .collect()
    }
}

/// One flavor of a resource group judged for a workload.
#[derive(Clone, Debug)]
pub struct FlavorJudgement<'a> {
    /// The name the ClusterQueue gives.
    pub name: &'a str,
    /// Each copy of the flavor in the files, with why Kueue refuses it (`None`: it fits).
    /// Empty: the flavor is not in the files.
    pub copies: Vec<(&'a Flavor, Option<String>)>,
}

impl FlavorJudgement<'_> {
    /// Some copy of it fits.
    pub fn fits(&self) -> bool {
        self.copies.iter().any(|(_, r)| r.is_none())
    }
}

/// A resource group judged for a workload.
#[derive(Clone, Debug)]
pub struct GroupJudgement<'a> {
    pub group: &'a ResourceGroup,
    /// The covered resources the pod requests (`pods` always): empty, the group is not used.
    pub requested: Vec<&'a str>,
    pub flavors: Vec<FlavorJudgement<'a>>,
}

impl GroupJudgement<'_> {
    /// Every flavor of the group is in the files and refuses the workload: Kueue never
    /// assigns it a flavor of this group. A flavor the files do not show may fit.
    pub fn refuses(&self) -> bool {
        !self.flavors.is_empty()
            && self
                .flavors
                .iter()
                .all(|f| !f.copies.is_empty() && !f.fits())
    }
}

/// A LocalQueue the workload is submitted to, and the ClusterQueues of its name in the files.
#[derive(Clone, Debug)]
pub struct Route<'a> {
    pub local_queue: &'a LocalQueue,
    pub cluster_queues: Vec<(&'a ClusterQueue, Vec<GroupJudgement<'a>>)>,
}

/// Why `flavor` refuses `w`, in Kueue's words; `None` when it fits (or Kueue could not decide:
/// a requirement it cannot parse).
fn refusal(flavor: &Flavor, w: &Workload, keys: &BTreeSet<&str>, gate: bool) -> Option<String> {
    // Only NoSchedule and NoExecute taints count, tolerated by the pod's or the flavor's
    // tolerations.
    for (key, value, effect) in &flavor.node_taints {
        if !matches!(effect.as_str(), "NoSchedule" | "NoExecute") {
            continue;
        }
        let taint = TaintRef { key, value, effect };
        let by_pod = w
            .tolerations
            .iter()
            .any(|t| tolerates(&t.tol(), &taint, gate));
        let by_flavor = flavor.tolerations.iter().any(|(k, op, v, e)| {
            let tol = Tol {
                key: k,
                operator: op,
                value: v,
                effect: e,
            };
            tolerates(&tol, &taint, gate)
        });
        if !by_pod && !by_flavor {
            return Some(format!(
                "untolerated taint {} in flavor {}",
                go_taint(key, value, effect),
                flavor.name
            ));
        }
    }
    match selection_matches(flavor, w, keys) {
        Some(false) => Some(format!(
            "flavor {} doesn't match node affinity",
            flavor.name
        )),
        _ => None,
    }
}

/// Kueue's `flavorSelector`: the pod's nodeSelector and required node affinity cut down to
/// the group's label keys, matched against the flavor's nodeLabels as a node's labels. A term
/// left with no expression drops the whole affinity (terms are ORed); `matchFields` are
/// dropped. `None`: a requirement that cannot be evaluated.
fn selection_matches(flavor: &Flavor, w: &Workload, keys: &BTreeSet<&str>) -> Option<bool> {
    let label = |k: &str| {
        flavor
            .node_labels
            .iter()
            .find(|(lk, _)| lk == k)
            .map(|(_, v)| v.as_str())
    };
    let selector = w
        .node_selector
        .iter()
        .filter(|(k, _)| keys.contains(&**k))
        .all(|(k, v)| label(k) == Some(&**v));
    if !selector {
        return Some(false);
    }
    let Some(terms) = own_terms(w) else {
        return Some(true);
    };
    let mut cut: Vec<Vec<&Requirement>> = Vec::new();
    for t in &terms {
        let kept: Vec<_> = t
            .expressions
            .iter()
            .filter(|r| keys.contains(r.key.as_str()))
            .collect();
        if kept.is_empty() {
            return Some(true);
        }
        cut.push(kept);
    }
    let mut any = false;
    for term in cut {
        let mut all = true;
        for r in term {
            all &= requirement(label(&r.key), r)?;
        }
        any |= all;
    }
    Some(any)
}

/// The pod's own required node affinity terms: the workload's terms without the `Exists`
/// requirements its hard topology spread constraints added (see `workload::with_spread_keys`).
fn own_terms(w: &Workload) -> Option<Vec<Term>> {
    let terms = w.terms.as_deref()?;
    let n = w.spread_keys.len();
    Some(
        terms
            .iter()
            .map(|t| {
                let mut t = t.clone();
                let spread = n > 0
                    && t.expressions.len() >= n
                    && t.expressions[t.expressions.len() - n..]
                        .iter()
                        .zip(w.spread_keys.iter())
                        .all(|(r, k)| r.operator == "Exists" && *r.key == **k);
                if spread {
                    t.expressions.truncate(t.expressions.len() - n);
                }
                t
            })
            .collect(),
    )
}

/// A node selector requirement against one label value (`None`: absent); `None` when it
/// cannot be evaluated (an unknown operator, a `Gt`/`Lt` value that is no integer).
fn requirement(label: Option<&str>, r: &Requirement) -> Option<bool> {
    let has = |v: &str| r.values.iter().any(|x| x == v);
    match r.operator.as_str() {
        "In" => Some(label.is_some_and(has)),
        "NotIn" => Some(!label.is_some_and(has)),
        "Exists" => Some(label.is_some()),
        "DoesNotExist" => Some(label.is_none()),
        "Gt" | "Lt" => {
            let [want] = r.values.as_slice() else {
                return None;
            };
            let want: i64 = want.parse().ok()?;
            let Some(v) = label.and_then(|l| l.parse::<i64>().ok()) else {
                return Some(false);
            };
            Some(if r.operator == "Gt" {
                v > want
            } else {
                v < want
            })
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn taints_print_as_go_prints_them() {
        assert_eq!(
            go_taint("instance", "spot", "NoSchedule"),
            "{instance spot NoSchedule <nil>}"
        );
        assert_eq!(go_taint("gpu", "", "NoExecute"), "{gpu  NoExecute <nil>}");
    }

    #[test]
    fn requirements_on_flavor_labels() {
        let r = |op: &str, values: &[&str]| Requirement {
            key: "k".into(),
            operator: op.into(),
            values: values.iter().map(|v| v.to_string()).collect(),
        };
        assert_eq!(requirement(Some("a"), &r("In", &["a", "b"])), Some(true));
        assert_eq!(requirement(None, &r("In", &["a"])), Some(false));
        assert_eq!(requirement(None, &r("NotIn", &["a"])), Some(true));
        assert_eq!(requirement(Some("a"), &r("NotIn", &["a"])), Some(false));
        assert_eq!(requirement(Some("5"), &r("Gt", &["4"])), Some(true));
        assert_eq!(requirement(Some("x"), &r("Gt", &["4"])), Some(false));
        assert_eq!(requirement(Some("5"), &r("Gt", &["four"])), None);
        assert_eq!(requirement(Some("5"), &r("Near", &["4"])), None);
    }
}
