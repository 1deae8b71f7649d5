//! What the workloads of a run select nodes on.

use super::workload::Workload;

/// What the workloads of a run select on: the label keys of their node selectors and
/// affinity terms, and whether any uses `matchFields`. It decides how node pools group
/// (`Inventory::build_for`, `PoolClasses`); a run collects it file by file.
#[derive(Clone, Debug, Default)]
pub struct Relevant {
    pub keys: std::collections::BTreeSet<String>,
    pub fields: bool,
}

impl Relevant {
    pub fn of(workloads: &[Workload]) -> Self {
        let mut r = Relevant::default();
        for w in workloads {
            r.add(w);
        }
        r
    }

    pub fn add(&mut self, w: &Workload) {
        for (k, _) in &w.node_selector {
            if !self.keys.contains(&**k) {
                self.keys.insert(k.to_string());
            }
        }
        for t in w.terms.iter().flat_map(|t| t.iter()) {
            for r in &t.expressions {
                if !self.keys.contains(&r.key) {
                    self.keys.insert(r.key.clone());
                }
            }
            self.fields |= !t.fields.is_empty();
        }
    }

    pub fn merge(&mut self, other: Relevant) {
        self.keys.extend(other.keys);
        self.fields |= other.fields;
    }
}
