//! `taintlint explain` and `taintlint matrix` on the scenario folders: output snapshots,
//! workload selection by name and by FILE:LINE, and the error for an ambiguous request.

mod common;

fn run(args: &[&str]) -> (i32, String, String) {
    let r = common::cli::taintlint(args).run();
    (r.code, r.stdout, r.stderr)
}

#[test]
fn explain_by_name() {
    let (code, out, err) = run(&[
        "explain",
        "testdata/scenarios/gpu-dedicated",
        "--isolated",
        "--workload",
        "Deployment/ml/trainer-loose",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("Node pools: 2 of 3 can run this pod"), "{out}");
    assert!(out.contains("added by DefaultTolerationSeconds"), "{out}");
    insta::assert_snapshot!("explain_gpu_dedicated", out);
}

#[test]
fn explain_unschedulable_gives_every_reason() {
    let (code, out, err) = run(&[
        "explain",
        "testdata/scenarios/unschedulable",
        "--isolated",
        "--at",
        "testdata/scenarios/unschedulable/inference.yaml:5",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("0 of"), "{out}");
    assert!(out.contains("node(s) had untolerated taint"), "{out}");
    assert!(
        out.contains("node(s) didn't match Pod's node affinity/selector"),
        "{out}"
    );
    insta::assert_snapshot!("explain_unschedulable", out);
}

#[test]
fn explain_eviction_timing_and_daemonset_defaults() {
    let (code, out, err) = run(&[
        "explain",
        "testdata/scenarios/daemonset-misses-pool",
        "--isolated",
        "--workload",
        "DaemonSet/monitoring/node-exporter",
    ]);
    if code != 0 {
        // The scenario names its DaemonSet differently: list what is there.
        panic!("{err}");
    }
    assert!(out.contains("added by the DaemonSet controller"), "{out}");
    assert!(out.contains("Eviction when a node fails"), "{out}");
    assert!(out.contains("tolerated forever"), "{out}");
}

#[test]
fn explain_needs_a_workload_when_there_are_several() {
    let (code, _, err) = run(&["explain", "testdata/scenarios/gpu-dedicated", "--isolated"]);
    assert_eq!(code, 2);
    assert!(err.contains("--workload"), "{err}");
    assert!(err.contains("Deployment/ml/trainer-loose"), "{err}");
    let (code, _, err) = run(&[
        "explain",
        "testdata/scenarios/gpu-dedicated",
        "--isolated",
        "--workload",
        "Deployment/nope",
    ]);
    assert_eq!(code, 2);
    assert!(err.contains("no such workload"), "{err}");
}

#[test]
fn matrix_formats() {
    for format in ["table", "markdown", "mermaid"] {
        let (code, out, err) = run(&[
            "matrix",
            "testdata/scenarios/unschedulable",
            "--isolated",
            "--format",
            format,
        ]);
        assert_eq!(code, 0, "{err}");
        insta::assert_snapshot!(format!("matrix_{format}"), out);
    }
    let (_, out, _) = run(&["matrix", "testdata/examples/pod-debug.yaml", "--isolated"]);
    assert!(out.contains("No node pools are known"), "{out}");
}

/// A hard topology spread key is shown as what it is, not as a node-affinity requirement.
#[test]
fn explain_shows_topology_spread_keys() {
    let (code, out, err) = run(&[
        "explain",
        "testdata/scenarios/topology-spread",
        "--isolated",
        "--workload",
        "Deployment/split",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("  required node affinity: none\n"), "{out}");
    assert!(
        out.contains("  topology spread (DoNotSchedule) over capacity-spread: nodes without that label are filtered out\n"),
        "{out}"
    );
    assert!(out.contains("Node pools: 2 of 3 can run this pod"), "{out}");
}

/// A pool without a hard spread key is turned away in the PodTopologySpread filter's words.
#[test]
fn explain_names_the_topology_spread_filter() {
    let (code, out, err) = run(&[
        "explain",
        "testdata/scenarios/topology-spread/workloads.yaml",
        "--isolated",
        "--inventory",
        "testdata/scenarios/topology-spread/nodepools.yaml",
        "--workload",
        "Deployment/nowhere",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains(
            "node(s) didn't match pod topology spread constraints (missing required label)"
        ),
        "{out}"
    );
    assert!(
        !out.contains("didn't match Pod's node affinity/selector"),
        "{out}"
    );
}

/// `explain` counts and names the pools as `check` does (issue 27): one NodePool declared in
/// two files is one pool, counted and listed once.
#[test]
fn explain_counts_pools_as_check_does() {
    let (code, out, err) = run(&[
        "explain",
        "testdata/scenarios/same-name-pools",
        "--isolated",
        "--workload",
        "Deployment/web",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("Node pools: 0 of 1 can run this pod"), "{out}");
    assert_eq!(out.matches("NodePool `gpu` —").count(), 1, "{out}");
    let (_, check, _) = run(&[
        "check",
        "testdata/scenarios/same-name-pools",
        "--isolated",
        "--format",
        "concise",
    ]);
    assert!(check.contains("0/1 node pools"), "{check}");
}

#[test]
fn explain_shows_pod_affinity_and_the_domains_a_spread_counts() {
    let (code, out, err) = run(&[
        "explain",
        "testdata/rules/spread-counts-unreachable-domains/invalid.yaml",
        "--isolated",
        "--workload",
        "Deployment/web",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("spread over topology.kubernetes.io/zone (maxSkew 1, DoNotSchedule, nodeAffinityPolicy Honor, nodeTaintsPolicy Ignore): can reach a, b; also counts c, where it cannot run: at most 2 of 4 replicas schedule"),
        "{out}"
    );

    let (code, out, err) = run(&[
        "explain",
        "testdata/rules/pod-affinity-matches-nothing/invalid.yaml",
        "--isolated",
        "--workload",
        "Deployment/frontend/api",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("required pod affinity to `app=cache` per kubernetes.io/hostname: no linted workload makes such pods"),
        "{out}"
    );
    let (code, out, err) = run(&[
        "explain",
        "testdata/rules/pod-affinity-matches-nothing/valid.yaml",
        "--isolated",
        "--workload",
        "Deployment/data/web",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("pods of Deployment/data/cache"), "{out}");

    // The workload with none of these gets no such section.
    let (_, out, _) = run(&[
        "explain",
        "testdata/scenarios/gpu-dedicated",
        "--isolated",
        "--workload",
        "Deployment/ml/trainer-loose",
    ]);
    assert!(!out.contains("Pod affinity and spread"), "{out}");
}

/// The pod after admission, in a section of its own: which plugin added which toleration and
/// selector; the selector as written beside the merged one; a rejection with its message.
#[test]
fn explain_shows_the_pod_after_admission() {
    let (code, out, err) = run(&[
        "explain",
        "testdata/scenarios/admission-namespace",
        "--isolated",
        "--admission-plugin",
        "PodNodeSelector",
        "--admission-plugin",
        "PodTolerationRestriction",
        "--workload",
        "Job/batch/etl",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("Admission (the API server's plugins, before the scheduler):"),
        "{out}"
    );
    assert!(
        out.contains("PodNodeSelector              added nodeSelector env=batch"),
        "{out}"
    );
    assert!(out.contains("batch:NoSchedule                                       added by PodTolerationRestriction"), "{out}");
    assert!(
        out.contains("nodeSelector as written: {pool: batch}"),
        "{out}"
    );
    assert!(
        out.contains("nodeSelector after admission: {env: batch, pool: batch}"),
        "{out}"
    );
    assert!(out.contains("Node pools: 1 of 3 can run this pod"), "{out}");
    insta::assert_snapshot!("explain_admission_namespace", out);

    // Without the plugins: as written, and no admission section.
    let (_, off, _) = run(&[
        "explain",
        "testdata/scenarios/admission-namespace",
        "--isolated",
        "--workload",
        "Job/batch/etl",
    ]);
    assert!(!off.contains("Admission ("), "{off}");
    assert!(off.contains("Node pools: 0 of 3 can run this pod"), "{off}");

    let (_, rejected, _) = run(&[
        "explain",
        "testdata/scenarios/admission-runtimeclass",
        "--isolated",
        "--workload",
        "Deployment/apps/conflicting",
    ]);
    assert!(
        rejected.contains("RuntimeClass                 REJECTS the pod: pods is forbidden: conflict: runtimeClass.scheduling.nodeSelector[sandbox.gke.io/runtime] = gvisor; pod.spec.nodeSelector[sandbox.gke.io/runtime] = runc"),
        "{rejected}"
    );
}

/// `matrix` judges the pods after admission too.
#[test]
fn matrix_uses_the_pod_after_admission() {
    let (code, out, err) = run(&[
        "matrix",
        "testdata/scenarios/admission-ert",
        "--isolated",
        "--admission-plugin",
        "ExtendedResourceToleration",
        "--format",
        "json",
    ]);
    assert_eq!(code, 0, "{err}");
    let on: serde_json::Value = serde_json::from_str(&out).expect("json");
    let (_, out, _) = run(&[
        "matrix",
        "testdata/scenarios/admission-ert",
        "--isolated",
        "--format",
        "json",
    ]);
    let off: serde_json::Value = serde_json::from_str(&out).expect("json");
    assert_ne!(on, off, "ExtendedResourceToleration changes the verdicts");
    insta::assert_json_snapshot!("matrix_admission_ert", on);
}

/// `matrix` says what admission did per workload: the plugin's changes, and a rejected pod
/// fits no pool (JSON `rejected` reason and `admission.rejection`; table `rejected by`).
#[test]
fn matrix_shows_admission_per_workload() {
    let (code, out, err) = run(&[
        "matrix",
        "testdata/scenarios/admission-runtimeclass",
        "--isolated",
        "--format",
        "json",
    ]);
    assert_eq!(code, 0, "{err}");
    let doc: serde_json::Value = serde_json::from_str(&out).expect("json");
    let workloads = doc["workloads"].as_array().expect("workloads");
    let named = |name: &str| {
        workloads
            .iter()
            .find(|w| w["name"] == name)
            .unwrap_or_else(|| panic!("{name} in {out}"))
    };
    let sandboxed = &named("sandboxed")["admission"];
    assert_eq!(sandboxed["rejection"], serde_json::Value::Null, "{out}");
    let changes = sandboxed["changes"].as_array().expect("changes");
    assert!(
        changes
            .iter()
            .any(|c| c["plugin"] == "RuntimeClass" && c["action"] == "added"),
        "{out}"
    );
    let conflicting = named("conflicting");
    assert_eq!(
        conflicting["admission"]["rejection"]["plugin"],
        "RuntimeClass"
    );
    assert_eq!(
        conflicting["admission"]["rejection"]["api_error"],
        "pods is forbidden: conflict: runtimeClass.scheduling.nodeSelector[sandbox.gke.io/runtime] = gvisor; pod.spec.nodeSelector[sandbox.gke.io/runtime] = runc"
    );
    for verdict in conflicting["pools"].as_array().expect("pools") {
        assert_eq!(verdict["fits"], false, "{out}");
        assert_eq!(verdict["reasons"][0]["reason"], "rejected", "{out}");
    }
    // Untouched by admission: `null`.
    assert_eq!(named("kata")["admission"], serde_json::Value::Null, "{out}");

    let (_, table, _) = run(&[
        "matrix",
        "testdata/scenarios/admission-runtimeclass",
        "--isolated",
    ]);
    let row = table
        .lines()
        .find(|l| l.contains("conflicting"))
        .unwrap_or_else(|| panic!("{table}"));
    assert!(row.contains("no: rejected by RuntimeClass"), "{table}");
    assert!(!row.contains("yes"), "{table}");
    insta::assert_snapshot!("matrix_admission_runtimeclass", table);
}

#[test]
fn explain_kueue_queue_chain_and_flavors() {
    let explain = |workload: &str| {
        let (code, out, err) = run(&[
            "explain",
            "testdata/scenarios/kueue-flavors",
            "--isolated",
            "--workload",
            workload,
        ]);
        assert_eq!(code, 0, "{err}");
        out
    };
    let train = explain("Job/research/train");
    assert!(
        train.contains("LocalQueue research/gpu → ClusterQueue gpu"),
        "{train}"
    );
    assert!(
        train.contains("✗ flavor a100 — testdata/scenarios/kueue-flavors/cluster/flavors.yaml:32\n          untolerated taint {nvidia.com/gpu present NoSchedule <nil>} in flavor a100"),
        "{train}"
    );
    assert!(train.contains("→ never admitted"), "{train}");
    insta::assert_snapshot!("explain_kueue_no_flavor", train);

    // The JobSet's spot flavor fits and lends its toleration.
    let sweep = explain("JobSet/research/sweep");
    assert!(sweep.contains("✓ flavor spot"), "{sweep}");
    assert!(sweep.contains("adds nodeSelector {pool: spot}"), "{sweep}");
    assert!(
        sweep.contains("adds toleration spot=true:NoSchedule"),
        "{sweep}"
    );
    assert!(
        sweep.contains("flavor on-demand doesn't match node affinity"),
        "{sweep}"
    );
    assert!(sweep.contains("→ admissible"), "{sweep}");

    // Missing links: no verdict.
    let shared = explain("Job/research/shared");
    assert!(
        shared.contains("ClusterQueue shared-across-clusters, not in the linted files"),
        "{shared}"
    );
    let elsewhere = explain("Job/production/elsewhere");
    assert!(
        elsewhere.contains("LocalQueue production/gpu is not in the linted files"),
        "{elsewhere}"
    );

    // Not submitted to any queue: no Kueue section.
    let (_, plain, _) = run(&[
        "explain",
        "testdata/scenarios/gpu-dedicated",
        "--isolated",
        "--workload",
        "Deployment/ml/trainer-loose",
    ]);
    assert!(!plain.contains("Kueue"), "{plain}");
}

const KUEUE_FILES: &str = r#"apiVersion: kueue.x-k8s.io/v1beta1
kind: ResourceFlavor
metadata:
  name: tainted
spec:
  nodeTaints:
    - {key: dedicated, value: batch, effect: NoExecute}
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: ClusterQueue
metadata:
  name: cq
spec:
  resourceGroups:
    - coveredResources: [cpu]
      flavors:
        - name: tainted
          resources: [{name: cpu, nominalQuota: 10}]
    - coveredResources: [example.com/fpga]
      flavors:
        - name: tainted
          resources: [{name: example.com/fpga, nominalQuota: 4}]
        - name: elsewhere
          resources: [{name: example.com/fpga, nominalQuota: 4}]
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: LocalQueue
metadata:
  name: lq
  namespace: team
spec:
  clusterQueue: cq
---
apiVersion: batch/v1
kind: Job
metadata:
  name: fpga
  namespace: team
  labels:
    kueue.x-k8s.io/queue-name: lq
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
        - name: c
          image: c:1
          resources:
            requests: {cpu: "1", example.com/fpga: "1"}
"#;

#[test]
fn explain_kueue_says_what_the_rule_says() {
    let dir = tempfile::tempdir().expect("tempdir");
    let file = dir.path().join("kueue.yaml");
    std::fs::write(&file, KUEUE_FILES).expect("write");
    let path = file.to_string_lossy().to_string();
    let (code, out, err) = run(&[
        "explain",
        &path,
        "--isolated",
        "--workload",
        "Job/team/fpga",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("resource group [cpu], for cpu:"), "{out}");
    assert!(
        out.contains("? flavor elsewhere — not in the linted files (it may fit)"),
        "{out}"
    );
    assert!(
        out.contains("→ never admitted: no flavor of the group for cpu fits"),
        "{out}"
    );

    // The rule's related message is the line explain prints.
    let (_, json, _) = run(&["check", &path, "--isolated", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(&json).expect("json");
    let finding = v["findings"]
        .as_array()
        .and_then(|f| f.iter().find(|f| f["rule"] == "kueue-no-flavor-fits"))
        .expect("kueue-no-flavor-fits");
    let reason = finding["related"][0]["message"].as_str().expect("reason");
    assert_eq!(
        reason,
        "untolerated taint {dedicated batch NoExecute <nil>} in flavor tainted"
    );
    assert!(out.contains(&format!("          {reason}\n")), "{out}");

    // A second copy of the flavor (an overlay) without the taint: it may be the one applied.
    let both = format!(
        "{KUEUE_FILES}---\napiVersion: kueue.x-k8s.io/v1beta1\nkind: ResourceFlavor\nmetadata:\n  name: tainted\nspec: {{}}\n"
    );
    std::fs::write(&file, both).expect("write");
    let (_, out, _) = run(&[
        "explain",
        &path,
        "--isolated",
        "--workload",
        "Job/team/fpga",
    ]);
    assert!(out.contains("✓ flavor tainted"), "{out}");
    assert!(
        out.contains("adds nothing to the pods (no nodeLabels, no tolerations)"),
        "{out}"
    );
    assert!(
        out.contains("→ not known: a flavor is not in the linted files"),
        "{out}"
    );
}

#[test]
fn matrix_shows_kueue() {
    let (code, out, err) = run(&["matrix", "testdata/scenarios/kueue-flavors", "--isolated"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("KUEUE (ClusterQueue: flavors that fit)"),
        "{out}"
    );
    assert!(
        out.contains(
            "Job/research/train                                gpu: never admitted, no flavor for nvidia.com/gpu"
        ),
        "{out}"
    );
    assert!(
        out.contains("JobSet/research/sweep replicatedJob workers pods  general: spot"),
        "{out}"
    );
    assert!(out.contains("gpu: LocalQueue not in the files"), "{out}");
    let (_, json, _) = run(&[
        "matrix",
        "testdata/scenarios/kueue-flavors",
        "--isolated",
        "--format",
        "json",
    ]);
    let v: serde_json::Value = serde_json::from_str(&json).expect("json");
    let kueue: Vec<&str> = v["workloads"]
        .as_array()
        .expect("workloads")
        .iter()
        .map(|w| w["kueue"].as_str().unwrap_or("-"))
        .collect();
    assert_eq!(
        kueue,
        [
            "gpu: never admitted, no flavor for nvidia.com/gpu",
            "gpu: a100",
            "general: never admitted, no flavor for cpu",
            "general: spot",
            "shared-across-clusters: ClusterQueue not in the files",
            "gpu: LocalQueue not in the files"
        ]
    );
    // No queue, no column (nor key).
    let (_, plain, _) = run(&[
        "matrix",
        "testdata/scenarios/gpu-dedicated",
        "--isolated",
        "--format",
        "json",
    ]);
    assert!(!plain.contains("\"kueue\""), "{plain}");
}

#[test]
fn explain_lists_each_template_of_a_custom_resource() {
    let fixture = "testdata/rules/kueue-no-flavor-fits/invalid.yaml";
    let (code, _, err) = run(&["explain", fixture, "--isolated"]);
    assert_ne!(code, 0);
    assert!(
        err.contains("PyTorchJob/finetune Master pods (testdata/rules/kueue-no-flavor-fits/invalid.yaml:235) spec.pytorchReplicaSpecs.Master.template.spec"),
        "{err}"
    );
    assert!(
        err.contains("PyTorchJob/finetune Worker pods (testdata/rules/kueue-no-flavor-fits/invalid.yaml:235) spec.pytorchReplicaSpecs.Worker.template.spec"),
        "{err}"
    );
    let (code, out, err) = run(&[
        "explain",
        fixture,
        "--isolated",
        "--workload",
        "RayJob/tune",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("(spec.rayClusterSpec.headGroupSpec.template.spec)"),
        "{out}"
    );
    assert!(
        out.contains("(spec.rayClusterSpec.workerGroupSpecs[0].template.spec)"),
        "{out}"
    );
    assert_eq!(out.matches("→ never admitted").count(), 2, "{out}");
}

/// Issue 39: the workloads `explain` lists are written as `--workload` takes them
/// (`Kind/namespace/name`, `Kind/name` without a namespace), each of them explains, a list
/// past 20 says how many more there are, an empty label value shows as `""`, and each
/// eviction line names its taint once.
#[test]
fn explain_lists_workloads_as_workload_takes_them() {
    let dir = tempfile::tempdir().unwrap();
    let pod = |name: &str, ns: Option<&str>, spec: &str| {
        format!(
            "apiVersion: v1\nkind: Pod\nmetadata:\n  name: {name}\n{}spec:\n  containers: [{{name: a, image: a}}]\n{spec}---\n",
            ns.map_or(String::new(), |n| format!("  namespace: {n}\n"))
        )
    };
    let mut text = String::from(
        "apiVersion: v1\nkind: Node\nmetadata:\n  name: infra-1\n  labels: {node-role.kubernetes.io/infra: \"\"}\nspec:\n  taints: [{key: dedicated, value: infra, effect: NoExecute}]\n---\n",
    );
    text.push_str(&pod(
        "agent",
        None,
        "  nodeSelector: {node-role.kubernetes.io/infra: \"\"}\n  tolerations:\n    - {key: dedicated, operator: Exists}\n    - {key: node.kubernetes.io/not-ready, operator: Exists, effect: NoExecute, tolerationSeconds: 60}\n    - {operator: Exists, effect: NoExecute, tolerationSeconds: 30}\n",
    ));
    for i in 0..22 {
        text.push_str(&pod(&format!("web-{i:02}"), Some("shop"), ""));
    }
    std::fs::write(dir.path().join("all.yaml"), text).unwrap();
    let path = dir.path().to_str().unwrap();

    let (code, _, err) = run(&["explain", path, "--isolated"]);
    assert_eq!(code, 2, "{err}");
    let listed: Vec<&str> = err
        .lines()
        .filter_map(|l| l.strip_prefix("  "))
        .filter(|l| !l.starts_with('…'))
        .map(|l| l.split(" (").next().unwrap())
        .collect();
    assert_eq!(listed.len(), 20, "{err}");
    assert!(listed.contains(&"Pod/agent"), "{err}");
    assert!(listed.contains(&"Pod/shop/web-00"), "{err}");
    assert!(
        err.contains("… and 3 more (`taintlint matrix` lists them all)"),
        "{err}"
    );
    for w in &listed {
        let (code, out, err) = run(&["explain", path, "--isolated", "--workload", w]);
        assert_eq!(code, 0, "--workload {w}: {err}");
        assert!(out.starts_with(&format!("{w} — ")), "{out}");
    }

    let (code, out, err) = run(&["explain", path, "--isolated", "--workload", "Pod/agent"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("  nodeSelector: {node-role.kubernetes.io/infra: \"\"}\n"),
        "{out}"
    );
    let eviction = out.split("Eviction when a node fails:\n").nth(1).unwrap();
    assert_eq!(
        eviction,
        "  node.kubernetes.io/not-ready:NoExecute — evicted after 60s\n  \
         node.kubernetes.io/unreachable:NoExecute — evicted after 30s (tolerated by `*:NoExecute`)\n",
        "{out}"
    );
    for line in eviction.lines() {
        let taint = line.trim().split(' ').next().unwrap();
        assert_eq!(line.matches(taint).count(), 1, "{line}");
    }
    // A pool's NoExecute taint tolerated by a toleration written otherwise names it.
    assert!(
        out.contains(
            "NoExecute taint `dedicated=infra:NoExecute`: tolerated forever by `dedicated:*`"
        ),
        "{out}"
    );
}

/// Terraform pools as evaluated (issue 35): the groups of `merge(local.default_node_groups,
/// var.managed_node_groups)` by name with their labels and taints, a group from a `for` over a
/// `*.auto.tfvars` map, a `for_each` over a local map, what is unknown and why; and pools of a
/// local module named by module address, at the module's lines.
#[test]
fn explain_lists_terraform_pools_with_labels_taints_and_unknowns() {
    let (code, out, err) = run(&[
        "explain",
        "testdata/scenarios/terraform-values",
        "--isolated",
        "--workload",
        "Deployment/metrics",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("Terraform node pools, as `terraform plan` knows them"),
        "{out}"
    );
    for want in [
        "Terraform module `eks_managed_node_groups.core_node_group` — testdata/scenarios/terraform-values/infra/main.tf:",
        "labels: NodeGroupType=core, WorkerType=ON_DEMAND, eks.amazonaws.com/capacityType=ON_DEMAND, eks.amazonaws.com/nodegroup=(unknown), node.kubernetes.io/instance-type=m6a.xlarge",
        "taints: dedicated=batch:NoSchedule",
        "labels: NodeGroupType=spot, eks.amazonaws.com/capacityType=SPOT, eks.amazonaws.com/nodegroup=(unknown), node.kubernetes.io/instance-type=m6a.large, tier=crawl",
        "Terraform `aws_eks_node_group.ingest[\"kafka\"]`",
        "taints: ingest=kafka:NoExecute",
        "unknown: labels.cost-center — `var.cost_center` has no default and no value in terraform.tfvars or *.auto.tfvars",
    ] {
        assert!(out.contains(want), "missing {want:?} in:\n{out}");
    }
    // The GPU group exists only when `var.gpu_enabled`, false by default.
    assert!(!out.contains("NodeGroupType=gpu"), "{out}");
    insta::assert_snapshot!("explain_terraform_values", out);

    let (code, out, err) = run(&[
        "explain",
        "testdata/scenarios/terraform-local-modules",
        "--isolated",
        "--workload",
        "Deployment/web",
    ]);
    assert_eq!(code, 0, "{err}");
    for want in [
        "Terraform `module.pools[\"gpu\"].aws_eks_node_group.this` — testdata/scenarios/terraform-local-modules/infra/modules/nodegroup/main.tf:1",
        "from: root module testdata/scenarios/terraform-local-modules/infra/envs/prod, module.pools[\"gpu\"] (source ../../modules/nodegroup)",
        "taints: nvidia.com/gpu=true:NoSchedule",
        "Terraform `module.loop.aws_eks_node_group.looped`",
    ] {
        assert!(out.contains(want), "missing {want:?} in:\n{out}");
    }
    // The module directories are read through their calls only, not as roots of their own.
    assert!(
        !out.contains("root module testdata/scenarios/terraform-local-modules/infra/modules"),
        "{out}"
    );
}
