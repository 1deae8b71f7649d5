//! Each plugin's merge rules and rejections, on workloads and facts read from YAML.

use std::sync::Arc;

use super::*;
use crate::analysis::types::workloads;
use crate::load::SourceFile;
use crate::load::yaml::{Limits, parse};
use crate::model::each_object;

/// The workloads and facts of `yaml`.
fn read(yaml: &str) -> (Vec<Workload>, Vec<Fact>) {
    let source = Arc::new(SourceFile::new("t.yaml", yaml.to_string()));
    let stream = parse(&source.text, Limits::default());
    let (mut ws, mut facts) = (Vec::new(), Vec::new());
    for doc in &stream.documents {
        each_object(doc, &[], &mut |o| {
            ws.extend(workloads(&o, &source));
            facts.extend(fact(&o));
        });
    }
    (ws, facts)
}

fn admitted(yaml: &str, plugins: &[Plugin]) -> Workload {
    admitted_with(yaml, plugins, Config::default())
}

fn admitted_with(yaml: &str, plugins: &[Plugin], mut config: Config) -> Workload {
    let (mut ws, facts) = read(yaml);
    config.plugins.extend(plugins.iter().copied());
    let settings = Settings {
        admission: config,
        ..Settings::default()
    };
    let admission = Admission::new(facts, &settings);
    admission.apply(&mut ws);
    ws.into_iter().next().expect("one workload")
}

fn tolerations(w: &Workload) -> Vec<String> {
    effective_tolerations(w).iter().map(shown).collect()
}

fn selector(w: &Workload) -> Vec<String> {
    w.node_selector
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect()
}

fn rejection(w: &Workload) -> Option<&Rejection> {
    w.admission.as_ref().and_then(|a| a.rejection.as_ref())
}

const POD: &str = "apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: team}\nspec:\n";

fn pod(spec: &str) -> String {
    format!("{POD}{spec}")
}

const GVISOR: &str = "---\napiVersion: node.k8s.io/v1\nkind: RuntimeClass\nmetadata: {name: gvisor}\nhandler: runsc\nscheduling:\n  nodeSelector: {sandbox.gke.io/runtime: gvisor}\n  tolerations:\n  - {key: sandbox.gke.io/runtime, operator: Equal, value: gvisor, effect: NoSchedule}\n";

#[test]
fn runtime_class_merges_selector_and_tolerations() {
    let w = admitted(
        &(pod(
            "  runtimeClassName: gvisor\n  nodeSelector: {disk: ssd}\n  containers: [{name: c, image: i}]\n",
        ) + GVISOR),
        &[],
    );
    assert_eq!(selector(&w), ["disk=ssd", "sandbox.gke.io/runtime=gvisor"]);
    assert_eq!(
        tolerations(&w),
        [
            "node.kubernetes.io/not-ready:NoExecute (300s)",
            "node.kubernetes.io/unreachable:NoExecute (300s)",
            "sandbox.gke.io/runtime=gvisor:NoSchedule"
        ]
    );
    let a = w.admission.as_ref().expect("admitted");
    assert_eq!(
        a.written_selector.as_ref().map(Vec::len),
        Some(1),
        "the selector as written is kept"
    );
    assert!(a.changes.iter().all(|c| c.plugin == "RuntimeClass"));
    assert!(rejection(&w).is_none());
}

#[test]
fn runtime_class_selector_conflict_rejects() {
    let w = admitted(
        &(pod(
            "  runtimeClassName: gvisor\n  nodeSelector: {sandbox.gke.io/runtime: runc}\n  containers: [{name: c, image: i}]\n",
        ) + GVISOR),
        &[],
    );
    let r = rejection(&w).expect("rejected");
    assert_eq!(
        r.message,
        "conflict: runtimeClass.scheduling.nodeSelector[sandbox.gke.io/runtime] = gvisor; pod.spec.nodeSelector[sandbox.gke.io/runtime] = runc"
    );
    // A Pod is named in the answer; a controller's pods are not.
    assert_eq!(
        r.api_error,
        format!("pods \"p\" is forbidden: {}", r.message)
    );
    let deployment = "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d, namespace: team}\nspec:\n  template:\n    spec:\n      runtimeClassName: gvisor\n      nodeSelector: {sandbox.gke.io/runtime: runc}\n      containers: [{name: c, image: i}]\n";
    let w = admitted(&(deployment.to_string() + GVISOR), &[]);
    assert_eq!(
        rejection(&w).map(|r| r.api_error.clone()),
        Some(format!("pods is forbidden: {}", r.message))
    );
}

#[test]
fn unknown_runtime_class_changes_nothing() {
    let w = admitted(
        &pod("  runtimeClassName: kata\n  containers: [{name: c, image: i}]\n"),
        &Plugin::ALL,
    );
    assert!(w.admission.is_none());
}

const GPU_POD: &str = "  containers:\n  - name: c\n    image: i\n    resources: {limits: {nvidia.com/gpu: 1}}\n  initContainers:\n  - name: i\n    image: i\n    resources: {requests: {example.com/fpga: 1, hugepages-2Mi: 1Gi, kubernetes.io/x: 1}}\n";

#[test]
fn extended_resource_toleration_adds_one_per_resource() {
    let off = admitted(&pod(GPU_POD), &[]);
    assert!(off.admission.is_none(), "off by default");
    let w = admitted(&pod(GPU_POD), &[Plugin::ExtendedResourceToleration]);
    let tols = tolerations(&w);
    assert_eq!(
        &tols[2..],
        ["example.com/fpga:NoSchedule", "nvidia.com/gpu:NoSchedule"]
    );
    // Already tolerated: nothing to add.
    let w = admitted(
        &pod(&format!(
            "  tolerations: [{{key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}}, {{key: example.com/fpga, operator: Exists, effect: NoSchedule}}]\n{GPU_POD}"
        )),
        &[Plugin::ExtendedResourceToleration],
    );
    assert!(w.admission.is_none());
}

const NS: &str = "---\napiVersion: v1\nkind: Namespace\nmetadata:\n  name: team\n  annotations:\n";

#[test]
fn pod_node_selector_merges_and_rejects() {
    let ns = format!("{NS}    scheduler.alpha.kubernetes.io/node-selector: env=prod,tier=web\n");
    let w = admitted(
        &(pod("  nodeSelector: {tier: web, disk: ssd}\n  containers: [{name: c, image: i}]\n")
            + &ns),
        &[Plugin::PodNodeSelector],
    );
    assert_eq!(selector(&w), ["disk=ssd", "env=prod", "tier=web"]);
    let w = admitted(
        &(pod("  nodeSelector: {env: dev}\n  containers: [{name: c, image: i}]\n") + &ns),
        &[Plugin::PodNodeSelector],
    );
    assert_eq!(
        rejection(&w).map(|r| r.api_error.as_str()),
        Some(
            "pods \"p\" is forbidden: pod node label selector conflicts with its namespace node label selector"
        )
    );
    // Off: nothing.
    let w = admitted(
        &(pod("  nodeSelector: {env: dev}\n  containers: [{name: c, image: i}]\n") + &ns),
        &[],
    );
    assert!(w.admission.is_none());
}

#[test]
fn pod_node_selector_cluster_default_and_whitelist() {
    let ns =
        format!("{NS}    other: x\n    scheduler.alpha.kubernetes.io/defaultTolerations: \"\"\n");
    let mut config = Config::default();
    config
        .pod_node_selector
        .insert("clusterDefaultNodeSelector".into(), "pool=general".into());
    config
        .pod_node_selector
        .insert("team".into(), "pool=general,env=prod".into());
    let yaml = pod("  containers: [{name: c, image: i}]\n") + &ns;
    let w = admitted_with(&yaml, &[Plugin::PodNodeSelector], config.clone());
    assert_eq!(selector(&w), ["pool=general"]);
    let yaml = pod("  nodeSelector: {gpu: 'true'}\n  containers: [{name: c, image: i}]\n") + &ns;
    let w = admitted_with(&yaml, &[Plugin::PodNodeSelector], config.clone());
    assert_eq!(
        rejection(&w).map(|r| r.message.as_str()),
        Some("pod node label selector labels conflict with its namespace whitelist")
    );
    // An empty annotation overrides the cluster default.
    let ns = format!("{NS}    scheduler.alpha.kubernetes.io/node-selector: \"\"\n");
    let yaml = pod("  containers: [{name: c, image: i}]\n") + &ns;
    let w = admitted_with(&yaml, &[Plugin::PodNodeSelector], config);
    assert!(w.admission.is_none());
}

#[test]
fn runtime_class_selector_checked_against_namespace_selector() {
    let ns = format!(
        "{NS}    scheduler.alpha.kubernetes.io/node-selector: sandbox.gke.io/runtime=runc\n"
    );
    let w = admitted(
        &(pod("  runtimeClassName: gvisor\n  containers: [{name: c, image: i}]\n") + GVISOR + &ns),
        &[Plugin::PodNodeSelector],
    );
    // PodNodeSelector runs first and adds its key; RuntimeClass then conflicts with it.
    assert_eq!(
        rejection(&w).map(|r| r.plugin.as_str()),
        Some("RuntimeClass")
    );
}

#[test]
fn toleration_restriction_defaults_and_whitelist() {
    let ns = format!(
        "{NS}    scheduler.alpha.kubernetes.io/defaultTolerations: '[{{\"key\":\"team\",\"operator\":\"Equal\",\"value\":\"a\",\"effect\":\"NoSchedule\"}}]'\n"
    );
    // BestEffort: only the namespace's default.
    let w = admitted(
        &(pod("  containers: [{name: c, image: i}]\n") + &ns),
        &[Plugin::PodTolerationRestriction],
    );
    assert_eq!(
        tolerations(&w),
        [
            "node.kubernetes.io/not-ready:NoExecute (300s)",
            "node.kubernetes.io/unreachable:NoExecute (300s)",
            "team=a:NoSchedule"
        ]
    );
    // Burstable: the memory-pressure toleration too.
    let w = admitted(
        &(pod("  containers: [{name: c, image: i, resources: {requests: {cpu: 1}}}]\n") + &ns),
        &[Plugin::PodTolerationRestriction],
    );
    assert_eq!(
        tolerations(&w).last().map(String::as_str),
        Some("node.kubernetes.io/memory-pressure:NoSchedule")
    );
    // A pod toleration covering the default keeps it out (no conflict rejection).
    let w = admitted(
        &(pod(
            "  tolerations: [{key: team, operator: Exists}]\n  containers: [{name: c, image: i}]\n",
        ) + &ns),
        &[Plugin::PodTolerationRestriction],
    );
    assert!(rejection(&w).is_none());
    assert!(!tolerations(&w).iter().any(|t| t == "team=a:NoSchedule"));

    // The allow list sees DefaultTolerationSeconds' tolerations too (kubernetes#64616).
    let ns = format!(
        "{NS}    scheduler.alpha.kubernetes.io/tolerationsWhitelist: '[{{\"key\":\"team\",\"operator\":\"Exists\"}}]'\n"
    );
    let w = admitted(
        &(pod(
            "  tolerations: [{key: team, operator: Equal, value: a, effect: NoSchedule}]\n  containers: [{name: c, image: i}]\n",
        ) + &ns),
        &[Plugin::PodTolerationRestriction],
    );
    assert_eq!(
        rejection(&w).map(|r| r.message.as_str()),
        Some(
            "pod tolerations (possibly merged with namespace default tolerations) conflict with its namespace whitelist"
        )
    );
    let ns = format!(
        "{NS}    scheduler.alpha.kubernetes.io/tolerationsWhitelist: '[{{\"operator\":\"Exists\",\"key\":\"team\"}},{{\"key\":\"node.kubernetes.io/not-ready\",\"operator\":\"Exists\"}},{{\"key\":\"node.kubernetes.io/unreachable\",\"operator\":\"Exists\"}}]'\n"
    );
    let w = admitted(
        &(pod(
            "  tolerations: [{key: team, operator: Equal, value: a, effect: NoSchedule}]\n  containers: [{name: c, image: i}]\n",
        ) + &ns),
        &[Plugin::PodTolerationRestriction],
    );
    assert!(rejection(&w).is_none());
}

#[test]
fn cluster_whitelist_names_its_scope() {
    let ns = format!("{NS}    scheduler.alpha.kubernetes.io/defaultTolerations: '[]'\n");
    let config = Config {
        whitelist: Some(vec![PlainToleration {
            key: "x".into(),
            operator: "Exists".into(),
            ..PlainToleration::default()
        }]),
        ..Config::default()
    };
    let w = admitted_with(
        &(pod(
            "  tolerations: [{key: y, operator: Exists}]\n  containers: [{name: c, image: i}]\n",
        ) + &ns),
        &[Plugin::PodTolerationRestriction],
        config,
    );
    assert!(
        rejection(&w).is_some_and(|r| r.message.ends_with("conflict with its cluster whitelist"))
    );
}

#[test]
fn invalid_annotation_rejects_as_namespace_error() {
    let ns = format!("{NS}    scheduler.alpha.kubernetes.io/node-selector: env\n");
    let w = admitted(
        &(pod("  containers: [{name: c, image: i}]\n") + &ns),
        &[Plugin::PodNodeSelector],
    );
    let r = rejection(&w).expect("rejected");
    assert!(r.namespace_error);
    assert_eq!(r.message, "invalid selector: [env]");
}

#[test]
fn openshift_project_selector() {
    let ns = format!("{NS}    openshift.io/node-selector: node-role.kubernetes.io/app=\n");
    let w = admitted(
        &(pod("  containers: [{name: c, image: i}]\n") + &ns),
        &[Plugin::OpenShiftProjectNodeSelector],
    );
    assert_eq!(selector(&w), ["node-role.kubernetes.io/app="]);
    let w = admitted(
        &(pod(
            "  nodeSelector: {node-role.kubernetes.io/app: x}\n  containers: [{name: c, image: i}]\n",
        ) + &ns),
        &[Plugin::OpenShiftProjectNodeSelector],
    );
    assert_eq!(
        rejection(&w).map(|r| r.api_error.as_str()),
        Some(
            "pods \"p\" is forbidden: pod node label selector conflicts with its project node label selector"
        )
    );
    // The cluster default applies to a project without the annotation.
    let ns =
        format!("{NS}    other: x\n    scheduler.alpha.kubernetes.io/defaultTolerations: '[]'\n");
    let config = Config {
        openshift_default_node_selector: "node-role.kubernetes.io/worker=".into(),
        ..Config::default()
    };
    let w = admitted_with(
        &(pod("  containers: [{name: c, image: i}]\n") + &ns),
        &[Plugin::OpenShiftProjectNodeSelector],
        config,
    );
    assert_eq!(selector(&w), ["node-role.kubernetes.io/worker="]);
    // A namespace with PodNodeSelector's annotation is left to it, even with the project
    // annotation, and so is the cluster default.
    let ns = format!(
        "{NS}    scheduler.alpha.kubernetes.io/node-selector: \"\"\n    openshift.io/node-selector: env=a\n"
    );
    let config = Config {
        openshift_default_node_selector: "node-role.kubernetes.io/worker=".into(),
        ..Config::default()
    };
    let w = admitted_with(
        &(pod("  nodeSelector: {env: b}\n  containers: [{name: c, image: i}]\n") + &ns),
        &[Plugin::OpenShiftProjectNodeSelector],
        config,
    );
    assert!(rejection(&w).is_none());
    assert_eq!(selector(&w), ["env=b"]);
    // OpenShift's own parser: an invalid project selector rejects with its message.
    let ns = format!("{NS}    openshift.io/node-selector: env in (a)\n");
    let w = admitted(
        &(pod("  containers: [{name: c, image: i}]\n") + &ns),
        &[Plugin::OpenShiftProjectNodeSelector],
    );
    let r = rejection(&w).expect("rejected");
    assert!(r.namespace_error);
    assert_eq!(
        r.api_error,
        "unable to parse requirement: found 'in', expected: '='"
    );
}

#[test]
fn extended_resource_names() {
    assert!(is_extended_resource_name("nvidia.com/gpu"));
    assert!(!is_extended_resource_name("cpu"));
    assert!(!is_extended_resource_name("kubernetes.io/foo"));
    assert!(!is_extended_resource_name("resourceClaims"));
    assert!(!is_extended_resource_name("requests.example.com/x"));
}
