//! The index of the files with results, in output order, without holding it whole.
//!
//! A run has one entry per file with anything to report (its name and where its records
//! are), and the output is sorted by name. A list of every entry would grow with the corpus,
//! so the index is sorted externally: entries gather in a chunk, which, when full, is sorted
//! and written to the spill store as a run of small blocks. At the end the runs are merged,
//! one block of each in memory at a time, with what is still in memory. Entries that hold a
//! report as it is (within the budget, or a source with its text) are never written; the
//! budget bounds them.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::{Content, Entry};
use crate::spill::{self, Slot, Store};

/// Entries in one block of a run.
const BLOCK: usize = 64;

/// An entry as written in a run.
#[derive(Serialize, Deserialize)]
struct Record {
    name: Arc<str>,
    index: usize,
    inventory_only: bool,
    workloads: Option<Slot>,
    rest: Option<Slot>,
}

pub(super) struct Index {
    /// Entries not yet in a run.
    chunk: Vec<Entry>,
    /// Entries a chunk holds before it is written as a run.
    chunk_size: usize,
    /// Entries holding a report as it is.
    kept: Vec<Entry>,
    /// Sorted runs, each a list of blocks.
    runs: Vec<Vec<Slot>>,
}

impl Index {
    /// An index whose chunks scale with the run's budget (a budget of 0, which the tests use
    /// to spill everything, gives chunks of a few entries and so many runs to merge).
    pub fn new(budget: usize) -> Self {
        Index {
            chunk: Vec::new(),
            chunk_size: (budget / 4096).clamp(8, 4096),
            kept: Vec::new(),
            runs: Vec::new(),
        }
    }

    pub fn push(&mut self, entry: Entry, store: &mut Store) {
        if matches!(entry.content, Content::Kept(_)) {
            self.kept.push(entry);
            return;
        }
        self.chunk.push(entry);
        if self.chunk.len() >= self.chunk_size {
            self.flush(store);
        }
    }

    /// Writes the chunk as a sorted run (what cannot be encoded stays in memory).
    fn flush(&mut self, store: &mut Store) {
        let mut chunk = std::mem::take(&mut self.chunk);
        chunk.sort_by(by_name);
        let mut run = Vec::with_capacity(chunk.len().div_ceil(BLOCK));
        let mut written = 0;
        for block in chunk.chunks(BLOCK) {
            let records: Option<Vec<Record>> = block.iter().map(Record::of).collect();
            match records.map(|r| spill::encode(&r)) {
                Some(Ok(bytes)) => run.push(store.put(&bytes)),
                // Never expected (spilled entries hold only slots and names): the entries
                // not written stay in memory.
                _ => break,
            }
            written += block.len();
        }
        self.kept.extend(chunk.into_iter().skip(written));
        self.runs.push(run);
    }

    /// The entries sorted by name, then input order.
    pub fn into_sorted(self, store: &Store) -> Result<Sorted<'_>, String> {
        let mut memory = self.chunk;
        memory.extend(self.kept);
        memory.sort_by(by_name);
        let mut sources = vec![Source {
            blocks: Vec::new().into_iter(),
            entries: memory.into_iter(),
        }];
        sources.extend(self.runs.into_iter().map(|run| Source {
            blocks: run.into_iter(),
            entries: Vec::new().into_iter(),
        }));
        let mut sorted = Sorted {
            store,
            fronts: Vec::with_capacity(sources.len()),
            heads: BinaryHeap::with_capacity(sources.len()),
            sources,
            failed: false,
        };
        for at in 0..sorted.sources.len() {
            sorted.fronts.push(None);
            sorted.advance(at)?;
        }
        Ok(sorted)
    }
}

fn by_name(a: &Entry, b: &Entry) -> std::cmp::Ordering {
    (&a.name, a.index).cmp(&(&b.name, b.index))
}

impl Record {
    fn of(e: &Entry) -> Option<Record> {
        let Content::Spilled { workloads, rest } = e.content else {
            return None;
        };
        Some(Record {
            name: Arc::clone(&e.name),
            index: e.index,
            inventory_only: e.inventory_only,
            workloads,
            rest,
        })
    }

    fn into_entry(self) -> Entry {
        Entry {
            name: self.name,
            index: self.index,
            inventory_only: self.inventory_only,
            content: Content::Spilled {
                workloads: self.workloads,
                rest: self.rest,
            },
        }
    }
}

fn read_block(store: &Store, slot: Slot) -> Result<impl Iterator<Item = Entry>, String> {
    let records: Vec<Record> = spill::decode(&store.get(slot)?)?;
    Ok(records.into_iter().map(Record::into_entry))
}

/// A sorted sequence being merged: the entries of its current block, then its other blocks.
struct Source {
    blocks: std::vec::IntoIter<Slot>,
    entries: std::vec::IntoIter<Entry>,
}

/// The sorted entries: a merge of the runs and what stayed in memory.
pub(super) struct Sorted<'a> {
    store: &'a Store,
    sources: Vec<Source>,
    /// Each source's next entry.
    fronts: Vec<Option<Entry>>,
    /// The fronts' sort keys and sources, smallest first.
    heads: BinaryHeap<Reverse<(Arc<str>, usize, usize)>>,
    failed: bool,
}

impl Sorted<'_> {
    /// Moves source `at` to its next entry.
    fn advance(&mut self, at: usize) -> Result<(), String> {
        let Some(source) = self.sources.get_mut(at) else {
            return Ok(());
        };
        let next = match source.entries.next() {
            Some(e) => Some(e),
            None => match source.blocks.next() {
                Some(slot) => {
                    source.entries = read_block(self.store, slot)?
                        .collect::<Vec<_>>()
                        .into_iter();
                    source.entries.next()
                }
                None => None,
            },
        };
        if let Some(e) = &next {
            self.heads.push(Reverse((Arc::clone(&e.name), e.index, at)));
        }
        if let Some(front) = self.fronts.get_mut(at) {
            *front = next;
        }
        Ok(())
    }

    /// The name of the next entry.
    pub fn peek_name(&self) -> Option<&Arc<str>> {
        self.heads.peek().map(|Reverse((name, _, _))| name)
    }
}

impl Iterator for Sorted<'_> {
    type Item = Result<Entry, String>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failed {
            return None;
        }
        let Reverse((_, _, at)) = self.heads.pop()?;
        let entry = self.fronts.get_mut(at).and_then(Option::take);
        if let Err(e) = self.advance(at) {
            self.failed = true;
            return Some(Err(e));
        }
        entry.map(Ok)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(name: &str, index: usize) -> Entry {
        Entry {
            name: name.into(),
            index,
            inventory_only: index.is_multiple_of(5),
            content: Content::Spilled {
                workloads: None,
                rest: None,
            },
        }
    }

    /// Names in an order far from sorted, some repeated (a path given twice).
    fn names(n: usize) -> Vec<(String, usize)> {
        (0..n)
            .map(|i| (format!("f{:04}/x.yaml", (i * 7919) % (n / 2 + 1)), i))
            .collect()
    }

    /// An index of `n` entries with everything spilled.
    fn spilled(n: usize) -> (Store, Index) {
        let mut store = Store::new();
        let mut index = Index::new(0);
        for (name, i) in names(n) {
            index.push(entry(&name, i), &mut store);
        }
        (store, index)
    }

    #[test]
    fn merges_runs_and_memory_in_order() {
        for (budget, n) in [(0, 0), (0, 1), (0, 7), (0, 8), (0, 1000), (1 << 24, 1000)] {
            let mut store = Store::new();
            let mut index = Index::new(budget);
            let mut expected = Vec::new();
            for (name, i) in names(n) {
                let mut e = entry(&name, i);
                // Some entries hold a report as it is: those stay in memory.
                if i.is_multiple_of(3) {
                    e.content = Content::Kept(Box::default());
                }
                expected.push((name, i, i.is_multiple_of(5)));
                index.push(e, &mut store);
            }
            expected.sort();
            let sorted = index.into_sorted(&store).unwrap();
            let got: Vec<(String, usize, bool)> = sorted
                .map(|e| {
                    let e = e.unwrap();
                    (e.name.to_string(), e.index, e.inventory_only)
                })
                .collect();
            assert_eq!(got, expected, "budget {budget}, {n} entries");
        }
    }

    #[test]
    fn small_budgets_write_runs() {
        let (_store, index) = spilled(100);
        assert_eq!(index.runs.len(), 12);
        assert_eq!(index.chunk.len(), 4);
    }
}
