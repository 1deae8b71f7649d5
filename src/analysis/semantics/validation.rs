//! The API server's label-key, label-value and DNS checks, with their exact messages in the
//! wording of the selected Kubernetes version (apimachinery's `IsQualifiedName`,
//! `IsValidLabelValue` and `field.Error`), and the
//! renderers for bad values (`%q` before 1.34, JSON after).

use crate::settings::Settings;

const NAME_FMT: &str = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]";
const DNS1123_SUBDOMAIN_FMT: &str =
    "[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*";
const LABEL_VALUE_FMT: &str = "(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?";

fn unit(settings: &Settings) -> &'static str {
    if settings.minor >= 35 {
        "bytes"
    } else {
        "characters"
    }
}

/// `^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$`
pub fn is_name_part(s: &str) -> bool {
    let b = s.as_bytes();
    !b.is_empty()
        && b[0].is_ascii_alphanumeric()
        && b[b.len() - 1].is_ascii_alphanumeric()
        && b.iter()
            .all(|&c| c.is_ascii_alphanumeric() || matches!(c, b'-' | b'_' | b'.'))
}

/// `^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`
pub fn is_dns1123_subdomain_fmt(s: &str) -> bool {
    !s.is_empty()
        && s.split('.').all(|label| {
            let b = label.as_bytes();
            !b.is_empty()
                && is_lower_alnum(b[0])
                && is_lower_alnum(b[b.len() - 1])
                && b.iter().all(|&c| is_lower_alnum(c) || c == b'-')
        })
}

fn is_lower_alnum(c: u8) -> bool {
    c.is_ascii_lowercase() || c.is_ascii_digit()
}

/// `IsQualifiedName` / `content.IsLabelKey`: the list of messages, empty when valid.
pub fn label_key_errors(key: &str, settings: &Settings) -> Vec<String> {
    let mut errs = Vec::new();
    let parts: Vec<&str> = key.split('/').collect();
    let name = match parts.as_slice() {
        [name] => *name,
        [prefix, name] => {
            if prefix.is_empty() {
                errs.push("prefix part must be non-empty".to_string());
            } else {
                for m in dns1123_subdomain_errors(prefix, settings, true) {
                    errs.push(format!("prefix part {m}"));
                }
            }
            name
        }
        _ => {
            let head = if settings.minor >= 35 {
                "a valid label key"
            } else {
                "a qualified name"
            };
            errs.push(format!(
                "{head} {} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
                regex_message(
                    "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character",
                    NAME_FMT,
                    &["MyName", "my.name", "123-abc"],
                )
            ));
            return errs;
        }
    };
    if name.is_empty() {
        errs.push("name part must be non-empty".to_string());
    } else if name.len() > 63 {
        errs.push(format!(
            "name part must be no more than 63 {}",
            unit(settings)
        ));
    }
    if !is_name_part(name) {
        errs.push(format!(
            "name part {}",
            regex_message(
                "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character",
                NAME_FMT,
                &["MyName", "my.name", "123-abc"],
            )
        ));
    }
    errs
}

/// `IsDNS1123Subdomain`. `versioned` selects the 1.35 `bytes` wording; the util/validation
/// copy used for node names still says `characters`.
pub fn dns1123_subdomain_errors(s: &str, settings: &Settings, versioned: bool) -> Vec<String> {
    let mut errs = Vec::new();
    if s.len() > 253 {
        let u = if versioned {
            unit(settings)
        } else {
            "characters"
        };
        errs.push(format!("must be no more than 253 {u}"));
    }
    if !is_dns1123_subdomain_fmt(s) {
        errs.push(format!(
            "a lowercase RFC 1123 subdomain {}",
            regex_message(
                "must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character",
                DNS1123_SUBDOMAIN_FMT,
                &["example.com"],
            )
        ));
    }
    errs
}

/// `IsDNS1123Label` (a namespace name: `ValidateNamespaceName`): the list of messages,
/// empty when valid.
pub fn dns1123_label_errors(s: &str, settings: &Settings) -> Vec<String> {
    let mut errs = Vec::new();
    if s.len() > 63 {
        errs.push(format!("must be no more than 63 {}", unit(settings)));
    }
    let b = s.as_bytes();
    let ok = !b.is_empty()
        && b.iter()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == b'-')
        && b[0] != b'-'
        && b[b.len() - 1] != b'-';
    if !ok {
        errs.push(format!(
            "a lowercase RFC 1123 label {}",
            regex_message(
                "must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character",
                "[a-z0-9]([-a-z0-9]*[a-z0-9])?",
                &["my-name", "123-abc"],
            )
        ));
    }
    errs
}

/// `IsValidLabelValue`: the list of messages, empty when valid.
pub fn label_value_errors(value: &str, settings: &Settings) -> Vec<String> {
    let mut errs = Vec::new();
    if value.len() > 63 {
        errs.push(format!("must be no more than 63 {}", unit(settings)));
    }
    if !value.is_empty() && !is_name_part(value) {
        errs.push(format!(
            "a valid label {}",
            regex_message(
                "must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character",
                LABEL_VALUE_FMT,
                &["MyValue", "my_value", "12345"],
            )
        ));
    }
    errs
}

/// `content.IsDecimalInteger` + `strconv.ParseInt` for `Lt`/`Gt` toleration values.
pub fn decimal_integer_errors(value: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if value.is_empty() {
        errs.push("must be non-empty".to_string());
    } else if !is_canonical_int(value) {
        errs.push("must be a valid decimal integer in canonical form".to_string());
    }
    if let Err(reason) = go_parse_int10(value) {
        errs.push(format!(
            "strconv.ParseInt: parsing {}: {reason}",
            go_quote(value)
        ));
    }
    errs
}

/// `"0"`, or an optional `-` then `[1-9][0-9]*`.
pub fn is_canonical_int(s: &str) -> bool {
    if s == "0" {
        return true;
    }
    let digits = s.strip_prefix('-').unwrap_or(s);
    let b = digits.as_bytes();
    !b.is_empty() && (b'1'..=b'9').contains(&b[0]) && b.iter().all(u8::is_ascii_digit)
}

/// `strconv.ParseInt(s, 10, 64)`, with Go's error reasons.
pub fn go_parse_int10(s: &str) -> Result<i64, &'static str> {
    let digits = s.strip_prefix(['-', '+']).unwrap_or(s);
    if digits.is_empty() || !digits.bytes().all(|c| c.is_ascii_digit()) {
        return Err("invalid syntax");
    }
    s.parse::<i64>().map_err(|_| "value out of range")
}

/// Builds `<msg> (e.g. 'A',  or 'B',  or 'C', regex used for validation is '<re>')` exactly as
/// apimachinery's `RegexError` does (note the double spaces).
fn regex_message(msg: &str, fmt: &str, examples: &[&str]) -> String {
    let mut s = msg.to_string();
    if !examples.is_empty() {
        s.push_str(" (e.g. ");
        for (i, ex) in examples.iter().enumerate() {
            if i > 0 {
                s.push_str(" or ");
            }
            s.push('\'');
            s.push_str(ex);
            s.push_str("', ");
        }
    }
    s.push_str("regex used for validation is '");
    s.push_str(fmt);
    s.push_str("')");
    s
}

/// Go's `strconv.Quote` (`%q`).
pub fn go_quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{7}' => out.push_str("\\a"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '\u{b}' => out.push_str("\\v"),
            c if (c as u32) < 0x20 || c as u32 == 0x7f => {
                out.push_str(&format!("\\x{:02x}", c as u32));
            }
            c if c.is_control() || c == '\u{feff}' => {
                if (c as u32) < 0x10000 {
                    out.push_str(&format!("\\u{:04x}", c as u32));
                } else {
                    out.push_str(&format!("\\U{:08x}", c as u32));
                }
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Go's `encoding/json` string encoding (HTML-safe, as `json.Marshal` is).
pub fn json_quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '<' | '>' | '&' | '\u{2028}' | '\u{2029}' => {
                out.push_str(&format!("\\u{:04x}", c as u32));
            }
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// A bad value of a *named* string type (`TolerationOperator`, `TaintEffect`): JSON since
/// 1.34, `%#v` (= `%q`) before.
pub fn named_value(s: &str, settings: &Settings) -> String {
    if settings.minor >= 34 {
        json_quote(s)
    } else {
        go_quote(s)
    }
}

/// `TotalAnnotationSizeLimitB` (apimachinery `pkg/api/validation/objectmeta.go`): the most
/// bytes an object's annotations may take, keys and values together.
pub const TOTAL_ANNOTATION_SIZE_LIMIT: usize = 256 * (1 << 10);

/// `ValidateAnnotationsSize`: the sum of the lengths of every annotation key and value.
pub fn annotations_size<'a>(entries: impl IntoIterator<Item = (&'a str, &'a str)>) -> usize {
    entries
        .into_iter()
        .map(|(k, v)| k.len().saturating_add(v.len()))
        .fold(0, usize::saturating_add)
}

/// What the API server answers for annotations over [`TOTAL_ANNOTATION_SIZE_LIMIT`]
/// (`ValidateAnnotations`: `field.TooLong(fldPath, "", TotalAnnotationSizeLimitB)` under
/// `metadata.annotations`).
pub fn annotations_too_long() -> String {
    format!("metadata.annotations: Too long: must have at most {TOTAL_ANNOTATION_SIZE_LIMIT} bytes")
}

/// Field-error renderers (`field.Error.Error()`).
pub fn invalid(path: &str, bad: &str, detail: &str) -> String {
    format!("{path}: Invalid value: {bad}: {detail}")
}

pub fn not_supported(path: &str, bad: &str, supported: &[&str]) -> String {
    let list: Vec<String> = supported.iter().map(|s| go_quote(s)).collect();
    format!(
        "{path}: Unsupported value: {bad}: supported values: {}",
        list.join(", ")
    )
}

pub fn required(path: &str, detail: &str) -> String {
    if detail.is_empty() {
        format!("{path}: Required value")
    } else {
        format!("{path}: Required value: {detail}")
    }
}

pub fn forbidden(path: &str, detail: &str) -> String {
    format!("{path}: Forbidden: {detail}")
}

pub fn duplicate(path: &str, bad: &str, detail: &str) -> String {
    if detail.is_empty() {
        format!("{path}: Duplicate value: {bad}")
    } else {
        format!("{path}: Duplicate value: {bad}: {detail}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(minor: u32) -> Settings {
        Settings {
            minor,
            ..Settings::default()
        }
    }

    #[test]
    fn key_boundaries() {
        let st = s(35);
        assert!(label_key_errors(&"a".repeat(63), &st).is_empty());
        assert_eq!(
            label_key_errors(&"a".repeat(64), &st),
            vec!["name part must be no more than 63 bytes"]
        );
        let prefix = format!("{}.com", "a".repeat(249));
        assert_eq!(prefix.len(), 253);
        assert!(label_key_errors(&format!("{prefix}/x"), &st).is_empty());
        assert_eq!(
            label_key_errors(&format!("a{prefix}/x"), &st),
            vec!["prefix part must be no more than 253 bytes"]
        );
        assert_eq!(
            label_key_errors("/x", &st),
            vec!["prefix part must be non-empty"]
        );
        assert_eq!(label_key_errors("a/", &st).len(), 2);
        assert!(label_key_errors("GPU", &st).is_empty());
        assert_eq!(label_key_errors("Example.com/x", &st).len(), 1);
    }

    #[test]
    fn exact_texts() {
        let st = s(35);
        assert_eq!(
            label_key_errors("a/b/c", &st),
            vec![
                "a valid label key must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"
            ]
        );
        assert_eq!(
            label_key_errors("a/b/c", &s(34))[0].split(" must").next(),
            Some("a qualified name")
        );
        assert_eq!(
            label_value_errors("-x", &st),
            vec![
                "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"
            ]
        );
        assert_eq!(
            label_value_errors(&"a".repeat(64), &s(34)),
            vec!["must be no more than 63 characters"]
        );
        assert_eq!(
            label_key_errors("a_b.com/x", &st),
            vec![
                "prefix part a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
            ]
        );
    }

    #[test]
    fn decimal_integers() {
        assert_eq!(decimal_integer_errors("abc").len(), 2);
        assert_eq!(decimal_integer_errors("").len(), 2);
        assert_eq!(
            decimal_integer_errors("0950"),
            vec!["must be a valid decimal integer in canonical form"]
        );
        assert_eq!(
            decimal_integer_errors("99999999999999999999"),
            vec!["strconv.ParseInt: parsing \"99999999999999999999\": value out of range"]
        );
        assert!(decimal_integer_errors("-5").is_empty());
    }

    #[test]
    fn quoting() {
        assert_eq!(go_quote("a\"b<"), "\"a\\\"b<\"");
        assert_eq!(json_quote("a<b"), "\"a\\u003cb\"");
    }
}
