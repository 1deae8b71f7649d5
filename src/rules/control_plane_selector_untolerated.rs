//! `control-plane-selector-untolerated`: a pod that selects the control-plane nodes (by their role
//! label) but does not tolerate the control-plane taint kubeadm puts on them: it can only go where
//! it is not allowed, so it stays Pending (the scheduler's TaintToleration filter;
//! k8s.io/api/core/v1/well_known_taints.go).

use crate::diagnostic::{Finding, Severity};
use crate::load::yaml::Node;
use crate::model::PodSpec;

use super::{Category, Ctx, Rule, RuleMeta};

pub static META: RuleMeta = RuleMeta {
    name: "control-plane-selector-untolerated",
    summary: "A pod selects the control-plane nodes but does not tolerate their taint",
    category: Category::Suspicious,
    severity: Severity::Warning,
    enabled: true,
    docs: include_str!("../../rules/control-plane-selector-untolerated.md"),
};

// With node pools, `unschedulable-workload` judges the same pod against the real ones.
pub static RULE: Rule = Rule::new(&META).check(check).superseded_by_inventory();

const ROLE_LABELS: &[&str] = &[
    "node-role.kubernetes.io/control-plane",
    "node-role.kubernetes.io/master",
];

/// Where the spec requires a control-plane role label: the nodeSelector key or the affinity
/// expression's key (an `In`/`Exists` requirement; `NotIn`/`DoesNotExist` keep pods away).
fn selects_control_plane<'a>(spec: &PodSpec<'a>) -> Option<(&'a Node, &'a str)> {
    for (k, _) in spec.selector_entries() {
        if let Some(key) = k.text().filter(|k| ROLE_LABELS.contains(k)) {
            return Some((k, key));
        }
    }
    let terms = spec
        .required_affinity()
        .and_then(|r| r.get("nodeSelectorTerms"))
        .and_then(Node::as_seq)
        .unwrap_or_default();
    // Every term must require it (terms are ORed).
    let mut found = None;
    for term in terms {
        let hit = term
            .get("matchExpressions")
            .and_then(Node::as_seq)
            .unwrap_or_default()
            .iter()
            .find_map(|e| {
                let key = e.get("key").and_then(Node::text)?;
                let op = e.get("operator").and_then(Node::text)?;
                (ROLE_LABELS.contains(&key) && matches!(op, "In" | "Exists"))
                    .then(|| e.get("key").map(|k| (k, key)))
                    .flatten()
            });
        match hit {
            Some(h) => found = found.or(Some(h)),
            None => return None,
        }
    }
    found
}

/// Does some toleration of the spec (or of its operator's) tolerate a control-plane
/// NoSchedule taint?
fn tolerates_control_plane(spec: &PodSpec<'_>) -> bool {
    let ok = |key: &str, operator: &str, value: &str, effect: &str| {
        let key_ok = key.is_empty() && operator == "Exists"
            || ROLE_LABELS.contains(&key) && (operator == "Exists" || value.is_empty());
        key_ok && matches!(effect, "" | "NoSchedule")
    };
    spec.tolerations
        .iter()
        .any(|t| ok(t.key(), t.operator(), t.value(), t.effect()))
        || spec
            .synth
            .iter()
            .flat_map(|s| &s.tolerations)
            .any(|t| ok(&t.key, &t.operator, &t.value, &t.effect))
        || tolerates_own_control_plane_taint(spec)
}

/// Does the spec tolerate a control-plane taint of some distribution's own (OpenStack Magnum
/// taints its masters `dedicated=master:NoSchedule`, not with the kubeadm taint)? Then the pod
/// was written for that distribution's control plane, and may well fit it.
fn tolerates_own_control_plane_taint(spec: &PodSpec<'_>) -> bool {
    const WORDS: &[&str] = &["master", "control-plane", "controlplane"];
    spec.tolerations.iter().any(|t| {
        let names_it = |s: &str| {
            let s = s.to_ascii_lowercase();
            WORDS.iter().any(|w| s.contains(w))
        };
        // The role-label taints are judged exactly above.
        !ROLE_LABELS.contains(&t.key())
            && matches!(t.effect(), "" | "NoSchedule")
            && (names_it(t.key()) || names_it(t.value()))
    })
}

pub fn check(ctx: &Ctx<'_>, out: &mut Vec<Finding>) {
    for spec in &ctx.object.pod_specs {
        let Some((at, label)) = selects_control_plane(spec) else {
            continue;
        };
        // A patch's base may well tolerate the taint.
        if tolerates_control_plane(spec) || spec.node_name.is_some() || spec.is_fragment() {
            continue;
        }
        out.push(
            META.finding(format!(
                "selects the control-plane nodes (`{label}`) but does not tolerate their `node-role.kubernetes.io/control-plane:NoSchedule` taint: the pod can go nowhere and stays Pending"
            ))
            .primary(at.span, "only control-plane nodes")
            .help("add `{key: node-role.kubernetes.io/control-plane, operator: Exists, effect: NoSchedule}` to the tolerations; if your control-plane nodes are not tainted (k3s, a single-node cluster), suppress this finding")
            .field(spec.path.clone())
            .taint_key("node-role.kubernetes.io/control-plane"),
        );
    }
}
