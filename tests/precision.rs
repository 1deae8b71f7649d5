//! What taintlint assumes before it judges (issue "Speak only where the files prove it"), one
//! test per class, end to end on the binary in a temporary tree (`docs/precision.md` lists the
//! assumptions and the evidence that settles each):
//!
//! - which files are manifests: encrypted files, LFS pointers and files `.gitattributes` marks
//!   as not text are one notice for the run, not an error each; a template-named file that
//!   reads as plain YAML is linted; template notices outside a chart are one per folder; a
//!   `<NAME>` placeholder line is a template's, a YAML error elsewhere is the YAML's;
//! - which objects are pods: a custom resource's loose scheduling fields are not judged, one
//!   notice per kind; one that holds a complete pod spec is;
//! - which cluster a file runs on: a file beside one cluster's definition, not in its stack,
//!   is not judged against its pools;
//! - when the pools are all the pools: a node maker the files do not show (Karpenter without
//!   its NodePools) makes a closed-world finding an info that names it.

#![allow(clippy::unwrap_used)] // tests may unwrap

mod common;
use common::cli::taintlint;

use serde_json::Value;
use std::path::Path;

fn tree(files: &[(&str, &[u8])]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (name, text) in files {
        let path = dir.path().join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    dir
}

/// A finding: (severity, rule, file, line, message).
type Found = (String, String, String, u64, String);

/// `check .` in `dir`: the exit code and the findings.
fn check(dir: &Path) -> (i32, Vec<Found>) {
    let r = taintlint(&["check", ".", "--format", "json", "--isolated"])
        .in_dir(dir)
        .run();
    let v: Value = serde_json::from_str(&r.stdout).unwrap_or_else(|e| panic!("{e}: {}", r.stdout));
    let findings = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["severity"].as_str().unwrap().to_string(),
                f["rule"].as_str().unwrap().to_string(),
                f["file"].as_str().unwrap().to_string(),
                f["line"].as_u64().unwrap_or(0),
                f["message"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    (r.code, findings)
}

/// The findings of one rule.
fn with_rule<'a>(found: &'a [Found], rule: &str) -> Vec<&'a Found> {
    found.iter().filter(|f| f.1 == rule).collect()
}

const DEPLOYMENT: &str = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}}\n    spec:\n      containers: [{name: web, image: nginx}]\n";

#[test]
fn encrypted_files_are_one_notice_for_the_run() {
    let mut crypt = b"\0GITCRYPT\0".to_vec();
    crypt.extend_from_slice(&[0x8f, 0x1d, 0xff, 0x00, 0x42, 0x99, 0xc3, 0x28]);
    let sops = b"apiVersion: v1\nkind: Secret\nmetadata:\n  name: db\ndata:\n  pw: ENC[AES256_GCM,data:q1w=,iv:x,tag:y,type:str]\nsops:\n  mac: ENC[AES256_GCM,data:z,type:str]\n  version: 3.8.1\n";
    let dir = tree(&[
        ("secrets/a.yaml", &crypt),
        ("secrets/b.yaml", &crypt),
        ("secrets/nested/c.yaml", &crypt),
        ("apps/secret.sops.yaml", sops),
        ("vault/vars.yml", b"$ANSIBLE_VAULT;1.1;AES256\n3661\n"),
        // Marked not text by the repository, and not text: skipped; the same mark on a file
        // that reads as text (an unlocked clone) is linted.
        (
            ".gitattributes",
            b"blobs/** filter=custom-crypt\nplain/** filter=custom-crypt\n",
        ),
        ("blobs/x.yaml", &[0x01, 0x02, 0xfe, 0xff, 0x00, 0x10]),
        ("plain/app.yaml", DEPLOYMENT.as_bytes()),
    ]);
    let (code, found) = check(dir.path());
    let notices: Vec<_> = with_rule(&found, "encrypted-file");
    assert_eq!(notices.len(), 1, "{found:#?}");
    let (severity, _, file, _, message) = notices[0];
    assert_eq!(severity, "info");
    assert_eq!(file, "apps/secret.sops.yaml", "the first in path order");
    assert!(
        message.starts_with("6 files are encrypted or not text"),
        "{message}"
    );
    for kind in [
        "3 encrypted with git-crypt",
        "1 encrypted with SOPS",
        "1 encrypted with ansible-vault",
        "1 not text and marked `filter=custom-crypt` in .gitattributes",
    ] {
        assert!(message.contains(kind), "{kind}: {message}");
    }
    assert!(
        found.iter().all(|f| f.0 == "info"),
        "no error for a file that is no manifest: {found:#?}"
    );
    assert_eq!(code, 0);
}

#[test]
fn template_names_holding_plain_yaml_are_linted_and_notices_fold_per_folder() {
    let pool = "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata:\n  name: __CLUSTER__-gpu\nspec:\n  template:\n    spec:\n      taints:\n        - key: nvidia.com/gpu\n          effect: NoSchedul\n";
    let jinja = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ name }}\n";
    let dir = tree(&[
        ("karpenter/gpu.yaml.tpl", pool.as_bytes()),
        ("roles/web/templates/a.yaml.j2", jinja.as_bytes()),
        ("roles/web/templates/b.yaml.j2", jinja.as_bytes()),
        ("roles/web/templates/c.yaml.j2", jinja.as_bytes()),
    ]);
    let (_, found) = check(dir.path());
    // The `.tpl` is YAML with a `sed` placeholder: its taint's effect is judged.
    assert!(
        found
            .iter()
            .any(|f| f.1 == "invalid-taint-effect" && f.2 == "karpenter/gpu.yaml.tpl"),
        "{found:#?}"
    );
    let notices: Vec<_> = with_rule(&found, "template-not-rendered");
    assert_eq!(notices.len(), 1, "{found:#?}");
    assert_eq!(notices[0].2, "roles/web/templates/a.yaml.j2");
    assert!(
        notices[0]
            .4
            .ends_with("(and 2 more template files in `roles/web/templates/`)"),
        "{}",
        notices[0].4
    );
}

#[test]
fn placeholder_lines_are_a_templates_and_other_errors_the_yamls() {
    // kubefirst's whole-line placeholders: the template's, an info.
    let kubefirst = "apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata:\n  name: argocd\n  annotations:\n    <CERT_MANAGER_ISSUER_ANNOTATION_1>\n    nginx.ingress.kubernetes.io/backend-protocol: HTTPS\n";
    // A placeholder in a quoted value and in a comment; the error is a real indentation one.
    let broken = "# replace <S3_BUCKET> with yours\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata:\n  path: \"s3a://<S3_BUCKET>/data\"\n    bad: indent\n";
    // A sample's blank in lower case: the value is the user's to fill in, not judged.
    let blank = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  nodeSelector:\n    eks.amazonaws.com/nodegroup: <nodegroup-name>\n  containers: [{name: a, image: nginx}]\n";
    let dir = tree(&[
        ("kubefirst/ingress.yaml", kubefirst.as_bytes()),
        ("spark/job.yaml", broken.as_bytes()),
        ("samples/pool.yaml", blank.as_bytes()),
    ]);
    let (_, found) = check(dir.path());
    let of = |file: &str| -> Vec<(String, String)> {
        found
            .iter()
            .filter(|f| f.2 == file)
            .map(|f| (f.0.clone(), f.1.clone()))
            .collect()
    };
    assert_eq!(
        of("kubefirst/ingress.yaml"),
        [("info".to_string(), "template-not-rendered".to_string())]
    );
    assert_eq!(
        of("spark/job.yaml"),
        [("error".to_string(), "yaml-syntax-error".to_string())]
    );
    assert_eq!(
        of("samples/pool.yaml"),
        [("info".to_string(), "template-not-rendered".to_string())]
    );
}

#[test]
fn a_custom_kinds_loose_fields_are_one_notice_per_kind() {
    let profile = |name: &str| {
        format!(
            "apiVersion: dashboard.opendatahub.io/v1\nkind: AcceleratorProfile\nmetadata:\n  name: {name}\nspec:\n  identifier: nvidia.com/gpu\n  tolerations:\n    - key: nvidia.com/gpu\n      operator: Exists\n      value: oops\n"
        )
    };
    let job = "apiVersion: example.com/v1\nkind: TrainingJob\nmetadata:\n  name: t\nspec:\n  worker:\n    template:\n      spec:\n        tolerations:\n          - key: dedicated\n            operator: Exists\n            value: ml\n        containers: [{name: t, image: pytorch}]\n";
    let (a, b) = (profile("a100"), profile("h100"));
    let dir = tree(&[
        ("profiles/a100.yaml", a.as_bytes()),
        ("profiles/h100.yaml", b.as_bytes()),
        ("jobs/train.yaml", job.as_bytes()),
    ]);
    let (_, found) = check(dir.path());
    let notices: Vec<_> = with_rule(&found, "unjudged-custom-kind");
    assert_eq!(notices.len(), 1, "{found:#?}");
    assert_eq!(
        (notices[0].2.as_str(), notices[0].3),
        ("profiles/a100.yaml", 7)
    );
    assert!(
        notices[0]
            .4
            .contains("so 2 objects of this kind were not judged")
    );
    // Nothing else of the profiles: their fields may never reach a pod as written.
    assert!(
        found
            .iter()
            .filter(|f| f.2.starts_with("profiles/"))
            .all(|f| f.1 == "unjudged-custom-kind"),
        "{found:#?}"
    );
    // The job holds a complete pod spec: the API server's rule applies.
    assert!(
        found.iter().any(|f| f.2 == "jobs/train.yaml"
            && f.1 == "toleration-exists-with-value"
            && f.0 == "error"),
        "{found:#?}"
    );
}

const EKS: &str = "resource \"aws_eks_cluster\" \"this\" {\n  name = \"demo\"\n}\n\nresource \"aws_eks_node_group\" \"gpu\" {\n  cluster_name    = aws_eks_cluster.this.name\n  node_group_name = \"gpu\"\n  instance_types  = [\"g5.xlarge\"]\n  labels = {\n    workload = \"gpu\"\n  }\n  taint {\n    key    = \"nvidia.com/gpu\"\n    value  = \"true\"\n    effect = \"NO_SCHEDULE\"\n  }\n}\n";

fn pinned(name: &str, value: &str) -> String {
    format!(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {name}\nspec:\n  selector: {{matchLabels: {{app: {name}}}}}\n  template:\n    metadata: {{labels: {{app: {name}}}}}\n    spec:\n      nodeSelector:\n        workload: {value}\n      tolerations:\n        - {{key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}}\n      containers: [{{name: a, image: nginx}}]\n"
    )
}

#[test]
fn a_file_beside_a_clusters_stack_is_not_judged_against_its_pools() {
    let own = pinned("own", "cpu");
    let other = pinned("other", "cpu");
    let dir = tree(&[
        ("quickstart/aws/main.tf", EKS.as_bytes()),
        ("quickstart/aws/k8s/app.yaml", own.as_bytes()),
        ("samples/gcp/app.yaml", other.as_bytes()),
    ]);
    let (_, found) = check(dir.path());
    let unschedulable: Vec<_> = with_rule(&found, "unschedulable-workload");
    assert_eq!(unschedulable.len(), 1, "{found:#?}");
    assert_eq!(unschedulable[0].2, "quickstart/aws/k8s/app.yaml");
    assert_eq!(unschedulable[0].0, "warning");
}

#[test]
fn a_node_maker_the_files_do_not_show_opens_the_cluster() {
    let karpenter = "resource \"helm_release\" \"karpenter\" {\n  name       = \"karpenter\"\n  repository = \"oci://public.ecr.aws/karpenter\"\n  chart      = \"karpenter\"\n}\n";
    let app = pinned("app", "cpu");
    let dir = tree(&[
        ("infra/main.tf", EKS.as_bytes()),
        ("infra/karpenter.tf", karpenter.as_bytes()),
        ("apps/app.yaml", app.as_bytes()),
    ]);
    let (code, found) = check(dir.path());
    let unschedulable: Vec<_> = with_rule(&found, "unschedulable-workload");
    assert_eq!(unschedulable.len(), 1, "{found:#?}");
    assert_eq!(unschedulable[0].0, "info");
    assert!(
        unschedulable[0]
            .4
            .contains("(not certain: Karpenter is installed, and none of its NodePools is in the files (`infra/karpenter.tf:4`))"),
        "{}",
        unschedulable[0].4
    );
    assert_eq!(code, 0);
    let explain = taintlint(&["explain", ".", "--isolated", "--workload", "Deployment/app"])
        .in_dir(dir.path())
        .run()
        .stdout;
    assert!(
        explain.contains("its pools may not be all the cluster's — Karpenter is installed, and none of its NodePools is in the files (`infra/karpenter.tf:4`)"),
        "{explain}"
    );
    // With a NodePool of the cluster in the files, its pools are shown: judged again.
    let pool = "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata:\n  name: general\nspec:\n  template:\n    metadata:\n      labels:\n        workload: general\n    spec:\n      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}\n";
    std::fs::write(dir.path().join("infra/nodepool.yaml"), pool).unwrap();
    let (_, found) = check(dir.path());
    let unschedulable: Vec<_> = with_rule(&found, "unschedulable-workload");
    assert_eq!(unschedulable.len(), 1, "{found:#?}");
    assert_eq!(unschedulable[0].0, "warning", "{found:#?}");
}

#[test]
fn a_folder_a_clusters_files_apply_is_that_clusters() {
    let kustomization = |env: &str| {
        format!(
            "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: apps\n  namespace: flux-system\nspec:\n  interval: 10m\n  path: ./apps/{env}\n  prune: true\n  sourceRef:\n    kind: GitRepository\n    name: flux-system\n"
        )
    };
    let pool = "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata:\n  name: general\nspec:\n  template:\n    metadata:\n      labels:\n        workload: general\n    spec:\n      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}\n";
    let web = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}}\n    spec:\n      nodeSelector:\n        workload: generl\n      containers: [{name: web, image: nginx}]\n";
    let (prod, staging) = (kustomization("prod"), kustomization("staging"));
    let dir = tree(&[
        ("clusters/prod/apps.yaml", prod.as_bytes()),
        ("clusters/staging/apps.yaml", staging.as_bytes()),
        ("clusters/prod/nodepool.yaml", pool.as_bytes()),
        ("apps/prod/web.yaml", web.as_bytes()),
        // Applied by the staging cluster, which has no pool in the files: not judged against
        // prod's.
        ("apps/staging/web.yaml", web.as_bytes()),
        // Applied by no cluster: not judged against any.
        ("apps/dev/web.yaml", web.as_bytes()),
    ]);
    let (_, found) = check(dir.path());
    let unschedulable: Vec<_> = with_rule(&found, "unschedulable-workload");
    assert_eq!(unschedulable.len(), 1, "{found:#?}");
    assert_eq!(unschedulable[0].2, "apps/prod/web.yaml");
    let explain = taintlint(&["explain", ".", "--isolated", "--workload", "Deployment/web"])
        .in_dir(dir.path())
        .run()
        .stdout;
    assert!(
        explain.contains("the files under `apps/prod/` belong to it: `clusters/prod/apps.yaml` applies that folder"),
        "{explain}"
    );
}

#[test]
fn a_guess_without_pools_gives_way_to_the_clusters_pools() {
    let job = "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: spark\nspec:\n  template:\n    spec:\n      restartPolicy: Never\n      tolerations:\n        - {key: spark-compute-optimized, operator: Exists, effect: NoSchedule}\n      containers: [{name: a, image: spark}]\n";
    let dir = tree(&[
        ("infra/main.tf", EKS.as_bytes()),
        ("examples/job.yaml", job.as_bytes()),
    ]);
    let (_, found) = check(dir.path());
    let rules: Vec<&str> = found
        .iter()
        .filter(|f| f.2 == "examples/job.yaml" && f.0 != "info")
        .map(|f| f.1.as_str())
        .collect();
    // The cluster's pools judge the pod: no pool has the taint. The pool-less guess ("nothing
    // pins the pod to those nodes") would contradict it.
    assert_eq!(rules, ["toleration-matches-no-taint"], "{found:#?}");
}
