//! `invalid-taint-value`: label values (qualified names for Karpenter)
//! (pkg/apis/core/validation/validation.go `validateNodeTaints`; the pool sources' own validation
//! (Karpenter, eksctl, kubeadm)).

use super::Rule;
use super::taints::*;

pub static META: RuleMeta = RuleMeta {
    name: "invalid-taint-value",
    summary: "A taint value that is not a valid label value",
    category: Category::Correctness,
    severity: Severity::Error,
    enabled: true,
    docs: include_str!("../../rules/invalid-taint-value.md"),
};

pub static RULE: Rule = Rule::new(&META).check(check);

pub fn check(ctx: &Ctx<'_>, out: &mut Vec<Finding>) {
    for t in each(ctx) {
        let Some(field) = t.value else { continue };
        let Some(value) = field.str() else { continue };
        let karpenter = matches!(t.origin, TaintOrigin::Karpenter { .. });
        let msgs = if karpenter {
            // Karpenter validates taint values as qualified names (the pool sources' own validation
            // (Karpenter, eksctl, kubeadm); Karpenter's NodePool validation).
            if value.is_empty() {
                Vec::new()
            } else {
                label_key_errors(value, ctx.settings)
            }
        } else {
            label_value_errors(value, ctx.settings)
        };
        if msgs.is_empty() {
            continue;
        }
        let joined = msgs.join(";");
        let f = META.finding(if karpenter {
                format!(
                    "taint value `{value}` is not a qualified name, which Karpenter requires: {}",
                    msgs.join("; ")
                )
            } else {
                format!(
                    "taint value `{value}` is not a valid label value: {}",
                    msgs.join("; ")
                )
            },
        )
        .primary(
            field.span(),
            if karpenter {
                "invalid for Karpenter"
            } else {
                "invalid label value"
            },
        )
        .help(if karpenter {
            "Karpenter rejects the NodePool (ValidationSucceeded=False): use an optional DNS prefix and `/`, then at most 63 characters of `A-Z a-z 0-9 - _ .`"
        } else {
            "at most 63 characters of `A-Z a-z 0-9 - _ .`, starting and ending alphanumeric"
        })
        .field(format!("{}.value", t.path));
        let path = format!("{}.value", t.api_path);
        push(ctx, out, f, || invalid(&path, &go_quote(value), &joined));
    }
}
