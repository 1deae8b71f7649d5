//! The classes of node pools (`schedule::PoolClasses`) indexed by what narrows them for one
//! workload: its node selection (label key and value) and its tolerations (taint key, or value
//! for a toleration without a key). A workload's verdicts are then worked out on the classes its
//! selector and its tolerations could admit, not on every class: an inventory of thousands of
//! distinct pools and thousands of distinct workloads costs about one evaluation per workload,
//! not one per pair. The index only narrows; each candidate is still evaluated exactly
//! (`schedule::evaluate`), so the verdicts are the same as evaluating every class.

use std::collections::HashMap;
use std::sync::Arc;

use crate::analysis::semantics::well_known::is_well_known_label;
use crate::analysis::types::{LabelValues, Pool, Requirement, Workload, WorkloadToleration};

/// Classes (their numbers), sorted, without repeats.
pub type Classes = Vec<u32>;

/// The classes' first pools, indexed.
#[derive(Debug, Default)]
pub struct ClassIndex {
    /// Label key, then value: the classes whose pools carry that value.
    values: HashMap<Arc<str>, HashMap<Arc<str>, Vec<u32>>>,
    /// Label key: the classes whose pools carry the key, whatever the value.
    keyed: HashMap<Arc<str>, Vec<u32>>,
    /// Label key: the classes whose pools carry the key with a value not known.
    any_value: HashMap<Arc<str>, Vec<u32>>,
    /// Classes whose pools may carry any label (a label set only partly known).
    any_label: Vec<u32>,
    /// Classes whose pools carry the well-known labels with some value (templates).
    open_labels: Vec<u32>,
    /// Blocking taint key: the classes with such a taint.
    taint_key: HashMap<Arc<str>, Vec<u32>>,
    /// Blocking taint key, then value: the classes with such a taint.
    taint_key_value: HashMap<Arc<str>, HashMap<Arc<str>, Vec<u32>>>,
    /// Blocking taint value: the classes with such a taint.
    taint_value: HashMap<Arc<str>, Vec<u32>>,
    /// Classes without a blocking taint; with only `NoSchedule` ones (or none); with only
    /// `NoExecute` ones (or none).
    untainted: Vec<u32>,
    no_schedule_only: Vec<u32>,
    no_execute_only: Vec<u32>,
    /// Some class runs the ExtendedResourceToleration plugin.
    extended_resources: bool,
    classes: usize,
}

fn push(map: &mut HashMap<Arc<str>, Vec<u32>>, key: &Arc<str>, c: u32) {
    let list = map.entry(Arc::clone(key)).or_default();
    if list.last() != Some(&c) {
        list.push(c);
    }
}

impl ClassIndex {
    /// The index of these classes, each given by its first pool (every pool of a class
    /// answers alike: see `PoolClasses`).
    pub fn new<'a>(reps: impl IntoIterator<Item = &'a Pool>) -> Self {
        let mut ix = ClassIndex::default();
        for (c, pool) in reps.into_iter().enumerate() {
            let c = u32::try_from(c).unwrap_or(u32::MAX);
            ix.classes += 1;
            for (key, values) in pool.all_labels() {
                push(&mut ix.keyed, &key, c);
                match values {
                    LabelValues::Any => push(&mut ix.any_value, &key, c),
                    LabelValues::OneOf(vs) => {
                        let by_value = ix.values.entry(Arc::clone(&key)).or_default();
                        for v in vs.iter() {
                            push(by_value, v, c);
                        }
                    }
                }
            }
            if pool.any_label {
                ix.any_label.push(c);
            }
            if pool.open_labels {
                ix.open_labels.push(c);
            }
            let (mut no_schedule, mut no_execute) = (false, false);
            for (_, t) in pool.blocking_taints() {
                push(&mut ix.taint_key, &t.taint.key, c);
                push(&mut ix.taint_value, &t.taint.value, c);
                push(
                    ix.taint_key_value
                        .entry(Arc::clone(&t.taint.key))
                        .or_default(),
                    &t.taint.value,
                    c,
                );
                match &*t.taint.effect {
                    "NoSchedule" => no_schedule = true,
                    _ => no_execute = true,
                }
            }
            if !no_schedule && !no_execute {
                ix.untainted.push(c);
            }
            if !no_execute {
                ix.no_schedule_only.push(c);
            }
            if !no_schedule {
                ix.no_execute_only.push(c);
            }
            ix.extended_resources |= pool.extended_resource_toleration;
        }
        ix
    }

    /// Classes whose pools may carry label `key` with one of `values` (`None`: any value).
    fn label(&self, key: &str, values: Option<&[&str]>) -> Classes {
        let mut out = Vec::new();
        match values {
            None => out.extend(self.keyed.get(key).into_iter().flatten()),
            Some(values) => {
                if let Some(by_value) = self.values.get(key) {
                    for v in values {
                        out.extend(by_value.get(*v).into_iter().flatten());
                    }
                }
                out.extend(self.any_value.get(key).into_iter().flatten());
            }
        }
        out.extend(&self.any_label);
        if is_well_known_label(key) {
            out.extend(&self.open_labels);
        }
        sorted(out)
    }

    /// The classes a requirement of a node selector term can hold on; `None` for one that
    /// narrows nothing (`NotIn`, `DoesNotExist`: pools without the key hold them).
    fn requirement(&self, r: &Requirement) -> Option<Classes> {
        match r.operator.as_str() {
            "In" => {
                let values: Vec<&str> = r.values.iter().map(String::as_str).collect();
                Some(self.label(&r.key, Some(&values)))
            }
            "Exists" | "Gt" | "Lt" => Some(self.label(&r.key, None)),
            "NotIn" | "DoesNotExist" => None,
            // An unknown operator matches no pool.
            _ => Some(Vec::new()),
        }
    }

    /// The classes the workload's node selection may admit (a superset); `None` when it does
    /// not narrow them (it selects nothing, or only with `NotIn`/`DoesNotExist`).
    pub fn selected(&self, w: &Workload) -> Option<Classes> {
        if !w.node_selector.is_empty() {
            // Every pair must hold: the narrowest one is enough.
            return w
                .node_selector
                .iter()
                .map(|(k, v)| self.label(k, Some(&[&**v])))
                .min_by_key(Vec::len);
        }
        let terms = w.terms.as_ref()?;
        // Terms are ORed: the union of what each term may hold on.
        let mut out = Vec::new();
        for term in terms.iter() {
            if term.expressions.is_empty() && term.fields.is_empty() {
                continue; // matches nothing
            }
            let narrowest = term
                .expressions
                .iter()
                .filter_map(|r| self.requirement(r))
                .min_by_key(Vec::len)?;
            out.extend(narrowest);
        }
        Some(sorted(out))
    }

    /// The classes whose taints these tolerations (and, on pools that run the plugin, the
    /// ExtendedResourceToleration of these resources) may all tolerate (a superset); `None`
    /// when they may tolerate any pool's.
    pub fn tolerable(
        &self,
        tolerations: &[WorkloadToleration],
        resources: &[Arc<str>],
        gate: bool,
    ) -> Option<Classes> {
        // Those they single out, and those whose every blocking taint the tolerations
        // without a key tolerate by effect.
        let mut out = self.singled_out(tolerations, resources, gate)?;
        let (mut no_schedule, mut no_execute) = (false, false);
        for t in tolerations
            .iter()
            .filter(|t| t.key.is_empty() && &*t.operator == "Exists")
        {
            match &*t.effect {
                "" => return None,
                "NoSchedule" => no_schedule = true,
                "NoExecute" => no_execute = true,
                // It tolerates no blocking taint.
                _ => {}
            }
        }
        out.extend(match (no_schedule, no_execute) {
            (true, true) => return None,
            (true, _) => &self.no_schedule_only,
            (_, true) => &self.no_execute_only,
            _ => &self.untainted,
        });
        Some(sorted(out))
    }

    /// The classes some of whose blocking taints these tolerations (or the
    /// ExtendedResourceToleration of these resources) name by key, or, without a key, by value:
    /// the only ones on which they may tolerate other taints than every `NoSchedule` or
    /// `NoExecute` one (tolerations with neither). `None`: every class (a toleration without a
    /// key compares values by number).
    pub fn singled_out(
        &self,
        tolerations: &[WorkloadToleration],
        resources: &[Arc<str>],
        gate: bool,
    ) -> Option<Classes> {
        let mut out: Vec<u32> = Vec::new();
        for t in tolerations {
            if !t.key.is_empty() {
                out.extend(self.keyed(t, gate));
                continue;
            }
            match &*t.operator {
                "" | "Equal" => out.extend(self.taint_value.get(&*t.value).into_iter().flatten()),
                "Lt" | "Gt" if gate => return None,
                _ => {}
            }
        }
        if self.extended_resources {
            for r in resources {
                out.extend(self.taint_key.get(&**r).into_iter().flatten());
            }
        }
        Some(sorted(out))
    }

    /// The classes whose pools carry label `key` with a value not known.
    pub fn any_value_of(&self, key: &str) -> &[u32] {
        self.any_value.get(key).map_or(&[], Vec::as_slice)
    }

    /// The classes with a blocking taint of one of these keys.
    pub fn with_taint_keys<'a>(&self, keys: impl IntoIterator<Item = &'a str>) -> Classes {
        let mut out = Vec::new();
        for k in keys {
            out.extend(self.taint_key.get(k).into_iter().flatten());
        }
        sorted(out)
    }

    /// The classes worth evaluating for this workload with these tolerations: those both its
    /// selection and its tolerations may admit (the smaller of the two lists), or every class.
    pub fn candidates(
        &self,
        w: &Workload,
        tolerations: &[WorkloadToleration],
        gate: bool,
    ) -> Classes {
        match (
            self.selected(w),
            self.tolerable(tolerations, &w.resources, gate),
        ) {
            (Some(a), Some(b)) => {
                if a.len() <= b.len() {
                    a
                } else {
                    b
                }
            }
            (Some(a), None) | (None, Some(a)) => a,
            (None, None) => (0..self.classes)
                .filter_map(|c| u32::try_from(c).ok())
                .collect(),
        }
    }
}

impl ClassIndex {
    /// The classes with a blocking taint a toleration with a key may tolerate: those with its
    /// key and value for `Equal` (or no operator), those with its key for `Exists` and the
    /// numeric comparisons (behind the gate); none for another operator (it tolerates nothing).
    fn keyed<'a>(&'a self, t: &WorkloadToleration, gate: bool) -> &'a [u32] {
        let found = match &*t.operator {
            "" | "Equal" => self
                .taint_key_value
                .get(&*t.key)
                .and_then(|by_value| by_value.get(&*t.value)),
            "Exists" => self.taint_key.get(&*t.key),
            "Lt" | "Gt" if gate => self.taint_key.get(&*t.key),
            _ => None,
        };
        found.map_or(&[], Vec::as_slice)
    }
}

fn sorted(mut v: Vec<u32>) -> Classes {
    v.sort_unstable();
    v.dedup();
    v
}
