//! Property tests against independent, regex-based references:
//! * YAML 1.1 plain-scalar resolution (SEMANTICS §6) against go-yaml v2's `resolve`, written
//!   out step by step with regexes in place of `strconv`;
//! * label-key and label-value validation (SEMANTICS §1.3, §1.4) against the API server's
//!   regexes and length limits, with the 63/64 and 253/254 boundaries generated on purpose;
//! * the binary's output is the same with 1 and 3 worker threads.

#![allow(clippy::unwrap_used)] // tests may unwrap

use std::sync::LazyLock;

use proptest::prelude::*;
use proptest::sample::select;
use regex::Regex;

use taintlint::analysis::semantics::validation::{label_key_errors, label_value_errors};
use taintlint::load::yaml11::{Resolved, resolve_plain};
use taintlint::settings::Settings;

fn re(s: &str) -> Regex {
    Regex::new(s).unwrap()
}

// ---------------------------------------------------------------- YAML 1.1 (go-yaml v2)

static NULL: LazyLock<Regex> = LazyLock::new(|| re(r"^(|~|null|Null|NULL)$"));
static TRUE: LazyLock<Regex> = LazyLock::new(|| re(r"^(y|Y|yes|Yes|YES|true|True|TRUE|on|On|ON)$"));
static FALSE: LazyLock<Regex> =
    LazyLock::new(|| re(r"^(n|N|no|No|NO|false|False|FALSE|off|Off|OFF)$"));
static POS_INF: LazyLock<Regex> = LazyLock::new(|| re(r"^\+?\.(inf|Inf|INF)$"));
static NEG_INF: LazyLock<Regex> = LazyLock::new(|| re(r"^-\.(inf|Inf|INF)$"));
static NAN: LazyLock<Regex> = LazyLock::new(|| re(r"^\.(nan|NaN|NAN)$"));
/// `strconv.ParseFloat` of a text starting with `.`: digits, then an optional exponent;
/// an underscore only between two digits.
static DOT_FLOAT: LazyLock<Regex> =
    LazyLock::new(|| re(r"^\.[0-9]+(_[0-9]+)*([eE][-+]?[0-9]+(_[0-9]+)*)?$"));
/// `strconv.ParseInt(s, 0, 64)` syntax (no underscores left): sign, then a base prefix.
static INT: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"^(?P<sign>[-+]?)(?:0[bB](?P<bin>[01]+)|0[oO](?P<oct>[0-7]+)|0[xX](?P<hex>[0-9a-fA-F]+)|0(?P<zoct>[0-7]*)|(?P<dec>[1-9][0-9]*))$",
    )
});
/// go-yaml v2's `yamlStyleFloat`.
static YAML_FLOAT: LazyLock<Regex> =
    LazyLock::new(|| re(r"^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$"));
static BIN_DIGITS: LazyLock<Regex> = LazyLock::new(|| re(r"^[-+]?[01]+$"));

/// The magnitude of an integer literal in the `INT` syntax, with its sign.
fn int_literal(plain: &str) -> Option<(bool, u128)> {
    let c = INT.captures(plain)?;
    let neg = &c["sign"] == "-";
    let (digits, radix) = [
        ("bin", 2),
        ("oct", 8),
        ("hex", 16),
        ("zoct", 8),
        ("dec", 10),
    ]
    .into_iter()
    .find_map(|(g, r)| c.name(g).map(|m| (m.as_str(), r)))?;
    // Literals longer than u128 are out of range anyway.
    let mag = if digits.is_empty() {
        0
    } else {
        u128::from_str_radix(digits, radix).unwrap_or(u128::MAX)
    };
    Some((neg, mag))
}

/// A finite float, as `strconv.ParseFloat` gives it without a range error.
fn finite(s: &str) -> Option<Resolved> {
    let f: f64 = s.replace('_', "").parse().ok()?;
    f.is_finite().then_some(Resolved::Float(f))
}

/// go-yaml v2 `resolve(tag="", in)` for a plain scalar, kept only as far as `Resolved` tells.
fn reference(text: &str) -> Resolved {
    if NULL.is_match(text) {
        return Resolved::Null;
    }
    if TRUE.is_match(text) {
        return Resolved::Bool(true);
    }
    if FALSE.is_match(text) {
        return Resolved::Bool(false);
    }
    if POS_INF.is_match(text) {
        return Resolved::NonFinite("+Inf");
    }
    if NEG_INF.is_match(text) {
        return Resolved::NonFinite("-Inf");
    }
    if NAN.is_match(text) {
        return Resolved::NonFinite("NaN");
    }
    match text.as_bytes()[0] {
        // hint '.': ParseFloat on the text as written.
        b'.' => {
            if DOT_FLOAT.is_match(text)
                && let Some(f) = finite(text)
            {
                return f;
            }
            Resolved::Str
        }
        // hint 'D' or 'S'. (Timestamps stay strings: none is also a number.)
        b'0'..=b'9' | b'+' | b'-' => {
            let plain = text.replace('_', "");
            if let Some((neg, mag)) = int_literal(&plain) {
                // ParseInt(plain, 0, 64)
                let v = if neg { -(mag as i128) } else { mag as i128 };
                if let Ok(i) = i64::try_from(v) {
                    return Resolved::Int(i);
                }
                // ParseUint(plain, 0, 64): no sign at all.
                if !plain.starts_with(['+', '-'])
                    && let Ok(u) = u64::try_from(mag)
                {
                    return Resolved::Uint(u);
                }
            }
            if YAML_FLOAT.is_match(&plain)
                && let Some(f) = finite(&plain)
            {
                return f;
            }
            if let Some(rest) = plain.strip_prefix("0b")
                && BIN_DIGITS.is_match(rest)
            {
                // ParseInt(rest, 2, 64)
                let neg = rest.starts_with('-');
                let mag = u128::from_str_radix(rest.trim_start_matches(['+', '-']), 2)
                    .unwrap_or(u128::MAX);
                let v = if neg { -(mag as i128) } else { mag as i128 };
                if let Ok(i) = i64::try_from(v) {
                    return Resolved::Int(i);
                }
            } else if let Some(rest) = plain.strip_prefix("-0b")
                && rest.bytes().all(|b| b == b'0' || b == b'1')
                && !rest.is_empty()
            {
                // ParseInt("-" + rest, 2, 64)
                let mag = u128::from_str_radix(rest, 2).unwrap_or(u128::MAX);
                if let Ok(i) = i64::try_from(-(mag as i128)) {
                    return Resolved::Int(i);
                }
            }
            Resolved::Str
        }
        _ => Resolved::Str,
    }
}

fn same(a: &Resolved, b: &Resolved) -> bool {
    match (a, b) {
        (Resolved::Float(x), Resolved::Float(y)) => x.to_bits() == y.to_bits(),
        _ => a == b,
    }
}

/// The words of go-yaml's resolve table in every case pattern, plus near misses.
fn word() -> impl Strategy<Value = String> {
    let words = select(vec![
        "y",
        "yes",
        "n",
        "no",
        "true",
        "false",
        "on",
        "off",
        "null",
        "~",
        ".inf",
        "-.inf",
        "+.inf",
        ".nan",
        "<<",
        "yEs",
        "tRue",
        "nULL",
        "ofF",
        "nan",
        "inf",
        ".infinity",
    ]);
    (words, 0..4u8).prop_map(|(w, case)| match case {
        0 => w.to_string(),
        1 => w.to_uppercase(),
        2 => {
            let mut c = w.chars();
            c.next()
                .map(|f| f.to_uppercase().chain(c).collect())
                .unwrap_or_default()
        }
        _ => w.to_lowercase(),
    })
}

/// Number-like texts: sign, base prefix, digits with underscores, fraction, exponent.
fn number() -> impl Strategy<Value = String> {
    let sign = select(vec!["", "", "-", "+", "--", "+-"]);
    let prefix = select(vec![
        "", "", "", "0", "0x", "0X", "0o", "0O", "0b", "0B", ".", "0b-", "0b+", "_",
    ]);
    let digits = proptest::collection::vec(
        select(vec![
            '0', '1', '1', '7', '8', '9', 'a', 'F', '_', '0', '5', '2',
        ]),
        0..24,
    );
    let frac = proptest::option::of("\\.[0-9_]{0,4}");
    let exp = proptest::option::of("[eE][-+]?[0-9_]{0,4}");
    (sign, prefix, digits, frac, exp).prop_map(|(s, p, d, f, e)| {
        format!(
            "{s}{p}{}{}{}",
            d.into_iter().collect::<String>(),
            f.unwrap_or_default(),
            e.unwrap_or_default()
        )
    })
}

/// Integers near the i64 and u64 limits, in decimal and hex, with a sign.
fn boundary() -> impl Strategy<Value = String> {
    let around = select(vec![
        i128::from(i64::MAX),
        i128::from(i64::MIN),
        i128::from(u64::MAX),
        0,
    ]);
    (
        around,
        -3i128..=3,
        select(vec!["", "+", "-"]),
        any::<bool>(),
    )
        .prop_map(|(base, d, sign, hex)| {
            let v = base + d;
            let mag = v.unsigned_abs();
            let sign = if v < 0 { "-" } else { sign };
            if hex {
                format!("{sign}0x{mag:x}")
            } else {
                format!("{sign}{mag}")
            }
        })
}

fn scalar() -> impl Strategy<Value = String> {
    prop_oneof![
        2 => word(),
        4 => number(),
        2 => boundary(),
        2 => "[-+._0-9eExXoObBa-fyYnN~]{0,8}",
        1 => "[0-9]{1,3}(\\.[0-9]{0,3})?[eE][-+]?[0-9]{2,4}",
        1 => "[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}",
        1 => "\\PC{0,6}",
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(5000))]

    #[test]
    fn yaml11_resolution_matches_go_yaml_v2(text in scalar()) {
        let got = resolve_plain(&text);
        let want = reference(&text);
        prop_assert!(same(&got, &want), "{text:?}: got {got:?}, go-yaml v2 gives {want:?}");
    }
}

#[test]
fn yaml11_reference_agrees_with_semantics_examples() {
    // SEMANTICS §6's own examples, so the reference itself is pinned.
    use Resolved::*;
    for (text, want) in [
        ("n", Bool(false)),
        ("Y", Bool(true)),
        ("OFF", Bool(false)),
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
        ("", Null),
        (".inf", NonFinite("+Inf")),
        ("12:30", Str),
        ("2001-12-14", Str),
        // Edges where a naive resolver differs from go-yaml v2.
        ("18446744073709551615", Uint(u64::MAX)),
        ("+18446744073709551615", Float(2f64.powi(64))),
        ("+0xFFFFFFFFFFFFFFFF", Str),
        ("1e400", Str),
        ("._5", Str),
        (".5_5", Float(0.55)),
        ("-0b-1", Str),
    ] {
        assert!(same(&reference(text), &want), "reference({text:?})");
        assert!(same(&resolve_plain(text), &want), "resolve_plain({text:?})");
    }
}

// ---------------------------------------------------------------- label keys and values

static NAME: LazyLock<Regex> = LazyLock::new(|| re(r"^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$"));
static DNS1123_SUBDOMAIN: LazyLock<Regex> =
    LazyLock::new(|| re(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$"));
static LABEL_VALUE: LazyLock<Regex> =
    LazyLock::new(|| re(r"^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$"));

/// `IsQualifiedName` (§1.3): lengths in bytes, regexes ASCII-only.
fn reference_key_ok(key: &str) -> bool {
    let name_ok = |n: &str| n.len() <= 63 && NAME.is_match(n);
    match key.split('/').collect::<Vec<_>>().as_slice() {
        [name] => name_ok(name),
        [prefix, name] => {
            !prefix.is_empty()
                && prefix.len() <= 253
                && DNS1123_SUBDOMAIN.is_match(prefix)
                && name_ok(name)
        }
        _ => false,
    }
}

/// `IsValidLabelValue` (§1.4).
fn reference_value_ok(value: &str) -> bool {
    value.len() <= 63 && LABEL_VALUE.is_match(value)
}

/// A valid name part of exactly `len` bytes (len ≥ 1), with `-`, `_`, `.` inside.
fn name_of_len(len: usize, seed: u64) -> String {
    let inner = b"aZ0-_.9";
    (0..len)
        .map(|i| {
            if i == 0 || i + 1 == len {
                'x'
            } else {
                inner[(seed as usize + i * 7) % inner.len()] as char
            }
        })
        .collect()
}

/// A valid DNS subdomain of exactly `len` bytes (len ≥ 1), labels of up to `label` (≥ 2)
/// bytes.
fn subdomain_of_len(len: usize, label: usize) -> String {
    let mut out = String::new();
    while out.len() < len {
        if !out.is_empty() {
            out.push('.');
        }
        let room = len - out.len();
        // Never leave a dangling dot or a one-byte gap that would need an empty label.
        let take = if room <= label {
            room
        } else {
            label.min(room - 2)
        };
        out.extend((0..take).map(|i| if i % 3 == 1 && i + 1 < take { '-' } else { 'a' }));
    }
    out
}

/// Keys and values built around the limits, then possibly broken in one place.
fn near_limits() -> impl Strategy<Value = String> {
    let name_len = prop_oneof![1usize..4, 61usize..66];
    let prefix = prop_oneof![
        Just(None),
        (prop_oneof![1usize..6, 250usize..256], 2usize..70).prop_map(Some)
    ];
    let breakage = select(vec![
        None,
        None,
        Some('A'),
        Some('-'),
        Some('.'),
        Some('_'),
        Some('/'),
        Some(' '),
        Some('é'),
    ]);
    (
        name_len,
        any::<u64>(),
        prefix,
        breakage,
        any::<prop::sample::Index>(),
    )
        .prop_map(|(n, seed, prefix, brk, at)| {
            let mut s = match prefix {
                Some((p, label)) => {
                    format!("{}/{}", subdomain_of_len(p, label), name_of_len(n, seed))
                }
                None => name_of_len(n, seed),
            };
            if let Some(c) = brk {
                let positions: Vec<usize> = s.char_indices().map(|(i, _)| i).collect();
                let i = positions[at.index(positions.len())];
                s.insert(i, c);
            }
            s
        })
}

fn label_text() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => near_limits(),
        3 => "[-a-zA-Z0-9_./]{0,12}",
        1 => "[a-z0-9.-]{0,20}/[-a-zA-Z0-9_.]{0,10}",
        1 => "\\PC{0,8}",
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    #[test]
    fn label_keys_match_the_regex_reference(key in label_text()) {
        let settings = Settings::default();
        let errs = label_key_errors(&key, &settings);
        prop_assert_eq!(errs.is_empty(), reference_key_ok(&key), "{:?} ({} bytes): {:?}", key, key.len(), errs);
    }

    #[test]
    fn label_values_match_the_regex_reference(value in label_text()) {
        let settings = Settings::default();
        let errs = label_value_errors(&value, &settings);
        prop_assert_eq!(errs.is_empty(), reference_value_ok(&value), "{:?} ({} bytes): {:?}", value, value.len(), errs);
    }
}

#[test]
fn label_boundaries() {
    let s = Settings::default();
    let ok = |k: &str| label_key_errors(k, &s).is_empty();
    assert!(ok(&name_of_len(63, 1)));
    assert!(!ok(&name_of_len(64, 1)));
    assert!(ok(&format!(
        "{}/{}",
        subdomain_of_len(253, 63),
        name_of_len(63, 2)
    )));
    assert!(!ok(&format!("{}/a", subdomain_of_len(254, 63))));
    assert_eq!(subdomain_of_len(253, 63).len(), 253);
    assert!(DNS1123_SUBDOMAIN.is_match(&subdomain_of_len(254, 9)));
    assert!(label_value_errors(&name_of_len(63, 3), &s).is_empty());
    assert!(!label_value_errors(&name_of_len(64, 3), &s).is_empty());
    assert!(label_value_errors("", &s).is_empty());
}

// ---------------------------------------------------------------- threads

mod common;

/// A small manifest: a Node pool, a workload with tolerations, or an Inventory.
fn manifest() -> impl Strategy<Value = String> {
    let key = select(vec![
        "dedicated",
        "gpu",
        "nvidia.com/gpu",
        "spot",
        "n",
        "Bad Key",
    ]);
    let effect = select(vec!["NoSchedule", "NoExecute", "PreferNoSchedule", ""]);
    let op = select(vec!["Exists", "Equal", "", "exists"]);
    let value = select(vec!["", "a", "yes", "1.10", "x/y"]);
    let kind = select(vec![
        "Pod",
        "Deployment",
        "DaemonSet",
        "Node",
        "StatefulSet",
    ]);
    (kind, key, effect, op, value, 0u8..3, "[a-z]{1,6}").prop_map(
        |(kind, key, effect, op, value, n, name)| match kind {
            "Node" => format!(
                "apiVersion: v1\nkind: Node\nmetadata:\n  name: {name}\n  labels: {{pool: {name}}}\nspec:\n  taints:\n    - {{key: {key}, value: \"{value}\", effect: {effect}}}\n"
            ),
            "Pod" => format!(
                "apiVersion: v1\nkind: Pod\nmetadata:\n  name: {name}\nspec:\n  nodeSelector: {{pool: {name}}}\n  containers: [{{name: a, image: a}}]\n  tolerations:\n{}",
                toleration_list(key, op, value, effect, n)
            ),
            _ => format!(
                "apiVersion: apps/v1\nkind: {kind}\nmetadata:\n  name: {name}\nspec:\n  template:\n    spec:\n      containers: [{{name: a, image: a}}]\n      tolerations:\n{}",
                toleration_list(key, op, value, effect, n)
            ),
        },
    )
}

fn toleration_list(key: &str, op: &str, value: &str, effect: &str, n: u8) -> String {
    (0..=n)
        .map(|i| {
            format!("        - {{key: {key}{i}, operator: \"{op}\", value: \"{value}\", effect: \"{effect}\"}}\n")
        })
        .collect()
}

fn run_threads(dir: &std::path::Path, threads: &str, format: &str) -> (Option<i32>, Vec<u8>) {
    let r = common::cli::taintlint(&[
        "check",
        "--color",
        "never",
        "--format",
        format,
        "--threads",
        threads,
        "--select",
        "all",
        ".",
    ])
    .in_dir(dir)
    .run();
    (Some(r.code), r.stdout.into_bytes())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(6))]

    #[test]
    fn one_and_three_threads_give_the_same_output(
        files in proptest::collection::vec(proptest::collection::vec(manifest(), 1..4), 2..9),
    ) {
        let dir = tempfile::tempdir().unwrap();
        for (i, docs) in files.iter().enumerate() {
            let sub = if i % 3 == 0 { "a" } else { "b" };
            std::fs::create_dir_all(dir.path().join(sub)).unwrap();
            std::fs::write(dir.path().join(sub).join(format!("f{i}.yaml")), docs.join("---\n")).unwrap();
        }
        for format in ["json", "human"] {
            let one = run_threads(dir.path(), "1", format);
            let three = run_threads(dir.path(), "3", format);
            prop_assert_eq!(one.0, three.0);
            prop_assert!(one.1 == three.1, "--format {}:\n{}\n---\n{}", format,
                String::from_utf8_lossy(&one.1), String::from_utf8_lossy(&three.1));
        }
    }
}
