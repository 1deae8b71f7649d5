//! `dedicated-toleration-without-affinity`: a toleration opens the door to tainted nodes, but
//! nothing (`nodeSelector`, required node affinity, `nodeName`) sends the pod there, so it
//! lands on general nodes just as well. Keys that mark node conditions or opportunistic
//! capacity are exempt (k8s.io/api/core/v1/well_known_taints.go).

use std::sync::Arc;

use crate::diagnostic::{Finding, Fix, Severity};

use crate::analysis::semantics::well_known::is_transient_taint;
use crate::analysis::semantics::matching::tolerates;
use crate::diagnostic::Related;

use super::{Category, CrossCtx, Ctx, Rule, RuleMeta};

pub static META: RuleMeta = RuleMeta {
    name: "dedicated-toleration-without-affinity",
    summary: "A workload tolerates a dedicated taint but has no nodeSelector or node affinity to go there",
    category: Category::Suspicious,
    severity: Severity::Warning,
    enabled: true,
    docs: include_str!("../../rules/dedicated-toleration-without-affinity.md"),
};

pub static RULE: Rule = Rule::new(&META).check(check).cross(check_inventory).superseded_by_inventory();

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
    // RKE's control-plane and etcd taints.
    "node-role.kubernetes.io/controlplane",
    "node-role.kubernetes.io/etcd",
    "CriticalAddonsOnly",
    "node.cilium.io/agent-not-ready",
    "ToBeDeletedByClusterAutoscaler",
    "DeletionCandidateOfClusterAutoscaler",
    "cloud.google.com/gke-spot",
    "cloud.google.com/gke-preemptible",
    "kubernetes.azure.com/scalesetpriority",
    "remediator.aks.microsoft.com/unschedulable",
    // GKE taints Arm nodes with the architecture: a pod that tolerates it is multi-arch, not
    // meant for dedicated nodes (and its image decides where it can run).
    "kubernetes.io/arch",
];

/// Name parts that mark a readiness or lifecycle taint (`cni.istio.io/not-ready`,
/// `node.example.com/uninitialized`), which pods tolerate to run *before* a node is ready.
const EXEMPT_NAME_SUFFIXES: &[&str] = &["not-ready", "notready", "uninitialized", "unschedulable"];

/// `dedicated-exempt-keys` from the config; a trailing `*` matches a prefix.
pub fn is_configured_exempt(key: &str, extra: &[String]) -> bool {
    extra.iter().any(|e| match e.strip_suffix('*') {
        Some(prefix) => key.starts_with(prefix),
        None => e == key,
    })
}

pub fn is_exempt(key: &str) -> bool {
    let name = key.rsplit('/').next().unwrap_or(key).to_ascii_lowercase();
    EXEMPT_KEYS.contains(&key)
        || EXEMPT_PREFIXES.iter().any(|p| key.starts_with(p))
        || EXEMPT_NAME_SUFFIXES.iter().any(|s| name.ends_with(s))
}

/// Operator resources that configure node agents (`spec.daemonsets.tolerations`, Istio's
/// `components.cni`/`components.ztunnel`): those pods run on every node by design.
pub fn is_node_agent_path(path: &str) -> bool {
    path.split(['.', '[']).any(|seg| {
        let seg = seg.to_ascii_lowercase();
        seg.contains("daemonset")
            || matches!(
                seg.as_str(),
                "cni" | "ztunnel" | "nodeagent" | "node-agent" | "node_agent"
            )
    })
}

/// A spec that also tolerates the control plane or `CriticalAddonsOnly` is a system component
/// meant to run anywhere, not a workload for dedicated nodes.
fn runs_anywhere(spec: &crate::model::PodSpec<'_>) -> bool {
    spec.tolerations.iter().any(|t| {
        matches!(
            t.key(),
            "node-role.kubernetes.io/control-plane"
                | "node-role.kubernetes.io/master"
                | "node-role.kubernetes.io/controlplane"
                | "node-role.kubernetes.io/etcd"
                | "CriticalAddonsOnly"
        )
    })
}

pub fn check(ctx: &Ctx<'_>, out: &mut Vec<Finding>) {
    // A RuntimeClass's or a ResourceFlavor's tolerations are merged into pods that select
    // their nodes elsewhere.
    // A template a program fills in (and places) is not applied as written.
    if ctx.is_node_agent()
        || ctx.object.kind == "RuntimeClass"
        || ctx.object.lends_tolerations()
        || ctx.object.filled_by_a_program()
    {
        return;
    }
    for spec in &ctx.object.pod_specs {
        // A patch's base may select the nodes.
        // An operator's node agent runs on every node it may, as a DaemonSet does.
        if is_node_agent_path(&spec.path)
            || spec.per_node()
            || spec.is_pinned()
            || runs_anywhere(spec)
            || spec.is_fragment()
        {
            continue;
        }
        // Requesting devices (an extended resource, a DRA claim) pins the pod as well,
        // whatever the taint's key: `nvidia.com/gpu` limits only fit GPU nodes.
        if spec.requests_devices() {
            continue;
        }
        // Once per spec, not per toleration.
        let preferred: std::collections::HashSet<&str> =
            spec.preferred_keys().into_iter().collect();
        // A toleration repeated word for word is one door, said once (the copies are
        // `shadowed-toleration`'s): a list of 250,000 copies is one finding here, not 250,000.
        let mut said = std::collections::HashSet::new();
        let avoided: std::collections::HashSet<&str> = spec.avoided_keys().into_iter().collect();
        for tol in &spec.tolerations {
            if !said.insert((tol.key(), tol.operator(), tol.value(), tol.effect())) {
                continue;
            }
            let key = tol.key();
            // What found pools must have to take this over: the taint this toleration
            // tolerates (`key=value` for `Equal`), not merely its key — `dedicated=kafka` on
            // another sample's pool says nothing about a pod tolerating `dedicated=postgres`.
            let evidence = if tol.operator() == "Exists" || tol.value().is_empty() {
                key.to_string()
            } else {
                format!("{key}={}", tol.value())
            };
            // A documentation placeholder (`key`) is `placeholder-toleration-key`'s finding.
            if key.is_empty()
                || is_exempt(key)
                || is_configured_exempt(key, &ctx.settings.dedicated_exempt_keys)
                || super::placeholder_toleration_key::is_placeholder(key)
            {
                continue;
            }
            if !matches!(tol.effect(), "" | "NoSchedule" | "NoExecute") {
                continue;
            }
            if !matches!(tol.operator(), "" | "Equal" | "Exists") {
                continue;
            }
            let value = tol.value();
            let selector = if tol.operator() == "Exists" || value.is_empty() {
                format!("required node affinity `{{key: {key}, operator: Exists}}`")
            } else {
                format!("`nodeSelector: {{{key}: {value}}}`")
            };
            // No fix here: no pool is known to carry the taint, so no label is known to send
            // the pod there (the inventory-based check offers one that a pool really has).
            let where_ = if spec.path.is_empty() {
                "this spec".to_string()
            } else {
                format!("`{}`", spec.path)
            };
            // An operator's pods are pinned where the operator reads node selection: a pod's
            // nodeSelector map there only when it reads one beside the tolerations.
            let selector = if spec.role.is_some() && !spec.selector_here {
                format!("required node affinity `{{key: {key}, operator: Exists}}` (or the node selector the operator reads)")
            } else {
                selector
            };
            // The documented "prefer these nodes" pattern: tolerate the taint and prefer the
            // nodes with preferred node affinity on the same key. Deliberate; worth knowing.
            if preferred.contains(key) {
                out.push(
                    META.finding_at(
                        Severity::Info,
                        format!(
                            "tolerates the `{key}` taint and prefers those nodes (preferred node affinity on `{key}`), but does not require them: when they are full it runs on other nodes"
                        ),
                    )
                    .primary(
                        tol.key.map_or(tol.span(), |k| k.entry_span()),
                        "soft placement",
                    )
                    .help(format!(
                        "deliberate soft placement is fine; if the pod must run only on those nodes, use required node affinity or {selector} instead"
                    ))
                    .field(tol.path.clone())
                    .taint_key(&evidence),
                );
                continue;
            }
            // Tolerating the taint while preferring to avoid those nodes (`NotIn`,
            // `DoesNotExist` on the key): a pod allowed to spill there when the others are
            // full. Deliberate; worth knowing.
            if avoided.contains(key) {
                out.push(
                    META.finding_at(
                        Severity::Info,
                        format!(
                            "tolerates the `{key}` taint while its preferred node affinity avoids nodes labelled `{key}`: it may spill onto those nodes when others are full"
                        ),
                    )
                    .primary(
                        tol.key.map_or(tol.span(), |k| k.entry_span()),
                        "allowed to spill",
                    )
                    .help(
                        "deliberate spill-over is fine; if the pod must never run on those nodes, remove the toleration".to_string(),
                    )
                    .field(tol.path.clone())
                    .taint_key(&evidence),
                );
                continue;
            }
            // Preferred node affinity on other keys may be about the tainted nodes (their
            // label need not be the taint's key): without the pools, which labels those nodes
            // carry is not known, so that the pod is not meant for them is not proven.
            let soft_elsewhere = preferred.iter().chain(&avoided).min().copied();
            let (severity, unless) = match soft_elsewhere {
                Some(k) => (
                    Severity::Info,
                    format!(
                        " (unless its preferred node affinity on `{}` is about those nodes: the pools' labels would tell)",
                        crate::util::text::escape(k)
                    ),
                ),
                None => (META.severity, String::new()),
            };
            out.push(
                META.finding_at(
                    severity,
                    format!(
                        "tolerates the `{key}` taint, but nothing pins the pod to those nodes: it can land on any untainted node as well{unless}"
                    ),
                )
                .primary(
                    tol.key.map_or(tol.span(), |k| k.entry_span()),
                    "opens the door to tainted nodes",
                )
                .help(format!(
                    "a toleration only allows; to run on the dedicated nodes, add {selector} to {where_} (assuming the nodes carry a label like their taint), or remove the toleration if the pod does not need them"
                ))
                .field(tol.path.clone())
                .taint_key(&evidence),
            );
        }
    }
}

/// The Terraform root modules of the pools a toleration matches, for asking in one lookup
/// whether another pool is of the same `terraform apply` (a pool read from no Terraform is of
/// every root).
struct TaintedRoots<'a> {
    any: bool,
    roots: std::collections::HashSet<&'a str>,
}

impl<'a> TaintedRoots<'a> {
    fn of(tainted: impl Iterator<Item = &'a crate::analysis::types::Pool>) -> Self {
        let mut any = false;
        let mut roots = std::collections::HashSet::new();
        for pool in tainted {
            match &pool.terraform {
                Some(t) => {
                    roots.insert(&*t.root);
                }
                None => any = true,
            }
        }
        TaintedRoots { any, roots }
    }

    fn admits(&self, pool: &crate::analysis::types::Pool) -> bool {
        match &pool.terraform {
            Some(t) => self.any || self.roots.contains(&*t.root),
            None => self.any || !self.roots.is_empty(),
        }
    }
}

/// With an inventory: fires when the pod tolerates a taint of some pool but can also run on
/// pools that do not have that taint, naming them.
pub fn check_inventory(ctx: &CrossCtx<'_>, out: &mut Vec<Finding>) {
    let gate = ctx.settings.comparison_operators;
    let pools = &ctx.inventory.pools;
    // Identical workloads share their verdicts (`fits`): cache the answer per verdicts and
    // toleration.
    for (w, fits) in ctx.workloads.iter().zip(&ctx.eval.fits) {
        let system = w.tolerations.iter().any(|t| {
            matches!(
                &*t.key,
                "node-role.kubernetes.io/control-plane"
                    | "node-role.kubernetes.io/master"
                    | "node-role.kubernetes.io/controlplane"
                    | "node-role.kubernetes.io/etcd"
                    | "CriticalAddonsOnly"
            )
        });
        // A device request pins the pod too (as in the heuristic).
        if w.daemonset
            || w.node_name.is_some()
            || is_node_agent_path(&w.spec_path)
            || system
            || !w.resources.is_empty()
        {
            continue;
        }
        // The keys of its preferred node affinity, looked up per toleration.
        let preferred: std::collections::HashSet<&str> =
            w.preferred.iter().map(|k| &**k).collect();
        let avoided: std::collections::HashSet<&str> = w.avoided.iter().map(|k| &**k).collect();
        let mut said = std::collections::HashSet::new();
        for t in w.tolerations.iter().filter(|t| t.written()) {
            if t.key.is_empty()
                || is_exempt(&t.key)
                || is_configured_exempt(&t.key, &ctx.settings.dedicated_exempt_keys)
                || !matches!(&*t.effect, "" | "NoSchedule" | "NoExecute")
            {
                continue;
            }
            // A toleration repeated word for word is said once (as in the heuristic).
            if !said.insert((&*t.key, &*t.operator, &*t.value, &*t.effect)) {
                continue;
            }
            // Length-prefixed: any text may appear in a key or value.
            let key = [&t.key, &t.operator, &t.value, &t.effect]
                .iter()
                .map(|x| format!("{}:{x}", x.len()))
                .collect::<String>();
            let answer = ctx.eval.memo.get_or(META.name, fits, &key, || {
                // Pools with a taint this toleration tolerates: only those with its key (and
                // its value, for `Equal`); a pool's taints of one key are listed together.
                let mut tainted: Vec<(usize, usize)> = Vec::new();
                let with_key = match &*t.operator {
                    "" | "Equal" => ctx.inventory.taint_indices_with(&t.key, &t.value),
                    _ => ctx.inventory.taint_indices(&t.key),
                };
                let mut last = None;
                for &(p, _) in with_key {
                    if last == Some(p) {
                        continue;
                    }
                    last = Some(p);
                    if let Some(ti) = matching_taint(&pools[p], t, gate) {
                        tainted.push((p, ti));
                    }
                }
                // A pool with several taints is open to the pod only if it tolerates all of
                // them (TaintToleration Filter, kubernetes/kubernetes
                // pkg/scheduler/framework/plugins/tainttoleration/taint_toleration.go): the
                // dedicated pools are those of the tainted ones the pod can enter. When it
                // can enter none, the toleration lets it nowhere and nothing needs pinning.
                let &(dp, dt) = tainted.iter().find(|&&(p, _)| fits.admits(p))?;
                let roots = TaintedRoots::of(tainted.iter().map(|&(q, _)| &*pools[q]));
                let tainted_pools: std::collections::HashSet<usize> =
                    tainted.iter().map(|(p, _)| *p).collect();
                // The pools that admit the pod, in order: those of the classes that do.
                let classes = fits.classes();
                let mut admitting: Vec<usize> = fits
                    .admitting_classes()
                    .flat_map(|c| classes.members.get(c).into_iter().flatten())
                    .map(|&p| p as usize)
                    .collect();
                admitting.sort_unstable();
                // Each name once: same-named pools are alternatives.
                let titles = ctx.inventory.titles();
                let mut others: Vec<String> = Vec::new();
                let mut named: std::collections::HashSet<u32> = std::collections::HashSet::new();
                let mut other_pools: Vec<usize> = Vec::new();
                for p in admitting {
                    let Some(pool) = pools.get(p) else { continue };
                    // A pool whose labels or taints are unknown (Terraform values known at
                    // plan time) admits the pod only maybe: no claim rests on it.
                    let known = !pool.any_label
                        && pool.unknown_taints == crate::analysis::types::UnknownTaints::None;
                    // A pool of another Terraform root module than every tainted pool's is
                    // another cluster's (a repository of several tutorials, each its own
                    // `terraform apply`): no evidence of where this pod lands beside them.
                    let same_cluster = ctx.inventory.declared() || roots.admits(pool);
                    if known && same_cluster && !tainted_pools.contains(&p) {
                        other_pools.push(p);
                        if let (Some(&id), Some(title)) = (titles.id.get(p), titles.text.get(p))
                            && named.insert(id)
                        {
                            others.push(title.clone());
                        }
                    }
                }
                // The tainted pools the pod can run on: where a selector should send it.
                let targets: Vec<usize> = tainted
                    .iter()
                    .map(|(p, _)| *p)
                    .filter(|p| fits.admits(*p))
                    .collect();
                let label = pin_label(pools, &targets, &other_pools, t, ctx.settings);
                // Where the help sends the pod: the pools with the taint it can run on (each
                // name once), or the first pool with the taint.
                let mut there: Vec<String> = Vec::new();
                let mut named: std::collections::HashSet<u32> = std::collections::HashSet::new();
                for &p in &targets {
                    if let (Some(&id), Some(title)) = (titles.id.get(p), titles.text.get(p))
                        && named.insert(id)
                    {
                        there.push(title.clone());
                    }
                }
                let there = match there.len() {
                    0 | 1 => pools[dp].title(),
                    n if n <= 3 => there.join(" and "),
                    n => format!("{} and {} more", there[..2].join(", "), n - 2),
                };
                // Found pools are not the whole cluster: a pod that selects nothing also
                // lands on the untainted nodes no linted file describes.
                if others.is_empty()
                    && !ctx.inventory.closed()
                    && w.node_selector.is_empty()
                    && w.terms.is_none()
                {
                    others.push("any untainted node not described in the linted files".to_string());
                }
                let more = others.len().saturating_sub(8);
                let mut elsewhere: Vec<String> = others.into_iter().take(8).collect();
                if more > 0 {
                    elsewhere.push(format!("{more} more"));
                }
                (!elsewhere.is_empty()).then_some((dp, dt, elsewhere, label, there))
            });
            let Some((dp, dt, elsewhere, label, there)) = answer else {
                continue;
            };
            let dedicated = &pools[dp];
            let taint = &dedicated.taints[dt];
            let labels = dedicated.all_labels();
            // Soft placement: preferred node affinity on the taint's key or on a label of the
            // dedicated pool.
            let soft = preferred.contains(&*t.key) || labels.iter().any(|(l, _)| preferred.contains(&**l));
            // Avoidance: preferred `NotIn`/`DoesNotExist` on the taint's key or a label of the
            // dedicated pool (and no attraction to it).
            let avoids = !soft
                && (avoided.contains(&*t.key) || labels.iter().any(|(l, _)| avoided.contains(&**l)));
            let help = match &label {
                Some((k, v)) => format!(
                    "to keep the pod on {there}, add `nodeSelector: {{{}}}` (or the equivalent required node affinity)",
                    crate::util::text::label_entry(k, v)
                ),
                None => format!(
                    "to keep the pod on {there}, select a label only those nodes carry with `nodeSelector` or required node affinity"
                ),
            };
            // Unsafe: it changes where the pod runs, to the nodes of the pools found.
            let fix = label.as_ref().zip(w.selector_slot).map(|((k, v), slot)| {
                Fix::unsafe_(
                    format!("add `nodeSelector: {{{}}}`", crate::util::text::label_entry(k, v)),
                    vec![crate::fix::insert_node_selector(&w.source, &slot, k, v)],
                )
            });
            let mut f = if avoids {
                META.finding_at(
                    Severity::Info,
                    format!(
                        "tolerates taint `{}` of {} while its preferred node affinity avoids those nodes: it runs on {} first and may spill there",
                        taint.taint.display(),
                        dedicated.title(),
                        elsewhere.join(", ")
                    ),
                )
                .primary(t.span, "allowed to spill")
                .help(format!(
                    "deliberate spill-over is fine; if the pod must never run on {there}, remove the toleration"
                ))
            } else if soft {
                META.finding_at(
                    Severity::Info,
                    format!(
                        "tolerates taint `{}` of {} and prefers it (preferred node affinity), but can also run on {}",
                        taint.taint.display(),
                        dedicated.title(),
                        elsewhere.join(", ")
                    ),
                )
                .primary(t.span, "soft placement")
                .help(format!(
                    "deliberate soft placement is fine; if the pod must run only there, make the affinity required. {help}"
                ))
            } else {
                META.finding(format!(
                    "tolerates taint `{}` of {}, but can also run on {}: nothing pins it to the dedicated nodes",
                    taint.taint.display(),
                    dedicated.title(),
                    elsewhere.join(", ")
                ))
                .primary(t.span, "opens the door to tainted nodes")
                .help(help)
                .fix(fix)
            }
            .field(t.path.to_string())
            .in_file(&w.source);
            if let Some(loc) = taint.loc.as_ref().and_then(|p| ctx.inventory.loc(p)) {
                f.related.push(Related {
                    source: loc.source,
                    span: loc.span,
                    message: format!("taint `{}`", taint.taint.display()),
                });
            }
            f.object = Some(w.object.clone());
            out.push(f);
        }
    }
}

/// The index of the first filtering taint of `pool` that `t` tolerates.
fn matching_taint(
    pool: &crate::analysis::types::Pool,
    t: &crate::analysis::types::WorkloadToleration,
    gate: bool,
) -> Option<usize> {
    pool.taints.iter().position(|pt| {
        !pt.startup
            && !is_transient_taint(&pt.taint.key)
            && matches!(&*pt.taint.effect, "NoSchedule" | "NoExecute")
            && tolerates(
                &t.tol(),
                &pt.taint.taint_ref(),
                gate,
            )
    })
}

/// `key: value`, an empty value quoted so it stays a string.
/// The label a `nodeSelector` can select to keep the pod on the `targets` pools (the
/// tainted pools it can run on): one every target (every node of it) carries with the same
/// single value and none of the `others` (the untainted pools it can run on as well) may
/// carry with it.
/// Preferred: a label named like the tolerated taint (`dedicated=ml` on nodes tainted
/// `dedicated=ml`), then the pool-name label the pools' source sets
/// (`cloud.google.com/gke-nodepool`, `karpenter.sh/nodepool`, ...), then any other label
/// that is not on every node (hostname, zone, architecture), by key. `None` without targets
/// or without such a label: no label is made up.
fn pin_label(
    pools: &[Box<crate::analysis::types::Pool>],
    targets: &[usize],
    others: &[usize],
    t: &crate::analysis::types::WorkloadToleration,
    settings: &crate::settings::Settings,
) -> Option<(Arc<str>, Arc<str>)> {
    use crate::analysis::types::LabelValues;
    let first = pools.get(*targets.first()?)?;
    let candidates = first.all_labels();
    candidates
        .iter()
        .filter_map(|(k, values)| match values {
            LabelValues::OneOf(vs) if vs.len() == 1 => Some((k, &vs[0])),
            _ => None,
        })
        .filter(|(k, _)| {
            !crate::analysis::semantics::well_known::is_well_known_label(k)
                || (crate::analysis::types::POOL_NAME_LABELS.contains(&&***k)
                    && &***k != "node.kubernetes.io/instance-type")
        })
        .filter(|(k, v)| {
            targets.iter().all(|&p| {
                pools.get(p).is_some_and(|pool| {
                    !pool.mixed_labels.contains(k)
                        && matches!(pool.label(k), Some(LabelValues::OneOf(vs)) if vs.len() == 1 && vs[0] == **v)
                })
            }) && others.iter().all(|&p| {
                pools.get(p).is_some_and(|pool| match pool.label(k) {
                    None => true,
                    Some(LabelValues::OneOf(vs)) => !vs.contains(v),
                    Some(LabelValues::Any) => false,
                })
            })
        })
        .filter(|(k, v)| {
            crate::analysis::semantics::validation::label_key_errors(k, settings).is_empty()
                && crate::analysis::semantics::validation::label_value_errors(v, settings).is_empty()
        })
        .min_by_key(|(k, v)| {
            let like_taint = ***k == *t.key && (t.value.is_empty() || ***v == *t.value);
            // The pool-name labels in their list's order (`eks.amazonaws.com/nodegroup`
            // before eksctl's own), then the others.
            let pool_name = crate::analysis::types::POOL_NAME_LABELS
                .iter()
                .position(|l| *l == &***k)
                .unwrap_or(usize::MAX);
            (!like_taint, pool_name, Arc::clone(k))
        })
        .map(|(k, v)| (Arc::clone(k), Arc::clone(v)))
}
