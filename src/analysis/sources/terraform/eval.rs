//! Evaluating HCL expressions as `terraform plan` does before it talks to a provider.
//!
//! **Why not hcl-rs's `eval`.** The hcl-rs crate (same project as hcl-edit) has an evaluator,
//! but it cannot serve here: its values have no unknown (a `var.x` without default, a data
//! source or a resource attribute is an error there, and an error aborts the whole
//! expression, so `merge(local.known, var.unknown)` would tell nothing about the known
//! entries); its functions are plain `fn(FuncArgs)` called with arguments already evaluated,
//! so `try` and `can`, which must catch their argument's error, cannot be written; its values
//! carry no span, so a label or taint could not point at its line; and it has no bound on
//! depth, size or time, which attacker-written files need. This evaluator walks hcl-edit's
//! syntax tree (the one the rest of the reader uses, spans included) with values that may be
//! unknown, or known in part (see `value`), each unknown with its [`Cause`].
//!
//! **Bounds.** Every step is charged to a [`Meter`] whose budget grows with the size of the
//! files evaluated (so honest files of any size evaluate whole, and a file cannot make the work
//! grow faster than its size): collections and strings are charged by the size they produce,
//! nesting is limited in depth. Past a limit the value is unknown (`Cause::Limit`), never an
//! error or a panic.

use std::collections::BTreeMap;
use std::sync::Arc;

use hcl_edit::expr::{
    BinaryOperator, Expression, ForExpr, FuncCall, ObjectKey, TraversalOperator, UnaryOperator,
};
use hcl_edit::template::{Directive, Element, Template};
use hcl_edit::{Ident, Span as _};

use super::value::{At, Look, MAX_STRING, Meter, V, Val, equal};
use crate::analysis::types::terraform::Cause;
use crate::load::Span;

/// What an expression's names refer to outside itself: the module instance it is in.
pub(super) trait Env {
    fn meter(&self) -> &Meter;
    /// `var.NAME`.
    fn var(&self, name: &str) -> Val;
    /// `local.NAME`.
    fn local(&self, name: &str) -> Val;
    /// `module.NAME` (the object of its outputs, or a list or map of them).
    fn module(&self, name: &str) -> Val;
    /// `path.module` (`path.root` is the root's).
    fn path(&self, which: &str) -> Val;
    /// The key a repeated object key was renamed from, at this span start of this file (see
    /// `parse`).
    fn renamed(&self, file: u32, at: usize) -> Option<&str>;
    /// Records an error Terraform would report while evaluating (see [`Problem`]).
    fn report(&self, _problem: Problem) {}
}

/// An error `terraform plan` reports while evaluating an expression the files hold: a `for`
/// expression that produces a key twice without the grouping `...`. The value is unknown
/// (`Cause::Invalid`); the run reports the error at the expression.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Problem {
    pub(super) file: u32,
    /// The `for` expression's introduction (`for k, v in coll :`), else the whole expression.
    pub(super) at: Span,
    /// The key expression.
    pub(super) key_at: Option<Span>,
    /// The key produced twice.
    pub(super) key: String,
}

/// The scope of one expression: its module instance, the file it is written in, and the
/// names bound around it (`each`, `count`, a `for` expression's or a `dynamic` block's
/// iterator).
pub(super) struct Cx<'e> {
    pub(super) env: &'e dyn Env,
    pub(super) file: u32,
    pub(super) names: Vec<(Arc<str>, Val)>,
    /// Inside the arguments of `try` or `can`, which catch their errors: none is reported.
    catching: u32,
}

fn at_of(file: u32, span: Option<std::ops::Range<usize>>) -> Option<At> {
    span.map(|r| At {
        file,
        span: Span::new(r.start, r.end.max(r.start)),
    })
}

fn invalid(msg: impl Into<String>) -> Val {
    Val::unknown(Cause::Invalid(Arc::from(msg.into().as_str())))
}

fn limit(what: &'static str) -> Val {
    Val::unknown(Cause::Limit(what))
}

/// A map's key, as HCL converts a value to one (`None`: not a string, number or bool).
fn key_text(v: &Val) -> Option<String> {
    v.text()
}

impl<'e> Cx<'e> {
    pub(super) fn new(env: &'e dyn Env, file: u32) -> Self {
        Cx {
            env,
            file,
            names: Vec::new(),
            catching: 0,
        }
    }

    pub(super) fn at(&self, span: Option<std::ops::Range<usize>>) -> Option<At> {
        at_of(self.file, span)
    }

    fn name(&self, n: &str) -> Option<&Val> {
        self.names
            .iter()
            .rev()
            .find(|(k, _)| &**k == n)
            .map(|(_, v)| v)
    }

    /// The value of `e` in this scope.
    pub(super) fn eval(&mut self, e: &Expression) -> Val {
        let meter = self.env.meter();
        if !meter.charge(1) {
            return limit("the work of one evaluation");
        }
        if !meter.enter() {
            return limit("the nesting of expressions");
        }
        let mut v = self.eval_inner(e);
        self.env.meter().leave();
        self.env.meter().note_spent(self.at(e.span()));
        // A value made here (by a function, an operator, a reference to something unknown)
        // is shown at this expression.
        if v.at.is_none() {
            v.at = self.at(e.span());
        }
        v
    }

    fn eval_inner(&mut self, e: &Expression) -> Val {
        let at = self.at(e.span());
        match e {
            Expression::Null(_) => Val::new(V::Null, at),
            Expression::Bool(b) => Val::new(V::Bool(*b.value()), at),
            Expression::Number(n) => match n.value().as_f64() {
                Some(f) => Val::new(V::Num(f), at),
                None => invalid("a number out of range"),
            },
            Expression::String(s) => Val::new(V::Str(Arc::from(s.value().as_str())), at),
            Expression::Array(a) => {
                if !self.env.meter().charge(a.len() as u64) {
                    return limit("the size of collections");
                }
                let items = a.iter().map(|x| self.eval(x)).collect();
                Val::list(items, None).with_at(at)
            }
            Expression::Object(o) => {
                let mut entries = BTreeMap::new();
                let mut more = None;
                // The value of the only entry whose key is not known: what the unknown
                // entries look like.
                let mut any: Option<Val> = None;
                let mut unknown_keys = 0;
                for (k, v) in o.iter() {
                    let key = match k {
                        ObjectKey::Ident(id) => {
                            let start = id.span().map(|s| s.start);
                            match start.and_then(|s| self.env.renamed(self.file, s)) {
                                Some(orig) => Some(orig.to_string()),
                                None => Some(id.as_str().to_string()),
                            }
                        }
                        ObjectKey::Expression(ke) => {
                            let start = ke.span().map(|s| s.start);
                            if let Some(orig) = start.and_then(|s| self.env.renamed(self.file, s)) {
                                Some(orig.to_string())
                            } else {
                                let kv = self.eval(ke);
                                match (key_text(&kv), kv.cause()) {
                                    (Some(t), _) => Some(t),
                                    (None, Some(c)) => {
                                        more = Some(c.clone());
                                        None
                                    }
                                    (None, None) => {
                                        return invalid("an object key that is not a string");
                                    }
                                }
                            }
                        }
                    };
                    let value = self.eval(v.expr());
                    match key {
                        // HCL's object constructor: a repeated key keeps the last value.
                        Some(key) => {
                            entries.insert(Arc::from(key.as_str()), value);
                        }
                        None => {
                            unknown_keys += 1;
                            any = Some(value);
                        }
                    }
                }
                match (more, any) {
                    (Some(c), Some(any)) if unknown_keys == 1 => {
                        let mut m = Val::pattern(true, c, any);
                        if let V::Map(o) = &mut m.v {
                            Arc::make_mut(o).entries = entries;
                        }
                        m.with_at(at)
                    }
                    (more, _) => Val::map(entries, more).with_at(at),
                }
            }
            // A template that is one interpolation and nothing else is the interpolated value
            // itself, not converted to a string (`"${var.labels}"` is a map): HCL's
            // `TemplateWrapExpr` (hashicorp/hcl `hclsyntax/parser_template.go`).
            Expression::StringTemplate(t) => match (t.len(), t.get(0)) {
                (1, Some(Element::Interpolation(i))) => self.eval(&i.expr),
                _ => self.template(t, at),
            },
            Expression::HeredocTemplate(h) => self.template(&h.template, at),
            Expression::Parenthesis(p) => self.eval(p.inner()),
            Expression::Variable(v) => self.variable(v.as_str(), at),
            Expression::Conditional(c) => {
                let cond = self.eval(&c.cond_expr);
                match cond.as_bool() {
                    Some(true) => self.eval(&c.true_expr),
                    Some(false) => self.eval(&c.false_expr),
                    None => match cond.cause() {
                        Some(cause) => {
                            let cause = cause.clone();
                            // Both branches the same known value: it is known all the same.
                            let t = self.eval(&c.true_expr);
                            let f = self.eval(&c.false_expr);
                            if !self.env.meter().charge_compare(&t, &f) {
                                return limit("the work of comparisons");
                            }
                            if equal(&t, &f) == Some(true) {
                                t
                            } else {
                                Val::unknown(cause)
                            }
                        }
                        None => invalid("a condition that is not a bool"),
                    },
                }
            }
            Expression::FuncCall(f) => call(self, f, at),
            Expression::Traversal(t) => {
                let base = match &t.expr {
                    Expression::Variable(v) => return self.reference(v.value(), &t.operators, at),
                    other => self.eval(other),
                };
                self.traverse(base, t.operators.iter().map(|o| o.value()))
            }
            Expression::UnaryOp(u) => {
                let v = self.eval(&u.expr);
                if let Some(c) = v.cause() {
                    return Val::unknown(c.clone());
                }
                match u.operator.value() {
                    UnaryOperator::Neg => match v.as_num() {
                        Some(n) => Val::new(V::Num(-n), at),
                        None => invalid("`-` of a value that is not a number"),
                    },
                    UnaryOperator::Not => match v.as_bool() {
                        Some(b) => Val::new(V::Bool(!b), at),
                        None => invalid("`!` of a value that is not a bool"),
                    },
                }
            }
            Expression::BinaryOp(b) => {
                self.binary(&b.lhs_expr, *b.operator.value(), &b.rhs_expr, at)
            }
            Expression::ForExpr(f) => self.for_expr(f, at),
        }
    }

    /// A bare name: an iterator, `each`/`count`, or nothing known.
    fn variable(&self, name: &str, at: Option<At>) -> Val {
        if let Some(v) = self.name(name) {
            return v.clone().with_at(at);
        }
        match name {
            "self" => Val::unknown(Cause::Environment(Arc::from("self"))),
            super::json::UNREADABLE => invalid("a JSON string that is not a valid template"),
            "each" | "count" => invalid(format!("`{name}` outside a resource with `{name}`")),
            _ => invalid(format!("`{name}` is not defined")),
        }
    }

    /// A traversal that starts with a name: `var.x`, `local.x`, `each.value.y`, `data.*`,
    /// `module.*`, a resource's attribute, `path.module`.
    fn reference(
        &mut self,
        root: &Ident,
        ops: &[hcl_edit::Decorated<TraversalOperator>],
        at: Option<At>,
    ) -> Val {
        let name = root.as_str();
        let mut ops = ops.iter().map(|o| o.value()).peekable();
        if self.name(name).is_some() {
            let base = self.variable(name, at);
            return self.traverse(base, ops);
        }
        let attr = |op: Option<&TraversalOperator>| match op {
            Some(TraversalOperator::GetAttr(a)) => Some(a.as_str().to_string()),
            _ => None,
        };
        let base = match name {
            "var" | "local" | "module" | "path" | "terraform" => {
                let Some(field) = attr(ops.next()) else {
                    return invalid(format!("`{name}` without an attribute"));
                };
                match name {
                    "var" => self.env.var(&field),
                    "local" => self.env.local(&field),
                    "module" => self.env.module(&field),
                    "path" if field == "module" || field == "root" => self.env.path(&field),
                    _ => Val::unknown(Cause::Environment(Arc::from(
                        format!("{name}.{field}").as_str(),
                    ))),
                }
            }
            "data" => {
                let (t, n) = (attr(ops.next()), attr(ops.next()));
                let address = format!("data.{}.{}", t.unwrap_or_default(), n.unwrap_or_default());
                return Val::unknown(Cause::Data(Arc::from(address.as_str())));
            }
            "self" | "each" | "count" => self.variable(name, at),
            // `TYPE.NAME.attr`: a resource's attribute, known after apply.
            _ => {
                let n = attr(ops.next()).unwrap_or_default();
                return Val::unknown(Cause::Resource(Arc::from(format!("{name}.{n}").as_str())));
            }
        };
        let base = if base.at.is_none() {
            base.with_at(at)
        } else {
            base
        };
        self.traverse(base, ops)
    }

    /// Applies traversal operators (attributes, indexes, splats) to `base`.
    fn traverse<'o>(&mut self, base: Val, ops: impl Iterator<Item = &'o TraversalOperator>) -> Val {
        let ops: Vec<&TraversalOperator> = ops.collect();
        self.traverse_ops(base, &ops)
    }

    fn traverse_ops(&mut self, base: Val, ops: &[&TraversalOperator]) -> Val {
        let mut cur = base;
        for (i, op) in ops.iter().enumerate() {
            if let Some(c) = cur.cause() {
                return Val::unknown(c.clone());
            }
            cur = match op {
                TraversalOperator::GetAttr(a) => match cur.look(a.as_str()) {
                    Look::Present(v) => v.clone(),
                    Look::Unknown(c) => Val::unknown(c.clone()),
                    Look::Absent => {
                        return invalid(format!("no attribute `{}`", a.as_str()));
                    }
                },
                TraversalOperator::Index(e) => {
                    let k = self.eval(e);
                    self.index(&cur, &k)
                }
                TraversalOperator::LegacyIndex(n) => {
                    let k = Val::new(V::Num(*n.value() as f64), None);
                    self.index(&cur, &k)
                }
                TraversalOperator::AttrSplat(_) | TraversalOperator::FullSplat(_) => {
                    let rest = &ops[i + 1..];
                    // An attribute splat applies only the attribute lookups that follow.
                    let (each, after) = match op {
                        TraversalOperator::AttrSplat(_) => {
                            let n = rest
                                .iter()
                                .take_while(|o| matches!(o, TraversalOperator::GetAttr(_)))
                                .count();
                            rest.split_at(n)
                        }
                        _ => (rest, &[][..]),
                    };
                    let items: Vec<Val> = match (&cur.v, cur.as_seq()) {
                        (V::Null, _) => Vec::new(),
                        (_, Some(s)) => {
                            if let Some(c) = &s.more {
                                return Val::unknown(c.clone());
                            }
                            s.items.clone()
                        }
                        _ => vec![cur.clone()],
                    };
                    if !self.env.meter().charge(items.len() as u64) {
                        return limit("the size of collections");
                    }
                    let out: Vec<Val> = items
                        .into_iter()
                        .map(|item| self.traverse_ops(item, each))
                        .collect();
                    return self.traverse_ops(Val::list(out, None), after);
                }
            };
        }
        cur
    }

    /// `coll[key]`.
    pub(super) fn index(&self, coll: &Val, key: &Val) -> Val {
        if let Some(c) = key.cause() {
            return Val::unknown(c.clone());
        }
        match &coll.v {
            V::Unknown(c) => Val::unknown(c.clone()),
            V::List(s) => {
                let Some(i) = key.count() else {
                    return invalid("a list index that is not a whole number");
                };
                match s.items.get(i as usize) {
                    Some(v) => v.clone(),
                    None => match &s.more {
                        Some(c) => Val::unknown(c.clone()),
                        None => invalid(format!("index {i} out of range")),
                    },
                }
            }
            V::Map(_) => {
                let Some(k) = key.text() else {
                    return invalid("a map key that is not a string");
                };
                match coll.look(&k) {
                    Look::Present(v) => v.clone(),
                    Look::Unknown(c) => Val::unknown(c.clone()),
                    Look::Absent => invalid(format!("no key `{k}`")),
                }
            }
            _ => invalid("an index into a value that is not a collection"),
        }
    }

    fn template(&mut self, t: &Template, at: Option<At>) -> Val {
        let mut out = String::new();
        match self.template_into(t, &mut out) {
            Ok(()) => Val::new(V::Str(Arc::from(out.as_str())), at),
            Err(v) => v,
        }
    }

    /// Appends the template's text; `Err` with the value (unknown) when a part is not known.
    fn template_into(&mut self, t: &Template, out: &mut String) -> Result<(), Val> {
        for el in t.iter() {
            match el {
                Element::Literal(l) => push_str(self, out, l.value())?,
                Element::Interpolation(i) => {
                    let v = self.eval(&i.expr);
                    match (v.text(), v.cause()) {
                        (Some(s), _) => push_str(self, out, &s)?,
                        (None, Some(c)) => return Err(Val::unknown(c.clone())),
                        (None, None) => {
                            return Err(invalid(
                                "a template interpolation of a collection or null",
                            ));
                        }
                    }
                }
                Element::Directive(d) => match &**d {
                    Directive::If(i) => {
                        let cond = self.eval(&i.if_expr.cond_expr);
                        match cond.as_bool() {
                            Some(true) => self.template_into(&i.if_expr.template, out)?,
                            Some(false) => {
                                if let Some(e) = &i.else_expr {
                                    self.template_into(&e.template, out)?;
                                }
                            }
                            None => {
                                return Err(cond.cause().map_or_else(
                                    || invalid("a condition that is not a bool"),
                                    |c| Val::unknown(c.clone()),
                                ));
                            }
                        }
                    }
                    Directive::For(f) => {
                        let coll = self.eval(&f.for_expr.collection_expr);
                        let pairs = match iteration(&coll) {
                            Ok((pairs, None)) => pairs,
                            Ok((_, Some(c))) => return Err(Val::unknown(c)),
                            Err(v) => return Err(v),
                        };
                        let kv = f.for_expr.key_var.as_ref().map(|k| Arc::from(k.as_str()));
                        let vv: Arc<str> = Arc::from(f.for_expr.value_var.as_str());
                        for (k, v) in pairs {
                            let mark = self.names.len();
                            if let Some(kv) = &kv {
                                self.names.push((Arc::clone(kv), k));
                            }
                            self.names.push((Arc::clone(&vv), v));
                            let r = self.template_into(&f.for_expr.template, out);
                            self.names.truncate(mark);
                            r?;
                        }
                    }
                },
            }
        }
        Ok(())
    }

    fn binary(
        &mut self,
        l: &Expression,
        op: BinaryOperator,
        r: &Expression,
        at: Option<At>,
    ) -> Val {
        use BinaryOperator as B;
        let a = self.eval(l);
        // `false && x` and `true || x` are known whatever `x` is.
        match (op, a.as_bool()) {
            (B::And, Some(false)) => return Val::new(V::Bool(false), at),
            (B::Or, Some(true)) => return Val::new(V::Bool(true), at),
            _ => {}
        }
        let b = self.eval(r);
        match op {
            B::Eq | B::NotEq if !self.env.meter().charge_compare(&a, &b) => {
                limit("the work of comparisons")
            }
            B::Eq | B::NotEq => match equal(&a, &b) {
                Some(x) => Val::new(V::Bool(x == (op == B::Eq)), at),
                None => unknown_of(&a, &b),
            },
            B::And | B::Or => {
                if let (B::And, Some(false)) | (B::Or, Some(true)) = (op, b.as_bool()) {
                    return Val::new(V::Bool(op == B::Or), at);
                }
                match (a.as_bool(), b.as_bool()) {
                    (Some(x), Some(y)) => {
                        Val::new(V::Bool(if op == B::And { x && y } else { x || y }), at)
                    }
                    _ if a.is_unknown() || b.is_unknown() => unknown_of(&a, &b),
                    _ => invalid("a logical operator on a value that is not a bool"),
                }
            }
            _ => {
                if a.is_unknown() || b.is_unknown() {
                    return unknown_of(&a, &b);
                }
                let (Some(x), Some(y)) = (a.as_num(), b.as_num()) else {
                    return invalid("arithmetic on a value that is not a number");
                };
                let v = match op {
                    B::LessEq => V::Bool(x <= y),
                    B::GreaterEq => V::Bool(x >= y),
                    B::Less => V::Bool(x < y),
                    B::Greater => V::Bool(x > y),
                    B::Plus => V::Num(x + y),
                    B::Minus => V::Num(x - y),
                    B::Mul => V::Num(x * y),
                    B::Div if y == 0.0 => return invalid("division by zero"),
                    B::Div => V::Num(x / y),
                    B::Mod if y == 0.0 => return invalid("modulo by zero"),
                    B::Mod => V::Num(x % y),
                    _ => return invalid("an operator taintlint does not know"),
                };
                match v {
                    V::Num(n) if !n.is_finite() => invalid("a number out of range"),
                    v => Val::new(v, at),
                }
            }
        }
    }

    /// `[for …]` and `{for …}`. An iteration whose condition or key is unknown makes the
    /// result partly known (`more`); a repeated key without `...` is Terraform's error
    /// ("Duplicate object key"), so the value is not known.
    fn for_expr(&mut self, f: &ForExpr, at: Option<At>) -> Val {
        let coll = self.eval(&f.intro.collection_expr);
        let (pairs, mut more) = match iteration(&coll) {
            Ok(x) => x,
            // Over an unknown collection: no item is known, but each looks like the template
            // read with the loop's values unknown.
            Err(v) => {
                let Some(c) = v.cause().cloned() else {
                    return v;
                };
                if matches!(c, Cause::Limit(_)) {
                    return v;
                }
                let mark = self.names.len();
                if let Some(k) = &f.intro.key_var {
                    self.names
                        .push((Arc::from(k.as_str()), Val::unknown(c.clone())));
                }
                self.names.push((
                    Arc::from(f.intro.value_var.as_str()),
                    Val::unknown(c.clone()),
                ));
                let any = self.eval(&f.value_expr);
                self.names.truncate(mark);
                let any = if f.grouping {
                    Val::unknown(c.clone())
                } else {
                    any
                };
                return Val::pattern(f.key_expr.is_some(), c, any).with_at(at);
            }
        };
        if !self.env.meter().charge(pairs.len() as u64) {
            return limit("the size of collections");
        }
        let kv = f.intro.key_var.as_ref().map(|k| Arc::from(k.as_str()));
        let vv: Arc<str> = Arc::from(f.intro.value_var.as_str());
        let mut list = Vec::new();
        let mut map: BTreeMap<Arc<str>, Val> = BTreeMap::new();
        let mut groups: BTreeMap<Arc<str>, Vec<Val>> = BTreeMap::new();
        for (k, v) in pairs {
            let mark = self.names.len();
            if let Some(kv) = &kv {
                self.names.push((Arc::clone(kv), k));
            }
            self.names.push((Arc::clone(&vv), v));
            let keep = match &f.cond {
                Some(c) => {
                    let cv = self.eval(&c.expr);
                    match (cv.as_bool(), cv.cause()) {
                        (Some(b), _) => b,
                        (None, Some(c)) => {
                            more = Some(c.clone());
                            false
                        }
                        (None, None) => {
                            self.names.truncate(mark);
                            return invalid("a `for` condition that is not a bool");
                        }
                    }
                }
                None => true,
            };
            if keep {
                match &f.key_expr {
                    None => list.push(self.eval(&f.value_expr)),
                    Some(ke) => {
                        let key = self.eval(ke);
                        match (key.text(), key.cause()) {
                            (Some(k), _) => {
                                let value = self.eval(&f.value_expr);
                                let k: Arc<str> = Arc::from(k.as_str());
                                if f.grouping {
                                    groups.entry(k).or_default().push(value);
                                } else {
                                    match map.entry(Arc::clone(&k)) {
                                        std::collections::btree_map::Entry::Occupied(_) => {
                                            self.names.truncate(mark);
                                            self.duplicate(f, at, ke, &k);
                                            return invalid(format!(
                                                "duplicate object key `{k}` in a `for` expression (add `...` after the value to group them)"
                                            ));
                                        }
                                        std::collections::btree_map::Entry::Vacant(e) => {
                                            e.insert(value);
                                        }
                                    }
                                }
                            }
                            (None, Some(c)) => more = Some(c.clone()),
                            (None, None) => {
                                self.names.truncate(mark);
                                return invalid("a `for` key that is not a string");
                            }
                        }
                    }
                }
            }
            self.names.truncate(mark);
        }
        match &f.key_expr {
            None => Val::list(list, more).with_at(at),
            Some(_) if f.grouping => {
                let entries = groups
                    .into_iter()
                    .map(|(k, vs)| (k, Val::list(vs, None)))
                    .collect();
                Val::map(entries, more).with_at(at)
            }
            Some(_) => Val::map(map, more).with_at(at),
        }
    }
}

impl Cx<'_> {
    /// Reports a `for` expression's repeated key: hashicorp/hcl `hclsyntax/expression.go`,
    /// `ForExpr.Value`, "Duplicate object key" unless the expression groups (`...`). Not
    /// inside `try` or `can`, which catch it (`tryfunc`).
    fn duplicate(&self, f: &ForExpr, at: Option<At>, key: &Expression, k: &str) {
        if self.catching > 0 {
            return;
        }
        let intro = self.at(f.intro.span());
        let Some(place) = intro.or(at) else {
            return;
        };
        self.env.report(Problem {
            file: place.file,
            at: place.span,
            key_at: self.at(key.span()).map(|a| a.span),
            key: k.to_string(),
        });
    }
}

fn push_str(cx: &Cx<'_>, out: &mut String, s: &str) -> Result<(), Val> {
    if out.len() + s.len() > MAX_STRING {
        return Err(limit("the length of strings"));
    }
    // (The bytes made stay in memory: one unit each.)
    if !cx.env.meter().charge(1 + s.len() as u64) {
        return Err(limit("the work of one evaluation"));
    }
    out.push_str(s);
    Ok(())
}

/// The unknown of two operands (the first one's cause).
fn unknown_of(a: &Val, b: &Val) -> Val {
    match a.cause().or_else(|| b.cause()) {
        Some(c) => Val::unknown(c.clone()),
        None => invalid("operands of different types"),
    }
}

/// (key, value) pairs, and whether there may be more (why).
pub(super) type Iteration = (Vec<(Val, Val)>, Option<Cause>);

/// What a `for` iterates over: (key, value) pairs, and whether there may be more (why); `Err`
/// with the value when the collection is unknown or not a collection.
pub(super) fn iteration(coll: &Val) -> Result<Iteration, Val> {
    match &coll.v {
        V::List(s) => Ok((
            s.items
                .iter()
                .enumerate()
                .map(|(i, v)| (Val::new(V::Num(i as f64), None), v.clone()))
                .collect(),
            s.more.clone(),
        )),
        V::Map(o) => Ok((
            o.entries
                .iter()
                .map(|(k, v)| (Val::new(V::Str(Arc::clone(k)), None), v.clone()))
                .collect(),
            o.more.clone(),
        )),
        V::Unknown(c) => Err(Val::unknown(c.clone())),
        V::Null => Err(invalid("a `for` over null")),
        _ => Err(invalid("a `for` over a value that is not a collection")),
    }
}

/// Does `v` hold an error (an invalid value) anywhere? For `try` and `can`.
pub(super) fn has_error(v: &Val, budget: &mut u32) -> bool {
    if *budget == 0 {
        return false;
    }
    *budget -= 1;
    match &v.v {
        V::Unknown(Cause::Invalid(_)) => true,
        V::List(s) => s.items.iter().any(|x| has_error(x, budget)),
        V::Map(o) => o.entries.values().any(|x| has_error(x, budget)),
        _ => false,
    }
}

/// `name(args…)`.
fn call(cx: &mut Cx<'_>, f: &FuncCall, at: Option<At>) -> Val {
    let name = f.name.name.as_str();
    if f.name.is_namespaced() {
        return super::funcs::not_evaluated(&format!(
            "{}::{name}",
            f.name
                .namespace
                .iter()
                .map(|n| n.as_str())
                .collect::<Vec<_>>()
                .join("::")
        ));
    }
    // `try` and `can` catch their arguments' errors: evaluated one by one.
    match name {
        "try" => {
            let mut last = super::funcs::invalid("try", "no argument");
            for a in f.args.iter() {
                cx.catching += 1;
                let v = cx.eval(a);
                cx.catching -= 1;
                let mut budget = 10_000;
                if !has_error(&v, &mut budget) {
                    return v;
                }
                last = v;
            }
            return last;
        }
        "can" => {
            let Some(a) = f.args.iter().next() else {
                return super::funcs::invalid("can", "no argument");
            };
            cx.catching += 1;
            let v = cx.eval(a);
            cx.catching -= 1;
            let mut budget = 10_000;
            return match (has_error(&v, &mut budget), v.cause()) {
                (true, _) => Val::new(V::Bool(false), at),
                (false, Some(c)) => Val::unknown(c.clone()),
                (false, None) => Val::new(V::Bool(true), at),
            };
        }
        _ => {}
    }
    let mut args: Vec<Val> = f.args.iter().map(|a| cx.eval(a)).collect();
    // `f(list...)`: the last argument's items are the arguments.
    if f.args.expand_final()
        && let Some(last) = args.pop()
    {
        match super::funcs::items(name, &last) {
            Ok((xs, None)) => args.extend(xs.iter().cloned()),
            Ok((_, Some(c))) => return Val::unknown(c),
            Err(v) => return v,
        }
    }
    super::funcs::apply(cx.env.meter(), name, &args, at)
}
