//! What the toleration rules share: iteration over every toleration of an object, the `api_error`
//! plumbing, effect and key advice, canonical-case fixes. Each rule
//! (pkg/apis/core/validation/validation.go `ValidateTolerations`, one per check, in the server's
//! order) lives in its own file.

pub(crate) use crate::analysis::semantics::validation::{
    decimal_integer_errors, go_quote, invalid, label_key_errors, label_value_errors, named_value,
    not_supported,
};
pub(crate) use crate::diagnostic::{Applicability, Finding, Fix, Severity};
pub(crate) use crate::model::{PodSpec, Toleration};
pub(crate) use crate::util::nearest;

pub(crate) use super::{Category, Ctx, RuleMeta};

pub const EFFECTS: &[&str] = &["NoSchedule", "PreferNoSchedule", "NoExecute"];

/// Every toleration of every pod spec of the object.
pub fn each<'a>(ctx: &'a Ctx<'a>) -> impl Iterator<Item = (&'a PodSpec<'a>, &'a Toleration<'a>)> {
    ctx.object
        .pod_specs
        .iter()
        .flat_map(|s| s.tolerations.iter().map(move |t| (s, t)))
}

pub(crate) use super::push;

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
pub(crate) fn canonical_case(
    ctx: &Ctx<'_>,
    field: crate::model::Field<'_>,
    text: &str,
    canonical: &[&str],
) -> Option<Fix> {
    let want = canonical.iter().find(|c| c.eq_ignore_ascii_case(text))?;
    let edit = crate::fix::replace_scalar(ctx.source, field.key, field.value, want);
    crate::fix::single(
        Applicability::Safe,
        format!("replace `{text}` with `{want}`"),
        edit,
    )
}
