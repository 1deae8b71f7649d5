//! Terraform values as the evaluator knows them: HCL's values (null, bool, number, string,
//! list/tuple/set, map/object), an unknown value with its [`Cause`], and collections that are
//! known only in part — "these entries, and possibly others" (`merge(local.known, var.x)`
//! with `var.x` unknown) — which are not the same as "nothing known". Every value remembers
//! where it was written (file and span), so a pool or taint built from it points at its line.

use std::cell::Cell;
use std::collections::BTreeMap;
use std::sync::Arc;

use crate::analysis::types::terraform::Cause;
use crate::load::Span;

/// Where a value was written: a file of the evaluation's table, and a span in it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct At {
    pub(super) file: u32,
    pub(super) span: Span,
}

/// A value, and where it was written (`None`: made by a function, or a default).
#[derive(Clone, Debug)]
pub(super) struct Val {
    pub(super) v: V,
    pub(super) at: Option<At>,
}

#[derive(Clone, Debug)]
pub(super) enum V {
    Null,
    Bool(bool),
    Num(f64),
    Str(Arc<str>),
    /// A list, tuple or set (sets are kept sorted and without duplicates by the functions
    /// that make them).
    List(Arc<Seq>),
    /// A map or object.
    Map(Arc<Obj>),
    Unknown(Cause),
}

/// A list's known items; `more`: there may be other items, not known (why).
#[derive(Clone, Debug, Default)]
pub(super) struct Seq {
    pub(super) items: Vec<Val>,
    pub(super) more: Option<Cause>,
    /// What each of the unknown other items looks like, when known (a `for` expression over
    /// an unknown collection, its template read with the loop's values unknown).
    pub(super) any: Option<Box<Val>>,
}

/// A map's known entries (sorted by key, as Terraform iterates them); `more`: there may be
/// other keys, not known (why) — a known key's value is still known, unless a later unknown
/// map may replace it (then the entry is unknown).
#[derive(Clone, Debug, Default)]
pub(super) struct Obj {
    pub(super) entries: BTreeMap<Arc<str>, Val>,
    pub(super) more: Option<Cause>,
    /// What each of the unknown other entries looks like, when known (see [`Seq::any`]).
    pub(super) any: Option<Box<Val>>,
}

/// What a map says of one key.
pub(super) enum Look<'a> {
    Absent,
    Present(&'a Val),
    /// The map is unknown, or only partly known and without this key among the known ones.
    Unknown(&'a Cause),
}

impl Val {
    pub(super) fn new(v: V, at: Option<At>) -> Val {
        Val { v, at }
    }

    pub(super) fn unknown(cause: Cause) -> Val {
        Val::new(V::Unknown(cause), None)
    }

    pub(super) fn null() -> Val {
        Val::new(V::Null, None)
    }

    pub(super) fn str(s: &str) -> Val {
        Val::new(V::Str(Arc::from(s)), None)
    }

    pub(super) fn list(items: Vec<Val>, more: Option<Cause>) -> Val {
        Val::new(
            V::List(Arc::new(Seq {
                items,
                more,
                any: None,
            })),
            None,
        )
    }

    pub(super) fn map(entries: BTreeMap<Arc<str>, Val>, more: Option<Cause>) -> Val {
        Val::new(
            V::Map(Arc::new(Obj {
                entries,
                more,
                any: None,
            })),
            None,
        )
    }

    /// A collection none of whose items is known, each looking like `any`.
    pub(super) fn pattern(map: bool, cause: Cause, any: Val) -> Val {
        let any = Some(Box::new(any));
        Val::new(
            if map {
                V::Map(Arc::new(Obj {
                    entries: BTreeMap::new(),
                    more: Some(cause),
                    any,
                }))
            } else {
                V::List(Arc::new(Seq {
                    items: Vec::new(),
                    more: Some(cause),
                    any,
                }))
            },
            None,
        )
    }

    pub(super) fn with_at(mut self, at: Option<At>) -> Val {
        if at.is_some() {
            self.at = at;
        }
        self
    }

    pub(super) fn is_null(&self) -> bool {
        matches!(self.v, V::Null)
    }

    pub(super) fn cause(&self) -> Option<&Cause> {
        match &self.v {
            V::Unknown(c) => Some(c),
            _ => None,
        }
    }

    /// Is the value (not only a part of it) unknown?
    pub(super) fn is_unknown(&self) -> bool {
        matches!(self.v, V::Unknown(_))
    }

    /// A primitive as text, as Terraform converts it to a string (`None`: unknown, null, or
    /// a collection).
    pub(super) fn text(&self) -> Option<String> {
        match &self.v {
            V::Str(s) => Some(s.to_string()),
            V::Num(n) => Some(num_text(*n)),
            V::Bool(b) => Some(b.to_string()),
            _ => None,
        }
    }

    pub(super) fn as_bool(&self) -> Option<bool> {
        match &self.v {
            V::Bool(b) => Some(*b),
            V::Str(s) if &**s == "true" => Some(true),
            V::Str(s) if &**s == "false" => Some(false),
            _ => None,
        }
    }

    pub(super) fn as_num(&self) -> Option<f64> {
        match &self.v {
            V::Num(n) => Some(*n),
            V::Str(s) => s.trim().parse().ok(),
            _ => None,
        }
    }

    /// A whole number that fits a node count.
    pub(super) fn count(&self) -> Option<u32> {
        let n = self.as_num()?;
        (n >= 0.0 && n.fract() == 0.0 && n <= f64::from(u32::MAX)).then_some(n as u32)
    }

    pub(super) fn as_seq(&self) -> Option<&Seq> {
        match &self.v {
            V::List(s) => Some(s),
            _ => None,
        }
    }

    pub(super) fn as_obj(&self) -> Option<&Obj> {
        match &self.v {
            V::Map(o) => Some(o),
            _ => None,
        }
    }

    /// One key of a map (see [`Look`]); anything but a map or an unknown has no keys.
    pub(super) fn look(&self, key: &str) -> Look<'_> {
        match &self.v {
            V::Map(o) => match (o.entries.get(key), &o.more) {
                (Some(v), _) => Look::Present(v),
                (None, Some(c)) => Look::Unknown(c),
                (None, None) => Look::Absent,
            },
            V::Unknown(c) => Look::Unknown(c),
            _ => Look::Absent,
        }
    }

    /// A key's value when present and not null.
    pub(super) fn get(&self, key: &str) -> Option<&Val> {
        match self.look(key) {
            Look::Present(v) if !v.is_null() => Some(v),
            _ => None,
        }
    }
}

impl Look<'_> {
    /// The value when present (an unknown map gives an unknown value; absent and null give
    /// `None`).
    pub(super) fn val(&self) -> Option<Val> {
        match self {
            Look::Absent => None,
            Look::Present(v) if v.is_null() => None,
            Look::Present(v) => Some((*v).clone()),
            Look::Unknown(c) => Some(Val::unknown((*c).clone())),
        }
    }
}

/// A number as Terraform prints it: whole numbers without a fraction.
pub(super) fn num_text(n: f64) -> String {
    if n.fract() == 0.0 && n.abs() < 1e15 {
        format!("{}", n as i64)
    } else {
        format!("{n}")
    }
}

/// Equality as HCL's `==` (unknown when either side is, or contains, an unknown).
pub(super) fn equal(a: &Val, b: &Val) -> Option<bool> {
    match (&a.v, &b.v) {
        (V::Unknown(_), _) | (_, V::Unknown(_)) => None,
        (V::Null, V::Null) => Some(true),
        (V::Null, _) | (_, V::Null) => Some(false),
        (V::Bool(x), V::Bool(y)) => Some(x == y),
        (V::Num(x), V::Num(y)) => Some(x == y),
        (V::Str(x), V::Str(y)) => Some(x == y),
        (V::List(x), V::List(y)) => {
            if x.more.is_some() || y.more.is_some() {
                return None;
            }
            if x.items.len() != y.items.len() {
                return Some(false);
            }
            let mut all = Some(true);
            for (p, q) in x.items.iter().zip(&y.items) {
                match equal(p, q) {
                    Some(false) => return Some(false),
                    None => all = None,
                    Some(true) => {}
                }
            }
            all
        }
        (V::Map(x), V::Map(y)) => {
            if x.more.is_some() || y.more.is_some() {
                return None;
            }
            if x.entries.len() != y.entries.len() || !x.entries.keys().eq(y.entries.keys()) {
                return Some(false);
            }
            let mut all = Some(true);
            for (p, q) in x.entries.values().zip(y.entries.values()) {
                match equal(p, q) {
                    Some(false) => return Some(false),
                    None => all = None,
                    Some(true) => {}
                }
            }
            all
        }
        // Terraform converts a number or bool to compare it with a string only in some
        // contexts; `==` of different types is false.
        _ => Some(false),
    }
}

/// How deep expressions (and locals referring to locals) may nest.
const MAX_DEPTH: u32 = 200;
/// The longest string an evaluation makes.
pub(super) const MAX_STRING: usize = 1 << 20;

/// The work an evaluation may still do (see the module's text), and how deep it is.
pub(super) struct Meter {
    left: Cell<u64>,
    depth: Cell<u32>,
    /// The innermost expression being evaluated when the budget ran out.
    spent_at: Cell<Option<At>>,
}

/// Bytes of a string that cost one unit to read (a function scanning its argument).
pub(super) const BYTES_PER_UNIT_READ: u64 = 16;

impl Val {
    /// The work of reading the whole value: its items and entries, nested, and its strings'
    /// bytes ([`BYTES_PER_UNIT_READ`] a unit); counted up to `cap` (the walk stops there).
    pub(super) fn weight(&self, cap: u64) -> u64 {
        fn walk(v: &Val, cap: u64, sum: &mut u64) {
            if *sum >= cap {
                return;
            }
            *sum += 1;
            match &v.v {
                V::Str(s) => *sum += s.len() as u64 / BYTES_PER_UNIT_READ,
                V::List(l) => l.items.iter().for_each(|x| walk(x, cap, sum)),
                V::Map(o) => o.entries.values().for_each(|x| walk(x, cap, sum)),
                _ => {}
            }
        }
        let mut sum = 0;
        walk(self, cap, &mut sum);
        sum.min(cap)
    }

    /// The work of making the value's top level: a string's bytes (one unit each: what is made
    /// stays in memory), a collection's items.
    pub(super) fn made_units(&self) -> u64 {
        match &self.v {
            V::Str(s) => 1 + s.len() as u64,
            V::List(l) => 1 + l.items.len() as u64,
            V::Map(o) => 1 + o.entries.len() as u64,
            _ => 1,
        }
    }

    /// The work of reading the value's top level: a string's bytes, a collection's items.
    pub(super) fn read_units(&self) -> u64 {
        match &self.v {
            V::Str(s) => 1 + s.len() as u64 / BYTES_PER_UNIT_READ,
            V::List(l) => 1 + l.items.len() as u64,
            V::Map(o) => 1 + o.entries.len() as u64,
            _ => 1,
        }
    }
}

impl Meter {
    /// Takes what comparing `a` and `b` may cost (their weights, see [`Val::weight`]).
    pub(super) fn charge_compare(&self, a: &Val, b: &Val) -> bool {
        let left = self.left.get();
        let need = a
            .weight(left.saturating_add(1))
            .saturating_add(b.weight(left.saturating_add(1)));
        self.charge(need)
    }

    pub(super) fn new(budget: u64) -> Meter {
        Meter {
            left: Cell::new(budget),
            depth: Cell::new(0),
            spent_at: Cell::new(None),
        }
    }

    /// Records `at` as where the budget ran out, if it just did (the first place only: the
    /// innermost expression, whose evaluation ends first).
    pub(super) fn note_spent(&self, at: Option<At>) {
        if self.left.get() == 0 && self.spent_at.get().is_none() {
            self.spent_at.set(at);
        }
    }

    /// Where the budget ran out, if it did.
    pub(super) fn spent_at(&self) -> Option<At> {
        self.spent_at.get()
    }

    /// Takes `n` units; `false` once the budget is spent.
    pub(super) fn charge(&self, n: u64) -> bool {
        let left = self.left.get();
        if left < n {
            self.left.set(0);
            return false;
        }
        self.left.set(left - n);
        true
    }

    /// Enters one level of nesting; `false` past the limit (then nothing to leave).
    pub(super) fn enter(&self) -> bool {
        let d = self.depth.get();
        if d >= MAX_DEPTH {
            return false;
        }
        self.depth.set(d + 1);
        true
    }

    pub(super) fn leave(&self) {
        self.depth.set(self.depth.get().saturating_sub(1));
    }
}
