//! Well-known taints and labels: the ones Kubernetes and the cloud providers put on nodes
//! themselves (k8s.io/api/core/v1 `well_known_taints.go` and `well_known_labels.go`), which
//! rules treat differently from a user's own.

/// Taints that come and go with node conditions and lifecycle; they never make a pool
/// permanently unusable (pkg/controller/nodelifecycle; k8s.io/api/core/v1/well_known_taints.go).
pub fn is_transient_taint(key: &str) -> bool {
    matches!(
        key,
        "node.kubernetes.io/not-ready"
            | "node.kubernetes.io/unreachable"
            | "node.kubernetes.io/memory-pressure"
            | "node.kubernetes.io/disk-pressure"
            | "node.kubernetes.io/pid-pressure"
            | "node.kubernetes.io/network-unavailable"
            | "node.kubernetes.io/unschedulable"
            | "node.kubernetes.io/out-of-service"
            | "node.cloudprovider.kubernetes.io/uninitialized"
            | "node.cloudprovider.kubernetes.io/shutdown"
            | "karpenter.sh/disrupted"
            | "karpenter.sh/unregistered"
            | "karpenter.sh/disruption"
            | "ToBeDeletedByClusterAutoscaler"
            | "DeletionCandidateOfClusterAutoscaler"
            | "node.cluster.x-k8s.io/uninitialized"
            | "node.cluster.x-k8s.io/outdated-revision"
    )
}

/// Well-known taint keys (k8s.io/api/core/v1/well_known_taints.go): a toleration of one of them is
/// never dead config.
pub const WELL_KNOWN_TAINT_KEYS: &[&str] = &[
    "node.kubernetes.io/not-ready",
    "node.kubernetes.io/unreachable",
    "node.kubernetes.io/memory-pressure",
    "node.kubernetes.io/disk-pressure",
    "node.kubernetes.io/pid-pressure",
    "node.kubernetes.io/network-unavailable",
    "node.kubernetes.io/unschedulable",
    "node.kubernetes.io/out-of-service",
    "node.cloudprovider.kubernetes.io/uninitialized",
    "node.cloudprovider.kubernetes.io/shutdown",
    "node-role.kubernetes.io/control-plane",
    "node-role.kubernetes.io/master",
    "ToBeDeletedByClusterAutoscaler",
    "DeletionCandidateOfClusterAutoscaler",
    "karpenter.sh/disrupted",
    "karpenter.sh/unregistered",
    "karpenter.sh/disruption",
    "node.cilium.io/agent-not-ready",
    "nvidia.com/gpu",
    "sandbox.gke.io/runtime",
    "cloud.google.com/gke-spot",
    "cloud.google.com/gke-preemptible",
    "kubernetes.azure.com/scalesetpriority",
    "CriticalAddonsOnly",
    "remediator.aks.microsoft.com/unschedulable",
    "eks.amazonaws.com/compute-type",
    "node.cluster.x-k8s.io/uninitialized",
    "node.cluster.x-k8s.io/outdated-revision",
    "node.alpha.kubernetes.io/notReady",
    "node.alpha.kubernetes.io/unreachable",
    // RKE taints its control-plane and etcd nodes with these (`controlplane=true:NoSchedule`,
    // `etcd=true:NoExecute`).
    "node-role.kubernetes.io/controlplane",
    "node-role.kubernetes.io/etcd",
    // GKE taints TPU nodes itself, as it taints GPU nodes `nvidia.com/gpu`, and nodes of a
    // custom compute class with the class.
    "google.com/tpu",
    "cloud.google.com/compute-class",
];

/// Prefixes of taint keys a managed platform sets on its nodes by itself (GKE's
/// `cloud.google.com/gke-*`, AKS's `kubernetes.azure.com/*`, EKS's `eks.amazonaws.com/*`):
/// no manifest declares them.
const PLATFORM_TAINT_PREFIXES: &[&str] = &[
    "cloud.google.com/gke-",
    "kubernetes.azure.com/",
    "eks.amazonaws.com/",
];

/// Is `t` one of the tolerations a test can ignore because it names a well-known key?
pub fn is_well_known_key(key: &str) -> bool {
    WELL_KNOWN_TAINT_KEYS.contains(&key)
        || key.starts_with("node.kubernetes.io/")
        || PLATFORM_TAINT_PREFIXES.iter().any(|p| key.starts_with(p))
}

/// Well-known labels every node carries or a provisioner chooses.
pub fn is_well_known_label(key: &str) -> bool {
    is_kubelet_label(key)
        || matches!(
            key,
            "node.kubernetes.io/instance-type" | "beta.kubernetes.io/instance-type"
        )
        || key.starts_with("karpenter.k8s.aws/")
        || key.starts_with("karpenter.sh/")
}

/// The labels the kubelet puts on every node whatever its pool: its name, OS and architecture,
/// and the zone and region (k8s.io/api/core/v1/well_known_labels.go).
pub fn is_kubelet_label(key: &str) -> bool {
    matches!(
        key,
        "kubernetes.io/hostname"
            | "kubernetes.io/os"
            | "kubernetes.io/arch"
            | "beta.kubernetes.io/os"
            | "beta.kubernetes.io/arch"
            | "topology.kubernetes.io/zone"
            | "topology.kubernetes.io/region"
            | "failure-domain.beta.kubernetes.io/zone"
            | "failure-domain.beta.kubernetes.io/region"
    )
}

/// A taint Kubernetes (or kubeadm, or the kubelet) puts on nodes itself, always the same way
/// (pkg/controller/nodelifecycle; k8s.io/api/core/v1/well_known_taints.go): a toleration of its key
/// that differs can never match it.
#[derive(Debug)]
pub struct SetTaint {
    pub key: &'static str,
    /// The value it always has.
    pub value: &'static str,
    /// The effects it is set with; `None` when its setter lets users choose (kubeadm's
    /// control-plane taint can be configured with another effect).
    pub effects: Option<&'static [&'static str]>,
    /// Who sets it, for messages.
    pub set_by: &'static str,
    /// Another value some installer sets the same key with, and which: a toleration with it
    /// is right on those clusters (aks-engine taints masters `node-role.kubernetes.io/master=
    /// true`).
    pub variant: Option<(&'static str, &'static str)>,
}

const CONDITION: &str = "the node lifecycle controller";
const NO_SCHEDULE: &[&str] = &["NoSchedule"];

/// The taints of [`SetTaint`], by key.
pub const SET_TAINTS: &[SetTaint] = &[
    SetTaint {
        key: "node.kubernetes.io/not-ready",
        value: "",
        effects: Some(&["NoSchedule", "NoExecute"]),
        set_by: CONDITION,
        variant: None,
    },
    SetTaint {
        key: "node.kubernetes.io/unreachable",
        value: "",
        effects: Some(&["NoSchedule", "NoExecute"]),
        set_by: CONDITION,
        variant: None,
    },
    SetTaint {
        key: "node.kubernetes.io/memory-pressure",
        value: "",
        effects: Some(NO_SCHEDULE),
        set_by: CONDITION,
        variant: None,
    },
    SetTaint {
        key: "node.kubernetes.io/disk-pressure",
        value: "",
        effects: Some(NO_SCHEDULE),
        set_by: CONDITION,
        variant: None,
    },
    SetTaint {
        key: "node.kubernetes.io/pid-pressure",
        value: "",
        effects: Some(NO_SCHEDULE),
        set_by: CONDITION,
        variant: None,
    },
    SetTaint {
        key: "node.kubernetes.io/network-unavailable",
        value: "",
        effects: Some(NO_SCHEDULE),
        set_by: CONDITION,
        variant: None,
    },
    SetTaint {
        key: "node.kubernetes.io/unschedulable",
        value: "",
        effects: Some(NO_SCHEDULE),
        set_by: CONDITION,
        variant: None,
    },
    SetTaint {
        key: "node-role.kubernetes.io/control-plane",
        value: "",
        effects: None,
        set_by: "kubeadm",
        // aks-engine carried its `master=true` taint over to the new key
        // (`node-role.kubernetes.io/control-plane=true:NoSchedule`), and clusters tainted by
        // hand follow it: which value the cluster has is the distribution's, which the files
        // seldom show.
        variant: Some(("true", "aks-engine and clusters tainted by hand")),
    },
    SetTaint {
        key: "node-role.kubernetes.io/master",
        value: "",
        effects: None,
        set_by: "kubeadm (before 1.25)",
        // Azure/acs-engine#1883, Azure/aks-engine#766.
        variant: Some(("true", "aks-engine and acs-engine")),
    },
    SetTaint {
        key: "node.cloudprovider.kubernetes.io/uninitialized",
        value: "true",
        effects: Some(NO_SCHEDULE),
        set_by: "the kubelet with an external cloud provider",
        variant: None,
    },
];

/// The taint Kubernetes sets with this key, if it sets one.
pub fn set_taint(key: &str) -> Option<&'static SetTaint> {
    SET_TAINTS.iter().find(|t| t.key == key)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn platform_taints_are_well_known() {
        for key in [
            "node-role.kubernetes.io/controlplane",
            "node-role.kubernetes.io/etcd",
            "cloud.google.com/gke-queued",
            "google.com/tpu",
            "kubernetes.azure.com/scalesetpriority",
            "eks.amazonaws.com/compute-type",
        ] {
            assert!(is_well_known_key(key), "{key}");
        }
        assert!(!is_well_known_key("cloud.google.com/other"));
        assert!(!is_well_known_key("dedicated"));
    }
}
