//! The engine (`src/engine/`) keeps each file's results as they are within its budget and
//! spills them past it, then runs the cross-reference file by file. `--fix`, `explain` and
//! `matrix` run it with an unlimited budget. Whatever the budget — everything kept (a huge
//! `TAINTLINT_SPILL_BUDGET`), the default, or every record to the temporary file at once
//! (`TAINTLINT_SPILL_BUDGET=0`) — a run must print the same bytes and exit alike, in every
//! format, over the real-world corpus (`testdata/corpus`), over the repository's fixtures and
//! over generated repositories of node pools and workloads.

mod common;

/// A budget no test run reaches: every result is kept as it is.
const KEEP_ALL: &str = "1000000000000";

fn run(args: &[&str], env: &[(&str, &str)]) -> (i32, Vec<u8>, String) {
    let r = common::cli::taintlint(args)
        .env("NO_COLOR", "1")
        .envs(env)
        .run();
    (r.code, r.stdout.into_bytes(), r.stderr)
}

fn same_three_ways(args: &[&str]) {
    let memory = run(args, &[("TAINTLINT_SPILL_BUDGET", KEEP_ALL)]);
    assert!(matches!(memory.0, 0 | 1), "{args:?}: {}", memory.2);
    for env in [&[][..], &[("TAINTLINT_SPILL_BUDGET", "0")][..]] {
        let streamed = run(args, env);
        assert_eq!(streamed.0, memory.0, "{args:?} {env:?}: exit status");
        assert!(
            streamed.1 == memory.1,
            "{args:?} {env:?}: output differs from the in-memory run"
        );
        assert_eq!(streamed.2, memory.2, "{args:?} {env:?}: stderr");
    }
}

#[test]
fn spilled_equals_kept_on_the_real_corpus() {
    for format in ["json", "human", "sarif"] {
        same_three_ways(&["check", "testdata/corpus", "--format", format, "--isolated"]);
    }
}

#[test]
fn spilled_equals_kept_on_fixtures() {
    for format in ["json", "human", "concise", "sarif", "github", "markdown"] {
        same_three_ways(&["check", "testdata", "--format", format, "--isolated"]);
    }
    // With the repository's own configuration (per-file ignores, severities), an external
    // inventory, and --fail-on levels.
    same_three_ways(&["check", "testdata/examples", "--format", "json"]);
    same_three_ways(&[
        "check",
        "testdata/scenarios",
        "--inventory",
        "testdata/scenarios/external-inventory/platform/inventory.yaml",
        "--format",
        "concise",
        "--isolated",
    ]);
    for level in ["warning", "info", "never"] {
        same_three_ways(&[
            "check",
            "testdata/rules",
            "--fail-on",
            level,
            "--format",
            "concise",
            "--isolated",
        ]);
    }
}

#[test]
fn without_a_writable_temporary_directory_records_stay_in_memory() {
    let args = ["check", "testdata/rules", "--format", "json", "--isolated"];
    let memory = run(&args, &[("TAINTLINT_SPILL_BUDGET", KEEP_ALL)]);
    let streamed = run(
        &args,
        &[
            ("TAINTLINT_SPILL_BUDGET", "0"),
            ("TMPDIR", "/nonexistent/taintlint-test"),
        ],
    );
    assert_eq!(streamed.0, memory.0, "{}", streamed.2);
    assert!(streamed.1 == memory.1, "output differs");
}

#[test]
fn spilled_applies_a_baseline_like_the_kept_run() {
    let dir = tempfile::tempdir().expect("tempdir");
    let baseline = dir.path().join("baseline.json");
    let baseline = baseline.to_string_lossy().into_owned();
    let (code, _, err) = run(
        &[
            "check",
            "testdata/examples",
            "--isolated",
            "--write-baseline",
            &baseline,
        ],
        &[],
    );
    assert_eq!(code, 0, "{err}");
    same_three_ways(&[
        "check",
        "testdata",
        "--isolated",
        "--baseline",
        &baseline,
        "--format",
        "json",
    ]);
}

#[test]
fn stdin_is_kept_in_memory_and_reported_alike() {
    let text = std::fs::read("testdata/examples/pod-debug.yaml").expect("fixture");
    let piped = |env: &[(&str, &str)]| {
        let r = common::cli::taintlint(&["check", "-", "testdata/examples", "--isolated"])
            .env("NO_COLOR", "1")
            .envs(env)
            .stdin(&text)
            .run();
        (Some(r.code), r.stdout.into_bytes())
    };
    let memory = piped(&[("TAINTLINT_SPILL_BUDGET", KEEP_ALL)]);
    let streamed = piped(&[("TAINTLINT_SPILL_BUDGET", "0")]);
    assert_eq!(memory.0, streamed.0);
    assert!(memory.1 == streamed.1, "stdin output differs");
    // The snippet of the stdin finding is there (its text was kept).
    assert!(String::from_utf8_lossy(&streamed.1).contains("<stdin>"));
}

mod generated {
    //! Random repositories of node pools and workloads, linted both ways: the cross-reference
    //! (stored places, pool usage from distinct signatures, output records, the levelled
    //! index) must not depend on how the run keeps its results.
    use proptest::prelude::*;
    use proptest::sample::select;

    const TAINTS: &[&str] = &[
        "{key: gpu, value: \"true\", effect: NoSchedule}",
        "{key: dedicated, value: infra, effect: NoExecute}",
        "{key: spot, effect: PreferNoSchedule}",
        "{key: node.kubernetes.io/not-ready, effect: NoExecute}",
    ];
    const TOLERATIONS: &[&str] = &[
        "{key: gpu, operator: Exists}",
        "{key: dedicated, operator: Equal, value: infra, effect: NoExecute, tolerationSeconds: 60}",
        "{key: dedicatd, operator: Exists}",
        "{operator: Exists}",
        "{key: spot, operator: Exists, effect: NoSchedule}",
    ];
    const SELECTORS: &[&str] = &[
        "karpenter.sh/nodepool: gpu",
        "karpenter.sh/nodepool: infra",
        "team: data",
        "alpha.eksctl.io/nodegroup-name: ng-1",
        "kubernetes.io/hostname: node-2",
    ];
    const POOLS: &[&str] = &["gpu", "infra", "batch"];
    const NODES: &[&str] = &["node-1", "node-2", "node-3"];

    fn list(items: &[&str]) -> String {
        format!("[{}]", items.join(", "))
    }

    #[derive(Debug, Clone)]
    enum Doc {
        NodePool(&'static str, Vec<&'static str>, bool),
        Node(&'static str, Vec<&'static str>, bool),
        Eksctl(Vec<&'static str>),
        Workload(
            &'static str,
            Vec<&'static str>,
            Option<&'static str>,
            Option<&'static str>,
        ),
    }

    fn doc() -> impl Strategy<Value = Doc> {
        let taints = proptest::collection::vec(select(TAINTS), 0..3);
        prop_oneof![
            (select(POOLS), taints.clone(), any::<bool>())
                .prop_map(|(n, t, labelled)| Doc::NodePool(n, t, labelled)),
            (select(NODES), taints.clone(), any::<bool>())
                .prop_map(|(n, t, cordoned)| Doc::Node(n, t, cordoned)),
            taints.prop_map(Doc::Eksctl),
            (
                select(&["Deployment", "DaemonSet", "Pod"][..]),
                proptest::collection::vec(select(TOLERATIONS), 0..3),
                proptest::option::of(select(SELECTORS)),
                proptest::option::of(select(NODES)),
            )
                .prop_map(|(k, t, s, n)| Doc::Workload(k, t, s, n)),
        ]
    }

    fn render(d: &Doc, i: usize) -> String {
        match d {
            Doc::NodePool(name, taints, labelled) => format!(
                "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata:\n  name: {name}\nspec:\n  template:\n    metadata:\n      labels: {{{}}}\n    spec:\n      taints: {}\n",
                if *labelled { "team: data" } else { "" },
                list(taints)
            ),
            Doc::Node(name, taints, cordoned) => format!(
                "apiVersion: v1\nkind: Node\nmetadata:\n  name: {name}\n  labels: {{kubernetes.io/hostname: {name}, team: data}}\nspec:\n  unschedulable: {cordoned}\n  taints: {}\n",
                list(taints)
            ),
            Doc::Eksctl(taints) => format!(
                "apiVersion: eksctl.io/v1alpha5\nkind: ClusterConfig\nmetadata:\n  name: c{i}\nmanagedNodeGroups:\n  - name: ng-1\n    taints: {}\n",
                list(taints)
            ),
            Doc::Workload(kind, tolerations, selector, node) => {
                let mut spec = format!(
                    "containers: [{{name: c, image: x}}]\n      tolerations: {}\n",
                    list(tolerations)
                );
                if let Some(s) = selector {
                    spec.push_str(&format!("      nodeSelector: {{{s}}}\n"));
                }
                if let (Some(n), "Pod") = (node, *kind) {
                    spec.push_str(&format!("      nodeName: {n}\n"));
                }
                if *kind == "Pod" {
                    format!(
                        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: w{i}\nspec:\n  {}",
                        spec.replace("\n      ", "\n  ")
                    )
                } else {
                    format!(
                        "apiVersion: apps/v1\nkind: {kind}\nmetadata:\n  name: w{i}\nspec:\n  selector: {{matchLabels: {{app: w}}}}\n  template:\n    metadata:\n      labels: {{app: w}}\n    spec:\n      {spec}"
                    )
                }
            }
        }
    }

    proptest! {
        // Up to 89 files: past 64 with the budget at 0, the index merges runs as they gather.
        #![proptest_config(ProptestConfig::with_cases(48))]

        #[test]
        fn spilled_equals_kept_on_generated_repositories(
            files in proptest::collection::vec(proptest::collection::vec(doc(), 1..4), 1..90)
        ) {
            let dir = tempfile::tempdir().unwrap();
            for (f, docs) in files.iter().enumerate() {
                let text: Vec<String> =
                    docs.iter().enumerate().map(|(d, doc)| render(doc, f * 10 + d)).collect();
                let sub = dir.path().join(format!("d{}", f % 3));
                std::fs::create_dir_all(&sub).unwrap();
                std::fs::write(sub.join(format!("f{f}.yaml")), text.join("---\n")).unwrap();
            }
            let path = dir.path().to_str().unwrap();
            for format in ["json", "human"] {
                super::same_three_ways(&["check", path, "--format", format, "--isolated"]);
            }
        }
    }
}
