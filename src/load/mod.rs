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
    /// Not text at all: what it looks like ("a PNG image", "binary data").
    Binary(&'static str),
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
    // The file may have grown since `metadata`: never read more than the limit.
    read_limited(file, usize::try_from(meta.len()).unwrap_or(0), max_size)
}

/// Reads at most `max_size` bytes (a reader with more is `TooLarge`) and checks their
/// encoding: files and standard input alike.
pub(crate) fn read_limited(
    reader: impl Read,
    capacity: usize,
    max_size: u64,
) -> Result<String, ReadFailure> {
    let mut bytes = Vec::with_capacity(capacity);
    reader
        .take(max_size.saturating_add(1))
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

/// Checks the encoding of raw bytes: UTF-8 only, no NUL; binary content and UTF-16 are told
/// apart from text with a stray bad byte.
pub fn decode(bytes: Vec<u8>) -> Result<String, ReadFailure> {
    if bytes.starts_with(&[0xFF, 0xFE]) || bytes.starts_with(&[0xFE, 0xFF]) {
        return Err(ReadFailure::Utf16);
    }
    if let Some(what) = binary_kind(&bytes) {
        return Err(ReadFailure::Binary(what));
    }
    match String::from_utf8(bytes) {
        Ok(text) => {
            // `contains` is a memchr: scan byte by byte only when there is a NUL.
            if text.as_bytes().contains(&0)
                && let Some(offset) = text.bytes().position(|b| b == 0)
            {
                // UTF-16 of ASCII text without a BOM is valid UTF-8, with NULs.
                if looks_utf16(text.as_bytes()) {
                    return Err(ReadFailure::Utf16);
                }
                return Err(ReadFailure::Nul { offset, text });
            }
            Ok(text)
        }
        Err(err) => {
            let offset = err.utf8_error().valid_up_to();
            let bytes = err.into_bytes();
            if looks_utf16(&bytes) {
                return Err(ReadFailure::Utf16);
            }
            Err(ReadFailure::InvalidUtf8 {
                offset,
                lossy: String::from_utf8_lossy(&bytes).into_owned(),
            })
        }
    }
}

/// How much of a file [`binary_kind`] looks at.
const SNIFF: usize = 1024;

/// Signatures of common binary formats, for a clearer message.
const MAGIC: &[(&[u8], &str)] = &[
    (b"\x7fELF", "an ELF executable"),
    (b"\x89PNG\r\n\x1a\n", "a PNG image"),
    (b"\xff\xd8\xff", "a JPEG image"),
    (b"GIF87a", "a GIF image"),
    (b"GIF89a", "a GIF image"),
    (b"\x1f\x8b", "gzip data"),
    (b"PK\x03\x04", "a zip archive"),
    (b"%PDF-", "a PDF document"),
    (b"\xcf\xfa\xed\xfe", "a Mach-O executable"),
    (b"MZ", "a Windows executable"),
    (b"\0asm", "a WebAssembly module"),
];

/// UTF-16 without a BOM: in the first bytes, NULs on every other byte, next to ASCII.
fn looks_utf16(bytes: &[u8]) -> bool {
    let head = &bytes[..bytes.len().min(SNIFF) & !1];
    if head.len() < 4 {
        return false;
    }
    let pairs = head.len() / 2;
    let le = head
        .chunks_exact(2)
        .filter(|p| p[1] == 0 && p[0] != 0)
        .count();
    let be = head
        .chunks_exact(2)
        .filter(|p| p[0] == 0 && p[1] != 0)
        .count();
    le.max(be) * 10 >= pairs * 9
}

/// What a file that is not text looks like, judged from its first [`SNIFF`] bytes (no BOM, not
/// UTF-16): a known signature with a NUL or control character after it, or eight NULs and
/// control characters (other than tab, line ends, form feed and escape), which no manifest
/// has; a text with a stray NUL or control character stays a text, reported where it is.
fn binary_kind(bytes: &[u8]) -> Option<&'static str> {
    if bytes.starts_with(&[0xEF, 0xBB, 0xBF]) || looks_utf16(bytes) {
        return None;
    }
    let head = &bytes[..bytes.len().min(SNIFF)];
    let control = head
        .iter()
        .filter(|&&b| b < 0x20 && !matches!(b, b'\t' | b'\n' | b'\r' | 0x0c | 0x1b))
        .count();
    let magic = MAGIC
        .iter()
        .find(|(sig, _)| bytes.starts_with(sig))
        .map(|&(_, what)| what);
    if control == 0 {
        // A signature alone is not enough: `MZ` or `%PDF-` can start a text.
        return None;
    }
    (control >= 8 || magic.is_some()).then_some(magic.unwrap_or("binary data"))
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

#[cfg(test)]
mod tests {
    use super::*;

    fn failure(bytes: &[u8]) -> String {
        match decode(bytes.to_vec()) {
            Ok(_) => "text".into(),
            Err(ReadFailure::Binary(what)) => format!("binary: {what}"),
            Err(ReadFailure::Utf16) => "utf-16".into(),
            Err(ReadFailure::Nul { offset, .. }) => format!("nul at {offset}"),
            Err(ReadFailure::InvalidUtf8 { offset, .. }) => format!("utf-8 error at {offset}"),
            Err(e) => format!("{e:?}"),
        }
    }

    #[test]
    fn binary_files_are_not_utf16() {
        let png = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\x10\0\0\0\x10\x08\x06\0\0\0";
        assert_eq!(failure(png), "binary: a PNG image");
        let mut elf = b"\x7fELF\x02\x01\x01\0".to_vec();
        elf.extend([0u8; 56]);
        assert_eq!(failure(&elf), "binary: an ELF executable");
        // No signature: NULs and control bytes scattered in the first KB.
        let mut blob: Vec<u8> = (0..2000u32).map(|i| (i * 37 % 251) as u8).collect();
        blob[0] = b'k';
        assert_eq!(failure(&blob), "binary: binary data");
        // UTF-16 with and without a BOM stays UTF-16.
        let utf16: Vec<u8> = "kind: Pod\n"
            .encode_utf16()
            .flat_map(u16::to_le_bytes)
            .collect();
        assert_eq!(failure(&utf16), "utf-16");
        let be: Vec<u8> = "kind: Pod\n"
            .encode_utf16()
            .flat_map(u16::to_be_bytes)
            .collect();
        assert_eq!(failure(&be), "utf-16");
        // Text with one stray NUL or a bad byte, and text starting like a signature.
        assert_eq!(failure(b"kind: Pod\nx: a\0b\n"), "nul at 14");
        assert_eq!(failure(b"kind: Pod\nx: \xff\n"), "utf-8 error at 13");
        assert_eq!(failure(b"MZ: 1\nkind: Pod\n"), "text");
        assert_eq!(failure(b"\xef\xbb\xbfkind: Pod\n"), "text");
    }
}
