//! Toleration matching exactly as `Toleration.ToleratesTaint` (k8s.io/api/core/v1/toleration.go),
//! and the containment relation between two tolerations that `shadowed-toleration` needs.

use super::validation::{go_parse_int10, is_canonical_int};

pub use crate::model::{TaintRef, Tol};

/// `ToleratesTaint`. `gate` is the calling component's `TaintTolerationComparisonOperators`.
pub fn tolerates(t: &Tol<'_>, taint: &TaintRef<'_>, gate: bool) -> bool {
    if !t.effect.is_empty() && t.effect != taint.effect {
        return false;
    }
    if !t.key.is_empty() && t.key != taint.key {
        return false;
    }
    match t.operator {
        "" | "Equal" => t.value == taint.value,
        "Exists" => true,
        "Lt" | "Gt" if gate => {
            let (Some(tv), Some(nv)) = (numeric(t.value), numeric(taint.value)) else {
                return false;
            };
            if t.operator == "Gt" { nv > tv } else { nv < tv }
        }
        _ => false,
    }
}

fn numeric(s: &str) -> Option<i64> {
    if !is_canonical_int(s) {
        return None;
    }
    go_parse_int10(s).ok()
}

/// Whether the operator and effect are ones the server accepts (only such tolerations are
/// compared).
pub fn is_well_formed(t: &Tol<'_>, gate: bool) -> bool {
    let op_ok = match t.operator {
        "" | "Equal" | "Exists" => true,
        "Lt" | "Gt" => gate,
        _ => false,
    };
    let effect_ok = matches!(
        t.effect,
        "" | "NoSchedule" | "PreferNoSchedule" | "NoExecute"
    );
    op_ok && effect_ok && (!t.key.is_empty() || t.operator == "Exists")
}

/// Does `a` match every taint `b` matches?
pub fn covers(a: &Tol<'_>, b: &Tol<'_>) -> bool {
    if !a.effect.is_empty() && a.effect != b.effect {
        return false;
    }
    if !a.key.is_empty() && a.key != b.key {
        return false;
    }
    match (a.operator, b.operator) {
        ("Exists", _) => true,
        ("" | "Equal", "" | "Equal") => a.value == b.value,
        // Lt/Gt thresholds: only an identical one is known to cover.
        ("Lt", "Lt") | ("Gt", "Gt") => a.value == b.value,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tol<'a>(key: &'a str, operator: &'a str, value: &'a str, effect: &'a str) -> Tol<'a> {
        Tol {
            key,
            operator,
            value,
            effect,
        }
    }

    fn taint<'a>(key: &'a str, value: &'a str, effect: &'a str) -> TaintRef<'a> {
        TaintRef { key, value, effect }
    }

    #[test]
    fn tolerates_taint_table() {
        // Cases after k8s.io/api core/v1 TestTolerationToleratesTaint.
        let cases = [
            (
                tol("foo", "Equal", "bar", "NoSchedule"),
                taint("foo", "bar", "NoSchedule"),
                true,
            ),
            (
                tol("foo", "Equal", "bar", ""),
                taint("foo", "bar", "NoExecute"),
                true,
            ),
            (
                tol("foo", "Equal", "bar", "NoSchedule"),
                taint("foo", "bar", "NoExecute"),
                false,
            ),
            (
                tol("foo", "Exists", "", "NoSchedule"),
                taint("foo", "anything", "NoSchedule"),
                true,
            ),
            (
                tol("foo", "Equal", "", "NoSchedule"),
                taint("foo", "bar", "NoSchedule"),
                false,
            ),
            (
                tol("foo", "", "bar", "NoSchedule"),
                taint("foo", "bar", "NoSchedule"),
                true,
            ),
            (
                tol("", "Exists", "", ""),
                taint("any", "thing", "NoExecute"),
                true,
            ),
            (
                tol("", "Exists", "", "NoSchedule"),
                taint("any", "thing", "NoExecute"),
                false,
            ),
            (
                tol("Foo", "Exists", "", ""),
                taint("foo", "", "NoSchedule"),
                false,
            ),
            (
                tol("foo", "exists", "", ""),
                taint("foo", "", "NoSchedule"),
                false,
            ),
        ];
        for (t, n, want) in cases {
            assert_eq!(tolerates(&t, &n, false), want, "{t:?} vs {n:?}");
        }
    }

    #[test]
    fn comparison_operators() {
        let gt = tol("sla", "Gt", "950", "NoSchedule");
        assert!(tolerates(&gt, &taint("sla", "999", "NoSchedule"), true));
        assert!(!tolerates(&gt, &taint("sla", "950", "NoSchedule"), true));
        assert!(!tolerates(&gt, &taint("sla", "0999", "NoSchedule"), true));
        assert!(!tolerates(&gt, &taint("sla", "999", "NoSchedule"), false));
        let lt = tol("sla", "Lt", "950", "NoSchedule");
        assert!(tolerates(&lt, &taint("sla", "100", "NoSchedule"), true));
    }

    #[test]
    fn containment() {
        assert!(covers(
            &tol("a", "Exists", "", "NoExecute"),
            &tol("a", "Exists", "", "NoExecute")
        ));
        assert!(covers(
            &tol("a", "Exists", "", ""),
            &tol("a", "Equal", "x", "NoSchedule")
        ));
        assert!(!covers(
            &tol("a", "Exists", "", "NoSchedule"),
            &tol("a", "Exists", "", "")
        ));
        assert!(!covers(
            &tol("a", "Equal", "x", ""),
            &tol("a", "Exists", "", "")
        ));
        assert!(covers(
            &tol("", "Exists", "", ""),
            &tol("b", "Equal", "y", "NoExecute")
        ));
    }
}
