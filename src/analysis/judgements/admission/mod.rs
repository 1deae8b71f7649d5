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
//!   (`openshift.io/node-selector`), the `scheduling.openshift.io/OriginPodNodeEnvironment`
//!   plugin of OpenShift 4's kube-apiserver (see `openshift`).
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
pub mod openshift;
mod plugins;

use std::collections::BTreeMap;
use std::sync::Arc;

use crate::analysis::judgements::schedule::effective_tolerations;
use crate::analysis::types::admitted::{Admitted, Change, Rejection};
use crate::analysis::types::{Workload, WorkloadToleration};
use crate::settings::Settings;
use crate::util::intern;

pub use facts::{Fact, NamespaceFacts, RuntimeClassFacts, fact};
use merge::Selector;
pub use plugins::is_extended_resource_name;
use plugins::{Run, tolerations_annotation};

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

/// A Namespace as the plugins read it.
struct Namespace {
    /// The API server refuses the Namespace (its annotations are over the size limit): the
    /// plugins never read it, and the cluster's own namespace of that name (if any) is not
    /// known, as for a Namespace the files do not have.
    refused: bool,
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
                            refused: ns.too_long,
                            node_selector: sel.map(|s| merge::parse_selector(&s, settings)),
                            openshift: openshift.map(|s| openshift::parse(&s, settings)),
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
            .then(|| openshift::parse(&config.openshift_default_node_selector, settings));
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
                .filter(|(_, ns)| !ns.refused)
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
                    crate::analysis::semantics::validation::go_quote(name)
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
