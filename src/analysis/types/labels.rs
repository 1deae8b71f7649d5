//! A pool's labels: the values its nodes may carry under each key, as one shared set.

use std::sync::Arc;

use crate::util::intern;

/// What a pool's nodes may carry under one label key.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum LabelValues {
    /// Present, with a value the declaration does not fix.
    Any,
    /// Present, with one of these values (shared strings: see [`Labels`]).
    OneOf(Box<[Arc<str>]>),
}

impl LabelValues {
    /// Present with exactly this value.
    pub fn one(value: &str) -> Self {
        LabelValues::OneOf(Box::new([intern(value)]))
    }

    /// Present with one of these values.
    pub fn of<S: AsRef<str>>(values: impl IntoIterator<Item = S>) -> Self {
        LabelValues::OneOf(values.into_iter().map(|v| intern(v.as_ref())).collect())
    }
}

/// A node's or template's labels, sorted by key. Keys and values are shared strings
/// (`util::intern`) in one shared vector: an inventory can declare thousands of pools with
/// the same few labels, and the cross-reference keeps every pool for the whole run, so the
/// inventory keeps one copy of each label set ([`Labels::share`]). Changing shared labels
/// copies them first.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Labels(Arc<Vec<(Arc<str>, LabelValues)>>);

impl Labels {
    pub fn new() -> Self {
        Labels::default()
    }

    /// These labels, as the copy in `table` when it holds an equal set (added otherwise).
    pub fn share(self, table: &mut std::collections::HashSet<Labels>) -> Labels {
        if let Some(shared) = table.get(&self) {
            return shared.clone();
        }
        table.insert(self.clone());
        self
    }

    fn find(&self, key: &str) -> Result<usize, usize> {
        self.0.binary_search_by(|(k, _)| (**k).cmp(key))
    }

    pub fn get(&self, key: &str) -> Option<&LabelValues> {
        self.find(key).ok().map(|i| &self.0[i].1)
    }

    /// Sets `key` to `values`, replacing what it had.
    pub fn insert(&mut self, key: &str, values: LabelValues) {
        match self.find(key) {
            Ok(i) => Arc::make_mut(&mut self.0)[i].1 = values,
            Err(i) => Arc::make_mut(&mut self.0).insert(i, (intern(key), values)),
        }
    }

    /// Sets `key` to `values` unless it has a value already.
    pub fn insert_absent(&mut self, key: &str, values: LabelValues) {
        if let Err(i) = self.find(key) {
            Arc::make_mut(&mut self.0).insert(i, (intern(key), values));
        }
    }

    pub fn remove(&mut self, key: &str) -> Option<LabelValues> {
        let i = self.find(key).ok()?;
        Some(Arc::make_mut(&mut self.0).remove(i).1)
    }

    pub fn iter(&self) -> impl Iterator<Item = (&Arc<str>, &LabelValues)> {
        self.0.iter().map(|(k, v)| (k, v))
    }

    /// Gives back the room left over from building.
    pub fn shrink_to_fit(&mut self) {
        if let Some(labels) = Arc::get_mut(&mut self.0) {
            labels.shrink_to_fit();
        }
    }
}

impl<K: AsRef<str>> FromIterator<(K, LabelValues)> for Labels {
    fn from_iter<I: IntoIterator<Item = (K, LabelValues)>>(iter: I) -> Self {
        let mut labels = Labels::new();
        for (k, v) in iter {
            labels.insert(k.as_ref(), v);
        }
        labels.shrink_to_fit();
        labels
    }
}
