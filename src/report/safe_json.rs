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
    let mut ser = serde_json::Serializer::with_formatter(out, Safe(PrettyFormatter::new()));
    value.serialize(&mut ser).map_err(io::Error::other)
}

/// Writes `value` as compact JSON (one line) with every unsafe character escaped.
pub(super) fn write_compact<T: Serialize>(out: &mut dyn Write, value: &T) -> io::Result<()> {
    let mut ser = serde_json::Serializer::with_formatter(out, Safe(CompactFormatter));
    value.serialize(&mut ser).map_err(io::Error::other)
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
