//! Analysis: the Kubernetes semantics the rules rest on, in four layers, each using only the
//! layers before it (`tests/layers.rs` keeps it so):
//!
//! 1. [`semantics`]: pure functions over strings and YAML — well-known keys, the API server's
//!    validation and its messages, toleration matching, where a fix can add a node selector;
//! 2. [`types`]: what a pool is (labels, taints, size, place) and what a workload asks for
//!    (tolerations, selectors, affinity, pod-to-pod terms, a Kueue queue), read off its spec;
//! 3. [`sources`]: where pools are declared (one file per format: Node, Karpenter, eksctl,
//!    kubeadm, Cluster API, OpenShift, Terraform, the taintlint inventory), Kueue's queues,
//!    and the inventory assembled from every file's declarations;
//! 4. [`judgements`]: the scheduler's verdicts, admission, Kueue's flavor assigner, near
//!    misses, what found pools are evidence for, topology spread domains.

pub mod judgements;
pub mod semantics;
pub mod sources;
pub mod types;
