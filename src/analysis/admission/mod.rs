//! Admission: what the API server's admission plugins do to a pod between `kubectl apply` and
//! the scheduler, reproduced on each workload before the cross-reference judges it.
//!
//! - **RuntimeClass** (on by default upstream; plugin/pkg/admission/runtimeclass/admission.go
//!   `setScheduling`): a pod naming a RuntimeClass of the linted files gets its
//!   `scheduling.nodeSelector` (a key the pod sets to another value rejects the pod) and its
//!   `scheduling.tolerations` (`tolerations.MergeTolerations`). A RuntimeClass the files do not
//!   have changes nothing: the cluster may have it.
//! - **PodNodeSelector**, **PodTolerationRestriction**, **ExtendedResourceToleration** (off by
//!   default upstream, `DefaultOffAdmissionPlugins` in pkg/kubeapiserver/options/plugins.go):
//!   on with the config's `admission-plugins:` or `--admission-plugin`; they read the
//!   annotations of the pod's Namespace, when the files have it.
//! - **OpenShiftProjectNodeSelector**: OpenShift's project node selector
//!   (`openshift.io/node-selector`; openshift/origin `pkg/project/admission/nodeenv`).
//!
//! The plugins run in the upstream order (`AllOrderedPlugins` in
//! pkg/kubeapiserver/options/plugins.go): every plugin's mutation (PodNodeSelector,
//! DefaultTolerationSeconds, PodTolerationRestriction, ExtendedResourceToleration,
//! RuntimeClass), then every plugin's validation (PodNodeSelector's and
//! PodTolerationRestriction's checks again, on the pod the later plugins changed). OpenShift's
//! own plugins run before the Kubernetes ones. The DaemonSet controller's tolerations are in
//! the pod before admission sees it.

pub mod facts;
pub mod json;
pub mod merge;

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use crate::analysis::{Workload, WorkloadToleration, effective_tolerations};
use crate::settings::Settings;
use crate::util::intern;

pub use facts::{Fact, NamespaceFacts, RuntimeClassFacts, fact};
use merge::Selector;

pub use crate::settings::{AdmissionConfig as Config, AdmissionPlugin as Plugin, PlainToleration};

/// A PodNodeSelector, PodTolerationRestriction or OpenShift plugin is on: they read the pod's
/// Namespace.
fn namespace_plugins(config: &Config) -> bool {
    config.on(Plugin::PodNodeSelector)
        || config.on(Plugin::PodTolerationRestriction)
        || config.on(Plugin::OpenShiftProjectNodeSelector)
}

/// A toleration of the configuration, as the plugins handle them.
fn configured(list: &Option<Vec<PlainToleration>>) -> Option<Vec<WorkloadToleration>> {
    list.as_ref().map(|l| {
        l.iter()
            .map(|t| WorkloadToleration {
                key: intern(&t.key),
                operator: intern(&t.operator),
                value: intern(&t.value),
                effect: intern(&t.effect),
                seconds: t.seconds,
                span: Default::default(),
                path: intern(""),
                scalars: Default::default(),
            })
            .collect()
    })
}

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

/// A Namespace as the plugins read it.
struct Namespace {
    node_selector: Option<Result<Selector, String>>,
    openshift: Option<Result<Selector, String>>,
    defaults: Option<Result<Vec<WorkloadToleration>, String>>,
    whitelist: Option<Result<Vec<WorkloadToleration>, String>>,
}

/// The run's admission: the plugins on, and the Namespaces and RuntimeClasses of its files.
#[derive(Default)]
pub struct Admission {
    config: Config,
    namespaces: BTreeMap<String, Namespace>,
    runtime_classes: BTreeMap<String, RuntimeClassFacts>,
    cluster_selector: Option<Result<Selector, String>>,
    /// PodNodeSelector's per-namespace allow lists (`podNodeSelectorPluginConfig`).
    whitelists: BTreeMap<String, Selector>,
    /// PodTolerationRestriction's cluster default and allow list.
    default_tolerations: Option<Vec<WorkloadToleration>>,
    whitelist: Option<Vec<WorkloadToleration>>,
    openshift_default: Option<Result<Selector, String>>,
}

const FORBIDDEN: &str = "pods is forbidden: ";

impl Admission {
    /// From the facts of the files (in input order: the first of two objects with one name
    /// counts) and the settings.
    pub fn new(facts: impl IntoIterator<Item = Fact>, settings: &Settings) -> Self {
        let config = settings.admission.clone();
        let mut namespaces = BTreeMap::new();
        let mut runtime_classes = BTreeMap::new();
        let ns_on = namespace_plugins(&config);
        for f in facts {
            match f {
                Fact::Namespace(ns) if ns_on => {
                    namespaces.entry(ns.name.clone()).or_insert_with(|| {
                        let [sel, defaults, whitelist, openshift] = ns.annotations;
                        Namespace {
                            node_selector: sel.map(|s| merge::parse_selector(&s, settings)),
                            openshift: openshift.map(|s| merge::parse_selector(&s, settings)),
                            defaults: defaults.map(|s| tolerations_annotation(&s)),
                            whitelist: whitelist.map(|s| tolerations_annotation(&s)),
                        }
                    });
                }
                Fact::Namespace(_) => {}
                Fact::RuntimeClass(rc) => {
                    runtime_classes.entry(rc.name.clone()).or_insert(rc);
                }
            }
        }
        let cluster_selector = config
            .pod_node_selector
            .get("clusterDefaultNodeSelector")
            .map(|s| merge::parse_selector(s, settings));
        let whitelists = config
            .pod_node_selector
            .iter()
            .filter(|(k, _)| *k != "clusterDefaultNodeSelector")
            .filter_map(|(k, v)| Some((k.clone(), merge::parse_selector(v, settings).ok()?)))
            .collect();
        let openshift_default = (!config.openshift_default_node_selector.is_empty())
            .then(|| merge::parse_selector(&config.openshift_default_node_selector, settings));
        Admission {
            namespaces,
            runtime_classes,
            cluster_selector,
            whitelists,
            default_tolerations: configured(&config.default_tolerations),
            whitelist: configured(&config.whitelist),
            openshift_default,
            config,
        }
    }

    /// Nothing here can change a pod: no RuntimeClass with scheduling, no plugin on.
    pub fn is_idle(&self) -> bool {
        self.runtime_classes.is_empty()
            && !self.config.on(Plugin::ExtendedResourceToleration)
            && (self.namespaces.is_empty() || !namespace_plugins(&self.config))
    }

    /// The label keys admission may add to node selectors (the pools must be told apart by
    /// them, see `Relevant`).
    pub fn selector_keys(&self) -> impl Iterator<Item = &str> {
        let namespaces = self.namespaces.values().flat_map(|n| {
            [n.node_selector.as_ref(), n.openshift.as_ref()]
                .into_iter()
                .flatten()
                .filter_map(|r| r.as_ref().ok())
                .flat_map(|s| s.keys().map(String::as_str))
        });
        let defaults = [
            self.cluster_selector.as_ref(),
            self.openshift_default.as_ref(),
        ]
        .into_iter()
        .flatten()
        .filter_map(|r| r.as_ref().ok())
        .flat_map(|s| s.keys().map(String::as_str));
        let classes = self
            .runtime_classes
            .values()
            .flat_map(|rc| rc.node_selector.iter().map(|(k, _)| k.as_str()));
        namespaces.chain(defaults).chain(classes)
    }

    /// Admits each workload (see [`Admission::admit`]).
    pub fn apply(&self, workloads: &mut [Workload]) {
        if self.is_idle() {
            return;
        }
        for w in workloads {
            self.admit(w);
        }
    }

    /// Runs the plugins on one workload's pods: the node selector is replaced by the merged
    /// one, and what changed (or the rejection) is kept in `w.admission`. Nothing is
    /// allocated for a workload no plugin touches.
    pub fn admit(&self, w: &mut Workload) {
        let rc = w
            .runtime_class
            .as_deref()
            .and_then(|n| self.runtime_classes.get(n));
        let object = Arc::clone(&w.object);
        let ns = if namespace_plugins(&self.config) {
            object
                .namespace
                .as_deref()
                .and_then(|n| self.namespaces.get(n).map(|ns| (n, ns)))
        } else {
            None
        };
        let ert = self.config.on(Plugin::ExtendedResourceToleration)
            && w.resources.iter().any(|r| is_extended_resource_name(r));
        if rc.is_none() && ns.is_none() && !ert {
            return;
        }
        let mut run = Run {
            selector: w
                .node_selector
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            tolerations: effective_tolerations(w),
            changes: Vec::new(),
            w,
        };
        let rejection = self.run(&mut run, ns, rc, ert).err().map(|mut r| {
            // A Pod object is created with its name (`pods "web" is forbidden: …`,
            // `NewForbidden` in apimachinery's pkg/api/errors/errors.go); a controller's pods
            // reach admission without one.
            if let (Some(rest), "Pod", Some(name)) = (
                r.api_error.strip_prefix(FORBIDDEN),
                &*run.w.kind,
                object.name.as_deref().filter(|n| !n.is_empty()),
            ) {
                r.api_error = format!(
                    "pods {} is forbidden: {rest}",
                    crate::analysis::validation::go_quote(name)
                );
            }
            r
        });
        let Run {
            selector,
            tolerations,
            changes,
            w,
        } = run;
        let mut admitted = Admitted {
            changes,
            rejection,
            ..Admitted::default()
        };
        let before = effective_tolerations(w);
        let tolerations_changed = before.len() != tolerations.len()
            || before
                .iter()
                .zip(&tolerations)
                .any(|(a, b)| !merge::same(a, b));
        if tolerations_changed {
            admitted.tolerations = Some(tolerations);
        }
        let selector_changed = selector.len() != w.node_selector.len()
            || selector
                .iter()
                .zip(&w.node_selector)
                .any(|((k, v), (k2, v2))| **k != **k2 || **v != **v2);
        if selector_changed {
            let merged = selector
                .iter()
                .map(|(k, v)| (intern(k), intern(v)))
                .collect();
            admitted.written_selector = Some(std::mem::replace(&mut w.node_selector, merged));
        }
        if admitted.tolerations.is_some()
            || admitted.written_selector.is_some()
            || admitted.rejection.is_some()
            || !admitted.changes.is_empty()
        {
            w.admission = Some(Box::new(admitted));
        }
    }

    fn run(
        &self,
        run: &mut Run<'_>,
        ns: Option<(&str, &Namespace)>,
        rc: Option<&RuntimeClassFacts>,
        ert: bool,
    ) -> Result<(), Rejection> {
        // OpenShift's plugins come before the Kubernetes ones.
        if let Some((_, n)) = ns
            && self.config.on(Plugin::OpenShiftProjectNodeSelector)
        {
            self.openshift(run, n)?;
        }
        let pns = match ns {
            Some((name, n)) if self.config.on(Plugin::PodNodeSelector) => {
                let sel = self.namespace_selector(n)?;
                Some((name, sel))
            }
            _ => None,
        };
        if let Some((name, sel)) = &pns {
            self.pod_node_selector(run, name, sel, true)?;
        }
        // (DefaultTolerationSeconds: already in `effective_tolerations`.)
        let ptr = match ns {
            Some((_, n)) if self.config.on(Plugin::PodTolerationRestriction) => Some(n),
            _ => None,
        };
        if let Some(n) = ptr {
            self.toleration_restriction(run, n)?;
        }
        if ert {
            extended_resource_toleration(run);
        }
        if let Some(rc) = rc {
            runtime_class(run, rc)?;
        }
        // The validation phase: the checks again, on the pod the later plugins changed.
        if let Some((name, sel)) = &pns {
            self.pod_node_selector(run, name, sel, false)?;
        }
        if let Some(n) = ptr {
            self.whitelist_check(run, n)?;
        }
        Ok(())
    }

    /// openshift/origin `pkg/project/admission/nodeenv/admission.go`: the project's
    /// `openshift.io/node-selector` (present, even empty, it wins over the cluster default),
    /// merged under the pod's own selector; a key with another value rejects the pod.
    fn openshift(&self, run: &mut Run<'_>, n: &Namespace) -> Result<(), Rejection> {
        let plugin = Plugin::OpenShiftProjectNodeSelector.name();
        let sel = match n.openshift.as_ref().or(self.openshift_default.as_ref()) {
            None => return Ok(()),
            Some(Ok(sel)) => sel,
            Some(Err(e)) => return Err(namespace_error(plugin, e, true)),
        };
        if let Some(c) = merge::conflict(sel, &run.selector) {
            return Err(with_detail(
                forbidden(
                    plugin,
                    "pod node label selector conflicts with its project node label selector",
                    true,
                ),
                conflict_detail("the project", c),
            ));
        }
        run.merge_selector(plugin, sel);
        Ok(())
    }

    /// The namespace's node selector (plugin/pkg/admission/podnodeselector/admission.go
    /// `getNodeSelectorMap`): its annotation when set (even empty), else the cluster default.
    fn namespace_selector(&self, n: &Namespace) -> Result<Selector, Rejection> {
        let plugin = Plugin::PodNodeSelector.name();
        match n.node_selector.as_ref().or(self.cluster_selector.as_ref()) {
            None => Ok(Selector::new()),
            Some(Ok(sel)) => Ok(sel.clone()),
            Some(Err(e)) => Err(namespace_error(plugin, e, true)),
        }
    }

    /// PodNodeSelector's `Admit` (`mutate`) and `Validate`: the namespace's selector must not
    /// conflict with the pod's, it is merged in (the pod's values win), and the result must
    /// stay within the namespace's entry of the plugin configuration.
    fn pod_node_selector(
        &self,
        run: &mut Run<'_>,
        namespace: &str,
        sel: &Selector,
        mutate: bool,
    ) -> Result<(), Rejection> {
        let plugin = Plugin::PodNodeSelector.name();
        if let Some(c) = merge::conflict(sel, &run.selector) {
            return Err(with_detail(
                forbidden(
                    plugin,
                    "pod node label selector conflicts with its namespace node label selector",
                    true,
                ),
                conflict_detail("the namespace", c),
            ));
        }
        if mutate {
            run.merge_selector(plugin, sel);
        }
        let empty = Selector::new();
        let whitelist = self.whitelists.get(namespace).unwrap_or(&empty);
        if !merge::is_subset(&run.selector, whitelist) {
            return Err(forbidden(
                plugin,
                "pod node label selector labels conflict with its namespace whitelist",
                true,
            ));
        }
        Ok(())
    }

    /// PodTolerationRestriction's `Admit` (plugin/pkg/admission/podtolerationrestriction/admission.go):
    /// the namespace's default tolerations (else the cluster's) and, for a pod that is not
    /// BestEffort, `node.kubernetes.io/memory-pressure:NoSchedule`, merged into the pod's
    /// (`MergeTolerations`: the current plugin no longer rejects a pod whose tolerations
    /// "conflict" with the namespace's, as older ones did with "namespace tolerations and pod
    /// tolerations conflict"), then the allow list is checked.
    fn toleration_restriction(&self, run: &mut Run<'_>, n: &Namespace) -> Result<(), Rejection> {
        let plugin = Plugin::PodTolerationRestriction.name();
        let defaults = match &n.defaults {
            Some(Ok(list)) => list.as_slice(),
            Some(Err(e)) => return Err(namespace_error(plugin, e, false)),
            None => self.default_tolerations.as_deref().unwrap_or_default(),
        };
        let mut extra: Vec<WorkloadToleration> =
            defaults.iter().map(|t| run.placed(t.clone())).collect();
        if !run.w.best_effort {
            extra.push(run.placed(toleration(
                "node.kubernetes.io/memory-pressure",
                "NoSchedule",
            )));
        }
        if !extra.is_empty() {
            let merged = merge::merge(&run.tolerations, &extra);
            run.record_tolerations(plugin, merged);
        }
        self.whitelist_check(run, n)
    }

    /// PodTolerationRestriction's `Validate`: every toleration of the pod must be covered by
    /// one of the namespace's allow list (else the cluster's).
    fn whitelist_check(&self, run: &Run<'_>, n: &Namespace) -> Result<(), Rejection> {
        let plugin = Plugin::PodTolerationRestriction.name();
        if run.tolerations.is_empty() {
            return Ok(());
        }
        let (whitelist, scope) = match &n.whitelist {
            Some(Ok(list)) => (list.as_slice(), "namespace"),
            Some(Err(e)) => return Err(namespace_error(plugin, e, false)),
            None => (self.whitelist.as_deref().unwrap_or_default(), "cluster"),
        };
        if whitelist.is_empty() || merge::allowed_by(&run.tolerations, whitelist) {
            return Ok(());
        }
        let message = format!(
            "pod tolerations (possibly merged with namespace default tolerations) conflict with its {scope} whitelist"
        );
        Err(Rejection {
            plugin: plugin.to_string(),
            api_error: message.clone(),
            message,
            about_selector: false,
            namespace_error: false,
            detail: merge::first_not_allowed(&run.tolerations, whitelist)
                .map_or_else(String::new, |t| {
                    format!("`{}` is not in the {scope}'s allow list", shown(t))
                }),
        })
    }
}

/// A Namespace annotation of PodTolerationRestriction: empty is an empty list.
fn tolerations_annotation(text: &str) -> Result<Vec<WorkloadToleration>, String> {
    if text.is_empty() {
        Ok(Vec::new())
    } else {
        json::tolerations(text)
    }
}

fn with_detail(mut r: Rejection, detail: String) -> Rejection {
    r.detail = detail;
    r
}

/// `K: V in the namespace, W in the pod`.
fn conflict_detail(whose: &str, (key, theirs, pod): (&str, &str, &str)) -> String {
    format!("{key} is {theirs:?} in {whose}'s selector, {pod:?} in the pod's")
}

fn forbidden(plugin: &str, message: &str, about_selector: bool) -> Rejection {
    Rejection {
        plugin: plugin.to_string(),
        message: message.to_string(),
        api_error: format!("{FORBIDDEN}{message}"),
        about_selector,
        namespace_error: false,
        detail: String::new(),
    }
}

fn namespace_error(plugin: &str, message: &str, about_selector: bool) -> Rejection {
    Rejection {
        plugin: plugin.to_string(),
        message: message.to_string(),
        api_error: message.to_string(),
        about_selector,
        namespace_error: true,
        detail: String::new(),
    }
}

/// `{key, operator: Exists, effect}`.
fn toleration(key: &str, effect: &str) -> WorkloadToleration {
    WorkloadToleration {
        key: intern(key),
        operator: intern("Exists"),
        value: intern(""),
        effect: intern(effect),
        seconds: None,
        span: Default::default(),
        path: intern(""),
        scalars: Default::default(),
    }
}

/// `helper.IsExtendedResourceName` (pkg/apis/core/helper/helpers.go): not in the
/// `kubernetes.io/` namespace (an unprefixed name is), no `requests.` prefix, and
/// `requests.<name>` a qualified name.
pub fn is_extended_resource_name(name: &str) -> bool {
    if !name.contains('/') || name.contains("kubernetes.io/") || name.starts_with("requests.") {
        return false;
    }
    crate::analysis::validation::label_key_errors(&format!("requests.{name}"), &Settings::default())
        .is_empty()
}

/// ExtendedResourceToleration (plugin/pkg/admission/extendedresourcetoleration/admission.go):
/// `{key: <resource>, operator: Exists, effect: NoSchedule}` for each extended resource the
/// containers or init containers request (limits default the requests), in name order.
fn extended_resource_toleration(run: &mut Run<'_>) {
    let plugin = Plugin::ExtendedResourceToleration.name();
    let names: BTreeSet<&str> = run
        .w
        .resources
        .iter()
        .map(|r| &**r)
        .filter(|r| is_extended_resource_name(r))
        .collect();
    let mut list = run.tolerations.clone();
    for name in names {
        let tol = run.placed(toleration(name, "NoSchedule"));
        merge::add_or_update(&mut list, tol);
    }
    run.record_tolerations(plugin, list);
}

/// RuntimeClass `setScheduling`: the class's node selector into the pod's (a key the pod has
/// with another value rejects it), its tolerations merged after the pod's.
fn runtime_class(run: &mut Run<'_>, rc: &RuntimeClassFacts) -> Result<(), Rejection> {
    let plugin = "RuntimeClass";
    let mut keys: Vec<&(String, String)> = rc.node_selector.iter().collect();
    keys.sort();
    for (key, value) in keys {
        match run.selector.iter_mut().find(|(k, _)| k == key) {
            Some((_, pod)) if pod != value => {
                let message = format!(
                    "conflict: runtimeClass.scheduling.nodeSelector[{key}] = {value}; pod.spec.nodeSelector[{key}] = {pod}"
                );
                return Err(Rejection {
                    plugin: plugin.to_string(),
                    api_error: format!("{FORBIDDEN}{message}"),
                    message,
                    about_selector: true,
                    namespace_error: false,
                    detail: String::new(),
                });
            }
            Some(_) => {}
            None => {
                run.selector.push((key.clone(), value.clone()));
                run.changes.push(Change {
                    plugin: plugin.to_string(),
                    action: "added".to_string(),
                    what: format!("nodeSelector {key}={value}"),
                });
            }
        }
    }
    run.selector.sort();
    // Placed at the pod's tolerations: its spans are read in the pod's file.
    let extra: Vec<WorkloadToleration> = rc
        .tolerations
        .iter()
        .map(|t| run.placed(t.clone()))
        .collect();
    let merged = merge::merge(&run.tolerations, &extra);
    run.record_tolerations(plugin, merged);
    Ok(())
}

/// One pod on its way through the plugins.
struct Run<'a> {
    selector: Vec<(String, String)>,
    tolerations: Vec<WorkloadToleration>,
    changes: Vec<Change>,
    w: &'a mut Workload,
}

impl Run<'_> {
    /// A toleration admission adds, placed where the workload's tolerations are.
    fn placed(&self, mut t: WorkloadToleration) -> WorkloadToleration {
        t.span = self.w.anchor;
        t
    }

    /// `sel` under the pod's selector (`labels.Merge(sel, pod)`: the pod's values win).
    fn merge_selector(&mut self, plugin: &str, sel: &Selector) {
        for (k, v) in sel {
            if !self.selector.iter().any(|(pk, _)| pk == k) {
                self.selector.push((k.clone(), v.clone()));
                self.changes.push(Change {
                    plugin: plugin.to_string(),
                    action: "added".to_string(),
                    what: format!("nodeSelector {k}={v}"),
                });
            }
        }
        self.selector.sort();
    }

    /// Takes `list` as the pod's tolerations, noting what `plugin` added and dropped.
    fn record_tolerations(&mut self, plugin: &str, list: Vec<WorkloadToleration>) {
        for t in &list {
            if !self.tolerations.iter().any(|o| merge::same(o, t)) {
                self.changes.push(Change {
                    plugin: plugin.to_string(),
                    action: "added".to_string(),
                    what: format!("toleration {}", shown(t)),
                });
            }
        }
        for t in &self.tolerations {
            if !list.iter().any(|n| merge::same(n, t)) {
                self.changes.push(Change {
                    plugin: plugin.to_string(),
                    action: "dropped".to_string(),
                    what: format!("toleration {} (another one covers it)", shown(t)),
                });
            }
        }
        self.tolerations = list;
    }
}

/// A toleration for messages, with its `tolerationSeconds`.
pub fn shown(t: &WorkloadToleration) -> String {
    match t.seconds {
        Some(s) => format!("{} ({s}s)", t.display()),
        None => t.display(),
    }
}

#[cfg(test)]
mod tests;
