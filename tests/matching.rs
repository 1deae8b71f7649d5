//! Table-driven checks of toleration matching and node selection against the scheduler's
//! behaviour (SEMANTICS §3.1, §3.2, §4, §5.1, §9), through the public API.

#![allow(clippy::unwrap_used)] // tests may unwrap

mod common;

use common::{pool, req, taint, term, tol, workload};
use taintlint::analysis::judgements::schedule::{
    Reason, effective_tolerations, evaluate, selector_matches,
};
use taintlint::analysis::semantics::matching::{TaintRef, Tol, tolerates};

/// (key, operator, value, effect).
type TolTuple = (&'static str, &'static str, &'static str, &'static str);
/// (key, value, effect).
type TaintTuple = (&'static str, &'static str, &'static str);

#[test]
fn toleration_matching() {
    // (key, operator, value, effect) vs (key, value, effect), gate, expected.
    #[rustfmt::skip]
    let cases: &[(TolTuple, TaintTuple, bool, bool)] = &[
        // Equal with an empty value is not a wildcard (§9.5).
        (("dedicated", "Equal", "", "NoSchedule"), ("dedicated", "ml", "NoSchedule"), false, false),
        (("dedicated", "Equal", "", "NoSchedule"), ("dedicated", "", "NoSchedule"), false, true),
        // The empty operator is Equal.
        (("dedicated", "", "ml", "NoSchedule"), ("dedicated", "ml", "NoSchedule"), false, true),
        (("dedicated", "", "", "NoSchedule"), ("dedicated", "ml", "NoSchedule"), false, false),
        // An empty effect matches every effect.
        (("dedicated", "Equal", "ml", ""), ("dedicated", "ml", "NoExecute"), false, true),
        (("dedicated", "Equal", "ml", ""), ("dedicated", "ml", "PreferNoSchedule"), false, true),
        // A set effect must be equal.
        (("dedicated", "Equal", "ml", "NoSchedule"), ("dedicated", "ml", "NoExecute"), false, false),
        (("dedicated", "Exists", "", "NoExecute"), ("dedicated", "ml", "NoSchedule"), false, false),
        // Exists ignores the value; empty key + Exists matches everything.
        (("dedicated", "Exists", "", ""), ("dedicated", "anything", "NoExecute"), false, true),
        (("", "Exists", "", ""), ("any/key", "v", "NoSchedule"), false, true),
        (("", "Exists", "", "NoSchedule"), ("any/key", "v", "NoExecute"), false, false),
        // Exact, case-sensitive keys and values; operators are case-sensitive too.
        (("Dedicated", "Exists", "", ""), ("dedicated", "ml", "NoSchedule"), false, false),
        (("dedicated", "Equal", "ML", ""), ("dedicated", "ml", "NoSchedule"), false, false),
        (("dedicated", "exists", "", ""), ("dedicated", "ml", "NoSchedule"), false, false),
        // Lt/Gt: only with the gate; taint value compared with the toleration's; equal never.
        (("sla", "Gt", "900", "NoSchedule"), ("sla", "950", "NoSchedule"), false, false),
        (("sla", "Gt", "900", "NoSchedule"), ("sla", "950", "NoSchedule"), true, true),
        (("sla", "Gt", "950", "NoSchedule"), ("sla", "950", "NoSchedule"), true, false),
        (("sla", "Lt", "950", "NoSchedule"), ("sla", "900", "NoSchedule"), true, true),
        (("sla", "Lt", "950", "NoSchedule"), ("sla", "999", "NoSchedule"), true, false),
        // A taint value with a leading zero never satisfies Lt/Gt (§3.1).
        (("sla", "Gt", "900", "NoSchedule"), ("sla", "0950", "NoSchedule"), true, false),
        // Non-numeric values: no match.
        (("sla", "Gt", "900", "NoSchedule"), ("sla", "high", "NoSchedule"), true, false),
        (("sla", "Lt", "x", "NoSchedule"), ("sla", "1", "NoSchedule"), true, false),
        // Values beyond int64: no match.
        (("sla", "Lt", "99999999999999999999", ""), ("sla", "1", "NoSchedule"), true, false),
        (("sla", "Gt", "0", ""), ("sla", "0", "NoSchedule"), true, false),
        (("sla", "Gt", "0", ""), ("sla", "1", "NoSchedule"), true, true),
    ];
    for ((k, op, v, e), (tk, tv, te), gate, want) in cases {
        let t = Tol {
            key: k,
            operator: op,
            value: v,
            effect: e,
        };
        let n = TaintRef {
            key: tk,
            value: tv,
            effect: te,
        };
        assert_eq!(
            tolerates(&t, &n, *gate),
            *want,
            "{t:?} vs {n:?} (gate {gate})"
        );
    }
}

#[test]
fn affinity_operators() {
    let nodes = [
        pool(
            "a",
            &[("zone", "a"), ("gpus", "08"), ("disk", "ssd")],
            vec![],
            &["node-a"],
        ),
        pool("b", &[("zone", "b"), ("gpus", "2")], vec![], &["node-b"]),
        pool(
            "c",
            &[("zone", "c"), ("gpus", "+3"), ("spot", "true")],
            vec![],
            &["node-c"],
        ),
    ];
    #[rustfmt::skip]
    let cases: Vec<(&str, Vec<taintlint::analysis::types::Term>, [bool; 3])> = vec![
        ("In", vec![term(vec![req("zone", "In", &["a", "b"])], vec![])], [true, true, false]),
        ("NotIn matches nodes without the label", vec![term(vec![req("tier", "NotIn", &["x"])], vec![])], [true, true, true]),
        ("NotIn", vec![term(vec![req("zone", "NotIn", &["a"])], vec![])], [false, true, true]),
        ("Exists", vec![term(vec![req("spot", "Exists", &[])], vec![])], [false, false, true]),
        ("DoesNotExist matches nodes without the label", vec![term(vec![req("spot", "DoesNotExist", &[])], vec![])], [true, true, false]),
        // ParseInt accepts leading zeros and a sign on node labels (§5.1).
        ("Gt with leading zeros", vec![term(vec![req("gpus", "Gt", &["4"])], vec![])], [true, false, false]),
        ("Gt with a sign", vec![term(vec![req("gpus", "Gt", &["2"])], vec![])], [true, false, true]),
        ("Lt", vec![term(vec![req("gpus", "Lt", &["3"])], vec![])], [false, true, false]),
        ("Gt absent label", vec![term(vec![req("zone", "Gt", &["1"])], vec![])], [false, false, false]),
        ("Gt non-integer requirement", vec![term(vec![req("gpus", "Gt", &["x"])], vec![])], [false, false, false]),
        ("Gt two values", vec![term(vec![req("gpus", "Gt", &["1", "2"])], vec![])], [false, false, false]),
        ("empty term matches nothing", vec![term(vec![], vec![])], [false, false, false]),
        ("no terms match nothing", vec![], [false, false, false]),
        ("terms are ORed", vec![term(vec![req("zone", "In", &["a"])], vec![]), term(vec![req("zone", "In", &["c"])], vec![])], [true, false, true]),
        ("empty term ORed with a real one", vec![term(vec![], vec![]), term(vec![req("zone", "In", &["b"])], vec![])], [false, true, false]),
        ("expressions are ANDed", vec![term(vec![req("zone", "In", &["a", "b"]), req("disk", "Exists", &[])], vec![])], [true, false, false]),
        ("matchFields metadata.name In", vec![term(vec![], vec![req("metadata.name", "In", &["node-b"])])], [false, true, false]),
        ("matchFields metadata.name NotIn", vec![term(vec![], vec![req("metadata.name", "NotIn", &["node-b"])])], [true, false, true]),
        ("matchFields ANDed with expressions", vec![term(vec![req("zone", "In", &["a"])], vec![req("metadata.name", "In", &["node-b"])])], [false, false, false]),
        ("matchFields on another field", vec![term(vec![], vec![req("metadata.uid", "In", &["node-b"])])], [false, false, false]),
    ];
    for (what, terms, want) in cases {
        let mut w = workload(vec![]);
        w.terms = Some(terms.into());
        let got: Vec<bool> = nodes.iter().map(|p| selector_matches(&w, p)).collect();
        assert_eq!(got, want, "{what}");
    }
}

#[test]
fn node_selector_is_anded_with_affinity() {
    let nodes = [
        pool("a", &[("zone", "a"), ("disk", "ssd")], vec![], &["node-a"]),
        pool("b", &[("zone", "b"), ("disk", "ssd")], vec![], &["node-b"]),
    ];
    let mut w = workload(vec![]);
    w.node_selector = vec![("disk".into(), "ssd".into())];
    assert!(nodes.iter().all(|p| selector_matches(&w, p)));
    w.terms = Some(vec![term(vec![req("zone", "In", &["b"])], vec![])].into());
    let got: Vec<bool> = nodes.iter().map(|p| selector_matches(&w, p)).collect();
    assert_eq!(got, [false, true]);
    w.node_selector.push(("zone".into(), "a".into()));
    assert!(nodes.iter().all(|p| !selector_matches(&w, p)));
    // A selector entry must equal the label exactly; an empty value is a value.
    let mut w = workload(vec![]);
    w.node_selector = vec![("disk".into(), "".into())];
    assert!(nodes.iter().all(|p| !selector_matches(&w, p)));
}

fn has(tols: &[taintlint::analysis::types::WorkloadToleration], key: &str, effect: &str) -> bool {
    tols.iter()
        .any(|t| &*t.key == key && &*t.operator == "Exists" && &*t.effect == effect)
}

#[test]
fn daemonset_default_tolerations() {
    let mut w = workload(vec![]);
    w.daemonset = true;
    let tols = effective_tolerations(&w);
    for (key, effect) in [
        ("node.kubernetes.io/not-ready", "NoExecute"),
        ("node.kubernetes.io/unreachable", "NoExecute"),
        ("node.kubernetes.io/disk-pressure", "NoSchedule"),
        ("node.kubernetes.io/memory-pressure", "NoSchedule"),
        ("node.kubernetes.io/pid-pressure", "NoSchedule"),
        ("node.kubernetes.io/unschedulable", "NoSchedule"),
    ] {
        assert!(has(&tols, key, effect), "{key}:{effect} missing: {tols:#?}");
    }
    // Forever, not the 300 s of DefaultTolerationSeconds.
    assert!(tols.iter().all(|t| t.seconds.is_none()));
    assert!(!has(
        &tols,
        "node.kubernetes.io/network-unavailable",
        "NoSchedule"
    ));
    // hostNetwork adds network-unavailable.
    w.host_network = true;
    let tols = effective_tolerations(&w);
    assert!(has(
        &tols,
        "node.kubernetes.io/network-unavailable",
        "NoSchedule"
    ));
    // A DaemonSet pod goes on cordoned nodes.
    let mut cordoned = pool("old", &[], vec![], &["n1"]);
    cordoned.unschedulable = true;
    assert!(evaluate(&w, &tols, &cordoned, false).is_empty());
    // A plain pod does not.
    let pod = workload(vec![]);
    assert_eq!(
        evaluate(&pod, &effective_tolerations(&pod), &cordoned, false),
        [Reason::Unschedulable]
    );
}

#[test]
fn default_toleration_seconds() {
    // A plain pod gets not-ready and unreachable for 300 s.
    let tols = effective_tolerations(&workload(vec![]));
    assert_eq!(tols.len(), 2);
    assert!(
        tols.iter()
            .all(|t| t.seconds == Some(300) && &*t.effect == "NoExecute")
    );
    // Blocked by key + effect alone (§4.1): even a wrong-value Equal toleration.
    let tols = effective_tolerations(&workload(vec![tol(
        "node.kubernetes.io/not-ready",
        "Equal",
        "x",
        "NoExecute",
    )]));
    assert!(!has(&tols, "node.kubernetes.io/not-ready", "NoExecute"));
    assert!(has(&tols, "node.kubernetes.io/unreachable", "NoExecute"));
    // A NoSchedule not-ready toleration does not block the NoExecute default.
    let tols = effective_tolerations(&workload(vec![tol(
        "node.kubernetes.io/not-ready",
        "Exists",
        "",
        "NoSchedule",
    )]));
    assert!(has(&tols, "node.kubernetes.io/not-ready", "NoExecute"));
    // `operator: Exists` with no key blocks both.
    let tols = effective_tolerations(&workload(vec![tol("", "Exists", "", "")]));
    assert_eq!(tols.len(), 1);
}

#[test]
fn scheduler_filters() {
    let tainted = pool(
        "gpu",
        &[("pool", "gpu")],
        vec![
            taint("dedicated", "ml", "NoSchedule"),
            taint("spot", "", "PreferNoSchedule"),
            // Transient taints of a live dump do not block.
            taint("node.kubernetes.io/not-ready", "", "NoExecute"),
        ],
        &["gpu-1"],
    );
    let pod = workload(vec![]);
    assert_eq!(
        evaluate(&pod, &effective_tolerations(&pod), &tainted, false),
        [Reason::Taint(0)]
    );
    // PreferNoSchedule only scores; tolerationSeconds do not matter for filtering.
    let mut t = tol("dedicated", "Equal", "ml", "NoSchedule");
    t.seconds = Some(0);
    let pod = workload(vec![t]);
    assert!(evaluate(&pod, &effective_tolerations(&pod), &tainted, false).is_empty());
    // Untolerated taint and selector mismatch are both reported.
    let mut pod = workload(vec![tol("dedicated", "Equal", "gpu", "NoSchedule")]);
    pod.node_selector = vec![("pool".into(), "cpu".into())];
    assert_eq!(
        evaluate(&pod, &effective_tolerations(&pod), &tainted, false),
        [Reason::Taint(0), Reason::Selector]
    );
    // A startup taint needs no toleration.
    let mut startup = pool("np", &[], vec![taint("boot", "", "NoSchedule")], &[]);
    startup.taints[0].startup = true;
    let pod = workload(vec![]);
    assert!(evaluate(&pod, &effective_tolerations(&pod), &startup, false).is_empty());
}

#[test]
fn match_fields_are_checked_node_by_node() {
    // A pool of two nodes: `In [n1]` and `NotIn [n1]` in one term hold for no single node.
    let two = pool("pair", &[], vec![], &["n1", "n2"]);
    let mut w = workload(vec![]);
    w.terms = Some(
        vec![term(
            vec![],
            vec![
                req("metadata.name", "In", &["n1"]),
                req("metadata.name", "NotIn", &["n1"]),
            ],
        )]
        .into(),
    );
    assert!(!selector_matches(&w, &two));
    w.terms = Some(
        vec![term(
            vec![],
            vec![
                req("metadata.name", "In", &["n2"]),
                req("metadata.name", "NotIn", &["n1"]),
            ],
        )]
        .into(),
    );
    assert!(selector_matches(&w, &two));
}

/// The pool rule's users: one workload per scheduling signature, DaemonSets left out, and
/// the node names workloads are bound to; a file's users merged into the run's.
#[test]
fn pool_users_are_distinct_signatures_and_nodes() {
    use taintlint::rules::pool_tolerated_by_nothing::Users;
    let gpu = || workload(vec![tol("gpu", "Exists", "", "NoSchedule")]);
    let bound_to = |node: &str| {
        let mut w = gpu();
        w.node_name = Some((node.to_string(), Default::default()));
        w
    };
    let mut agent = bound_to("agent-node");
    agent.daemonset = true;
    let mut spot = gpu();
    spot.node_selector = vec![("capacity".into(), "spot".into())];

    let mut file = Users::default();
    file.add(&[gpu(), gpu(), agent.clone(), bound_to("gpu-1")]);
    assert_eq!(
        (file.signatures(), file.bound()),
        (1, 1),
        "the DaemonSet is left out"
    );
    let mut run = Users::default();
    run.add(&[gpu(), agent, bound_to("gpu-2")]);
    run.merge(file);
    assert_eq!((run.signatures(), run.bound()), (1, 2));
    run.add(&[spot, bound_to("gpu-1")]);
    assert_eq!(
        (run.signatures(), run.bound()),
        (2, 2),
        "another selector is another signature"
    );
}

/// A place stored in the spill store reads back as the same file and position; one that
/// cannot be read back gives nothing and makes the inventory report the failure.
#[test]
fn stored_places_read_back() {
    use std::sync::Arc;
    use taintlint::analysis::sources::inventory::Inventory;
    use taintlint::analysis::types::Place;
    use taintlint::engine::run::{SourceRecord, StoredSources};
    use taintlint::engine::store::Store;
    use taintlint::load::codec::encode;
    use taintlint::load::{SourceFile, Span};

    let text = "kind: NodePool\nmetadata:\n  name: gpu\n".to_string();
    let full = SourceFile::new("pools/gpu.yaml", text);
    let span = Span::new(33, 36);
    let lite = full.lite(vec![span.start, span.end]);
    let mut store = Store::new();
    let slot = store.put(&encode(&SourceRecord(lite)).unwrap());

    let mut inventory = Inventory::from_pools(vec![pool("gpu", &[], Vec::new(), &[])]);
    inventory.set_places(Box::new(StoredSources {
        store: Arc::new(store),
        files: Arc::new(vec![slot]),
    }));
    let loc = inventory.loc(&Place::Stored { file: 0, span }).unwrap();
    assert_eq!(&*loc.source.name, "pools/gpu.yaml");
    assert_eq!(loc.span, span);
    let at = loc.source.position(span.start);
    assert_eq!((at.line, at.column), (3, 9));
    assert_eq!(inventory.failure(), None);

    assert!(inventory.loc(&Place::Stored { file: 7, span }).is_none());
    assert!(inventory.failure().is_some());
}
