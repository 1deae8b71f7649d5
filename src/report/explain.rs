//! `taintlint explain`: for one workload, per node pool, whether the pod can run there and
//! every reason it cannot in the scheduler's words; its tolerations after admission defaults;
//! and when each NoExecute taint would evict it.

use std::fmt::Write as _;

use crate::analysis::judgements::schedule::{Reason, effective_tolerations, first_tolerating};
use crate::analysis::sources::inventory::Inventory;
use crate::analysis::types::Pool;
use crate::analysis::types::{TaintSpec, Workload};
use crate::engine::View as Outcome;

/// The explanation of the chosen workloads (see [`select`]), one after the other.
pub fn render(outcome: &Outcome, chosen: &[usize], gate: bool) -> String {
    let mut text = String::new();
    for (n, &i) in chosen.iter().enumerate() {
        if n > 0 {
            text.push('\n');
        }
        explain(outcome, i, gate, &mut text);
    }
    if !chosen.is_empty() {
        terraform_pools(outcome, &mut text);
    }
    text
}

/// Which cluster the file `name` is judged in, and why, when the files define one (see
/// `sources::clusters`); `None` when they define none (the pools are found ones, as ever).
pub fn cluster_line(inventory: &Inventory, name: &str) -> Option<String> {
    let Some(def) = inventory.cluster() else {
        let stacks = inventory.stacks()?;
        let names: Vec<String> = stacks
            .stacks
            .iter()
            .map(|s| format!("`{}`", crate::util::text::escape(&s.name())))
            .collect();
        let this = match stacks.of(name).and_then(|i| stacks.get(i)) {
            Some(s) => format!(
                "this file lies in `{}`'s ({})",
                crate::util::text::escape(&s.name()),
                s.why()
            ),
            None => "this file lies in none of them".to_string(),
        };
        if stacks.split() {
            // A file of a cluster one definition defines is in that cluster's view.
            let shared = if stacks.of(name).is_some() {
                ", which no single definition defines"
            } else {
                ""
            };
            return Some(format!(
                "none: the files define {} cluster{} ({}), each judged alone against the pools found in its folder; {this}{shared}, so it is judged only against the pools found outside them, never another cluster's (a `clusters:` entry in the config links it to one)",
                names.len(),
                if names.len() == 1 { "" } else { "s" },
                names.join(", ")
            ));
        }
        return Some(format!(
            "none inferred: the files define {} cluster{} ({}) and {this}; the found pools do not all lie in one, so they are judged together as found in the linted files",
            names.len(),
            if names.len() == 1 { "" } else { "s" },
            names.join(", ")
        ));
    };
    let stack = def.stack()?;
    // A file of a folder the cluster's own files apply (a Flux Kustomization's `path`).
    let why = match def.stacks.applied_by(name) {
        Some((folder, by)) => format!(
            "the files under `{}/` belong to it: `{}` applies that folder",
            crate::util::text::escape(folder),
            crate::util::text::escape(by)
        ),
        None => stack.why(),
    };
    Some(if def.holds(name) {
        match inventory.open() {
            // A node maker the files do not show: what no pool admits is not certain.
            Some(open) => format!(
                "{}; {}; its pools may not be all the cluster's — {open} — so what none of them admits is said as an info, not certain",
                def.describe(),
                why,
            ),
            None => format!(
                "{}; {}; for the label keys all its pools set{}, they are the whole cluster",
                def.describe(),
                why,
                if def.creates() {
                    " and, when every pool shows its labels, for label keys without a prefix"
                } else {
                    ""
                }
            ),
        }
    } else {
        format!(
            "none inferred: this file lies outside `{}/`, the folder of {}; the pools are judged as found in the linted files",
            crate::util::text::escape(&stack.root),
            def.describe()
        )
    })
}

/// The Terraform pools as evaluated: each with its labels and taints, where it comes from,
/// and what is not known of it (and why).
fn terraform_pools(outcome: &Outcome, s: &mut String) {
    use crate::analysis::types::{LabelValues, UnknownTaints};
    let pools: Vec<_> = outcome
        .inventory
        .pools
        .iter()
        .filter_map(|p| p.terraform.as_ref().map(|t| (p, t)))
        .collect();
    if pools.is_empty() {
        return;
    }
    let _ = writeln!(
        s,
        "\nTerraform node pools, as `terraform plan` knows them before it reads the cloud:"
    );
    for (pool, tf) in pools {
        let at = outcome.inventory.loc(&pool.loc).map_or(String::new(), |l| {
            let p = l.source.position(l.span.start);
            format!(" — {}:{}", l.source.name, p.line)
        });
        let _ = writeln!(s, "  {}{at}", pool.title());
        let mut from = format!("root module {}", tf.root);
        if !tf.modules.is_empty() {
            from.push_str(&format!(", {}", tf.module_path()));
            if let Some(last) = tf.modules.last() {
                from.push_str(&format!(" (source {})", last.source));
            }
        }
        let _ = writeln!(s, "      from: {from}");
        let mut labels: Vec<String> = pool
            .labels
            .iter()
            .map(|(k, v)| match v {
                LabelValues::OneOf(vs) if vs.len() == 1 => format!("{k}={}", vs[0]),
                LabelValues::OneOf(vs) => format!(
                    "{k} in ({})",
                    vs.iter().map(|v| &**v).collect::<Vec<_>>().join(", ")
                ),
                LabelValues::Any => format!("{k}=(unknown)"),
            })
            .collect();
        if pool.any_label {
            labels.push("and possibly others".to_string());
        }
        let labels = if labels.is_empty() {
            "none".to_string()
        } else {
            labels.join(", ")
        };
        let _ = writeln!(s, "      labels: {labels}");
        let mut taints: Vec<String> = pool.taints.iter().map(|t| t.taint.display()).collect();
        match &pool.unknown_taints {
            UnknownTaints::None => {}
            UnknownTaints::Keys(keys) => taints.push(format!(
                "possibly others with key {}",
                keys.iter().map(|k| &**k).collect::<Vec<_>>().join(", ")
            )),
            UnknownTaints::Any => taints.push("possibly others".to_string()),
        }
        let taints = if taints.is_empty() {
            "none".to_string()
        } else {
            taints.join(", ")
        };
        let _ = writeln!(s, "      taints: {taints}");
        for u in &tf.unknown {
            let _ = writeln!(s, "      unknown: {} — {}", u.what, u.cause);
        }
    }
}

/// Rejecting pools listed one by one up to this many; past it they are grouped by reason.
const GROUP_OVER: usize = 8;

/// The workload as `--workload` names it: `Kind/namespace/name`, or `Kind/name` when it has no
/// namespace, then an operator's pod role (`Kafka/ns/c broker pods`), escaped for the terminal.
fn describe(w: &Workload) -> String {
    w.title_with('/')
}

/// Which workloads the user means: `--workload KIND/NS/NAME`, `--at FILE:LINE`, or the only
/// one. `Err` says why none is chosen, for the user.
pub fn select(
    outcome: &Outcome,
    workload: Option<&str>,
    at: Option<&str>,
) -> Result<Vec<usize>, String> {
    let ws = &outcome.workloads;
    let found: Vec<usize> = if let Some(spec) = workload {
        let parts: Vec<&str> = spec.split('/').collect();
        let (kind, ns, name) = match parts.as_slice() {
            [k, n] => (*k, None, *n),
            [k, ns, n] => (*k, Some(*ns), *n),
            _ => {
                return Err(format!(
                    "invalid --workload `{spec}`: expected KIND/NAMESPACE/NAME or KIND/NAME"
                ));
            }
        };
        (0..ws.len())
            .filter(|&i| {
                let id = &ws[i].object;
                id.kind.eq_ignore_ascii_case(kind)
                    && id.name.as_deref() == Some(name)
                    && ns.is_none_or(|ns| id.namespace.as_deref().unwrap_or("") == ns)
            })
            .collect()
    } else if let Some(at) = at {
        let (file, line) = at
            .rsplit_once(':')
            .and_then(|(f, l)| Some((f, l.parse::<usize>().ok()?)))
            .ok_or_else(|| format!("invalid --at `{at}`: expected FILE:LINE"))?;
        let file = file.strip_prefix("./").unwrap_or(file);
        (0..ws.len())
            .filter(|&i| {
                let w = &ws[i];
                let name = w.source.name.strip_prefix("./").unwrap_or(&w.source.name);
                name == file && {
                    let start = w.source.position(w.object_span.start).line;
                    let end = w.source.position(w.object_span.end).line;
                    (start..=end).contains(&line)
                }
            })
            .collect()
    } else if ws.len() == 1 {
        vec![0]
    } else {
        Vec::new()
    };
    if found.is_empty() {
        let mut msg = if workload.is_none() && at.is_none() {
            "name the workload to explain with --workload KIND/NAMESPACE/NAME or --at FILE:LINE"
                .to_string()
        } else {
            "no such workload in the given paths".to_string()
        };
        if !ws.is_empty() {
            msg.push_str("; workloads found:");
            const SHOWN: usize = 20;
            for w in ws.iter().take(SHOWN) {
                let p = w.source.position(w.object_span.start);
                // An object with several pod templates (a JobSet, a RayJob) lists each.
                let several = ws
                    .iter()
                    .filter(|o| o.object == w.object && o.object_span == w.object_span)
                    .count()
                    > 1;
                let _ = write!(
                    msg,
                    "\n  {} ({}:{}){}",
                    describe(w),
                    crate::util::text::escape(&w.source.name),
                    p.line,
                    if several {
                        format!(" {}", crate::util::text::escape(&w.spec_path))
                    } else {
                        String::new()
                    }
                );
            }
            if ws.len() > SHOWN {
                let _ = write!(
                    msg,
                    "\n  … and {} more (`taintlint matrix` lists them all)",
                    ws.len() - SHOWN
                );
            }
        }
        return Err(msg);
    }
    Ok(found)
}

/// Why `pool` turns the pod away, in the scheduler's words (also the language server's hover).
/// `by_spread`: the pod selects only through its topology spread keys (see
/// `Workload::selects_by_spread_only`), so a selector miss is the PodTopologySpread filter's.
pub fn reason_text(inventory: &Inventory, pool: &Pool, r: &Reason, by_spread: bool) -> String {
    match r {
        Reason::Taint(i) => {
            let t = &pool.taints[*i];
            let at = t
                .loc
                .as_ref()
                .and_then(|p| inventory.loc(p))
                .map_or(String::new(), |l| {
                    let p = l.source.position(l.span.start);
                    format!(" — `{}` at {}:{}", t.taint.display(), l.source.name, p.line)
                });
            format!(
                "node(s) had untolerated taint {}{at}",
                t.taint.scheduler_form()
            )
        }
        Reason::Selector if by_spread => {
            "node(s) didn't match pod topology spread constraints (missing required label)"
                .to_string()
        }
        Reason::Selector => "node(s) didn't match Pod's node affinity/selector".to_string(),
        Reason::Unschedulable => "node(s) were unschedulable".to_string(),
    }
}

/// What a NoExecute `taint` does to the pod. The line already names the taint: the toleration
/// that decides is named only when it is written otherwise (`Exists` without a key, another
/// value or no effect).
fn eviction(
    tols: &[crate::analysis::types::WorkloadToleration],
    taint: &TaintSpec,
    gate: bool,
) -> String {
    match first_tolerating(tols, taint, gate) {
        None => "not tolerated: evicted immediately (and never scheduled there)".to_string(),
        Some(t) => {
            let by = t.display();
            let by = (by != taint.display()).then(|| crate::util::text::escape(&by).into_owned());
            match (t.seconds, by) {
                (None, Some(by)) => format!("tolerated forever by `{by}`"),
                (None, None) => "tolerated forever".to_string(),
                (Some(s), _) if s <= 0 => {
                    format!("evicted immediately (`tolerationSeconds: {s}`)")
                }
                (Some(s), Some(by)) => format!("evicted after {s}s (tolerated by `{by}`)"),
                (Some(s), None) => format!("evicted after {s}s"),
            }
        }
    }
}

/// The plugin whose change added this toleration, if one did.
fn added_by<'a>(
    w: &'a Workload,
    t: &crate::analysis::types::WorkloadToleration,
) -> Option<&'a str> {
    let what = format!(
        "toleration {}",
        crate::analysis::judgements::admission::shown(t)
    );
    w.admission
        .as_ref()?
        .changes
        .iter()
        .rev()
        .find_map(|c| (c.action == "added" && c.what == what).then_some(c.plugin.as_str()))
}

/// What the admission plugins did to the pod (`analysis::judgements::admission`), in their order; nothing
/// when they left it as written.
fn admission(w: &Workload, s: &mut String) {
    let Some(a) = &w.admission else {
        return;
    };
    let _ = writeln!(
        s,
        "\nAdmission (the API server's plugins, before the scheduler):"
    );
    for c in &a.changes {
        let _ = writeln!(
            s,
            "  {:<28} {} {}",
            c.plugin,
            c.action,
            crate::util::text::escape(&c.what)
        );
    }
    if let Some(r) = &a.rejection {
        let _ = writeln!(
            s,
            "  {:<28} REJECTS the pod: {}",
            r.plugin,
            crate::util::text::escape(&r.api_error)
        );
        let _ = writeln!(
            s,
            "  (the pod is never created: the verdicts below are those of the pod as far as admission got)"
        );
    }
}

fn explain(outcome: &Outcome, i: usize, gate: bool, s: &mut String) {
    let w = &outcome.workloads[i];
    let pos = w.source.position(w.object_span.start);
    let _ = writeln!(
        s,
        "{} — {}:{}{}",
        describe(w),
        w.source.name,
        pos.line,
        if w.spec_path.is_empty() {
            String::new()
        } else {
            format!(" ({})", w.spec_path)
        }
    );

    admission(w, s);

    let tols = effective_tolerations(w);
    let _ = writeln!(s, "\nTolerations after admission:");
    if tols.is_empty() {
        let _ = writeln!(s, "  (none)");
    }
    let admitted = w
        .admission
        .as_ref()
        .is_some_and(|a| a.tolerations.is_some());
    for (n, t) in tols.iter().enumerate() {
        let secs = t.seconds.map_or(String::new(), |x| format!(" for {x}s"));
        let own = if admitted {
            w.tolerations.iter().any(|o| {
                crate::analysis::judgements::admission::merge::same(o, t) && o.span == t.span
            })
        } else {
            n < w.tolerations.len()
        };
        let from = if own && !t.written() {
            "added by the operator".to_string()
        } else if own {
            let p = w.source.position(t.span.start);
            format!("{}:{}", w.source.name, p.line)
        } else if let Some(plugin) = added_by(w, t) {
            format!("added by {plugin}")
        } else if w.daemonset {
            "added by the DaemonSet controller".to_string()
        } else {
            "added by DefaultTolerationSeconds".to_string()
        };
        let _ = writeln!(s, "  {:<54} {from}", format!("{}{secs}", t.display()));
    }

    let _ = writeln!(s, "\nNode selection:");
    if let Some(written) = w
        .admission
        .as_ref()
        .and_then(|a| a.written_selector.as_ref())
    {
        let shown = |list: &[(std::sync::Arc<str>, std::sync::Arc<str>)]| {
            let sel: Vec<String> = list
                .iter()
                .map(|(k, v)| crate::util::text::label_entry(k, v))
                .collect();
            crate::util::text::escape(&sel.join(", ")).into_owned()
        };
        let _ = writeln!(s, "  nodeSelector as written: {{{}}}", shown(written));
        let _ = writeln!(
            s,
            "  nodeSelector after admission: {{{}}}",
            shown(&w.node_selector)
        );
    } else if w.node_selector.is_empty() {
        let _ = writeln!(s, "  nodeSelector: none");
    } else {
        let sel: Vec<String> = w
            .node_selector
            .iter()
            .map(|(k, v)| crate::util::text::label_entry(k, v))
            .collect();
        let _ = writeln!(
            s,
            "  nodeSelector: {{{}}}",
            crate::util::text::escape(&sel.join(", "))
        );
    }
    // The hard topology spread keys are in every term as `Exists` requirements (see
    // `analysis::types::workload`): shown on a line of their own.
    let spread = |r: &crate::analysis::types::Requirement| {
        r.operator == "Exists" && r.values.is_empty() && w.spread_keys.iter().any(|k| **k == *r.key)
    };
    match &w.terms {
        None => {
            let _ = writeln!(s, "  required node affinity: none");
        }
        Some(_) if w.selects_by_spread_only() => {
            let _ = writeln!(s, "  required node affinity: none");
        }
        Some(terms) => {
            for (n, t) in terms.iter().enumerate() {
                let mut parts: Vec<String> = t
                    .expressions
                    .iter()
                    .filter(|r| !spread(r))
                    .map(|r| format!("{} {} {:?}", r.key, r.operator, r.values))
                    .collect();
                parts.extend(
                    t.fields
                        .iter()
                        .map(|r| format!("field {} {} {:?}", r.key, r.operator, r.values)),
                );
                let body = if parts.is_empty() {
                    "(empty term: matches nothing)".to_string()
                } else {
                    parts.join(" AND ")
                };
                let _ = writeln!(
                    s,
                    "  required node affinity{}: {body}",
                    if n == 0 { "" } else { " OR" }
                );
            }
        }
    }
    if !w.spread_keys.is_empty() {
        let keys: Vec<&str> = w.spread_keys.iter().map(|k| &**k).collect();
        let _ = writeln!(
            s,
            "  topology spread (DoNotSchedule) over {}: nodes without {} are filtered out",
            keys.join(", "),
            if keys.len() == 1 {
                "that label"
            } else {
                "these labels"
            }
        );
    }
    if let Some((node, _)) = &w.node_name {
        let _ = writeln!(
            s,
            "  nodeName: {node} — the scheduler is bypassed; the kubelet checks only NoExecute taints and node affinity"
        );
    }

    if !w.operator_notes.is_empty() {
        let _ = writeln!(s, "\nSet by the operator:");
        for note in &w.operator_notes {
            let _ = writeln!(s, "  {}", crate::util::text::escape(note));
        }
    }

    pod_to_pod(outcome, i, s);
    super::explain_kueue::section(&outcome.kueue, w, gate, s);

    let pools = &outcome.inventory.pools;
    if pools.is_empty() {
        if let Some(line) = cluster_line(&outcome.inventory, &w.source.name) {
            let _ = writeln!(s, "\nCluster: {line}");
        }
        let _ = writeln!(
            s,
            "\nNo node pools are known: lint the Nodes, NodePools, eksctl or kubeadm configs with the workload, or pass --inventory FILE."
        );
        return;
    }
    let verdicts = &outcome.eval.fits[i];
    // Every failing filter of each pool, in the scheduler's order (NodeUnschedulable,
    // TaintToleration, NodeAffinity: the default profile's Filter plugins,
    // kubernetes/kubernetes pkg/scheduler/apis/config/v1/default_plugins.go).
    let fits: Vec<Vec<Reason>> = pools
        .iter()
        .map(|p| {
            let mut r = verdicts.reasons(w, p);
            r.sort_by_key(|r| match r {
                Reason::Unschedulable => 0,
                Reason::Taint(_) => 1,
                Reason::Selector => 2,
            });
            r
        })
        .collect();
    // A pod no pool admits: the pool it is meant for comes first, with the edit that lets it
    // in; with many rejecting pools, the others are grouped by their first reason.
    let miss = crate::analysis::judgements::near_miss::near_miss(&outcome.inventory, w, verdicts);
    // Pools with one name (the same NodePool in two files) are alternatives: each name counts
    // and is listed once, by its first pool (the intended one, for its name), as `check`
    // counts them.
    // A name is open to the pod when any of its pools is: that pool stands for it.
    let mut titles = std::collections::HashSet::new();
    let mut order: Vec<usize> = miss.iter().map(|m| m.pool).collect();
    order.extend((0..pools.len()).filter(|&p| fits[p].is_empty()));
    order.extend(0..pools.len());
    order.retain(|&p| titles.insert(pools[p].title()));
    if let Some((_, rest)) = order.split_first_mut().filter(|_| miss.is_some()) {
        rest.sort_unstable();
    } else {
        order.sort_unstable();
    }
    let ok = order.iter().filter(|&&p| fits[p].is_empty()).count();
    if let Some(line) = cluster_line(&outcome.inventory, &w.source.name) {
        let _ = writeln!(s, "\nCluster: {line}");
    }
    // A topology label its hard spread or pod affinity needs that no node carries turns it
    // away from the pools its taints and selector admit too (as `check` says).
    let topology = (ok > 0)
        .then(|| crate::analysis::judgements::spread::missing_topology(&outcome.inventory, w))
        .flatten();
    let ok = if topology.is_some() { 0 } else { ok };
    // Admitted only by pools that stand for groups the files do not show, while the shown
    // pools of a cluster the files define own a label key whose value the pod misses: as
    // `check` judges it (unschedulable-workload), no pool can run it.
    let inventory = &outcome.inventory;
    let unseen_only = ok > 0
        && (inventory.closed() || inventory.cluster_of(&w.source.name).is_some())
        && crate::analysis::judgements::evidence::only_unknown_groups_admit(inventory, verdicts)
        && crate::analysis::judgements::evidence::owned_miss(inventory, w).is_some();
    let ok = if unseen_only { 0 } else { ok };
    let _ = writeln!(s, "\nNode pools: {ok} of {} can run this pod", order.len());
    if unseen_only {
        let _ = writeln!(
            s,
            "  (only pools standing for node groups the files do not show admit it, and the pools shown own a label it asks another value of)"
        );
    }
    if ok == 0
        && let Some(why) = check_is_silent(outcome, i)
    {
        let _ = writeln!(s, "  (`check` does not report this: {why})");
    }
    if let Some(m) = &miss
        && let Some(d) = crate::analysis::judgements::near_miss::describe(&outcome.inventory, w, m)
    {
        let _ = writeln!(s, "  → {d}");
    }
    let rejected = order.iter().filter(|&&p| !fits[p].is_empty()).count();
    let grouped = rejected > GROUP_OVER;
    let mut groups: Vec<(String, Vec<String>)> = Vec::new();
    // (why, name) already listed: each name once per reason, found without a search.
    let mut named: std::collections::HashSet<(&str, String)> = std::collections::HashSet::new();
    for p in order {
        let (pool, reasons) = (&pools[p], &fits[p]);
        let intended = miss.as_ref().is_some_and(|m| m.pool == p);
        if grouped && !reasons.is_empty() && !intended {
            // The scheduler's order: cordon, then taints, then affinity.
            let first = reasons
                .iter()
                .find(|r| matches!(r, Reason::Unschedulable))
                .or_else(|| reasons.iter().find(|r| matches!(r, Reason::Taint(_))))
                .or_else(|| reasons.first());
            // The later failing filters are named with the pool.
            let also = if !matches!(first, Some(Reason::Selector) | None)
                && reasons.contains(&Reason::Selector)
            {
                "; also didn't match Pod's node affinity/selector"
            } else {
                ""
            };
            let (why, name) = match first {
                Some(Reason::Taint(t)) => (
                    "node(s) had an untolerated taint",
                    format!(
                        "{} ({}{also})",
                        pool.title(),
                        pool.taints
                            .get(*t)
                            .map_or(String::new(), |pt| pt.taint.scheduler_form())
                    ),
                ),
                Some(Reason::Unschedulable) if also.is_empty() => {
                    ("node(s) were unschedulable", pool.title())
                }
                Some(Reason::Unschedulable) => (
                    "node(s) were unschedulable",
                    format!("{} ({})", pool.title(), &also[2..]),
                ),
                _ if w.selects_by_spread_only() => (
                    "node(s) didn't match pod topology spread constraints (missing required label)",
                    pool.title(),
                ),
                _ => (
                    "node(s) didn't match Pod's node affinity/selector",
                    pool.title(),
                ),
            };
            if named.insert((why, name.clone())) {
                match groups.iter_mut().find(|(w, _)| w == why) {
                    Some((_, names)) => names.push(name),
                    None => groups.push((why.to_string(), vec![name])),
                }
            }
            continue;
        }
        let mark = if reasons.is_empty() && topology.is_none() {
            "✓"
        } else {
            "✗"
        };
        let at = outcome.inventory.loc(&pool.loc).map_or(String::new(), |l| {
            let p = l.source.position(l.span.start);
            format!(" — {}:{}", l.source.name, p.line)
        });
        let _ = writeln!(s, "  {mark} {}{at}", pool.title());
        if let Some(t) = topology.as_ref().filter(|_| reasons.is_empty()) {
            let _ = writeln!(s, "      node(s) {} — no node has `{}`", t.reason, t.key);
        }
        for r in reasons {
            let _ = writeln!(
                s,
                "      {}",
                reason_text(&outcome.inventory, pool, r, w.selects_by_spread_only())
            );
        }
        for t in &pool.taints {
            if t.startup {
                let _ = writeln!(
                    s,
                    "      startup taint `{}` needs no toleration",
                    t.taint.display()
                );
            } else if crate::analysis::semantics::well_known::is_transient_taint(&t.taint.key) {
                let _ = writeln!(
                    s,
                    "      transient taint `{}` (node condition or lifecycle) ignored",
                    t.taint.display()
                );
            } else if *t.taint.effect == *"PreferNoSchedule"
                && first_tolerating(&tols, &t.taint, gate).is_none()
            {
                let _ = writeln!(
                    s,
                    "      scores lower: untolerated PreferNoSchedule taint `{}`",
                    t.taint.display()
                );
            } else if *t.taint.effect == *"NoExecute" && reasons.is_empty() {
                let _ = writeln!(
                    s,
                    "      NoExecute taint `{}`: {}",
                    t.taint.display(),
                    eviction(&tols, &t.taint, gate)
                );
            }
        }
    }
    for (why, names) in groups {
        let shown: Vec<&str> = names.iter().take(6).map(String::as_str).collect();
        let more = names.len().saturating_sub(shown.len());
        let _ = writeln!(
            s,
            "  ✗ {} pool{} — {why}: {}{}",
            names.len(),
            if names.len() == 1 { "" } else { "s" },
            shown.join(", "),
            if more > 0 {
                format!(" and {more} more")
            } else {
                String::new()
            }
        );
    }

    let _ = writeln!(s, "\nEviction when a node fails:");
    for key in [
        "node.kubernetes.io/not-ready",
        "node.kubernetes.io/unreachable",
    ] {
        let taint = TaintSpec::new(key, "", "NoExecute");
        let _ = writeln!(s, "  {key}:NoExecute — {}", eviction(&tols, &taint, gate));
    }
}

/// Why `check` says nothing of a pod no pool admits, when it says nothing: the same tests
/// `unschedulable-workload` makes before it speaks.
fn check_is_silent(outcome: &Outcome, i: usize) -> Option<String> {
    let w = &outcome.workloads[i];
    if w.node_name.is_some() {
        return Some("`nodeName` binds the pod without the scheduler".to_string());
    }
    if let Some(r) = w.admission.as_ref().and_then(|a| a.rejection.as_ref()) {
        return Some(format!(
            "the {} admission plugin rejects it (`admission-rejected`), so no pod is scheduled",
            r.plugin
        ));
    }
    let inventory = &outcome.inventory;
    if inventory.closed() {
        return None;
    }
    match crate::analysis::judgements::evidence::aim(inventory, w, &outcome.eval.fits[i]) {
        // In a cluster the files define, a value of a key its pools own is judged anyway.
        crate::analysis::judgements::evidence::Aim::Elsewhere
            if crate::analysis::judgements::evidence::owned_miss(inventory, w).is_some() =>
        {
            None
        }
        crate::analysis::judgements::evidence::Aim::Elsewhere => Some(format!(
            "the pools found in the linted files ({}) are not the whole cluster, and this pod's node selection does not aim at them, so it may be meant for nodes described elsewhere; declare the cluster's pools with `--inventory` to judge it",
            inventory.found_in()
        )),
        _ => None,
    }
}

/// The pod-to-pod half: required pod affinity (and which linted workloads it joins), required
/// anti-affinity to its own pods per node, and hard spreads with the domains they count. Said
/// only when the workload has any.
fn pod_to_pod(outcome: &Outcome, i: usize, s: &mut String) {
    use crate::analysis::types::pod_affinity::{Namespaces, Selects};
    let w = &outcome.workloads[i];
    if w.pod_to_pod.is_none() {
        return;
    }
    let _ = writeln!(s, "\nPod affinity and spread:");
    let own_ns = w.object.namespace.as_deref();
    for term in w.pod_affinity() {
        let scope = match &term.namespaces {
            Namespaces::Own => String::new(),
            Namespaces::Any => " (namespaceSelector)".to_string(),
            Namespaces::Listed(l) => {
                let l: Vec<&str> = l.iter().map(|n| &**n).collect();
                format!(" in {}", l.join(", "))
            }
        };
        let joins: Vec<String> = outcome
            .workloads
            .iter()
            .enumerate()
            .filter(|&(j, other)| {
                j != i
                    && term.looks_in(own_ns, other.object.namespace.as_deref())
                    && !matches!(term.selector.selects(&other.pod_labels), Selects::No(_))
            })
            .map(|(_, other)| describe(other))
            .collect();
        let with = if joins.is_empty() {
            "no linted workload makes such pods (the first pod may match its own terms)".to_string()
        } else if joins.len() > 3 {
            format!(
                "pods of {} and {} more",
                joins[..3].join(", "),
                joins.len() - 3
            )
        } else {
            format!("pods of {}", joins.join(", "))
        };
        let _ = writeln!(
            s,
            "  required pod affinity to {}{scope} per {}: {with}",
            term.selector.display(),
            term.topology_key
        );
    }
    let verdicts = outcome.eval.fits.get(i);
    let pools = &outcome.inventory.pools;
    if let Some(anti) = w.self_anti_affinity() {
        let nodes = verdicts.and_then(|v| {
            (0..pools.len())
                .filter(|&p| v.admits(p))
                .try_fold(0usize, |n, p| Some(n + pools[p].size()?))
        });
        let _ = writeln!(
            s,
            "  required anti-affinity to its own pods per node: {} replicas, one per node; {}",
            anti.replicas,
            match nodes {
                Some(n) if !pools.is_empty() => format!("the pools it can run on have {n} nodes"),
                _ => "the pools' sizes are not known".to_string(),
            }
        );
    }
    for spread in w.spreads() {
        let _ = write!(
            s,
            "  spread over {} (maxSkew {}, DoNotSchedule, nodeAffinityPolicy {}, nodeTaintsPolicy {})",
            spread.topology_key,
            spread.max_skew,
            if spread.honor_affinity {
                "Honor"
            } else {
                "Ignore"
            },
            if spread.honor_taints {
                "Honor"
            } else {
                "Ignore"
            },
        );
        let d = verdicts.filter(|_| !pools.is_empty()).and_then(|v| {
            crate::analysis::judgements::spread::domains(&outcome.inventory, w, v, spread)
        });
        match d {
            None => {
                let _ = writeln!(s, ": domains not known");
            }
            Some(d) => {
                let reach: Vec<&str> = d.reachable.iter().map(|v| &**v).collect();
                let _ = write!(
                    s,
                    ": can reach {}",
                    if reach.is_empty() {
                        "none".to_string()
                    } else {
                        reach.join(", ")
                    }
                );
                let blocked: Vec<&str> = d.unreachable().into_iter().map(|v| &**v).collect();
                if blocked.is_empty() {
                    let _ = writeln!(s);
                } else {
                    let _ = write!(
                        s,
                        "; also counts {}, where it cannot run{}",
                        blocked.join(", "),
                        if outcome.inventory.closed() {
                            ""
                        } else {
                            " (among the pools found: others may reach it)"
                        }
                    );
                    match (d.capacity(spread), w.replicas()) {
                        (Some(c), Some(r)) if r as usize > c => {
                            let _ = writeln!(s, ": at most {c} of {r} replicas schedule");
                        }
                        (Some(c), _) => {
                            let _ = writeln!(s, ": at most {c} pods schedule");
                        }
                        _ => {
                            let _ = writeln!(s);
                        }
                    }
                }
            }
        }
    }
}
