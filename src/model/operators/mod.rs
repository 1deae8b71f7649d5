//! The catalogue of kinds whose pods an operator makes: for each, where every pod role keeps
//! its placement, with the semantics its operator gives it (merges, defaults, generated
//! anti-affinity, replica counts, one pod per node). One small declaration per kind, one file
//! each, its upstream sources cited; the declarations are written in the `workload-kinds:`
//! syntax of the config (see `model::roles`), and what no field says is worked out by the
//! kind's `synth` function.
//!
//! `docs/operators.md` lists the kinds and roles in one table ([`docs_table`]), the README in a
//! compact one ([`readme_table`]); `tests/operators.rs` keeps both, this registry and
//! `testdata/operators/<kind>/` in step.

use std::sync::OnceLock;

use crate::load::yaml::{Limits, Node, parse};
use crate::settings::{PlainToleration, WorkloadKind};

use super::roles::{Hook, SynthFn, parse_kind};
use super::scheduling::{Need, Synth};

/// The declaration of a Kubeflow training job: each replica type of `spec.<field>` (`Master`,
/// `Worker`, …) is a role, `replicas` pods (1 when unset) placed by its `template`
/// (kubeflow/training-operator pkg/apis/kubeflow.org/v1 `ReplicaSpec`).
macro_rules! kubeflow_job {
    ($kind:literal, $field:literal) => {
        concat!(
            "\nkind: ",
            $kind,
            "\napiVersion: kubeflow.org/*\nroles:\n  - name: \"\"\n    at: spec.",
            $field,
            ".*\n    if: template.spec\n    podSpec: template.spec\n    replicas: replicas\n    defaultReplicas: 1\n"
        )
    };
}

/// The declaration of an Argo workflow whose `WorkflowSpec` is at `$spec` (see `workflow.rs`):
/// a role per template that runs a pod, and the pods of templates taken by `templateRef`.
macro_rules! argo_workflow {
    ($kind:literal, $spec:literal) => {
        concat!(
            "\nkind: ",
            $kind,
            "\napiVersion: argoproj.io/*\nroles:\n",
            "  - name: template\n",
            "    at: ",
            $spec,
            ".templates[*]\n",
            "    namedBy: name\n",
            "    if: [container, script, containerSet, resource]\n",
            "    tolerations: [/",
            $spec,
            ".tolerations, /",
            $spec,
            ".templateDefaults.tolerations, tolerations]\n",
            "    nodeSelector: [/",
            $spec,
            ".nodeSelector, /",
            $spec,
            ".templateDefaults.nodeSelector, nodeSelector]\n",
            "    affinity: [/",
            $spec,
            ".affinity, /",
            $spec,
            ".templateDefaults.affinity, affinity]\n",
            "    priorityClassName: [/",
            $spec,
            ".podPriorityClassName, /",
            $spec,
            ".templateDefaults.priorityClassName, priorityClassName]\n",
            "    resources: [container.resources, script.resources]\n",
            "    containers: [containerSet.containers, initContainers, sidecars]\n",
            "  - name: referenced templates\n",
            "    at: ",
            $spec,
            "\n",
            "    tolerations: [/",
            $spec,
            ".tolerations, /",
            $spec,
            ".templateDefaults.tolerations]\n",
            "    nodeSelector: [/",
            $spec,
            ".nodeSelector, /",
            $spec,
            ".templateDefaults.nodeSelector]\n",
            "    affinity: [/",
            $spec,
            ".affinity, /",
            $spec,
            ".templateDefaults.affinity]\n",
            "    priorityClassName: [/",
            $spec,
            ".podPriorityClassName, /",
            $spec,
            ".templateDefaults.priorityClassName]\n",
        )
    };
}

/// A role placed by a Percona operator's own pod spec type (XtraDB Cluster's `PodSpec`,
/// MongoDB's `MultiAZ`; see `percona_xtradb_cluster.rs`): the pods' fields under their own
/// names, `affinity.advanced` as the pods' affinity (`affinity` is the operator's
/// `PodAffinity`), `sidecars`, and `size` pods; `$extra`: the role's other lines.
macro_rules! percona_role {
    ($name:literal, $at:literal, $extra:literal) => {
        concat!(
            "  - name: ",
            $name,
            "\n    at: ",
            $at,
            "\n    tolerations: tolerations\n    nodeSelector: nodeSelector\n",
            "    affinity: affinity.advanced\n",
            "    topologySpreadConstraints: topologySpreadConstraints\n",
            "    priorityClassName: priorityClassName\n    runtimeClassName: runtimeClassName\n",
            "    resources: resources\n    containers: sidecars\n    replicas: size\n",
            $extra,
        )
    };
}

/// The declaration of a Volcano job whose `JobSpec` is at `$spec` (see `volcano_job.rs`): a role
/// per task of `tasks[]`, `replicas` pods made from its `template`, the job's
/// `priorityClassName` where the template names none.
macro_rules! volcano_job {
    ($kind:literal, $group:literal, $spec:literal) => {
        concat!(
            "\nkind: ",
            $kind,
            "\napiVersion: ",
            $group,
            "/*\nroles:\n",
            "  - name: task\n",
            "    at: ",
            $spec,
            ".tasks[*]\n",
            "    namedBy: name\n",
            "    podSpec: template.spec\n",
            "    priorityClassName: [/",
            $spec,
            ".priorityClassName, template.spec.priorityClassName]\n",
            "    replicas: replicas\n",
        )
    };
}

/// The declaration of a Confluent for Kubernetes component (see `confluent_kafka.rs`): its
/// `spec.replicas` pods placed by `spec.podTemplate`.
macro_rules! confluent_component {
    ($kind:literal) => {
        concat!(
            "\nkind: ",
            $kind,
            "\napiVersion: platform.confluent.io/*\nroles:\n",
            "  - name: \"\"\n",
            "    at: spec.podTemplate\n",
            "    podSpec: .\n",
            "    replicas: /spec.replicas\n",
        )
    };
}

/// The declaration of a Strimzi Kafka Connect cluster (see `kafka_connect.rs`): `spec.replicas`
/// workers (3 when unset) placed by `spec.template.pod`, with `spec.resources`.
macro_rules! strimzi_connect {
    ($kind:literal, $role:literal) => {
        concat!(
            "\nkind: ",
            $kind,
            "\napiVersion: kafka.strimzi.io/*\nroles:\n",
            "  - name: ",
            $role,
            "\n    at: spec.template.pod\n",
            "    podSpec: .\n",
            "    resources: /spec.resources\n",
            "    replicas: /spec.replicas\n",
            "    defaultReplicas: 3\n",
        )
    };
}

mod agent_sandbox;
mod agent_sandbox_template;
mod alertmanager;
mod ceph_cluster;
mod ceph_filesystem;
mod ceph_object_store;
mod cluster_log_forwarder;
mod cluster_logging;
mod cnpg_cluster;
mod cnpg_pooler;
mod confluent_connect;
mod confluent_control_center;
mod confluent_kafka;
mod confluent_kafka_rest_proxy;
mod confluent_kraft_controller;
mod confluent_ksqldb;
mod confluent_schema_registry;
mod confluent_zookeeper;
mod cron_workflow;
mod datadog_agent;
mod eck_agent;
mod eck_beat;
mod elasticsearch;
mod flink_deployment;
mod image_registry;
mod inference_service;
mod ingress_controller;
mod istio_operator;
mod jax_job;
mod jobset;
mod kafka;
mod kafka_bridge;
mod kafka_connect;
mod kafka_mirror_maker2;
mod kafka_node_pool;
mod kibana;
mod knative_service;
mod kubeflow_notebook;
mod leader_worker_set;
mod mpi_job;
mod mx_job;
mod opentelemetry_collector;
mod paddle_job;
mod percona_server_mongodb;
mod percona_xtradb_cluster;
mod pipeline_run;
mod prometheus;
mod pytorch_job;
mod ray_cluster;
mod ray_cron_job;
mod ray_job;
mod ray_service;
mod redis_enterprise_cluster;
mod redis_failover;
mod scheduled_spark_application;
mod scylla_cluster;
mod spark_application;
mod task_run;
mod tf_job;
mod thanos_ruler;
mod volcano_cron_job;
mod volcano_job;
mod volcano_job_template;
mod workflow;
mod workflow_template;
mod xgboost_job;
mod zalando_postgresql;

/// One kind of the catalogue.
pub struct Operator {
    /// Its file's name, kebab-case: `testdata/operators/<id>/` holds its fixtures.
    pub id: &'static str,
    /// The project whose operator makes the pods (`Rook`, `CloudNativePG`).
    pub project: &'static str,
    /// The upstream files the declaration follows (`rook/rook pkg/apis/...`).
    pub sources: &'static [&'static str],
    /// The roles, in the `workload-kinds:` syntax (`model::roles`).
    pub declaration: &'static str,
    /// What the operator adds that no field says.
    pub synth: Option<SynthFn>,
}

/// Every kind of the catalogue, by file.
pub static CATALOGUE: &[&Operator] = &[
    &agent_sandbox::OPERATOR,
    &agent_sandbox_template::OPERATOR,
    &alertmanager::OPERATOR,
    &ceph_cluster::OPERATOR,
    &ceph_filesystem::OPERATOR,
    &ceph_object_store::OPERATOR,
    &cluster_log_forwarder::OPERATOR,
    &cluster_logging::OPERATOR,
    &cnpg_cluster::OPERATOR,
    &cnpg_pooler::OPERATOR,
    &confluent_connect::OPERATOR,
    &confluent_control_center::OPERATOR,
    &confluent_kafka::OPERATOR,
    &confluent_kafka_rest_proxy::OPERATOR,
    &confluent_kraft_controller::OPERATOR,
    &confluent_ksqldb::OPERATOR,
    &confluent_schema_registry::OPERATOR,
    &confluent_zookeeper::OPERATOR,
    &cron_workflow::OPERATOR,
    &datadog_agent::OPERATOR,
    &eck_agent::OPERATOR,
    &eck_beat::OPERATOR,
    &elasticsearch::OPERATOR,
    &flink_deployment::OPERATOR,
    &image_registry::OPERATOR,
    &inference_service::OPERATOR,
    &ingress_controller::OPERATOR,
    &istio_operator::OPERATOR,
    &jax_job::OPERATOR,
    &jobset::OPERATOR,
    &kafka::OPERATOR,
    &kafka_bridge::OPERATOR,
    &kafka_connect::OPERATOR,
    &kafka_mirror_maker2::OPERATOR,
    &kafka_node_pool::OPERATOR,
    &kibana::OPERATOR,
    &knative_service::OPERATOR,
    &kubeflow_notebook::OPERATOR,
    &leader_worker_set::OPERATOR,
    &mpi_job::OPERATOR,
    &mx_job::OPERATOR,
    &opentelemetry_collector::OPERATOR,
    &paddle_job::OPERATOR,
    &percona_server_mongodb::OPERATOR,
    &percona_xtradb_cluster::OPERATOR,
    &pipeline_run::OPERATOR,
    &prometheus::OPERATOR,
    &pytorch_job::OPERATOR,
    &ray_cluster::OPERATOR,
    &ray_cron_job::OPERATOR,
    &ray_job::OPERATOR,
    &ray_service::OPERATOR,
    &redis_enterprise_cluster::OPERATOR,
    &redis_failover::OPERATOR,
    &scheduled_spark_application::OPERATOR,
    &scylla_cluster::OPERATOR,
    &spark_application::OPERATOR,
    &task_run::OPERATOR,
    &tf_job::OPERATOR,
    &thanos_ruler::OPERATOR,
    &volcano_cron_job::OPERATOR,
    &volcano_job::OPERATOR,
    &volcano_job_template::OPERATOR,
    &workflow::OPERATOR,
    &workflow_template::OPERATOR,
    &xgboost_job::OPERATOR,
    &zalando_postgresql::OPERATOR,
];

/// A kind of the catalogue, its declaration read.
pub struct Entry {
    pub kind: WorkloadKind,
    pub synth: Option<SynthFn>,
    pub operator: &'static Operator,
}

/// The catalogue, read once. A declaration that does not read is left out (the tests read
/// every one).
pub fn entries() -> &'static [Entry] {
    static ENTRIES: OnceLock<Vec<Entry>> = OnceLock::new();
    ENTRIES.get_or_init(|| {
        CATALOGUE
            .iter()
            .filter_map(|op| {
                let kind = read(op.declaration).ok()?;
                Some(Entry {
                    kind,
                    synth: op.synth,
                    operator: op,
                })
            })
            .collect()
    })
}

/// A declaration's kind, or what is wrong with it.
pub fn read(declaration: &str) -> Result<WorkloadKind, Vec<String>> {
    let stream = parse(declaration, Limits::default());
    let root = stream.documents.first().and_then(|d| d.root.as_ref());
    let mut errors = Vec::new();
    let kind = root.and_then(|r| {
        parse_kind(r, &mut |span, message| {
            errors.push(format!("at byte {}: {message}", span.start));
        })
    });
    match kind {
        Some(k) if errors.is_empty() && stream.error.is_none() => Ok(k),
        _ => {
            if let Some(e) = stream.error {
                errors.push(format!("{e:?}"));
            }
            Err(errors)
        }
    }
}

/// The catalogue's entry for an object of `kind` and `apiVersion`.
///
/// Most objects of a run are of no catalogued kind (Services, ConfigMaps, CRDs of other
/// projects), and a run over one file should not read every declaration: the kind names are
/// taken from the declarations' `kind:` lines without the parser, and only a declaration whose
/// kind is asked for is read, once per run.
pub fn find(kind: &str, api_version: &str) -> Option<&'static Entry> {
    /// A catalogue declaration's kind name, and its entry once read (`None`: it does not read).
    type Lazy = (&'static str, OnceLock<Option<Entry>>);
    static BY_KIND: OnceLock<Vec<Lazy>> = OnceLock::new();
    let by_kind = BY_KIND.get_or_init(|| {
        CATALOGUE
            .iter()
            .map(|op| (declared_kind(op.declaration).unwrap_or(""), OnceLock::new()))
            .collect()
    });
    by_kind
        .iter()
        .zip(CATALOGUE)
        .filter(|((name, _), _)| *name == kind)
        .filter_map(|((_, entry), op)| {
            entry
                .get_or_init(|| {
                    Some(Entry {
                        kind: read(op.declaration).ok()?,
                        synth: op.synth,
                        operator: op,
                    })
                })
                .as_ref()
        })
        .find(|e| e.kind.matches(kind, api_version))
}

/// The kind a declaration names on its top-level `kind:` line (a plain scalar: the
/// declarations are ours), read without the parser; `tests.rs` checks it against [`read`].
fn declared_kind(declaration: &str) -> Option<&str> {
    declaration
        .lines()
        .find_map(|line| line.strip_prefix("kind:"))
        .map(str::trim)
}

/// A toleration an operator adds.
pub(crate) fn toleration(key: &str, operator: &str, value: &str, effect: &str) -> PlainToleration {
    PlainToleration {
        key: key.to_string(),
        operator: operator.to_string(),
        value: value.to_string(),
        effect: effect.to_string(),
        seconds: None,
    }
}

/// A requirement an operator adds.
pub(crate) fn need(key: &str, operator: &str, values: &[&str]) -> Need {
    Need {
        key: key.to_string(),
        operator: operator.to_string(),
        values: values.iter().map(|v| (*v).to_string()).collect(),
    }
}

/// The text of a scalar at `node`, YAML 1.1 booleans as `true`/`false`.
pub(crate) fn truthy(node: Option<&Node>) -> Option<bool> {
    node.and_then(|n| crate::load::yaml11::resolve(n).as_bool())
}

/// The integer at `node`.
pub(crate) fn int(node: Option<&Node>) -> Option<i64> {
    node.and_then(|n| crate::load::yaml11::resolve(n).as_i64())
}

/// The text at `node`, when it is a non-empty scalar.
pub(crate) fn text(node: Option<&Node>) -> Option<&str> {
    node.and_then(Node::text).filter(|t| !t.is_empty())
}

/// Where a synthesised piece points: the first of these written, or the role's place.
pub(crate) fn anchor(h: &Hook<'_, '_>, paths: &[&str]) -> Option<crate::load::Span> {
    paths
        .iter()
        .find_map(|p| h.get(p))
        .map(|n| n.span)
        .or(h.at.map(|n| n.span))
}

/// The table of the catalogue's kinds and roles, for the docs: one row per kind, each role
/// with its place and how many pods it makes.
pub fn docs_table() -> String {
    let mut rows: Vec<(String, String)> = Vec::new();
    for e in entries() {
        let group = e
            .kind
            .api_version
            .strip_suffix("/*")
            .unwrap_or(&e.kind.api_version);
        let roles: Vec<String> = e.kind.roles.iter().map(role_cell).collect();
        rows.push((
            format!("{}.{group}", e.kind.kind),
            format!(
                "| `{}` | `{group}` | {} (`src/model/operators/{}.rs`) | {} |",
                e.kind.kind,
                e.operator.project,
                e.operator.id.replace('-', "_"),
                roles.join("<br>")
            ),
        ));
    }
    rows.sort();
    let mut out = String::from(
        "| kind | API group | operator (declaration) | pod roles: where each is read, how many pods |\n|---|---|---|---|\n",
    );
    for (_, row) in rows {
        out.push_str(&row);
        out.push('\n');
    }
    out
}

/// The README's table: each kind, its operator and its pod roles, each with how many pods it
/// makes (one per node, a replica count, a fixed number).
pub fn readme_table() -> String {
    use crate::settings::Pods;
    let mut rows: Vec<(String, String)> = Vec::new();
    for e in entries() {
        let roles: Vec<String> = e
            .kind
            .roles
            .iter()
            .map(|r| {
                let name = if r.name.is_empty() { "pods" } else { &r.name };
                let count = match &r.pods {
                    Pods::PerNode => Some("one per node".to_string()),
                    Pods::Replicas {
                        path: Some(_),
                        default: Some(d),
                    } => Some(format!("replicas, {d} by default")),
                    Pods::Replicas {
                        path: Some(_),
                        default: None,
                    } => Some("replicas".to_string()),
                    Pods::Replicas {
                        path: None,
                        default: Some(d),
                    } => Some(d.to_string()),
                    _ => None,
                };
                // A role per item or entry: which list or map.
                let segments: Vec<&str> = r.at.split('.').collect();
                let each = segments.iter().enumerate().find_map(|(i, seg)| {
                    seg.strip_suffix("[*]").or_else(|| {
                        (*seg == "*")
                            .then(|| i.checked_sub(1).map(|p| segments[p]))
                            .flatten()
                    })
                });
                let notes: Vec<String> = each
                    .map(|list| format!("each of `{list}`"))
                    .into_iter()
                    .chain(count)
                    .collect();
                if notes.is_empty() {
                    name.to_string()
                } else {
                    format!("{name} ({})", notes.join("; "))
                }
            })
            .collect();
        let group = e
            .kind
            .api_version
            .strip_suffix("/*")
            .unwrap_or(&e.kind.api_version);
        rows.push((
            format!("{}.{group}", e.kind.kind),
            format!(
                "| `{}` | `{group}` | {} | {} |",
                e.kind.kind,
                e.operator.project,
                roles.join(", ")
            ),
        ));
    }
    rows.sort();
    let mut out = String::from("| kind | API group | operator | pod roles |\n|---|---|---|---|\n");
    for (_, row) in rows {
        out.push_str(&row);
        out.push('\n');
    }
    out
}

/// `**mon** `spec.placement.mon` (+ `all`): `spec.mon.count` (3)`.
fn role_cell(r: &crate::settings::RoleDecl) -> String {
    use crate::settings::Pods;
    let name = if r.name.is_empty() { "pods" } else { &r.name };
    let at = if r.at.is_empty() {
        "the object".to_string()
    } else {
        format!("`{}`", r.at)
    };
    // A count's path, from the root.
    let full = |p: &str| match p.strip_prefix('/') {
        Some(abs) => abs.to_string(),
        None => super::join(&r.at, p),
    };
    let count = match &r.pods {
        Pods::Unknown => "count not known".to_string(),
        Pods::PerNode => "one per node".to_string(),
        Pods::Replicas {
            path: Some(p),
            default: Some(d),
        } => format!("`{}` ({d} when unset)", full(p)),
        Pods::Replicas {
            path: Some(p),
            default: None,
        } => format!("`{}`", full(p)),
        Pods::Replicas {
            path: None,
            default: Some(d),
        } => d.to_string(),
        Pods::Replicas {
            path: None,
            default: None,
        } => "count not known".to_string(),
    };
    format!("**{name}** {at}: {count}")
}

#[cfg(test)]
mod tests;
