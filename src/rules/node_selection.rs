//! What the node-selection rules share (`ValidateNodeSelector*`,
//! pkg/apis/core/validation/validation.go `ValidateNodeSelector`): the `api_error` plumbing and the
//! walk over required and preferred node-affinity terms used by `invalid-node-affinity`. Each rule
//! lives in its own file.

pub(crate) use crate::analysis::semantics::validation::{
    dns1123_subdomain_errors, forbidden, go_quote, invalid, label_key_errors, label_value_errors,
    named_value, required,
};
pub(crate) use crate::diagnostic::{Finding, Severity};
pub(crate) use crate::load::Span;
pub(crate) use crate::load::yaml::Node;
pub(crate) use crate::model::join;

pub(crate) use super::invalid_node_affinity::META as INVALID_NODE_AFFINITY;
pub(crate) use super::{Category, Ctx, RuleMeta};

pub(crate) use super::push;

pub(crate) struct Report<'c, 'a> {
    pub(crate) ctx: &'c Ctx<'a>,
    pub(crate) out: &'c mut Vec<Finding>,
}

impl Report<'_, '_> {
    pub(crate) fn add(
        &mut self,
        span: Span,
        message: String,
        label: &str,
        help: &str,
        path: &str,
        api: String,
    ) {
        let f = INVALID_NODE_AFFINITY
            .finding(message)
            .primary(span, label.to_string())
            .help(help.to_string())
            .field(path.to_string());
        push(self.ctx, self.out, f, || api);
    }
}

pub(crate) fn str_of(n: Option<&Node>) -> &str {
    match n {
        Some(n) if !n.is_null() => n.text().unwrap_or(""),
        _ => "",
    }
}

/// `ValidateNodeSelectorTerm`: expressions, then fields. `preferred` allows invalid label
/// values.
pub(crate) fn check_term(r: &mut Report<'_, '_>, term: &Node, tp: &str, preferred: bool) {
    if let Some(exprs) = term.get("matchExpressions").and_then(Node::as_seq) {
        for (j, ex) in exprs.iter().enumerate() {
            let p = format!("{tp}.matchExpressions[{j}]");
            check_expression(r, ex, &p, preferred);
        }
    }
    if let Some(fields) = term.get("matchFields").and_then(Node::as_seq) {
        for (j, ex) in fields.iter().enumerate() {
            let p = format!("{tp}.matchFields[{j}]");
            check_field(r, ex, &p);
        }
    }
}

pub(crate) fn values_of(ex: &Node) -> (Option<&Node>, Vec<&Node>) {
    let v = ex.get("values").filter(|v| !v.is_null());
    let list = v
        .and_then(Node::as_seq)
        .map(|s| s.iter().collect())
        .unwrap_or_default();
    (v, list)
}

pub(crate) fn check_expression(r: &mut Report<'_, '_>, ex: &Node, p: &str, preferred: bool) {
    let op_node = ex.get("operator");
    let op = str_of(op_node);
    let (values_node, values) = values_of(ex);
    let vp = join(p, "values");
    let op_span = op_node.map_or(ex.span, |n| n.span);
    let values_span = values_node.map_or(op_span, |n| n.span);
    match op {
        "In" | "NotIn" => {
            if values.is_empty() {
                r.add(
                    values_span,
                    format!("`operator: {op}` needs at least one value"),
                    "values required",
                    "list the label values to match in `values`",
                    &vp,
                    required(&vp, "must be specified when `operator` is 'In' or 'NotIn'"),
                );
            }
        }
        "Exists" | "DoesNotExist" => {
            if !values.is_empty() {
                r.add(
                    values_span,
                    format!("`operator: {op}` must not have values"),
                    "values not allowed",
                    "remove `values`, or use `In`/`NotIn` to match specific values",
                    &vp,
                    forbidden(
                        &vp,
                        "may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
                    ),
                );
            }
        }
        "Gt" | "Lt" => {
            if values.len() != 1 {
                r.add(
                    values_span,
                    format!(
                        "`operator: {op}` needs exactly one value, found {}",
                        values.len()
                    ),
                    "exactly one value",
                    "give a single integer, e.g. `values: [\"4\"]`",
                    &vp,
                    required(
                        &vp,
                        "must be specified single value when `operator` is 'Lt' or 'Gt'",
                    ),
                );
            }
        }
        _ => {
            let opp = join(p, "operator");
            let help = match crate::util::nearest(
                op,
                &["In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"],
                2,
            ) {
                Some(s) if !op.is_empty() => {
                    format!("did you mean `{s}`? Operators are case-sensitive")
                }
                _ => "use one of `In`, `NotIn`, `Exists`, `DoesNotExist`, `Gt`, `Lt`".to_string(),
            };
            r.add(
                op_span,
                if op.is_empty() {
                    "node selector requirement has no operator".to_string()
                } else {
                    format!("`{op}` is not a node selector operator")
                },
                "invalid operator",
                &help,
                &opp,
                invalid(
                    &opp,
                    &named_value(op, r.ctx.settings),
                    "not a valid selector operator",
                ),
            );
        }
    }
    let key_node = ex.get("key");
    let key = str_of(key_node);
    let kp = join(p, "key");
    for msg in label_key_errors(key, r.ctx.settings) {
        r.add(
            key_node.map_or(ex.span, |n| n.span),
            if key.is_empty() {
                format!("node selector requirement has no key: {msg}")
            } else {
                format!("node selector key `{key}` is not a valid label key: {msg}")
            },
            "invalid label key",
            "use the node label's key, e.g. `node.kubernetes.io/instance-type`",
            &kp,
            invalid(&kp, &go_quote(key), &msg),
        );
    }
    if !preferred {
        for (k, v) in values.iter().enumerate() {
            let Some(val) = v.text() else { continue };
            let val = if v.is_null() { "" } else { val };
            let ip = format!("{vp}[{k}]");
            for msg in label_value_errors(val, r.ctx.settings) {
                r.add(
                    v.span,
                    format!("node affinity value `{val}` is not a valid label value: {msg}"),
                    "invalid label value",
                    "required terms may only list valid label values; no node label can hold this one",
                    &ip,
                    invalid(&ip, &go_quote(val), &msg),
                );
            }
        }
    }
}

pub(crate) fn check_field(r: &mut Report<'_, '_>, ex: &Node, p: &str) {
    let op_node = ex.get("operator");
    let op = str_of(op_node);
    let (values_node, values) = values_of(ex);
    let vp = join(p, "values");
    let op_span = op_node.map_or(ex.span, |n| n.span);
    match op {
        "In" | "NotIn" => {
            if values.len() != 1 {
                r.add(
                    values_node.map_or(op_span, |n| n.span),
                    format!("`matchFields` with `{op}` needs exactly one value, found {}", values.len()),
                    "exactly one node name",
                    "use one `matchFields` entry per node name, or several terms",
                    &vp,
                    required(&vp, "must be only one value when `operator` is 'In' or 'NotIn' for node field selector"),
                );
            }
        }
        _ => {
            let opp = join(p, "operator");
            r.add(
                op_span,
                format!("`{op}` is not a valid operator for `matchFields`"),
                "invalid operator",
                "`matchFields` supports only `In` and `NotIn`",
                &opp,
                invalid(
                    &opp,
                    &named_value(op, r.ctx.settings),
                    "not a valid selector operator",
                ),
            );
        }
    }
    let key_node = ex.get("key");
    let key = str_of(key_node);
    let kp = join(p, "key");
    if key != "metadata.name" {
        r.add(
            key_node.map_or(ex.span, |n| n.span),
            format!("`{key}` is not a node field; `matchFields` supports only `metadata.name`"),
            "invalid field selector key",
            "use `key: metadata.name`, or `matchExpressions` to match node labels",
            &kp,
            invalid(&kp, &go_quote(key), "not a valid field selector key"),
        );
        return;
    }
    for (k, v) in values.iter().enumerate() {
        let Some(val) = v.text() else { continue };
        let ip = format!("{vp}[{k}]");
        for msg in dns1123_subdomain_errors(val, r.ctx.settings, false) {
            r.add(
                v.span,
                format!("`{val}` is not a valid node name: {msg}"),
                "invalid node name",
                "node names are lowercase DNS subdomains",
                &ip,
                invalid(&ip, &go_quote(val), &msg),
            );
        }
    }
}
