//! A pool as the readers build it from evaluated values, and what each reader needs of a
//! value: its text, a map of labels, a list of taints. An unknown value claims nothing (see the
//! module's text): an unknown label value is "present, any value"; an unknown label map, or one
//! known in part, makes the pool's labels open (`any_label`: it may carry any other label),
//! the known ones staying; an unknown taint, or a list of taints known in part, makes taints
//! unknown. Each unknown part is recorded with its cause (`Provenance::unknown`).

use std::sync::Arc;

use crate::analysis::types::terraform::{Cause, Unknown};
use crate::analysis::types::{LabelValues, Labels, PoolTaint, UnknownTaints};

use super::value::{Look, Val};

/// Kubernetes' name of a taint effect as the cloud APIs spell it (`NO_SCHEDULE`), or as
/// Kubernetes does.
pub(super) fn k8s_effect(effect: &str) -> String {
    match effect {
        "NO_SCHEDULE" => "NoSchedule".to_string(),
        "NO_EXECUTE" => "NoExecute".to_string(),
        "PREFER_NO_SCHEDULE" => "PreferNoSchedule".to_string(),
        other => other.to_string(),
    }
}

/// A pool as it is read: its labels, its taints, whether its label set is only partly
/// known, and its size.
pub(super) struct Pool {
    pub(super) labels: Labels,
    pub(super) taints: Vec<PoolTaint>,
    pub(super) any_label: bool,
    /// GKE and EKS run the ExtendedResourceToleration admission plugin.
    pub(super) extended_resource_toleration: bool,
    pub(super) unknown_taints: UnknownTaints,
    /// The most nodes the pool has (its scaling limit, or its fixed size), when known.
    pub(super) max_nodes: Option<u32>,
    /// What is not known, and why.
    pub(super) unknown: Vec<Unknown>,
}

impl Pool {
    pub(super) fn new() -> Self {
        Pool {
            labels: Labels::new(),
            taints: Vec::new(),
            any_label: false,
            extended_resource_toleration: false,
            unknown_taints: UnknownTaints::None,
            max_nodes: None,
            unknown: Vec::new(),
        }
    }

    /// Records that `what` is unknown because of `cause` (once per part).
    pub(super) fn note(&mut self, what: &str, cause: &Cause) {
        if !self.unknown.iter().any(|u| &*u.what == what) {
            self.unknown.push(Unknown {
                what: what.into(),
                cause: cause.clone(),
            });
        }
    }

    /// Records the cause of an unknown value, if it is one.
    pub(super) fn note_val(&mut self, what: &str, v: &Val) {
        if let Some(c) = v.cause() {
            self.note(what, c);
        }
    }

    pub(super) fn label(&mut self, key: &str, value: Option<String>) {
        let values = value.map_or(LabelValues::Any, |v| LabelValues::one(&v));
        self.labels.insert(key, values);
    }

    /// A label whose value is `v` (unknown: present, any value).
    pub(super) fn label_val(&mut self, key: &str, v: &Val) {
        self.note_val(&format!("labels.{key}"), v);
        self.label(key, v.text());
    }

    /// A label the provider sets, unless the pool's own labels set it.
    pub(super) fn provider_label(&mut self, key: &str, value: Option<String>) {
        let values = value.map_or(LabelValues::Any, |v| LabelValues::one(&v));
        self.labels.insert_absent(key, values);
    }

    /// Every other label possible (the label set is known only in part).
    pub(super) fn open_labels(&mut self, cause: &Cause) {
        self.any_label = true;
        self.note("labels", cause);
    }

    /// A map of labels (`labels = { … }`): see the module's text.
    pub(super) fn label_map(&mut self, v: Option<&Val>) {
        let Some(v) = v else { return };
        if v.is_null() {
            return;
        }
        if let Some(c) = v.cause() {
            self.open_labels(c);
            return;
        }
        let Some(obj) = v.as_obj() else {
            self.open_labels(&Cause::Invalid(Arc::from("labels that are not a map")));
            return;
        };
        if let Some(c) = &obj.more {
            self.open_labels(c);
        }
        for (k, val) in &obj.entries {
            if val.is_null() {
                continue;
            }
            self.label_val(k, val);
        }
    }

    /// Any taint possible.
    pub(super) fn open_taints(&mut self, cause: &Cause) {
        self.unknown_taints = UnknownTaints::Any;
        self.note("taints", cause);
    }

    /// Every label and taint unknown (user data or a launch template this file does not
    /// show).
    pub(super) fn unknown(&mut self, cause: &Cause) {
        self.open_labels(cause);
        self.open_taints(cause);
    }
}

/// A field of an object value: the value when present and not null (an unknown object gives
/// an unknown value).
pub(super) fn field(v: &Val, key: &str) -> Option<Val> {
    v.look(key).val()
}

/// Is `key` of `v` true? (`None`: unknown.)
pub(super) fn flag(v: &Val, key: &str, absent: bool) -> Option<bool> {
    match v.look(key) {
        Look::Absent => Some(absent),
        Look::Present(x) if x.is_null() => Some(absent),
        Look::Present(x) => x.as_bool(),
        Look::Unknown(_) => None,
    }
}

/// The items of a list value (blocks, or a list attribute); `more`: there may be others
/// (unknown).
pub(super) fn list_items(v: Option<&Val>) -> (Vec<Val>, Option<Cause>) {
    match v {
        None => (Vec::new(), None),
        Some(v) if v.is_null() => (Vec::new(), None),
        Some(v) => match (v.as_seq(), v.as_obj(), v.cause()) {
            (Some(s), _, _) => (s.items.clone(), s.more.clone()),
            // A single block given as an object.
            (None, Some(_), _) => (vec![v.clone()], None),
            (None, None, Some(c)) => (Vec::new(), Some(c.clone())),
            _ => (
                Vec::new(),
                Some(Cause::Invalid(Arc::from("a list that is not a list"))),
            ),
        },
    }
}

/// The cause of an unknown that is not a value's own (made up for a value of the wrong type).
pub(super) fn wrong(what: &str) -> Cause {
    Cause::Invalid(Arc::from(format!("{what} of the wrong type").as_str()))
}
