//! What admission did to a pod (worked out by `judgements::admission`): the changes its
//! plugins made, or why they refused it.

use std::sync::Arc;

use super::toleration::WorkloadToleration;

/// One change admission made to a pod, for `explain`.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Change {
    pub plugin: String,
    /// `added`, `dropped` (a toleration another one covers), `replaced`.
    pub action: String,
    pub what: String,
}

/// Admission refused the pod: the API server answers its creation with `message`.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Rejection {
    pub plugin: String,
    /// The plugin's own error text.
    pub message: String,
    /// The API server's whole answer (`pods is forbidden: …` for the plugins that wrap it).
    pub api_error: String,
    /// What the rejection is about: the pod's node selector (else its tolerations).
    pub about_selector: bool,
    /// The cause is an invalid annotation of the Namespace, reported there.
    pub namespace_error: bool,
    /// What in the pod the plugin objects to, for the finding (not part of its message).
    #[serde(default)]
    pub detail: String,
}

/// What admission did to one pod.
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct Admitted {
    /// The pod's tolerations after admission (with the DaemonSet controller's and
    /// DefaultTolerationSeconds'), when a plugin changed them.
    pub tolerations: Option<Vec<WorkloadToleration>>,
    /// The node selector as written, when a plugin changed it (the workload's
    /// `node_selector` is then the merged one).
    pub written_selector: Option<Vec<(Arc<str>, Arc<str>)>>,
    pub changes: Vec<Change>,
    pub rejection: Option<Rejection>,
}
