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
use std::sync::Arc;

use crate::load::yaml::Node;
use crate::load::{Loc, SourceFile, Span};
use crate::model::{Object, PodSpec};
use crate::util::intern;

use crate::analysis::semantics::matching::{TaintRef, Tol, tolerates};
use crate::analysis::sources::text;
use crate::analysis::types::workload::{Term, Workload};

/// The label Kueue reads the queue name from, on the job object itself
/// (pkg/controller/jobframework/interface.go, `QueueNameForObject`).
pub const QUEUE_LABEL: &str = "kueue.x-k8s.io/queue-name";

/// A `ResourceFlavor`.
#[derive(Clone, Debug)]
pub struct Flavor {
    pub name: String,
    pub node_labels: Vec<(String, String)>,
    /// `nodeTaints`: (key, value, effect).
    pub node_taints: Vec<(String, String, String)>,
    /// `tolerations`: (key, operator, value, effect); Kueue adds them to the pods it admits.
    pub tolerations: Vec<(String, String, String, String)>,
    /// The flavor's name in its file.
    pub loc: Loc,
}

/// One of a ClusterQueue's `resourceGroups`.
#[derive(Clone, Debug)]
pub struct ResourceGroup {
    pub covered: Vec<String>,
    pub flavors: Vec<String>,
}

#[derive(Clone, Debug)]
pub struct ClusterQueue {
    pub name: String,
    pub groups: Vec<ResourceGroup>,
}

#[derive(Clone, Debug)]
pub struct LocalQueue {
    /// `None`: not written (the namespace it is applied in).
    pub namespace: Option<String>,
    pub name: String,
    pub cluster_queue: String,
}

/// The Kueue objects of a file, or of a cluster's files.
#[derive(Clone, Debug, Default)]
pub struct Kueue {
    pub flavors: Vec<Flavor>,
    pub cluster_queues: Vec<ClusterQueue>,
    pub local_queues: Vec<LocalQueue>,
}

/// No Kueue object (for cross-reference contexts built outside a run).
pub static NO_KUEUE: Kueue = Kueue {
    flavors: Vec::new(),
    cluster_queues: Vec::new(),
    local_queues: Vec::new(),
};

/// A workload's submission to a LocalQueue.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Submission {
    pub queue: Arc<str>,
    /// The queue-name label's value.
    pub span: Span,
    /// The resources the pod spec's containers request or limit (Kueue counts `pods` too when
    /// a resource group covers it).
    pub requests: Box<[Arc<str>]>,
}

fn is_kueue(object: &Object<'_>) -> bool {
    object.group == "kueue.x-k8s.io" && matches!(object.version, "v1beta1" | "v1beta2")
}

fn strings(node: Option<&Node>) -> Vec<String> {
    node.and_then(Node::as_seq)
        .unwrap_or_default()
        .iter()
        .filter_map(|n| n.text().map(str::to_string))
        .collect()
}

impl Kueue {
    pub fn is_empty(&self) -> bool {
        self.flavors.is_empty() && self.cluster_queues.is_empty() && self.local_queues.is_empty()
    }

    /// The objects of a cluster's files, in input order (files are linted in parallel and
    /// come in any order; which copy of an object a finding names must not depend on it).
    pub fn in_input_order(mut parts: Vec<(usize, Kueue)>) -> Kueue {
        parts.sort_by_key(|(index, _)| *index);
        let mut all = Kueue::default();
        for (_, mut k) in parts {
            all.flavors.append(&mut k.flavors);
            all.cluster_queues.append(&mut k.cluster_queues);
            all.local_queues.append(&mut k.local_queues);
        }
        all
    }

    /// Takes in `object` if it is a Kueue LocalQueue, ClusterQueue or ResourceFlavor.
    pub fn add(&mut self, object: &Object<'_>, source: &Arc<SourceFile>) {
        if !is_kueue(object) {
            return;
        }
        let Some(name) = object.id.name.clone() else {
            return;
        };
        let spec = object.node.get("spec");
        match object.kind {
            "LocalQueue" => {
                let Some(cq) = spec
                    .and_then(|s| s.get("clusterQueue"))
                    .and_then(Node::text)
                else {
                    return;
                };
                self.local_queues.push(LocalQueue {
                    namespace: object.id.namespace.clone(),
                    name,
                    cluster_queue: cq.to_string(),
                });
            }
            "ClusterQueue" => {
                let groups = spec
                    .and_then(|s| s.get("resourceGroups"))
                    .and_then(Node::as_seq)
                    .unwrap_or_default()
                    .iter()
                    .map(|g| ResourceGroup {
                        covered: strings(g.get("coveredResources")),
                        flavors: g
                            .get("flavors")
                            .and_then(Node::as_seq)
                            .unwrap_or_default()
                            .iter()
                            .filter_map(|f| f.get("name").and_then(Node::text))
                            .map(str::to_string)
                            .collect(),
                    })
                    .collect();
                self.cluster_queues.push(ClusterQueue { name, groups });
            }
            "ResourceFlavor" => {
                let list = |key: &str| {
                    spec.and_then(|s| s.get(key))
                        .and_then(Node::as_seq)
                        .unwrap_or_default()
                };
                let field = |n: &Node, k: &str| text(n.get(k));
                let node_labels = spec
                    .and_then(|s| s.get("nodeLabels"))
                    .and_then(Node::as_map)
                    .unwrap_or_default()
                    .iter()
                    .filter_map(|(k, v)| Some((k.text()?.to_string(), text(Some(v)))))
                    .collect();
                let node_taints = list("nodeTaints")
                    .iter()
                    .map(|t| (field(t, "key"), field(t, "value"), field(t, "effect")))
                    .collect();
                let tolerations = list("tolerations")
                    .iter()
                    .map(|t| {
                        let op = field(t, "operator");
                        // The API's default operator is Equal.
                        let op = if op.is_empty() { "Equal".into() } else { op };
                        (field(t, "key"), op, field(t, "value"), field(t, "effect"))
                    })
                    .collect();
                let span = object
                    .node
                    .path(&["metadata", "name"])
                    .map_or(object.node.span, |n| n.span);
                self.flavors.push(Flavor {
                    name,
                    node_labels,
                    node_taints,
                    tolerations,
                    loc: Loc {
                        source: source.lite([span.start, span.end.max(span.start)]),
                        span,
                    },
                });
            }
            _ => {}
        }
    }
}

/// The kinds Kueue's integrations manage (pkg/controller/jobs in kubernetes-sigs/kueue; the
/// `integrations.frameworks` of config/components/manager/controller_manager_config.yaml), by
/// (kind, group); a custom resource of another kind may carry the label for its own reasons.
/// Some are off in Kueue's default configuration (the Kubeflow v1 jobs, Spark): a workload
/// labelled for a queue is taken to be meant for Kueue.
fn is_integrated(kind: &str, group: &str) -> bool {
    matches!(
        (kind, group),
        ("Job" | "CronJob", "batch")
            | ("Pod", "")
            | ("Deployment" | "StatefulSet", "apps")
            | ("JobSet", "jobset.x-k8s.io")
            | ("LeaderWorkerSet", "leaderworkerset.x-k8s.io")
            | ("RayJob" | "RayCluster" | "RayService", "ray.io")
            | ("SparkApplication", "sparkoperator.k8s.io")
            | (
                "PyTorchJob" | "TFJob" | "XGBoostJob" | "PaddleJob" | "MXJob" | "JAXJob" | "MPIJob",
                "kubeflow.org"
            )
            | ("TrainJob", "trainer.kubeflow.org")
            | ("AppWrapper", "workload.codeflare.dev")
    )
}

/// The submission of this pod spec, when its object is labelled with a queue name: on the
/// object itself (Kueue reads no other place), or for a CronJob on its `jobTemplate`, whose
/// labels each Job it creates carries.
pub fn submission(object: &Object<'_>, spec: &PodSpec<'_>) -> Option<Box<Submission>> {
    if !is_integrated(object.kind, object.group) {
        return None;
    }
    let labels = if object.kind == "CronJob" {
        object
            .node
            .path(&["spec", "jobTemplate", "metadata", "labels"])
    } else {
        object.labels
    }?;
    let value = labels.get(QUEUE_LABEL)?;
    let queue = value.text().filter(|q| !q.is_empty())?;
    let mut requests = spec.resource_names();
    requests.sort_unstable();
    Some(Box::new(Submission {
        queue: intern(queue),
        span: value.span,
        requests: requests.into_iter().map(intern).collect(),
    }))
}

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
    let mut cut: Vec<Vec<&crate::analysis::types::workload::Requirement>> = Vec::new();
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
fn requirement(
    label: Option<&str>,
    r: &crate::analysis::types::workload::Requirement,
) -> Option<bool> {
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
        let r = |op: &str, values: &[&str]| crate::analysis::types::workload::Requirement {
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
