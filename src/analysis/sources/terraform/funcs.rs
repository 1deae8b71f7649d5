//! Terraform's built-in functions that node-pool code uses, as Terraform defines them
//! (<https://developer.hashicorp.com/terraform/language/functions>), over values that may be
//! unknown or known in part. A function of files, the clock, randomness, a provider, or
//! regular expressions (no backtracking matcher runs on attacker text) is not evaluated: its
//! value is unknown (`Cause::Function`).

use std::collections::{BTreeMap, HashSet};
use std::sync::Arc;

use super::value::{At, Look, V, Val, equal, num_text};
use super::value::{MAX_STRING, Meter};
use crate::analysis::types::terraform::Cause;

pub(super) fn invalid(name: &str, msg: &str) -> Val {
    Val::unknown(Cause::Invalid(Arc::from(format!("{name}: {msg}").as_str())))
}

pub(super) fn not_evaluated(name: &str) -> Val {
    Val::unknown(Cause::Function(Arc::from(name)))
}

/// The first unknown among the arguments, as the call's value.
fn first_unknown(args: &[Val]) -> Option<Val> {
    args.iter()
        .find_map(|a| a.cause().map(|c| Val::unknown(c.clone())))
}

/// A canonical text of a value, for sets and `distinct` (`None`: not wholly known).
fn canon(v: &Val, out: &mut String) -> Option<()> {
    match &v.v {
        V::Null => out.push('n'),
        V::Bool(b) => out.push(if *b { 't' } else { 'f' }),
        V::Num(n) => {
            out.push('#');
            out.push_str(&num_text(*n));
        }
        V::Str(s) => {
            out.push('"');
            out.push_str(&s.len().to_string());
            out.push(':');
            out.push_str(s);
        }
        V::List(s) => {
            if s.more.is_some() {
                return None;
            }
            out.push('[');
            for i in &s.items {
                canon(i, out)?;
                out.push(',');
            }
            out.push(']');
        }
        V::Map(o) => {
            if o.more.is_some() {
                return None;
            }
            out.push('{');
            for (k, v) in &o.entries {
                out.push_str(&k.len().to_string());
                out.push(':');
                out.push_str(k);
                canon(v, out)?;
                out.push(',');
            }
            out.push('}');
        }
        V::Unknown(_) => return None,
    }
    Some(())
}

/// The items of a list argument (`Err`: the call's value, when it is not a known list).
pub(super) fn items<'a>(name: &str, v: &'a Val) -> Result<(&'a [Val], Option<Cause>), Val> {
    match &v.v {
        V::List(s) => Ok((&s.items, s.more.clone())),
        V::Unknown(c) => Err(Val::unknown(c.clone())),
        _ => Err(invalid(name, "the argument is not a list")),
    }
}

fn text_arg(name: &str, v: &Val) -> Result<String, Val> {
    match (v.text(), v.cause()) {
        (Some(s), _) => Ok(s),
        (None, Some(c)) => Err(Val::unknown(c.clone())),
        (None, None) => Err(invalid(name, "the argument is not a string")),
    }
}

fn checked_str(s: String, at: Option<At>) -> Val {
    if s.len() > MAX_STRING {
        return Val::unknown(Cause::Limit("the length of strings"));
    }
    Val::new(V::Str(Arc::from(s.as_str())), at)
}

/// A list made by a function, charged to the meter.
fn made_list(meter: &Meter, items: Vec<Val>, more: Option<Cause>, at: Option<At>) -> Val {
    if !meter.charge(items.len() as u64) {
        return Val::unknown(Cause::Limit("the size of collections"));
    }
    Val::list(items, more).with_at(at)
}

fn made_map(
    meter: &Meter,
    entries: BTreeMap<Arc<str>, Val>,
    more: Option<Cause>,
    at: Option<At>,
) -> Val {
    if !meter.charge(entries.len() as u64) {
        return Val::unknown(Cause::Limit("the size of collections"));
    }
    Val::map(entries, more).with_at(at)
}

fn arity(name: &str, args: &[Val], n: std::ops::RangeInclusive<usize>) -> Result<(), Val> {
    if n.contains(&args.len()) {
        Ok(())
    } else {
        Err(invalid(name, "wrong number of arguments"))
    }
}

/// The value of the built-in function `name` of these arguments (see the module's text).
///
/// A call is charged by its work, not once: what it reads of its arguments (their strings'
/// bytes and their collections' items, e.g. `contains` over a long list) before it runs, and
/// what it makes (a string's bytes, a collection's items) after; past the meter the value is
/// unknown (`Cause::Limit`).
pub(super) fn apply(meter: &Meter, name: &str, args: &[Val], at: Option<At>) -> Val {
    let read = args
        .iter()
        .fold(0u64, |sum, a| sum.saturating_add(a.read_units()));
    if !meter.charge(read) {
        return Val::unknown(Cause::Limit("the work of function calls"));
    }
    let v = match apply_inner(meter, name, args, at) {
        Ok(v) | Err(v) => v,
    };
    if !meter.charge(v.made_units()) {
        return Val::unknown(Cause::Limit("the work of function calls"));
    }
    v
}

fn apply_inner(meter: &Meter, name: &str, args: &[Val], at: Option<At>) -> Result<Val, Val> {
    Ok(match name {
        "merge" => merge(meter, args, at),
        "concat" => {
            let mut out = Vec::new();
            let mut more = None;
            for a in args {
                // An unknown list: the known items stay, and there may be others.
                if let Some(c) = a.cause() {
                    more = Some(c.clone());
                    continue;
                }
                let (xs, m) = items(name, a)?;
                if out.len() + xs.len() > MAX_STRING {
                    return Err(Val::unknown(Cause::Limit("the size of collections")));
                }
                out.extend(xs.iter().cloned());
                more = more.or(m);
            }
            made_list(meter, out, more, at)
        }
        "flatten" => {
            arity(name, args, 1..=1)?;
            let mut out = Vec::new();
            let mut more = None;
            flatten(meter, &args[0], &mut out, &mut more, 0)?;
            made_list(meter, out, more, at)
        }
        "distinct" | "toset" => {
            arity(name, args, 1..=1)?;
            if args[0].is_null() {
                return Ok(Val::null());
            }
            let (xs, more) = items(name, &args[0])?;
            let mut seen = HashSet::new();
            let mut out = Vec::new();
            for x in xs {
                let mut key = String::new();
                if canon(x, &mut key).is_none() {
                    // An unknown element may equal another: the set's size is unknown.
                    return Ok(match x.cause() {
                        Some(c) if name == "toset" => {
                            let mut known: Vec<Val> =
                                xs.iter().filter(|v| !v.is_unknown()).cloned().collect();
                            dedup_sorted(&mut known);
                            made_list(meter, known, Some(c.clone()), at)
                        }
                        _ => first_unknown(xs)
                            .unwrap_or_else(|| invalid(name, "an element is not known")),
                    });
                }
                if !meter.charge(1 + key.len() as u64 / 64) {
                    return Err(Val::unknown(Cause::Limit("the size of collections")));
                }
                if seen.insert(key) {
                    out.push(x.clone());
                }
            }
            if name == "toset" {
                // A set of strings iterates in lexical order.
                dedup_sorted(&mut out);
            }
            made_list(meter, out, more, at)
        }
        "tolist" | "tuple" => {
            arity(name, args, 1..=1)?;
            args[0].clone()
        }
        "tomap" | "toobject" => {
            arity(name, args, 1..=1)?;
            args[0].clone()
        }
        "tostring" => {
            arity(name, args, 1..=1)?;
            if args[0].is_null() {
                return Ok(Val::null());
            }
            checked_str(text_arg(name, &args[0])?, at)
        }
        "tonumber" => {
            arity(name, args, 1..=1)?;
            if let Some(v) = first_unknown(args) {
                return Ok(v);
            }
            match args[0].as_num() {
                Some(n) => Val::new(V::Num(n), at),
                None => invalid(name, "not a number"),
            }
        }
        "tobool" => {
            arity(name, args, 1..=1)?;
            if let Some(v) = first_unknown(args) {
                return Ok(v);
            }
            match args[0].as_bool() {
                Some(b) => Val::new(V::Bool(b), at),
                None => invalid(name, "not a bool"),
            }
        }
        "keys" | "values" => {
            arity(name, args, 1..=1)?;
            match &args[0].v {
                V::Map(o) => {
                    let xs: Vec<Val> = o
                        .entries
                        .iter()
                        .map(|(k, v)| {
                            if name == "keys" {
                                Val::new(V::Str(Arc::clone(k)), None)
                            } else {
                                v.clone()
                            }
                        })
                        .collect();
                    made_list(meter, xs, o.more.clone(), at)
                }
                V::Unknown(c) => Val::unknown(c.clone()),
                _ => invalid(name, "the argument is not a map"),
            }
        }
        "length" => {
            arity(name, args, 1..=1)?;
            match &args[0].v {
                V::List(s) if s.more.is_none() => Val::new(V::Num(s.items.len() as f64), at),
                V::Map(o) if o.more.is_none() => Val::new(V::Num(o.entries.len() as f64), at),
                V::Str(s) => Val::new(V::Num(s.chars().count() as f64), at),
                V::List(s) => Val::unknown(s.more.clone().unwrap_or(Cause::Limit("lengths"))),
                V::Map(o) => Val::unknown(o.more.clone().unwrap_or(Cause::Limit("lengths"))),
                V::Unknown(c) => Val::unknown(c.clone()),
                _ => invalid(name, "the argument has no length"),
            }
        }
        "lookup" => {
            arity(name, args, 2..=3)?;
            let key = text_arg(name, &args[1])?;
            match args[0].look(&key) {
                Look::Present(v) => v.clone(),
                Look::Unknown(c) => Val::unknown(c.clone()),
                Look::Absent => match args.get(2) {
                    Some(d) => d.clone(),
                    None if matches!(args[0].v, V::Map(_)) => invalid(name, "no such key"),
                    None => invalid(name, "the argument is not a map"),
                },
            }
        }
        "contains" => {
            arity(name, args, 2..=2)?;
            let (xs, more) = items(name, &args[0])?;
            let mut unknown = more;
            for x in xs {
                match equal(x, &args[1]) {
                    Some(true) => return Ok(Val::new(V::Bool(true), at)),
                    Some(false) => {}
                    None => {
                        unknown = unknown.or_else(|| x.cause().or(args[1].cause()).cloned());
                    }
                }
            }
            match unknown {
                Some(c) => Val::unknown(c),
                None => Val::new(V::Bool(false), at),
            }
        }
        "coalesce" => {
            for a in args {
                match &a.v {
                    V::Null => continue,
                    V::Str(s) if s.is_empty() => continue,
                    V::Unknown(c) => return Ok(Val::unknown(c.clone())),
                    _ => return Ok(a.clone()),
                }
            }
            invalid(name, "no non-null, non-empty argument")
        }
        "coalescelist" => {
            for a in args {
                match &a.v {
                    V::List(s) if s.items.is_empty() && s.more.is_none() => continue,
                    V::Null => continue,
                    V::Unknown(c) => return Ok(Val::unknown(c.clone())),
                    V::List(s) if s.items.is_empty() => {
                        return Ok(Val::unknown(
                            s.more.clone().unwrap_or(Cause::Limit("lists")),
                        ));
                    }
                    _ => return Ok(a.clone()),
                }
            }
            invalid(name, "no non-empty list")
        }
        "compact" => {
            arity(name, args, 1..=1)?;
            let (xs, more) = items(name, &args[0])?;
            let mut out = Vec::new();
            let mut more = more;
            for x in xs {
                match &x.v {
                    V::Null => {}
                    V::Str(s) if s.is_empty() => {}
                    V::Unknown(c) => more = Some(c.clone()),
                    _ => out.push(x.clone()),
                }
            }
            made_list(meter, out, more, at)
        }
        "element" => {
            arity(name, args, 2..=2)?;
            let (xs, more) = items(name, &args[0])?;
            if let Some(c) = args[1].cause() {
                return Ok(Val::unknown(c.clone()));
            }
            if let Some(c) = more {
                return Ok(Val::unknown(c));
            }
            let (Some(i), false) = (args[1].count(), xs.is_empty()) else {
                return Ok(invalid(name, "bad index or empty list"));
            };
            xs[i as usize % xs.len()].clone()
        }
        "index" => {
            arity(name, args, 2..=2)?;
            let (xs, more) = items(name, &args[0])?;
            for (i, x) in xs.iter().enumerate() {
                match equal(x, &args[1]) {
                    Some(true) => return Ok(Val::new(V::Num(i as f64), at)),
                    Some(false) => {}
                    None => {
                        return Ok(
                            first_unknown(&[x.clone(), args[1].clone()]).unwrap_or_else(Val::null)
                        );
                    }
                }
            }
            match more {
                Some(c) => Val::unknown(c),
                None => invalid(name, "the value is not in the list"),
            }
        }
        "one" => {
            arity(name, args, 1..=1)?;
            let (xs, more) = items(name, &args[0])?;
            match (xs.len(), more) {
                (_, Some(c)) => Val::unknown(c),
                (0, None) => Val::null(),
                (1, None) => xs[0].clone(),
                _ => invalid(name, "more than one element"),
            }
        }
        "zipmap" => {
            arity(name, args, 2..=2)?;
            let (ks, km) = items(name, &args[0])?;
            let (vs, vm) = items(name, &args[1])?;
            if let Some(c) = km.or(vm) {
                return Ok(Val::unknown(c));
            }
            if ks.len() != vs.len() {
                return Ok(invalid(name, "lists of different lengths"));
            }
            let mut out = BTreeMap::new();
            let mut more = None;
            for (k, v) in ks.iter().zip(vs) {
                match (k.text(), k.cause()) {
                    (Some(k), _) => {
                        out.insert(Arc::from(k.as_str()), v.clone());
                    }
                    (None, Some(c)) => more = Some(c.clone()),
                    (None, None) => return Ok(invalid(name, "a key that is not a string")),
                }
            }
            made_map(meter, out, more, at)
        }
        "reverse" => {
            arity(name, args, 1..=1)?;
            let (xs, more) = items(name, &args[0])?;
            if let Some(c) = more {
                return Ok(Val::unknown(c));
            }
            made_list(meter, xs.iter().rev().cloned().collect(), None, at)
        }
        "sort" => {
            arity(name, args, 1..=1)?;
            let (xs, more) = items(name, &args[0])?;
            if let Some(c) = more {
                return Ok(Val::unknown(c));
            }
            let mut texts = Vec::new();
            for x in xs {
                texts.push(text_arg(name, x)?);
            }
            texts.sort();
            made_list(meter, texts.iter().map(|t| Val::str(t)).collect(), None, at)
        }
        "slice" => {
            arity(name, args, 3..=3)?;
            let (xs, more) = items(name, &args[0])?;
            if let Some(v) = first_unknown(&args[1..]) {
                return Ok(v);
            }
            let (Some(a), Some(b)) = (args[1].count(), args[2].count()) else {
                return Ok(invalid(name, "bad indexes"));
            };
            let (a, b) = (a as usize, b as usize);
            if a > b || b > xs.len() {
                return Ok(match more {
                    Some(c) => Val::unknown(c),
                    None => invalid(name, "indexes out of range"),
                });
            }
            made_list(meter, xs[a..b].to_vec(), None, at)
        }
        "range" => {
            if let Some(v) = first_unknown(args) {
                return Ok(v);
            }
            let nums: Option<Vec<f64>> = args.iter().map(Val::as_num).collect();
            let (start, end, step) = match nums.as_deref() {
                Some([e]) => (0.0, *e, 1.0),
                Some([s, e]) => (*s, *e, if s <= e { 1.0 } else { -1.0 }),
                Some([s, e, st]) => (*s, *e, *st),
                _ => return Ok(invalid(name, "bad arguments")),
            };
            if step == 0.0 || !step.is_finite() || !start.is_finite() || !end.is_finite() {
                return Ok(invalid(name, "bad step"));
            }
            let n = ((end - start) / step).ceil().max(0.0);
            // Past a million items the meter is emptied: the place is reported as where the
            // evaluation's budget ran out (#49), not left unknown without a word.
            if !meter.charge(if n > 1_000_000.0 { u64::MAX } else { n as u64 }) {
                return Ok(Val::unknown(Cause::Limit("the size of collections")));
            }
            let xs = (0..n as u64)
                .map(|i| Val::new(V::Num(start + step * i as f64), None))
                .collect();
            Val::list(xs, None).with_at(at)
        }
        "setunion" | "setintersection" | "setsubtract" => set_op(meter, name, args, at)?,
        "join" => {
            arity(name, args, 2..=usize::MAX)?;
            let sep = text_arg(name, &args[0])?;
            let mut parts = Vec::new();
            for l in &args[1..] {
                let (xs, more) = items(name, l)?;
                if let Some(c) = more {
                    return Ok(Val::unknown(c));
                }
                for x in xs {
                    parts.push(text_arg(name, x)?);
                }
            }
            let len: usize = parts.iter().map(String::len).sum::<usize>() + sep.len() * parts.len();
            if len > MAX_STRING || !meter.charge(len as u64 / 64) {
                return Ok(Val::unknown(Cause::Limit("the length of strings")));
            }
            checked_str(parts.join(&sep), at)
        }
        "split" => {
            arity(name, args, 2..=2)?;
            let sep = text_arg(name, &args[0])?;
            let s = text_arg(name, &args[1])?;
            if sep.is_empty() {
                return Ok(not_evaluated(name));
            }
            let parts: Vec<Val> = s.split(sep.as_str()).map(Val::str).collect();
            made_list(meter, parts, None, at)
        }
        "replace" => {
            arity(name, args, 3..=3)?;
            let s = text_arg(name, &args[0])?;
            let from = text_arg(name, &args[1])?;
            let to = text_arg(name, &args[2])?;
            // `/…/` is a regular expression: not evaluated.
            if from.len() >= 2 && from.starts_with('/') && from.ends_with('/') {
                return Ok(not_evaluated(name));
            }
            if from.is_empty() {
                return Ok(checked_str(s, at));
            }
            let count = s.matches(from.as_str()).count();
            if s.len() + count.saturating_mul(to.len()) > MAX_STRING {
                return Ok(Val::unknown(Cause::Limit("the length of strings")));
            }
            checked_str(s.replace(from.as_str(), &to), at)
        }
        "lower" | "upper" | "trimspace" | "title" | "chomp" => {
            arity(name, args, 1..=1)?;
            let s = text_arg(name, &args[0])?;
            let out = match name {
                "lower" => s.to_lowercase(),
                "upper" => s.to_uppercase(),
                "trimspace" => s.trim().to_string(),
                "chomp" => s.trim_end_matches(['\n', '\r']).to_string(),
                _ => title(&s),
            };
            checked_str(out, at)
        }
        "trimprefix" | "trimsuffix" | "trim" | "startswith" | "endswith" | "strcontains" => {
            arity(name, args, 2..=2)?;
            let s = text_arg(name, &args[0])?;
            let p = text_arg(name, &args[1])?;
            match name {
                "trimprefix" => {
                    checked_str(s.strip_prefix(p.as_str()).unwrap_or(&s).to_string(), at)
                }
                "trimsuffix" => {
                    checked_str(s.strip_suffix(p.as_str()).unwrap_or(&s).to_string(), at)
                }
                "trim" => {
                    let set: Vec<char> = p.chars().collect();
                    checked_str(s.trim_matches(|c| set.contains(&c)).to_string(), at)
                }
                "startswith" => Val::new(V::Bool(s.starts_with(p.as_str())), at),
                "endswith" => Val::new(V::Bool(s.ends_with(p.as_str())), at),
                _ => Val::new(V::Bool(s.contains(p.as_str())), at),
            }
        }
        "substr" => {
            arity(name, args, 3..=3)?;
            let s = text_arg(name, &args[0])?;
            if let Some(v) = first_unknown(&args[1..]) {
                return Ok(v);
            }
            let (Some(off), Some(len)) = (args[1].as_num(), args[2].as_num()) else {
                return Ok(invalid(name, "bad offset or length"));
            };
            let chars: Vec<char> = s.chars().collect();
            let n = chars.len() as i64;
            let mut start = off as i64;
            if start < 0 {
                start += n;
            }
            let start = start.clamp(0, n) as usize;
            let end = if len < 0.0 {
                n as usize
            } else {
                (start + len as usize).min(n as usize)
            };
            checked_str(chars[start..end.max(start)].iter().collect(), at)
        }
        "format" => format(name, args, at)?,
        "formatlist" => not_evaluated(name),
        "jsonencode" => {
            arity(name, args, 1..=1)?;
            let mut out = String::new();
            match json(&args[0], &mut out, 0) {
                Ok(()) => checked_str(out, at),
                Err(v) => v,
            }
        }
        "min" | "max" | "sum" => {
            let nums: Vec<Val> = if name == "sum" {
                arity(name, args, 1..=1)?;
                let (xs, more) = items(name, &args[0])?;
                if let Some(c) = more {
                    return Ok(Val::unknown(c));
                }
                xs.to_vec()
            } else {
                args.to_vec()
            };
            if let Some(v) = first_unknown(&nums) {
                return Ok(v);
            }
            let ns: Option<Vec<f64>> = nums.iter().map(Val::as_num).collect();
            let Some(ns) = ns.filter(|n| !n.is_empty()) else {
                return Ok(invalid(name, "not numbers"));
            };
            let r = match name {
                "min" => ns.iter().cloned().fold(f64::INFINITY, f64::min),
                "max" => ns.iter().cloned().fold(f64::NEG_INFINITY, f64::max),
                _ => ns.iter().sum(),
            };
            Val::new(V::Num(r), at)
        }
        "abs" | "ceil" | "floor" => {
            arity(name, args, 1..=1)?;
            if let Some(v) = first_unknown(args) {
                return Ok(v);
            }
            let Some(n) = args[0].as_num() else {
                return Ok(invalid(name, "not a number"));
            };
            Val::new(
                V::Num(match name {
                    "abs" => n.abs(),
                    "ceil" => n.ceil(),
                    _ => n.floor(),
                }),
                at,
            )
        }
        "alltrue" | "anytrue" => {
            arity(name, args, 1..=1)?;
            let (xs, more) = items(name, &args[0])?;
            let want = name == "anytrue";
            let mut unknown = more;
            for x in xs {
                match x.as_bool() {
                    Some(b) if b == want => return Ok(Val::new(V::Bool(want), at)),
                    Some(_) => {}
                    None => unknown = unknown.or_else(|| x.cause().cloned()),
                }
            }
            match unknown {
                Some(c) => Val::unknown(c),
                None => Val::new(V::Bool(!want), at),
            }
        }
        // Files, templates, time, randomness, encodings of secrets, network math, regular
        // expressions: not evaluated.
        _ => not_evaluated(name),
    })
}

fn dedup_sorted(xs: &mut Vec<Val>) {
    let all_text = xs.iter().all(|x| x.text().is_some());
    if all_text {
        xs.sort_by_key(|x| x.text());
        xs.dedup_by(|a, b| a.text() == b.text());
    }
}

fn title(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut start = true;
    for c in s.chars() {
        if start && c.is_alphabetic() {
            out.extend(c.to_uppercase());
        } else {
            out.push(c);
        }
        start = c.is_whitespace();
    }
    out
}

/// `merge(maps…)`: later maps win. An unknown map (or one known only in part) may hold other
/// keys: the result may have more entries. It is taken to add entries, not to replace the
/// known ones before it (`merge(local.default_node_groups, var.managed_node_groups)`,
/// `merge(local.labels, var.extra_labels)` extend what the files show): the known entries
/// keep their values, so what is unknown stays local to what the unknown map adds.
fn merge(meter: &Meter, args: &[Val], at: Option<At>) -> Val {
    let mut out: BTreeMap<Arc<str>, Val> = BTreeMap::new();
    let mut more = None;
    for a in args {
        match &a.v {
            V::Null => {}
            V::Map(o) => {
                if let Some(c) = &o.more {
                    more = Some(c.clone());
                }
                if !meter.charge(o.entries.len() as u64) {
                    return Val::unknown(Cause::Limit("the size of collections"));
                }
                for (k, v) in &o.entries {
                    out.insert(Arc::clone(k), v.clone());
                }
            }
            V::Unknown(c) => {
                more = Some(c.clone());
            }
            _ => return invalid("merge", "an argument is not a map"),
        }
    }
    Val::map(out, more).with_at(at)
}

fn flatten(
    meter: &Meter,
    v: &Val,
    out: &mut Vec<Val>,
    more: &mut Option<Cause>,
    depth: u32,
) -> Result<(), Val> {
    if depth > 64 || !meter.charge(1) {
        return Err(Val::unknown(Cause::Limit("the nesting of expressions")));
    }
    match &v.v {
        V::List(s) => {
            if let Some(c) = &s.more {
                *more = Some(c.clone());
            }
            for x in &s.items {
                match &x.v {
                    V::List(_) => flatten(meter, x, out, more, depth + 1)?,
                    V::Unknown(c) => *more = Some(c.clone()),
                    _ => out.push(x.clone()),
                }
            }
            Ok(())
        }
        V::Unknown(c) => Err(Val::unknown(c.clone())),
        _ => Err(invalid("flatten", "the argument is not a list")),
    }
}

fn set_op(meter: &Meter, name: &str, args: &[Val], at: Option<At>) -> Result<Val, Val> {
    let mut sets: Vec<Vec<(String, Val)>> = Vec::new();
    for a in args {
        let (xs, more) = items(name, a)?;
        if let Some(c) = more {
            return Ok(Val::unknown(c));
        }
        let mut s = Vec::new();
        for x in xs {
            let mut k = String::new();
            if canon(x, &mut k).is_none() {
                return Ok(first_unknown(xs).unwrap_or_else(Val::null));
            }
            if !meter.charge(1 + k.len() as u64 / 64) {
                return Ok(Val::unknown(Cause::Limit("the size of collections")));
            }
            s.push((k, x.clone()));
        }
        sets.push(s);
    }
    let mut result: BTreeMap<String, Val> = BTreeMap::new();
    let Some(first) = sets.first() else {
        return Ok(invalid(name, "no argument"));
    };
    match name {
        "setunion" => {
            for s in &sets {
                for (k, v) in s {
                    result.entry(k.clone()).or_insert_with(|| v.clone());
                }
            }
        }
        _ => {
            let others: Vec<HashSet<&str>> = sets[1..]
                .iter()
                .map(|s| s.iter().map(|(k, _)| k.as_str()).collect())
                .collect();
            for (k, v) in first {
                let keep = if name == "setintersection" {
                    others.iter().all(|o| o.contains(k.as_str()))
                } else {
                    !others.iter().any(|o| o.contains(k.as_str()))
                };
                if keep {
                    result.insert(k.clone(), v.clone());
                }
            }
        }
    }
    Ok(made_list(meter, result.into_values().collect(), None, at))
}

/// `format(spec, args…)` for the verbs node-pool code uses (`%s`, `%d`, `%v`, `%q`, `%%`, with
/// no flags or widths); anything else is not evaluated.
fn format(name: &str, args: &[Val], at: Option<At>) -> Result<Val, Val> {
    arity(name, args, 1..=usize::MAX)?;
    let spec = text_arg(name, &args[0])?;
    let mut out = String::new();
    let mut next = 1;
    let mut chars = spec.chars();
    while let Some(c) = chars.next() {
        if c != '%' {
            out.push(c);
            continue;
        }
        let verb = chars.next();
        if verb == Some('%') {
            out.push('%');
            continue;
        }
        let Some(arg) = args.get(next) else {
            return Ok(invalid(name, "too few arguments"));
        };
        next += 1;
        if let Some(c) = arg.cause() {
            return Ok(Val::unknown(c.clone()));
        }
        match verb {
            Some('s') | Some('v') => out.push_str(&text_arg(name, arg)?),
            Some('d') => match arg.as_num() {
                Some(n) if n.fract() == 0.0 => out.push_str(&num_text(n)),
                _ => return Ok(invalid(name, "%d of a value that is not a whole number")),
            },
            Some('q') => {
                let s = text_arg(name, arg)?;
                let mut q = String::new();
                let _ = json(&Val::str(&s), &mut q, 0);
                out.push_str(&q);
            }
            _ => return Ok(not_evaluated(name)),
        }
        if out.len() > MAX_STRING {
            return Ok(Val::unknown(Cause::Limit("the length of strings")));
        }
    }
    Ok(checked_str(out, at))
}

/// JSON text of a known value (`Err`: the value is unknown, or too deep or long).
fn json(v: &Val, out: &mut String, depth: u32) -> Result<(), Val> {
    if depth > 64 || out.len() > MAX_STRING {
        return Err(Val::unknown(Cause::Limit("the length of strings")));
    }
    match &v.v {
        V::Null => out.push_str("null"),
        V::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        V::Num(n) => out.push_str(&num_text(*n)),
        V::Str(s) => {
            out.push('"');
            for c in s.chars() {
                match c {
                    '"' => out.push_str("\\\""),
                    '\\' => out.push_str("\\\\"),
                    '\n' => out.push_str("\\n"),
                    '\r' => out.push_str("\\r"),
                    '\t' => out.push_str("\\t"),
                    '<' => out.push_str("\\u003c"),
                    '>' => out.push_str("\\u003e"),
                    '&' => out.push_str("\\u0026"),
                    c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
                    c => out.push(c),
                }
            }
            out.push('"');
        }
        V::List(s) => {
            if let Some(c) = &s.more {
                return Err(Val::unknown(c.clone()));
            }
            out.push('[');
            for (i, x) in s.items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                json(x, out, depth + 1)?;
            }
            out.push(']');
        }
        V::Map(o) => {
            if let Some(c) = &o.more {
                return Err(Val::unknown(c.clone()));
            }
            out.push('{');
            for (i, (k, x)) in o.entries.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                json(&Val::str(k), out, depth + 1)?;
                out.push(':');
                json(x, out, depth + 1)?;
            }
            out.push('}');
        }
        V::Unknown(c) => return Err(Val::unknown(c.clone())),
    }
    Ok(())
}
