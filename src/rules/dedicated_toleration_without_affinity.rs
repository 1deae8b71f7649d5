//! `dedicated-toleration-without-affinity`: a toleration opens the door to tainted nodes, but
//! nothing (`nodeSelector`, required node affinity, `nodeName`) sends the pod there, so it
//! lands on general nodes just as well. Keys that mark node conditions or opportunistic
//! capacity are exempt (SEMANTICS §7).

use crate::diagnostic::{Finding, Severity};

use super::{Category, Ctx, RuleMeta};

pub static META: RuleMeta = RuleMeta {
    name: "dedicated-toleration-without-affinity",
    summary: "A workload tolerates a dedicated taint but has no nodeSelector or node affinity to go there",
    category: Category::Suspicious,
    severity: Severity::Warning,
    enabled: true,
    docs: include_str!("../../rules/dedicated-toleration-without-affinity.md"),
};

/// Key prefixes that mark node conditions, lifecycle or opportunistic capacity, not dedication.
const EXEMPT_PREFIXES: &[&str] = &[
    "node.kubernetes.io/",
    "node.alpha.kubernetes.io/",
    "node.cloudprovider.kubernetes.io/",
    "node.cluster.x-k8s.io/",
    "karpenter.sh/",
];

/// Exact keys exempt by default.
const EXEMPT_KEYS: &[&str] = &[
    "node-role.kubernetes.io/control-plane",
    "node-role.kubernetes.io/master",
    "CriticalAddonsOnly",
    "node.cilium.io/agent-not-ready",
    "ToBeDeletedByClusterAutoscaler",
    "DeletionCandidateOfClusterAutoscaler",
    "cloud.google.com/gke-spot",
    "cloud.google.com/gke-preemptible",
    "kubernetes.azure.com/scalesetpriority",
    "remediator.aks.microsoft.com/unschedulable",
];

/// Name parts that mark a readiness or lifecycle taint (`cni.istio.io/not-ready`,
/// `node.example.com/uninitialized`), which pods tolerate to run *before* a node is ready.
const EXEMPT_NAME_SUFFIXES: &[&str] = &["not-ready", "notready", "uninitialized", "unschedulable"];

pub fn is_exempt(key: &str) -> bool {
    let name = key.rsplit('/').next().unwrap_or(key).to_ascii_lowercase();
    EXEMPT_KEYS.contains(&key)
        || EXEMPT_PREFIXES.iter().any(|p| key.starts_with(p))
        || EXEMPT_NAME_SUFFIXES.iter().any(|s| name.ends_with(s))
}

pub fn check(ctx: &Ctx<'_>, out: &mut Vec<Finding>) {
    if ctx.is_node_agent() {
        return;
    }
    for spec in &ctx.object.pod_specs {
        // Operator CRs that configure DaemonSets (`spec.daemonsets.tolerations`).
        if spec.path.to_ascii_lowercase().contains("daemonset") || spec.is_pinned() {
            continue;
        }
        for tol in &spec.tolerations {
            let key = tol.key();
            // Requesting the extended resource of the same name pins the pod as well
            // (`nvidia.com/gpu` limits only fit GPU nodes).
            if key.is_empty() || is_exempt(key) || spec.requests_resource(key) {
                continue;
            }
            if !matches!(tol.effect(), "" | "NoSchedule" | "NoExecute") {
                continue;
            }
            if !matches!(tol.operator(), "" | "Equal" | "Exists") {
                continue;
            }
            let value = tol.value();
            let exists = tol.operator() == "Exists";
            let selector = if exists || value.is_empty() {
                format!("required node affinity `{{key: {key}, operator: Exists}}`")
            } else {
                format!("`nodeSelector: {{{key}: {value}}}`")
            };
            let where_ = if spec.path.is_empty() {
                "this spec".to_string()
            } else {
                format!("`{}`", spec.path)
            };
            out.push(
                Finding::new(
                    META.name,
                    META.severity,
                    format!(
                        "tolerates the `{key}` taint, but nothing pins the pod to those nodes: it can land on any untainted node as well"
                    ),
                )
                .primary(
                    tol.key.map_or(tol.span(), |k| k.entry_span()),
                    "opens the door to tainted nodes",
                )
                .help(format!(
                    "a toleration only allows; to run on the dedicated nodes, add {selector} to {where_} (assuming the nodes carry a label like their taint), or remove the toleration if the pod does not need them"
                ))
                .field(tol.path.clone()),
            );
        }
    }
}
