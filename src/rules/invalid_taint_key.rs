//! `invalid-taint-key`: taint keys must be label keys; an empty key gives two errors
//! (pkg/apis/core/validation/validation.go `validateNodeTaints`).

use super::Rule;
use super::taints::*;

pub static META: RuleMeta = RuleMeta {
    name: "invalid-taint-key",
    summary: "A taint key that is missing or not a valid label key",
    category: Category::Correctness,
    severity: Severity::Error,
    enabled: true,
    docs: include_str!("../../rules/invalid-taint-key.md"),
};

pub static RULE: Rule = Rule::new(&META).check(check);

pub fn check(ctx: &Ctx<'_>, out: &mut Vec<Finding>) {
    for t in each(ctx) {
        if t.key.is_some_and(|k| k.str().is_none()) {
            continue;
        }
        let key = t.key();
        let span = t.key.map_or(t.node.span, |k| k.span());
        let mut msgs = label_key_errors(key, ctx.settings);
        if t.origin == TaintOrigin::Eksctl && key.len() > 63 {
            // The EKS API limits the whole key, prefix included (the pool sources' own validation
            // (Karpenter, eksctl, kubeadm)).
            msgs.push("the EKS API limits a taint key to 63 characters in all".to_string());
        }
        for msg in msgs {
            let f = META.finding(if key.is_empty() {
                    format!("taint has no key: {msg}")
                } else {
                    format!("taint key `{key}` is not a valid label key: {msg}")
                },
            )
            .primary(
                span,
                if key.is_empty() {
                    "key required"
                } else {
                    "invalid key"
                },
            )
            .help(if key.is_empty() {
                "every taint needs a `key`".to_string()
            } else {
                key_help(key)
            })
            .field(format!("{}.key", t.path));
            let path = format!("{}.key", t.api_path);
            push(ctx, out, f, || invalid(&path, &go_quote(key), &msg));
        }
    }
}
