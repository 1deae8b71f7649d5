//! The plugins' steps, in the API server's order (see the module above): each takes the pod
//! on its way (`Run`) and changes it, or refuses it with the plugin's own message.

use std::collections::{BTreeSet, HashSet};

use super::merge::{self, Selector};
use super::{
    Admission, Change, FORBIDDEN, Namespace, Plugin, Rejection, RuntimeClassFacts, json, shown,
};
use crate::analysis::types::{Workload, WorkloadToleration};
use crate::settings::Settings;
use crate::util::intern;

impl Admission {
    pub(super) fn run(
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

    /// `scheduling.openshift.io/OriginPodNodeEnvironment` (openshift/kubernetes
    /// `openshift-kube-apiserver/admission/scheduler/nodeenv/admission.go`, see `openshift`):
    /// nothing in a namespace with PodNodeSelector's annotation; else the project's
    /// `openshift.io/node-selector` (present, even empty, it wins over the cluster default),
    /// merged under the pod's own selector; a key with another value rejects the pod.
    fn openshift(&self, run: &mut Run<'_>, n: &Namespace) -> Result<(), Rejection> {
        let plugin = Plugin::OpenShiftProjectNodeSelector.name();
        if n.node_selector.is_some() {
            return Ok(());
        }
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

    /// PodTolerationRestriction's `Admit`
    /// (plugin/pkg/admission/podtolerationrestriction/admission.go): the namespace's default
    /// tolerations (else the cluster's) and, for a pod that is not BestEffort,
    /// `node.kubernetes.io/memory-pressure:NoSchedule`, merged into the pod's (`MergeTolerations`:
    /// the current plugin no longer rejects a pod whose tolerations "conflict" with the
    /// namespace's, as older ones did with "namespace tolerations and pod tolerations conflict"),
    /// then the allow list is checked.
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
        let refused = match whitelist.is_empty() {
            true => None,
            false => merge::first_not_allowed(&run.tolerations, whitelist),
        };
        let Some(refused) = refused else {
            return Ok(());
        };
        let message = format!(
            "pod tolerations (possibly merged with namespace default tolerations) conflict with its {scope} whitelist"
        );
        Err(Rejection {
            plugin: plugin.to_string(),
            api_error: message.clone(),
            message,
            about_selector: false,
            namespace_error: false,
            detail: format!("`{}` is not in the {scope}'s allow list", shown(refused)),
        })
    }
}

/// A Namespace annotation of PodTolerationRestriction: empty is an empty list.
pub(super) fn tolerations_annotation(text: &str) -> Result<Vec<WorkloadToleration>, String> {
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
    crate::analysis::semantics::validation::label_key_errors(
        &format!("requests.{name}"),
        &Settings::default(),
    )
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
    let added: Vec<WorkloadToleration> = names
        .into_iter()
        .map(|name| run.placed(toleration(name, "NoSchedule")))
        .collect();
    merge::add_or_update_all(&mut list, added);
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
pub(super) struct Run<'a> {
    pub(super) selector: Vec<(String, String)>,
    pub(super) tolerations: Vec<WorkloadToleration>,
    pub(super) changes: Vec<Change>,
    pub(super) w: &'a mut Workload,
}

impl Run<'_> {
    /// A toleration admission adds, placed where the workload's tolerations are.
    fn placed(&self, mut t: WorkloadToleration) -> WorkloadToleration {
        t.span = self.w.anchor;
        t
    }

    /// `sel` under the pod's selector (`labels.Merge(sel, pod)`: the pod's values win).
    fn merge_selector(&mut self, plugin: &str, sel: &Selector) {
        let own: HashSet<String> = self.selector.iter().map(|(k, _)| k.clone()).collect();
        for (k, v) in sel {
            if !own.contains(k) {
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
        let before: HashSet<merge::Ident<'_>> = self.tolerations.iter().map(merge::ident).collect();
        let after: HashSet<merge::Ident<'_>> = list.iter().map(merge::ident).collect();
        for t in &list {
            if !before.contains(&merge::ident(t)) {
                self.changes.push(Change {
                    plugin: plugin.to_string(),
                    action: "added".to_string(),
                    what: format!("toleration {}", shown(t)),
                });
            }
        }
        for t in &self.tolerations {
            if !after.contains(&merge::ident(t)) {
                self.changes.push(Change {
                    plugin: plugin.to_string(),
                    action: "dropped".to_string(),
                    what: format!("toleration {} (another one covers it)", shown(t)),
                });
            }
        }
        drop((before, after));
        self.tolerations = list;
    }
}
