//! The index of the files with results, in output order, without holding it whole.
//!
//! A run has one entry per file with anything to report (its name and where its records
//! are), and the output is sorted by name. A list of every entry would grow with the corpus,
//! so the index is sorted externally: entries gather in a chunk, which, when full, is sorted
//! and written to the spill store as a run of small blocks. Whenever [`FAN`] runs of one size
//! have gathered, they are merged into one longer run, so that the runs stay few (a few
//! dozen for millions of entries) and each entry is rewritten once per level. At the end the
//! runs are merged, one block of each in memory at a time, with what is still in memory.
//! Entries that hold a report as it is (within the budget, or a source with its text) are
//! never written; the budget bounds them.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::run::{Content, Entry};
use crate::engine::store::{Slot, Store, StoreError};
use crate::load::codec;

/// Entries in one block of a run.
const BLOCK: usize = 64;

/// Runs of one level merged into one run of the next.
const FAN: usize = 8;

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
    /// Sorted runs, each a list of blocks, with its level (how many merges made it): levels
    /// never increase along the list.
    runs: Vec<(u32, Vec<Slot>)>,
}

impl Index {
    /// An index whose chunks scale with the run's budget (a budget of 0, which the tests use
    /// to spill everything, gives chunks of a few entries and so many runs to merge).
    pub(super) fn new(budget: usize) -> Self {
        Index {
            chunk: Vec::new(),
            chunk_size: (budget / 4096).clamp(8, 4096),
            kept: Vec::new(),
            runs: Vec::new(),
        }
    }

    pub(super) fn push(&mut self, entry: Entry, store: &mut Store) {
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
            match records.map(|r| codec::encode(&r)) {
                Some(Ok(bytes)) => run.push(store.put(&bytes)),
                // Never expected (spilled entries hold only slots and names): the entries
                // not written stay in memory.
                _ => break,
            }
            written += block.len();
        }
        self.kept.extend(chunk.into_iter().skip(written));
        self.runs.push((0, run));
        self.compact(store);
    }

    /// Merges the last [`FAN`] runs into one while they have one level.
    fn compact(&mut self, store: &mut Store) {
        while self.runs.len() >= FAN {
            let tail = self.runs.len() - FAN;
            let level = self.runs[tail].0;
            if self.runs[tail..].iter().any(|(l, _)| *l != level) {
                return;
            }
            let blocks: Vec<Vec<Slot>> = self.runs[tail..].iter().map(|(_, r)| r.clone()).collect();
            // A run that cannot be read back or written stays as it is: merging is only
            // to hold fewer blocks at the end.
            let Ok(merged) = merge_runs(blocks, store) else {
                return;
            };
            self.runs.truncate(tail);
            self.runs.push((level + 1, merged));
        }
    }

    /// The entries sorted by name, then input order.
    pub(super) fn into_sorted(self, store: &Store) -> Result<Sorted<'_>, StoreError> {
        let mut memory = self.chunk;
        memory.extend(self.kept);
        memory.sort_by(by_name);
        let mut sources = vec![Source {
            blocks: Vec::new().into_iter(),
            entries: memory.into_iter(),
        }];
        sources.extend(self.runs.into_iter().map(|(_, run)| Source {
            blocks: run.into_iter(),
            entries: Vec::new().into_iter(),
        }));
        Ok(Sorted {
            store,
            merge: Merge::new(sources, store)?,
            failed: false,
        })
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

fn read_block(store: &Store, slot: Slot) -> Result<impl Iterator<Item = Entry>, StoreError> {
    let records: Vec<Record> = codec::decode(&store.get(slot)?)?;
    Ok(records.into_iter().map(Record::into_entry))
}

/// A sorted sequence being merged: the entries of its current block, then its other blocks.
struct Source {
    blocks: std::vec::IntoIter<Slot>,
    entries: std::vec::IntoIter<Entry>,
}

/// Merges sorted sources; the store is passed to each step, so a merge can write to the
/// store it reads from (see [`merge_runs`]).
struct Merge {
    sources: Vec<Source>,
    /// Each source's next entry.
    fronts: Vec<Option<Entry>>,
    /// The fronts' sort keys and sources, smallest first.
    heads: BinaryHeap<Reverse<(Arc<str>, usize, usize)>>,
}

impl Merge {
    fn new(sources: Vec<Source>, store: &Store) -> Result<Self, StoreError> {
        let mut merge = Merge {
            fronts: (0..sources.len()).map(|_| None).collect(),
            heads: BinaryHeap::with_capacity(sources.len()),
            sources,
        };
        for at in 0..merge.sources.len() {
            merge.advance(at, store)?;
        }
        Ok(merge)
    }

    /// Moves source `at` to its next entry.
    fn advance(&mut self, at: usize, store: &Store) -> Result<(), StoreError> {
        let Some(source) = self.sources.get_mut(at) else {
            return Ok(());
        };
        let next = match source.entries.next() {
            Some(e) => Some(e),
            None => match source.blocks.next() {
                Some(slot) => {
                    source.entries = read_block(store, slot)?.collect::<Vec<_>>().into_iter();
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

    fn peek_name(&self) -> Option<&Arc<str>> {
        self.heads.peek().map(|Reverse((name, _, _))| name)
    }

    fn next(&mut self, store: &Store) -> Result<Option<Entry>, StoreError> {
        let Some(Reverse((_, _, at))) = self.heads.pop() else {
            return Ok(None);
        };
        let entry = self.fronts.get_mut(at).and_then(Option::take);
        self.advance(at, store)?;
        Ok(entry)
    }
}

/// Merges these runs into one, written to `store` block by block.
fn merge_runs(runs: Vec<Vec<Slot>>, store: &mut Store) -> Result<Vec<Slot>, StoreError> {
    let sources = runs
        .into_iter()
        .map(|run| Source {
            blocks: run.into_iter(),
            entries: Vec::new().into_iter(),
        })
        .collect();
    let mut merge = Merge::new(sources, store)?;
    let mut merged = Vec::new();
    loop {
        let mut block = Vec::with_capacity(BLOCK);
        while block.len() < BLOCK {
            match merge.next(store)? {
                Some(e) => block.push(
                    Record::of(&e).ok_or(StoreError::Corrupt("an index entry was not spilled"))?,
                ),
                None => break,
            }
        }
        if block.is_empty() {
            return Ok(merged);
        }
        merged.push(store.put(&codec::encode(&block).map_err(|e| e.to_string())?));
    }
}

/// The sorted entries: a merge of the runs and what stayed in memory.
pub(super) struct Sorted<'a> {
    store: &'a Store,
    merge: Merge,
    failed: bool,
}

impl Sorted<'_> {
    /// The name of the next entry.
    pub(super) fn peek_name(&self) -> Option<&Arc<str>> {
        self.merge.peek_name()
    }
}

impl Iterator for Sorted<'_> {
    type Item = Result<Entry, StoreError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failed {
            return None;
        }
        match self.merge.next(self.store) {
            Ok(entry) => entry.map(Ok),
            Err(e) => {
                self.failed = true;
                Some(Err(e))
            }
        }
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
        // 12 runs of 8 entries: the first 8 merged into one.
        let levels: Vec<u32> = index.runs.iter().map(|(l, _)| *l).collect();
        assert_eq!(levels, [1, 0, 0, 0, 0]);
        assert_eq!(index.chunk.len(), 4);
    }

    #[test]
    fn runs_stay_few() {
        // 1,250 runs of 8 entries: 1250 = 2*512 + 3*64 + 4*8 + 2, in base 8.
        let (store, index) = spilled(10_000);
        let levels: Vec<u32> = index.runs.iter().map(|(l, _)| *l).collect();
        assert_eq!(levels, [3, 3, 2, 2, 2, 1, 1, 1, 1, 0, 0]);
        let blocks: usize = index.runs.iter().map(|(_, r)| r.len()).sum();
        // Merged runs are written in full blocks: 4,096 entries in 64, 512 in 8, 64 in 1;
        // a run of 8 entries is one short block.
        assert_eq!(blocks, 2 * 64 + 3 * 8 + 4 + 2);
        let sorted: Vec<(String, usize)> = index
            .into_sorted(&store)
            .unwrap()
            .map(|e| {
                let e = e.unwrap();
                (e.name.to_string(), e.index)
            })
            .collect();
        let mut expected = names(10_000);
        expected.sort();
        assert_eq!(sorted, expected);
    }
}
