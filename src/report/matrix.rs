//! `taintlint matrix`: workloads × node pools, as a terminal table, a Markdown table, a
//! Mermaid flowchart or JSON. Two workloads with one name (an overlay per environment) are
//! told apart by their file and line. Workloads are shown after admission (their pods as the
//! API server's plugins leave them); a pod admission refuses fits no pool.

use crate::analysis::judgements::schedule::Reason;
use crate::analysis::types::Pool;
use crate::analysis::types::admitted::Rejection;
use crate::engine::View as Outcome;

/// The ways to draw the matrix.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Style {
    /// An aligned table for the terminal.
    Table,
    /// A Markdown table for PR comments and step summaries.
    Markdown,
    /// A Mermaid flowchart GitHub renders.
    Mermaid,
    /// JSON: every pool, every workload with its place and its verdict per pool.
    Json,
}

/// The matrix of a run's workloads and node pools; with a column for Kueue when a workload
/// is submitted to a Kueue queue (`gate`: the comparison-operators setting, as `check`).
pub fn render(outcome: &Outcome, style: Style, gate: bool) -> String {
    if outcome.clusters.is_empty() {
        return render_one(outcome, style, gate, "");
    }
    // Several clusters inferred from the files: one matrix each (see `engine::Placement`),
    // after the files and pools in none of them when there are any.
    let rest = (!outcome.workloads.is_empty()).then_some(outcome);
    let parts: Vec<&Outcome> = rest.into_iter().chain(&outcome.clusters).collect();
    match style {
        Style::Json => {
            let docs: Vec<serde_json::Value> = parts
                .iter()
                .filter_map(|o| serde_json::from_str(&render_one(o, style, gate, "")).ok())
                .collect();
            let doc = serde_json::json!({ "version": 1, "clusters": docs });
            let mut s = serde_json::to_string_pretty(&doc).unwrap_or_default();
            s.push('\n');
            s
        }
        Style::Mermaid => {
            let mut s = String::from("flowchart LR\n");
            for (n, o) in parts.iter().enumerate() {
                s.push_str(&format!(
                    "  subgraph c{n}[\"{}\"]\n",
                    mermaid_label(&cluster_title(o))
                ));
                s.push_str(&mermaid_body(o, &format!("c{n}")));
                s.push_str("  end\n");
            }
            s.push_str(MERMAID_CLASS);
            s
        }
        Style::Table | Style::Markdown => {
            let mut s = String::new();
            for (n, o) in parts.iter().enumerate() {
                if n > 0 {
                    s.push('\n');
                }
                let title = cluster_title(o);
                s.push_str(&if style == Style::Markdown {
                    format!("### {title}\n\n")
                } else {
                    format!("== {title} ==\n")
                });
                s.push_str(&render_one(o, style, gate, ""));
            }
            s
        }
    }
}

/// The heading of one inferred cluster's matrix: which cluster (see `sources::clusters`).
fn cluster_title(o: &Outcome) -> String {
    match o.inventory.cluster() {
        Some(def) => def.describe(),
        None => "the files in none of the inferred clusters, against every found pool".to_string(),
    }
}

fn render_one(outcome: &Outcome, style: Style, gate: bool, prefix: &str) -> String {
    let kueue = kueue_cells(outcome, gate);
    match style {
        Style::Table => table(outcome, kueue.as_deref()),
        Style::Markdown => markdown(outcome, kueue.as_deref()),
        Style::Mermaid => {
            let mut s = String::from("flowchart LR\n");
            s.push_str(&mermaid_body(outcome, prefix));
            s.push_str(MERMAID_CLASS);
            s
        }
        Style::Json => json(outcome, kueue.as_deref()),
    }
}

/// Each workload's Kueue cell (see `explain_kueue::summary`; empty when it is submitted to
/// no queue), or `None` when no workload is.
fn kueue_cells(o: &Outcome, gate: bool) -> Option<Vec<String>> {
    let cells: Vec<Option<String>> = o
        .workloads
        .iter()
        .map(|w| super::explain_kueue::summary(&o.kueue, w, gate))
        .collect();
    cells
        .iter()
        .any(Option::is_some)
        .then(|| cells.into_iter().map(Option::unwrap_or_default).collect())
}

/// Where workload `i` is defined: `file:line`.
fn workload_place(o: &Outcome, i: usize) -> (String, usize) {
    let w = &o.workloads[i];
    (
        w.source.name.to_string(),
        w.source.position(w.anchor.start).line,
    )
}

/// Every workload's name, with `(file:line)` after those another workload shares.
fn workload_names(o: &Outcome) -> Vec<String> {
    let names: Vec<String> = (0..o.workloads.len())
        .map(|i| workload_name(o, i))
        .collect();
    let mut sorted = names.clone();
    sorted.sort();
    names
        .iter()
        .enumerate()
        .map(|(i, n)| {
            let shared = sorted.binary_search(n).is_ok_and(|at| {
                sorted.get(at + 1) == Some(n) || (at > 0 && sorted.get(at - 1) == Some(n))
            });
            if shared {
                let (file, line) = workload_place(o, i);
                format!("{n} ({file}:{line})")
            } else {
                n.clone()
            }
        })
        .collect()
}

fn workload_name(o: &Outcome, i: usize) -> String {
    o.workloads[i].title()
}

fn cell(pool: &Pool, reasons: &[Reason]) -> String {
    if reasons.is_empty() {
        return "yes".to_string();
    }
    let parts: Vec<String> = reasons
        .iter()
        .map(|r| match r {
            Reason::Taint(i) => format!("taint {}", pool.taints[*i].taint.display()),
            Reason::Selector => "selector".to_string(),
            Reason::Unschedulable => "cordoned".to_string(),
        })
        .collect();
    format!("no: {}", parts.join(", "))
}

/// The admission plugin that refuses workload `i`'s pod (`analysis::judgements::admission`): it runs
/// nowhere, whatever its tolerations and selector.
fn rejection(o: &Outcome, i: usize) -> Option<&Rejection> {
    o.workloads[i].admission.as_ref()?.rejection.as_ref()
}

/// Rows of (workload, cells), skipping nothing: every workload, every pool.
fn rows(o: &Outcome) -> Vec<(String, Vec<String>)> {
    let names = workload_names(o);
    (0..o.workloads.len())
        .map(|i| {
            let rejected = rejection(o, i)
                .map(|r| format!("no: rejected by {}", crate::util::text::escape(&r.plugin)));
            let cells = o
                .inventory
                .pools
                .iter()
                .map(|p| match &rejected {
                    Some(r) => r.clone(),
                    None => cell(p, &o.eval.fits[i].reasons(&o.workloads[i], p)),
                })
                .collect();
            (names[i].clone(), cells)
        })
        .collect()
}

/// The header of the Kueue column.
const KUEUE: &str = "KUEUE (ClusterQueue: flavors that fit)";

fn json(o: &Outcome, kueue: Option<&[String]>) -> String {
    use serde_json::json;
    let pools: Vec<_> = o
        .inventory
        .pools
        .iter()
        .map(|p| {
            json!({
                "name": &*p.name,
                "title": p.title(),
                "origin": p.origin,
                "nodes": &*p.nodes,
                "taints": p.taints.iter().map(|t| t.taint.display()).collect::<Vec<_>>(),
                "cluster": o.inventory.cluster().map(|c| c.describe()),
            })
        })
        .collect();
    let workloads: Vec<_> = (0..o.workloads.len())
        .map(|i| {
            let w = &o.workloads[i];
            let (file, line) = workload_place(o, i);
            let verdicts: Vec<_> = o
                .inventory
                .pools
                .iter()
                .enumerate()
                .map(|(p, pool)| {
                    let refused = rejection(o, i)
                        .map(|r| json!({ "reason": "rejected", "plugin": r.plugin }));
                    let reasons: Vec<_> = refused
                        .into_iter()
                        .chain(o.eval.fits[i].reasons(w, pool).iter().map(|r| match r {
                            Reason::Taint(t) => json!({
                                "reason": "taint",
                                "taint": pool.taints[*t].taint.display(),
                            }),
                            Reason::Selector => json!({ "reason": "selector" }),
                            Reason::Unschedulable => json!({ "reason": "cordoned" }),
                        }))
                        .collect();
                    json!({ "pool": p, "fits": reasons.is_empty(), "reasons": reasons })
                })
                .collect();
            let mut entry = json!({
                "kind": w.object.kind,
                "namespace": w.object.namespace,
                "name": w.object.name,
                "file": file,
                "line": line,
                "admission": admission_json(w),
                "pools": verdicts,
                "cluster": super::explain::cluster_line(&o.inventory, &w.source.name),
            });
            if let (Some(cell), Some(map)) = (
                kueue.and_then(|k| k.get(i)).filter(|c| !c.is_empty()),
                entry.as_object_mut(),
            ) {
                map.insert("kueue".to_string(), json!(cell));
            }
            // An operator's pod role (`kafka`, `nodeSet masters`).
            if let (Some(role), Some(map)) = (
                w.role.as_deref().filter(|r| !r.is_empty()),
                entry.as_object_mut(),
            ) {
                map.insert("role".to_string(), json!(role));
            }
            entry
        })
        .collect();
    let doc = json!({ "version": 1, "pools": pools, "workloads": workloads });
    let mut s = serde_json::to_string_pretty(&doc).unwrap_or_default();
    s.push('\n');
    s
}

/// What the admission plugins did to the pod, in their order: `null` when they left it as
/// written. A rejected pod's verdicts are `fits: false` with a `rejected` reason first (the
/// other reasons are those of the pod as far as admission got).
fn admission_json(w: &crate::analysis::types::Workload) -> serde_json::Value {
    use serde_json::json;
    let Some(a) = &w.admission else {
        return serde_json::Value::Null;
    };
    let changes: Vec<_> = a
        .changes
        .iter()
        .map(|c| json!({ "plugin": c.plugin, "action": c.action, "what": c.what }))
        .collect();
    let rejection = a
        .rejection
        .as_ref()
        .map(|r| json!({ "plugin": r.plugin, "message": r.message, "api_error": r.api_error }));
    json!({ "changes": changes, "rejection": rejection })
}

const NO_POOLS: &str = "No node pools are known: lint Nodes, NodePools, eksctl or kubeadm configs with the workloads, or pass --inventory FILE.\n";

fn empty_note(o: &Outcome, kueue: Option<&[String]>) -> Option<String> {
    if o.inventory.pools.is_empty() && kueue.is_none() {
        Some(NO_POOLS.to_string())
    } else if o.workloads.is_empty() {
        Some("No workloads found.\n".to_string())
    } else {
        None
    }
}

fn table(o: &Outcome, kueue: Option<&[String]>) -> String {
    if let Some(n) = empty_note(o, kueue) {
        return n;
    }
    let headers: Vec<String> = std::iter::once("WORKLOAD".to_string())
        .chain(o.inventory.pools.iter().map(|p| p.title()))
        .chain(kueue.map(|_| KUEUE.to_string()))
        .collect();
    let body: Vec<Vec<String>> = rows(o)
        .into_iter()
        .enumerate()
        .map(|(i, (w, cells))| {
            let k = kueue.map(|k| k.get(i).cloned().unwrap_or_default());
            std::iter::once(w).chain(cells).chain(k).collect()
        })
        .collect();
    let widths: Vec<usize> = (0..headers.len())
        .map(|c| {
            std::iter::once(&headers[c])
                .chain(body.iter().map(|r| &r[c]))
                .map(|s| s.chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut s = String::new();
    for row in std::iter::once(&headers).chain(body.iter()) {
        let line: Vec<String> = row
            .iter()
            .zip(&widths)
            .map(|(c, w)| format!("{c:<w$}"))
            .collect();
        s.push_str(line.join("  ").trim_end());
        s.push('\n');
    }
    if o.inventory.pools.is_empty() {
        // Only the Kueue column: the pools' note still applies.
        s.push('\n');
        s.push_str(NO_POOLS);
    }
    s.push_str(&clusters_note(o));
    s
}

/// Which cluster the pools and each workload are judged in, when the files define one (see
/// `sources::clusters`): the pools are its pools; the workloads of files outside its folder
/// are named. Empty when the files define none.
fn clusters_note(o: &Outcome) -> String {
    let Some(def) = o.inventory.cluster() else {
        let Some(stacks) = o.inventory.stacks() else {
            return String::new();
        };
        let names: Vec<String> = stacks
            .stacks
            .iter()
            .map(|s| format!("`{}` ({})", crate::util::text::escape(&s.name()), s.why()))
            .collect();
        return if stacks.split() {
            format!(
                "\nClusters: the files define {}; each is judged alone against the pools found in its folder (below); the workloads above lie in none of them and are judged only against the pools found outside them, never another cluster's.\n",
                names.join("; ")
            )
        } else {
            format!(
                "\nClusters: the files define {}; the pools above do not all lie in one, so they are judged together as found in the linted files.\n",
                names.join("; ")
            )
        };
    };
    let mut s = format!(
        "\nCluster: {}; every pool above is its pool.\n",
        def.stack().map_or_else(
            || def.describe(),
            |st| format!("{}; {}", def.describe(), st.why())
        )
    );
    let outside: Vec<usize> = (0..o.workloads.len())
        .filter(|&i| !def.holds(&o.workloads[i].source.name))
        .collect();
    if outside.is_empty() {
        s.push_str("Every workload above belongs to it.\n");
    } else {
        s.push_str(
            "Workloads outside it (judged against the pools as found in the linted files):\n",
        );
        for i in outside {
            s.push_str(&format!("  {}\n", workload_name(o, i)));
        }
    }
    s
}

fn markdown(o: &Outcome, kueue: Option<&[String]>) -> String {
    if let Some(n) = empty_note(o, kueue) {
        return n;
    }
    let mut s = String::from("| workload |");
    for p in &o.inventory.pools {
        s.push_str(&format!(" {} |", super::markdown::cell(&p.title())));
    }
    if kueue.is_some() {
        s.push_str(&format!(" {} |", super::markdown::cell(KUEUE)));
    }
    s.push_str("\n|---|");
    for _ in &o.inventory.pools {
        s.push_str("---|");
    }
    if kueue.is_some() {
        s.push_str("---|");
    }
    s.push('\n');
    for (i, (w, cells)) in rows(o).into_iter().enumerate() {
        s.push_str(&format!("| <code>{}</code> |", super::markdown::text(&w)));
        for c in cells {
            let c = if c == "yes" {
                "✅".to_string()
            } else {
                format!("❌ {}", super::markdown::cell(c.trim_start_matches("no: ")))
            };
            s.push_str(&format!(" {c} |"));
        }
        if let Some(k) = kueue {
            let c = k.get(i).map_or("", String::as_str);
            s.push_str(&format!(" {} |", super::markdown::cell(c)));
        }
        s.push('\n');
    }
    s.push_str(&clusters_note(o));
    s
}

fn mermaid_label(s: &str) -> String {
    crate::util::markup::mermaid_label(s)
}

/// A flowchart's nodes and edges; node names start with `prefix` (one per cluster).
fn mermaid_body(o: &Outcome, prefix: &str) -> String {
    let mut s = String::new();
    for (i, name) in workload_names(o).iter().enumerate() {
        s.push_str(&format!("  {prefix}w{i}[\"{}\"]\n", mermaid_label(name)));
    }
    for (p, pool) in o.inventory.pools.iter().enumerate() {
        s.push_str(&format!(
            "  {prefix}p{p}[(\"{}\")]\n",
            mermaid_label(&pool.title())
        ));
    }
    for (i, fits) in o.eval.fits.iter().enumerate() {
        let mut any = false;
        for p in 0..fits.len() {
            if fits.admits(p) && rejection(o, i).is_none() {
                s.push_str(&format!("  {prefix}w{i} --> {prefix}p{p}\n"));
                any = true;
            }
        }
        if !any && !o.inventory.pools.is_empty() {
            s.push_str(&format!("  {prefix}w{i}:::unschedulable\n"));
        }
    }
    s
}

const MERMAID_CLASS: &str = "  classDef unschedulable stroke:#d00,stroke-width:2px\n";
