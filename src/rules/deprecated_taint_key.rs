//! `deprecated-taint-key`: tolerations or taints that use keys Kubernetes no longer sets, and
//! the legacy `scheduler.alpha.kubernetes.io/tolerations` annotation.

use crate::diagnostic::{Applicability, Finding, Severity};
use crate::load::yaml::Node;

use super::{Category, Ctx, Rule, RuleMeta, tolerations};
use crate::model::PodSpec;

pub static META: RuleMeta = RuleMeta {
    name: "deprecated-taint-key",
    summary: "A taint or toleration key Kubernetes no longer uses (`node-role.kubernetes.io/master`, `node.alpha…`)",
    category: Category::Suspicious,
    severity: Severity::Info,
    enabled: true,
    docs: include_str!("../../rules/deprecated-taint-key.md"),
};

pub static RULE: Rule = Rule::new(&META).check(check);

/// (deprecated key, current key, why).
pub const DEPRECATED: &[(&str, &str, &str)] = &[
    (
        "node.alpha.kubernetes.io/notReady",
        "node.kubernetes.io/not-ready",
        "the alpha node-condition taints were renamed to `node.kubernetes.io/…` long ago and are no longer set",
    ),
    (
        "node.alpha.kubernetes.io/unreachable",
        "node.kubernetes.io/unreachable",
        "the alpha node-condition taints were renamed to `node.kubernetes.io/…` long ago and are no longer set",
    ),
    (
        "node-role.kubernetes.io/master",
        "node-role.kubernetes.io/control-plane",
        "kubeadm has not applied the master taint since 1.25",
    ),
];

pub fn check(ctx: &Ctx<'_>, out: &mut Vec<Finding>) {
    // The keys a spec tolerates, gathered once per spec (when it has a deprecated one): not
    // a pass over its tolerations for each deprecated toleration.
    let mut keys: Option<(*const PodSpec<'_>, std::collections::HashSet<&str>)> = None;
    for (spec, tol) in tolerations::each(ctx) {
        let Some((old, new, why)) = DEPRECATED.iter().find(|(k, _, _)| *k == tol.key()) else {
            continue;
        };
        let Some(field) = tol.key else { continue };
        let spec_keys = match &mut keys {
            Some((s, k)) if std::ptr::eq(*s, spec) => k,
            _ => {
                let k = spec.tolerations.iter().map(|t| t.key()).collect();
                &mut keys.insert((std::ptr::from_ref(spec), k)).1
            }
        };
        let has_current = spec_keys.contains(new);
        let help = if has_current {
            format!(
                "`{new}` is tolerated too; keep `{old}` only while clusters older than that still run this workload"
            )
        } else if old.starts_with("node.alpha.kubernetes.io/") {
            // No supported Kubernetes sets the alpha key any more: rename it (a safe fix).
            format!("use `{new}`: no supported Kubernetes version sets `{old}`")
        } else {
            format!(
                "tolerate `{new}` (keep `{old}` too while old clusters still run this workload)"
            )
        };
        // The alpha node-condition keys were renamed, not changed: the current key is what
        // the author meant. Not `master` → `control-plane`, a different taint; and not when
        // the current key is tolerated already (that would make a duplicate).
        let fix = (!has_current && old.starts_with("node.alpha.kubernetes.io/"))
            .then(|| crate::fix::replace_scalar(ctx.source, field.key, field.value, new))
            .flatten();
        out.push(
            META.finding(format!("`{old}` is deprecated: {why}"),
            )
            .primary(field.span(), "deprecated key")
            .help(help)
            .field(tol.field_path("key"))
            .fix(crate::fix::single(
                Applicability::Safe,
                format!("replace `{old}` with `{new}`"),
                fix,
            )),
        );
    }
    for list in &ctx.object.taints {
        for t in &list.taints {
            let Some((old, new, why)) = DEPRECATED.iter().find(|(k, _, _)| *k == t.key()) else {
                continue;
            };
            let Some(field) = t.key else { continue };
            out.push(
                META.finding(format!("taint `{old}` is deprecated: {why}"),
                )
                .primary(field.span(), "deprecated key")
                .help(format!(
                    "use `{new}`; workloads written for current clusters tolerate that one"
                ))
                .field(format!("{}.key", t.path)),
            );
        }
    }
    for (annotations, path) in annotation_maps(ctx) {
        if let Some((k, _)) = annotations.entry("scheduler.alpha.kubernetes.io/tolerations") {
            out.push(
                META.finding("the `scheduler.alpha.kubernetes.io/tolerations` annotation is a legacy form of tolerations",
                )
                .primary(k.span, "legacy annotation")
                .help("move these tolerations to the pod spec's `tolerations` field")
                .field(format!("{path}.scheduler.alpha.kubernetes.io/tolerations")),
            );
        }
    }
}

/// The object's annotations and those of its pod template.
fn annotation_maps<'a>(ctx: &'a Ctx<'a>) -> Vec<(&'a Node, String)> {
    let mut out = Vec::new();
    if let Some(a) = ctx.object.annotations {
        out.push((a, "metadata.annotations".to_string()));
    }
    if let Some(path) = crate::model::pod_spec_path(ctx.object.kind, ctx.object.group)
        && path.len() > 1
    {
        let parent = &path[..path.len() - 1];
        if let Some(a) = ctx
            .object
            .node
            .path(parent)
            .and_then(|t| t.path(&["metadata", "annotations"]))
        {
            out.push((a, format!("{}.metadata.annotations", parent.join("."))));
        }
    }
    out
}
