//! What the admission plugins read from the linted files: Namespace objects (their scheduling
//! annotations) and RuntimeClasses (their `scheduling`), gathered file by file like the node
//! pools. Most files have neither: then nothing is kept.

use crate::analysis::semantics::validation::{TOTAL_ANNOTATION_SIZE_LIMIT, annotations_size};
use crate::analysis::types::WorkloadToleration;
use crate::load::yaml::Node;
use crate::model::Object;
use crate::util::intern;

/// `scheduler.alpha.kubernetes.io/node-selector` (PodNodeSelector, `NamespaceNodeSelectors` in
/// plugin/pkg/admission/podnodeselector/admission.go).
pub const NODE_SELECTOR: &str = "scheduler.alpha.kubernetes.io/node-selector";
/// PodTolerationRestriction's namespace defaults (`NSDefaultTolerations`).
pub const DEFAULT_TOLERATIONS: &str = "scheduler.alpha.kubernetes.io/defaultTolerations";
/// PodTolerationRestriction's allow list (`NSWLTolerations`).
pub const TOLERATIONS_WHITELIST: &str = "scheduler.alpha.kubernetes.io/tolerationsWhitelist";
/// OpenShift's project node selector (`ProjectNodeSelector` in openshift/api
/// `project/v1/types.go`).
pub const OPENSHIFT_NODE_SELECTOR: &str = "openshift.io/node-selector";

/// The annotations the plugins read.
pub const ANNOTATIONS: [&str; 4] = [
    NODE_SELECTOR,
    DEFAULT_TOLERATIONS,
    TOLERATIONS_WHITELIST,
    OPENSHIFT_NODE_SELECTOR,
];

/// A Namespace of the linted files: its name and the values of the annotations above (in
/// that order; `None`: not set).
#[derive(Clone, Debug)]
pub struct NamespaceFacts {
    pub name: String,
    pub annotations: [Option<String>; 4],
    /// Every annotation's key and value together are over the API server's limit
    /// (`TotalAnnotationSizeLimitB`): it refuses the Namespace, so no plugin reads them.
    pub too_long: bool,
}

/// A RuntimeClass of the linted files with a `scheduling` section.
#[derive(Clone, Debug)]
pub struct RuntimeClassFacts {
    pub name: String,
    pub node_selector: Vec<(String, String)>,
    pub tolerations: Vec<WorkloadToleration>,
}

#[derive(Clone, Debug)]
pub enum Fact {
    Namespace(NamespaceFacts),
    RuntimeClass(RuntimeClassFacts),
}

/// The fact an object gives, if any.
pub fn fact(object: &Object<'_>) -> Option<Fact> {
    match (object.kind, object.group) {
        ("Namespace", "") => namespace(object),
        ("RuntimeClass", "node.k8s.io") => runtime_class(object),
        _ => None,
    }
}

fn name_of(object: &Object<'_>) -> Option<String> {
    object.id.name.clone().filter(|n| !n.is_empty())
}

/// The bytes an object's annotations take as the API server counts them
/// (`ValidateAnnotationsSize`); of a key written twice, the last counts.
pub fn annotations_bytes(annotations: &Node) -> usize {
    let Some(entries) = annotations.as_map() else {
        return 0;
    };
    let mut last: std::collections::HashMap<&str, &str> = std::collections::HashMap::new();
    for (k, v) in entries {
        let Some(key) = k.text() else { continue };
        let value = if v.is_null() {
            ""
        } else {
            v.text().unwrap_or("")
        };
        last.insert(key, value);
    }
    annotations_size(last)
}

/// The Namespace's annotations take more bytes than the API server allows: it refuses the
/// object.
pub fn annotations_too_long(annotations: &Node) -> bool {
    annotations_bytes(annotations) > TOTAL_ANNOTATION_SIZE_LIMIT
}

fn namespace(object: &Object<'_>) -> Option<Fact> {
    let name = name_of(object)?;
    let annotations = object.annotations?;
    let mut values: [Option<String>; 4] = Default::default();
    for (slot, key) in values.iter_mut().zip(ANNOTATIONS) {
        *slot = annotations.get(key).map(|v| {
            if v.is_null() {
                String::new()
            } else {
                v.text().unwrap_or("").to_string()
            }
        });
    }
    values.iter().any(Option::is_some).then(|| {
        let too_long = annotations_too_long(annotations);
        if too_long {
            // Not read: the API server refuses the Namespace before any plugin sees it.
            values = Default::default();
        }
        Fact::Namespace(NamespaceFacts {
            name,
            annotations: values,
            too_long,
        })
    })
}

fn runtime_class(object: &Object<'_>) -> Option<Fact> {
    let name = name_of(object)?;
    let spec = object.pod_specs.first()?;
    let node_selector: Vec<(String, String)> = spec
        .selector_entries()
        .filter_map(|(k, v)| Some((k.text()?.to_string(), text(v))))
        .collect();
    let tolerations: Vec<WorkloadToleration> = spec
        .tolerations
        .iter()
        .map(|t| WorkloadToleration::of(t, intern(&format!("RuntimeClass/{name} {}", t.path))))
        .collect();
    if node_selector.is_empty() && tolerations.is_empty() {
        return None;
    }
    Some(Fact::RuntimeClass(RuntimeClassFacts {
        name,
        node_selector,
        tolerations,
    }))
}

fn text(n: &Node) -> String {
    if n.is_null() {
        String::new()
    } else {
        n.text().unwrap_or("").to_string()
    }
}
