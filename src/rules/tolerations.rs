//! API-server parity for tolerations (SEMANTICS §1.2): one rule per check, in the server's
//! order. Each finding carries the server's exact field error in `api_error`.

use crate::analysis::validation::{
    decimal_integer_errors, go_quote, invalid, label_key_errors, label_value_errors, named_value,
    not_supported,
};
use crate::diagnostic::{Applicability, Finding, Fix, Severity};
use crate::model::{PodSpec, Toleration};
use crate::util::nearest;

use super::{Category, Ctx, RuleMeta};

pub const EFFECTS: &[&str] = &["NoSchedule", "PreferNoSchedule", "NoExecute"];

/// Every toleration of every pod spec of the object.
pub fn each<'a>(ctx: &'a Ctx<'a>) -> impl Iterator<Item = (&'a PodSpec<'a>, &'a Toleration<'a>)> {
    ctx.object
        .pod_specs
        .iter()
        .flat_map(|s| s.tolerations.iter().map(move |t| (s, t)))
}

fn push(ctx: &Ctx<'_>, out: &mut Vec<Finding>, f: Finding, api: impl FnOnce() -> String) {
    let f = match ctx.api(api) {
        Some(a) => f.api_error(a),
        None => f,
    };
    out.push(f);
}

pub static INVALID_KEY: RuleMeta = RuleMeta {
    name: "invalid-toleration-key",
    summary: "A toleration key that is not a valid label key (qualified name)",
    category: Category::Correctness,
    severity: Severity::Error,
    enabled: true,
    docs: include_str!("../../rules/invalid-toleration-key.md"),
};

pub fn check_key(ctx: &Ctx<'_>, out: &mut Vec<Finding>) {
    for (_, tol) in each(ctx) {
        let Some(field) = tol.key else { continue };
        let Some(key) = field.str() else { continue };
        if key.is_empty() {
            continue;
        }
        for msg in label_key_errors(key, ctx.settings) {
            let f = Finding::new(
                INVALID_KEY.name,
                INVALID_KEY.severity,
                format!("toleration key `{key}` is not a valid label key: {msg}"),
            )
            .primary(field.span(), "invalid key")
            .help(key_help(key))
            .field(tol.field_path("key"));
            let path = tol.field_path("key");
            push(ctx, out, f, || invalid(&path, &go_quote(key), &msg));
        }
    }
}

/// Advice for a bad label key.
pub fn key_help(key: &str) -> String {
    if key.matches('/').count() > 1 {
        "a key has at most one `/`: an optional DNS-subdomain prefix, then a name (`example.com/name`)".to_string()
    } else if key
        .split('/')
        .next()
        .is_some_and(|p| key.contains('/') && p.chars().any(|c| c.is_ascii_uppercase()))
    {
        "the prefix before `/` must be lowercase".to_string()
    } else {
        "use at most 63 characters of `A-Z a-z 0-9 - _ .`, starting and ending alphanumeric, after an optional lowercase DNS prefix and `/`".to_string()
    }
}

pub static EMPTY_KEY: RuleMeta = RuleMeta {
    name: "toleration-empty-key-requires-exists",
    summary: "A toleration with an empty key must use `operator: Exists`",
    category: Category::Correctness,
    severity: Severity::Error,
    enabled: true,
    docs: include_str!("../../rules/toleration-empty-key-requires-exists.md"),
};

pub fn check_empty_key(ctx: &Ctx<'_>, out: &mut Vec<Finding>) {
    for (_, tol) in each(ctx) {
        if tol.key.is_some_and(|k| k.str().is_none()) {
            continue; // a non-string key is a type error
        }
        if !tol.key().is_empty() || tol.operator() == "Exists" {
            continue;
        }
        let op = tol.operator();
        let (span, label) = match tol.operator {
            Some(f) => (f.span(), format!("`{op}` needs a key")),
            None => (
                tol.span(),
                "no key and no operator (defaults to `Equal`)".to_string(),
            ),
        };
        let mut f = Finding::new(
            EMPTY_KEY.name,
            EMPTY_KEY.severity,
            if op.is_empty() {
                "toleration has no key and no `operator: Exists`".to_string()
            } else {
                format!("toleration has no key but `operator: {op}`")
            },
        )
        .primary(span, label)
        .help("an empty key only works with `operator: Exists`, which tolerates every taint; otherwise set the taint's `key`")
        .field(tol.field_path("operator"));
        if let Some(k) = tol.key {
            f = f.secondary(k.span(), "empty key");
        }
        let path = tol.field_path("operator");
        let bad = named_value(op, ctx.settings);
        push(ctx, out, f, || {
            invalid(
                &path,
                &bad,
                "operator must be Exists when `key` is empty, which means \"match all values and all keys\"",
            )
        });
    }
}

pub static SECONDS: RuleMeta = RuleMeta {
    name: "toleration-seconds-requires-noexecute",
    summary: "`tolerationSeconds` is only allowed with `effect: NoExecute`",
    category: Category::Correctness,
    severity: Severity::Error,
    enabled: true,
    docs: include_str!("../../rules/toleration-seconds-requires-noexecute.md"),
};

pub fn check_seconds(ctx: &Ctx<'_>, out: &mut Vec<Finding>) {
    for (_, tol) in each(ctx) {
        let Some(secs) = tol.seconds else { continue };
        if secs.value.is_null() || tol.effect() == "NoExecute" {
            continue;
        }
        let effect = tol.effect();
        let mut f = Finding::new(
            SECONDS.name,
            SECONDS.severity,
            if effect.is_empty() {
                "`tolerationSeconds` is set but the toleration has no effect".to_string()
            } else {
                format!("`tolerationSeconds` is set but the effect is `{effect}`")
            },
        )
        .primary(secs.span(), "only allowed for NoExecute")
        .help(if effect.is_empty() {
            "set `effect: NoExecute` (an empty effect is not enough), or remove `tolerationSeconds`"
        } else {
            "set `effect: NoExecute`, or remove `tolerationSeconds`: only NoExecute taints evict"
        })
        .field(tol.field_path("effect"))
        .fix(
            crate::fix::remove_entry(ctx.source, tol.node, secs.key)
                .map(|edits| Fix::unsafe_("remove `tolerationSeconds`", edits)),
        );
        if let Some(e) = tol.effect {
            f = f.secondary(e.span(), "not NoExecute");
        }
        let path = tol.field_path("effect");
        let bad = named_value(effect, ctx.settings);
        push(ctx, out, f, || {
            invalid(
                &path,
                &bad,
                "effect must be 'NoExecute' when `tolerationSeconds` is set",
            )
        });
    }
}

pub static INVALID_VALUE: RuleMeta = RuleMeta {
    name: "invalid-toleration-value",
    summary: "A toleration value that is not a valid label value (or, for Lt/Gt, not an integer)",
    category: Category::Correctness,
    severity: Severity::Error,
    enabled: true,
    docs: include_str!("../../rules/invalid-toleration-value.md"),
};

pub fn check_value(ctx: &Ctx<'_>, out: &mut Vec<Finding>) {
    for (_, tol) in each(ctx) {
        if tol.value.is_some_and(|v| v.str().is_none()) {
            continue;
        }
        let value = tol.value();
        let span = tol.value.map_or(tol.span(), |v| v.span());
        match tol.operator() {
            "Equal" | "" => {
                let msgs = label_value_errors(value, ctx.settings);
                if msgs.is_empty() {
                    continue;
                }
                let joined = msgs.join(";");
                let mut f = Finding::new(
                    INVALID_VALUE.name,
                    INVALID_VALUE.severity,
                    format!("toleration value `{value}` is not a valid label value: {}", msgs.join("; ")),
                )
                .primary(span, "invalid label value")
                .help("taint values are label values: at most 63 characters of `A-Z a-z 0-9 - _ .`, starting and ending alphanumeric (the server reports this on `.operator`)")
                .field(tol.field_path("value"));
                if let Some(op) = tol.operator {
                    f = f.secondary(op.span(), "the server reports the error here");
                }
                let path = tol.field_path("operator");
                push(ctx, out, f, || invalid(&path, &go_quote(value), &joined));
            }
            "Lt" | "Gt" if ctx.settings.comparison_operators => {
                for msg in decimal_integer_errors(value) {
                    let f = Finding::new(
                        INVALID_VALUE.name,
                        INVALID_VALUE.severity,
                        format!(
                            "`operator: {}` needs an integer value, but `{value}` {msg}",
                            tol.operator()
                        ),
                    )
                    .primary(span, "not a canonical integer")
                    .help("write a decimal integer without sign `+`, leading zeros, spaces or decimals, e.g. `950`")
                    .field(tol.field_path("value"));
                    let path = tol.field_path("value");
                    push(ctx, out, f, || invalid(&path, &go_quote(value), &msg));
                }
            }
            _ => {}
        }
    }
}

pub static INVALID_OPERATOR: RuleMeta = RuleMeta {
    name: "invalid-toleration-operator",
    summary: "A toleration operator other than `Equal` or `Exists` (or `Lt`/`Gt` with the gate on)",
    category: Category::Correctness,
    severity: Severity::Error,
    enabled: true,
    docs: include_str!("../../rules/invalid-toleration-operator.md"),
};

pub fn check_operator(ctx: &Ctx<'_>, out: &mut Vec<Finding>) {
    for (_, tol) in each(ctx) {
        let Some(field) = tol.operator else { continue };
        let Some(op) = field.str() else { continue };
        let supported: &[&str] = match op {
            "Equal" | "Exists" | "" => continue,
            "Lt" | "Gt" if ctx.settings.comparison_operators => continue,
            "Lt" | "Gt" if ctx.settings.minor >= 35 => &["Equal", "Exists", "Lt", "Gt"],
            _ => &["Equal", "Exists"],
        };
        let help = if matches!(op, "Lt" | "Gt") {
            if ctx.settings.minor >= 35 {
                format!(
                    "`{op}` is alpha in Kubernetes 1.35+ behind the `TaintTolerationComparisonOperators` feature gate; if your cluster enables it, pass `--feature-gates TaintTolerationComparisonOperators=true`"
                )
            } else {
                format!(
                    "`{op}` tolerations need Kubernetes 1.35+ with the `TaintTolerationComparisonOperators` feature gate"
                )
            }
        } else if let Some(s) = nearest(op, &["Equal", "Exists"], 2) {
            format!("did you mean `{s}`? Operators are case-sensitive")
        } else {
            "use `Exists` (any value of the key) or `Equal` (one value)".to_string()
        };
        // `exists` → `Exists`: only a difference of case is certain.
        let canonical: &[&str] = if ctx.settings.comparison_operators {
            &["Equal", "Exists", "Lt", "Gt"]
        } else {
            &["Equal", "Exists"]
        };
        let fix = canonical_case(ctx, field, op, canonical);
        let f = Finding::new(
            INVALID_OPERATOR.name,
            INVALID_OPERATOR.severity,
            format!("unsupported toleration operator `{op}`"),
        )
        .primary(field.span(), "not a toleration operator")
        .help(help)
        .field(tol.field_path("operator"))
        .fix(fix);
        let path = tol.field_path("operator");
        let bad = named_value(op, ctx.settings);
        push(ctx, out, f, || not_supported(&path, &bad, supported));
    }
}

pub static INVALID_EFFECT: RuleMeta = RuleMeta {
    name: "invalid-toleration-effect",
    summary: "A toleration effect other than `NoSchedule`, `PreferNoSchedule` or `NoExecute`",
    category: Category::Correctness,
    severity: Severity::Error,
    enabled: true,
    docs: include_str!("../../rules/invalid-toleration-effect.md"),
};

pub fn check_effect(ctx: &Ctx<'_>, out: &mut Vec<Finding>) {
    for (_, tol) in each(ctx) {
        let Some(field) = tol.effect else { continue };
        let Some(effect) = field.str() else { continue };
        if effect.is_empty() || EFFECTS.contains(&effect) {
            continue;
        }
        let f = Finding::new(
            INVALID_EFFECT.name,
            INVALID_EFFECT.severity,
            format!("unsupported toleration effect `{effect}`"),
        )
        .primary(field.span(), "not a taint effect")
        .help(effect_help(effect))
        .field(tol.field_path("effect"))
        .fix(canonical_case(ctx, field, effect, EFFECTS));
        let path = tol.field_path("effect");
        let bad = named_value(effect, ctx.settings);
        push(ctx, out, f, || not_supported(&path, &bad, EFFECTS));
    }
}

/// Did-you-mean for an effect (`noSchedule`, `NoSchedul`, `NO_SCHEDULE`).
pub fn effect_help(effect: &str) -> String {
    let squashed: String = effect.chars().filter(|c| *c != '_' && *c != '-').collect();
    match nearest(&squashed, EFFECTS, 3) {
        Some(s) => format!("did you mean `{s}`? Effects are case-sensitive"),
        None => "use `NoSchedule`, `PreferNoSchedule` or `NoExecute`".to_string(),
    }
}

/// A safe fix that rewrites `text` to the one of `canonical` it equals ignoring case,
/// keeping the scalar's quotes.
fn canonical_case(
    ctx: &Ctx<'_>,
    field: crate::model::Field<'_>,
    text: &str,
    canonical: &[&str],
) -> Option<Fix> {
    let want = canonical.iter().find(|c| c.eq_ignore_ascii_case(text))?;
    let edit = crate::fix::replace_scalar(ctx.source, field.key, field.value, want);
    crate::fix::single(
        Applicability::Safe,
        &format!("replace `{text}` with `{want}`"),
        edit,
    )
}
