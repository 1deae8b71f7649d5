//! Reading literal values out of HCL expressions, in the scope of one resource instance: a
//! resource with a literal `for_each` is read once per key, with `each.key` and `each.value`
//! (and `each.value.field`, `each.value["field"]`, `lookup(each.value, "field", default)`)
//! standing for the key's literal values. Anything else that needs evaluation reads as
//! unknown (`None`).

use hcl_edit::expr::{Expression, Object, ObjectKey, TraversalOperator};
use hcl_edit::structure::{Block, Body};

use crate::analysis::types::{LabelValues, Labels, PoolTaint, UnknownTaints};
use crate::load::Span;

pub(super) fn block_label(block: &Block, i: usize) -> Option<&str> {
    block.labels.get(i).map(|l| l.as_str())
}

pub(super) fn span_of(s: Option<std::ops::Range<usize>>) -> Option<Span> {
    s.map(|r| Span::new(r.start, r.end.max(r.start)))
}

/// Is there a `dynamic "ident"` block in `body`?
pub(super) fn has_dynamic(body: &Body, ident: &str) -> bool {
    body.get_blocks("dynamic")
        .any(|b| block_label(b, 0) == Some(ident))
}

/// Kubernetes' name of a taint effect as the cloud APIs spell it (`NO_SCHEDULE`), or as
/// Kubernetes does.
pub(super) fn k8s_effect(effect: &str) -> String {
    match effect {
        "NO_SCHEDULE" => "NoSchedule".to_string(),
        "NO_EXECUTE" => "NoExecute".to_string(),
        "PREFER_NO_SCHEDULE" => "PreferNoSchedule".to_string(),
        other => other.to_string(),
    }
}

/// The `each` of one instance of a resource with a literal `for_each`.
pub(super) struct Each<'b> {
    /// `each.key`, as a string expression.
    pub(super) key: Expression,
    /// `each.value` (for a set, the element itself).
    pub(super) value: &'b Expression,
}

/// The scope expressions are read in: none at the top level, one key's `each` in a resource
/// instance.
#[derive(Default)]
pub(super) struct Ev<'b> {
    pub(super) each: Option<Each<'b>>,
}

impl<'b> Ev<'b> {
    /// `e` with references to `each` replaced by the literal they stand for (`e` itself when
    /// it is no such reference, or one that cannot be followed).
    pub(super) fn resolve<'s>(&'s self, e: &'s Expression) -> &'s Expression
    where
        'b: 's,
    {
        match e {
            Expression::Parenthesis(p) => self.resolve(p.inner()),
            Expression::Traversal(t) => {
                let Some(each) = &self.each else { return e };
                match &t.expr {
                    Expression::Variable(v) if v.as_str() == "each" => {}
                    _ => return e,
                }
                let mut ops = t.operators.iter().map(|o| o.value());
                let mut cur: &Expression = match ops.next() {
                    Some(TraversalOperator::GetAttr(a)) if a.as_str() == "key" => &each.key,
                    Some(TraversalOperator::GetAttr(a)) if a.as_str() == "value" => each.value,
                    _ => return e,
                };
                for op in ops {
                    let field = match op {
                        TraversalOperator::GetAttr(a) => a.as_str().to_string(),
                        TraversalOperator::Index(i) => match self.lit(i) {
                            Some(f) => f,
                            None => return e,
                        },
                        _ => return e,
                    };
                    match self.entry(cur, &field) {
                        Some(v) => cur = v,
                        None => return e,
                    }
                }
                cur
            }
            // `lookup(map, "key", default)` on a literal map.
            Expression::FuncCall(f)
                if f.name.namespace.is_empty()
                    && f.name.name.as_str() == "lookup"
                    && (2..=3).contains(&f.args.len()) =>
            {
                let (Some(map), Some(key)) = (f.args.get(0), f.args.get(1)) else {
                    return e;
                };
                let map = self.resolve(map);
                let (Some(_), Some(key)) = (map.as_object(), self.lit(key)) else {
                    return e;
                };
                match (self.entry(map, &key), f.args.get(2)) {
                    (Some(v), _) => v,
                    (None, Some(default)) => self.resolve(default),
                    (None, None) => e,
                }
            }
            _ => e,
        }
    }

    /// A literal value: a string without interpolation, a number or a boolean (`None` for
    /// anything that needs evaluation).
    pub(super) fn lit(&self, expr: &Expression) -> Option<String> {
        match self.resolve(expr) {
            Expression::String(s) => Some(s.as_str().to_string()),
            Expression::Number(n) => Some(n.to_string()),
            Expression::Bool(b) => Some(b.to_string()),
            _ => None,
        }
    }

    /// A literal whole number that fits a node count.
    pub(super) fn count(&self, expr: &Expression) -> Option<u32> {
        self.lit(expr)?.parse().ok()
    }

    /// Literal text: a string, or a heredoc without interpolation or directives (user data).
    pub(super) fn text(&self, expr: &Expression) -> Option<String> {
        match self.resolve(expr) {
            Expression::HeredocTemplate(h) => {
                let mut out = String::new();
                for el in h.template.iter() {
                    match el {
                        hcl_edit::template::Element::Literal(l) => out.push_str(l.value()),
                        _ => return None,
                    }
                }
                Some(out)
            }
            other => self.lit(other),
        }
    }

    pub(super) fn attr<'x>(&'x self, body: &'x Body, key: &str) -> Option<&'x Expression>
    where
        'b: 'x,
    {
        body.get_attribute(key).map(|a| self.resolve(&a.value))
    }

    pub(super) fn attr_lit(&self, body: &Body, key: &str) -> Option<String> {
        self.attr(body, key).and_then(|e| self.lit(e))
    }

    pub(super) fn is_true(&self, body: &Body, key: &str) -> bool {
        self.attr(body, key).and_then(Expression::as_bool) == Some(true)
    }

    pub(super) fn key_text(&self, key: &ObjectKey) -> Option<String> {
        match key {
            ObjectKey::Ident(id) => Some(id.as_str().to_string()),
            ObjectKey::Expression(e) => self.lit(e),
        }
    }

    /// The entries of an object expression (`None` when it is not a literal object).
    pub(super) fn entries<'x>(
        &'x self,
        expr: &'x Expression,
    ) -> Option<Vec<(Option<String>, &'x Expression)>>
    where
        'b: 'x,
    {
        let obj: &Object = self.resolve(expr).as_object()?;
        Some(
            obj.iter()
                .map(|(k, v)| (self.key_text(k), self.resolve(v.expr())))
                .collect(),
        )
    }

    pub(super) fn entry<'x>(&'x self, expr: &'x Expression, key: &str) -> Option<&'x Expression>
    where
        'b: 'x,
    {
        let obj = self.resolve(expr).as_object()?;
        obj.iter()
            .find(|(k, _)| self.key_text(k).as_deref() == Some(key))
            .map(|(_, v)| self.resolve(v.expr()))
    }

    /// A boolean field: `Some(b)` when literal, `None` when unknown; `absent` when not given.
    pub(super) fn flag(&self, expr: Option<&Expression>, absent: bool) -> Option<bool> {
        match expr {
            None => Some(absent),
            Some(e) => self.resolve(e).as_bool(),
        }
    }
}

/// The keys of a literal `for_each` (a map, or `toset([…])` of strings), each with its
/// `each.value`; `None` when the keys are not known before Terraform evaluates them.
pub(super) fn for_each_keys(expr: &Expression) -> Option<Vec<(String, &Expression)>> {
    let plain = Ev::default();
    if let Some(obj) = expr.as_object() {
        return obj
            .iter()
            .map(|(k, v)| Some((plain.key_text(k)?, v.expr())))
            .collect();
    }
    let Expression::FuncCall(f) = expr else {
        return None;
    };
    if f.name.name.as_str() != "toset" || f.args.len() != 1 {
        return None;
    }
    let mut keys: Vec<(String, &Expression)> = f
        .args
        .get(0)?
        .as_array()?
        .iter()
        .map(|e| Some((plain.lit(e)?, e)))
        .collect::<Option<_>>()?;
    // A set: each element once.
    keys.sort_by(|a, b| a.0.cmp(&b.0));
    keys.dedup_by(|a, b| a.0 == b.0);
    Some(keys)
}

/// A pool as it is read: its labels, its taints, whether its label set is only partly
/// known, and its size.
pub(super) struct Pool {
    pub(super) labels: Labels,
    pub(super) taints: Vec<PoolTaint>,
    pub(super) any_label: bool,
    /// GKE and EKS run the ExtendedResourceToleration admission plugin.
    pub(super) extended_resource_toleration: bool,
    pub(super) unknown_taints: UnknownTaints,
    /// The most nodes the pool has (its scaling limit, or its fixed size), when known.
    pub(super) max_nodes: Option<u32>,
}

impl Pool {
    pub(super) fn new() -> Self {
        Pool {
            labels: Labels::new(),
            taints: Vec::new(),
            any_label: false,
            extended_resource_toleration: false,
            unknown_taints: UnknownTaints::None,
            max_nodes: None,
        }
    }

    pub(super) fn label(&mut self, key: &str, value: Option<String>) {
        let values = value.map_or(LabelValues::Any, |v| LabelValues::one(&v));
        self.labels.insert(key, values);
    }

    /// A label the provider sets, unless the pool's own labels set it.
    pub(super) fn provider_label(&mut self, key: &str, value: Option<String>) {
        let values = value.map_or(LabelValues::Any, |v| LabelValues::one(&v));
        self.labels.insert_absent(key, values);
    }

    /// A map of labels (`labels = { … }`): unknown values are "any value", an unknown key or
    /// map makes the label set unknown.
    pub(super) fn label_map(&mut self, ev: &Ev<'_>, expr: Option<&Expression>) {
        let Some(expr) = expr else { return };
        let Some(entries) = ev.entries(expr) else {
            self.any_label = true;
            return;
        };
        for (k, v) in entries {
            match k {
                Some(k) => self.label(&k, ev.lit(v)),
                None => self.any_label = true,
            }
        }
    }

    /// Every label and taint unknown (user data or a launch template this file does not
    /// show).
    pub(super) fn unknown(&mut self) {
        self.any_label = true;
        self.unknown_taints = UnknownTaints::Any;
    }
}
