//! Load: find the input files (walker), read them safely, and parse them into YAML documents.
//! Every failure here becomes a finding for that file; only a path named on the command line
//! that does not exist is a tool error.

pub mod codec;
pub mod fast_yaml;
mod flow_indent;
pub mod gitattributes;
pub(crate) mod go_json;
mod goyaml;
pub mod json;
pub mod kubectl;
pub mod lines;
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
    /// UTF-16 or UTF-32 (see [`Utf`]), told by the YAML spec's byte order mark and null
    /// patterns (YAML 1.2 §5.2), or by NULs on every other byte; true with a byte order mark.
    Utf(Utf, bool),
    /// UTF-16 with a byte order mark, decoded as kubectl decodes it (cli-runtime's
    /// `FileVisitor` reads every file and standard input through
    /// `unicode.BOMOverride(unicode.UTF8.NewDecoder())`: a UTF-16 byte order mark switches to
    /// UTF-16, an unpaired surrogate becomes U+FFFD). The text holds no NUL.
    Utf16 {
        utf: Utf,
        text: String,
    },
    /// Not text at all: what it looks like ("a PNG image", "binary data").
    Binary(&'static str),
    /// Encrypted, or a pointer to content kept elsewhere: what it is ("git-crypt", "SOPS",
    /// "ansible-vault", "PGP", "Git LFS pointer"). No manifest, whatever its name.
    Sealed(&'static str),
    Nul {
        offset: usize,
        text: String,
    },
}

/// A UTF-16 or UTF-32 encoding, as the YAML spec's encoding detection tells it (§5.2,
/// "Character Encodings": the byte order mark, or else the pattern of NULs in the first
/// character, which is ASCII in any YAML stream).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Utf {
    Utf16Le,
    Utf16Be,
    Utf32Le,
    Utf32Be,
}

impl Utf {
    /// `UTF-16` or `UTF-32`.
    pub fn family(self) -> &'static str {
        match self {
            Utf::Utf16Le | Utf::Utf16Be => "UTF-16",
            Utf::Utf32Le | Utf::Utf32Be => "UTF-32",
        }
    }

    /// The name with the byte order, which iconv needs when no byte order mark tells it.
    pub fn name(self) -> &'static str {
        match self {
            Utf::Utf16Le => "UTF-16LE",
            Utf::Utf16Be => "UTF-16BE",
            Utf::Utf32Le => "UTF-32LE",
            Utf::Utf32Be => "UTF-32BE",
        }
    }
}

/// The encoding of a stream that is not UTF-8, by YAML 1.2 §5.2's table, in its order: the
/// UTF-32 patterns before the UTF-16 ones they begin with (`FF FE 00 00` is a UTF-32LE byte
/// order mark, not a UTF-16LE one followed by a NUL). `bool`: with a byte order mark.
pub fn detect_utf(bytes: &[u8]) -> Option<(Utf, bool)> {
    match bytes {
        [0x00, 0x00, 0xFE, 0xFF, ..] => Some((Utf::Utf32Be, true)),
        [0x00, 0x00, 0x00, x, ..] if *x != 0 => Some((Utf::Utf32Be, false)),
        [0xFF, 0xFE, 0x00, 0x00, ..] => Some((Utf::Utf32Le, true)),
        [x, 0x00, 0x00, 0x00, ..] if *x != 0 => Some((Utf::Utf32Le, false)),
        [0xFE, 0xFF, ..] => Some((Utf::Utf16Be, true)),
        [0x00, x, ..] if *x != 0 => Some((Utf::Utf16Be, false)),
        [0xFF, 0xFE, ..] => Some((Utf::Utf16Le, true)),
        [x, 0x00, ..] if *x != 0 => Some((Utf::Utf16Le, false)),
        _ => None,
    }
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

/// The most a config, policy or baseline file may hold: none is near it, and a link to
/// `/dev/zero` or a multi-gigabyte file must not be read until memory runs out.
pub const MAX_SETTINGS_FILE: u64 = 64 * 1024 * 1024;

impl ReadFailure {
    /// Is the file not text (binary, NULs, bytes that are not UTF-8, UTF-16 or -32)?
    pub fn is_not_text(&self) -> bool {
        matches!(
            self,
            ReadFailure::Binary(_)
                | ReadFailure::Nul { .. }
                | ReadFailure::InvalidUtf8 { .. }
                | ReadFailure::Utf(..)
                | ReadFailure::Utf16 { .. }
        )
    }
}

/// Reads a file the run is configured by (config, policy, baseline) with the checks manifests
/// get: a regular file (a FIFO would block the run, a device never end), at most
/// [`MAX_SETTINGS_FILE`] bytes, UTF-8. `Err` says why not, for a tool error.
pub fn read_settings_file(path: &Path) -> Result<String, String> {
    read_file(path, MAX_SETTINGS_FILE).map_err(|e| match e {
        ReadFailure::Io(e) => e,
        ReadFailure::NotRegular(what) => format!("not a regular file ({what}); it was not opened"),
        ReadFailure::TooLarge { size, limit } => {
            format!("{size} bytes, over the {limit}-byte limit; it was not read")
        }
        ReadFailure::InvalidUtf8 { offset, .. } => format!("not valid UTF-8 (byte {offset})"),
        ReadFailure::Utf(utf, _) | ReadFailure::Utf16 { utf, .. } => {
            format!("{} encoded, not UTF-8", utf.family())
        }
        ReadFailure::Binary(what) => format!("binary ({what}), not text"),
        ReadFailure::Sealed(what) => format!("{what}, not text it can read"),
        ReadFailure::Nul { offset, .. } => format!("holds a NUL byte (byte {offset})"),
    })
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
    // git-crypt's header starts with a NUL, which the null patterns below could take for
    // UTF-16: an encrypted file's own format decides first.
    if let Some(what) = sealed_kind(&bytes) {
        return Err(ReadFailure::Sealed(what));
    }
    // A byte order mark decides; the null patterns of a first ASCII character only when the
    // rest looks like UTF-16/32 too (a text that happens to start `a\0` is a text with a NUL).
    match detect_utf(&bytes) {
        Some((utf @ (Utf::Utf16Le | Utf::Utf16Be), true)) => return Err(utf16(utf, &bytes)),
        Some((utf, true)) => return Err(ReadFailure::Utf(utf, true)),
        Some((utf, false)) if looks_wide(&bytes, utf) => {
            return Err(ReadFailure::Utf(utf, false));
        }
        _ => {}
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
                if let Some(utf) = utf16_by_nuls(text.as_bytes()) {
                    return Err(ReadFailure::Utf(utf, false));
                }
                return Err(ReadFailure::Nul { offset, text });
            }
            Ok(text)
        }
        Err(err) => {
            let offset = err.utf8_error().valid_up_to();
            let bytes = err.into_bytes();
            if let Some(utf) = utf16_by_nuls(&bytes) {
                return Err(ReadFailure::Utf(utf, false));
            }
            Err(ReadFailure::InvalidUtf8 {
                offset,
                lossy: String::from_utf8_lossy(&bytes).into_owned(),
            })
        }
    }
}

/// UTF-16 with a byte order mark, decoded as kubectl decodes it ([`ReadFailure::Utf16`]): an
/// unpaired surrogate or an odd last byte is U+FFFD. A text with a NUL (which go-yaml and
/// `encoding/json` refuse) stays refused.
fn utf16(utf: Utf, bytes: &[u8]) -> ReadFailure {
    let units = bytes
        .get(2..)
        .unwrap_or_default()
        .chunks(2)
        .map(|p| match p {
            [a, b] if utf == Utf::Utf16Le => u16::from_le_bytes([*a, *b]),
            [a, b] => u16::from_be_bytes([*a, *b]),
            // An odd last byte: no unit, a replacement character.
            _ => 0xD800,
        });
    let text: String = char::decode_utf16(units)
        .map(|c| c.unwrap_or(char::REPLACEMENT_CHARACTER))
        .collect();
    if text.contains('\0') {
        return ReadFailure::Utf(utf, true);
    }
    ReadFailure::Utf16 { utf, text }
}

/// What an encrypted file, or a pointer to content kept elsewhere, is — told by its own
/// format, whatever the file's name:
/// - git-crypt: an encrypted file starts with `\0GITCRYPT\0` (git-crypt's `commands.cpp`,
///   the header its clean filter writes);
/// - ansible-vault: `$ANSIBLE_VAULT;` (ansible's `parsing/vault`, `b_HEADER`);
/// - an ASCII-armoured PGP message (RFC 4880 §6.2);
/// - a Git LFS pointer: `version https://git-lfs.github.com/spec/v1` (git-lfs `docs/spec.md`);
/// - SOPS: values written as `ENC[AES256_GCM,data:…]` with the `sops` metadata key beside
///   them (getsops/sops, `stores/`), at the start of a line in YAML or as a JSON key.
pub fn sealed_kind(bytes: &[u8]) -> Option<&'static str> {
    let head = bytes.trim_ascii_start();
    if bytes.starts_with(b"\0GITCRYPT\0") {
        return Some("git-crypt");
    }
    if head.starts_with(b"$ANSIBLE_VAULT;") {
        return Some("ansible-vault");
    }
    if head.starts_with(b"-----BEGIN PGP MESSAGE-----") {
        return Some("PGP");
    }
    if head.starts_with(b"version https://git-lfs.github.com/spec/") {
        return Some("Git LFS pointer");
    }
    if memchr::memmem::find(bytes, b"ENC[AES256_GCM,data:").is_some()
        && (bytes.starts_with(b"sops:")
            || memchr::memmem::find(bytes, b"\nsops:").is_some()
            || memchr::memmem::find(bytes, b"\"sops\":").is_some())
    {
        return Some("SOPS");
    }
    None
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
fn utf16_by_nuls(bytes: &[u8]) -> Option<Utf> {
    let head = &bytes[..bytes.len().min(SNIFF) & !1];
    if head.len() < 4 {
        return None;
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
    if le.max(be) * 10 < pairs * 9 {
        return None;
    }
    Some(if le >= be { Utf::Utf16Le } else { Utf::Utf16Be })
}

fn looks_utf16(bytes: &[u8]) -> bool {
    utf16_by_nuls(bytes).is_some()
}

/// A stream without a byte order mark whose first character has YAML's null pattern for
/// `utf`: UTF-32 has no other plausible reading of `00 00 00 x` or `x 00 00 00`; UTF-16 needs
/// the line ends to agree (a line feed as a 16-bit unit where the first one ends), so that
/// non-ASCII UTF-16 text is told apart from a UTF-8 text with one stray NUL.
fn looks_wide(bytes: &[u8], utf: Utf) -> bool {
    let head = &bytes[..bytes.len().min(SNIFF)];
    match utf {
        Utf::Utf32Le | Utf::Utf32Be => true,
        Utf::Utf16Le => head.chunks_exact(2).any(|p| p == [b'\n', 0]),
        Utf::Utf16Be => head.chunks_exact(2).any(|p| p == [0, b'\n']),
    }
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
            Err(ReadFailure::Sealed(what)) => format!("sealed: {what}"),
            Err(ReadFailure::Utf(utf, _) | ReadFailure::Utf16 { utf, .. }) => {
                utf.name().to_lowercase()
            }
            Err(ReadFailure::Nul { offset, .. }) => format!("nul at {offset}"),
            Err(ReadFailure::InvalidUtf8 { offset, .. }) => format!("utf-8 error at {offset}"),
            Err(e) => format!("{e:?}"),
        }
    }

    #[test]
    fn encrypted_files_and_pointers_are_sealed() {
        assert_eq!(
            failure(b"\0GITCRYPT\0\x8f\x1d\xff\x00"),
            "sealed: git-crypt"
        );
        assert_eq!(
            failure(b"$ANSIBLE_VAULT;1.1;AES256\n6162\n"),
            "sealed: ansible-vault"
        );
        assert_eq!(
            failure(b"\n-----BEGIN PGP MESSAGE-----\n\nhQEMA\n"),
            "sealed: PGP"
        );
        assert_eq!(
            failure(b"version https://git-lfs.github.com/spec/v1\noid sha256:4d7a\nsize 12345\n"),
            "sealed: Git LFS pointer"
        );
        let sops = b"apiVersion: v1\nkind: Secret\ndata:\n  pw: ENC[AES256_GCM,data:q1w=,iv:x,tag:y,type:str]\nsops:\n  mac: ENC[AES256_GCM,data:z]\n";
        assert_eq!(failure(sops), "sealed: SOPS");
        let json =
            br#"{"data": {"pw": "ENC[AES256_GCM,data:q1w=,type:str]"}, "sops": {"mac": "x"}}"#;
        assert_eq!(failure(json), "sealed: SOPS");
        // The same words in a manifest's prose, or `ENC[` without SOPS's metadata, are text.
        assert_eq!(
            failure(b"# decrypt: ENC[AES256_GCM,data:...] values\nkind: ConfigMap\n"),
            "text"
        );
        assert_eq!(failure(b"kind: ConfigMap\ndata:\n  sops: yes\n"), "text");
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
        assert_eq!(failure(&utf16), "utf-16le");
        let be: Vec<u8> = "kind: Pod\n"
            .encode_utf16()
            .flat_map(u16::to_be_bytes)
            .collect();
        assert_eq!(failure(&be), "utf-16be");
        // Text with one stray NUL or a bad byte, and text starting like a signature.
        assert_eq!(failure(b"kind: Pod\nx: a\0b\n"), "nul at 14");
        assert_eq!(failure(b"kind: Pod\nx: \xff\n"), "utf-8 error at 13");
        assert_eq!(failure(b"MZ: 1\nkind: Pod\n"), "text");
        assert_eq!(failure(b"\xef\xbb\xbfkind: Pod\n"), "text");
    }

    /// YAML 1.2 §5.2's detection table: byte order marks and the null patterns of an ASCII
    /// first character, UTF-32 before the UTF-16 patterns it starts with. Non-ASCII text
    /// without a BOM (whose NULs are not on every other byte) is still UTF-16, not "a NUL".
    #[test]
    fn utf16_and_utf32_with_and_without_a_bom() {
        let text = "kind: Pod # 日本語のコメント、長い長い長い長い\nmetadata: {name: ä}\n";
        let utf16le: Vec<u8> = text.encode_utf16().flat_map(u16::to_le_bytes).collect();
        let utf16be: Vec<u8> = text.encode_utf16().flat_map(u16::to_be_bytes).collect();
        let utf32le: Vec<u8> = text
            .chars()
            .flat_map(|c| u32::from(c).to_le_bytes())
            .collect();
        let utf32be: Vec<u8> = text
            .chars()
            .flat_map(|c| u32::from(c).to_be_bytes())
            .collect();
        let bom = |bom: &[u8], body: &[u8]| [bom, body].concat();
        for (bytes, want) in [
            (utf16le.clone(), "utf-16le"),
            (utf16be.clone(), "utf-16be"),
            (utf32le.clone(), "utf-32le"),
            (utf32be.clone(), "utf-32be"),
            (bom(&[0xFF, 0xFE], &utf16le), "utf-16le"),
            (bom(&[0xFE, 0xFF], &utf16be), "utf-16be"),
            (bom(&[0xFF, 0xFE, 0, 0], &utf32le), "utf-32le"),
            (bom(&[0, 0, 0xFE, 0xFF], &utf32be), "utf-32be"),
        ] {
            assert_eq!(failure(&bytes), want, "{:x?}", &bytes[..8]);
        }
        // A UTF-8 text with a NUL after its first character is a text with a NUL.
        assert_eq!(failure(b"a\0: 1\nb: 2\n"), "nul at 1");
    }

    /// UTF-16 with a byte order mark is decoded as kubectl decodes it; an unpaired surrogate
    /// and an odd last byte are U+FFFD; a NUL keeps it refused.
    #[test]
    fn utf16_with_a_byte_order_mark_is_decoded() {
        let text = "kind: Pod # 日本語\n";
        for (bom, be) in [([0xFF, 0xFE], false), ([0xFE, 0xFF], true)] {
            let mut bytes = bom.to_vec();
            for u in text.encode_utf16() {
                bytes.extend(if be { u.to_be_bytes() } else { u.to_le_bytes() });
            }
            let mut odd = bytes.clone();
            odd.push(b'x');
            match (decode(bytes), decode(odd)) {
                (
                    Err(ReadFailure::Utf16 { text: t, .. }),
                    Err(ReadFailure::Utf16 { text: o, .. }),
                ) => {
                    assert_eq!(t, text);
                    assert_eq!(o, format!("{text}\u{fffd}"));
                }
                other => panic!("{other:?}"),
            }
        }
        let lone = [0xFF, 0xFE, b'a', 0, 0x00, 0xD8, b'b', 0];
        assert!(
            matches!(decode(lone.to_vec()), Err(ReadFailure::Utf16 { text, .. }) if text == "a\u{fffd}b")
        );
        let nul = [0xFF, 0xFE, b'a', 0, 0, 0, b'b', 0];
        assert!(matches!(
            decode(nul.to_vec()),
            Err(ReadFailure::Utf(Utf::Utf16Le, true))
        ));
    }
}
