//! The merge rules the admission plugins share, as upstream writes them:
//! tolerations (`pkg/util/tolerations/tolerations.go` and `pkg/util/tolerations/merge/merge.go`
//! in kubernetes/kubernetes, `AddOrUpdateTolerationInPod` in `pkg/apis/core/helper/helpers.go`)
//! and node selectors written as annotation strings (`labels.ConvertSelectorToLabelsMap`,
//! `labels.Conflicts`, `labels.Merge` in apimachinery's `pkg/labels/labels.go`).

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use crate::analysis::semantics::validation::{
    go_quote, invalid, label_key_errors, label_value_errors,
};
use crate::analysis::types::WorkloadToleration;
use crate::settings::Settings;

/// `apiequality.Semantic.DeepEqual` of two tolerations: every field, `tolerationSeconds`
/// included.
pub fn same(a: &WorkloadToleration, b: &WorkloadToleration) -> bool {
    a.key == b.key
        && a.operator == b.operator
        && a.value == b.value
        && a.effect == b.effect
        && a.seconds == b.seconds
}

/// `merge.IsSuperset(ss, t)`: does `ss` tolerate a superset of what `t` tolerates?
pub fn is_superset(ss: &WorkloadToleration, t: &WorkloadToleration) -> bool {
    if same(t, ss) {
        return true;
    }
    // An empty key with Exists operator means match all keys & values.
    if t.key != ss.key && (!ss.key.is_empty() || &*ss.operator != "Exists") {
        return false;
    }
    // An empty effect means match all effects.
    if t.effect != ss.effect && !ss.effect.is_empty() {
        return false;
    }
    if &*ss.effect == "NoExecute"
        && let Some(limit) = ss.seconds
        && t.seconds.is_none_or(|s| s > limit)
    {
        return false;
    }
    match &*ss.operator {
        // An empty operator means Equal (for `ss`; `t` must say Equal).
        "Equal" | "" => &*t.operator == "Equal" && t.value == ss.value,
        "Exists" => true,
        _ => false,
    }
}

/// A toleration compared as `apiequality.Semantic.DeepEqual` compares it: every field,
/// `tolerationSeconds` included.
pub type Ident<'a> = (&'a str, &'a str, &'a str, &'a str, Option<i64>);

pub fn ident(t: &WorkloadToleration) -> Ident<'_> {
    (&t.key, &t.operator, &t.value, &t.effect, t.seconds)
}

/// Tolerations of one `Exists` (key, effect) or one `Equal` (key, effect, value): what
/// [`is_superset`] asks of a candidate superset beyond those fields is its `tolerationSeconds`
/// (only when its effect is `NoExecute`), so that is what a slot keeps.
#[derive(Default)]
struct Slot {
    total: usize,
    /// Members without `tolerationSeconds`.
    unlimited: usize,
    /// The longest `tolerationSeconds` of a member, and how many members have it.
    longest: Option<(i64, usize)>,
}

impl Slot {
    fn add(&mut self, seconds: Option<i64>) {
        self.total += 1;
        match (seconds, self.longest) {
            (None, _) => self.unlimited += 1,
            (Some(s), Some((l, n))) if s == l => self.longest = Some((l, n + 1)),
            (Some(s), Some((l, _))) if s < l => {}
            (Some(s), _) => self.longest = Some((s, 1)),
        }
    }

    /// Does a member other than `copies` exact copies of `t` cover `t`? (The members agree with
    /// `t` on key, effect, operator and value as far as [`is_superset`] asks; `no_execute`:
    /// the slot's effect is `NoExecute`, so `tolerationSeconds` counts.)
    fn covers(&self, t: &WorkloadToleration, no_execute: bool, copies: usize) -> bool {
        if !no_execute {
            return self.total > copies;
        }
        match t.seconds {
            // Only a member without a limit covers a toleration without one (and the copies
            // of `t` are among those).
            None => self.unlimited > copies,
            // A longer limit covers it; an equal one too, and the copies of `t` have that one.
            Some(s) => match self.longest {
                Some((l, _)) if l > s => true,
                Some((l, n)) if l == s => self.unlimited + n > copies,
                _ => self.unlimited > 0,
            },
        }
    }
}

/// Tolerations indexed for `merge.IsSuperset` questions: which of them covers a toleration is
/// a few hash lookups (the superset must have the toleration's key or the empty key with
/// `Exists`, its effect or none, and for `Equal` its value), not a scan of the list.
#[derive(Default)]
pub struct Supersets<'a> {
    /// `Exists` tolerations by (key, effect).
    exists: HashMap<(&'a str, &'a str), Slot>,
    /// `Equal` (or empty operator) tolerations by (key, effect, value).
    equal: HashMap<(&'a str, &'a str, &'a str), Slot>,
    /// Every toleration, by all its fields: a toleration covers an exact copy of itself
    /// whatever its operator.
    copies: HashMap<Ident<'a>, usize>,
}

impl<'a> Supersets<'a> {
    pub fn new(list: impl IntoIterator<Item = &'a WorkloadToleration>) -> Self {
        let mut s = Supersets::default();
        for t in list {
            s.insert(t);
        }
        s
    }

    pub fn insert(&mut self, t: &'a WorkloadToleration) {
        *self.copies.entry(ident(t)).or_default() += 1;
        match &*t.operator {
            "Exists" => self
                .exists
                .entry((&t.key, &t.effect))
                .or_default()
                .add(t.seconds),
            "Equal" | "" => self
                .equal
                .entry((&t.key, &t.effect, &t.value))
                .or_default()
                .add(t.seconds),
            // Any other operator covers nothing but its exact copies.
            _ => {}
        }
    }

    fn copies(&self, t: &WorkloadToleration) -> usize {
        self.copies.get(&ident(t)).copied().unwrap_or(0)
    }

    /// Does one of them cover `t` (`is_superset(one, t)`), an exact copy of `t` included?
    pub fn cover(&self, t: &WorkloadToleration) -> bool {
        self.copies(t) > 0 || self.structural(t, 0)
    }

    /// Does one of them that is not an exact copy of `t` cover it?
    pub fn cover_other(&self, t: &WorkloadToleration) -> bool {
        self.structural(t, self.copies(t))
    }

    /// A member covers `t` by the rules of [`is_superset`] past its first test (equality),
    /// not counting `copies` exact copies of `t`, which sit in `t`'s own slot.
    fn structural(&self, t: &WorkloadToleration, copies: usize) -> bool {
        let (key, effect) = (&*t.key, &*t.effect);
        // A superset has the key, or the empty key with `Exists`; the effect, or none.
        let keys: &[&str] = if key.is_empty() { &[""] } else { &[key, ""] };
        let effects: &[&str] = if effect.is_empty() {
            &[""]
        } else {
            &[effect, ""]
        };
        for &k in keys {
            for &e in effects {
                let own = k == key && e == effect;
                let no_execute = e == "NoExecute";
                if let Some(slot) = self.exists.get(&(k, e)) {
                    let c = if own && &*t.operator == "Exists" {
                        copies
                    } else {
                        0
                    };
                    if slot.covers(t, no_execute, c) {
                        return true;
                    }
                }
                // `Equal` covers only `Equal` with its value (and only under its own key).
                if k == key
                    && &*t.operator == "Equal"
                    && let Some(slot) = self.equal.get(&(k, e, &*t.value))
                {
                    let c = if own { copies } else { 0 };
                    if slot.covers(t, no_execute, c) {
                        return true;
                    }
                }
            }
        }
        false
    }
}

/// `merge.DoTolerationsMerge(first, second)` (`tolerations.MergeTolerations`): both lists in
/// order, without a toleration another one of them already covers (of two equal ones the
/// first stays). Upstream compares every pair; this gives the same list with an index
/// ([`Supersets`]) in two passes: backwards, which tolerations a later, different one covers
/// (upstream's second test); forwards, which of the others one kept before covers (its first).
pub fn merge(
    first: &[WorkloadToleration],
    second: &[WorkloadToleration],
) -> Vec<WorkloadToleration> {
    let all: Vec<&WorkloadToleration> = first.iter().chain(second).collect();
    let mut later = Supersets::default();
    let mut covered_later = vec![false; all.len()];
    for (i, t) in all.iter().enumerate().rev() {
        covered_later[i] = later.cover_other(t);
        later.insert(t);
    }
    let mut kept = Supersets::default();
    let mut merged: Vec<WorkloadToleration> = Vec::new();
    for (t, covered) in all.iter().zip(covered_later) {
        if covered || kept.cover(t) {
            continue;
        }
        kept.insert(t);
        merged.push((*t).clone());
    }
    merged
}

/// `tolerations.VerifyAgainstWhitelist`: every toleration is covered by one of the list's.
pub fn allowed_by(tolerations: &[WorkloadToleration], whitelist: &[WorkloadToleration]) -> bool {
    whitelist.is_empty() || first_not_allowed(tolerations, whitelist).is_none()
}

/// The first toleration `tolerations` has that no entry of `whitelist` covers (for messages).
pub fn first_not_allowed<'a>(
    tolerations: &'a [WorkloadToleration],
    whitelist: &[WorkloadToleration],
) -> Option<&'a WorkloadToleration> {
    let index = Supersets::new(whitelist);
    tolerations.iter().find(|t| !index.cover(t))
}

/// `helper.AddOrUpdateTolerationInPod`: a toleration with the same key, operator, value and
/// effect (`Toleration.MatchToleration`) is replaced by `tol` unless it is equal; without one,
/// `tol` is appended. Returns whether the list changed.
pub fn add_or_update(tolerations: &mut Vec<WorkloadToleration>, tol: WorkloadToleration) -> bool {
    let matches = |t: &WorkloadToleration| {
        t.key == tol.key
            && t.operator == tol.operator
            && t.value == tol.value
            && t.effect == tol.effect
    };
    if tolerations.iter().any(|t| matches(t) && same(t, &tol)) {
        return false;
    }
    let mut updated = false;
    for t in tolerations.iter_mut() {
        if matches(t) {
            *t = tol.clone();
            updated = true;
        }
    }
    if !updated {
        tolerations.push(tol);
    }
    true
}

/// [`add_or_update`] for each of `added` in turn, with the list's tolerations indexed by the
/// fields `Toleration.MatchToleration` compares (a scan per addition would be quadratic).
pub fn add_or_update_all(
    tolerations: &mut Vec<WorkloadToleration>,
    added: Vec<WorkloadToleration>,
) {
    type Match = (Arc<str>, Arc<str>, Arc<str>, Arc<str>);
    let fields = |t: &WorkloadToleration| -> Match {
        (
            t.key.clone(),
            t.operator.clone(),
            t.value.clone(),
            t.effect.clone(),
        )
    };
    let mut at: HashMap<Match, Vec<usize>> = HashMap::new();
    for (i, t) in tolerations.iter().enumerate() {
        at.entry(fields(t)).or_default().push(i);
    }
    for tol in added {
        let matching = at.entry(fields(&tol)).or_default();
        if matching.is_empty() {
            matching.push(tolerations.len());
            tolerations.push(tol);
        } else if !matching.iter().any(|&i| same(&tolerations[i], &tol)) {
            for &i in matching.iter() {
                tolerations[i] = tol.clone();
            }
        }
    }
}

/// A node selector as the plugins keep it: key to value, in key order.
pub type Selector = BTreeMap<String, String>;

/// `labels.ConvertSelectorToLabelsMap`: `k1=v1,k2=v2`, keys and values trimmed and validated
/// as label keys and values; `Err` with apimachinery's message (a field error without a path
/// renders its path as `<nil>`, a value's as `[key]`).
pub fn parse_selector(text: &str, settings: &Settings) -> Result<Selector, String> {
    let mut out = Selector::new();
    if text.is_empty() {
        return Ok(out);
    }
    for label in text.split(',') {
        let parts: Vec<&str> = label.split('=').collect();
        let [key, value] = parts.as_slice() else {
            // `fmt.Errorf("invalid selector: %s", l)` with `l` a []string.
            return Err(format!("invalid selector: [{}]", parts.join(" ")));
        };
        let key = key.trim();
        let errs = label_key_errors(key, settings);
        if !errs.is_empty() {
            return Err(invalid("<nil>", &go_quote(key), &errs.join("; ")));
        }
        let value = value.trim();
        let errs = label_value_errors(value, settings);
        if !errs.is_empty() {
            return Err(invalid(
                &format!("[{key}]"),
                &go_quote(value),
                &errs.join("; "),
            ));
        }
        out.insert(key.to_string(), value.to_string());
    }
    Ok(out)
}

/// `labels.Conflicts`: a key both have, with different values (the first in key order).
pub fn conflict<'a>(
    a: &'a Selector,
    b: &'a [(String, String)],
) -> Option<(&'a str, &'a str, &'a str)> {
    b.iter().find_map(|(k, v)| {
        a.get(k)
            .filter(|x| *x != v)
            .map(|x| (k.as_str(), x.as_str(), v.as_str()))
    })
}

/// `isSubset` of the PodNodeSelector plugin: every label of `sub` is in `whitelist` with the
/// same value (an empty whitelist allows everything).
pub fn is_subset(sub: &[(String, String)], whitelist: &Selector) -> bool {
    whitelist.is_empty() || sub.iter().all(|(k, v)| whitelist.get(k) == Some(v))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::util::intern;

    fn tol(
        key: &str,
        op: &str,
        value: &str,
        effect: &str,
        seconds: Option<i64>,
    ) -> WorkloadToleration {
        WorkloadToleration {
            key: intern(key),
            operator: intern(op),
            value: intern(value),
            effect: intern(effect),
            seconds,
            span: Default::default(),
            path: intern(""),
            scalars: Default::default(),
        }
    }

    fn shown(list: &[WorkloadToleration]) -> Vec<String> {
        list.iter()
            .map(|t| match t.seconds {
                Some(s) => format!("{}/{s}", t.display()),
                None => t.display(),
            })
            .collect()
    }

    /// The cases of `TestIsSuperset` (pkg/util/tolerations/tolerations_test.go).
    #[test]
    fn superset_rules() {
        let all = tol("", "Exists", "", "", None);
        let foo = tol("foo", "Exists", "", "", None);
        let foo_bar = tol("foo", "Equal", "bar", "", None);
        let foo_nosched = tol("foo", "Exists", "", "NoSchedule", None);
        let foo_bar_nosched = tol("foo", "Equal", "bar", "NoSchedule", None);
        let foo_noexec = tol("foo", "Exists", "", "NoExecute", None);
        let foo_noexec_10 = tol("foo", "Exists", "", "NoExecute", Some(10));
        let foo_noexec_0 = tol("foo", "Exists", "", "NoExecute", Some(0));
        let faz = tol("faz", "Exists", "", "NoSchedule", None);
        for t in [&foo, &foo_bar, &foo_nosched, &foo_noexec_10, &faz] {
            assert!(is_superset(&all, t));
        }
        assert!(is_superset(&foo, &foo_bar_nosched));
        assert!(!is_superset(&foo, &faz));
        assert!(is_superset(&foo_noexec, &foo_noexec_10));
        assert!(is_superset(&foo_noexec_10, &foo_noexec_0));
        assert!(!is_superset(&foo_noexec_10, &foo_noexec));
        assert!(!is_superset(&foo_nosched, &foo));
        assert!(is_superset(&foo_bar, &foo_bar_nosched));
        assert!(!is_superset(&foo_bar_nosched, &foo_bar));
        // An empty operator stands for Equal in the superset only.
        let foo_bar_empty_op = tol("foo", "", "bar", "", None);
        assert!(is_superset(&foo_bar_empty_op, &foo_bar));
        assert!(!is_superset(&foo_bar, &foo_bar_empty_op));
    }

    #[test]
    fn merge_keeps_supersets_in_order() {
        let pod = [
            tol("a", "Equal", "x", "NoSchedule", None),
            tol("b", "Exists", "", "", None),
        ];
        let extra = [
            tol("a", "Exists", "", "NoSchedule", None),
            tol("b", "Exists", "", "NoSchedule", None),
            tol("c", "Exists", "", "NoExecute", Some(30)),
        ];
        assert_eq!(
            shown(&merge(&pod, &extra)),
            ["b:*", "a:NoSchedule", "c:NoExecute/30"]
        );
        // Of two equal tolerations the first stays.
        let twice = [
            tol("a", "Exists", "", "", None),
            tol("a", "Exists", "", "", None),
        ];
        assert_eq!(shown(&merge(&twice, &[])), ["a:*"]);
        // A longer tolerationSeconds covers a shorter one.
        let short = [tol("n", "Exists", "", "NoExecute", Some(10))];
        let long = [tol("n", "Exists", "", "NoExecute", Some(300))];
        assert_eq!(shown(&merge(&short, &long)), ["n:NoExecute/300"]);
    }

    /// Upstream's `DoTolerationsMerge`, pair by pair: what [`merge`] must give.
    fn pairwise_merge(
        first: &[WorkloadToleration],
        second: &[WorkloadToleration],
    ) -> Vec<WorkloadToleration> {
        let all: Vec<&WorkloadToleration> = first.iter().chain(second).collect();
        let mut merged: Vec<WorkloadToleration> = Vec::new();
        for (i, t) in all.iter().enumerate() {
            if merged.iter().any(|t2| is_superset(t2, t)) {
                continue;
            }
            if all
                .iter()
                .skip(i + 1)
                .any(|t2| !same(t, t2) && is_superset(t2, t))
            {
                continue;
            }
            merged.push((*t).clone());
        }
        merged
    }

    /// Lists drawn from few keys, operators, values, effects and seconds (so that covers,
    /// copies and near-copies are frequent), merged with the index and pair by pair.
    #[test]
    fn merge_is_the_pairwise_merge() {
        let mut seed = 0x9e37_79b9_7f4a_7c15_u64;
        let mut next = |n: usize| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % n as u64) as usize
        };
        let keys = ["", "a", "b"];
        let ops = ["Exists", "Equal", "", "Lt"];
        let values = ["", "x", "y"];
        let effects = ["", "NoSchedule", "NoExecute", "PreferNoSchedule"];
        let seconds = [None, Some(0), Some(10), Some(300)];
        for round in 0..4000 {
            let mut list = |len: usize| -> Vec<WorkloadToleration> {
                (0..len)
                    .map(|_| {
                        tol(
                            keys[next(keys.len())],
                            ops[next(ops.len())],
                            values[next(values.len())],
                            effects[next(effects.len())],
                            seconds[next(seconds.len())],
                        )
                    })
                    .collect()
            };
            let (a, b) = (list(round % 9), list(round % 7));
            assert_eq!(
                shown(&merge(&a, &b)),
                shown(&pairwise_merge(&a, &b)),
                "{:?} + {:?}",
                shown(&a),
                shown(&b)
            );
            for t in a.iter().chain(&b) {
                let expected = b.iter().find(|w| is_superset(w, t)).is_some();
                assert_eq!(
                    Supersets::new(&b).cover(t),
                    expected,
                    "{} in {:?}",
                    t.display(),
                    shown(&b)
                );
            }
        }
    }

    #[test]
    fn whitelist_and_add_or_update() {
        let wl = [tol("dedicated", "Exists", "", "NoSchedule", None)];
        assert!(allowed_by(
            &[tol("dedicated", "Equal", "ml", "NoSchedule", None)],
            &wl
        ));
        assert!(!allowed_by(
            &[tol("dedicated", "Equal", "ml", "", None)],
            &wl
        ));
        assert!(allowed_by(&[], &wl));
        assert!(allowed_by(&[tol("x", "Exists", "", "", None)], &[]));

        let mut list = vec![tol("gpu", "Exists", "", "NoSchedule", None)];
        assert!(!add_or_update(
            &mut list,
            tol("gpu", "Exists", "", "NoSchedule", None)
        ));
        assert!(add_or_update(
            &mut list,
            tol("fpga", "Exists", "", "NoSchedule", None)
        ));
        assert_eq!(shown(&list), ["gpu:NoSchedule", "fpga:NoSchedule"]);
        // Same key, operator, value and effect but other seconds: replaced in place.
        let mut list = vec![tol("gpu", "Exists", "", "NoSchedule", Some(5))];
        assert!(add_or_update(
            &mut list,
            tol("gpu", "Exists", "", "NoSchedule", None)
        ));
        assert_eq!(shown(&list), ["gpu:NoSchedule"]);
    }

    #[test]
    fn selectors_parse_as_apimachinery_does() {
        let s = Settings::default();
        let ok = parse_selector(" env = prod ,tier=web", &s).expect("valid");
        assert_eq!(ok.get("env").map(String::as_str), Some("prod"));
        assert_eq!(ok.get("tier").map(String::as_str), Some("web"));
        assert!(parse_selector("", &s).expect("empty").is_empty());
        assert_eq!(
            parse_selector("env=prod,tier", &s).unwrap_err(),
            "invalid selector: [tier]"
        );
        assert_eq!(
            parse_selector("a=b=c", &s).unwrap_err(),
            "invalid selector: [a b c]"
        );
        let err = parse_selector("env=prod!", &s).unwrap_err();
        assert!(
            err.starts_with("[env]: Invalid value: \"prod!\": a valid label must be"),
            "{err}"
        );
        let err = parse_selector("bad key=x", &s).unwrap_err();
        assert!(
            err.starts_with("<nil>: Invalid value: \"bad key\": name part must"),
            "{err}"
        );
        let pod = vec![("env".to_string(), "dev".to_string())];
        assert_eq!(conflict(&ok, &pod), Some(("env", "prod", "dev")));
        assert!(is_subset(&pod, &Selector::new()));
        assert!(!is_subset(&pod, &ok));
    }
}
