//! The record codec: how a run's results (findings, workloads, suppressions) are encoded to be
//! moved out of memory (`engine::store`) and read back.
//!
//! Records are postcard (a compact binary serde format; the domain types derive serde). A record's
//! sources are written once, as a table of lite sources (name and recorded positions, see
//! `SourceFile::lite`), and every `Arc<SourceFile>` inside the record is written as an index into
//! that table: the encoder and decoder find the table in a thread-local context for the duration of
//! one call. A source that still holds its text (stdin, `--fix`) cannot be spilled: [`encode`] says
//! so and the caller keeps that record in memory.

use std::cell::RefCell;
use std::sync::Arc;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::load::SourceFile;
use crate::load::source::Packed;

thread_local! {
    /// The sources met while encoding one record, with the index of each by its address (a
    /// record may name thousands of files: found by lookup, not by a search of the table).
    static ENCODING: RefCell<Option<Table>> = const { RefCell::new(None) };
    /// The sources of the record being decoded.
    static DECODING: RefCell<Option<Vec<Arc<SourceFile>>>> = const { RefCell::new(None) };
}

/// The sources of a record being encoded, in order, and where each is.
#[derive(Default)]
struct Table {
    sources: Vec<Arc<SourceFile>>,
    at: std::collections::HashMap<*const SourceFile, usize>,
}

/// The index of `source` in the record's table (added on first sight).
fn source_index(source: &Arc<SourceFile>) -> Result<u32, &'static str> {
    if !source.is_lite() {
        return Err("a source with its text is not spilled");
    }
    ENCODING.with(|table| {
        let mut table = table.borrow_mut();
        let table = table.as_mut().ok_or("no record is being encoded")?;
        let next = table.sources.len();
        let at = *table.at.entry(Arc::as_ptr(source)).or_insert(next);
        if at == next {
            table.sources.push(Arc::clone(source));
        }
        u32::try_from(at).map_err(|_| "too many sources in one record")
    })
}

fn source_at(index: u32) -> Result<Arc<SourceFile>, &'static str> {
    DECODING.with(|table| {
        table
            .borrow()
            .as_ref()
            .and_then(|t| t.get(index as usize).cloned())
            .ok_or("a source index outside the record's table")
    })
}

/// `#[serde(with = "crate::load::codec::source")]` for an `Arc<SourceFile>` field.
pub mod source {
    use super::*;

    pub fn serialize<S: Serializer>(source: &Arc<SourceFile>, s: S) -> Result<S::Ok, S::Error> {
        let at = source_index(source).map_err(serde::ser::Error::custom)?;
        s.serialize_u32(at)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Arc<SourceFile>, D::Error> {
        source_at(u32::deserialize(d)?).map_err(serde::de::Error::custom)
    }
}

/// `#[serde(with = "crate::load::codec::opt_source")]` for an `Option<Arc<SourceFile>>` field.
pub mod opt_source {
    use super::*;

    pub fn serialize<S: Serializer>(
        source: &Option<Arc<SourceFile>>,
        s: S,
    ) -> Result<S::Ok, S::Error> {
        let at = source
            .as_ref()
            .map(source_index)
            .transpose()
            .map_err(serde::ser::Error::custom)?;
        at.serialize(s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(
        d: D,
    ) -> Result<Option<Arc<SourceFile>>, D::Error> {
        Option::<u32>::deserialize(d)?
            .map(source_at)
            .transpose()
            .map_err(serde::de::Error::custom)
    }
}

/// Encodes one record; `Err` when it cannot be spilled (a source with its text).
pub fn encode<T: Serialize>(value: &T) -> Result<Vec<u8>, String> {
    ENCODING.with(|t| *t.borrow_mut() = Some(Table::default()));
    let body = postcard::to_stdvec(value);
    let sources = ENCODING
        .with(|t| t.borrow_mut().take())
        .unwrap_or_default()
        .sources;
    let body = body.map_err(|e| e.to_string())?;
    let table: Vec<(&Arc<str>, &[Packed])> = sources
        .iter()
        .map(|s| s.lite_parts())
        .collect::<Option<_>>()
        .ok_or("a source with its text is not spilled")?;
    let head = postcard::to_stdvec(&table).map_err(|e| e.to_string())?;
    let head_len = u32::try_from(head.len()).map_err(|_| "record too large".to_string())?;
    let mut out = Vec::with_capacity(4 + head.len() + body.len());
    out.extend_from_slice(&head_len.to_le_bytes());
    out.extend_from_slice(&head);
    out.extend_from_slice(&body);
    Ok(out)
}

/// Decodes a record written by [`encode`].
pub fn decode<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, String> {
    let (len, rest) = bytes.split_first_chunk::<4>().ok_or("truncated record")?;
    let head_len = u32::from_le_bytes(*len) as usize;
    let (head, body) = rest.split_at_checked(head_len).ok_or("truncated record")?;
    let table: Vec<(Arc<str>, Vec<Packed>)> =
        postcard::from_bytes(head).map_err(|e| e.to_string())?;
    let sources = table
        .into_iter()
        .map(|(name, positions)| SourceFile::from_lite_parts(name, positions))
        .collect();
    DECODING.with(|t| *t.borrow_mut() = Some(sources));
    let value = postcard::from_bytes(body).map_err(|e| e.to_string());
    DECODING.with(|t| t.borrow_mut().take());
    value
}
