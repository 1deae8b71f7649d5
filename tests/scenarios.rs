//! Cross-reference scenarios: each folder of `testdata/scenarios/` (node pools from Nodes,
//! NodePools, eksctl, kubeadm and Inventory files, plus workloads) is checked by the real
//! binary with `--format json`, and the output is snapshotted. A folder may hold `args.txt`
//! (one argument a line) to replace the default argument, the folder itself. A few findings
//! that matter most are also asserted directly, so a bad snapshot cannot bless them away.
//! Update with `INSTA_UPDATE=always cargo test --test scenarios` and review the diff.

#![allow(clippy::unwrap_used)] // tests may unwrap

use std::path::Path;

mod common;
use common::cli::taintlint;

use serde_json::Value;

const SCENARIOS: &[&str] = &[
    "admission-ert",
    "admission-ert-off",
    "admission-namespace",
    "admission-namespace-off",
    "admission-openshift",
    "admission-openshift-off",
    "admission-runtimeclass",
    "affinity",
    "capi-sizes",
    "closed-topology",
    "cluster-eks-owned",
    "cluster-eksctl-apps",
    "cluster-folders",
    "cluster-inventory-merge",
    "cluster-inventory-terraform",
    "cluster-merge-unknown",
    "cluster-split-eksctl",
    "cluster-split-folders",
    "cluster-split-terraform",
    "cluster-split-tutorials",
    "clusters",
    "comparison-operators",
    "cordoned",
    "custom-resources",
    "daemonset-misses-pool",
    "effect-mismatch",
    "eksctl",
    "external-inventory",
    "found-pools",
    "gpu-dedicated",
    "instance-types",
    "karpenter",
    "kubeadm",
    "kueue-clusters",
    "kueue-flavors",
    "live-dump",
    "many-pools",
    "multi-taint",
    "near-miss",
    "nodename",
    "openshift-autoscaler",
    "openshift-machineset",
    "other-platform",
    "same-name-pools",
    "sibling-pools",
    "terraform",
    "terraform-aks",
    "terraform-duplicate-keys",
    "terraform-eks",
    "terraform-for-groups",
    "terraform-gke",
    "terraform-gke-facts",
    "terraform-json-overrides",
    "terraform-local-modules",
    "terraform-module-outputs",
    "terraform-modules",
    "terraform-sizes",
    "terraform-unknown",
    "terraform-values",
    "toleration-typo",
    "topology-spread",
    "unschedulable",
    "unused-pool",
    "vendored-pools",
];

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Runs the scenario; returns the exit code and the JSON report.
fn run(name: &str) -> (i32, String) {
    let dir = format!("testdata/scenarios/{name}");
    let args_file = root().join(&dir).join("args.txt");
    let extra: Vec<String> = match std::fs::read_to_string(&args_file) {
        Ok(text) => text
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .map(str::to_string)
            .collect(),
        Err(_) => vec![dir],
    };
    let mut args = vec!["check", "--format", "json"];
    args.extend(extra.iter().map(String::as_str));
    let r = taintlint(&args).run();
    assert!(r.stderr.is_empty(), "{name}: stderr: {}", r.stderr);
    (r.code, r.stdout)
}

fn findings(json: &str) -> Vec<Value> {
    let v: Value = serde_json::from_str(json).unwrap();
    v["findings"].as_array().unwrap().clone()
}

/// Findings of `rule` about the object named `object`.
fn about<'a>(all: &'a [Value], rule: &str, object: &str) -> Vec<&'a Value> {
    all.iter()
        .filter(|f| f["rule"] == rule && f["object"]["name"] == object)
        .collect()
}

fn message(f: &Value) -> &str {
    f["message"].as_str().unwrap()
}

#[test]
fn every_scenario_folder_is_listed() {
    let mut found: Vec<String> = std::fs::read_dir(root().join("testdata/scenarios"))
        .unwrap()
        .map(|e| e.unwrap())
        .filter(|e| e.file_type().unwrap().is_dir())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    found.sort();
    assert_eq!(found, SCENARIOS);
}

#[test]
fn snapshots() {
    for name in SCENARIOS {
        let (code, json) = run(name);
        // The binary's JSON is pretty already; parse it only to be sure it is JSON.
        serde_json::from_str::<Value>(&json).unwrap();
        insta::with_settings!({snapshot_suffix => *name, prepend_module_to_snapshot => false}, {
            insta::assert_snapshot!("scenario", format!("exit code: {code}\n{json}"));
        });
    }
}

/// Evidence of a cluster (`sources::clusters`): a value of a label key every pool of the
/// cluster the files define sets, and a taint key none has, are judged; keys no pool sets, a
/// pod pinned to a dedicated pool made elsewhere, and well-known labels are not.
#[test]
fn a_defined_cluster_judges_the_keys_its_pools_own() {
    let all = findings(&run("cluster-eks-owned").1);
    let renamed = about(&all, "unschedulable-workload", "renamed-value");
    assert_eq!(renamed.len(), 1, "{all:#?}");
    assert_eq!(renamed[0]["severity"], "warning");
    let help = renamed[0]["help"].as_str().unwrap();
    assert!(
        help.contains("`NodeGroupType`")
            && help.contains("`SparkComputeOptimized` (NodePool `compute`)"),
        "{help}"
    );
    assert_eq!(
        about(&all, "toleration-matches-no-taint", "stale-toleration").len(),
        1
    );
    // A key without a prefix that no pool of the cluster the Terraform root creates sets:
    // the user's own, on no node of these pools (nodeSelector, or an `Exists` requirement).
    for (name, required) in [
        ("unmentioned-key", "`disktype: ssd`"),
        ("exists-key", "label `fast-network`"),
    ] {
        let unset = about(&all, "unschedulable-workload", name);
        assert_eq!(unset.len(), 1, "{name}: {all:#?}");
        assert_eq!(unset[0]["severity"], "warning");
        let help = unset[0]["help"].as_str().unwrap();
        assert!(
            help.contains(&format!("the pod requires {required}"))
                && help.contains(
                    "the Terraform root `testdata/scenarios/cluster-eks-owned/infra` creates sets `"
                )
                && help.contains("without a prefix"),
            "{help}"
        );
    }
    for quiet in [
        "spark-ok",
        "dedicated-elsewhere",
        "instance-type",
        "prefixed-key",
        // Written as NodePool labels in a chart's values (a Terraform heredoc, a values file).
        "chart-pool-labels",
    ] {
        assert!(
            all.iter().all(|f| f["object"]["name"] != quiet),
            "{quiet}: {all:#?}"
        );
    }
    // The cluster of clusters/prod judges its own files, not dev's.
    let all = findings(&run("cluster-folders").1);
    let billing: Vec<&str> = all
        .iter()
        .filter(|f| f["rule"] == "unschedulable-workload")
        .map(|f| f["file"].as_str().unwrap())
        .collect();
    assert_eq!(
        billing,
        ["testdata/scenarios/cluster-folders/clusters/prod/apps.yaml"]
    );
    // A clusters/<name>/ folder does not create its cluster: a key no pool of it sets stays
    // unjudged, prefix or not.
    assert!(
        about(&all, "unschedulable-workload", "reports").is_empty(),
        "{all:#?}"
    );
    // An eksctl group's boot command registers labels and taints (`--node-labels`,
    // `--register-with-taints`).
    let all = findings(&run("cluster-eksctl-apps").1);
    assert!(
        all.iter().all(|f| f["object"]["name"] != "edge-proxy"),
        "{all:#?}"
    );
    let cache = about(&all, "unschedulable-workload", "edge-cache");
    assert_eq!(cache.len(), 1, "{all:#?}");
    assert!(message(cache[0]).contains("untolerated taint {edge: true}"));
}

/// A repository of tutorials: a cluster defined in one tutorial's `cluster/` folder holds that
/// tutorial (`cluster` names infrastructure) and not the tutorial beside it, whose workloads
/// are judged as files of no inferred cluster (no owned-key warning from another's pools).
#[test]
fn a_tutorials_cluster_holds_its_tutorial_only() {
    let all = findings(&run("cluster-split-tutorials").1);
    let wrong = about(&all, "unschedulable-workload", "train-wrong-accelerator");
    assert_eq!(wrong.len(), 1, "{all:#?}");
    assert!(message(wrong[0]).contains("tpu/get-started/cluster` creates"));
    for quiet in ["train-ok", "dws-v6e", "platform-web"] {
        assert!(
            all.iter().all(|f| f["object"]["name"] != quiet),
            "{quiet}: {all:#?}"
        );
    }
    let explain = |w: &str| {
        taintlint(&[
            "explain",
            "testdata/scenarios/cluster-split-tutorials",
            "--isolated",
            "--workload",
            w,
        ])
        .run()
        .stdout
    };
    let text = explain("Job/train-ok");
    assert!(
        text.contains("the files under `testdata/scenarios/cluster-split-tutorials/tpu/get-started/` belong to it (its definition's folder, grown up through the folders named for infrastructure)"),
        "{text}"
    );
    let text = explain("Job/dws-v6e");
    assert!(text.contains("this file lies in none of them"), "{text}");
    let text = explain("Deployment/platform-web");
    assert!(
        text.contains("the files under `testdata/scenarios/cluster-split-tutorials/gke-platform/` belong to it"),
        "{text}"
    );
}

/// Several clusters inferred in one repository (two Terraform roots, two eksctl configs,
/// `clusters/a` and `clusters/b`): each judges its own workloads against its own pools, and no
/// message names a pool, a label value or a taint of another.
#[test]
fn each_inferred_cluster_is_judged_alone() {
    let foreign: &[(&str, &[&str])] = &[
        (
            "cluster-split-terraform",
            &[
                "ml/",
                "spark/",
                "executors",
                "gpu",
                "aws_eks_node_group",
                "eks_managed",
            ],
        ),
        (
            "cluster-split-eksctl",
            &["shop/", "batch/", "web", "checkout", "workers"],
        ),
        (
            "cluster-split-folders",
            &["clusters/a", "clusters/b", "a-", "b-"],
        ),
    ];
    for (scenario, _) in foreign {
        let all = findings(&run(scenario).1);
        assert!(!all.is_empty(), "{scenario}");
        for f in &all {
            let file = f["file"].as_str().unwrap();
            // The stack the finding's file lies in, and the other stacks' marks.
            let (own, other): (&str, &[&str]) = match *scenario {
                "cluster-split-terraform" if file.contains("/spark/") => (
                    "spark",
                    &["/ml/", "aws_eks_node_group", "`system`", "`gpu` ("],
                ),
                "cluster-split-terraform" => (
                    "ml",
                    &[
                        "/spark/",
                        "eks_managed_node_groups",
                        "`core`",
                        "SparkExecutors` (",
                    ],
                ),
                "cluster-split-eksctl" if file.contains("/shop/") => {
                    ("shop", &["/batch/", "`workers`"])
                }
                "cluster-split-eksctl" => {
                    ("batch", &["/shop/", "managedNodeGroup `web`", "`checkout`"])
                }
                _ if file.contains("/clusters/a/") => ("a", &["clusters/b", "b-"]),
                _ => ("b", &["clusters/a", "a-general", "a-db"]),
            };
            let text = f.to_string();
            for mark in other {
                assert!(
                    !text.contains(mark),
                    "{scenario}: a finding of {own} names {mark}: {f:#}"
                );
            }
        }
    }
    let all = findings(&run("cluster-split-terraform").1);
    assert_eq!(
        about(&all, "unschedulable-workload", "spark-wrong-group").len(),
        1
    );
    assert_eq!(
        about(&all, "unschedulable-workload", "ml-wrong-group").len(),
        1
    );
    assert_eq!(
        about(&all, "toleration-matches-no-taint", "ml-stale-toleration").len(),
        1
    );
    for quiet in ["spark-ok", "ml-ok"] {
        assert!(all.iter().all(|f| f["object"]["name"] != quiet), "{quiet}");
    }
    let all = findings(&run("cluster-split-eksctl").1);
    let loose = about(&all, "dedicated-toleration-without-affinity", "shop-loose");
    assert_eq!(loose.len(), 1, "{all:#?}");
    assert!(message(loose[0]).contains("`web`"));
    assert_eq!(about(&all, "daemonset-misses-pools", "shop-agent").len(), 1);
    assert_eq!(
        about(&all, "unschedulable-workload", "batch-wrong-role").len(),
        1
    );
    let all = findings(&run("cluster-split-folders").1);
    assert_eq!(
        about(&all, "toleration-matches-no-taint", "b-stale").len(),
        1
    );
    // `explain` explains a workload in its own cluster, and says which.
    let explained = taintlint(&[
        "explain",
        "testdata/scenarios/cluster-split-terraform",
        "--isolated",
        "--workload",
        "Job/spark-wrong-group",
    ])
    .run();
    let text = &explained.stdout;
    assert!(
        text.contains("Cluster: the cluster the Terraform root `testdata/scenarios/cluster-split-terraform/spark/terraform` creates"),
        "{text}"
    );
    assert!(
        text.contains("Node pools: 0 of 2 can run this pod"),
        "{text}"
    );
    assert!(!text.contains("ml/terraform"), "{text}");
    // `matrix` draws one matrix per cluster, each with its own pools and workloads only.
    let drawn = taintlint(&[
        "matrix",
        "testdata/scenarios/cluster-split-eksctl",
        "--isolated",
        "--format",
        "json",
    ])
    .run();
    let doc: Value = serde_json::from_str(&drawn.stdout).unwrap();
    let clusters = doc["clusters"].as_array().unwrap();
    assert_eq!(clusters.len(), 2, "{doc:#}");
    for c in clusters {
        let pools = c["pools"].to_string();
        let workloads = c["workloads"].to_string();
        let shop = pools.contains("web");
        assert_eq!(shop, !pools.contains("workers"), "{c:#}");
        assert_eq!(shop, workloads.contains("shop-agent"), "{c:#}");
        assert_eq!(!shop, workloads.contains("batch-ok"), "{c:#}");
    }
}

/// Unknown is local: `merge(local.groups, var.extra)` keeps the known groups with their labels
/// and taints, and the `[*]` pool for what the variable may add absorbs no judgement of a key
/// the shown groups own, found in the tree or given with `--inventory`.
#[test]
fn a_merge_with_an_unknown_part_keeps_the_known_groups() {
    for (scenario, severity) in [
        ("cluster-merge-unknown", "warning"),
        ("cluster-inventory-merge", "error"),
    ] {
        let all = findings(&run(scenario).1);
        let renamed = about(&all, "unschedulable-workload", "renamed");
        assert_eq!(renamed.len(), 1, "{scenario}: {all:#?}");
        assert_eq!(renamed[0]["severity"], severity);
        assert_eq!(
            about(&all, "toleration-matches-no-taint", "stale-toleration").len(),
            1,
            "{scenario}: {all:#?}"
        );
        // A key without a prefix no shown group sets: the groups the variable adds may.
        for ok in ["spark-ok", "unshown-group-label"] {
            assert!(
                all.iter().all(|f| f["object"]["name"] != ok),
                "{scenario}: {ok}: {all:#?}"
            );
        }
    }
}

#[test]
fn dedicated_pool_without_selector_names_the_general_pool() {
    let all = findings(&run("gpu-dedicated").1);
    let loose = about(
        &all,
        "dedicated-toleration-without-affinity",
        "trainer-loose",
    );
    assert_eq!(loose.len(), 1, "{all:#?}");
    assert!(
        message(loose[0]).contains("general-1"),
        "{}",
        message(loose[0])
    );
    assert!(
        about(
            &all,
            "dedicated-toleration-without-affinity",
            "trainer-pinned"
        )
        .is_empty()
    );
    assert!(
        all.iter().all(|f| f["object"]["name"] != "trainer-pinned"),
        "{all:#?}"
    );
}

#[test]
fn many_pools_are_counted_not_listed() {
    let all = findings(&run("many-pools").1);
    let reports = about(&all, "unschedulable-workload", "reports");
    assert_eq!(reports.len(), 1, "{all:#?}");
    // Eight distinct taints: counted together, as the scheduler's summary would be too long.
    assert_eq!(
        message(reports[0]),
        "0/8 node pools found in the linted files can run this pod: 8 have an untolerated taint (8 different taints)"
    );
    // Groups of one instance type are told apart by their first node.
    let related = reports[0]["related"].as_array().unwrap();
    assert_eq!(related.len(), 1, "{related:#?}");
    assert_eq!(
        related[0]["message"],
        "taint `example.com/team=team-3:NoSchedule` of `node-06` (2 nodes) (and 7 more pools this pod does not select: see `taintlint explain`)"
    );
    let help = reports[0]["help"].as_str().unwrap();
    assert!(help.contains("`value: \"Team-3\"`"), "{help}");
    assert_eq!(reports[0]["fix"]["title"], "set `value: \"team-3\"`");
    // The toleration's own finding names the taint with the nearest value.
    let dead = about(&all, "toleration-matches-no-taint", "reports");
    assert_eq!(dead.len(), 1);
    assert!(
        dead[0]["help"].as_str().unwrap().starts_with(
            "did you mean the taint `example.com/team=team-3:NoSchedule` of `node-06`"
        ),
        "{:#?}",
        dead[0]
    );
    // Nothing nearer than another: no pool is named as meant for it, the help says where the
    // pools were found, and the first three pools are named, the rest counted.
    let stray = about(&all, "unschedulable-workload", "stray");
    let help = stray[0]["help"].as_str().unwrap();
    assert!(!help.contains("meant for"), "{help}");
    assert!(
        help.ends_with("; pools found in `testdata/scenarios/many-pools/nodes.yaml` (8); declare pools made elsewhere (by Terraform, a cloud CLI) with `--inventory`"),
        "{help}"
    );
    let related = stray[0]["related"].as_array().unwrap();
    assert_eq!(related.len(), 3);
    assert!(
        related[2]["message"]
            .as_str()
            .unwrap()
            .ends_with("(and 5 more pools: see `taintlint explain`)"),
        "{related:#?}"
    );
}

#[test]
fn workload_no_pool_admits() {
    let all = findings(&run("unschedulable").1);
    let scorer = about(&all, "unschedulable-workload", "batch-scorer");
    assert_eq!(scorer.len(), 1, "{all:#?}");
    // Pools merely found among the linted files: a warning that says so.
    assert_eq!(
        message(scorer[0]),
        "0/3 node pools found in the linted files can run this pod: 2 have untolerated taint {dedicated: ml}, 1 didn't match Pod's node affinity/selector"
    );
    assert_eq!(scorer[0]["severity"], "warning");
    let related = scorer[0]["related"].as_array().unwrap();
    assert!(
        related
            .iter()
            .all(|r| r["file"] == "testdata/scenarios/unschedulable/nodepools.yaml")
    );
    // The two pools its selector admits; the third is counted, not named.
    assert_eq!(related.len(), 2);
    assert!(
        related[1]["message"]
            .as_str()
            .unwrap()
            .ends_with("(and 1 more pool this pod does not select: see `taintlint explain`)"),
        "{related:#?}"
    );
    let inference = about(&all, "unschedulable-workload", "inference");
    assert_eq!(inference.len(), 1);
    assert_eq!(
        message(inference[0]),
        // Each pool counts once, by its first failing filter (taints before affinity); the
        // selector matching none of them is said too, as the first thing to fix.
        "0/3 node pools found in the linted files can run this pod: 2 have untolerated taint {dedicated: ml}, 1 didn't match Pod's node affinity/selector; those 2 also didn't match Pod's node affinity/selector"
    );
}

/// A pool is open to a pod only if it tolerates every taint of it: a toleration of one of a
/// twice-tainted pool's taints pins nothing; avoidance by preferred `NotIn` is not "prefers".
#[test]
fn several_taints_and_avoidance() {
    let all = findings(&run("multi-taint").1);
    let dedicated = |name: &str| about(&all, "dedicated-toleration-without-affinity", name);
    assert!(dedicated("gpu-half").is_empty(), "{all:#?}");
    assert_eq!(dedicated("gpu-both").len(), 2, "{all:#?}");
    let psql = dedicated("psql");
    assert_eq!(psql.len(), 1, "{all:#?}");
    assert_eq!(psql[0]["severity"], "info");
    let text = message(psql[0]);
    assert!(
        text.contains("avoids those nodes") && !text.contains("prefers"),
        "{text}"
    );
    let nothing = about(&all, "unschedulable-workload", "selects-nothing");
    assert_eq!(nothing.len(), 1, "{all:#?}");
    assert!(
        message(nothing[0]).ends_with("; those 2 also didn't match Pod's node affinity/selector"),
        "{}",
        message(nothing[0])
    );
}

/// Scheduler parity on a node dump: a hard spread or required pod affinity over a topology
/// label no node has, and `minDomains` above the number of domains.
#[test]
fn closed_world_topology() {
    let all = findings(&run("closed-topology").1);
    let zonal = about(&all, "unschedulable-workload", "zonal");
    assert_eq!(zonal.len(), 1, "{all:#?}");
    assert!(
        message(zonal[0]).ends_with(
            "can run this pod: 2 didn't match pod topology spread constraints (missing required label)"
        ),
        "{}",
        message(zonal[0])
    );
    let together = about(&all, "unschedulable-workload", "together");
    assert_eq!(together.len(), 1, "{all:#?}");
    assert!(message(together[0]).ends_with("2 didn't match pod affinity rules"));
    let racked = about(&all, "spread-counts-unreachable-domains", "racked");
    assert_eq!(racked.len(), 1, "{all:#?}");
    assert!(message(racked[0]).contains("2 of 4 replicas stay Pending"));
    assert!(
        all.iter().all(|f| f["object"]["name"] != "fine"),
        "{all:#?}"
    );
}

#[test]
fn typo_suggests_the_taint() {
    let all = findings(&run("toleration-typo").1);
    let typo = about(&all, "toleration-matches-no-taint", "cuda-typo");
    assert_eq!(typo.len(), 2, "{all:#?}");
    let gpus = typo
        .iter()
        .find(|f| message(f).contains("nvidia.com/gpus"))
        .unwrap();
    assert!(
        gpus["help"]
            .as_str()
            .unwrap()
            .contains("nvidia.com/gpu=present:NoSchedule")
    );
    assert_eq!(
        gpus["related"][0]["file"],
        "testdata/scenarios/toleration-typo/nodes.yaml"
    );
}

#[test]
fn nodename_checks_only_what_the_kubelet_checks() {
    let all = findings(&run("nodename").1);
    assert_eq!(
        about(&all, "nodename-untolerated-noexecute", "probe").len(),
        1
    );
    assert_eq!(about(&all, "nodename-bypasses-taint", "debug").len(), 1);
    for quiet in ["probe-tolerating", "elsewhere"] {
        assert!(
            all.iter().all(|f| f["object"]["name"] != quiet),
            "{quiet}: {all:#?}"
        );
    }
    // Pods bound by name bypass the scheduler: never reported as unschedulable.
    assert!(all.iter().all(|f| f["rule"] != "unschedulable-workload"));
}

#[test]
fn transient_taints_of_a_live_dump_do_not_block() {
    let all = findings(&run("live-dump").1);
    assert!(
        all.iter().all(|f| f["rule"] != "unschedulable-workload"),
        "{all:#?}"
    );
}

#[test]
fn affinity_operators() {
    let all = findings(&run("affinity").1);
    let unschedulable: Vec<&str> = all
        .iter()
        .filter(|f| f["rule"] == "unschedulable-workload")
        .map(|f| f["object"]["name"].as_str().unwrap())
        .collect();
    let mut got = unschedulable.clone();
    got.sort_unstable();
    assert_eq!(
        got,
        [
            "empty-term",
            "exists-absent-label",
            "expressions-anded",
            "lt-nothing",
            "match-fields-unknown",
            "notin-every-zone",
        ]
    );
}

#[test]
fn comparison_operators_with_the_gate() {
    let all = findings(&run("comparison-operators").1);
    let unschedulable: Vec<&str> = all
        .iter()
        .filter(|f| f["rule"] == "unschedulable-workload")
        .map(|f| f["object"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(unschedulable, ["below-every-sla"], "{all:#?}");
}

#[test]
fn kubeadm_taints_omitted_versus_empty() {
    let all = findings(&run("kubeadm").1);
    let unused: Vec<&str> = all
        .iter()
        .filter(|f| f["rule"] == "pool-tolerated-by-nothing")
        .map(message)
        .collect();
    assert!(
        unused.iter().any(|m| m.contains("`cp-1`")
            && m.contains("node-role.kubernetes.io/control-plane:NoSchedule")),
        "{unused:#?}"
    );
    assert!(
        unused.iter().all(|m| !m.contains("single-node")),
        "{unused:#?}"
    );
}

#[test]
fn karpenter_startup_taints_need_no_toleration() {
    let all = findings(&run("karpenter").1);
    let unschedulable: Vec<&str> = all
        .iter()
        .filter(|f| f["rule"] == "unschedulable-workload")
        .map(|f| f["object"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(unschedulable, ["gpu-etl", "pinned-typo"], "{all:#?}");
}

#[test]
fn karpenter_nodes_carry_their_nodepool_name() {
    // `karpenter.sh/nodepool` is the NodePool's name on its nodes, whatever the template says.
    let all = findings(&run("karpenter").1);
    let pinned: Vec<&Value> = all
        .iter()
        .filter(|f| f["object"]["name"] == "pinned" || f["object"]["name"] == "pinned-typo")
        .collect();
    assert_eq!(pinned.len(), 1, "{pinned:#?}");
    let message = pinned[0]["message"].as_str().unwrap();
    assert_eq!(pinned[0]["object"]["name"], "pinned-typo");
    assert!(
        message.contains("didn't match Pod's node affinity/selector"),
        "{message}"
    );
}

/// A declared inventory (`--inventory`) is the cluster: a workload none of its pools admits is
/// an error, and the message does not hedge.
#[test]
fn declared_inventory_keeps_errors() {
    let all = findings(&run("external-inventory").1);
    let unschedulable: Vec<&Value> = all
        .iter()
        .filter(|f| f["rule"] == "unschedulable-workload")
        .collect();
    assert_eq!(unschedulable.len(), 1, "{all:#?}");
    assert_eq!(unschedulable[0]["severity"], "error");
    assert!(message(unschedulable[0]).starts_with("0/3 node pools can run this pod: "));
}

/// Vendored code and test data below the linted folder are another cluster's: their Node is
/// no pool of this one, their pod is not judged against this cluster's pools, and their own
/// mistakes are still reported.
#[test]
fn vendored_and_test_trees_are_not_inventory() {
    let all = findings(&run("vendored-pools").1);
    let text = serde_json::to_string(&all).unwrap();
    assert!(!text.contains("fixture-node"), "{all:#?}");
    let lost = about(&all, "unschedulable-workload", "lost");
    assert_eq!(lost.len(), 1, "{all:#?}");
    assert!(message(lost[0]).starts_with("0/1 node pools found in the linted files"));
    assert!(about(&all, "unschedulable-workload", "e2e").is_empty());
    assert_eq!(about(&all, "toleration-exists-with-value", "e2e").len(), 1);
    assert!(about(&all, "unschedulable-workload", "trainer").is_empty());
}

/// With an inventory: soft placement (a preferred affinity on a label of the tainted pool) is
/// an info, and a pod that requests the extended resource named like the taint is pinned by
/// its request.
#[test]
fn soft_placement_and_extended_resources_with_an_inventory() {
    let all = findings(&run("gpu-dedicated").1);
    let prefers = about(
        &all,
        "dedicated-toleration-without-affinity",
        "trainer-prefers",
    );
    assert_eq!(prefers.len(), 1, "{all:#?}");
    assert_eq!(prefers[0]["severity"], "info");
    let loose = about(
        &all,
        "dedicated-toleration-without-affinity",
        "trainer-loose",
    );
    assert_eq!(loose[0]["severity"], "warning");
    assert!(about(&all, "dedicated-toleration-without-affinity", "inference").is_empty());
}

/// Node selection in custom resources (Zalando's `nodeAffinity` beside `tolerations`,
/// CloudNativePG's `affinity` type), Kueue ResourceFlavors as node pools whose tolerations are
/// lent, not a workload, and the capacity-type label of an eksctl managed Spot node group.
#[test]
fn custom_resources_flavors_and_managed_node_group_labels() {
    let all = findings(&run("custom-resources").1);
    for pinned in ["orders-db", "billing-db", "a100", "train", "batch-spot"] {
        let about_it: Vec<&Value> = all
            .iter()
            .filter(|f| f["object"]["name"] == pinned)
            .collect();
        assert!(about_it.is_empty(), "{pinned}: {about_it:#?}");
    }
    let loose = about(&all, "dedicated-toleration-without-affinity", "loose-db");
    assert_eq!(loose.len(), 1, "{all:#?}");
    assert_eq!(all.len(), 1, "{all:#?}");
}

/// Two NodePools with one name (one per environment) are alternatives: a message counts and
/// names the pool once.
#[test]
fn same_named_pools_are_named_once() {
    let all = findings(&run("same-name-pools").1);
    let web = about(&all, "unschedulable-workload", "web");
    assert_eq!(web.len(), 1, "{all:#?}");
    assert_eq!(
        message(web[0]),
        "0/1 node pools found in the linted files can run this pod: 1 has untolerated taint {nvidia.com/gpu: true}"
    );
    assert_eq!(web[0]["related"].as_array().unwrap().len(), 1);
    // A name is open to a DaemonSet when one of its pools is (as `explain` counts it).
    assert!(
        all.iter().all(|f| f["object"]["name"] != "gpu-agent"),
        "{all:#?}"
    );
}

/// `clusters:` in the config: each cluster's workloads are judged against its own pools (and
/// its `inventory:`), findings say their cluster, a file claimed twice and a glob that matches
/// nothing are config mistakes, and `--cluster` limits the run.
#[test]
fn clusters_are_judged_apart() {
    let all = findings(&run("clusters").1);
    let staging = about(&all, "unschedulable-workload", "trainer-staging");
    assert_eq!(staging.len(), 1, "{all:#?}");
    assert_eq!(staging[0]["cluster"], "staging");
    // A configured cluster is a declared inventory.
    assert_eq!(staging[0]["severity"], "error");
    assert_eq!(
        message(staging[0]),
        "0/2 node pools can run this pod: 2 have untolerated taint {env: staging}"
    );
    for r in staging[0]["related"].as_array().unwrap() {
        let file = r["file"].as_str().unwrap();
        assert!(!file.contains("/prod/"), "{file}");
    }
    // The prod overlay fits prod's pool; the base is in the default cluster, which has none.
    assert!(about(&all, "unschedulable-workload", "trainer-prod").is_empty());
    assert!(about(&all, "unschedulable-workload", "trainer").is_empty());
    let config: Vec<&str> = all
        .iter()
        .filter(|f| f["rule"] == "invalid-config")
        .map(message)
        .collect();
    assert_eq!(config.len(), 2, "{config:#?}");
    assert!(config[0].contains("both claim"), "{config:#?}");
    assert!(config[1].contains("matches no linted file"), "{config:#?}");
    // Only prod's files.
    let prod = taintlint(&[
        "check",
        "--format",
        "json",
        "--config",
        "testdata/scenarios/clusters/taintlint.yaml",
        "testdata/scenarios/clusters",
        "--cluster",
        "prod",
    ])
    .run();
    let prod = findings(&prod.stdout);
    assert!(prod.iter().all(|f| f["cluster"] != "staging"), "{prod:#?}");
    assert!(
        prod.iter().all(|f| f["rule"] == "invalid-config"),
        "{prod:#?}"
    );
    // An unknown cluster is a tool error.
    let bad = taintlint(&[
        "check",
        "--config",
        "testdata/scenarios/clusters/taintlint.yaml",
        "testdata/scenarios/clusters",
        "--cluster",
        "qa",
    ])
    .run();
    assert_eq!(bad.code, 2);
    assert!(bad.stderr.contains("no cluster `qa`"));
}

/// No config: the default cluster is every linted file, so pools in a sibling folder judge
/// the apps, and the findings say no cluster.
#[test]
fn default_cluster_with_pools_in_a_sibling_folder() {
    let all = findings(&run("sibling-pools").1);
    let trainer = about(&all, "unschedulable-workload", "trainer");
    assert_eq!(trainer.len(), 1, "{all:#?}");
    assert!(trainer[0]["cluster"].is_null());
    assert_eq!(
        trainer[0]["related"][0]["file"],
        "testdata/scenarios/sibling-pools/infra/karpenter/nodepools.yaml"
    );
    assert!(
        trainer[0]["help"]
            .as_str()
            .unwrap()
            .starts_with("the pool this pod is meant for is NodePool `gpu` (its selector picks it): toleration `nvidia.com/gpu=yes:NoSchedule` has `value: \"yes\"` where the taint `nvidia.com/gpu=true:NoSchedule` has `\"true\"`: set `value: \"true\"`"),
        "{:#?}",
        trainer[0]
    );
    assert!(about(&all, "unschedulable-workload", "trainer-ok").is_empty());
    // Linting the apps folder alone finds no pool: nothing to cross-reference.
    let apps = taintlint(&[
        "check",
        "--format",
        "json",
        "testdata/scenarios/sibling-pools/apps",
    ])
    .run();
    assert!(
        findings(&apps.stdout)
            .iter()
            .all(|f| f["rule"] != "unschedulable-workload")
    );
}

/// Pools merely found in the tree do not judge a pod that selects labels of a platform they do
/// not describe; a domain they use, and unprefixed keys, are judged.
#[test]
fn pods_of_another_platform_are_not_judged_against_found_pools() {
    let all = findings(&run("other-platform").1);
    for name in ["gke-inference", "gke-batch"] {
        assert!(
            about(&all, "unschedulable-workload", name).is_empty(),
            "{name}: {all:#?}"
        );
    }
    for name in ["old-group", "ssd"] {
        let f = about(&all, "unschedulable-workload", name);
        assert_eq!(f.len(), 1, "{name}: {all:#?}");
        assert_eq!(f[0]["severity"], "warning");
    }
    // Declared, the same pools are the cluster: the GKE pods are judged (and cannot run).
    let declared = taintlint(&[
        "check",
        "--format",
        "json",
        "--inventory",
        "testdata/scenarios/other-platform/eks/cluster.yaml",
        "testdata/scenarios/other-platform/gke",
    ])
    .run();
    let declared = findings(&declared.stdout);
    assert_eq!(
        about(&declared, "unschedulable-workload", "gke-inference")[0]["severity"],
        "error"
    );
}

/// A hard topology spread constraint's key filters out the nodes without it, like an
/// `Exists` requirement; soft constraints and the well-known keys every node has pin nothing.
#[test]
fn hard_topology_spread_pins_like_affinity() {
    let all = findings(&run("topology-spread").1);
    let loose = |name: &str| about(&all, "dedicated-toleration-without-affinity", name).len();
    assert_eq!(loose("split"), 0, "{all:#?}");
    assert_eq!(loose("soft-split"), 1, "{all:#?}");
    assert_eq!(loose("zonal"), 1, "{all:#?}");
    // A spread key no pool found here has names a topology they do not describe: not judged
    // against them; against declared pools, the pod fits nowhere.
    assert!(about(&all, "unschedulable-workload", "nowhere").is_empty());
    let declared = taintlint(&[
        "check",
        "--format",
        "json",
        "--inventory",
        "testdata/scenarios/topology-spread/nodepools.yaml",
        "testdata/scenarios/topology-spread/workloads.yaml",
    ])
    .run();
    let declared = findings(&declared.stdout);
    let nowhere = about(&declared, "unschedulable-workload", "nowhere");
    assert_eq!(nowhere.len(), 1, "{declared:#?}");
    assert_eq!(nowhere[0]["severity"], "error");
    // In the PodTopologySpread filter's words.
    assert_eq!(
        message(nowhere[0]),
        "0/3 node pools can run this pod: 2 have untolerated taint {intent: workload-split}, 1 didn't match pod topology spread constraints (missing required label)"
    );
}

/// NodePools applied by Terraform (`kubectl_manifest` heredocs) are part of the inventory, and
/// the heredocs are linted at their real positions, with no fix offered in a `.tf` file.
#[test]
fn terraform_heredocs_are_read() {
    let all = findings(&run("terraform").1);
    let bad = about(&all, "unschedulable-workload", "trainer-bad");
    assert_eq!(bad.len(), 1, "{all:#?}");
    assert_eq!(
        bad[0]["related"][0]["file"],
        "testdata/scenarios/terraform/infra/karpenter.tf"
    );
    assert_eq!(bad[0]["related"][0]["line"], 24);
    assert!(about(&all, "unschedulable-workload", "trainer").is_empty());
    let in_tf: Vec<&Value> = all
        .iter()
        .filter(|f| f["file"].as_str().unwrap().ends_with(".tf"))
        .collect();
    let rules: Vec<(&str, u64)> = in_tf
        .iter()
        .map(|f| (f["rule"].as_str().unwrap(), f["line"].as_u64().unwrap()))
        .collect();
    assert_eq!(
        rules,
        [
            ("template-not-rendered", 12),
            ("invalid-taint-value", 43),
            ("invalid-taint-effect", 44)
        ]
    );
    assert!(in_tf.iter().all(|f| f["fix"].is_null()));
    assert!(
        in_tf[0]["message"]
            .as_str()
            .unwrap()
            .contains("a Terraform template")
    );
}

/// A workload meant for a pool (its selector picks it) that misses the pool's taint by one
/// detail: the help names the pool, both values and the edit.
#[test]
fn near_misses_name_the_pool_and_the_edit() {
    let all = findings(&run("near-miss").1);
    let help = |name: &str| -> String {
        let f = about(&all, "unschedulable-workload", name);
        assert_eq!(f.len(), 1, "{name}: {all:#?}");
        f[0]["help"].as_str().unwrap().to_string()
    };
    let meant = "the pool this pod is meant for is NodePool `gpu` (its selector picks it): ";
    for name in ["value-typo", "effect-typo", "key-typo", "missing"] {
        assert!(help(name).starts_with(meant), "{name}: {}", help(name));
    }
    assert!(help("value-typo").contains(
        "toleration `nvidia.com/gpu=yes:NoSchedule` has `value: \"yes\"` where the taint `nvidia.com/gpu=true:NoSchedule` has `\"true\"`: set `value: \"true\"`"
    ));
    assert!(help("effect-typo").contains("has `effect: NoExecute` where the taint `nvidia.com/gpu=true:NoSchedule` is NoSchedule: set `effect: NoSchedule`"));
    assert!(help("key-typo").contains("toleration key `nvidia.com/gpus` is one typo from the taint's `nvidia.com/gpu`: set `key: nvidia.com/gpu`"));
    assert!(help("missing").contains(
        "add the toleration `{key: nvidia.com/gpu, operator: Equal, value: \"true\", effect: NoSchedule}`"
    ));
    // The mechanical ones come with an unsafe fix that edits exactly that scalar.
    let fix = |name: &str| about(&all, "unschedulable-workload", name)[0]["fix"].clone();
    for (name, line, replacement) in [
        ("value-typo", 14, "\"true\""),
        ("effect-typo", 28, "NoSchedule"),
        ("key-typo", 42, "nvidia.com/gpu"),
    ] {
        let f = fix(name);
        assert_eq!(f["applicability"], "unsafe", "{name}");
        let edits = f["edits"].as_array().unwrap();
        assert_eq!(edits.len(), 1, "{name}");
        assert_eq!(edits[0]["line"], line, "{name}");
        assert_eq!(edits[0]["replacement"], replacement, "{name}");
    }
    assert!(fix("missing").is_null());
}

/// Pools merely found in the tree judge only what they are evidence for (issue 27): a pod that
/// selects nothing, requires a label they do not have, wants another value of theirs, or
/// tolerates a taint none of them has is not judged; a near miss of what they declare (a key
/// typo, a value left out, a value one slip away) is a warning that names the pool and the
/// edit. A Kueue ResourceFlavor is no pool, a GPU request pins the pod, and the heuristic
/// still speaks for a taint no found pool has. Declared, the same pools are the cluster.
#[test]
fn found_pools_judge_only_what_they_are_evidence_for() {
    let all = findings(&run("found-pools").1);
    for quiet in [
        "plain",
        "aks",
        "other-value",
        "efa-plugin",
        "flavor-user",
        "gpu-sku",
    ] {
        for rule in ["unschedulable-workload", "toleration-matches-no-taint"] {
            assert!(about(&all, rule, quiet).is_empty(), "{quiet}: {all:#?}");
        }
    }
    assert!(about(&all, "dedicated-toleration-without-affinity", "gpu-sku").is_empty());
    assert_eq!(
        about(&all, "dedicated-toleration-without-affinity", "plain").len(),
        1,
        "{all:#?}"
    );
    for near in ["typo", "no-value"] {
        let dead = about(&all, "toleration-matches-no-taint", near);
        assert_eq!(dead.len(), 1, "{near}: {all:#?}");
        assert_eq!(about(&all, "unschedulable-workload", near).len(), 1);
    }
    let typo = about(&all, "unschedulable-workload", "typo");
    assert!(
        typo[0]["help"]
            .as_str()
            .unwrap()
            .contains("set `key: nvidia.com/gpu`"),
        "{typo:#?}"
    );
    let slip = about(&all, "unschedulable-workload", "slip");
    assert_eq!(slip.len(), 1, "{all:#?}");
    assert!(
        slip[0]["help"].as_str().unwrap().contains(
            "NodePool `gpu` (its labels but for a slip of one value): the pod requires `workload: GPU` where the pool has `workload: gpu`"
        ),
        "{slip:#?}"
    );
    // No pool comes from the ResourceFlavor.
    let text = serde_json::to_string(&all).unwrap();
    assert!(!text.contains("ResourceFlavor `a100`"), "{all:#?}");
    // Declared with `--inventory`, the same pools are the whole cluster: the quiet pods are
    // judged, as errors.
    let declared = taintlint(&[
        "check",
        "--format",
        "json",
        "--inventory",
        "testdata/scenarios/found-pools/pools.yaml",
        "testdata/scenarios/found-pools/workloads.yaml",
    ])
    .run();
    let declared = findings(&declared.stdout);
    for name in ["plain", "aks", "other-value"] {
        let f = about(&declared, "unschedulable-workload", name);
        assert_eq!(f.len(), 1, "{name}: {declared:#?}");
        assert_eq!(f[0]["severity"], "error");
    }
}

/// eksctl's instance types are its nodes' `node.kubernetes.io/instance-type` (issue 27); the
/// near-miss hint ranks the pools by how like the selected value theirs is.
#[test]
fn eksctl_instance_types_are_labels() {
    let eks = findings(&run("instance-types").1);
    // A group with no instance type has eksctl's default, m5.large.
    assert!(
        eks.iter().all(|f| f["object"]["name"] != "on-default-type"),
        "{eks:#?}"
    );
    assert_eq!(
        about(&eks, "unschedulable-workload", "not-default-type").len(),
        1
    );
    // eksctl's instance types are the nodes' `node.kubernetes.io/instance-type`; the hint
    // names the group with the most similar one, in `check` and in `explain` alike.
    let monitor = about(&eks, "unschedulable-workload", "neuron-monitor");
    assert_eq!(monitor.len(), 1, "{eks:#?}");
    assert!(
        monitor[0]["help"].as_str().unwrap().contains(
            "eksctl managedNodeGroup `inf2` (its labels but for a slip of one value): the pod requires `node.kubernetes.io/instance-type: inf2.48xlarge` where the pool has `node.kubernetes.io/instance-type: inf2.8xlarge`"
        ),
        "{monitor:#?}"
    );
    let explained = taintlint(&[
        "explain",
        "testdata/scenarios/instance-types",
        "--isolated",
        "--workload",
        "DaemonSet/neuron-monitor",
    ])
    .run();
    assert!(
        explained
            .stdout
            .contains("→ the pool this pod is meant for is eksctl managedNodeGroup `inf2`"),
        "{}",
        explained.stdout
    );
}

/// A Terraform scenario's apps with its `infra` folder declared (`--inventory`): the node
/// pools are the cluster.
fn declared_run(name: &str) -> Vec<Value> {
    let dir = format!("testdata/scenarios/{name}");
    let out = taintlint(&[
        "check",
        "--format",
        "json",
        "--isolated",
        &format!("{dir}/apps"),
        "--inventory",
        &format!("{dir}/infra"),
    ])
    .run();
    findings(&out.stdout)
}

/// Rules about one object: `(rule, object name)` pairs, sorted.
fn rules_by_object(all: &[Value]) -> Vec<(String, String)> {
    let mut v: Vec<(String, String)> = all
        .iter()
        .map(|f| {
            (
                f["rule"].as_str().unwrap_or("").to_string(),
                f["object"]["name"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect();
    v.sort();
    v
}

/// EKS node groups from `aws_eks_node_group` and terraform-aws-modules/eks: the `NO_EXECUTE`
/// taint against a `NoSchedule` toleration, a label value typo, a label no group has; the
/// labels EKS adds (`eks.amazonaws.com/capacityType`, a single instance type) admit pods.
#[test]
fn terraform_eks_node_groups() {
    let all = findings(&run("terraform-eks").1);
    let mismatch = about(&all, "toleration-effect-mismatch", "trainer");
    assert_eq!(mismatch.len(), 1, "{all:#?}");
    assert!(message(mismatch[0]).contains("Terraform `aws_eks_node_group.gpu`"));
    assert_eq!(about(&all, "unschedulable-workload", "nightly").len(), 1);
    // A label no group has (`disktype`): the root creates the cluster with these groups, and
    // a key without a prefix is the user's own (no node agent adds it), so no node has it:
    // a warning. Declared, the groups are the cluster: an error.
    let cache = about(&all, "unschedulable-workload", "cache");
    assert_eq!(cache.len(), 1, "{all:#?}");
    assert_eq!(cache[0]["severity"], "warning");
    let declared = declared_run("terraform-eks");
    let cache = about(&declared, "unschedulable-workload", "cache");
    assert_eq!(cache.len(), 1, "{declared:#?}");
    assert_eq!(cache[0]["severity"], "error");
    for ok in ["spot-batch", "web"] {
        assert!(
            all.iter().all(|f| f["object"]["name"] != ok),
            "{ok}: {all:#?}"
        );
    }
}

/// GKE: the GPU pool's provider taint (`nvidia.com/gpu=present:NoSchedule`) keeps off a pod
/// that does not request a GPU, and not one that does (ExtendedResourceToleration); the
/// module's `node_pools_labels`/`node_pools_taints` and GKE's Spot/preemptible labels.
#[test]
fn terraform_gke_node_pools() {
    let all = findings(&run("terraform-gke").1);
    let got = rules_by_object(&all);
    for ok in ["inference", "analytics"] {
        assert!(
            got.iter()
                .all(|(r, o)| o != ok || r == "tolerates-all-effects"),
            "{ok}: {got:?}"
        );
    }
    let pre = about(&all, "unschedulable-workload", "preprocess");
    assert_eq!(pre.len(), 1, "{got:?}");
    assert!(message(pre[0]).contains("nvidia.com/gpu: present"));
    assert_eq!(
        about(&all, "toleration-effect-mismatch", "nightly").len(),
        1
    );
    assert_eq!(about(&all, "unschedulable-workload", "web").len(), 1);
}

/// AKS: the Spot taint and the critical-addons-only system pool's taint are the provider's.
#[test]
fn terraform_aks_node_pools() {
    let all = findings(&run("terraform-aks").1);
    let nightly = about(&all, "unschedulable-workload", "nightly");
    assert_eq!(nightly.len(), 1, "{all:#?}");
    assert!(message(nightly[0]).contains("kubernetes.azure.com/scalesetpriority: spot"));
    assert!(
        all.iter().all(|f| f["object"]["name"] != "nightly-spot"),
        "{all:#?}"
    );
    assert!(
        about(&all, "unschedulable-workload", "addon").is_empty(),
        "{all:#?}"
    );
    // `agentpool: usr` is another value of a label found pools declare, not a slip of theirs
    // (too short to tell, issue 27); but the Terraform root creates the cluster and every
    // pool of it sets `agentpool` (issue 38): a warning naming the pools' values.
    let web = about(&all, "unschedulable-workload", "web");
    assert_eq!(web.len(), 1, "{all:#?}");
    assert_eq!(web[0]["severity"], "warning");
    assert!(
        web[0]["help"]
            .as_str()
            .unwrap()
            .contains("`user` (Terraform `azurerm_kubernetes_cluster_node_pool.user`)")
    );
    let declared = declared_run("terraform-aks");
    assert_eq!(
        about(&declared, "unschedulable-workload", "web").len(),
        1,
        "{declared:#?}"
    );
    // The `<<-EOT` heredoc whose first line is `---` is read as Terraform strips it.
    assert!(
        all.iter().all(|f| f["rule"] != "yaml-syntax-error"),
        "{all:#?}"
    );
    assert!(
        all.iter().all(|f| f["object"]["name"] != "frontend"),
        "{all:#?}"
    );
}

/// Values from variables, locals, `each`, function calls and `dynamic` blocks claim nothing.
#[test]
fn terraform_unknown_values_claim_nothing() {
    let (code, json) = run("terraform-unknown");
    assert!(findings(&json).is_empty(), "{json}");
    assert_eq!(code, 0);
}

/// Kueue: a workload whose queue leads, through files of the repository, to flavors none of
/// which Kueue can give it is reported once, on its queue-name label, with every flavor's
/// reason; chains the files do not show whole are not judged.
#[test]
fn kueue_workloads_no_flavor_fits() {
    let all = findings(&run("kueue-flavors").1);
    let gpu = about(&all, "kueue-no-flavor-fits", "train");
    assert_eq!(gpu.len(), 1, "{all:#?}");
    assert!(
        message(gpu[0])
            .contains("untolerated taint {nvidia.com/gpu present NoSchedule <nil>} in flavor a100"),
        "{}",
        message(gpu[0])
    );
    let reserved = about(&all, "kueue-no-flavor-fits", "reserved");
    assert_eq!(reserved.len(), 1, "{all:#?}");
    assert!(message(reserved[0]).contains(
        "flavor on-demand doesn't match node affinity, flavor spot doesn't match node affinity"
    ));
    for quiet in ["train-tolerant", "sweep", "shared", "elsewhere"] {
        assert!(
            about(&all, "kueue-no-flavor-fits", quiet).is_empty(),
            "{quiet}: {all:#?}"
        );
    }
}

/// Kueue objects belong to their configured cluster: the same Job is reported in the cluster
/// whose flavor it cannot use, not in the one whose flavor lends it the toleration.
#[test]
fn kueue_objects_stay_in_their_cluster() {
    let all = findings(&run("kueue-clusters").1);
    let found = about(&all, "kueue-no-flavor-fits", "train");
    assert_eq!(found.len(), 1, "{all:#?}");
    assert_eq!(found[0]["cluster"], "prod", "{all:#?}");
    assert!(
        found[0]["file"]
            .as_str()
            .unwrap()
            .ends_with("prod/job.yaml")
    );
}

/// OpenShift MachineSets are node pools: the node's labels and taints from
/// `spec.template.spec`, the size from the MachineAutoscaler's annotation; the worker role
/// every worker node carries does not aim a pod at them.
#[test]
fn openshift_machinesets_are_pools() {
    let all = findings(&run("openshift-machineset").1);
    let router = about(&all, "unschedulable-workload", "router");
    assert_eq!(router.len(), 1, "{all:#?}");
    assert!(
        router[0]["help"]
            .as_str()
            .unwrap()
            .contains("OpenShift MachineSet `ocp-infra-us-east-1a`"),
        "{:#?}",
        router[0]
    );
    assert_eq!(
        about(&all, "toleration-matches-no-taint", "router").len(),
        2
    );
    let inference = about(&all, "anti-affinity-exceeds-nodes", "inference");
    assert_eq!(inference.len(), 1, "{all:#?}");
    assert!(message(inference[0]).contains("have 2 nodes"));
    for quiet in ["registry", "web", "cache"] {
        assert!(
            all.iter().all(|f| f["object"]["name"] != quiet),
            "{quiet}: {all:#?}"
        );
    }
}

/// MachineAutoscalers size their MachineSets across files (in their namespace, over the
/// annotation); a MachineSet sized by `replicas` alone has no size among found files, but has
/// one in a declared inventory (a closed world: no autoscaler outside it).
#[test]
fn openshift_machine_autoscalers_size_across_files() {
    let all = findings(&run("openshift-autoscaler").1);
    let db = about(&all, "anti-affinity-exceeds-nodes", "db");
    assert_eq!(db.len(), 1, "{all:#?}");
    assert!(
        message(db[0]).contains("have 2 nodes"),
        "{}",
        message(db[0])
    );
    for quiet in ["web", "batch"] {
        assert!(
            all.iter().all(|f| f["object"]["name"] != quiet),
            "{quiet}: {all:#?}"
        );
    }
    let dir = "testdata/scenarios/openshift-autoscaler";
    let r = taintlint(&[
        "check",
        "--format",
        "json",
        &format!("{dir}/workloads.yaml"),
        "--inventory",
        &format!("{dir}/machinesets.yaml"),
    ])
    .run();
    assert!(r.stderr.is_empty(), "{}", r.stderr);
    let declared = findings(&r.stdout);
    for (name, nodes) in [("web", 2), ("batch", 2), ("db", 1)] {
        let f = about(&declared, "anti-affinity-exceeds-nodes", name);
        assert_eq!(f.len(), 1, "{name}: {declared:#?}");
        assert!(
            message(f[0]).contains(&format!("have {nodes} node")),
            "{}",
            message(f[0])
        );
    }
}

/// Cluster API sizes: both autoscaler annotations give the max, else `spec.replicas`.
#[test]
fn capi_sizes_from_autoscaler_annotations_else_replicas() {
    let all = findings(&run("capi-sizes").1);
    assert!(all.iter().all(|f| f["object"]["name"] != "api"), "{all:#?}");
    for (name, nodes) in [("queue", "2 nodes"), ("cron", "1 node")] {
        let f = about(&all, "anti-affinity-exceeds-nodes", name);
        assert_eq!(f.len(), 1, "{name}: {all:#?}");
        assert!(
            message(f[0]).contains(&format!("have {nodes}")),
            "{}",
            message(f[0])
        );
    }
}

/// EKS module groups from a `for` expression are pools that cannot be read: nothing rests on
/// their absence (no pod is unschedulable for want of a pool), the literal group is judged.
#[test]
fn terraform_for_groups_are_unknown_pools() {
    let all = findings(&run("terraform-for-groups").1);
    assert!(
        all.iter().all(|f| f["object"]["name"] != "trainer"),
        "{all:#?}"
    );
    assert!(
        about(&all, "unschedulable-workload", "frontend").is_empty(),
        "{all:#?}"
    );
    assert_eq!(
        about(&all, "toleration-effect-mismatch", "frontend").len(),
        1,
        "{all:#?}"
    );
}

/// The GKE module's own `node_pool` and `cluster_name` labels, and the EKS module's
/// self-managed group's kubelet flags, are what the pods are judged against.
#[test]
fn terraform_module_labels_and_self_managed_flags() {
    let all = findings(&run("terraform-modules").1);
    let web = about(&all, "unschedulable-workload", "web");
    assert_eq!(web.len(), 1, "{all:#?}");
    assert!(
        web[0]["help"]
            .as_str()
            .unwrap()
            .contains("`node_pools.general`"),
        "{:#?}",
        web[0]
    );
    assert_eq!(
        about(&all, "toleration-effect-mismatch", "crawler").len(),
        1,
        "{all:#?}"
    );
    for quiet in ["ingest", "indexer"] {
        assert!(
            all.iter().all(|f| f["object"]["name"] != quiet),
            "{quiet}: {all:#?}"
        );
    }
}

/// Node groups in Terraform's JSON syntax, their `for_each` from `terraform.tfvars.json`,
/// their `taint` blocks replaced by `override.tf`; a JSON string that is not a template is
/// reported where it is, the rest of the file read.
#[test]
fn terraform_json_and_override_files() {
    let (code, json) = run("terraform-json-overrides");
    assert_eq!(code, 1);
    let all = findings(&json);
    assert!(
        all.iter().all(|f| f["object"]["name"] != "trainer"),
        "{all:#?}"
    );
    let web = about(&all, "toleration-effect-mismatch", "web");
    assert_eq!(web.len(), 1, "{all:#?}");
    assert!(message(web[0]).contains(r#"Terraform `aws_eks_node_group.pool["web"]`"#));
    let syntax: Vec<&Value> = all
        .iter()
        .filter(|f| f["rule"] == "yaml-syntax-error")
        .collect();
    assert_eq!(syntax.len(), 1, "{all:#?}");
    assert_eq!(
        syntax[0]["file"],
        "testdata/scenarios/terraform-json-overrides/infra/main.tf.json"
    );
    assert_eq!(syntax[0]["line"], 22);
}

/// A node group's labels and taint from a local module's outputs; the module's `for`
/// expression that makes a key twice is Terraform's error, at its line.
#[test]
fn terraform_local_module_outputs() {
    let all = findings(&run("terraform-module-outputs").1);
    assert!(
        all.iter().all(|f| f["object"]["name"] != "search"),
        "{all:#?}"
    );
    assert_eq!(
        about(&all, "unschedulable-workload", "indexer").len(),
        1,
        "{all:#?}"
    );
    let dup: Vec<&Value> = all
        .iter()
        .filter(|f| f["rule"] == "duplicate-key")
        .collect();
    assert_eq!(dup.len(), 1, "{all:#?}");
    assert_eq!(dup[0]["severity"], "error");
    assert_eq!(
        dup[0]["file"],
        "testdata/scenarios/terraform-module-outputs/infra/modules/conventions/main.tf"
    );
    assert_eq!(dup[0]["line"], 28);
}

/// Pools per literal `for_each` key, copies of a literal `count`, and sizes from scaling
/// limits; an unknown `count` gives no size.
#[test]
fn terraform_instances_and_sizes() {
    let all = findings(&run("terraform-sizes").1);
    let search = about(&all, "anti-affinity-exceeds-nodes", "search");
    assert_eq!(search.len(), 1, "{all:#?}");
    assert!(message(search[0]).contains("have 3 nodes: 2 pods stay Pending"));
    let trainer = about(&all, "unschedulable-workload", "trainer");
    assert_eq!(trainer.len(), 1, "{all:#?}");
    assert!(
        trainer[0]["help"]
            .as_str()
            .unwrap()
            .contains(r#"`google_container_node_pool.pools["ml"]`"#)
    );
    for quiet in ["cache", "extra"] {
        assert!(
            all.iter().all(|f| f["object"]["name"] != quiet),
            "{quiet}: {all:#?}"
        );
    }
}

/// Given with `--inventory`, the MachineSets are the whole cluster: the pod none of them
/// admits is an error, and the worker-role pod has no untainted worker to go to.
#[test]
fn openshift_machinesets_declared() {
    let dir = "testdata/scenarios/openshift-machineset";
    let r = taintlint(&[
        "check",
        "--format",
        "json",
        &format!("{dir}/workloads.yaml"),
        "--inventory",
        &format!("{dir}/machinesets.yaml"),
    ])
    .run();
    assert!(r.stderr.is_empty(), "{}", r.stderr);
    let all = findings(&r.stdout);
    for name in ["router", "web", "cache"] {
        let f = about(&all, "unschedulable-workload", name);
        assert_eq!(f.len(), 1, "{name}: {all:#?}");
        assert_eq!(f[0]["severity"], "error");
    }
    assert!(about(&all, "unschedulable-workload", "registry").is_empty());
}

/// Admission: the exact rejection texts, the merged selectors and tolerations, and what the
/// scheduling rules then say; with the plugins off, the pods as written.
#[test]
fn admission_plugins_on_and_off() {
    let api = |f: &Value| f["api_error"].as_str().unwrap_or("").to_string();

    let all = findings(&run("admission-runtimeclass").1);
    let rejected = about(&all, "admission-rejected", "conflicting");
    assert_eq!(rejected.len(), 1, "{all:#?}");
    assert_eq!(
        api(rejected[0]),
        "pods is forbidden: conflict: runtimeClass.scheduling.nodeSelector[sandbox.gke.io/runtime] = gvisor; pod.spec.nodeSelector[sandbox.gke.io/runtime] = runc"
    );
    // A refused pod is not judged further; the admitted one runs on the sandbox nodes; the
    // unknown RuntimeClass changes nothing.
    assert!(about(&all, "unschedulable-workload", "conflicting").is_empty());
    assert!(
        all.iter().all(|f| f["object"]["name"] != "sandboxed"),
        "{all:#?}"
    );
    assert_eq!(about(&all, "unschedulable-workload", "kata").len(), 1);
    assert!(
        all.iter().all(
            |f| !(f["rule"] == "pool-tolerated-by-nothing" && message(f).contains("sandbox-1"))
        ),
        "the RuntimeClass's toleration uses the sandbox pool: {all:#?}"
    );

    let on = findings(&run("admission-ert").1);
    assert!(on.is_empty(), "{on:#?}");
    let off = findings(&run("admission-ert-off").1);
    assert_eq!(about(&off, "unschedulable-workload", "train").len(), 1);
    assert_eq!(about(&off, "unschedulable-workload", "flash").len(), 1);

    let on = findings(&run("admission-namespace").1);
    let dev = about(&on, "admission-rejected", "frontend-dev");
    assert_eq!(dev.len(), 1, "{on:#?}");
    assert_eq!(
        api(dev[0]),
        "pods is forbidden: pod node label selector conflicts with its namespace node label selector"
    );
    let locked = about(&on, "admission-rejected", "cleanup");
    assert_eq!(
        api(locked[0]),
        "pod tolerations (possibly merged with namespace default tolerations) conflict with its namespace whitelist"
    );
    let broken: Vec<&Value> = on
        .iter()
        .filter(|f| f["rule"] == "invalid-namespace-scheduling-annotation")
        .collect();
    assert_eq!(broken.len(), 1, "{on:#?}");
    assert_eq!(api(broken[0]), "invalid selector: [env]");
    // Judged after admission: the namespace's env=prod leaves the reporter no pool, the
    // namespace's default toleration lets etl onto the batch nodes; the broken namespace's
    // pod is not judged.
    assert_eq!(about(&on, "unschedulable-workload", "reporter").len(), 1);
    assert!(about(&on, "unschedulable-workload", "etl").is_empty());
    assert!(on.iter().all(|f| f["object"]["name"] != "app"), "{on:#?}");
    let off = findings(&run("admission-namespace-off").1);
    assert!(
        off.iter().all(|f| f["rule"] != "admission-rejected"
            && f["rule"] != "invalid-namespace-scheduling-annotation"),
        "{off:#?}"
    );
    assert!(about(&off, "unschedulable-workload", "reporter").is_empty());
    assert_eq!(about(&off, "unschedulable-workload", "etl").len(), 1);

    let on = findings(&run("admission-openshift").1);
    assert_eq!(
        api(about(&on, "admission-rejected", "special")[0]),
        "pods is forbidden: pod node label selector conflicts with its project node label selector"
    );
    assert_eq!(about(&on, "unschedulable-workload", "monitor").len(), 1);
    let off = findings(&run("admission-openshift-off").1);
    assert!(about(&off, "unschedulable-workload", "monitor").is_empty());
    assert!(
        off.iter().all(|f| f["rule"] != "admission-rejected"),
        "{off:#?}"
    );
}
