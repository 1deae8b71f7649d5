//! Kueue as the linted files declare it: its queues and flavors, and a workload's submission
//! to a LocalQueue (read by `sources::kueue`; judged by `judgements::kueue`).

use std::sync::Arc;

use crate::load::{Loc, Span};
use crate::model::{Object, PodSpec};
use crate::util::intern;

/// The label Kueue reads the queue name from, on the job object itself
/// (pkg/controller/jobframework/interface.go, `QueueNameForObject`).
pub const QUEUE_LABEL: &str = "kueue.x-k8s.io/queue-name";

/// A `ResourceFlavor`.
#[derive(Clone, Debug)]
pub struct Flavor {
    pub name: String,
    pub node_labels: Vec<(String, String)>,
    /// `nodeTaints`: (key, value, effect).
    pub node_taints: Vec<(String, String, String)>,
    /// `tolerations`: (key, operator, value, effect); Kueue adds them to the pods it admits.
    pub tolerations: Vec<(String, String, String, String)>,
    /// The flavor's name in its file.
    pub loc: Loc,
}

/// One of a ClusterQueue's `resourceGroups`.
#[derive(Clone, Debug)]
pub struct ResourceGroup {
    pub covered: Vec<String>,
    pub flavors: Vec<String>,
}

#[derive(Clone, Debug)]
pub struct ClusterQueue {
    pub name: String,
    pub groups: Vec<ResourceGroup>,
}

#[derive(Clone, Debug)]
pub struct LocalQueue {
    /// `None`: not written (the namespace it is applied in).
    pub namespace: Option<String>,
    pub name: String,
    pub cluster_queue: String,
}

/// The Kueue objects of a file, or of a cluster's files.
#[derive(Clone, Debug, Default)]
pub struct Kueue {
    pub flavors: Vec<Flavor>,
    pub cluster_queues: Vec<ClusterQueue>,
    pub local_queues: Vec<LocalQueue>,
}

/// No Kueue object (for cross-reference contexts built outside a run).
pub static NO_KUEUE: Kueue = Kueue {
    flavors: Vec::new(),
    cluster_queues: Vec::new(),
    local_queues: Vec::new(),
};

/// A workload's submission to a LocalQueue.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Submission {
    pub queue: Arc<str>,
    /// The queue-name label's value.
    pub span: Span,
    /// The resources the pod spec's containers request or limit (Kueue counts `pods` too when
    /// a resource group covers it).
    pub requests: Box<[Arc<str>]>,
}

impl Kueue {
    pub fn is_empty(&self) -> bool {
        self.flavors.is_empty() && self.cluster_queues.is_empty() && self.local_queues.is_empty()
    }

    /// The objects of a cluster's files, in input order (files are linted in parallel and
    /// come in any order; which copy of an object a finding names must not depend on it).
    pub fn in_input_order(mut parts: Vec<(usize, Kueue)>) -> Kueue {
        parts.sort_by_key(|(index, _)| *index);
        let mut all = Kueue::default();
        for (_, mut k) in parts {
            all.flavors.append(&mut k.flavors);
            all.cluster_queues.append(&mut k.cluster_queues);
            all.local_queues.append(&mut k.local_queues);
        }
        all
    }
}

/// The kinds Kueue's integrations manage (pkg/controller/jobs in kubernetes-sigs/kueue; the
/// `integrations.frameworks` of config/components/manager/controller_manager_config.yaml), by
/// (kind, group); a custom resource of another kind may carry the label for its own reasons.
/// Some are off in Kueue's default configuration (the Kubeflow v1 jobs, Spark): a workload
/// labelled for a queue is taken to be meant for Kueue.
fn is_integrated(kind: &str, group: &str) -> bool {
    matches!(
        (kind, group),
        ("Job" | "CronJob", "batch")
            | ("Pod", "")
            | ("Deployment" | "StatefulSet", "apps")
            | ("JobSet", "jobset.x-k8s.io")
            | ("LeaderWorkerSet", "leaderworkerset.x-k8s.io")
            | ("RayJob" | "RayCluster" | "RayService", "ray.io")
            | ("SparkApplication", "sparkoperator.k8s.io")
            | (
                "PyTorchJob" | "TFJob" | "XGBoostJob" | "PaddleJob" | "MXJob" | "JAXJob" | "MPIJob",
                "kubeflow.org"
            )
            | ("TrainJob", "trainer.kubeflow.org")
            | ("AppWrapper", "workload.codeflare.dev")
    )
}

/// The submission of this pod spec, when its object is labelled with a queue name: on the
/// object itself (Kueue reads no other place), or for a CronJob on its `jobTemplate`, whose
/// labels each Job it creates carries.
pub fn submission(object: &Object<'_>, spec: &PodSpec<'_>) -> Option<Box<Submission>> {
    if !is_integrated(object.kind, object.group) {
        return None;
    }
    let labels = if object.kind == "CronJob" {
        object
            .node
            .path(&["spec", "jobTemplate", "metadata", "labels"])
    } else {
        object.labels
    }?;
    let value = labels.get(QUEUE_LABEL)?;
    let queue = value.text().filter(|q| !q.is_empty())?;
    let mut requests = spec.resource_names();
    requests.sort_unstable();
    Some(Box::new(Submission {
        queue: intern(queue),
        span: value.span,
        requests: requests.into_iter().map(intern).collect(),
    }))
}
