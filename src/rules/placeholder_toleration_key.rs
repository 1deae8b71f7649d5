//! `placeholder-toleration-key`: a toleration whose key is a placeholder copied from the
//! documentation (`key1`, `example-key`): no real node carries such a taint, so the toleration
//! does nothing (and the taint it was meant for stays untolerated).

use crate::diagnostic::{Finding, Severity};

use super::{Category, Ctx, Rule, RuleMeta, tolerations};

pub static META: RuleMeta = RuleMeta {
    name: "placeholder-toleration-key",
    summary: "A toleration key copied from the documentation (`key1`, `example-key`) that no real taint has",
    category: Category::Suspicious,
    severity: Severity::Warning,
    enabled: true,
    docs: include_str!("../../rules/placeholder-toleration-key.md"),
};

// With node pools, `toleration-matches-no-taint` checks the key against the real taints (a
// tree that taints its nodes `key1` tolerates them rightly); test data uses placeholders on
// purpose.
pub static RULE: Rule = Rule::new(&META)
    .check(check)
    .superseded_by_inventory();

/// Keys the Kubernetes and cloud documentation use as examples.
pub fn is_placeholder(key: &str) -> bool {
    let lower = key.to_ascii_lowercase();
    matches!(
        lower.as_str(),
        "key" | "example-key" | "example_key" | "examplekey" | "my-key" | "mykey" | "taint-key"
    ) || lower
        .strip_prefix("key")
        .is_some_and(|n| n.len() == 1 && n.bytes().all(|b| b.is_ascii_digit()))
}

pub fn check(ctx: &Ctx<'_>, out: &mut Vec<Finding>) {
    for (_, tol) in tolerations::each(ctx) {
        let key = tol.key();
        if !is_placeholder(key) {
            continue;
        }
        let Some(field) = tol.key else { continue };
        out.push(
            META.finding(format!(
                "toleration key `{key}` is a placeholder from the documentation: no real taint has it, so this toleration does nothing"
            ))
            .primary(field.value.span, "placeholder key")
            .help("use the key of the taint on your nodes (`kubectl describe node … | grep Taints`); if your nodes really carry this taint, suppress this finding or lint them with the workload")
            .field(tol.field_path("key"))
            .taint_key(key),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::is_placeholder;

    #[test]
    fn placeholders() {
        for k in ["key", "key1", "Key2", "example-key", "my-key"] {
            assert!(is_placeholder(k), "{k}");
        }
        for k in ["keyboard", "key10", "dedicated", "example.com/key", "monkey"] {
            assert!(!is_placeholder(k), "{k}");
        }
    }
}
