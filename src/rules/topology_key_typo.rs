//! `topology-key-typo`: a `topologyKey` (pod affinity, anti-affinity, topology spread) within
//! two edits of a well-known node label (`kubernetes.io/hostname`, `topology.kubernetes.io/zone`,
//! …) but not it. The API server accepts any label key, and the scheduler then finds no node
//! with the label: a required anti-affinity or affinity term matches no node ("node(s) didn't
//! match pod affinity rules"), a `DoNotSchedule` spread constraint filters every node out
//! ("node(s) didn't match pod topology spread constraints (missing required label)"), a
//! preferred one does nothing.

use crate::diagnostic::{Applicability, Finding, Severity};
use crate::load::yaml::Node;

use super::{Category, Ctx, Rule, RuleMeta};

pub static META: RuleMeta = RuleMeta {
    name: "topology-key-typo",
    summary: "A `topologyKey` one typo away from a well-known node label (`kubernetes.io/hostnme`), which no node carries",
    category: Category::Suspicious,
    severity: Severity::Warning,
    enabled: true,
    docs: include_str!("../../rules/topology-key-typo.md"),
};

pub static RULE: Rule = Rule::new(&META).check(check);

/// The node labels every node (or every cloud node) carries, set by the kubelet and the cloud
/// controller manager (k8s.io/api/core/v1 `well_known_labels.go`).
const WELL_KNOWN: &[&str] = &[
    "kubernetes.io/hostname",
    "topology.kubernetes.io/zone",
    "topology.kubernetes.io/region",
    "kubernetes.io/os",
    "kubernetes.io/arch",
    "node.kubernetes.io/instance-type",
    "failure-domain.beta.kubernetes.io/zone",
    "failure-domain.beta.kubernetes.io/region",
    "beta.kubernetes.io/instance-type",
];

pub fn check(ctx: &Ctx<'_>, out: &mut Vec<Finding>) {
    for spec in &ctx.object.pod_specs {
        // Where each `topologyKey` sits, as a path made only for a typo (most keys are none).
        let mut keys: Vec<(Where<'_>, &Node, &Node)> = Vec::new();
        for part in [&spec.pod_affinity, &spec.pod_anti_affinity] {
            let Some(part) = part else { continue };
            let block = part.value;
            for (i, t) in block.get(REQUIRED).and_then(Node::as_seq).unwrap_or_default().iter().enumerate() {
                if let Some((k, v)) = t.entry("topologyKey") {
                    keys.push((Where::Required(&part.path, i), k, v));
                }
            }
            for (i, t) in block.get(PREFERRED).and_then(Node::as_seq).unwrap_or_default().iter().enumerate() {
                if let Some((k, v)) = t.get("podAffinityTerm").and_then(|p| p.entry("topologyKey")) {
                    keys.push((Where::Preferred(&part.path, i), k, v));
                }
            }
        }
        for (i, c) in spec.spread_constraints().iter().enumerate() {
            if let Some((k, v)) = c.entry("topologyKey") {
                keys.push((Where::Spread(i), k, v));
            }
        }
        for (at, k, v) in keys {
            let Some(key) = v.text() else { continue };
            let Some(want) = typo_of(key) else { continue };
            let path = match at {
                Where::Required(base, i) => format!("{base}.{REQUIRED}[{i}].topologyKey"),
                Where::Preferred(base, i) => {
                    format!("{base}.{PREFERRED}[{i}].podAffinityTerm.topologyKey")
                }
                Where::Spread(i) => {
                    let spread = spec
                        .topology_spread
                        .as_ref()
                        .map_or_else(|| spec.field_path("topologySpreadConstraints"), |p| p.path.clone());
                    format!("{spread}[{i}].topologyKey")
                }
            };
            let fix = crate::fix::single(
                Applicability::Unsafe,
                format!("replace `{key}` with `{want}`"),
                crate::fix::replace_scalar(ctx.source, k, v, want),
            );
            out.push(
                META.finding(format!(
                    "topology key `{key}` looks like a typo of `{want}`: no node carries `{key}`, so the term or constraint finds no domain"
                ))
                .primary(v.span, format!("did you mean `{want}`?"))
                .help(format!("the node label is `{want}`; a key no node has makes a required term or a `DoNotSchedule` constraint unschedulable, and a preferred one do nothing"))
                .field(path)
                .fix(fix),
            );
        }
    }
}

const REQUIRED: &str = "requiredDuringSchedulingIgnoredDuringExecution";
const PREFERRED: &str = "preferredDuringSchedulingIgnoredDuringExecution";

/// Where a `topologyKey` is: the `i`th required or preferred term of a pod (anti-)affinity
/// block (at its path), or the `i`th spread constraint.
enum Where<'a> {
    Required(&'a str, usize),
    Preferred(&'a str, usize),
    Spread(usize),
}

/// The well-known label `key` misspells: within two edits (or differing in case), not one of
/// them, and not a key of another domain that happens to be close.
fn typo_of(key: &str) -> Option<&'static str> {
    if key.is_empty() || WELL_KNOWN.contains(&key) {
        return None;
    }
    let lower = key.to_ascii_lowercase();
    // A short key (`zone`) is two edits from nothing well known; these keys are long, so
    // two edits is a typo, not another label. The first of the nearest, as listed.
    WELL_KNOWN
        .iter()
        .filter_map(|w| Some((*w, crate::util::edit_distance_within(&lower, w, 2)?)))
        .min_by_key(|(_, d)| *d)
        .map(|(w, _)| w)
}

#[cfg(test)]
mod tests {
    use super::typo_of;

    #[test]
    fn typos_and_not() {
        assert_eq!(typo_of("kubernetes.io/hostnme"), Some("kubernetes.io/hostname"));
        assert_eq!(typo_of("topology.kubernetes.io/zones"), Some("topology.kubernetes.io/zone"));
        assert_eq!(typo_of("Kubernetes.io/Hostname"), Some("kubernetes.io/hostname"));
        assert_eq!(typo_of("topology.kubernetes.io/regoin"), Some("topology.kubernetes.io/region"));
        for fine in ["kubernetes.io/hostname", "zone", "example.com/rack", "topology.kubernetes.io/zone", "topology.gke.io/zone", ""] {
            assert_eq!(typo_of(fine), None, "{fine}");
        }
    }
}
