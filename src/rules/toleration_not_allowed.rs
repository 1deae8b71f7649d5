//! `toleration-not-allowed`: governance. The config's `policies:` (or `--policy FILE`) say
//! which namespaces or workloads may tolerate which taints (`nvidia.com/gpu` only from `ml-*`
//! namespaces; the control plane only from `kube-system`).

use crate::diagnostic::{Finding, Related, Severity};
use crate::settings::glob_match;

use super::{Category, Ctx, Rule, RuleMeta, tolerations};

pub static META: RuleMeta = RuleMeta {
    name: "toleration-not-allowed",
    summary: "A toleration that the configured policies do not allow for this namespace or workload",
    category: Category::Scheduling,
    severity: Severity::Error,
    enabled: true,
    docs: include_str!("../../rules/toleration-not-allowed.md"),
};

pub static RULE: Rule = Rule::new(&META).check(check);

pub fn check(ctx: &Ctx<'_>, out: &mut Vec<Finding>) {
    let policies = &ctx.settings.policies;
    if policies.is_empty() {
        return;
    }
    let id = &ctx.object.id;
    let ns = id.namespace.as_deref().unwrap_or("default");
    let workload = format!("{}/{ns}/{}", id.kind, id.name.as_deref().unwrap_or(""));
    for (_, tol) in tolerations::each(ctx) {
        let key = tol.key();
        // `taint: "*"` is the tolerate-everything toleration (empty key); other values are
        // globs over keys. Every policy that applies is consulted: one that allows is enough.
        let applicable: Vec<_> = policies
            .iter()
            .filter(|p| {
                if p.taint == "*" {
                    key.is_empty()
                } else {
                    !key.is_empty() && glob_match(&p.taint, key)
                }
            })
            .collect();
        let Some(policy) = applicable.first() else {
            continue;
        };
        let allowed = applicable.iter().any(|p| {
            p.namespaces.iter().any(|g| glob_match(g, ns))
                || p.workloads.iter().any(|g| glob_match(g, &workload))
        });
        if allowed {
            continue;
        }
        let mut who: Vec<String> = policy
            .namespaces
            .iter()
            .map(|n| format!("namespace `{n}`"))
            .collect();
        who.extend(policy.workloads.iter().map(|w| format!("workload `{w}`")));
        let who = if who.is_empty() {
            "nobody".to_string()
        } else {
            who.join(", ")
        };
        let what = if key.is_empty() {
            "every taint".to_string()
        } else {
            format!("`{key}`")
        };
        let mut f = META.finding(format!(
                "`{workload}` tolerates {what}, which the policy for `{}` allows only for {who}",
                policy.taint
            ),
        )
        .primary(
            tol.key.map_or(tol.span(), |k| k.entry_span()),
            "not allowed here",
        )
        .help("remove the toleration, move the workload, or extend the policy in the taintlint config")
        .field(tol.path.clone());
        for p in &applicable {
            if let Some(loc) = &p.loc {
                f.related.push(Related {
                    source: loc.source.clone(),
                    span: loc.span,
                    message: format!("policy for `{}`", p.taint),
                });
            }
        }
        out.push(f);
    }
}
