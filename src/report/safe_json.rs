//! The JSON escaping of every JSON output (`json`, `sarif`, `gitlab`, `rdjson`): JSON as
//! serde_json writes it, pretty or compact, with one difference: the characters
//! `crate::util::text::is_unsafe` names that JSON lets through raw (DEL, the C1 controls with
//! NEL and the 8-bit CSI among them, U+2028/U+2029, the bidi overrides) are written as
//! `\uXXXX` escapes too. Still the same JSON for any reader; on a terminal or in a CI log, no
//! control character of the input.

use std::io::{self, Write};

use serde::Serialize;
use serde_json::ser::{CompactFormatter, Formatter, PrettyFormatter};

/// Writes `value` as pretty JSON with every unsafe character escaped.
pub(super) fn write<T: Serialize>(out: &mut dyn Write, value: &T) -> io::Result<()> {
    let mut blocks = Blocks::new(out);
    let mut ser = serde_json::Serializer::with_formatter(&mut blocks, Safe(PrettyFormatter::new()));
    value.serialize(&mut ser).map_err(io::Error::other)?;
    blocks.finish()
}

/// Writes `value` as compact JSON (one line) with every unsafe character escaped.
pub(super) fn write_compact<T: Serialize>(out: &mut dyn Write, value: &T) -> io::Result<()> {
    let mut blocks = Blocks::new(out);
    let mut ser = serde_json::Serializer::with_formatter(&mut blocks, Safe(CompactFormatter));
    value.serialize(&mut ser).map_err(io::Error::other)?;
    blocks.finish()
}

/// Bytes gathered before they are passed on.
const BLOCK: usize = 64 << 10;

/// Gathers the many small writes of the serializer (a quote, a key, an indentation) and
/// passes them on [`BLOCK`] bytes at a time: each of them is then an append to a vector, not
/// a call through `dyn Write` (a report of half a million findings makes tens of millions).
struct Blocks<'a> {
    buf: Vec<u8>,
    out: &'a mut dyn Write,
}

impl<'a> Blocks<'a> {
    fn new(out: &'a mut dyn Write) -> Self {
        Blocks {
            buf: Vec::new(),
            out,
        }
    }

    /// Passes on what is left.
    fn finish(mut self) -> io::Result<()> {
        self.out.write_all(&self.buf)?;
        self.buf.clear();
        Ok(())
    }
}

impl Write for Blocks<'_> {
    #[inline]
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        self.write_all(bytes)?;
        Ok(bytes.len())
    }

    #[inline]
    fn write_all(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.buf.extend_from_slice(bytes);
        if self.buf.len() >= BLOCK {
            self.out.write_all(&self.buf)?;
            self.buf.clear();
        }
        Ok(())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.out.write_all(&self.buf)?;
        self.buf.clear();
        self.out.flush()
    }
}

/// The first character of `text` that `util::text::is_unsafe` names, and where. Reads
/// bytes: every such character is a control byte, DEL, or starts with 0xC2 (C1 controls),
/// 0xD8 (U+061C) or 0xE2 (U+2028, U+202A, U+2066…), so plain text is passed over without
/// decoding it (a report of half a million findings is mostly ASCII).
fn first_unsafe(text: &str) -> Option<(usize, char)> {
    let bytes = text.as_bytes();
    let mut from = 0;
    loop {
        let at = from + first_maybe(&bytes[from..])?;
        // `at` starts a character: the bytes looked for never continue one.
        let c = text[at..].chars().next()?;
        if crate::util::text::is_unsafe(c) {
            return Some((at, c));
        }
        from = at + c.len_utf8();
    }
}

/// Where the first byte of `bytes` is that may start what [`first_unsafe`] looks for. Eight
/// bytes at a time while they are all printable ASCII (`0x20..=0x7e`: a whole word tested at
/// once), then byte by byte.
fn first_maybe(bytes: &[u8]) -> Option<usize> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let mut clean = 0;
    for word in bytes.chunks_exact(8) {
        let Ok(word) = <[u8; 8]>::try_from(word) else {
            break;
        };
        let x = u64::from_le_bytes(word);
        // A byte below 0x20 borrows into its high bit; one above 0x7e has it set after +1
        // (or already).
        let below = x.wrapping_sub(ONES * 0x20) & !x & HIGH;
        let above = (x.wrapping_add(ONES) | x) & HIGH;
        if below | above != 0 {
            break;
        }
        clean += 8;
    }
    let rest = &bytes[clean..];
    rest.iter()
        .position(|&b| b < 0x20 || matches!(b, 0x7f | 0xC2 | 0xD8 | 0xE2))
        .map(|i| clean + i)
}

/// The bytes [`string`] looks at: what JSON escapes, and what starts a character
/// `util::text::is_unsafe` names (see [`first_unsafe`]).
static ATTENTION: [bool; 256] = {
    let mut t = [false; 256];
    let mut b = 0;
    while b < 0x20 {
        t[b] = true;
        b += 1;
    }
    t[b'"' as usize] = true;
    t[b'\\' as usize] = true;
    t[0x7f] = true;
    t[0xC2] = true;
    t[0xD8] = true;
    t[0xE2] = true;
    t
};

/// Appends `text` as a JSON string to `buf`, byte for byte as the [`write`] serializers
/// write it (serde_json's escapes, then [`Safe`]'s): for the writers that build their JSON
/// by hand (`json::write`). One pass over the bytes; plain text is copied in runs.
pub(super) fn string(buf: &mut Vec<u8>, text: &str) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let bytes = text.as_bytes();
    buf.push(b'"');
    let mut run = 0;
    let mut i = 0;
    while i < bytes.len() {
        // Plain bytes in a tight loop: most text is all plain.
        while bytes.get(i).is_some_and(|&b| !ATTENTION[usize::from(b)]) {
            i += 1;
        }
        let Some(&b) = bytes.get(i) else {
            break;
        };
        let short: &[u8] = match b {
            b'"' => b"\\\"",
            b'\\' => b"\\\\",
            b'\n' => b"\\n",
            b'\r' => b"\\r",
            b'\t' => b"\\t",
            0x08 => b"\\b",
            0x0c => b"\\f",
            0x00..=0x1f => b"",
            0x7f | 0xC2 | 0xD8 | 0xE2 => {
                // `i` starts a character: these bytes never continue one.
                let c = text[i..].chars().next().unwrap_or('\0');
                if !crate::util::text::is_unsafe(c) {
                    i += c.len_utf8();
                    continue;
                }
                buf.extend_from_slice(&bytes[run..i]);
                let _ = write!(buf, "\\u{:04x}", u32::from(c));
                i += c.len_utf8();
                run = i;
                continue;
            }
            _ => {
                i += 1;
                continue;
            }
        };
        buf.extend_from_slice(&bytes[run..i]);
        if short.is_empty() {
            // Another C0 control: `\u00XX`, as serde_json writes it.
            buf.extend_from_slice(b"\\u00");
            buf.push(HEX[usize::from(b >> 4)]);
            buf.push(HEX[usize::from(b & 0xf)]);
        } else {
            buf.extend_from_slice(short);
        }
        i += 1;
        run = i;
    }
    buf.extend_from_slice(&bytes[run..]);
    buf.push(b'"');
}

/// A formatter that writes what `F` writes, but with the unsafe characters of strings
/// escaped.
struct Safe<F>(F);

impl<F: Formatter> Formatter for Safe<F> {
    fn write_string_fragment<W: ?Sized + Write>(
        &mut self,
        writer: &mut W,
        fragment: &str,
    ) -> io::Result<()> {
        let mut rest = fragment;
        while let Some((at, c)) = first_unsafe(rest) {
            writer.write_all(&rest.as_bytes()[..at])?;
            write!(writer, "\\u{:04x}", u32::from(c))?;
            rest = &rest[at + c.len_utf8()..];
        }
        writer.write_all(rest.as_bytes())
    }

    fn begin_array<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.begin_array(w)
    }

    fn end_array<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.end_array(w)
    }

    fn begin_array_value<W: ?Sized + Write>(&mut self, w: &mut W, first: bool) -> io::Result<()> {
        self.0.begin_array_value(w, first)
    }

    fn end_array_value<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.end_array_value(w)
    }

    fn begin_object<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.begin_object(w)
    }

    fn end_object<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.end_object(w)
    }

    fn begin_object_key<W: ?Sized + Write>(&mut self, w: &mut W, first: bool) -> io::Result<()> {
        self.0.begin_object_key(w, first)
    }

    fn begin_object_value<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.begin_object_value(w)
    }

    fn end_object_value<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.end_object_value(w)
    }
}

#[cfg(test)]
mod tests {
    /// [`super::first_unsafe`] as it was before it read eight bytes at a time: one byte at a time.
    fn first_unsafe_bytewise(text: &str) -> Option<(usize, char)> {
        let bytes = text.as_bytes();
        let mut from = 0;
        while let Some(i) = bytes[from..]
            .iter()
            .position(|&b| b < 0x20 || matches!(b, 0x7f | 0xC2 | 0xD8 | 0xE2))
        {
            let at = from + i;
            let c = text[at..].chars().next()?;
            if crate::util::text::is_unsafe(c) {
                return Some((at, c));
            }
            from = at + c.len_utf8();
        }
        None
    }

    #[test]
    fn words_find_what_bytes_find() {
        let pieces = [
            "a",
            "plain text ",
            "é",
            "\u{85}",
            "\u{2028}",
            "\u{2019}",
            "\u{61c}",
            "\u{600}",
            "\u{7f}",
            "\t",
            "日本",
            "\u{202e}",
            "\u{a0}",
        ];
        let mut seed = 0x9e37_79b9_u64;
        for _ in 0..2000 {
            let mut text = String::new();
            seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
            let n = (seed >> 58) as usize;
            for k in 0..n {
                seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
                let pick = (seed >> 33) as usize % pieces.len();
                // Mostly plain text, so that the unsafe characters fall at every offset.
                text.push_str(if k % 3 == 0 { pieces[pick] } else { pieces[1] });
            }
            assert_eq!(
                super::first_unsafe(&text),
                first_unsafe_bytewise(&text),
                "{text:?}"
            );
        }
    }

    #[test]
    fn same_json_no_raw_controls() {
        let v = serde_json::json!({"a": ["x\u{2028}y\u{85}z\u{7f}\u{202e}", "日本\t\n\u{1b}"], "b": {}});
        let mut out = Vec::new();
        super::write(&mut out, &v).expect("write");
        let text = String::from_utf8(out).expect("utf-8");
        assert!(
            !text
                .chars()
                .any(|c| crate::util::text::is_unsafe(c) && c != '\n')
        );
        assert!(text.contains("\\u2028") && text.contains("\\u0085") && text.contains("\\u007f"));
        let back: serde_json::Value = serde_json::from_str(&text).expect("json");
        assert_eq!(back, v);
        assert_eq!(
            text,
            serde_json::to_string_pretty(&v)
                .expect("json")
                .replace('\u{2028}', "\\u2028")
                .replace('\u{85}', "\\u0085")
                .replace('\u{7f}', "\\u007f")
                .replace('\u{202e}', "\\u202e")
        );
    }

    /// [`super::string`] writes each string as the serializer does, hostile ones and
    /// multi-byte text included.
    #[test]
    fn string_is_the_serializers() {
        let mut texts: Vec<String> = crate::util::text::HOSTILE
            .iter()
            .flat_map(|h| [h.to_string(), format!("a{h}b"), format!("{h}{h}x")])
            .collect();
        texts.extend(
            [
                "",
                "plain",
                "q\"uote\\back",
                "日本語 é €𝄞",
                "\u{7f}\u{80}\u{a0}\u{61c}\u{2030}",
            ]
            .map(str::to_string),
        );
        texts.push((0u8..=0x7f).map(char::from).collect());
        for t in texts {
            let mut mine = Vec::new();
            super::string(&mut mine, &t);
            let mut theirs = Vec::new();
            super::write_compact(&mut theirs, &t).expect("write");
            assert_eq!(
                String::from_utf8_lossy(&mine),
                String::from_utf8_lossy(&theirs),
                "{t:?}"
            );
        }
    }

    /// Each hostile string, pretty and compact: no raw unsafe character, and the same value
    /// read back.
    #[test]
    fn hostile_strings_round_trip_escaped() {
        for h in crate::util::text::HOSTILE {
            let v = serde_json::json!({"k": h, h.to_string(): [h]});
            for compact in [false, true] {
                let mut out = Vec::new();
                if compact {
                    super::write_compact(&mut out, &v).expect("write");
                } else {
                    super::write(&mut out, &v).expect("write");
                }
                let text = String::from_utf8(out).expect("utf-8");
                assert!(
                    !text
                        .chars()
                        .any(|c| crate::util::text::is_unsafe(c) && c != '\n'),
                    "{h:?}: {text}"
                );
                assert_eq!(compact, !text.contains('\n'));
                let back: serde_json::Value = serde_json::from_str(&text).expect("json");
                assert_eq!(back, v);
            }
        }
    }
}
