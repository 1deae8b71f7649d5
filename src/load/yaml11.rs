//! YAML 1.1 scalar resolution as kubectl sees it (go-yaml v2's `resolve.go` inside
//! `sigs.k8s.io/yaml`): `yes`/`on`/`y` are booleans, `010` is octal 8, `1.10` is the float 1.1.
//! Quoted and block scalars, and `!!str`, always stay strings.

use crate::load::yaml::{Node, Style, Value};

#[derive(Clone, Debug, PartialEq)]
pub enum Resolved {
    Null,
    Bool(bool),
    /// An integer that fits i64.
    Int(i64),
    /// An integer that only fits u64.
    Uint(u64),
    Float(f64),
    /// `.inf`, `-.inf`, `.nan`: kubectl fails client-side.
    NonFinite(&'static str),
    /// A scalar whose `!!bool`, `!!int`, `!!float` or `!!null` tag (the tag, short) does not
    /// fit its text (`!!int abc`): kubectl fails client-side, as go-yaml's `resolve` does
    /// ("cannot decode !!str `abc` as a !!int").
    BadTag(&'static str),
    Str,
    /// A sequence or mapping.
    Collection,
}

impl Resolved {
    pub fn as_bool(&self) -> Option<bool> {
        match *self {
            Resolved::Bool(b) => Some(b),
            _ => None,
        }
    }

    pub fn as_i64(&self) -> Option<i64> {
        match *self {
            Resolved::Int(i) => Some(i),
            #[allow(clippy::cast_possible_truncation, clippy::cast_precision_loss)]
            Resolved::Float(f) if f.fract() == 0.0 && f.abs() < 9.2e18 => Some(f as i64),
            _ => None,
        }
    }

    /// The JSON type name Go reports in an `UnmarshalTypeError` (`bool`, `number`, `string`).
    pub fn json_type(&self) -> &'static str {
        match self {
            Resolved::Null => "null",
            Resolved::Bool(_) => "bool",
            Resolved::Int(_) | Resolved::Uint(_) | Resolved::Float(_) | Resolved::NonFinite(_) => {
                "number"
            }
            Resolved::Str | Resolved::BadTag(_) => "string",
            Resolved::Collection => "object",
        }
    }

    /// The number as `encoding/json` would print it.
    pub fn json_number(&self) -> Option<String> {
        match *self {
            Resolved::Int(i) => Some(i.to_string()),
            Resolved::Uint(u) => Some(u.to_string()),
            Resolved::Float(f) => Some(go_json_float(f)),
            _ => None,
        }
    }
}

/// Formats a float the way Go's `encoding/json` does (`strconv` 'f' for 1e-6 ≤ |f| < 1e21,
/// otherwise 'e' with a two-digit exponent at least).
pub fn go_json_float(f: f64) -> String {
    let abs = f.abs();
    if abs == 0.0 || (1e-6..1e21).contains(&abs) {
        let s = format!("{f}");
        return s;
    }
    let s = format!("{f:e}"); // e.g. 1e21, 1.5e-7
    let (mant, exp) = s.split_once('e').unwrap_or((&s, "0"));
    let (sign, digits) = match exp.strip_prefix('-') {
        Some(d) => ('-', d),
        None => ('+', exp),
    };
    let digits = if digits.len() < 2 {
        format!("0{digits}")
    } else {
        digits.to_string()
    };
    format!("{mant}e{sign}{digits}")
}

/// Resolves a node as kubectl's YAML→JSON step would.
pub fn resolve(node: &Node) -> Resolved {
    match &node.value {
        Value::Seq(_) | Value::Map(_) => Resolved::Collection,
        Value::Scalar(s) => {
            if let Some(tag) = &s.tag {
                return match tag.strip_prefix("tag:yaml.org,2002:") {
                    Some("str") => Resolved::Str,
                    Some(t @ ("bool" | "int" | "float" | "null")) => tagged(t, &s.text),
                    _ => Resolved::Str,
                };
            }
            if s.style == Style::Plain {
                resolve_plain(&s.text)
            } else {
                Resolved::Str
            }
        }
    }
}

/// A scalar tagged `!!bool`, `!!int`, `!!float` or `!!null` (quoted or not): go-yaml's
/// `resolve(tag, text)` resolves the text as a plain scalar and fails unless that gives the
/// tag's type (an integer may be a `!!float`).
fn tagged(tag: &str, text: &str) -> Resolved {
    let r = resolve_plain(text);
    let fits = match tag {
        "bool" => matches!(r, Resolved::Bool(_)),
        "int" => matches!(r, Resolved::Int(_) | Resolved::Uint(_)),
        "float" => matches!(
            r,
            Resolved::Int(_) | Resolved::Uint(_) | Resolved::Float(_) | Resolved::NonFinite(_)
        ),
        _ => r == Resolved::Null,
    };
    if fits {
        return r;
    }
    Resolved::BadTag(match tag {
        "bool" => "!!bool",
        "int" => "!!int",
        "float" => "!!float",
        _ => "!!null",
    })
}

/// The float a plain scalar spells that JSON cannot carry (`.inf`, `-.Inf`, `.NAN`, … as
/// YAML 1.1 writes them), named as Go prints it.
pub fn non_finite(text: &str) -> Option<&'static str> {
    match text {
        ".inf" | ".Inf" | ".INF" | "+.inf" | "+.Inf" | "+.INF" => Some("+Inf"),
        "-.inf" | "-.Inf" | "-.INF" => Some("-Inf"),
        ".nan" | ".NaN" | ".NAN" => Some("NaN"),
        _ => None,
    }
}

/// Resolution of an untagged plain scalar (go-yaml v2 `resolve`).
pub fn resolve_plain(text: &str) -> Resolved {
    match text {
        "" | "~" | "null" | "Null" | "NULL" => return Resolved::Null,
        "y" | "Y" | "yes" | "Yes" | "YES" | "true" | "True" | "TRUE" | "on" | "On" | "ON" => {
            return Resolved::Bool(true);
        }
        "n" | "N" | "no" | "No" | "NO" | "false" | "False" | "FALSE" | "off" | "Off" | "OFF" => {
            return Resolved::Bool(false);
        }
        _ => {}
    }
    if let Some(what) = non_finite(text) {
        return Resolved::NonFinite(what);
    }
    // A plain decimal without a leading zero (most numbers written: `replicas: 3`): what
    // `strconv.ParseInt(text, 0, 64)` below makes of it, without its copies. Eighteen digits
    // always fit.
    if text.len() <= 18
        && text.bytes().all(|c| c.is_ascii_digit())
        && (text.len() == 1 || !text.starts_with('0'))
        && let Ok(i) = text.parse::<i64>()
    {
        return Resolved::Int(i);
    }
    let first = text.as_bytes()[0];
    if first == b'.' {
        // go-yaml's '.' hint: only `strconv.ParseFloat` on the text as written, where an
        // underscore must sit between two digits.
        let b = text.as_bytes();
        let underscores_ok = b.iter().enumerate().all(|(i, &c)| {
            c != b'_'
                || (i > 0
                    && b[i - 1].is_ascii_digit()
                    && b.get(i + 1).is_some_and(u8::is_ascii_digit))
        });
        let plain = text.replace('_', "");
        return match plain.parse::<f64>() {
            Ok(f) if underscores_ok && is_yaml_float(&plain) && f.is_finite() => Resolved::Float(f),
            _ => Resolved::Str,
        };
    }
    if !(first.is_ascii_digit() || matches!(first, b'-' | b'+')) {
        return Resolved::Str;
    }
    let plain: String = text.chars().filter(|&c| c != '_').collect();
    if let Some(i) = go_parse_int(&plain) {
        return Resolved::Int(i);
    }
    if let Some(u) = go_parse_uint(&plain) {
        return Resolved::Uint(u);
    }
    // `strconv.ParseFloat` fails with a range error past f64: the scalar stays a string.
    if is_yaml_float(&plain)
        && let Ok(f) = plain.parse::<f64>()
        && f.is_finite()
    {
        return Resolved::Float(f);
    }
    // go-yaml v2 also tries `ParseInt(rest, 2)` after `0b` (which takes a sign) and
    // `ParseInt("-" + rest, 2)` after `-0b` (which then cannot).
    if let Some(rest) = plain.strip_prefix("0b")
        && let Ok(i) = i64::from_str_radix(rest, 2)
    {
        return Resolved::Int(i);
    }
    if let Some(rest) = plain.strip_prefix("-0b")
        && !rest.starts_with(['+', '-'])
        && let Ok(i) = i64::from_str_radix(&format!("-{rest}"), 2)
    {
        return Resolved::Int(i);
    }
    Resolved::Str
}

/// `strconv.ParseInt(s, 0, 64)`: optional sign, then `0x`, `0o`, `0b`, leading-`0` octal, or
/// decimal.
fn go_parse_int(s: &str) -> Option<i64> {
    let (neg, body) = match s.as_bytes().first()? {
        b'-' => (true, &s[1..]),
        b'+' => (false, &s[1..]),
        _ => (false, s),
    };
    let mag = parse_base0(body)?;
    if neg {
        if mag == 1u64 << 63 {
            Some(i64::MIN)
        } else {
            i64::try_from(mag).ok().map(|v| -v)
        }
    } else {
        i64::try_from(mag).ok()
    }
}

/// `strconv.ParseUint(s, 0, 64)`: like `ParseInt`, but no sign at all, not even `+`.
fn go_parse_uint(s: &str) -> Option<u64> {
    parse_base0(s)
}

fn parse_base0(body: &str) -> Option<u64> {
    if body.is_empty() {
        return None;
    }
    let lower = body.to_ascii_lowercase();
    let (digits, radix) = if let Some(r) = lower.strip_prefix("0x") {
        (r.to_string(), 16)
    } else if let Some(r) = lower.strip_prefix("0o") {
        (r.to_string(), 8)
    } else if let Some(r) = lower.strip_prefix("0b") {
        (r.to_string(), 2)
    } else if lower.len() > 1 && lower.starts_with('0') {
        (lower[1..].to_string(), 8)
    } else {
        (lower, 10)
    };
    if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
        return None;
    }
    u64::from_str_radix(&digits, radix).ok()
}

/// go-yaml v2's float pattern `^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$`.
fn is_yaml_float(s: &str) -> bool {
    let b = s.as_bytes();
    let mut i = 0;
    if matches!(b.first(), Some(b'-' | b'+')) {
        i += 1;
    }
    let int_start = i;
    while i < b.len() && b[i].is_ascii_digit() {
        i += 1;
    }
    let int_digits = i - int_start;
    if i < b.len() && b[i] == b'.' {
        i += 1;
        let frac_start = i;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        if int_digits == 0 && i == frac_start {
            return false;
        }
    } else if int_digits == 0 {
        return false;
    }
    if i < b.len() && matches!(b[i], b'e' | b'E') {
        i += 1;
        if i < b.len() && matches!(b[i], b'-' | b'+') {
            i += 1;
        }
        let exp_start = i;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        if i == exp_start {
            return false;
        }
    }
    i == b.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resolves_like_go_yaml_v2() {
        use Resolved::*;
        let cases: &[(&str, Resolved)] = &[
            ("yes", Bool(true)),
            ("n", Bool(false)),
            ("On", Bool(true)),
            ("123", Int(123)),
            ("+12", Int(12)),
            ("0x1F", Int(31)),
            ("0o17", Int(15)),
            ("0b101", Int(5)),
            ("1_000", Int(1000)),
            ("010", Int(8)),
            ("08", Float(8.0)),
            ("1.10", Float(1.1)),
            ("1e3", Float(1000.0)),
            ("300.0", Float(300.0)),
            ("~", Null),
            ("null", Null),
            (".inf", NonFinite("+Inf")),
            (".nan", NonFinite("NaN")),
            ("12:30", Str),
            ("2001-12-14", Str),
            ("gpu", Str),
            ("-", Str),
            (".", Str),
            ("18446744073709551615", Uint(u64::MAX)),
            ("100000000000000000000", Float(1e20)),
            // ParseUint takes no sign; ParseFloat's range error; '.' hint underscores.
            ("+18446744073709551615", Float(18_446_744_073_709_551_616.0)),
            ("1e400", Str),
            (".5_5", Float(0.55)),
            ("._5", Str),
            ("-0b-1", Str),
        ];
        for (text, want) in cases {
            assert_eq!(&resolve_plain(text), want, "{text}");
        }
    }

    /// go-yaml v2 `resolve(tag, text)`: a tag that does not fit the text fails
    /// (`yaml.Unmarshal` of `a: !!int abc` is "cannot decode !!str `abc` as a !!int").
    #[test]
    fn tags_that_do_not_fit_fail_like_go_yaml() {
        use Resolved::*;
        for (tag, text, want) in [
            ("int", "5", Int(5)),
            ("int", "abc", BadTag("!!int")),
            ("int", "1.5", BadTag("!!int")),
            ("float", "5", Int(5)),
            ("bool", "yes", Bool(true)),
            ("bool", "1", BadTag("!!bool")),
            ("null", "~", Null),
            ("null", "x", BadTag("!!null")),
        ] {
            assert_eq!(tagged(tag, text), want, "!!{tag} {text}");
        }
    }

    #[test]
    fn go_float_format() {
        assert_eq!(go_json_float(1.1), "1.1");
        assert_eq!(go_json_float(300.0), "300");
        assert_eq!(go_json_float(1e20), "100000000000000000000");
        assert_eq!(go_json_float(1e21), "1e+21");
        assert_eq!(go_json_float(1.5), "1.5");
    }
}
