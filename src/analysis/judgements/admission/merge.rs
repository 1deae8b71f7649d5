//! The merge rules the admission plugins share, as upstream writes them:
//! tolerations (`pkg/util/tolerations/tolerations.go` and `pkg/util/tolerations/merge/merge.go`
//! in kubernetes/kubernetes, `AddOrUpdateTolerationInPod` in `pkg/apis/core/helper/helpers.go`)
//! and node selectors written as annotation strings (`labels.ConvertSelectorToLabelsMap`,
//! `labels.Conflicts`, `labels.Merge` in apimachinery's `pkg/labels/labels.go`).

use std::collections::BTreeMap;

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

/// `merge.DoTolerationsMerge(first, second)` (`tolerations.MergeTolerations`): both lists in
/// order, without a toleration another one of them already covers (of two equal ones the
/// first stays).
pub fn merge(
    first: &[WorkloadToleration],
    second: &[WorkloadToleration],
) -> Vec<WorkloadToleration> {
    let all: Vec<&WorkloadToleration> = first.iter().chain(second).collect();
    let mut merged: Vec<WorkloadToleration> = Vec::with_capacity(all.len());
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

/// `tolerations.VerifyAgainstWhitelist`: every toleration is covered by one of the list's.
pub fn allowed_by(tolerations: &[WorkloadToleration], whitelist: &[WorkloadToleration]) -> bool {
    if whitelist.is_empty() || tolerations.is_empty() {
        return true;
    }
    tolerations
        .iter()
        .all(|t| whitelist.iter().any(|w| is_superset(w, t)))
}

/// The first toleration `tolerations` has that no entry of `whitelist` covers (for messages).
pub fn first_not_allowed<'a>(
    tolerations: &'a [WorkloadToleration],
    whitelist: &[WorkloadToleration],
) -> Option<&'a WorkloadToleration> {
    tolerations
        .iter()
        .find(|t| !whitelist.iter().any(|w| is_superset(w, t)))
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
