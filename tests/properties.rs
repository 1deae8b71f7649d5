//! Property tests: toleration matching against a brute-force reference written from
//! SEMANTICS §3.1, and the grouped cross-reference (pools of identical nodes, workloads cached
//! by scheduling signature) against a naive evaluation of every workload on every node.

#![allow(clippy::unwrap_used)] // tests may unwrap

mod common;

use std::collections::BTreeMap;

use proptest::prelude::*;
use proptest::sample::select;

use common::{pool, req, source, taint, term, tol, workload};
use taintlint::analysis::judgements::schedule::{Evaluation, effective_tolerations, evaluate};
use taintlint::analysis::semantics::matching::{TaintRef, Tol, tolerates};
use taintlint::analysis::sources::inventory::Inventory;
use taintlint::analysis::types::Pool;
use taintlint::analysis::types::{
    LabelValues, NodeDecl, Place, PoolTaint, Requirement, TaintSpec, Term, Workload,
    WorkloadToleration,
};
use taintlint::load::{Loc, Span};
use taintlint::settings::Settings;

const KEYS: &[&str] = &["", "a", "b", "A", "node.kubernetes.io/not-ready"];
const OPERATORS: &[&str] = &["", "Equal", "Exists", "Lt", "Gt", "exists", "In"];
const VALUES: &[&str] = &[
    "",
    "x",
    "0",
    "1",
    "5",
    "01",
    "-1",
    "-0",
    "+5",
    "10",
    "9223372036854775807",
    "99999999999999999999",
];
const EFFECTS: &[&str] = &["", "NoSchedule", "NoExecute", "PreferNoSchedule"];

/// §1.6/§3.1: `"0"`, or an optional `-` then `[1-9][0-9]*`, and within int64.
fn reference_number(s: &str) -> Option<i128> {
    let digits = s.strip_prefix('-').unwrap_or(s);
    let canonical = s == "0"
        || (!digits.is_empty()
            && !digits.starts_with('0')
            && digits.chars().all(|c| c.is_ascii_digit()));
    if !canonical || digits.len() > 20 {
        return None;
    }
    let n: i128 = s.parse().ok()?;
    (i128::from(i64::MIN)..=i128::from(i64::MAX))
        .contains(&n)
        .then_some(n)
}

/// `ToleratesTaint`, step by step as SEMANTICS §3.1 writes it.
fn reference_tolerates(t: (&str, &str, &str, &str), n: (&str, &str, &str), gate: bool) -> bool {
    let (key, op, value, effect) = t;
    let (tkey, tvalue, teffect) = n;
    if !effect.is_empty() && effect != teffect {
        return false;
    }
    if !key.is_empty() && key != tkey {
        return false;
    }
    match op {
        "" | "Equal" => value == tvalue,
        "Exists" => true,
        "Lt" | "Gt" => {
            if !gate {
                return false;
            }
            match (reference_number(value), reference_number(tvalue)) {
                (Some(tv), Some(nv)) => {
                    if op == "Gt" {
                        nv > tv
                    } else {
                        nv < tv
                    }
                }
                _ => false,
            }
        }
        _ => false,
    }
}

fn s(v: &[&'static str]) -> impl Strategy<Value = &'static str> {
    select(v.to_vec())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn tolerates_matches_the_reference(
        key in s(KEYS), op in s(OPERATORS), value in s(VALUES), effect in s(EFFECTS),
        tkey in s(KEYS), tvalue in s(VALUES), teffect in s(EFFECTS),
        gate in any::<bool>(),
    ) {
        let t = Tol { key, operator: op, value, effect };
        let n = TaintRef { key: tkey, value: tvalue, effect: teffect };
        prop_assert_eq!(
            tolerates(&t, &n, gate),
            reference_tolerates((key, op, value, effect), (tkey, tvalue, teffect), gate)
        );
    }
}

// ---- grouped versus naive evaluation ----

const TAINT_KEYS: &[&str] = &["dedicated", "gpu", "sla", "node.kubernetes.io/not-ready"];
const TAINT_VALUES: &[&str] = &["", "ml", "5", "10"];
const LABEL_KEYS: &[&str] = &["zone", "pool", "gpus", "karpenter.sh/nodepool"];
const LABEL_VALUES: &[&str] = &["a", "b", "2", "08"];
const NODE_NAMES: &[&str] = &["n1", "n2", "n3", "n4", "n5"];

fn taint_spec() -> impl Strategy<Value = TaintSpec> {
    (s(TAINT_KEYS), s(TAINT_VALUES), s(&EFFECTS[1..])).prop_map(|(k, v, e)| taint(k, v, e))
}

fn toleration() -> impl Strategy<Value = WorkloadToleration> {
    (
        s(&[
            "",
            "dedicated",
            "gpu",
            "sla",
            "node.kubernetes.io/not-ready",
        ]),
        s(&["Equal", "Exists", "Gt", "Lt"]),
        s(TAINT_VALUES),
        s(EFFECTS),
        proptest::option::of(0i64..400),
    )
        .prop_map(|(k, op, v, e, seconds)| {
            let (k, op, v) = if k.is_empty() {
                (k, "Exists", "")
            } else {
                (k, op, v)
            };
            let mut t = tol(k, op, v, e);
            t.seconds = seconds;
            t
        })
}

fn requirement() -> impl Strategy<Value = Requirement> {
    (
        s(LABEL_KEYS),
        s(&["In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"]),
        proptest::collection::vec(s(LABEL_VALUES), 0..3),
    )
        .prop_map(|(k, op, vs)| req(k, op, &vs))
}

fn field() -> impl Strategy<Value = Requirement> {
    // Mostly the first two names, so that terms combine requirements on the same nodes.
    (s(&["In", "NotIn"]), s(&["n1", "n2", "n1", "n2", "n5"]))
        .prop_map(|(op, n)| req("metadata.name", op, &[n]))
}

fn node_term() -> impl Strategy<Value = Term> {
    (
        proptest::collection::vec(requirement(), 0..3),
        proptest::collection::vec(field(), 0..3),
    )
        .prop_map(|(e, f)| term(e, f))
}

fn a_workload() -> impl Strategy<Value = Workload> {
    (
        proptest::collection::vec(toleration(), 0..4),
        any::<bool>(),
        any::<bool>(),
        proptest::collection::vec((s(LABEL_KEYS), s(LABEL_VALUES)), 0..2),
        proptest::option::of(proptest::collection::vec(node_term(), 0..3)),
    )
        .prop_map(|(tols, daemonset, host_network, selector, terms)| {
            let mut w = workload(tols);
            w.daemonset = daemonset;
            w.host_network = host_network;
            w.node_selector = selector
                .into_iter()
                .map(|(k, v)| (k.into(), v.into()))
                .collect();
            w.terms = terms.map(Into::into);
            w
        })
}

fn labels() -> impl Strategy<Value = BTreeMap<String, LabelValues>> {
    proptest::collection::btree_map(
        s(LABEL_KEYS).prop_map(str::to_string),
        prop_oneof![
            4 => proptest::collection::vec(s(LABEL_VALUES).prop_map(str::to_string), 1..3)
                .prop_map(LabelValues::of),
            1 => Just(LabelValues::Any),
        ],
        0..3,
    )
}

fn a_pool() -> impl Strategy<Value = Pool> {
    (
        labels(),
        proptest::collection::vec((taint_spec(), any::<bool>()), 0..3),
        any::<bool>(),
        any::<bool>(),
        proptest::collection::vec(s(NODE_NAMES), 0..3),
    )
        .prop_map(|(labels, taints, unschedulable, open_labels, nodes)| {
            let mut p = pool("p", &[], vec![], &nodes);
            p.labels = labels.into_iter().collect();
            p.taints = taints
                .into_iter()
                .map(|(taint, startup)| PoolTaint {
                    taint: taint.shared(),
                    loc: None,
                    startup,
                })
                .collect();
            p.unschedulable = unschedulable;
            p.open_labels = open_labels;
            p
        })
}

fn admits(w: &Workload, p: &Pool, gate: bool) -> bool {
    evaluate(w, &effective_tolerations(w), p, gate).is_empty()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// `Evaluation::run` caches verdicts by scheduling signature; the cache must not change
    /// any verdict. Workloads are drawn from a few shapes so that signatures repeat, with
    /// what the signature leaves out (tolerationSeconds, nodeName) varied.
    #[test]
    fn cached_evaluation_equals_all_pairs(
        shapes in proptest::collection::vec(a_workload(), 1..4),
        picks in proptest::collection::vec((0usize..4, proptest::option::of(0i64..5), any::<bool>()), 1..10),
        pools in proptest::collection::vec(a_pool(), 0..4),
        gate in any::<bool>(),
    ) {
        let workloads: Vec<Workload> = picks
            .iter()
            .map(|(i, seconds, named)| {
                let mut w = shapes[i % shapes.len()].clone();
                for t in &mut w.tolerations {
                    t.seconds = t.seconds.map(|s| s + seconds.unwrap_or(0));
                }
                if *named {
                    w.node_name = Some(("n1".to_string(), Span::default()));
                }
                w
            })
            .collect();
        let inventory = Inventory::from_pools(pools);
        let settings = Settings { comparison_operators: gate, ..Settings::default() };
        let eval = Evaluation::run(&inventory, &workloads, &settings);
        prop_assert_eq!(eval.fits.len(), workloads.len());
        for (w, fits) in workloads.iter().zip(&eval.fits) {
            prop_assert_eq!(fits.len(), inventory.pools.len());
            for (i, p) in inventory.pools.iter().enumerate() {
                let want = evaluate(w, &effective_tolerations(w), p, gate);
                prop_assert_eq!(fits.admits(i), want.is_empty());
                prop_assert_eq!(fits.reasons(w, p), want);
            }
        }
    }

    /// Verdicts are computed once per class of pools that every workload sees alike
    /// (`PoolClasses`); pools here repeat a few shapes, with what the class leaves out
    /// (names, labels nobody selects) varied, so classes hold several pools.
    #[test]
    fn pool_classes_equal_all_pairs(
        workloads in proptest::collection::vec(a_workload(), 1..5),
        shapes in proptest::collection::vec(a_pool(), 1..4),
        picks in proptest::collection::vec((0usize..4, 0usize..3), 1..12),
        gate in any::<bool>(),
    ) {
        let pools: Vec<Pool> = picks
            .iter()
            .enumerate()
            .map(|(n, (i, extra))| {
                let mut p = shapes[i % shapes.len()].clone();
                p.name = format!("pool-{n}").into();
                p.labels.insert("unselected.example.com/rack", LabelValues::one(&extra.to_string()));
                p
            })
            .collect();
        let inventory = Inventory::from_pools(pools);
        let settings = Settings { comparison_operators: gate, ..Settings::default() };
        let eval = Evaluation::run(&inventory, &workloads, &settings);
        prop_assert!(eval.classes.len() <= shapes.len());
        for (w, fits) in workloads.iter().zip(&eval.fits) {
            for (i, p) in inventory.pools.iter().enumerate() {
                prop_assert_eq!(fits.admits(i), admits(w, p, gate), "pool {}", i);
            }
            prop_assert_eq!(fits.any(), inventory.pools.iter().any(|p| admits(w, p, gate)));
        }
    }

    /// Grouping Node objects into pools must not change where a pod can run: a pool admits a
    /// workload exactly when one of its nodes, evaluated alone, does.
    #[test]
    fn grouped_pools_equal_single_nodes(
        nodes in proptest::collection::vec(
            (
                // Few labels and taints, so that nodes often group.
                proptest::collection::btree_map(
                    s(&LABEL_KEYS[..2]).prop_map(str::to_string),
                    s(&LABEL_VALUES[..2]).prop_map(LabelValues::one),
                    0..2,
                ),
                proptest::collection::vec(taint_spec(), 0..2),
                any::<bool>(),
            ),
            1..6,
        ),
        workloads in proptest::collection::vec(a_workload(), 1..4),
        gate in any::<bool>(),
    ) {
        let decls: Vec<NodeDecl> = nodes
            .iter()
            .enumerate()
            .map(|(i, (labels, taints, unschedulable))| NodeDecl {
                origin: "Node",
                name: NODE_NAMES[i].to_string(),
                is_node: true,
                max_nodes: None,
                labels: labels.iter().map(|(k, v)| (k, v.clone())).collect(),
                        taints: taints
                    .iter()
                    .map(|t| PoolTaint { taint: t.clone().shared(), loc: None, startup: false })
                    .collect(),
                unschedulable: *unschedulable,
                open_labels: false,
                any_label: false,
                extended_resource_toleration: false,
                unknown_taints: Default::default(),
                scaling: None,
                loc: Place::Here(Loc { source: source(), span: Span::default() }),
                declared: false,
                terraform: None,
            })
            .collect();
        let inventory = Inventory::build(decls.clone(), &workloads);
        let pool_nodes: usize = inventory.pools.iter().map(|p| p.nodes.len()).sum();
        prop_assert_eq!(pool_nodes, decls.len());
        for w in &workloads {
            for p in &inventory.pools {
                let alone = p.nodes.iter().any(|name| {
                    let d = decls.iter().find(|d| &d.name == name).unwrap();
                    let mut single = pool(name, &[], vec![], &[name.as_str()]);
                    single.labels = d.labels.clone();
                    single.taints = d.taints.clone().into();
                    single.unschedulable = d.unschedulable;
                    admits(w, &single, gate)
                });
                prop_assert_eq!(admits(w, p, gate), alone, "pool {:?} nodes {:?}", p.name, p.nodes);
            }
        }
    }
}
