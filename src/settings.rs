//! Run-wide settings the rules read: the Kubernetes version whose wording and features to
//! reproduce, and feature gates.

/// Supported `--kube-version` minors.
pub const MIN_MINOR: u32 = 30;
pub const MAX_MINOR: u32 = 37;
pub const DEFAULT_MINOR: u32 = 35;

#[derive(Clone, Debug)]
pub struct Settings {
    /// Kubernetes 1.<minor>.
    pub minor: u32,
    /// `TaintTolerationComparisonOperators` (KEP-5471): `Lt`/`Gt` tolerations.
    pub comparison_operators: bool,
    /// Extra toleration keys `dedicated-toleration-without-affinity` ignores (config
    /// `dedicated-exempt-keys`; a trailing `*` matches a prefix).
    pub dedicated_exempt_keys: Vec<String>,
    /// Toleration governance (config `policies:`, `--policy`).
    pub policies: Vec<Policy>,
    /// Custom kinds and the path of their pod spec (config `workload-kinds:`).
    pub workload_kinds: Vec<WorkloadKind>,
    /// The admission plugins the cluster runs (config `admission-plugins:`,
    /// `--admission-plugin`) and their cluster-wide configuration (`admission-config:`).
    pub admission: AdmissionConfig,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            minor: DEFAULT_MINOR,
            comparison_operators: false,
            dedicated_exempt_keys: Vec::new(),
            policies: Vec::new(),
            workload_kinds: Vec::new(),
            admission: Default::default(),
        }
    }
}

/// Who may tolerate which taints: a toleration whose key matches `taint` is allowed only in
/// the listed namespaces or workloads.
#[derive(Clone, Debug)]
pub struct Policy {
    /// Glob over toleration keys (`nvidia.com/*`); `*` also matches the empty key.
    pub taint: String,
    /// Globs over namespaces (`ml-*`).
    pub namespaces: Vec<String>,
    /// Globs over `Kind/namespace/name` (`DaemonSet/kube-system/*`).
    pub workloads: Vec<String>,
    /// Where the policy is written, for related locations.
    pub loc: Option<crate::load::Loc>,
}

/// A kind whose pods an operator makes (config `workload-kinds:`, and the built-in catalogue
/// of `model::operators`): where each of its pod roles keeps its placement.
#[derive(Clone, Debug, Default)]
pub struct WorkloadKind {
    pub kind: String,
    /// `group/version`, `group/*` for any version of a group, or empty for any.
    pub api_version: String,
    pub roles: Vec<RoleDecl>,
}

impl WorkloadKind {
    /// Is an object of this `kind` and `apiVersion` (`group/version`) one of these?
    pub fn matches(&self, kind: &str, api_version: &str) -> bool {
        if self.kind != kind {
            return false;
        }
        match self.api_version.strip_suffix("/*") {
            _ if self.api_version.is_empty() => true,
            Some(group) => api_version
                .rsplit_once('/')
                .map_or(group.is_empty(), |(g, _)| g == group),
            None => self.api_version == api_version,
        }
    }
}

/// How the sources of one field combine. Sources are layered: the first is the base, each
/// later one goes on top of it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Merge {
    /// The last source written wins whole (an empty list or map counts as not written).
    #[default]
    Override,
    /// Lists are concatenated, in source order (Rook's `all` then the role's tolerations).
    Append,
    /// Maps are merged key by key, a later source's value winning.
    Keys,
    /// Lists are merged item by item at the same index, field by field, a later source's
    /// field winning; longer lists add their items (Flink's pod template merge).
    ByIndex,
}

/// Where one field of a role is read from, in layer order.
#[derive(Clone, Debug, Default)]
pub struct Sources {
    /// Dotted paths from the role's place, or from the object's root when they start with
    /// `/` (`/spec.placement.all.tolerations`).
    pub paths: Vec<String>,
    pub merge: Merge,
}

impl Sources {
    pub fn is_empty(&self) -> bool {
        self.paths.is_empty()
    }
}

/// What a role's `nodeSelector` is.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SelectorShape {
    /// A pod's `map[string]string`.
    #[default]
    Map,
    /// A `metav1.LabelSelector` the operator turns into required node affinity
    /// (`matchLabels` and `matchExpressions` must all hold).
    LabelSelector,
    /// A `metav1.LabelSelector` the operator turns into a pod's `nodeSelector` with
    /// `metav1.LabelSelectorAsMap`: `matchLabels`, and `In` expressions of one value; any other
    /// expression makes the operator refuse the resource.
    LabelSelectorAsMap,
}

/// How many pods a role makes.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Pods {
    /// The files do not say (autoscaled, computed by the operator).
    #[default]
    Unknown,
    /// One on every node it may run on: a DaemonSet.
    PerNode,
    /// The integer at `path` (from the role's place, or `/` from the root), `default` when
    /// it is not written.
    Replicas {
        path: Option<String>,
        default: Option<u32>,
    },
}

/// One pod role of a kind: where its placement fields are, how they combine, how many pods it
/// makes. Field paths are relative to the role's place `at` (or absolute with a leading `/`).
#[derive(Clone, Debug, Default)]
pub struct RoleDecl {
    /// How messages name its pods (`broker` for `Kafka/ns/my-cluster broker pods`).
    pub name: String,
    /// The role's place: a dotted path from the object's root; a segment `name[*]` stands
    /// for each item of a list (one role each), a segment `*` for each entry of a map.
    pub at: String,
    /// For `[*]`: the item's field that names each instance (its index otherwise).
    pub named_by: Option<String>,
    /// The role makes pods only when its place is written (a KServe `transformer`).
    pub optional: bool,
    /// The role makes pods only when one of these paths is written (`/spec.zookeeper`).
    pub present: Vec<String>,
    /// A boolean field (from the role's place) that turns the role off when `false`.
    pub enabled: Option<String>,
    /// Pod specs as a pod has them (`template.spec`), layered: each gives its tolerations,
    /// nodeSelector, affinity, topology spread, priority and runtime class, containers.
    pub pod_spec: Vec<String>,
    pub tolerations: Sources,
    pub node_selector: Sources,
    pub selector_shape: SelectorShape,
    /// Core `Affinity` blocks: the last written wins whole (`override`); with `keys`, each of
    /// their `nodeAffinity`, `podAffinity` and `podAntiAffinity` is a source of that block.
    pub affinity: Sources,
    pub node_affinity: Sources,
    pub pod_affinity: Sources,
    pub pod_anti_affinity: Sources,
    pub topology_spread: Sources,
    pub priority_class: Sources,
    pub runtime_class: Sources,
    /// `ResourceRequirements` (`requests`, `limits`); all of them count.
    pub resources: Sources,
    /// Lists (or maps by name) of containers, each with its `resources`; all of them count.
    pub containers: Sources,
    pub pods: Pods,
}

/// A tiny glob: `*` matches any run of characters (including `/`), `?` one character. Linear
/// in the text (`util::glob::key_match`).
pub fn glob_match(pattern: &str, text: &str) -> bool {
    crate::util::glob::key_match(pattern, text)
}

impl Settings {
    /// Parses `1.35` (or `v1.35`, `1.35.2`).
    pub fn parse_version(s: &str) -> Result<u32, String> {
        let t = s.trim().trim_start_matches('v');
        let mut parts = t.split('.');
        let major = parts.next().unwrap_or("");
        let minor = parts.next().unwrap_or("");
        if major != "1" {
            return Err(format!(
                "unsupported Kubernetes version `{s}`: expected 1.{MIN_MINOR} to 1.{MAX_MINOR}"
            ));
        }
        let m: u32 = minor
            .parse()
            .map_err(|_| format!("invalid Kubernetes version `{s}`: expected e.g. 1.35"))?;
        if !(MIN_MINOR..=MAX_MINOR).contains(&m) {
            return Err(format!(
                "unsupported Kubernetes version `{s}`: expected 1.{MIN_MINOR} to 1.{MAX_MINOR}"
            ));
        }
        Ok(m)
    }

    /// Applies `Name=true,Other=false`.
    pub fn apply_feature_gates(&mut self, spec: &str) -> Result<(), String> {
        for item in spec.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            let (name, value) = item.split_once('=').ok_or_else(|| {
                format!("invalid feature gate `{item}`: expected Name=true|false")
            })?;
            let on = match value.trim() {
                "true" => true,
                "false" => false,
                v => return Err(format!("invalid value `{v}` for feature gate `{name}`")),
            };
            match name.trim() {
                "TaintTolerationComparisonOperators" => {
                    if on && self.minor < 35 {
                        return Err(
                            "TaintTolerationComparisonOperators needs --kube-version 1.35 or later"
                                .to_string(),
                        );
                    }
                    self.comparison_operators = on;
                }
                other => {
                    return Err(format!(
                        "unknown feature gate `{other}` (known: TaintTolerationComparisonOperators)"
                    ));
                }
            }
        }
        Ok(())
    }
}

/// The admission plugins taintlint reproduces that a cluster may turn on or off
/// (`analysis::judgements::admission`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum AdmissionPlugin {
    PodNodeSelector,
    PodTolerationRestriction,
    ExtendedResourceToleration,
    OpenShiftProjectNodeSelector,
}

impl AdmissionPlugin {
    pub const ALL: [AdmissionPlugin; 4] = [
        AdmissionPlugin::PodNodeSelector,
        AdmissionPlugin::PodTolerationRestriction,
        AdmissionPlugin::ExtendedResourceToleration,
        AdmissionPlugin::OpenShiftProjectNodeSelector,
    ];

    pub fn name(self) -> &'static str {
        match self {
            AdmissionPlugin::PodNodeSelector => "PodNodeSelector",
            AdmissionPlugin::PodTolerationRestriction => "PodTolerationRestriction",
            AdmissionPlugin::ExtendedResourceToleration => "ExtendedResourceToleration",
            AdmissionPlugin::OpenShiftProjectNodeSelector => "OpenShiftProjectNodeSelector",
        }
    }

    pub fn parse(name: &str) -> Result<AdmissionPlugin, String> {
        AdmissionPlugin::ALL
            .into_iter()
            .find(|p| p.name() == name.trim())
            .ok_or_else(|| {
                let known: Vec<&str> = AdmissionPlugin::ALL.iter().map(|p| p.name()).collect();
                format!(
                    "unknown admission plugin `{}` (known: {}; RuntimeClass is always on)",
                    name.trim(),
                    known.join(", ")
                )
            })
    }
}

/// A toleration of the configuration.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PlainToleration {
    pub key: String,
    pub operator: String,
    pub value: String,
    pub effect: String,
    pub seconds: Option<i64>,
}

/// What the cluster runs: the admission plugins turned on, and the cluster-wide settings of
/// their configuration (what the API server reads from `--admission-control-config-file`).
#[derive(Clone, Debug, Default)]
pub struct AdmissionConfig {
    pub plugins: std::collections::BTreeSet<AdmissionPlugin>,
    /// PodNodeSelector's `podNodeSelectorPluginConfig`: `clusterDefaultNodeSelector` and, by
    /// namespace, the selector pods of that namespace must stay within.
    pub pod_node_selector: std::collections::BTreeMap<String, String>,
    /// PodTolerationRestriction's configuration (`default`, `whitelist`).
    pub default_tolerations: Option<Vec<PlainToleration>>,
    pub whitelist: Option<Vec<PlainToleration>>,
    /// OpenShift's cluster default (the `Scheduler` `cluster`'s `spec.defaultNodeSelector`,
    /// config.openshift.io/v1; `projectConfig.defaultNodeSelector` of the API server's config).
    pub openshift_default_node_selector: String,
}

impl AdmissionConfig {
    pub fn on(&self, p: AdmissionPlugin) -> bool {
        self.plugins.contains(&p)
    }
}
