//! The run's store: what a run must keep until its end (each file's findings, workloads and
//! suppressions, then the sorted findings) is encoded (`load::codec`) and moved out of memory
//! — to a small in-memory buffer first, to an unlinked temporary file once that fills — so
//! that peak memory does not grow with the number of files, findings or workloads.

use std::fs::File;
use std::io::Write;
#[cfg(not(unix))]
use std::io::{Read, Seek, SeekFrom};

use serde::{Deserialize, Serialize};

/// Reads `buf.len()` bytes at `offset` without moving the handle's position, so threads can
/// read back side by side (and writes keep appending at the end).
#[cfg(unix)]
fn read_at(
    file: &File,
    buf: &mut [u8],
    offset: u64,
    _lock: &std::sync::Mutex<()>,
) -> std::io::Result<()> {
    std::os::unix::fs::FileExt::read_exact_at(file, buf, offset)
}

/// Elsewhere: seek, read and seek back to the end, one thread at a time.
#[cfg(not(unix))]
fn read_at(
    file: &File,
    buf: &mut [u8],
    offset: u64,
    lock: &std::sync::Mutex<()>,
) -> std::io::Result<()> {
    let _one = lock
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let mut f: &File = file;
    f.seek(SeekFrom::Start(offset))?;
    f.read_exact(buf)?;
    f.seek(SeekFrom::End(0)).map(drop)
}

/// Where encoded records go: a buffer in memory up to `budget` bytes, then an unlinked
/// temporary file (when one cannot be made, everything stays in memory). Records bound for
/// the file are gathered and written [`WRITE`] bytes at a time; a record not yet written is
/// read from what is gathered.
pub struct Store {
    buffer: Vec<u8>,
    file: Option<File>,
    /// Records past the end of the file, not yet written (kept for good if a write fails).
    pending: Vec<u8>,
    /// The file's path when it could not be unlinked while open.
    path: Option<std::path::PathBuf>,
    /// Bytes written to the file.
    on_disk: u64,
    /// No file could be made or written: everything stays in memory.
    disk_failed: bool,
    /// Serialises reads where they move the handle's position (not on Unix).
    reading: std::sync::Mutex<()>,
    budget: usize,
}

/// Where one record is in a [`Store`].
#[derive(Clone, Copy, Debug, Serialize, Deserialize)]
pub struct Slot {
    in_file: bool,
    offset: u64,
    len: usize,
}

/// Bytes of encoded records a store keeps in memory before it moves to its file.
pub const BUFFER: usize = 1 << 20;

/// Bytes of records gathered before one write to the file.
const WRITE: usize = 64 << 10;

/// Bytes of results a run keeps as they are, unencoded, before it spills
/// (`TAINTLINT_SPILL_BUDGET` overrides it: the tests set 0 to spill everything to disk).
pub const DEFAULT_BUDGET: usize = 2 << 20;

/// A budget that keeps every result as it is (`--fix`, `explain`, `matrix`, tests).
pub const UNLIMITED: usize = usize::MAX / 4;

/// The run's budget (see [`DEFAULT_BUDGET`]).
pub fn budget() -> usize {
    std::env::var("TAINTLINT_SPILL_BUDGET")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(DEFAULT_BUDGET)
}

impl Store {
    pub fn new() -> Self {
        let budget = budget().min(BUFFER);
        Store {
            buffer: Vec::new(),
            file: None,
            pending: Vec::new(),
            path: None,
            on_disk: 0,
            disk_failed: false,
            reading: std::sync::Mutex::new(()),
            budget,
        }
    }

    pub fn put(&mut self, bytes: &[u8]) -> Slot {
        if self.buffer.len() + bytes.len() > self.budget && !self.disk_failed {
            if self.file.is_none() {
                match temp_file() {
                    Some((file, path)) => {
                        self.file = Some(file);
                        self.path = path;
                    }
                    None => self.disk_failed = true,
                }
            }
            if let Some(file) = &mut self.file {
                let offset = self.on_disk + self.pending.len() as u64;
                self.pending.extend_from_slice(bytes);
                if self.pending.len() >= WRITE {
                    if file.write_all(&self.pending).is_ok() {
                        self.on_disk += self.pending.len() as u64;
                        self.pending.clear();
                    } else {
                        // A failed write (disk full): the records already there stay
                        // readable, the gathered ones stay where they are, and the rest
                        // stays in memory.
                        self.disk_failed = true;
                    }
                }
                return Slot {
                    in_file: true,
                    offset,
                    len: bytes.len(),
                };
            }
        }
        if self.buffer.capacity() == 0 {
            // The buffer's full size at once: grown by doubling, it could take twice that.
            self.buffer.reserve_exact(self.budget.max(bytes.len()));
        }
        let offset = self.buffer.len() as u64;
        self.buffer.extend_from_slice(bytes);
        Slot {
            in_file: false,
            offset,
            len: bytes.len(),
        }
    }

    pub fn get(&self, slot: Slot) -> Result<Vec<u8>, StoreError> {
        if !slot.in_file {
            return copy_out(&self.buffer, slot.offset, slot.len);
        }
        if slot.offset >= self.on_disk {
            return copy_out(&self.pending, slot.offset - self.on_disk, slot.len);
        }
        let file = self.file.as_ref().ok_or(StoreError::FileGone)?;
        let mut bytes = vec![0; slot.len];
        read_at(file, &mut bytes, slot.offset, &self.reading).map_err(StoreError::Read)?;
        Ok(bytes)
    }
}

/// The `len` bytes at `start` of records held in memory.
fn copy_out(bytes: &[u8], start: u64, len: usize) -> Result<Vec<u8>, StoreError> {
    let start = usize::try_from(start).map_err(|_| StoreError::OutOfRange)?;
    bytes
        .get(start..start.saturating_add(len))
        .map(<[u8]>::to_vec)
        .ok_or(StoreError::OutOfRange)
}

/// Why a record could not be read back.
#[derive(Debug)]
pub enum StoreError {
    /// The temporary file the records went to is no longer open.
    FileGone,
    /// Reading the temporary file failed.
    Read(std::io::Error),
    /// A slot that points outside the records.
    OutOfRange,
    /// A record that does not decode (`load::codec`).
    Decode(String),
    /// Records that do not fit together (a bug, not the disk).
    Corrupt(&'static str),
    /// The place a node pool is declared at could not be read back.
    Places(String),
}

impl std::fmt::Display for StoreError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StoreError::FileGone => f.write_str("the spill file is gone"),
            StoreError::Read(e) => write!(f, "cannot read the spill file: {e}"),
            StoreError::OutOfRange => f.write_str("a record outside the spilled bytes"),
            StoreError::Decode(e) => f.write_str(e),
            StoreError::Corrupt(what) => f.write_str(what),
            StoreError::Places(e) => {
                write!(f, "cannot read back where a node pool is declared: {e}")
            }
        }
    }
}

impl std::error::Error for StoreError {}

/// A codec error met while reading records back.
impl From<String> for StoreError {
    fn from(e: String) -> Self {
        StoreError::Decode(e)
    }
}

impl Default for Store {
    fn default() -> Self {
        Store::new()
    }
}

/// A new temporary file, removed from its directory at once: Unix keeps an unlinked file
/// until its handle closes. Where the removal fails (Windows), the path is returned too and
/// the store removes it when dropped.
fn temp_file() -> Option<(File, Option<std::path::PathBuf>)> {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let dir = std::env::temp_dir();
    for _ in 0..8 {
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        let path = dir.join(format!(
            ".taintlint-spill-{}-{n}-{nanos}",
            std::process::id()
        ));
        if let Ok(file) = File::options()
            .read(true)
            .write(true)
            .create_new(true)
            .open(&path)
        {
            let left = std::fs::remove_file(&path).is_err().then_some(path);
            return Some((file, left));
        }
    }
    None
}

impl Drop for Store {
    fn drop(&mut self) {
        self.file = None;
        if let Some(path) = self.path.take() {
            let _ = std::fs::remove_file(path);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    use crate::diagnostic::{Finding, Related, Severity};
    use crate::load::SourceFile;
    use crate::load::Span;
    use crate::load::codec::{decode, encode};

    fn findings() -> Vec<Finding> {
        let text = "a: 1\nb: 2\nc: 3\n".to_string();
        let own = SourceFile::new("own.yaml", text.clone()).lite([0, 5, 8, 10]);
        let other = SourceFile::new("other.yaml", text).lite([10]);
        let mut f = Finding::new("unschedulable-workload", Severity::Error, "m")
            .primary(Span::new(5, 8), "here")
            .help("fixed text")
            .in_file(&own);
        f.related.push(Related {
            source: Arc::clone(&other),
            span: Span::new(10, 10),
            message: "there".to_string(),
        });
        let mut g = Finding::new("unreadable-file", Severity::Warning, "n");
        g.file = "gone.yaml".into();
        vec![f, g]
    }

    #[test]
    fn records_read_back_as_written() {
        let before = findings();
        let bytes = encode(&before).expect("lite sources spill");
        let after: Vec<Finding> = decode(&bytes).expect("decodes");
        assert_eq!(format!("{before:?}"), format!("{after:?}"));
        assert_eq!(after[0].range(), before[0].range());
        assert_eq!(
            after[0].related[0].source.position(10),
            before[0].related[0].source.position(10)
        );
        assert!(decode::<Vec<Finding>>(&bytes[..bytes.len() - 3]).is_err());
    }

    #[test]
    fn a_source_with_its_text_is_not_spilled() {
        let src = SourceFile::new("stdin", "a: 1\n".to_string());
        let f = Finding::new("unschedulable-workload", Severity::Error, "m").in_file(&src);
        assert!(encode(&vec![f]).is_err());
    }

    #[test]
    fn the_store_moves_to_a_file_past_its_budget() {
        let mut store = Store::new();
        store.budget = 8;
        let slots: Vec<Slot> = [&b"12345"[..], b"6789", b"abcdefgh"]
            .iter()
            .map(|b| store.put(b))
            .collect();
        assert!(!slots[0].in_file);
        assert_eq!(store.get(slots[2]).expect("read"), b"abcdefgh");
        assert_eq!(store.get(slots[0]).expect("read"), b"12345");
        assert_eq!(store.get(slots[1]).expect("read"), b"6789");
        let late = store.put(b"z");
        assert_eq!(store.get(late).expect("read"), b"z");
    }

    #[test]
    fn records_read_back_whether_written_or_still_gathered() {
        let mut store = Store::new();
        store.budget = 0;
        // Records of many sizes, past several writes; some are read back before the next
        // write, some after.
        let records: Vec<Vec<u8>> = (0..400usize)
            .map(|i| vec![(i % 251) as u8; (i * 397) % 2000 + 1])
            .collect();
        let mut slots = Vec::new();
        for r in &records {
            let slot = store.put(r);
            assert!(slot.in_file);
            assert_eq!(&store.get(slot).expect("just put"), r);
            slots.push(slot);
        }
        assert!(store.on_disk > 0, "some records were written");
        assert!(
            !store.pending.is_empty(),
            "the last ones are still gathered"
        );
        for (slot, r) in slots.iter().zip(&records) {
            assert_eq!(&store.get(*slot).expect("read"), r);
        }
    }
}
