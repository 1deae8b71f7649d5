//! A variable's value converted to its declared `type`, as far as reading pools needs: an
//! object attribute declared `optional(TYPE, DEFAULT)` that the value lacks is added with its
//! default, else null (Terraform 1.3+,
//! <https://developer.hashicorp.com/terraform/language/expressions/type-constraints#optional-object-type-attributes>),
//! through `map(…)`, `list(…)`, `set(…)` and nested objects. Other conversions (a number to a
//! string...) are left to the readers, which read primitives as text.

use std::sync::Arc;

use hcl_edit::expr::{Expression, ObjectKey};

use super::eval::Cx;
use super::value::{Look, V, Val};

/// `v` converted to the type `ty` (see the module's text).
pub(super) fn convert(cx: &mut Cx<'_>, v: Val, ty: &Expression) -> Val {
    convert_at(cx, v, ty, 0)
}

fn convert_at(cx: &mut Cx<'_>, v: Val, ty: &Expression, depth: u32) -> Val {
    if depth > 32 || !cx.env.meter().charge(1) {
        return v;
    }
    let Expression::FuncCall(f) = ty else {
        return v;
    };
    let Some(inner) = f.args.iter().next() else {
        return v;
    };
    match f.name.name.as_str() {
        "map" => match &v.v {
            V::Map(o) => {
                let at = v.at;
                let more = o.more.clone();
                let entries = o
                    .entries
                    .iter()
                    .map(|(k, x)| (Arc::clone(k), convert_at(cx, x.clone(), inner, depth + 1)))
                    .collect();
                Val::map(entries, more).with_at(at)
            }
            _ => v,
        },
        "list" | "set" => match &v.v {
            V::List(s) => {
                let at = v.at;
                let more = s.more.clone();
                let items = s
                    .items
                    .iter()
                    .map(|x| convert_at(cx, x.clone(), inner, depth + 1))
                    .collect();
                Val::list(items, more).with_at(at)
            }
            _ => v,
        },
        "object" => {
            let (Expression::Object(attrs), V::Map(o)) = (inner, &v.v) else {
                return v;
            };
            let at = v.at;
            let mut entries = o.entries.clone();
            let more = o.more.clone();
            for (k, t) in attrs.iter() {
                let key = match k {
                    ObjectKey::Ident(id) => id.as_str().to_string(),
                    ObjectKey::Expression(Expression::String(s)) => s.value().to_string(),
                    _ => continue,
                };
                let t = t.expr();
                let (ty, default) = match t {
                    Expression::FuncCall(o) if o.name.name.as_str() == "optional" => {
                        (o.args.iter().next(), o.args.iter().nth(1))
                    }
                    other => (Some(other), None),
                };
                let optional =
                    matches!(t, Expression::FuncCall(o) if o.name.name.as_str() == "optional");
                let present = match v.look(&key) {
                    Look::Present(x) if !(x.is_null() && optional) => Some(x.clone()),
                    Look::Unknown(_) => continue,
                    _ => None,
                };
                let value = match (present, optional, default) {
                    (Some(x), _, _) => x,
                    (None, true, Some(d)) => cx.eval(d),
                    (None, true, None) => Val::null(),
                    (None, false, _) => continue,
                };
                let value = match ty {
                    Some(ty) => convert_at(cx, value, ty, depth + 1),
                    None => value,
                };
                entries.insert(Arc::from(key.as_str()), value);
            }
            Val::map(entries, more).with_at(at)
        }
        _ => v,
    }
}
