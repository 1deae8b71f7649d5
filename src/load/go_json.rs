//! The syntax check of Go's `encoding/json`, and its words for a syntax error: for the error
//! text the API server returns when a Namespace's PodTolerationRestriction annotation is not
//! JSON (`analysis::judgements::admission`), and for the JSON streams kubectl reads (`super::json`).
//!
//! `json.Unmarshal` (src/encoding/json/decode.go in the Go distribution) first runs
//! `checkValid` over the whole input with the state machine of src/encoding/json/scanner.go
//! and returns its first `SyntaxError`, whose `Error()` is the bare message: `unexpected end of
//! JSON input`, or `invalid character C CONTEXT` with `C` formatted by `quoteChar` (`'x'`,
//! `'\''`, `'"'`, `'\n'`, `'\x00'`, `'\u00a0'`, …). A syntax error therefore wins over any
//! type error, wherever it is. `extractNSTolerations` in
//! plugin/pkg/admission/podtolerationrestriction/admission.go (kubernetes/kubernetes) returns
//! that error unwrapped. This is a re-implementation of that state machine, byte by byte, as
//! Go scans: bytes outside strings are judged one at a time, so the first byte of a multi-byte
//! UTF-8 character is the one named, read as a Latin-1 code point (`string(c)` of a byte).

/// Go's `maxNestingDepth`.
const MAX_DEPTH: usize = 10_000;

#[derive(Clone, Copy)]
enum Frame {
    ObjectKey,
    ObjectValue,
    ArrayValue,
}

#[derive(Clone, Copy)]
enum State {
    BeginValueOrEmpty,
    BeginValue,
    BeginStringOrEmpty,
    BeginString,
    EndValue,
    EndTop,
    InString,
    InStringEsc,
    /// Hex digits of `\u` still expected.
    InStringEscU(u8),
    Neg,
    One,
    Zero,
    Dot,
    Dot0,
    E,
    ESign,
    E0,
    /// A literal (`true`, `false`, `null`) and the index of its next expected byte.
    Literal(&'static str, usize),
}

struct Scanner {
    state: State,
    stack: Vec<Frame>,
    end_top: bool,
}

fn is_space(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\r' | b'\n')
}

/// Go's `quoteChar`: a byte as a quoted character literal.
fn quote_char(c: u8) -> String {
    match c {
        b'\'' => r"'\''".to_string(),
        b'"' => "'\"'".to_string(),
        b'\\' => r"'\\'".to_string(),
        0x07 => r"'\a'".to_string(),
        0x08 => r"'\b'".to_string(),
        0x0c => r"'\f'".to_string(),
        b'\n' => r"'\n'".to_string(),
        b'\r' => r"'\r'".to_string(),
        b'\t' => r"'\t'".to_string(),
        0x0b => r"'\v'".to_string(),
        // `strconv.Quote`: control characters and DEL as `\xHH`.
        0x00..=0x1f | 0x7f => format!("'\\x{c:02x}'"),
        // C1 controls, NO-BREAK SPACE and SOFT HYPHEN are not `strconv.IsPrint`.
        0x80..=0xa0 | 0xad => format!("'\\u{c:04x}'"),
        _ => format!("'{}'", char::from(c)),
    }
}

/// Go's `SyntaxError` text for the byte `c` in `context` (`after object key`, …).
pub(crate) fn invalid(c: u8, context: &str) -> String {
    format!("invalid character {} {context}", quote_char(c))
}

impl Scanner {
    fn push(&mut self, c: u8, frame: Frame, next: State) -> Result<(), String> {
        self.stack.push(frame);
        if self.stack.len() > MAX_DEPTH {
            return Err(invalid(c, "exceeded max depth"));
        }
        self.state = next;
        Ok(())
    }

    fn pop(&mut self) {
        self.stack.pop();
        if self.stack.is_empty() {
            self.state = State::EndTop;
            self.end_top = true;
        } else {
            self.state = State::EndValue;
        }
    }

    fn begin_value(&mut self, c: u8) -> Result<(), String> {
        match c {
            _ if is_space(c) => {}
            b'{' => return self.push(c, Frame::ObjectKey, State::BeginStringOrEmpty),
            b'[' => return self.push(c, Frame::ArrayValue, State::BeginValueOrEmpty),
            b'"' => self.state = State::InString,
            b'-' => self.state = State::Neg,
            b'0' => self.state = State::Zero,
            b't' => self.state = State::Literal("true", 1),
            b'f' => self.state = State::Literal("false", 1),
            b'n' => self.state = State::Literal("null", 1),
            b'1'..=b'9' => self.state = State::One,
            _ => return Err(invalid(c, "looking for beginning of value")),
        }
        Ok(())
    }

    fn end_value(&mut self, c: u8) -> Result<(), String> {
        let Some(&top) = self.stack.last() else {
            self.state = State::EndTop;
            self.end_top = true;
            return self.end_top(c);
        };
        if is_space(c) {
            self.state = State::EndValue;
            return Ok(());
        }
        match (top, c) {
            (Frame::ObjectKey, b':') => {
                self.set_top(Frame::ObjectValue);
                self.state = State::BeginValue;
            }
            (Frame::ObjectKey, _) => return Err(invalid(c, "after object key")),
            (Frame::ObjectValue, b',') => {
                self.set_top(Frame::ObjectKey);
                self.state = State::BeginString;
            }
            (Frame::ObjectValue, b'}') | (Frame::ArrayValue, b']') => self.pop(),
            (Frame::ObjectValue, _) => return Err(invalid(c, "after object key:value pair")),
            (Frame::ArrayValue, b',') => self.state = State::BeginValue,
            (Frame::ArrayValue, _) => return Err(invalid(c, "after array element")),
        }
        Ok(())
    }

    fn set_top(&mut self, frame: Frame) {
        if let Some(top) = self.stack.last_mut() {
            *top = frame;
        }
    }

    fn end_top(&mut self, c: u8) -> Result<(), String> {
        if is_space(c) {
            Ok(())
        } else {
            Err(invalid(c, "after top-level value"))
        }
    }

    fn step(&mut self, c: u8) -> Result<(), String> {
        let digit = c.is_ascii_digit();
        match self.state {
            State::BeginValueOrEmpty if c == b']' => self.end_value(c),
            State::BeginValueOrEmpty | State::BeginValue => self.begin_value(c),
            State::BeginStringOrEmpty if c == b'}' => {
                self.set_top(Frame::ObjectValue);
                self.end_value(c)
            }
            State::BeginStringOrEmpty | State::BeginString => match c {
                _ if is_space(c) => Ok(()),
                b'"' => {
                    self.state = State::InString;
                    Ok(())
                }
                _ => Err(invalid(c, "looking for beginning of object key string")),
            },
            State::EndValue => self.end_value(c),
            State::EndTop => self.end_top(c),
            State::InString => {
                match c {
                    b'"' => self.state = State::EndValue,
                    b'\\' => self.state = State::InStringEsc,
                    0x00..=0x1f => return Err(invalid(c, "in string literal")),
                    _ => {}
                }
                Ok(())
            }
            State::InStringEsc => {
                match c {
                    b'b' | b'f' | b'n' | b'r' | b't' | b'\\' | b'/' | b'"' => {
                        self.state = State::InString;
                    }
                    b'u' => self.state = State::InStringEscU(4),
                    _ => return Err(invalid(c, "in string escape code")),
                }
                Ok(())
            }
            State::InStringEscU(left) => {
                if !c.is_ascii_hexdigit() {
                    return Err(invalid(c, "in \\u hexadecimal character escape"));
                }
                self.state = if left <= 1 {
                    State::InString
                } else {
                    State::InStringEscU(left - 1)
                };
                Ok(())
            }
            State::Neg => {
                self.state = match c {
                    b'0' => State::Zero,
                    b'1'..=b'9' => State::One,
                    _ => return Err(invalid(c, "in numeric literal")),
                };
                Ok(())
            }
            State::One if digit => Ok(()),
            State::One | State::Zero => match c {
                b'.' => {
                    self.state = State::Dot;
                    Ok(())
                }
                b'e' | b'E' => {
                    self.state = State::E;
                    Ok(())
                }
                _ => self.end_value(c),
            },
            State::Dot if digit => {
                self.state = State::Dot0;
                Ok(())
            }
            State::Dot => Err(invalid(c, "after decimal point in numeric literal")),
            State::Dot0 | State::E0 if digit => Ok(()),
            State::Dot0 if c == b'e' || c == b'E' => {
                self.state = State::E;
                Ok(())
            }
            State::Dot0 | State::E0 => self.end_value(c),
            State::E if c == b'+' || c == b'-' => {
                self.state = State::ESign;
                Ok(())
            }
            State::E | State::ESign if digit => {
                self.state = State::E0;
                Ok(())
            }
            State::E | State::ESign => Err(invalid(c, "in exponent of numeric literal")),
            State::Literal(word, at) => {
                let want = word.as_bytes().get(at).copied().unwrap_or(b' ');
                if c != want {
                    return Err(invalid(
                        c,
                        &format!("in literal {word} (expecting {})", quote_char(want)),
                    ));
                }
                self.state = if at + 1 >= word.len() {
                    State::EndValue
                } else {
                    State::Literal(word, at + 1)
                };
                Ok(())
            }
        }
    }
}

/// The `SyntaxError` text Go's `json.Unmarshal` returns for `text`, if any.
pub(crate) fn syntax_error(text: &str) -> Option<String> {
    let mut s = Scanner {
        state: State::BeginValue,
        stack: Vec::new(),
        end_top: false,
    };
    for &c in text.as_bytes() {
        if let Err(e) = s.step(c) {
            return Some(e);
        }
    }
    // Go's `eof`: a space ends a pending number or literal (or fails it), then the input must
    // have closed its top-level value.
    if s.end_top {
        return None;
    }
    if let Err(e) = s.step(b' ') {
        return Some(e);
    }
    (!s.end_top).then(|| "unexpected end of JSON input".to_string())
}

#[cfg(test)]
mod tests {
    use super::syntax_error;

    fn err(text: &str) -> String {
        syntax_error(text).unwrap_or_else(|| format!("<valid: {text}>"))
    }

    #[test]
    fn accepts_what_go_accepts() {
        for ok in [
            "[]",
            " [ ] ",
            "null",
            "{}",
            r#"[{"key":"a","operator":"Exists","effect":"NoSchedule","tolerationSeconds":-1.5e+3}]"#,
            r#"["\u00e9\n\"", 0, -0.0, 1E9, true, false, null, {"a":[{}]}]"#,
            "\"caf\u{e9}\"",
            "0\n",
        ] {
            assert_eq!(syntax_error(ok), None, "{ok}");
        }
    }

    #[test]
    fn end_of_input() {
        for text in [
            "",
            "  ",
            "[",
            "[{",
            r#"[{"key""#,
            r#"[{"key":"a""#,
            r#"["abc"#,
            "[1,",
        ] {
            assert_eq!(err(text), "unexpected end of JSON input", "{text}");
        }
    }

    #[test]
    fn invalid_characters_as_go_words_them() {
        let cases = [
            ("x", "invalid character 'x' looking for beginning of value"),
            (
                "[x]",
                "invalid character 'x' looking for beginning of value",
            ),
            (
                "[,]",
                "invalid character ',' looking for beginning of value",
            ),
            (
                "[1,]",
                "invalid character ']' looking for beginning of value",
            ),
            (
                "[{key:1}]",
                "invalid character 'k' looking for beginning of object key string",
            ),
            (
                r#"[{"key":"a",}]"#,
                "invalid character '}' looking for beginning of object key string",
            ),
            (r#"[{"key"}]"#, "invalid character '}' after object key"),
            (
                r#"[{"key" "a"}]"#,
                "invalid character '\"' after object key",
            ),
            (
                r#"[{"key":"a" "b"}]"#,
                "invalid character '\"' after object key:value pair",
            ),
            (
                r#"[{"key":"a"]"#,
                "invalid character ']' after object key:value pair",
            ),
            (
                r#"[{"a":1}{"b":2}]"#,
                "invalid character '{' after array element",
            ),
            ("[1}", "invalid character '}' after array element"),
            ("[] []", "invalid character '[' after top-level value"),
            (r#"{"a":1}}"#, "invalid character '}' after top-level value"),
            (
                "['a']",
                r"invalid character '\'' looking for beginning of value",
            ),
            ("[\"a\tb\"]", r"invalid character '\t' in string literal"),
            ("[\"a\nb\"]", r"invalid character '\n' in string literal"),
            ("[\"\u{1}\"]", r"invalid character '\x01' in string literal"),
            (r#"["\x"]"#, "invalid character 'x' in string escape code"),
            (
                r#"["\u12g4"]"#,
                r"invalid character 'g' in \u hexadecimal character escape",
            ),
            ("[-]", "invalid character ']' in numeric literal"),
            ("-", "invalid character ' ' in numeric literal"),
            (
                "[1.]",
                "invalid character ']' after decimal point in numeric literal",
            ),
            (
                "[1e]",
                "invalid character ']' in exponent of numeric literal",
            ),
            ("[01]", "invalid character '1' after array element"),
            (
                "[tru]",
                "invalid character ']' in literal true (expecting 'e')",
            ),
            (
                "tru",
                "invalid character ' ' in literal true (expecting 'e')",
            ),
            (
                "[fals3]",
                "invalid character '3' in literal false (expecting 'e')",
            ),
            (
                "[nul]",
                "invalid character ']' in literal null (expecting 'l')",
            ),
            (
                "[True]",
                "invalid character 'T' looking for beginning of value",
            ),
            (
                "[\\]",
                r"invalid character '\\' looking for beginning of value",
            ),
            (
                "\u{7f}",
                r"invalid character '\x7f' looking for beginning of value",
            ),
            // The first byte of a UTF-8 sequence, read as a Latin-1 code point.
            (
                "[\u{e9}]",
                "invalid character '\u{c3}' looking for beginning of value",
            ),
            (
                "\u{a0}[]",
                "invalid character '\u{c2}' looking for beginning of value",
            ),
            (
                "\u{feff}[]",
                "invalid character '\u{ef}' looking for beginning of value",
            ),
            (
                "[\u{2018}a\u{2019}]",
                "invalid character '\u{e2}' looking for beginning of value",
            ),
        ];
        for (text, want) in cases {
            assert_eq!(err(text), want, "{text:?}");
        }
    }

    #[test]
    fn quotes_bytes_as_strconv_does() {
        let got: Vec<String> = [0x00, 0x07, 0x1b, 0x85, 0xa0, 0xa1, 0xad, 0xff]
            .into_iter()
            .map(super::quote_char)
            .collect();
        let want = [
            r"'\x00'",
            r"'\a'",
            r"'\x1b'",
            r"'\u0085'",
            r"'\u00a0'",
            "'\u{a1}'",
            r"'\u00ad'",
            "'\u{ff}'",
        ];
        assert_eq!(got, want);
    }

    #[test]
    fn depth_limit() {
        let deep = "[".repeat(10_001);
        assert_eq!(err(&deep), "invalid character '[' exceeded max depth");
        let ok = format!("{}{}", "[".repeat(10_000), "]".repeat(10_000));
        assert_eq!(syntax_error(&ok), None);
    }
}
