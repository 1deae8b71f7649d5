//! Load: find the input files (walker), read them safely, and parse them into YAML documents.
//! Every failure here becomes a finding for that file; only a path named on the command line
//! that does not exist is a tool error.

pub mod codec;
pub mod fast_yaml;
pub mod prescan;
pub mod source;
pub mod stdin;
pub mod walk;
pub mod yaml;
pub mod yaml11;

use std::fs::File;
use std::io::Read;
use std::path::Path;

pub use source::{Loc, Position, SourceFile, Span};

/// Why a file produced no documents.
#[derive(Debug)]
pub enum ReadFailure {
    /// The file could not be opened or read.
    Io(String),
    /// Not a regular file (FIFO, socket, device).
    NotRegular(&'static str),
    TooLarge {
        size: u64,
        limit: u64,
    },
    /// Bytes that are not UTF-8; the lossy text is kept for the snippet.
    InvalidUtf8 {
        offset: usize,
        lossy: String,
    },
    Utf16,
    Nul {
        offset: usize,
        text: String,
    },
}

/// Reads a file with the size limit checked before reading and the encoding verified.
pub fn read_file(path: &Path, max_size: u64) -> Result<String, ReadFailure> {
    let meta = std::fs::metadata(path).map_err(|e| ReadFailure::Io(e.to_string()))?;
    let ft = meta.file_type();
    if !ft.is_file() {
        return Err(ReadFailure::NotRegular(file_type_name(&ft)));
    }
    if meta.len() > max_size {
        return Err(ReadFailure::TooLarge {
            size: meta.len(),
            limit: max_size,
        });
    }
    let file = File::open(path).map_err(|e| ReadFailure::Io(e.to_string()))?;
    let mut bytes = Vec::with_capacity(usize::try_from(meta.len()).unwrap_or(0));
    // The file may have grown since `metadata`: never read more than the limit.
    file.take(max_size.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|e| ReadFailure::Io(e.to_string()))?;
    if bytes.len() as u64 > max_size {
        return Err(ReadFailure::TooLarge {
            size: bytes.len() as u64,
            limit: max_size,
        });
    }
    decode(bytes)
}

/// Checks the encoding of raw bytes: UTF-8 only, no NUL.
pub fn decode(bytes: Vec<u8>) -> Result<String, ReadFailure> {
    if bytes.starts_with(&[0xFF, 0xFE]) || bytes.starts_with(&[0xFE, 0xFF]) {
        return Err(ReadFailure::Utf16);
    }
    match String::from_utf8(bytes) {
        Ok(text) => {
            // `contains` is a memchr: scan byte by byte only when there is a NUL.
            if text.as_bytes().contains(&0)
                && let Some(offset) = text.bytes().position(|b| b == 0)
            {
                return Err(ReadFailure::Nul { offset, text });
            }
            Ok(text)
        }
        Err(err) => {
            let offset = err.utf8_error().valid_up_to();
            let bytes = err.into_bytes();
            // UTF-16 without a BOM shows up as NULs between ASCII bytes.
            if bytes.len() >= 4 && bytes.iter().take(64).filter(|&&b| b == 0).count() >= 8 {
                return Err(ReadFailure::Utf16);
            }
            Err(ReadFailure::InvalidUtf8 {
                offset,
                lossy: String::from_utf8_lossy(&bytes).into_owned(),
            })
        }
    }
}

fn file_type_name(ft: &std::fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if ft.is_fifo() {
            return "a FIFO";
        }
        if ft.is_socket() {
            return "a socket";
        }
        if ft.is_block_device() || ft.is_char_device() {
            return "a device";
        }
    }
    if ft.is_dir() {
        "a directory"
    } else {
        "not a regular file"
    }
}

/// A path as findings name it: lossy UTF-8, without a leading `./`.
pub fn display_path(p: &Path) -> String {
    let s = p.to_string_lossy();
    s.strip_prefix("./").unwrap_or(&s).to_string()
}
