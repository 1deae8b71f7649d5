//! Node makers the files do not show as pools: something that creates nodes of shapes no file
//! describes, so the pools found are not all the pools of the cluster. Then no finding that
//! rests on "no pool of this cluster has it" (a closed world) is made above info; `explain`
//! and the finding say what was seen.
//!
//! Read from the text of every file (manifests, Terraform, templates), each by its own
//! documented switch:
//!
//! - **Karpenter installed** — a chart named `karpenter` (a Terraform `helm_release`, a Flux
//!   `HelmRelease`, an Argo CD source), the Karpenter module of terraform-aws-modules/eks
//!   (`modules/karpenter`), eks-blueprints-addons' `enable_karpenter = true`, or the
//!   controller's image: it makes nodes for the NodePools applied to the cluster, which may be
//!   written by a script or a template at deploy time. It counts only where no Karpenter
//!   NodePool of the cluster is read (then the files show its pools);
//! - **NodePools the files write but taintlint does not read** — `karpenter.sh` NodePool or
//!   Provisioner text in a template, a Helm values block or a Terraform string;
//! - **EKS Auto Mode** — `compute_config { enabled = true }` (aws_eks_cluster) or
//!   `cluster_compute_config` (terraform-aws-modules/eks): its built-in `general-purpose` and
//!   `system` NodePools are not in the files;
//! - **GKE Autopilot and node auto-provisioning** — `enable_autopilot = true`, an autopilot
//!   module of terraform-google-modules/kubernetes-engine, `cluster_autoscaling` with
//!   `enabled = true` or `auto_provisioning_defaults` (google_container_cluster);
//! - **AKS node auto-provisioning** — `node_provisioning_profile` / `nodeProvisioningProfile`
//!   with mode `Auto` (azurerm, AKS API 2024-06-02-preview);
//! - **cluster-autoscaler discovering node groups by tag** — `--node-group-auto-discovery` or
//!   the chart's `autoDiscovery.clusterName`: groups with the tag may be made elsewhere.
//!
//! A plain scan of the bytes: each switch is a fixed string found with `memchr::memmem`, then
//! its line read. No YAML or HCL is parsed again.

/// What makes nodes the files do not show.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Maker {
    Karpenter,
    UnreadNodePools,
    EksAutoMode,
    GkeAutoProvisioning,
    AksAutoProvisioning,
    AutoscalerDiscovery,
}

impl Maker {
    /// For messages: `Karpenter is installed`.
    pub fn describe(self) -> &'static str {
        match self {
            Maker::Karpenter => "Karpenter is installed, and none of its NodePools is in the files",
            Maker::UnreadNodePools => {
                "the files write Karpenter NodePools taintlint does not read (in a template, Helm values or a Terraform string)"
            }
            Maker::EksAutoMode => "EKS Auto Mode makes nodes from NodePools the files do not show",
            Maker::GkeAutoProvisioning => {
                "GKE node auto-provisioning or Autopilot makes nodes the files do not show"
            }
            Maker::AksAutoProvisioning => {
                "AKS node auto-provisioning makes nodes the files do not show"
            }
            Maker::AutoscalerDiscovery => {
                "cluster-autoscaler discovers node groups by tag, which may be made outside the files"
            }
        }
    }
}

/// The node makers a file's text shows, each once, with the byte offset of the first sign.
pub fn in_text(text: &str) -> Vec<(Maker, usize)> {
    let bytes = text.as_bytes();
    let mut out: Vec<(Maker, usize)> = Vec::new();
    let mut add = |m: Maker, at: usize| {
        if !out.iter().any(|(k, _)| *k == m) {
            out.push((m, at));
        }
    };
    let lines_with = |needle: &'static [u8]| {
        memchr::memmem::find_iter(bytes, needle).map(move |at| (at, line_at(text, at)))
    };
    if memchr::memmem::find(bytes, b"arpenter").is_some() {
        for (at, line) in lines_with(b"karpenter") {
            let l = line.trim();
            let is_chart = (l.starts_with("chart") || l.starts_with("\"chart\""))
                && chart_value(l).is_some_and(|v| v == "karpenter" || v.ends_with("/karpenter"));
            let is_module = l.starts_with("source")
                && (l.contains("modules/karpenter") || l.contains("/karpenter\""));
            let is_addon = l.starts_with("enable_karpenter") && l.ends_with("true");
            let is_image = l.contains("karpenter/controller");
            if is_chart || is_module || is_addon || is_image {
                add(Maker::Karpenter, at);
                break;
            }
        }
        for (at, line) in lines_with(b"karpenter.sh/") {
            let l = line.trim();
            if l.contains("apiVersion")
                && (l.contains("karpenter.sh/v1")
                    || l.contains("karpenter.sh/v1beta1")
                    || l.contains("karpenter.sh/v1alpha5"))
            {
                // The NodePool text is counted as unread where the file yields no pool (see
                // `engine`): the sign is kept with its place.
                add(Maker::UnreadNodePools, at);
                break;
            }
        }
    }
    for (at, _) in lines_with(b"compute_config") {
        if near_true(text, at) {
            add(Maker::EksAutoMode, at);
            break;
        }
    }
    for (at, line) in lines_with(b"enable_autopilot") {
        if line.trim_end().ends_with("true") {
            add(Maker::GkeAutoProvisioning, at);
            break;
        }
    }
    for (at, line) in lines_with(b"source") {
        let l = line.trim();
        if l.starts_with("source") && l.contains("kubernetes-engine") && l.contains("autopilot") {
            add(Maker::GkeAutoProvisioning, at);
            break;
        }
    }
    if let Some(at) = memchr::memmem::find(bytes, b"auto_provisioning_defaults") {
        add(Maker::GkeAutoProvisioning, at);
    }
    for (at, _) in lines_with(b"cluster_autoscaling") {
        if near_true(text, at) {
            add(Maker::GkeAutoProvisioning, at);
            break;
        }
    }
    for needle in [
        &b"node_provisioning_profile"[..],
        b"nodeProvisioningProfile",
        b"node_provisioning_mode",
    ] {
        if let Some(at) = memchr::memmem::find(bytes, needle) {
            let window = text.get(at..(at + 200).min(text.len())).unwrap_or("");
            if window.contains("Auto\"") || window.contains("Auto'") || window.contains(": Auto") {
                add(Maker::AksAutoProvisioning, at);
            }
        }
    }
    if let Some(at) = memchr::memmem::find(bytes, b"node-group-auto-discovery") {
        add(Maker::AutoscalerDiscovery, at);
    }
    for (at, line) in lines_with(b"autoDiscovery") {
        let window = text.get(at..(at + 200).min(text.len())).unwrap_or("");
        if line.trim_start().starts_with("autoDiscovery") && window.contains("clusterName") {
            add(Maker::AutoscalerDiscovery, at);
            break;
        }
    }
    out.sort();
    out
}

/// The line holding byte `at`.
fn line_at(text: &str, at: usize) -> &str {
    let bytes = text.as_bytes();
    let start = memchr::memrchr(b'\n', bytes.get(..at).unwrap_or_default()).map_or(0, |i| i + 1);
    let end =
        memchr::memchr(b'\n', bytes.get(at..).unwrap_or_default()).map_or(text.len(), |i| at + i);
    text.get(start..end).unwrap_or("")
}

/// The value of a `chart = "x"` / `chart: x` line, unquoted.
fn chart_value(line: &str) -> Option<&str> {
    let (_, v) = line.split_once(['=', ':'])?;
    let v = v.split('#').next()?.trim().trim_end_matches(',');
    Some(v.trim_matches(['"', '\'']))
}

/// Does an `enabled = true` (or `enabled: true`) follow within the block that starts at `at`
/// (the next 300 bytes, before a closing brace at the block's depth)?
fn near_true(text: &str, at: usize) -> bool {
    let window = text.get(at..(at + 300).min(text.len())).unwrap_or("");
    let window = match window.find('}') {
        Some(end) => &window[..end],
        None => window,
    };
    window.lines().any(|l| {
        let l = l.trim();
        (l.starts_with("enabled") || l.starts_with("enable_node_autoprovisioning"))
            && l.trim_end_matches(',').ends_with("true")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn makers(text: &str) -> Vec<Maker> {
        in_text(text).into_iter().map(|(m, _)| m).collect()
    }

    #[test]
    fn each_switch_by_its_own_words() {
        assert_eq!(
            makers(
                "resource \"helm_release\" \"k\" {\n  chart      = \"karpenter\"\n  repository = \"oci://public.ecr.aws/karpenter\"\n}\n"
            ),
            [Maker::Karpenter]
        );
        assert_eq!(
            makers(
                "module \"k\" {\n  source = \"terraform-aws-modules/eks/aws//modules/karpenter\"\n}\n"
            ),
            [Maker::Karpenter]
        );
        assert_eq!(makers("  enable_karpenter = true\n"), [Maker::Karpenter]);
        assert_eq!(makers("  enable_karpenter = false\n"), []);
        assert_eq!(
            makers("spec:\n  chart:\n    spec:\n      chart: karpenter\n"),
            [Maker::Karpenter]
        );
        assert_eq!(
            makers("values = [<<-EOT\n  apiVersion: karpenter.sh/v1\n  kind: NodePool\nEOT\n]\n"),
            [Maker::UnreadNodePools]
        );
        assert_eq!(
            makers(
                "resource \"aws_eks_cluster\" \"c\" {\n  compute_config {\n    enabled = true\n    node_pools = [\"general-purpose\"]\n  }\n}\n"
            ),
            [Maker::EksAutoMode]
        );
        assert_eq!(makers("  compute_config {\n    enabled = false\n  }\n"), []);
        assert_eq!(
            makers("  enable_autopilot = true\n"),
            [Maker::GkeAutoProvisioning]
        );
        assert_eq!(
            makers("  cluster_autoscaling {\n    enabled = true\n    resource_limits {}\n"),
            [Maker::GkeAutoProvisioning]
        );
        assert_eq!(
            makers(
                "module \"gke\" {\n  source = \"terraform-google-modules/kubernetes-engine/google//modules/beta-autopilot-public-cluster\"\n}\n"
            ),
            [Maker::GkeAutoProvisioning]
        );
        assert_eq!(
            makers("  node_provisioning_profile {\n    mode = \"Auto\"\n  }\n"),
            [Maker::AksAutoProvisioning]
        );
        assert_eq!(
            makers(
                "        - --node-group-auto-discovery=asg:tag=k8s.io/cluster-autoscaler/enabled\n"
            ),
            [Maker::AutoscalerDiscovery]
        );
        assert_eq!(
            makers("autoDiscovery:\n  clusterName: prod\n"),
            [Maker::AutoscalerDiscovery]
        );
        // Words in prose are no switch.
        assert_eq!(
            makers("# we used karpenter once\nname: karpenter-docs\n"),
            []
        );
    }
}
