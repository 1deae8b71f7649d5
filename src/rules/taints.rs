//! API-server parity for Node taints (`validateNodeTaints`, SEMANTICS §2.1). The server
//! reports these under `metadata.taints[i]`, not `spec.taints[i]` (§9.1).

use crate::analysis::validation::{
    duplicate, go_quote, invalid, json_quote, label_key_errors, label_value_errors, named_value,
    not_supported, required,
};
use crate::diagnostic::{Finding, Severity};
use crate::model::{Taint, TaintOrigin};

use super::tolerations::{EFFECTS, effect_help, key_help};
use super::{Category, Ctx, RuleMeta};

/// A taint with the origin of its list.
struct Tainted<'a> {
    taint: &'a Taint<'a>,
    origin: TaintOrigin,
}

impl<'a> std::ops::Deref for Tainted<'a> {
    type Target = Taint<'a>;
    fn deref(&self) -> &Self::Target {
        self.taint
    }
}

fn each<'a>(ctx: &'a Ctx<'a>) -> impl Iterator<Item = Tainted<'a>> {
    ctx.object.taints.iter().flat_map(|l| {
        l.taints.iter().map(move |taint| Tainted {
            taint,
            origin: l.origin,
        })
    })
}

fn push(ctx: &Ctx<'_>, out: &mut Vec<Finding>, f: Finding, api: impl FnOnce() -> String) {
    out.push(match ctx.api(api) {
        Some(a) => f.api_error(a),
        None => f,
    });
}

pub static INVALID_KEY: RuleMeta = RuleMeta {
    name: "invalid-taint-key",
    summary: "A taint key that is missing or not a valid label key",
    category: Category::Correctness,
    severity: Severity::Error,
    enabled: true,
    docs: include_str!("../../rules/invalid-taint-key.md"),
};

pub fn check_key(ctx: &Ctx<'_>, out: &mut Vec<Finding>) {
    for t in each(ctx) {
        if t.key.is_some_and(|k| k.str().is_none()) {
            continue;
        }
        let key = t.key();
        let span = t.key.map_or(t.node.span, |k| k.span());
        let mut msgs = label_key_errors(key, ctx.settings);
        if t.origin == TaintOrigin::Eksctl && key.len() > 63 {
            // The EKS API limits the whole key, prefix included (SEMANTICS §8).
            msgs.push("the EKS API limits a taint key to 63 characters in all".to_string());
        }
        for msg in msgs {
            let f = Finding::new(
                INVALID_KEY.name,
                INVALID_KEY.severity,
                if key.is_empty() {
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

pub static INVALID_VALUE: RuleMeta = RuleMeta {
    name: "invalid-taint-value",
    summary: "A taint value that is not a valid label value",
    category: Category::Correctness,
    severity: Severity::Error,
    enabled: true,
    docs: include_str!("../../rules/invalid-taint-value.md"),
};

pub fn check_value(ctx: &Ctx<'_>, out: &mut Vec<Finding>) {
    for t in each(ctx) {
        let Some(field) = t.value else { continue };
        let Some(value) = field.str() else { continue };
        let karpenter = matches!(t.origin, TaintOrigin::Karpenter { .. });
        let msgs = if karpenter {
            // Karpenter validates taint values as qualified names (SEMANTICS §8, §9.14).
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
        let f = Finding::new(
            INVALID_VALUE.name,
            INVALID_VALUE.severity,
            if karpenter {
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

pub static INVALID_EFFECT: RuleMeta = RuleMeta {
    name: "invalid-taint-effect",
    summary: "A taint effect that is missing or not `NoSchedule`, `PreferNoSchedule` or `NoExecute`",
    category: Category::Correctness,
    severity: Severity::Error,
    enabled: true,
    docs: include_str!("../../rules/invalid-taint-effect.md"),
};

pub fn check_effect(ctx: &Ctx<'_>, out: &mut Vec<Finding>) {
    for t in each(ctx) {
        if t.effect.is_some_and(|e| e.str().is_none()) {
            continue;
        }
        let effect = t.effect();
        let path = format!("{}.effect", t.api_path);
        if effect.is_empty() {
            let f = Finding::new(
                INVALID_EFFECT.name,
                INVALID_EFFECT.severity,
                "taint has no effect",
            )
            .primary(
                t.effect.map_or(t.node.span, |e| e.span()),
                "effect required",
            )
            .help("add `effect: NoSchedule`, `PreferNoSchedule` or `NoExecute`")
            .field(format!("{}.effect", t.path));
            push(ctx, out, f, || required(&path, ""));
        } else if !EFFECTS.contains(&effect) {
            let span = t.effect.map_or(t.node.span, |e| e.span());
            let f = Finding::new(
                INVALID_EFFECT.name,
                INVALID_EFFECT.severity,
                format!("unsupported taint effect `{effect}`"),
            )
            .primary(span, "not a taint effect")
            .help(effect_help(effect))
            .field(format!("{}.effect", t.path));
            let bad = named_value(effect, ctx.settings);
            push(ctx, out, f, || not_supported(&path, &bad, EFFECTS));
        }
    }
}

pub static DUPLICATE: RuleMeta = RuleMeta {
    name: "duplicate-taint",
    summary: "Two taints with the same key and effect (the value does not matter)",
    category: Category::Correctness,
    severity: Severity::Error,
    enabled: true,
    docs: include_str!("../../rules/duplicate-taint.md"),
};

pub fn check_duplicate(ctx: &Ctx<'_>, out: &mut Vec<Finding>) {
    // Karpenter checks (key, effect) across `taints` and `startupTaints` together.
    let karpenter: Vec<&Taint<'_>> = ctx
        .object
        .taints
        .iter()
        .filter(|l| matches!(l.origin, TaintOrigin::Karpenter { .. }))
        .flat_map(|l| l.taints.iter())
        .collect();
    for (i, t) in karpenter.iter().enumerate() {
        let Some(first) = karpenter[..i]
            .iter()
            .find(|p| p.key() == t.key() && p.effect() == t.effect())
        else {
            continue;
        };
        out.push(
            Finding::new(
                DUPLICATE.name,
                DUPLICATE.severity,
                format!(
                    "duplicate taint Key/Effect pair {}={}; Karpenter rejects the NodePool",
                    t.key(),
                    t.effect()
                ),
            )
            .primary(t.node.span, "duplicate")
            .secondary(first.node.span, "first taint with this key and effect")
            .help("Karpenter requires (key, effect) pairs to be unique across `taints` and `startupTaints`: remove one")
            .field(t.path.clone()),
        );
    }
    for list in &ctx.object.taints {
        if matches!(list.origin, TaintOrigin::Karpenter { .. }) {
            continue;
        }
        for (i, t) in list.taints.iter().enumerate() {
            let Some(first) = list.taints[..i]
                .iter()
                .find(|p| p.key() == t.key() && p.effect() == t.effect())
            else {
                continue;
            };
            let f = Finding::new(
                DUPLICATE.name,
                DUPLICATE.severity,
                format!(
                    "duplicate taint `{}:{}`; taints must be unique by key and effect",
                    t.key(),
                    t.effect()
                ),
            )
            .primary(t.node.span, "duplicate")
            .secondary(first.node.span, "first taint with this key and effect")
            .help("remove one of them; to change the value, edit the first one (the value does not make taints distinct)")
            .field(t.path.clone());
            let rendered = render_taint(t, ctx);
            push(ctx, out, f, || {
                duplicate(
                    &t.api_path,
                    &rendered,
                    "taints must be unique by key and effect pair",
                )
            });
        }
    }
}

/// The internal `core.Taint` struct as the server prints it: JSON since 1.34, `%#v` before.
fn render_taint(t: &Taint<'_>, ctx: &Ctx<'_>) -> String {
    let time = t
        .node
        .get("timeAdded")
        .filter(|n| !n.is_null())
        .and_then(|n| n.text());
    if ctx.settings.minor >= 34 {
        format!(
            "{{\"Key\":{},\"Value\":{},\"Effect\":{},\"TimeAdded\":{}}}",
            json_quote(t.key()),
            json_quote(t.value()),
            json_quote(t.effect()),
            time.map_or_else(|| "null".to_string(), json_quote)
        )
    } else {
        format!(
            "core.Taint{{Key:{}, Value:{}, Effect:{}, TimeAdded:{}}}",
            go_quote(t.key()),
            go_quote(t.value()),
            go_quote(t.effect()),
            if time.is_some() {
                "(*v1.Time)(0xc000000000)"
            } else {
                "<nil>"
            }
        )
    }
}
