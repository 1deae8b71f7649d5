//! What `invalid-pod-affinity` and `invalid-topology-spread` share: the API server's
//! `ValidateLabelSelector` (k8s.io/apimachinery/pkg/apis/meta/v1/validation/validation.go:
//! `ValidateLabels` for `matchLabels`, `ValidateLabelSelectorRequirement` for each
//! expression) with its exact messages, integer fields as the decoder reads them, and a
//! reporter that files findings under the calling rule with the server's text.

pub(crate) use crate::analysis::semantics::validation::{
    dns1123_label_errors, duplicate, forbidden, go_quote, invalid, label_key_errors,
    label_value_errors, named_value, not_supported, required,
};
pub(crate) use crate::diagnostic::{Applicability, Finding, Severity};
pub(crate) use crate::load::Span;
pub(crate) use crate::load::yaml::Node;
pub(crate) use crate::model::join;

pub(crate) use super::{Category, Ctx, RuleMeta};

/// Files findings of one rule, each with the API server's message for its field.
pub(crate) struct Reporter<'c, 'a> {
    pub(crate) ctx: &'c Ctx<'a>,
    pub(crate) out: &'c mut Vec<Finding>,
    pub(crate) meta: &'static RuleMeta,
}

/// One finding: where, what, and what the server answers.
pub(crate) struct Problem<'t> {
    pub(crate) span: Span,
    pub(crate) message: String,
    pub(crate) label: &'t str,
    pub(crate) help: String,
    pub(crate) path: &'t str,
    pub(crate) api: String,
}

impl Reporter<'_, '_> {
    pub(crate) fn add(&mut self, p: Problem<'_>) {
        self.add_fixed(p, None);
    }

    pub(crate) fn add_fixed(&mut self, p: Problem<'_>, fix: Option<crate::diagnostic::Fix>) {
        let f = self
            .meta
            .finding(p.message)
            .primary(p.span, p.label.to_string())
            .help(p.help)
            .field(p.path.to_string())
            .fix(fix);
        let api = p.api;
        super::push(self.ctx, self.out, f, || api);
    }
}

/// The text the server gets for a scalar (YAML null is empty); `None` for a collection.
pub(crate) fn text_of(n: Option<&Node>) -> Option<&str> {
    match n {
        Some(n) if n.is_null() => Some(""),
        Some(n) => n.text(),
        None => Some(""),
    }
}

/// An integer field as the decoder reads it: absent or null is 0 (Go's zero value); `None`
/// when it is not an integer (a decode error another rule reports).
pub(crate) fn int_of(n: Option<&Node>) -> Option<i64> {
    match n {
        None => Some(0),
        Some(n) if n.is_null() => Some(0),
        Some(n) => crate::load::yaml11::resolve(n).as_i64(),
    }
}

/// The strings of a list field (`values`, `namespaces`, `matchLabelKeys`), with their nodes;
/// empty when absent or null.
pub(crate) fn strings_of(n: Option<&Node>) -> Vec<(&Node, &str)> {
    n.and_then(Node::as_seq)
        .unwrap_or_default()
        .iter()
        .filter_map(|v| Some((v, if v.is_null() { "" } else { v.text()? })))
        .collect()
}

/// The operators of a label selector (`metav1.LabelSelectorOperator`).
const OPERATORS: &[&str] = &["In", "NotIn", "Exists", "DoesNotExist"];

/// The keys a label selector names, in the server's order: `matchLabels` first (a Go map:
/// the order does not matter for what is checked), then each expression's.
pub(crate) fn selector_keys(sel: &Node) -> (Vec<&str>, Vec<&str>) {
    let labels = sel
        .get("matchLabels")
        .and_then(Node::as_map)
        .unwrap_or_default()
        .iter()
        .filter_map(|(k, _)| k.text())
        .collect();
    let exprs = sel
        .get("matchExpressions")
        .and_then(Node::as_seq)
        .unwrap_or_default()
        .iter()
        .map(|e| text_of(e.get("key")).unwrap_or(""))
        .collect();
    (labels, exprs)
}

/// `ValidateLabelSelector(sel, {AllowInvalidLabelValueInSelector: false}, path)`: what the
/// server rejects in a label selector of a pod (a create never allows invalid values).
/// `what` names the selector in messages ("pod affinity label selector").
pub(crate) fn check_label_selector(r: &mut Reporter<'_, '_>, sel: &Node, path: &str, what: &str) {
    if sel.is_null() || sel.as_map().is_none() {
        return;
    }
    let lp = join(path, "matchLabels");
    for (k, v) in sel
        .get("matchLabels")
        .and_then(Node::as_map)
        .unwrap_or_default()
    {
        let Some(key) = k.text() else { continue };
        for msg in label_key_errors(key, r.ctx.settings) {
            r.add(Problem {
                span: k.span,
                message: format!("{what} key `{key}` is not a valid label key: {msg}"),
                label: "invalid label key",
                help: "use a label key such as `app` or `app.kubernetes.io/name`".to_string(),
                path: &lp,
                api: invalid(&lp, &go_quote(key), &msg),
            });
        }
        let Some(val) = text_of(Some(v)) else {
            continue;
        };
        for msg in label_value_errors(val, r.ctx.settings) {
            r.add(Problem {
                span: v.span,
                message: format!("{what} value `{val}` is not a valid label value: {msg}"),
                label: "invalid label value",
                help: "no pod label can hold this value: fix it, or use an expression".to_string(),
                path: &lp,
                api: invalid(&lp, &go_quote(val), &msg),
            });
        }
    }
    let exprs = sel
        .get("matchExpressions")
        .and_then(Node::as_seq)
        .unwrap_or_default();
    for (i, ex) in exprs.iter().enumerate() {
        let p = format!("{path}.matchExpressions[{i}]");
        check_requirement(r, ex, &p, what);
    }
}

/// `ValidateLabelSelectorRequirement`: the operator, its values, the key, each value.
fn check_requirement(r: &mut Reporter<'_, '_>, ex: &Node, p: &str, what: &str) {
    let op_entry = ex.entry("operator");
    let op = text_of(op_entry.map(|(_, v)| v)).unwrap_or("");
    let values_node = ex.get("values").filter(|v| !v.is_null());
    let values = strings_of(values_node);
    let vp = join(p, "values");
    let op_span = op_entry.map_or(ex.span, |(_, v)| v.span);
    let values_span = values_node.map_or(op_span, |n| n.span);
    match op {
        "In" | "NotIn" if values.is_empty() => r.add(Problem {
            span: values_span,
            message: format!("`operator: {op}` in a {what} needs at least one value"),
            label: "values required",
            help: "list the label values to match in `values`".to_string(),
            path: &vp,
            api: required(&vp, "must be specified when `operator` is 'In' or 'NotIn'"),
        }),
        "Exists" | "DoesNotExist" if !values.is_empty() => r.add(Problem {
            span: values_span,
            message: format!("`operator: {op}` in a {what} must not have values"),
            label: "values not allowed",
            help: "remove `values`, or use `In`/`NotIn` to match specific values".to_string(),
            path: &vp,
            api: forbidden(
                &vp,
                "may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
            ),
        }),
        "In" | "NotIn" | "Exists" | "DoesNotExist" => {}
        _ => {
            let opp = join(p, "operator");
            let help = match crate::util::nearest(op, OPERATORS, 2) {
                Some(s) if !op.is_empty() => {
                    format!("did you mean `{s}`? Operators are case-sensitive")
                }
                _ => "use one of `In`, `NotIn`, `Exists`, `DoesNotExist`".to_string(),
            };
            let fix = op_entry.and_then(|(k, v)| {
                let want = OPERATORS.iter().find(|c| c.eq_ignore_ascii_case(op))?;
                crate::fix::single(
                    Applicability::Safe,
                    format!("replace `{op}` with `{want}`"),
                    crate::fix::replace_scalar(r.ctx.source, k, v, want),
                )
            });
            r.add_fixed(
                Problem {
                    span: op_span,
                    message: if op.is_empty() {
                        format!("a {what} requirement has no operator")
                    } else {
                        format!("`{op}` is not a label selector operator")
                    },
                    label: "invalid operator",
                    help,
                    path: &opp,
                    api: invalid(
                        &opp,
                        &named_value(op, r.ctx.settings),
                        "not a valid selector operator",
                    ),
                },
                fix,
            );
        }
    }
    let key_node = ex.get("key");
    let key = text_of(key_node).unwrap_or("");
    let kp = join(p, "key");
    for msg in label_key_errors(key, r.ctx.settings) {
        r.add(Problem {
            span: key_node.map_or(ex.span, |n| n.span),
            message: if key.is_empty() {
                format!("a {what} requirement has no key: {msg}")
            } else {
                format!("{what} key `{key}` is not a valid label key: {msg}")
            },
            label: "invalid label key",
            help: "use the pods' label key, e.g. `app.kubernetes.io/name`".to_string(),
            path: &kp,
            api: invalid(&kp, &go_quote(key), &msg),
        });
    }
    for (k, (node, val)) in values.iter().enumerate() {
        let ip = format!("{vp}[{k}]");
        for msg in label_value_errors(val, r.ctx.settings) {
            r.add(Problem {
                span: node.span,
                message: format!("{what} value `{val}` is not a valid label value: {msg}"),
                label: "invalid label value",
                help: "no pod label can hold this value".to_string(),
                path: &ip,
                api: invalid(&ip, &go_quote(val), &msg),
            });
        }
    }
}

/// Label keys as `matchLabelKeys`/`mismatchLabelKeys` list them (`ValidateLabelName` for
/// each, at `path[i]`).
pub(crate) fn check_key_list(r: &mut Reporter<'_, '_>, keys: &[(&Node, &str)], path: &str) {
    for (i, (node, key)) in keys.iter().enumerate() {
        let ip = format!("{path}[{i}]");
        for msg in label_key_errors(key, r.ctx.settings) {
            r.add(Problem {
                span: node.span,
                message: format!("`{key}` is not a valid label key: {msg}"),
                label: "invalid label key",
                help: "list keys of the pod's own labels, e.g. `pod-template-hash`".to_string(),
                path: &ip,
                api: invalid(&ip, &go_quote(key), &msg),
            });
        }
    }
}

/// A `matchLabelKeys` key the label selector already names (`exists in both matchLabelKeys and
/// labelSelector`), at the server's `path`.
pub(crate) fn also_in_selector(r: &mut Reporter<'_, '_>, span: Span, key: &str, path: &str) {
    r.add(Problem {
        span,
        message: format!("`{key}` is in both `matchLabelKeys` and the label selector"),
        label: "also in labelSelector",
        help: "a key in `matchLabelKeys` is matched to the pod's own value: remove it from the selector, or from `matchLabelKeys`".to_string(),
        path,
        api: invalid(path, &go_quote(key), "exists in both matchLabelKeys and labelSelector"),
    });
}
