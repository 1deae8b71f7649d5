//! `pod-affinity-matches-nothing`: a required `podAffinity` term that no pod of the linted
//! files satisfies. The InterPodAffinity filter admits a node only where a pod the term
//! selects already runs in the term's topology domain ("node(s) didn't match pod affinity
//! rules"); when no pod in the cluster matches any term, it lets in a pod that matches all its
//! own terms, so the first of a group that gathers around itself is not stuck
//! (`satisfyPodAffinity` in pkg/scheduler/framework/plugins/interpodaffinity/filtering.go in
//! kubernetes/kubernetes). The cluster may run the pods the term wants without their
//! manifests being here, so this is an info.

use std::collections::BTreeMap;
use std::sync::Arc;

use crate::analysis::types::Workload;
use crate::analysis::types::pod_affinity::{AffinityTerm, Namespaces, PodLabels, Selects};
use crate::diagnostic::{Finding, Severity};

use super::{Aggregate, Category, Rule, RuleMeta, RunCtx};

pub static META: RuleMeta = RuleMeta {
    name: "pod-affinity-matches-nothing",
    summary: "Required pod affinity to pods that no linted workload creates: Pending unless the cluster runs them",
    category: Category::Scheduling,
    severity: Severity::Info,
    enabled: true,
    docs: include_str!("../../rules/pod-affinity-matches-nothing.md"),
};

pub static RULE: Rule = Rule::new(&META).aggregate(|| Box::<Pods>::default());

/// The pods of the run, by namespace and labels (how many workloads make each kind), and the
/// workloads with required pod affinity. Bounded by what is distinct, not by replicas.
/// Files' kinds are appended as they come (`seen`) and counted together only when some
/// workload asks (`report`): a run without pod affinity, the usual one, never sorts them.
#[derive(Default)]
pub struct Pods {
    seen: Vec<(Option<Arc<str>>, PodLabels)>,
    pods: BTreeMap<(Option<Arc<str>>, PodLabels), usize>,
    askers: Vec<Workload>,
}

fn namespace(w: &Workload) -> Option<Arc<str>> {
    w.object.namespace.as_deref().map(crate::util::intern)
}

impl Pods {
    /// Is some pod other than `w`'s own (one of its kind less) counted by `term`?
    fn matched_by_others(&self, w: &Workload, term: &AffinityTerm) -> bool {
        let own_ns = namespace(w);
        self.pods.iter().any(|((ns, l), &count)| {
            let others = if *ns == own_ns && *l == w.pod_labels {
                count.saturating_sub(1)
            } else {
                count
            };
            others > 0
                && term.looks_in(own_ns.as_deref(), ns.as_deref())
                && !matches!(term.selector.selects(l), Selects::No(_))
        })
    }
}

fn scope(term: &AffinityTerm) -> String {
    match &term.namespaces {
        Namespaces::Own => "in its own namespace".to_string(),
        Namespaces::Any => "in the namespaces its `namespaceSelector` picks".to_string(),
        Namespaces::Listed(list) => {
            let names: Vec<String> = list.iter().map(|n| format!("`{n}`")).collect();
            format!("in {}", names.join(", "))
        }
    }
}

impl Aggregate for Pods {
    fn add(&mut self, workloads: &[Workload]) {
        for w in workloads {
            self.seen.push((namespace(w), w.pod_labels.clone()));
            if !w.pod_affinity().is_empty() {
                self.askers.push(w.clone());
            }
        }
    }

    fn merge(&mut self, other: Box<dyn Aggregate>) {
        if let Ok(other) = other.into_any().downcast::<Pods>() {
            let mut other = *other;
            self.seen.append(&mut other.seen);
            self.askers.append(&mut other.askers);
        }
    }

    fn into_any(self: Box<Self>) -> Box<dyn std::any::Any> {
        self
    }

    fn report(mut self: Box<Self>, _ctx: &RunCtx<'_>, out: &mut Vec<Finding>) {
        if self.askers.is_empty() {
            return;
        }
        for k in std::mem::take(&mut self.seen) {
            *self.pods.entry(k).or_default() += 1;
        }
        for w in &self.askers {
            let own = &w.pod_labels;
            let own_ns = namespace(w);
            let unmatched: Vec<&AffinityTerm> = w
                .pod_affinity()
                .iter()
                .filter(|t| !self.matched_by_others(w, t))
                .collect();
            let Some(first) = unmatched.first() else {
                continue;
            };
            // The first-pod exception: no other pod matches any term, and the pod matches
            // all of its own (its namespace included).
            let self_match = w.pod_affinity().iter().all(|t| {
                t.looks_in(own_ns.as_deref(), own_ns.as_deref())
                    && !matches!(t.selector.selects(own), Selects::No(_))
            });
            if unmatched.len() == w.pod_affinity().len() && self_match {
                continue;
            }
            let own_match = first.looks_in(own_ns.as_deref(), own_ns.as_deref())
                && !matches!(first.selector.selects(own), Selects::No(_));
            let message = if first.selector.is_nothing() {
                "a required pod affinity term without a `labelSelector` selects no pod, not even its own: this pod stays Pending (node(s) didn't match pod affinity rules)".to_string()
            } else if own_match {
                format!(
                    "required pod affinity to pods with {} {}, which only this workload's own pods have: the scheduler lets the first one in only when no pod matches any of its terms and it matches them all, so it stays Pending unless such pods run in the cluster (node(s) didn't match pod affinity rules)",
                    first.selector.display(),
                    scope(first),
                )
            } else {
                format!(
                    "required pod affinity to pods with {} {}, but no workload in the linted files makes such pods: unless they run in the cluster, this pod stays Pending (node(s) didn't match pod affinity rules)",
                    first.selector.display(),
                    scope(first),
                )
            };
            let mut f = META
                .finding(message)
                .primary(first.span, "matches no linted pod")
                .help("deploy the pods it should join, or make the selector match their labels; to only prefer their nodes, use `preferredDuringSchedulingIgnoredDuringExecution`")
                .field(w.spec_path.to_string())
                .in_file(&w.source);
            f.object = Some(w.object.clone());
            out.push(f);
        }
    }
}
