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
    // Whether each policy allows this object, worked out when first needed: the namespace
    // and workload are the object's, whatever the toleration.
    let mut allows: Vec<Option<bool>> = vec![None; policies.len()];
    // The policies that apply to a key, once per distinct key.
    let mut by_key: std::collections::HashMap<&str, Vec<usize>> = std::collections::HashMap::new();
    for (_, tol) in tolerations::each(ctx) {
        let key = tol.key();
        // `taint: "*"` is the tolerate-everything toleration (empty key); other values are
        // globs over keys. Every policy that applies is consulted: one that allows is enough.
        let indices = by_key.entry(key).or_insert_with(|| {
            (0..policies.len())
                .filter(|&i| {
                    let p = &policies[i];
                    if p.taint == "*" {
                        key.is_empty()
                    } else {
                        !key.is_empty() && glob_match(&p.taint, key)
                    }
                })
                .collect()
        });
        let applicable: Vec<_> = indices.iter().map(|&i| &policies[i]).collect();
        let Some(policy) = applicable.first() else {
            continue;
        };
        let allowed = indices.iter().any(|&i| {
            *allows[i].get_or_insert_with(|| {
                let p = &policies[i];
                p.namespaces.iter().any(|g| glob_match(g, ns))
                    || p.workloads.iter().any(|g| glob_match(g, &workload))
            })
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
