//! API-server parity through the public API: the exact `api_error` strings of every branch of
//! SEMANTICS §1.2–1.6 (tolerations), §2.1 (Node taints), §5.2 (node selection) and §6
//! (decoding), in both wordings where the text changed between versions.

use std::collections::BTreeSet;

use taintlint::diagnostic::Finding;
use taintlint::engine::{LintOptions, lint_source};
use taintlint::load::SourceFile;
use taintlint::rules::RuleSet;
use taintlint::settings::Settings;

const NAME_RE: &str = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const DNS_RE: &str = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const VALUE_RE: &str = "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";
const EMPTY_KEY: &str =
    "operator must be Exists when `key` is empty, which means \"match all values and all keys\"";
const SECONDS: &str = "effect must be 'NoExecute' when `tolerationSeconds` is set";
const EXISTS_VALUE: &str = "value must be empty when `operator` is 'Exists'";
const EFFECTS: &str = "supported values: \"NoSchedule\", \"PreferNoSchedule\", \"NoExecute\"";

fn name_re() -> String {
    format!("name part {NAME_RE}")
}

fn multi_slash(minor: u32) -> String {
    let head = if minor >= 35 {
        "a valid label key"
    } else {
        "a qualified name"
    };
    format!(
        "{head} {NAME_RE} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"
    )
}

fn settings(minor: u32) -> Settings {
    Settings {
        minor,
        comparison_operators: false,
        ..Settings::default()
    }
}

fn gate_on() -> Settings {
    Settings {
        minor: 35,
        comparison_operators: true,
        ..Settings::default()
    }
}

/// Every finding of the default rule set, sorted.
fn lint_with(yaml: &str, settings: Settings, select: &[&str]) -> Vec<Finding> {
    let select: Vec<String> = select.iter().map(|s| (*s).to_string()).collect();
    let opts = LintOptions {
        rules: RuleSet::resolve(&select, &[]).expect("rule names"),
        settings,
        ..LintOptions::default()
    };
    let source = SourceFile::new("test.yaml".to_string(), yaml.to_string());
    let mut findings = lint_source(&source, &opts).findings;
    taintlint::diagnostic::sort_findings(&mut findings);
    findings
}

/// The `api_error` strings of one rule's findings, as a set.
fn api(rule: &str, yaml: &str, s: Settings) -> BTreeSet<String> {
    lint_with(yaml, s, &[rule])
        .into_iter()
        .filter(|f| f.rule == rule)
        .filter_map(|f| f.api_error)
        .collect()
}

/// The `api_error` strings of every default rule, as a set.
fn all_api(yaml: &str, s: Settings) -> BTreeSet<String> {
    lint_with(yaml, s, &[])
        .into_iter()
        .filter_map(|f| f.api_error)
        .collect()
}

fn set(items: &[&str]) -> BTreeSet<String> {
    items.iter().map(|s| (*s).to_string()).collect()
}

fn sset(items: Vec<String>) -> BTreeSet<String> {
    items.into_iter().collect()
}

/// A Pod with one toleration given as a flow mapping.
fn pod_tol(tol: &str) -> String {
    format!(
        "apiVersion: v1\nkind: Pod\nmetadata: {{name: p}}\nspec:\n  containers: [{{name: a, image: b}}]\n  tolerations:\n    - {tol}\n"
    )
}

fn node_taints(taints: &[&str]) -> String {
    let mut s = String::from("apiVersion: v1\nkind: Node\nmetadata: {name: n}\nspec:\n  taints:\n");
    for t in taints {
        s.push_str(&format!("    - {t}\n"));
    }
    s
}

const P: &str = "spec.tolerations[0]";

// ---------------------------------------------------------------------------------------
// §1.2 / §1.3: toleration keys

#[test]
fn toleration_key_rules() {
    let prefix253 = format!("{}.com", "a".repeat(249));
    let prefix254 = format!("a{prefix253}");
    let n63 = "n".repeat(63);
    let n64 = "n".repeat(64);
    let cases: Vec<(String, Vec<String>)> = vec![
        ("GPU".into(), vec![]),
        ("example.com/My_Name.1".into(), vec![]),
        (n63.clone(), vec![]),
        (
            n64.clone(),
            vec!["name part must be no more than 63 bytes".into()],
        ),
        (format!("{prefix253}/{n63}"), vec![]),
        (
            format!("{prefix254}/x"),
            vec!["prefix part must be no more than 253 bytes".into()],
        ),
        ("/x".into(), vec!["prefix part must be non-empty".into()]),
        (
            "example.com/".into(),
            vec!["name part must be non-empty".into(), name_re()],
        ),
        (
            "Example.com/x".into(),
            vec![format!("prefix part {DNS_RE}")],
        ),
        ("a/b/c".into(), vec![multi_slash(35)]),
        ("-x".into(), vec![name_re()]),
        ("x y".into(), vec![name_re()]),
        ("café".into(), vec![name_re()]),
        (
            format!("Bad_Prefix/{n64}"),
            vec![
                format!("prefix part {DNS_RE}"),
                "name part must be no more than 63 bytes".into(),
            ],
        ),
    ];
    for (key, msgs) in cases {
        let yaml = pod_tol(&format!("{{key: \"{key}\", operator: Exists}}"));
        let want: BTreeSet<String> = msgs
            .iter()
            .map(|m| format!("{P}.key: Invalid value: \"{key}\": {m}"))
            .collect();
        assert_eq!(
            api("invalid-toleration-key", &yaml, settings(35)),
            want,
            "key {key:?}"
        );
    }
}

#[test]
fn key_wording_changed_in_1_35() {
    let yaml = pod_tol(&format!(
        "{{key: \"a/b/c\", operator: Exists}}\n    - {{key: \"{}\", operator: Exists}}\n    - {{key: \"{}/x\", operator: Exists}}",
        "n".repeat(64),
        "p".repeat(254)
    ));
    for minor in [34, 35] {
        let unit = if minor >= 35 { "bytes" } else { "characters" };
        assert_eq!(
            api("invalid-toleration-key", &yaml, settings(minor)),
            sset(vec![
                format!(
                    "spec.tolerations[0].key: Invalid value: \"a/b/c\": {}",
                    multi_slash(minor)
                ),
                format!(
                    "spec.tolerations[1].key: Invalid value: \"{}\": name part must be no more than 63 {unit}",
                    "n".repeat(64)
                ),
                format!(
                    "spec.tolerations[2].key: Invalid value: \"{}/x\": prefix part must be no more than 253 {unit}",
                    "p".repeat(254)
                ),
            ]),
            "1.{minor}"
        );
    }
}

// §1.2 step 2: empty key

#[test]
fn empty_key_requires_exists() {
    let cases: &[(&str, Option<&str>)] = &[
        ("{operator: Exists}", None),
        ("{operator: Exists, effect: NoSchedule}", None),
        ("{operator: Equal}", Some("\"Equal\"")),
        ("{effect: NoSchedule}", Some("\"\"")),
        ("{key: \"\", value: x}", Some("\"\"")),
        ("{operator: exists}", Some("\"exists\"")),
        ("{operator: Lt, value: \"5\"}", Some("\"Lt\"")),
        ("{operator: \"<x>\"}", Some("\"\\u003cx\\u003e\"")),
    ];
    for (tol, bad) in cases {
        let want = match bad {
            Some(b) => set(&[&format!("{P}.operator: Invalid value: {b}: {EMPTY_KEY}")]),
            None => BTreeSet::new(),
        };
        assert_eq!(
            api(
                "toleration-empty-key-requires-exists",
                &pod_tol(tol),
                settings(35)
            ),
            want,
            "{tol}"
        );
    }
    // Before 1.34 named values print with %q.
    assert_eq!(
        api(
            "toleration-empty-key-requires-exists",
            &pod_tol("{operator: \"<x>\"}"),
            settings(33)
        ),
        set(&[&format!(
            "{P}.operator: Invalid value: \"<x>\": {EMPTY_KEY}"
        )])
    );
}

#[test]
fn exists_lowercase_with_empty_key_gives_two_errors_on_operator() {
    let yaml = pod_tol("{operator: exists}");
    assert_eq!(
        all_api(&yaml, settings(35)),
        sset(vec![
            format!(
                "{P}.operator: Unsupported value: \"exists\": supported values: \"Equal\", \"Exists\""
            ),
            format!("{P}.operator: Invalid value: \"exists\": {EMPTY_KEY}"),
        ])
    );
}

// §1.2 step 3: tolerationSeconds

#[test]
fn toleration_seconds_requires_noexecute() {
    let cases: &[(&str, Option<&str>)] = &[
        ("{key: k, effect: NoExecute, tolerationSeconds: 30}", None),
        ("{key: k, effect: NoExecute, tolerationSeconds: 0}", None),
        ("{key: k, effect: NoExecute, tolerationSeconds: -2}", None),
        (
            "{key: k, effect: NoSchedule, tolerationSeconds: null}",
            None,
        ),
        ("{key: k, tolerationSeconds: 30}", Some("\"\"")),
        (
            "{key: k, effect: \"\", tolerationSeconds: 30}",
            Some("\"\""),
        ),
        (
            "{key: k, effect: NoSchedule, tolerationSeconds: 0}",
            Some("\"NoSchedule\""),
        ),
        (
            "{key: k, effect: noexecute, tolerationSeconds: 30}",
            Some("\"noexecute\""),
        ),
    ];
    for (tol, bad) in cases {
        let want = match bad {
            Some(b) => set(&[&format!("{P}.effect: Invalid value: {b}: {SECONDS}")]),
            None => BTreeSet::new(),
        };
        assert_eq!(
            api(
                "toleration-seconds-requires-noexecute",
                &pod_tol(tol),
                settings(35)
            ),
            want,
            "{tol}"
        );
    }
}

#[test]
fn bad_effect_with_seconds_gives_two_errors_on_effect() {
    let yaml = pod_tol("{key: k, operator: Exists, effect: noexecute, tolerationSeconds: 30}");
    assert_eq!(
        all_api(&yaml, settings(35)),
        sset(vec![
            format!("{P}.effect: Invalid value: \"noexecute\": {SECONDS}"),
            format!("{P}.effect: Unsupported value: \"noexecute\": {EFFECTS}"),
        ])
    );
}

// §1.2 step 4 / §1.4: values

#[test]
fn equal_value_errors_are_joined_and_reported_on_operator() {
    let v64 = "v".repeat(64);
    let long_bad = format!("-{}", "v".repeat(63));
    let cases: Vec<(&str, String, Option<String>)> = vec![
        ("Equal", "v".repeat(63), None),
        ("Equal", String::new(), None),
        ("", "gpu".into(), None),
        ("Equal", "a.b_c-D".into(), None),
        (
            "Equal",
            v64.clone(),
            Some("must be no more than 63 bytes".into()),
        ),
        ("Equal", "a/b".into(), Some(VALUE_RE.into())),
        ("", "-5".into(), Some(VALUE_RE.into())),
        ("Equal", "x ".into(), Some(VALUE_RE.into())),
        (
            "Equal",
            long_bad.clone(),
            Some(format!("must be no more than 63 bytes;{VALUE_RE}")),
        ),
    ];
    for (op, value, msg) in cases {
        let tol = if op.is_empty() {
            format!("{{key: k, value: \"{value}\"}}")
        } else {
            format!("{{key: k, operator: {op}, value: \"{value}\"}}")
        };
        let want = match msg {
            Some(m) => set(&[&format!("{P}.operator: Invalid value: \"{value}\": {m}")]),
            None => BTreeSet::new(),
        };
        assert_eq!(
            api("invalid-toleration-value", &pod_tol(&tol), settings(35)),
            want,
            "{tol}"
        );
    }
    // 1.34 and earlier: `characters`.
    assert_eq!(
        api(
            "invalid-toleration-value",
            &pod_tol(&format!("{{key: k, value: \"{long_bad}\"}}")),
            settings(34)
        ),
        set(&[&format!(
            "{P}.operator: Invalid value: \"{long_bad}\": must be no more than 63 characters;{VALUE_RE}"
        )])
    );
}

#[test]
fn exists_with_value_wording_by_version() {
    let yaml = pod_tol("{key: foo, operator: Exists, value: bar, effect: NoSchedule}");
    for minor in [32, 35] {
        assert_eq!(
            api("toleration-exists-with-value", &yaml, settings(minor)),
            set(&[&format!(
                "{P}.operator: Invalid value: \"bar\": {EXISTS_VALUE}"
            )]),
            "1.{minor}"
        );
    }
    assert_eq!(
        api("toleration-exists-with-value", &yaml, settings(31)),
        set(&[&format!(
            "{P}.operator: Invalid value: core.Toleration{{Key:\"foo\", Operator:\"Exists\", Value:\"bar\", Effect:\"NoSchedule\", TolerationSeconds:(*int64)(nil)}}: {EXISTS_VALUE}"
        )])
    );
    // Exists with an empty value (or none) is fine; Exists with a bad value is this rule,
    // not a label-value error.
    assert!(
        api(
            "toleration-exists-with-value",
            &pod_tol("{key: foo, operator: Exists, value: \"\"}"),
            settings(35)
        )
        .is_empty()
    );
    assert!(
        api(
            "invalid-toleration-value",
            &pod_tol("{key: foo, operator: Exists, value: \"a b\"}"),
            settings(35)
        )
        .is_empty()
    );
}

// §1.2 step 4 default branch and §1.6

#[test]
fn operators_and_the_comparison_gate() {
    let two = "supported values: \"Equal\", \"Exists\"";
    let four = "supported values: \"Equal\", \"Exists\", \"Lt\", \"Gt\"";
    let cases: Vec<(&str, Settings, Option<String>)> = vec![
        ("Equal", settings(35), None),
        ("Exists", settings(35), None),
        (
            "In",
            settings(35),
            Some(format!("Unsupported value: \"In\": {two}")),
        ),
        (
            "equal",
            settings(35),
            Some(format!("Unsupported value: \"equal\": {two}")),
        ),
        (
            "Lt",
            settings(35),
            Some(format!("Unsupported value: \"Lt\": {four}")),
        ),
        (
            "Gt",
            settings(36),
            Some(format!("Unsupported value: \"Gt\": {four}")),
        ),
        (
            "Lt",
            settings(34),
            Some(format!("Unsupported value: \"Lt\": {two}")),
        ),
        (
            "Gt",
            settings(30),
            Some(format!("Unsupported value: \"Gt\": {two}")),
        ),
        ("Lt", gate_on(), None),
        ("Gt", gate_on(), None),
        // Gate on, the default branch still lists only Equal and Exists.
        (
            "gt",
            gate_on(),
            Some(format!("Unsupported value: \"gt\": {two}")),
        ),
        (
            "<x>",
            settings(34),
            Some(format!("Unsupported value: \"\\u003cx\\u003e\": {two}")),
        ),
        (
            "<x>",
            settings(33),
            Some(format!("Unsupported value: \"<x>\": {two}")),
        ),
    ];
    for (op, s, msg) in cases {
        let minor = s.minor;
        let yaml = pod_tol(&format!("{{key: k, operator: \"{op}\", value: \"5\"}}"));
        let want = match msg {
            Some(m) => set(&[&format!("{P}.operator: {m}")]),
            None => BTreeSet::new(),
        };
        assert_eq!(
            api("invalid-toleration-operator", &yaml, s),
            want,
            "{op} at 1.{minor}"
        );
    }
}

#[test]
fn lt_gt_values_with_the_gate_on() {
    let canon = "must be a valid decimal integer in canonical form";
    let cases: Vec<(&str, Vec<String>)> = vec![
        ("950", vec![]),
        ("0", vec![]),
        ("-5", vec![]),
        ("9223372036854775807", vec![]),
        (
            "",
            vec![
                "must be non-empty".into(),
                "strconv.ParseInt: parsing \"\": invalid syntax".into(),
            ],
        ),
        (
            "abc",
            vec![
                canon.into(),
                "strconv.ParseInt: parsing \"abc\": invalid syntax".into(),
            ],
        ),
        ("0950", vec![canon.into()]),
        ("+5", vec![canon.into()]),
        ("-0", vec![canon.into()]),
        (
            "1.5",
            vec![
                canon.into(),
                "strconv.ParseInt: parsing \"1.5\": invalid syntax".into(),
            ],
        ),
        (
            "99999999999999999999",
            vec!["strconv.ParseInt: parsing \"99999999999999999999\": value out of range".into()],
        ),
    ];
    for op in ["Lt", "Gt"] {
        for (value, msgs) in &cases {
            let yaml = pod_tol(&format!("{{key: k, operator: {op}, value: \"{value}\"}}"));
            let want: BTreeSet<String> = msgs
                .iter()
                .map(|m| format!("{P}.value: Invalid value: \"{value}\": {m}"))
                .collect();
            assert_eq!(
                api("invalid-toleration-value", &yaml, gate_on()),
                want,
                "{op} {value:?}"
            );
            // Gate off: only the operator is wrong; the value is not checked.
            assert!(api("invalid-toleration-value", &yaml, settings(35)).is_empty());
        }
    }
    // The other rules still apply with Lt/Gt: empty key.
    assert_eq!(
        all_api(&pod_tol("{operator: Gt, value: \"5\"}"), gate_on()),
        set(&[&format!("{P}.operator: Invalid value: \"Gt\": {EMPTY_KEY}")])
    );
}

// §1.2 step 5: effects

#[test]
fn toleration_effects() {
    for ok in ["NoSchedule", "PreferNoSchedule", "NoExecute", ""] {
        assert!(
            api(
                "invalid-toleration-effect",
                &pod_tol(&format!("{{key: k, operator: Exists, effect: \"{ok}\"}}")),
                settings(35)
            )
            .is_empty(),
            "{ok}"
        );
    }
    for (bad, s, shown) in [
        ("noSchedule", settings(35), "\"noSchedule\""),
        ("noschedule", settings(35), "\"noschedule\""),
        ("NoScheduleNoAdmit", settings(35), "\"NoScheduleNoAdmit\""),
        ("NO_SCHEDULE", settings(35), "\"NO_SCHEDULE\""),
        ("a&b", settings(34), "\"a\\u0026b\""),
        ("a&b", settings(33), "\"a&b\""),
    ] {
        assert_eq!(
            api(
                "invalid-toleration-effect",
                &pod_tol(&format!("{{key: k, operator: Exists, effect: \"{bad}\"}}")),
                s
            ),
            set(&[&format!(
                "{P}.effect: Unsupported value: {shown}: {EFFECTS}"
            )]),
            "{bad}"
        );
    }
}

// §1.1: every path prefix

const TOL: &str = "tolerations: [{key: k, operator: Equal, value: \"a b\"}]";

fn workload(api_version: &str, kind: &str, spec_path: &[&str]) -> String {
    let mut s = format!("apiVersion: {api_version}\nkind: {kind}\nmetadata: {{name: w}}\n");
    let mut indent = String::new();
    for key in spec_path {
        s.push_str(&format!("{indent}{key}:\n"));
        indent.push_str("  ");
    }
    s.push_str(&format!("{indent}{TOL}\n"));
    s
}

#[test]
fn every_workload_kind_has_its_path_prefix() {
    let bad = format!("Invalid value: \"a b\": {VALUE_RE}");
    let cases: &[(&str, &str, &[&str], &str)] = &[
        ("v1", "Pod", &["spec"], "spec"),
        ("v1", "PodTemplate", &["template", "spec"], "template.spec"),
        (
            "v1",
            "ReplicationController",
            &["spec", "template", "spec"],
            "spec.template.spec",
        ),
        (
            "apps/v1",
            "Deployment",
            &["spec", "template", "spec"],
            "spec.template.spec",
        ),
        (
            "apps/v1",
            "ReplicaSet",
            &["spec", "template", "spec"],
            "spec.template.spec",
        ),
        (
            "apps/v1",
            "StatefulSet",
            &["spec", "template", "spec"],
            "spec.template.spec",
        ),
        (
            "apps/v1",
            "DaemonSet",
            &["spec", "template", "spec"],
            "spec.template.spec",
        ),
        (
            "batch/v1",
            "Job",
            &["spec", "template", "spec"],
            "spec.template.spec",
        ),
        (
            "batch/v1",
            "CronJob",
            &["spec", "jobTemplate", "spec", "template", "spec"],
            "spec.jobTemplate.spec.template.spec",
        ),
        (
            "node.k8s.io/v1",
            "RuntimeClass",
            &["scheduling"],
            "scheduling",
        ),
    ];
    for (api_version, kind, path, prefix) in cases {
        let yaml = workload(api_version, kind, path);
        assert_eq!(
            api("invalid-toleration-value", &yaml, settings(35)),
            set(&[&format!("{prefix}.tolerations[0].operator: {bad}")]),
            "{kind}"
        );
    }
    // List items are sent one by one: each keeps its own paths.
    let list = "apiVersion: v1\nkind: List\nitems:\n  - apiVersion: v1\n    kind: Pod\n    metadata: {name: a}\n    spec:\n      tolerations: [{key: k, operator: Exists, value: x}]\n  - apiVersion: apps/v1\n    kind: Deployment\n    metadata: {name: b}\n    spec:\n      template:\n        spec:\n          tolerations: [{key: k, operator: Exists, value: y}]\n";
    assert_eq!(
        api("toleration-exists-with-value", list, settings(35)),
        sset(vec![
            format!("spec.tolerations[0].operator: Invalid value: \"x\": {EXISTS_VALUE}"),
            format!(
                "spec.template.spec.tolerations[0].operator: Invalid value: \"y\": {EXISTS_VALUE}"
            ),
        ])
    );
    // A custom resource: found, but the server does not validate it, so no api_error.
    let cr = "apiVersion: monitoring.coreos.com/v1\nkind: Prometheus\nmetadata: {name: p}\nspec:\n  tolerations: [{key: k, operator: Equal, value: \"a b\"}]\n";
    let findings = lint_with(cr, settings(35), &["invalid-toleration-value"]);
    assert_eq!(findings.len(), 1);
    assert_eq!(
        findings[0].field.as_deref(),
        Some("spec.tolerations[0].value")
    );
    assert_eq!(findings[0].api_error, None);
}

// §2.1: Node taints

#[test]
fn node_taint_rules() {
    let t = "metadata.taints";
    let cases: Vec<(Vec<&str>, Vec<String>)> = vec![
        (
            vec!["{key: dedicated, value: a, effect: NoSchedule}"],
            vec![],
        ),
        (vec!["{key: GPU, effect: NoExecute}"], vec![]),
        (
            vec!["{effect: NoSchedule}"],
            vec![
                format!("{t}[0].key: Invalid value: \"\": name part must be non-empty"),
                format!("{t}[0].key: Invalid value: \"\": {}", name_re()),
            ],
        ),
        (
            vec!["{key: \"a/b/c\", effect: NoSchedule}"],
            vec![format!(
                "{t}[0].key: Invalid value: \"a/b/c\": {}",
                multi_slash(35)
            )],
        ),
        (
            vec!["{key: k, value: \"a b\", effect: NoSchedule}"],
            vec![format!("{t}[0].value: Invalid value: \"a b\": {VALUE_RE}")],
        ),
        (
            vec!["{key: k}"],
            vec![format!("{t}[0].effect: Required value")],
        ),
        (
            vec!["{key: k, effect: noSchedule}"],
            vec![format!(
                "{t}[0].effect: Unsupported value: \"noSchedule\": {EFFECTS}"
            )],
        ),
        (
            vec![
                "{key: dedicated, value: special-user-1, effect: NoSchedule}",
                "{key: dedicated, value: special-user-2, effect: NoSchedule}",
                "{key: dedicated, effect: NoExecute}",
            ],
            vec![format!(
                "{t}[1]: Duplicate value: {{\"Key\":\"dedicated\",\"Value\":\"special-user-2\",\"Effect\":\"NoSchedule\",\"TimeAdded\":null}}: taints must be unique by key and effect pair"
            )],
        ),
        // Uniqueness uses the effect as written, even an invalid or missing one.
        (
            vec!["{key: k, effect: bad}", "{key: k, effect: bad}"],
            vec![
                format!("{t}[0].effect: Unsupported value: \"bad\": {EFFECTS}"),
                format!("{t}[1].effect: Unsupported value: \"bad\": {EFFECTS}"),
                format!(
                    "{t}[1]: Duplicate value: {{\"Key\":\"k\",\"Value\":\"\",\"Effect\":\"bad\",\"TimeAdded\":null}}: taints must be unique by key and effect pair"
                ),
            ],
        ),
    ];
    for (taints, want) in cases {
        let yaml = node_taints(&taints);
        assert_eq!(all_api(&yaml, settings(35)), sset(want), "{taints:?}");
    }
    // Both value messages, joined with `;` into one error on `.value`.
    let long = format!("-{}", "v".repeat(63));
    let yaml = node_taints(&[&format!(
        "{{key: k, value: \"{long}\", effect: NoSchedule}}"
    )]);
    assert_eq!(
        all_api(&yaml, settings(35)),
        set(&[&format!(
            "{t}[0].value: Invalid value: \"{long}\": must be no more than 63 bytes;{VALUE_RE}"
        )])
    );
}

#[test]
fn node_taint_wording_by_version() {
    let dup = node_taints(&[
        "{key: dedicated, value: special-user-1, effect: NoSchedule}",
        "{key: dedicated, value: special-user-2, effect: NoSchedule}",
    ]);
    assert_eq!(
        api("duplicate-taint", &dup, settings(33)),
        set(&[
            "metadata.taints[1]: Duplicate value: core.Taint{Key:\"dedicated\", Value:\"special-user-2\", Effect:\"NoSchedule\", TimeAdded:<nil>}: taints must be unique by key and effect pair"
        ])
    );
    let effect = node_taints(&["{key: k, effect: \"<e>\"}"]);
    assert_eq!(
        api("invalid-taint-effect", &effect, settings(35)),
        set(&[&format!(
            "metadata.taints[0].effect: Unsupported value: \"\\u003ce\\u003e\": {EFFECTS}"
        )])
    );
    assert_eq!(
        api("invalid-taint-effect", &effect, settings(33)),
        set(&[&format!(
            "metadata.taints[0].effect: Unsupported value: \"<e>\": {EFFECTS}"
        )])
    );
    let key = node_taints(&[&format!(
        "{{key: \"{}\", effect: NoSchedule}}",
        "k".repeat(64)
    )]);
    assert_eq!(
        api("invalid-taint-key", &key, settings(34)),
        set(&[&format!(
            "metadata.taints[0].key: Invalid value: \"{}\": name part must be no more than 63 characters",
            "k".repeat(64)
        )])
    );
}

// §5.2: nodeSelector and node affinity

#[test]
fn node_selector() {
    let yaml = "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  nodeSelector:\n    ok.example.com/zone: a\n    \"a/b/c\": x\n    disk: \"-ssd\"\n    \"example.com/\": \"\"\n";
    assert_eq!(
        api("invalid-node-selector", yaml, settings(35)),
        sset(vec![
            format!(
                "spec.nodeSelector: Invalid value: \"a/b/c\": {}",
                multi_slash(35)
            ),
            format!("spec.nodeSelector: Invalid value: \"-ssd\": {VALUE_RE}"),
            "spec.nodeSelector: Invalid value: \"example.com/\": name part must be non-empty"
                .into(),
            format!(
                "spec.nodeSelector: Invalid value: \"example.com/\": {}",
                name_re()
            ),
        ])
    );
    // Label values here are not joined: one error per message.
    let long = format!(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {{name: d}}\nspec:\n  template:\n    spec:\n      nodeSelector: {{k: \"-{}\"}}\n",
        "v".repeat(63)
    );
    assert_eq!(
        api("invalid-node-selector", &long, settings(34)),
        sset(vec![
            format!(
                "spec.template.spec.nodeSelector: Invalid value: \"-{}\": must be no more than 63 characters",
                "v".repeat(63)
            ),
            format!(
                "spec.template.spec.nodeSelector: Invalid value: \"-{}\": {VALUE_RE}",
                "v".repeat(63)
            ),
        ])
    );
}

fn pod_affinity(node_affinity: &str) -> String {
    let mut s = String::from(
        "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  affinity:\n    nodeAffinity:\n",
    );
    for line in node_affinity.lines() {
        s.push_str("      ");
        s.push_str(line);
        s.push('\n');
    }
    s
}

const E: &str = "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution";
const PREF: &str = "spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution";

fn required_expr(expr: &str) -> String {
    pod_affinity(&format!(
        "requiredDuringSchedulingIgnoredDuringExecution:\n  nodeSelectorTerms:\n    - matchExpressions:\n        - {expr}"
    ))
}

#[test]
fn node_affinity_required_terms() {
    let rule = "invalid-node-affinity";
    let none = BTreeSet::new();
    assert_eq!(
        api(
            rule,
            &pod_affinity("requiredDuringSchedulingIgnoredDuringExecution: {}"),
            settings(35)
        ),
        set(&[&format!(
            "{E}.nodeSelectorTerms: Required value: must have at least one node selector term"
        )])
    );
    assert_eq!(
        api(
            rule,
            &pod_affinity(
                "requiredDuringSchedulingIgnoredDuringExecution:\n  nodeSelectorTerms: []"
            ),
            settings(35)
        ),
        set(&[&format!(
            "{E}.nodeSelectorTerms: Required value: must have at least one node selector term"
        )])
    );
    // An empty term is accepted (it matches nothing).
    assert_eq!(
        api(
            rule,
            &pod_affinity(
                "requiredDuringSchedulingIgnoredDuringExecution:\n  nodeSelectorTerms: [{}]"
            ),
            settings(35)
        ),
        none
    );
    let x = format!("{E}.nodeSelectorTerms[0].matchExpressions[0]");
    let cases: Vec<(&str, Settings, Vec<String>)> = vec![
        (
            "{key: zone, operator: In, values: [a, b]}",
            settings(35),
            vec![],
        ),
        ("{key: zone, operator: DoesNotExist}", settings(35), vec![]),
        (
            "{key: cpu, operator: Gt, values: [\"many\"]}",
            settings(35),
            vec![],
        ),
        (
            "{key: zone, operator: In}",
            settings(35),
            vec![format!(
                "{x}.values: Required value: must be specified when `operator` is 'In' or 'NotIn'"
            )],
        ),
        (
            "{key: zone, operator: NotIn, values: []}",
            settings(35),
            vec![format!(
                "{x}.values: Required value: must be specified when `operator` is 'In' or 'NotIn'"
            )],
        ),
        (
            "{key: zone, operator: Exists, values: [a]}",
            settings(35),
            vec![format!(
                "{x}.values: Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'"
            )],
        ),
        (
            "{key: cpu, operator: Lt, values: [\"1\", \"2\"]}",
            settings(35),
            vec![format!(
                "{x}.values: Required value: must be specified single value when `operator` is 'Lt' or 'Gt'"
            )],
        ),
        (
            "{key: cpu, operator: Gt}",
            settings(35),
            vec![format!(
                "{x}.values: Required value: must be specified single value when `operator` is 'Lt' or 'Gt'"
            )],
        ),
        (
            "{key: zone, operator: in, values: [a]}",
            settings(35),
            vec![format!(
                "{x}.operator: Invalid value: \"in\": not a valid selector operator"
            )],
        ),
        (
            "{key: zone, values: [a]}",
            settings(35),
            vec![format!(
                "{x}.operator: Invalid value: \"\": not a valid selector operator"
            )],
        ),
        (
            "{key: zone, operator: \"<in>\", values: [a]}",
            settings(33),
            vec![format!(
                "{x}.operator: Invalid value: \"<in>\": not a valid selector operator"
            )],
        ),
        (
            "{key: zone, operator: \"<in>\", values: [a]}",
            settings(34),
            vec![format!(
                "{x}.operator: Invalid value: \"\\u003cin\\u003e\": not a valid selector operator"
            )],
        ),
        (
            "{key: \"a/b/c\", operator: Exists}",
            settings(35),
            vec![format!(
                "{x}.key: Invalid value: \"a/b/c\": {}",
                multi_slash(35)
            )],
        ),
        (
            "{operator: Exists}",
            settings(35),
            vec![
                format!("{x}.key: Invalid value: \"\": name part must be non-empty"),
                format!("{x}.key: Invalid value: \"\": {}", name_re()),
            ],
        ),
        (
            "{key: cpu, operator: Gt, values: [\"-5\"]}",
            settings(35),
            vec![format!("{x}.values[0]: Invalid value: \"-5\": {VALUE_RE}")],
        ),
        (
            "{key: zone, operator: In, values: [ok, \"a b\", \"c/d\"]}",
            settings(35),
            vec![
                format!("{x}.values[1]: Invalid value: \"a b\": {VALUE_RE}"),
                format!("{x}.values[2]: Invalid value: \"c/d\": {VALUE_RE}"),
            ],
        ),
    ];
    for (expr, s, want) in cases {
        assert_eq!(api(rule, &required_expr(expr), s), sset(want), "{expr}");
    }
}

#[test]
fn node_affinity_match_fields() {
    let rule = "invalid-node-affinity";
    let f = format!("{E}.nodeSelectorTerms[0].matchFields[0]");
    let yaml = |field: &str| {
        pod_affinity(&format!(
            "requiredDuringSchedulingIgnoredDuringExecution:\n  nodeSelectorTerms:\n    - matchFields:\n        - {field}"
        ))
    };
    let cases: Vec<(&str, Vec<String>)> = vec![
        (
            "{key: metadata.name, operator: In, values: [node-1]}",
            vec![],
        ),
        (
            "{key: metadata.name, operator: NotIn, values: [node-1.example.com]}",
            vec![],
        ),
        (
            "{key: metadata.name, operator: In, values: [a, b]}",
            vec![format!(
                "{f}.values: Required value: must be only one value when `operator` is 'In' or 'NotIn' for node field selector"
            )],
        ),
        (
            "{key: metadata.name, operator: Exists}",
            vec![format!(
                "{f}.operator: Invalid value: \"Exists\": not a valid selector operator"
            )],
        ),
        (
            "{key: metadata.labels, operator: In, values: [x]}",
            vec![format!(
                "{f}.key: Invalid value: \"metadata.labels\": not a valid field selector key"
            )],
        ),
        (
            "{key: metadata.name, operator: In, values: [Node_1]}",
            vec![format!(
                "{f}.values[0]: Invalid value: \"Node_1\": {DNS_RE}"
            )],
        ),
    ];
    for (field, want) in cases {
        assert_eq!(api(rule, &yaml(field), settings(35)), sset(want), "{field}");
    }
    // Node names still say `characters` in 1.35 (util/validation).
    let long = "n".repeat(254);
    assert_eq!(
        api(
            rule,
            &yaml(&format!(
                "{{key: metadata.name, operator: In, values: [{long}]}}"
            )),
            settings(35)
        ),
        set(&[&format!(
            "{f}.values[0]: Invalid value: \"{long}\": must be no more than 253 characters"
        )])
    );
}

#[test]
fn node_affinity_preferred_terms() {
    let rule = "invalid-node-affinity";
    let cases: Vec<(&str, Vec<String>)> = vec![
        (
            "- {weight: 1, preference: {matchExpressions: [{key: a, operator: In, values: [b]}]}}",
            vec![],
        ),
        ("- {weight: 100, preference: {}}", vec![]),
        // Invalid label values are allowed in preferred terms.
        (
            "- {weight: 50, preference: {matchExpressions: [{key: a, operator: In, values: [\"-5\"]}]}}",
            vec![],
        ),
        (
            "- {weight: 0, preference: {}}",
            vec![format!(
                "{PREF}[0].weight: Invalid value: 0: must be in the range 1-100"
            )],
        ),
        (
            "- {preference: {}}",
            vec![format!(
                "{PREF}[0].weight: Invalid value: 0: must be in the range 1-100"
            )],
        ),
        (
            "- {weight: 101, preference: {}}",
            vec![format!(
                "{PREF}[0].weight: Invalid value: 101: must be in the range 1-100"
            )],
        ),
        (
            "- {weight: -1, preference: {matchExpressions: [{key: a, operator: in}]}}",
            vec![
                format!("{PREF}[0].weight: Invalid value: -1: must be in the range 1-100"),
                format!(
                    "{PREF}[0].preference.matchExpressions[0].operator: Invalid value: \"in\": not a valid selector operator"
                ),
            ],
        ),
    ];
    for (terms, want) in cases {
        let yaml = pod_affinity(&format!(
            "preferredDuringSchedulingIgnoredDuringExecution:\n  {terms}"
        ));
        assert_eq!(api(rule, &yaml, settings(35)), sset(want), "{terms}");
    }
}

// §6: decoding

fn decode(kind: &str, msg: &str) -> String {
    format!("{kind} in version \"v1\" cannot be handled as a {kind}: json: {msg}")
}

#[test]
fn decode_type_errors() {
    let rule = "yaml-type-mismatch";
    let tv = "into Go struct field Toleration.spec.tolerations.value of type string";
    let ts = "into Go struct field Toleration.spec.tolerations.tolerationSeconds of type int64";
    let cases: Vec<(&str, Option<String>)> = vec![
        ("{key: k, value: yes}", Some(format!("cannot unmarshal bool {tv}"))),
        ("{key: k, value: true}", Some(format!("cannot unmarshal bool {tv}"))),
        ("{key: k, value: on}", Some(format!("cannot unmarshal bool {tv}"))),
        ("{key: k, value: 123}", Some(format!("cannot unmarshal number {tv}"))),
        ("{key: k, value: 1.10}", Some(format!("cannot unmarshal number {tv}"))),
        (
            "{key: n, operator: Exists}",
            Some("cannot unmarshal bool into Go struct field Toleration.spec.tolerations.key of type string".into()),
        ),
        (
            "{key: k, effect: NoExecute, tolerationSeconds: \"300\"}",
            Some(format!("cannot unmarshal string {ts}")),
        ),
        (
            "{key: k, effect: NoExecute, tolerationSeconds: 1.5}",
            Some(format!("cannot unmarshal number 1.5 {ts}")),
        ),
        (
            "{key: k, effect: NoExecute, tolerationSeconds: 100000000000000000000}",
            Some(format!("cannot unmarshal number 100000000000000000000 {ts}")),
        ),
        ("{key: k, value: \"123\"}", None),
        ("{key: k, value: null}", None),
        ("{key: k, value: ~}", None),
        ("{key: k, value: !!str yes}", None),
        ("{key: k, value: 12:30}", None),
        ("{key: k, effect: NoExecute, tolerationSeconds: 300.0}", None),
        ("{key: k, effect: NoExecute, tolerationSeconds: 0x12C}", None),
        ("{key: k, effect: NoExecute, tolerationSeconds: 1e3}", None),
    ];
    for (tol, msg) in cases {
        let want = match msg {
            Some(m) => set(&[&decode("Pod", &m)]),
            None => BTreeSet::new(),
        };
        let yaml = pod_tol(tol);
        assert_eq!(api(rule, &yaml, settings(35)), want, "{tol}");
        if want.is_empty() {
            // What still decodes is not an error at all.
            assert!(
                lint_with(&yaml, settings(35), &[rule])
                    .iter()
                    .all(|f| f.severity != taintlint::diagnostic::Severity::Error),
                "{tol}"
            );
        }
    }
}

#[test]
fn decode_type_error_paths_follow_the_kind() {
    let rule = "yaml-type-mismatch";
    let deploy = "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\nspec:\n  template:\n    spec:\n      tolerations: [{key: k, value: true}]\n";
    assert_eq!(
        api(rule, deploy, settings(35)),
        set(&[
            "Deployment in version \"v1\" cannot be handled as a Deployment: json: cannot unmarshal bool into Go struct field Toleration.spec.template.spec.tolerations.value of type string"
        ])
    );
    let cron = "apiVersion: batch/v1\nkind: CronJob\nmetadata: {name: c}\nspec:\n  jobTemplate:\n    spec:\n      template:\n        spec:\n          tolerations: [{key: k, value: 5}]\n";
    assert_eq!(
        api(rule, cron, settings(35)),
        set(&[
            "CronJob in version \"v1\" cannot be handled as a CronJob: json: cannot unmarshal number into Go struct field Toleration.spec.jobTemplate.spec.template.spec.tolerations.value of type string"
        ])
    );
    let selector =
        "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  nodeSelector: {gpu: true}\n";
    assert_eq!(
        api(rule, selector, settings(35)),
        set(&[
            "Pod in version \"v1\" cannot be handled as a Pod: json: cannot unmarshal bool into Go struct field PodSpec.spec.nodeSelector of type string"
        ])
    );
    let node = node_taints(&["{key: k, value: yes, effect: NoSchedule}"]);
    assert_eq!(
        api(rule, &node, settings(35)),
        set(&[
            "Node in version \"v1\" cannot be handled as a Node: json: cannot unmarshal bool into Go struct field Taint.spec.taints.value of type string"
        ])
    );
    let rc = "apiVersion: node.k8s.io/v1\nkind: RuntimeClass\nmetadata: {name: r}\nhandler: runc\nscheduling:\n  tolerations: [{key: k, value: 1}]\n";
    assert_eq!(
        api(rule, rc, settings(35)),
        set(&[
            "RuntimeClass in version \"v1\" cannot be handled as a RuntimeClass: json: cannot unmarshal number into Go struct field Toleration.scheduling.tolerations.value of type string"
        ])
    );
}

#[test]
fn octal_decodes_with_a_warning_and_no_api_error() {
    let yaml = pod_tol("{key: k, effect: NoExecute, tolerationSeconds: 010}");
    let findings = lint_with(&yaml, settings(35), &["yaml-type-mismatch"]);
    assert_eq!(findings.len(), 1);
    let f = &findings[0];
    assert_eq!(f.severity, taintlint::diagnostic::Severity::Warning);
    assert_eq!(f.api_error, None);
    assert!(f.message.contains('8'), "{}", f.message);
}

#[test]
fn non_finite_floats_fail_client_side() {
    // kubectl refuses these itself: nothing reaches the API server, so there is no server
    // answer (`api_error`); kubectl's own error is quoted in the help.
    for (lit, shown) in [(".inf", "+Inf"), ("-.inf", "-Inf"), (".nan", "NaN")] {
        let yaml = pod_tol(&format!(
            "{{key: k, effect: NoExecute, tolerationSeconds: {lit}}}"
        ));
        let findings = lint_with(&yaml, settings(35), &["yaml-type-mismatch"]);
        assert_eq!(findings.len(), 1, "{lit}");
        assert_eq!(findings[0].api_error, None, "{lit}");
        // kubectl's own words in the message too: what a user searches for.
        assert!(
            findings[0].message.contains(&format!(
                "error converting YAML to JSON: json: unsupported value: {shown}"
            )),
            "{lit}: {}",
            findings[0].message
        );
        let help = findings[0].help.as_deref().unwrap_or_default();
        assert!(
            help.contains(&format!(
                "kubectl says `error parsing test.yaml: error converting YAML to JSON: json: unsupported value: {shown}`"
            )),
            "{lit}: {help}"
        );
    }
}

#[test]
fn unknown_fields_are_a_strict_decoding_error() {
    let yaml = pod_tol("{key: k, operator: Exists, tolerationseconds: 3, values: [a]}");
    assert_eq!(
        api("unknown-field", &yaml, settings(35)),
        set(&[
            "Pod in version \"v1\" cannot be handled as a Pod: strict decoding error: unknown field \"spec.tolerations[0].tolerationseconds\", unknown field \"spec.tolerations[0].values\""
        ])
    );
}

#[test]
fn only_the_first_decode_error_keeps_an_api_error() {
    // kubectl sends JSON with sorted keys, so `nodeSelector` comes before `tolerations`,
    // and within a toleration `effect` before `value`.
    let yaml = "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  tolerations:\n    - {key: k, operator: exists, value: true, tolerationSeconds: \"3\", thats: 1}\n  nodeSelector: {a: 1, b: \"-x\"}\n";
    let findings = lint_with(yaml, settings(35), &[]);
    let with_api: Vec<&Finding> = findings.iter().filter(|f| f.api_error.is_some()).collect();
    assert_eq!(with_api.len(), 1, "{with_api:#?}");
    assert_eq!(with_api[0].rule, "yaml-type-mismatch");
    assert_eq!(
        with_api[0].api_error.as_deref(),
        Some(
            "Pod in version \"v1\" cannot be handled as a Pod: json: cannot unmarshal number into Go struct field PodSpec.spec.nodeSelector of type string"
        )
    );
    // The other problems are still reported, without an api_error.
    for rule in [
        "invalid-toleration-operator",
        "unknown-field",
        "invalid-node-selector",
    ] {
        assert!(findings.iter().any(|f| f.rule == rule), "{rule}");
    }

    let within = pod_tol("{key: k, value: true, effect: 5}");
    assert_eq!(
        all_api(&within, settings(35)),
        set(&[
            "Pod in version \"v1\" cannot be handled as a Pod: json: cannot unmarshal number into Go struct field Toleration.spec.tolerations.effect of type string"
        ])
    );
    // kubectl keeps the last of duplicate keys: the overridden `true` never reaches the server.
    let dup = pod_tol("{key: k, value: true, value: ok}");
    assert!(api("yaml-type-mismatch", &dup, settings(35)).is_empty());
    // Type errors come before strict-decoding errors.
    let both = pod_tol("{key: k, thats: 1, value: 5}");
    assert_eq!(
        all_api(&both, settings(35)),
        set(&[
            "Pod in version \"v1\" cannot be handled as a Pod: json: cannot unmarshal number into Go struct field Toleration.spec.tolerations.value of type string"
        ])
    );
    // Decode errors are per object: another document still gets its validation errors.
    let two = format!("{within}---\n{}", pod_tol("{key: k, operator: In}"));
    assert_eq!(all_api(&two, settings(35)).len(), 2);
}

// The whole error list for one object.

#[test]
fn one_object_gives_the_servers_error_list() {
    let yaml = "apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  template:
    spec:
      containers: [{name: a, image: b}]
      nodeSelector:
        \"a/b/c\": ok
      affinity:
        nodeAffinity:
          requiredDuringSchedulingIgnoredDuringExecution:
            nodeSelectorTerms:
              - matchExpressions:
                  - {key: zone, operator: In}
          preferredDuringSchedulingIgnoredDuringExecution:
            - {weight: 0, preference: {}}
      tolerations:
        - {key: \"example.com/\", operator: Equal, value: \"a b\", effect: noSchedule, tolerationSeconds: 5}
        - {operator: exists}
        - {key: k, operator: Exists, value: v}
        - {key: k, operator: Lt, value: \"5\"}
";
    let s = "spec.template.spec";
    let t = format!("{s}.tolerations");
    let want = sset(vec![
        format!(
            "{s}.nodeSelector: Invalid value: \"a/b/c\": {}",
            multi_slash(35)
        ),
        format!(
            "{s}.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'"
        ),
        format!(
            "{s}.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].weight: Invalid value: 0: must be in the range 1-100"
        ),
        format!("{t}[0].key: Invalid value: \"example.com/\": name part must be non-empty"),
        format!("{t}[0].key: Invalid value: \"example.com/\": {}", name_re()),
        format!("{t}[0].effect: Invalid value: \"noSchedule\": {SECONDS}"),
        format!("{t}[0].operator: Invalid value: \"a b\": {VALUE_RE}"),
        format!("{t}[0].effect: Unsupported value: \"noSchedule\": {EFFECTS}"),
        format!("{t}[1].operator: Invalid value: \"exists\": {EMPTY_KEY}"),
        format!(
            "{t}[1].operator: Unsupported value: \"exists\": supported values: \"Equal\", \"Exists\""
        ),
        format!("{t}[2].operator: Invalid value: \"v\": {EXISTS_VALUE}"),
        format!(
            "{t}[3].operator: Unsupported value: \"Lt\": supported values: \"Equal\", \"Exists\", \"Lt\", \"Gt\""
        ),
    ]);
    assert_eq!(all_api(yaml, settings(35)), want);
}

// ---------------------------------------------------------------------------------------
// Pod affinity, anti-affinity and topology spread: the cases of `TestValidateAffinity`-style
// and `TestValidateTopologySpreadConstraints` tables in
// pkg/apis/core/validation/validation_test.go (kubernetes/kubernetes), as a Pod would give
// them: each is the field and the server's message.

fn pod_with(spec: &str) -> String {
    format!(
        "apiVersion: v1\nkind: Pod\nmetadata: {{name: p, labels: {{app: web, pod-template-hash: h}}}}\nspec:\n  containers: [{{name: a, image: b}}]\n{spec}"
    )
}

fn spread(constraints: &[&str]) -> String {
    let mut s = String::from("  topologySpreadConstraints:\n");
    for c in constraints {
        s.push_str(&format!("    - {c}\n"));
    }
    pod_with(&s)
}

#[test]
fn topology_spread_constraints() {
    const S: &str = "spec.topologySpreadConstraints";
    let ok = "maxSkew: 1, topologyKey: k8s.io/zone, whenUnsatisfiable: DoNotSchedule";
    let cases: Vec<(Vec<String>, Vec<String>)> = vec![
        // "all required fields ok"
        (vec![format!("{{{ok}}}")], vec![]),
        // "missing MaxSkew", "negative MaxSkew"
        (
            vec!["{topologyKey: k8s.io/zone, whenUnsatisfiable: DoNotSchedule}".into()],
            vec![format!("{S}[0].maxSkew: Invalid value: 0: must be greater than zero")],
        ),
        (
            vec!["{maxSkew: -1, topologyKey: k8s.io/zone, whenUnsatisfiable: DoNotSchedule}".into()],
            vec![format!("{S}[0].maxSkew: Invalid value: -1: must be greater than zero")],
        ),
        // "invalid MinDomains when WhenUnsatisfiable=ScheduleAnyway"
        (
            vec!["{maxSkew: 1, minDomains: 3, topologyKey: k8s.io/zone, whenUnsatisfiable: ScheduleAnyway}".into()],
            vec![format!("{S}[0].minDomains: Invalid value: 3: can only use minDomains if whenUnsatisfiable=DoNotSchedule, not ScheduleAnyway")],
        ),
        // "negative minDomains is invalid"
        (
            vec![format!("{{{ok}, minDomains: -1}}")],
            vec![format!("{S}[0].minDomains: Invalid value: -1: must be greater than zero")],
        ),
        // "cannot use both minDomains and ScheduleAnyway" with a non-positive value: both
        (
            vec!["{maxSkew: 1, minDomains: 0, topologyKey: k8s.io/zone, whenUnsatisfiable: ScheduleAnyway}".into()],
            vec![
                format!("{S}[0].minDomains: Invalid value: 0: must be greater than zero"),
                format!("{S}[0].minDomains: Invalid value: 0: can only use minDomains if whenUnsatisfiable=DoNotSchedule, not ScheduleAnyway"),
            ],
        ),
        // "missing TopologyKey"
        (
            vec!["{maxSkew: 1, whenUnsatisfiable: DoNotSchedule}".into()],
            vec![format!("{S}[0].topologyKey: Required value: can not be empty")],
        ),
        // "missing scheduling mode", "unsupported scheduling mode"
        (
            vec!["{maxSkew: 1, topologyKey: k8s.io/zone}".into()],
            vec![format!("{S}[0].whenUnsatisfiable: Unsupported value: \"\": supported values: \"DoNotSchedule\", \"ScheduleAnyway\"")],
        ),
        (
            vec!["{maxSkew: 1, topologyKey: k8s.io/zone, whenUnsatisfiable: N/A}".into()],
            vec![format!("{S}[0].whenUnsatisfiable: Unsupported value: \"N/A\": supported values: \"DoNotSchedule\", \"ScheduleAnyway\"")],
        ),
        // "multiple constraints ok with all required fields"; "multiple constraints missing
        // TopologyKey and WhenUnsatisfiable"; "duplicate constraints"
        (
            vec![format!("{{{ok}}}"), "{maxSkew: 2, topologyKey: k8s.io/node, whenUnsatisfiable: ScheduleAnyway}".into()],
            vec![],
        ),
        (
            vec![format!("{{{ok}}}"), format!("{{{ok}}}")],
            vec![format!("{S}[0].{{topologyKey, whenUnsatisfiable}}: Duplicate value: \"{{k8s.io/zone, DoNotSchedule}}\"")],
        ),
        // "supported policy name set on NodeAffinityPolicy and NodeTaintsPolicy"; invalid ones
        (
            vec![format!("{{{ok}, nodeAffinityPolicy: Honor, nodeTaintsPolicy: Ignore}}")],
            vec![],
        ),
        (
            vec![format!("{{{ok}, nodeAffinityPolicy: Invalid}}")],
            vec![format!("{S}[0].nodeAffinityPolicy: Unsupported value: \"Invalid\": supported values: \"Honor\", \"Ignore\"")],
        ),
        (
            vec![format!("{{{ok}, nodeTaintsPolicy: Invalid}}")],
            vec![format!("{S}[0].nodeTaintsPolicy: Unsupported value: \"Invalid\": supported values: \"Honor\", \"Ignore\"")],
        ),
        // "key in MatchLabelKeys isn't correctly defined"; "key exists in both
        // matchLabelKeys and labelSelector"; "key in MatchLabelKeys is forbidden to be
        // specified when labelSelector is not set"
        (
            vec![format!("{{{ok}, labelSelector: {{matchLabels: {{foo: bar}}}}, matchLabelKeys: [\"/simple\"]}}")],
            vec![format!("{S}[0].matchLabelKeys[0]: Invalid value: \"/simple\": prefix part must be non-empty")],
        ),
        (
            vec![format!("{{{ok}, matchLabelKeys: [foo]}}")],
            vec![format!("{S}[0].matchLabelKeys: Forbidden: must not be specified when labelSelector is not set")],
        ),
        // "invalid matchLabels set on labelSelector when AllowInvalidTopologySpreadConstraintLabelSelector is false"
        (
            vec![format!("{{{ok}, labelSelector: {{matchLabels: {{NoUppercaseOrSpecialCharsLike=Equals: foo}}}}}}")],
            vec![format!("{S}[0].labelSelector.matchLabels: Invalid value: \"NoUppercaseOrSpecialCharsLike=Equals\": name part {NAME_RE}")],
        ),
    ];
    for (constraints, want) in cases {
        let refs: Vec<&str> = constraints.iter().map(String::as_str).collect();
        let got = api("invalid-topology-spread", &spread(&refs), settings(35));
        assert_eq!(got, sset(want), "{constraints:?}");
    }
    // "key exists in both matchLabelKeys and labelSelector": before 1.34 (no selector merge,
    // `validateMatchLabelKeysInTopologySpread`) rejected outright at `matchLabelKeys[j]`; from
    // 1.34 (MatchLabelKeysInPodTopologySpreadSelectorMerge on) the key is merged into the
    // selector only when the pod has the label, and the key seen twice is rejected at
    // `[i][j]` (`validateMatchLabelKeysAndMismatchLabelKeys`).
    let both = format!(
        "{{{ok}, labelSelector: {{matchExpressions: [{{key: foo, operator: In, values: [value1]}}]}}, matchLabelKeys: [foo]}}"
    );
    let legacy = format!(
        "{S}[0].matchLabelKeys[0]: Invalid value: \"foo\": exists in both matchLabelKeys and labelSelector"
    );
    let merged = format!(
        "{S}[0][0]: Invalid value: \"foo\": exists in both matchLabelKeys and labelSelector"
    );
    let unlabelled = spread(&[&both]);
    let labelled = unlabelled.replacen("labels: {app: web,", "labels: {foo: value1, app: web,", 1);
    assert!(labelled.contains("foo: value1, app"), "{labelled}");
    assert_eq!(
        api("invalid-topology-spread", &unlabelled, settings(33)),
        sset(vec![legacy.clone()])
    );
    assert_eq!(
        api("invalid-topology-spread", &labelled, settings(33)),
        sset(vec![legacy])
    );
    assert_eq!(
        api("invalid-topology-spread", &unlabelled, settings(35)),
        sset(vec![])
    );
    assert_eq!(
        api("invalid-topology-spread", &labelled, settings(34)),
        sset(vec![merged])
    );
}

#[test]
fn pod_affinity_terms() {
    const A: &str = "spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0]";
    const W: &str =
        "spec.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[0]";
    let required = |term: &str| {
        pod_with(&format!(
            "  affinity:\n    podAffinity:\n      requiredDuringSchedulingIgnoredDuringExecution:\n        - {term}\n"
        ))
    };
    let preferred = |item: &str| {
        pod_with(&format!(
            "  affinity:\n    podAntiAffinity:\n      preferredDuringSchedulingIgnoredDuringExecution:\n        - {item}\n"
        ))
    };
    let cases: Vec<(String, Vec<String>)> = vec![
        // "serialized pod affinity in affinity requirements in annotations": valid
        (
            required(
                "{labelSelector: {matchExpressions: [{key: key2, operator: In, values: [value1, value2]}]}, topologyKey: zone, namespaces: [ns], namespaceSelector: {matchExpressions: [{key: key, operator: In, values: [value1, value2]}]}}",
            ),
            vec![],
        ),
        // "invalid labelSelector in podAffinity, values should be empty if the operator is
        // DoesNotExist"
        (
            required(
                "{labelSelector: {matchExpressions: [{key: key2, operator: DoesNotExist, values: [value1]}]}, topologyKey: zone}",
            ),
            vec![format!(
                "{A}.labelSelector.matchExpressions[0].values: Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'"
            )],
        ),
        // "invalid namespaceSelector in podAffinity, In operator must include Values"
        (
            required(
                "{namespaceSelector: {matchExpressions: [{key: key2, operator: In}]}, topologyKey: zone}",
            ),
            vec![format!(
                "{A}.namespaceSelector.matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'"
            )],
        ),
        // "invalid name space in podAffinity"
        (
            required(
                "{labelSelector: {matchLabels: {a: b}}, namespaces: [INVALID_NAMESPACE], topologyKey: zone}",
            ),
            vec![format!(
                "{A}.namespace: Invalid value: \"INVALID_NAMESPACE\": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"
            )],
        ),
        // "invalid hard pod affinity, empty topologyKey is not allowed for hard pod affinity"
        (
            required("{labelSelector: {matchLabels: {a: b}}, namespaces: [ns]}"),
            vec![
                format!("{A}.topologyKey: Required value: can not be empty"),
                format!("{A}.topologyKey: Invalid value: \"\": name part must be non-empty"),
                format!("{A}.topologyKey: Invalid value: \"\": name part {NAME_RE}"),
            ],
        ),
        // "invalid soft pod anti-affinity, weight should be in range 1-100"
        (
            preferred(
                "{weight: -5, podAffinityTerm: {labelSelector: {matchLabels: {a: b}}, topologyKey: zone}}",
            ),
            vec![format!(
                "{W}.weight: Invalid value: -5: must be in the range 1-100"
            )],
        ),
        // "invalid soft pod affinity, empty topologyKey is not allowed for soft pod affinity"
        (
            preferred("{weight: 10, podAffinityTerm: {labelSelector: {matchLabels: {a: b}}}}"),
            vec![
                format!("{W}.podAffinityTerm.topologyKey: Required value: can not be empty"),
                format!(
                    "{W}.podAffinityTerm.topologyKey: Invalid value: \"\": name part must be non-empty"
                ),
                format!(
                    "{W}.podAffinityTerm.topologyKey: Invalid value: \"\": name part {NAME_RE}"
                ),
            ],
        ),
        // "invalid matchLabelKeys in podAffinity, key is not a valid label key"
        (
            required(
                "{labelSelector: {matchLabels: {a: b}}, matchLabelKeys: [\"/simple\"], topologyKey: zone}",
            ),
            vec![format!(
                "{A}.matchLabelKeys[0]: Invalid value: \"/simple\": prefix part must be non-empty"
            )],
        ),
        // "invalid matchLabelKeys and mismatchLabelKeys in podAffinity, keys intersect"
        (
            required(
                "{labelSelector: {matchLabels: {a: b}}, matchLabelKeys: [samekey], mismatchLabelKeys: [samekey], topologyKey: zone}",
            ),
            vec![format!(
                "{A}.matchLabelKeys[0]: Invalid value: \"samekey\": exists in both matchLabelKeys and mismatchLabelKeys"
            )],
        ),
        // "invalid matchLabelKeys in podAffinity, labelSelector is nil"
        (
            required("{matchLabelKeys: [a], topologyKey: zone}"),
            vec![format!(
                "{A}.matchLabelKeys: Forbidden: must not be specified when labelSelector is not set"
            )],
        ),
        // A Pod's matchLabelKeys key that it has a label for, already in its selector: the
        // strategy's merge makes it a duplicate (the path is the term's, indexed).
        (
            required(
                "{labelSelector: {matchLabels: {app: web}}, matchLabelKeys: [app], topologyKey: zone}",
            ),
            vec![format!(
                "{A}[0]: Invalid value: \"app\": exists in both matchLabelKeys and labelSelector"
            )],
        ),
    ];
    for (yaml, want) in cases {
        let got = api("invalid-pod-affinity", &yaml, settings(35));
        assert_eq!(got, sset(want), "{yaml}");
    }
}

#[test]
fn pod_affinity_wording_by_version() {
    let yaml = pod_with(
        "  affinity:\n    podAffinity:\n      requiredDuringSchedulingIgnoredDuringExecution:\n        - {labelSelector: {matchExpressions: [{key: a, operator: in, values: [b]}]}, matchLabelKeys: [\"a/b/c\"], topologyKey: zone}\n",
    );
    const P: &str = "spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0]";
    // 1.30: the gate of matchLabelKeys is off, the field is dropped; the operator is `%q`.
    assert_eq!(
        api("invalid-pod-affinity", &yaml, settings(30)),
        set(&[&format!(
            "{P}.labelSelector.matchExpressions[0].operator: Invalid value: \"in\": not a valid selector operator"
        )]),
    );
    // 1.35: the key gets the new wording.
    assert_eq!(
        api("invalid-pod-affinity", &yaml, settings(35)),
        sset(vec![
            format!(
                "{P}.labelSelector.matchExpressions[0].operator: Invalid value: \"in\": not a valid selector operator"
            ),
            format!(
                "{P}.matchLabelKeys[0]: Invalid value: \"a/b/c\": {}",
                multi_slash(35)
            ),
        ]),
    );
}
