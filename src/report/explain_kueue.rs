//! `explain`'s Kueue section: for a workload submitted to a Kueue LocalQueue, its queue chain
//! as the files show it, every flavor of the ClusterQueue's resource groups with whether
//! Kueue's flavor assigner can assign it (the reasons are `kueue-no-flavor-fits`'s, from the
//! same judgement, `Kueue::judge_group`), and what a chosen flavor adds to the pods: its
//! `nodeLabels` to the nodeSelector and its `tolerations` to the tolerations
//! (pkg/podset/podset.go in kubernetes-sigs/kueue, `FromAssignment` and `Merge`).

use std::fmt::Write as _;

use crate::analysis::judgements::kueue::GroupJudgement;
use crate::analysis::types::Workload;
use crate::analysis::types::kueue::{Flavor, Kueue};
use crate::util::text::escape;

/// Writes the section when `w` is submitted to a queue; nothing otherwise.
pub(super) fn section(kueue: &Kueue, w: &Workload, gate: bool, s: &mut String) {
    let Some(sub) = w.kueue.as_deref() else {
        return;
    };
    let at = w.source.position(sub.span.start);
    let _ = writeln!(
        s,
        "\nKueue (queue-name label at {}:{}):",
        escape(&w.source.name),
        at.line
    );
    let queue = format!(
        "{}{}",
        w.object
            .namespace
            .as_deref()
            .map_or(String::new(), |ns| format!("{ns}/")),
        sub.queue
    );
    let queue = escape(&queue);
    let routes = kueue.routes(w, gate);
    if routes.is_empty() {
        let _ = writeln!(
            s,
            "  LocalQueue {queue} is not in the linted files: Kueue's verdict is not known"
        );
        return;
    }
    for route in &routes {
        let cq = escape(&route.local_queue.cluster_queue);
        if route.cluster_queues.is_empty() {
            let _ = writeln!(
                s,
                "  LocalQueue {queue} → ClusterQueue {cq}, not in the linted files: Kueue's verdict is not known"
            );
            continue;
        }
        for (_, groups) in &route.cluster_queues {
            let _ = writeln!(s, "  LocalQueue {queue} → ClusterQueue {cq}");
            for g in groups {
                group(g, s);
            }
            verdict(groups, s);
        }
    }
}

fn group(g: &GroupJudgement<'_>, s: &mut String) {
    let covered = escape(&g.group.covered.join(", ")).into_owned();
    if g.requested.is_empty() {
        let _ = writeln!(
            s,
            "    resource group [{covered}]: the pod requests none of them, no flavor of it is assigned"
        );
        return;
    }
    let _ = writeln!(
        s,
        "    resource group [{covered}], for {}:",
        escape(&g.requested.join(", "))
    );
    if g.flavors.is_empty() {
        let _ = writeln!(s, "      (no flavors)");
    }
    for f in &g.flavors {
        if f.copies.is_empty() {
            let _ = writeln!(
                s,
                "      ? flavor {} — not in the linted files (it may fit)",
                escape(f.name)
            );
            continue;
        }
        for (flavor, refusal) in &f.copies {
            let p = flavor.loc.source.position(flavor.loc.span.start);
            let mark = if refusal.is_none() { "✓" } else { "✗" };
            let _ = writeln!(
                s,
                "      {mark} flavor {} — {}:{}",
                escape(f.name),
                escape(&flavor.loc.source.name),
                p.line
            );
            match refusal {
                Some(reason) => {
                    let _ = writeln!(s, "          {}", escape(reason));
                }
                None => adds(flavor, s),
            }
        }
    }
}

/// What Kueue adds to the pods it admits with this flavor.
fn adds(flavor: &Flavor, s: &mut String) {
    if flavor.node_labels.is_empty() && flavor.tolerations.is_empty() {
        let _ = writeln!(
            s,
            "          adds nothing to the pods (no nodeLabels, no tolerations)"
        );
        return;
    }
    if !flavor.node_labels.is_empty() {
        let labels: Vec<String> = flavor
            .node_labels
            .iter()
            .map(|(k, v)| crate::util::text::label_entry(k, v))
            .collect();
        let _ = writeln!(
            s,
            "          adds nodeSelector {{{}}}",
            escape(&labels.join(", "))
        );
    }
    for (key, op, value, effect) in &flavor.tolerations {
        let mut t = key.clone();
        if op == "Exists" {
            if key.is_empty() {
                t.push_str("(all keys)");
            }
            t.push_str(" Exists");
        } else {
            let _ = write!(t, "={value}");
        }
        if !effect.is_empty() {
            let _ = write!(t, ":{effect}");
        }
        let _ = writeln!(s, "          adds toleration {}", escape(&t));
    }
}

/// Kueue's overall answer for one ClusterQueue.
fn verdict(groups: &[GroupJudgement<'_>], s: &mut String) {
    if let Some(g) = groups
        .iter()
        .find(|g| !g.requested.is_empty() && g.refuses())
    {
        let _ = writeln!(
            s,
            "    → never admitted: no flavor of the group for {} fits (kueue-no-flavor-fits)",
            escape(&g.requested.join(", "))
        );
    } else if groups
        .iter()
        .filter(|g| !g.requested.is_empty())
        .any(|g| g.flavors.iter().any(|f| f.copies.is_empty()))
    {
        let _ = writeln!(s, "    → not known: a flavor is not in the linted files");
    } else {
        let _ = writeln!(
            s,
            "    → admissible: Kueue assigns, per group, the first flavor marked ✓ that has quota left"
        );
    }
}

/// One line for `matrix`: where Kueue can put the workload, when it is submitted to a queue
/// (`None` otherwise). The same judgement as [`section`].
pub(super) fn summary(kueue: &Kueue, w: &Workload, gate: bool) -> Option<String> {
    let sub = w.kueue.as_deref()?;
    let routes = kueue.routes(w, gate);
    if routes.is_empty() {
        return Some(format!("{}: LocalQueue not in the files", sub.queue));
    }
    if let Some(no_fit) = kueue.no_fit(w, gate) {
        return Some(format!(
            "{}: never admitted, no flavor for {}",
            no_fit.cluster_queue.name,
            no_fit.resources.join(", ")
        ));
    }
    let mut parts = Vec::new();
    for route in &routes {
        if route.cluster_queues.is_empty() {
            parts.push(format!(
                "{}: ClusterQueue not in the files",
                route.local_queue.cluster_queue
            ));
        }
        for (cq, groups) in &route.cluster_queues {
            let flavors: Vec<String> = groups
                .iter()
                .filter(|g| !g.requested.is_empty())
                .map(|g| {
                    let names: Vec<String> = g
                        .flavors
                        .iter()
                        .filter_map(|f| {
                            if f.copies.is_empty() {
                                Some(format!("{}?", f.name))
                            } else {
                                f.fits().then(|| f.name.to_string())
                            }
                        })
                        .collect();
                    if names.is_empty() {
                        "none".to_string()
                    } else {
                        names.join("/")
                    }
                })
                .collect();
            parts.push(format!("{}: {}", cq.name, flavors.join(" + ")));
        }
    }
    parts.dedup();
    Some(parts.join("; "))
}
