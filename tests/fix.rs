//! `check --fix`, `--unsafe-fixes` and `--diff`: before/after snapshots of every fix
//! (CRLF, comments, flow style, anchors, several documents), the diff, idempotence, file
//! permissions, untouched files, and a property test that bytes outside the edits never
//! change.

#![allow(clippy::unwrap_used)] // tests may unwrap

use std::path::Path;

use proptest::prelude::*;

mod common;

struct Run {
    code: i32,
    stdout: String,
    stderr: String,
}

fn taintlint(dir: &Path, args: &[&str]) -> Run {
    let r = common::cli::taintlint(args)
        .in_dir(dir)
        .env("NO_COLOR", "1")
        .run();
    Run {
        code: r.code,
        stdout: r.stdout,
        stderr: r.stderr,
    }
}

/// Writes `text` to `m.yaml` in a fresh folder, runs `check m.yaml --isolated <args>`, and
/// returns the file afterwards.
fn fixed(text: &str, args: &[&str]) -> String {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("m.yaml");
    std::fs::write(&path, text).unwrap();
    let mut all = vec!["check", "m.yaml", "--isolated", "--format", "concise"];
    all.extend_from_slice(args);
    let r = taintlint(dir.path(), &all);
    assert!(r.code == 0 || r.code == 1, "{}{}", r.stdout, r.stderr);
    std::fs::read_to_string(&path).unwrap()
}

/// CR shown as `␍` so snapshots keep line ends visible.
fn show(s: &str) -> String {
    s.replace('\r', "␍")
}

fn before_after(text: &str, args: &[&str]) -> String {
    let after = fixed(text, args);
    // A second run changes nothing.
    assert_eq!(fixed(&after, args), after, "not idempotent");
    format!("--- before\n{}--- after\n{}", show(text), show(&after))
}

const POD: &str =
    "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers: [{name: a, image: b}]\n";

fn pod(tolerations: &str) -> String {
    format!("{POD}  tolerations:\n{tolerations}")
}

#[test]
fn operator_and_effect_case() {
    let text = pod(concat!(
        "    - key: a\n",
        "      operator: exists   # lower case\n",
        "      effect: noschedule\n",
        "    - key: b\n",
        "      operator: 'equal'\n",
        "      value: x\n",
        "      effect: \"noExecute\"\n",
        "    - key: c\n",
        "      operator: Exists\n",
        "      effect: NoSchedul # a typo is not fixed\n",
    ));
    insta::assert_snapshot!(before_after(&text, &["--fix"]));
}

#[test]
fn value_under_exists_block_flow_and_first_entry() {
    let text = pod(concat!(
        "    - key: a\n",
        "      operator: Exists\n",
        "      value: gpu # not allowed\n",
        "      effect: NoSchedule\n",
        "    - value: gpu\n",
        "      key: b\n",
        "      operator: Exists\n",
        "    - {key: c, operator: Exists, value: x}\n",
        "    - {value: x, key: d, operator: Exists}\n",
        "    - {key: e, operator: exists, value: x}\n",
    ));
    insta::assert_snapshot!(before_after(&text, &["--fix"]));
}

#[test]
fn yaml11_scalars_are_quoted_in_string_fields_only() {
    let text = pod(concat!(
        "    - key: a\n",
        "      value: yes\n",
        "      effect: NoSchedule\n",
        "    - key: b\n",
        "      value: 010\n",
        "      effect: NoExecute\n",
        "      tolerationSeconds: 010\n",
        "  nodeSelector:\n",
        "    enabled: true\n",
    ));
    insta::assert_snapshot!(before_after(&text, &["--fix"]));
}

#[test]
fn deprecated_keys_renamed_but_not_master() {
    let text = pod(concat!(
        "    - key: node.alpha.kubernetes.io/notReady\n",
        "      operator: Exists\n",
        "      effect: NoExecute\n",
        "      tolerationSeconds: 30\n",
        "    - {key: \"node.alpha.kubernetes.io/unreachable\", operator: Exists, effect: NoExecute}\n",
        "    - key: node-role.kubernetes.io/master\n",
        "      operator: Exists\n",
        "      effect: NoSchedule\n",
    ));
    insta::assert_snapshot!(before_after(&text, &["--fix"]));
}

#[test]
fn crlf_is_kept() {
    let text = pod(concat!(
        "    - key: a   # comment\n",
        "      operator: exists\n",
        "      value: x\n",
        "      effect: noSchedule\n",
        "    - key: b\n",
        "      value: on\n",
    ))
    .replace('\n', "\r\n");
    insta::assert_snapshot!(before_after(&text, &["--fix"]));
}

/// A lone CR ends a line (YAML 1.2 §5.4, go-yaml): removing an entry removes that line only.
#[test]
fn lone_cr_lines_are_lines() {
    let text = pod(concat!(
        "    - key: a\n",
        "      operator: Exists\n",
        "      effect: NoSchedule\n",
        "      tolerationSeconds: 5\n",
        "    - key: b\n",
        "      operator: Exists\n",
    ))
    .replace('\n', "\r");
    let after = fixed(&text, &["--fix", "--unsafe-fixes"]);
    assert_eq!(after, text.replace("      tolerationSeconds: 5\r", ""));
}

#[test]
fn anchors_and_aliases() {
    // The anchored toleration is fixed once, where it is written; an aliased value is left.
    let text = concat!(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: d\nspec:\n  template:\n",
        "    spec:\n      containers: [{name: a, image: b}]\n      tolerations:\n",
        "        - &gpu {key: nvidia.com/gpu, operator: exists, effect: NoSchedule}\n",
        "        - key: x\n          operator: Exists\n          value: &v keep\n",
        "---\n",
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n",
        "  containers: [{name: a, image: b}]\n  tolerations:\n",
        "    - key: y\n      operator: Exists\n      value: *v2\n",
        "x: &v2 z\n",
    );
    insta::assert_snapshot!(before_after(text, &["--fix"]));
}

#[test]
fn several_documents() {
    let one = pod("    - {key: a, operator: exists}\n");
    let two = pod("    - {key: b, operator: Equal, value: no, effect: noExecute}\n");
    let text = format!("# first\n{one}---\n# second\n{two}");
    insta::assert_snapshot!(before_after(&text, &["--fix"]));
}

#[test]
fn unsafe_fixes_only_with_the_flag() {
    let text = pod(concat!(
        "    - key: dedicated\n",
        "      operator: Equal\n",
        "      value: ml\n",
        "      effect: NoSchedule\n",
        "      tolerationSeconds: 60\n",
        "    - key: dedicated # the same again\n",
        "      operator: Equal\n",
        "      value: ml\n",
        "      effect: NoSchedule\n",
        "      tolerationSeconds: 60\n",
        "    - {key: other, operator: Exists, effect: NoSchedule}\n",
        "    - {key: other, operator: Exists, effect: NoSchedule}\n",
    ));
    assert_eq!(
        fixed(&text, &["--fix"]),
        text,
        "safe mode applied unsafe fixes"
    );
    insta::assert_snapshot!(before_after(&text, &["--fix", "--unsafe-fixes"]));
}

#[test]
fn node_selector_is_not_added_to_flow_specs_or_for_exists() {
    let flow = "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {containers: [{name: a, image: b}], tolerations: [{key: team, operator: Equal, value: ml, effect: NoSchedule}]}\n";
    assert_eq!(fixed(flow, &["--fix", "--unsafe-fixes"]), flow);
    let exists = pod("    - {key: team, operator: Exists, effect: NoSchedule}\n");
    assert_eq!(fixed(&exists, &["--fix", "--unsafe-fixes"]), exists);
}

/// A Node object with these labels and, when `taint` is not empty, a `NoSchedule` taint.
fn node(name: &str, labels: &str, taint: &str) -> String {
    let taints = match taint.split_once('=') {
        Some((k, v)) => {
            format!("spec:\n  taints: [{{key: {k}, value: {v}, effect: NoSchedule}}]\n")
        }
        None => String::new(),
    };
    format!(
        "apiVersion: v1\nkind: Node\nmetadata:\n  name: {name}\n  labels: {{{labels}}}\n{taints}---\n"
    )
}

/// A Karpenter NodePool whose nodes carry these labels and, when `taint` is not empty, a
/// `NoSchedule` taint.
fn node_pool(name: &str, labels: &str, taint: &str) -> String {
    let taints = match taint.split_once('=') {
        Some((k, v)) => format!("      taints: [{{key: {k}, value: {v}, effect: NoSchedule}}]\n"),
        None => String::new(),
    };
    format!(
        "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata:\n  name: {name}\nspec:\n  template:\n    metadata:\n      labels: {{{labels}}}\n    spec:\n      nodeClassRef: {{group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}}\n{taints}---\n"
    )
}

/// A pod tolerating `dedicated=<value>:NoSchedule`, and nothing pinning it.
fn tolerating(value: &str) -> String {
    pod(&format!(
        "    - key: dedicated\n      operator: Equal\n      value: {value}\n      effect: NoSchedule\n"
    ))
}

/// The pod part of a fixed file (after the pools).
fn pod_part(after: &str) -> &str {
    after.rfind("---\n").map_or(after, |i| &after[i + 4..])
}

/// The unsafe `nodeSelector` fix selects a label the pool with the taint really has: a label
/// named like the taint first, then the first other label that the other pools lack.
#[test]
fn node_selector_uses_a_label_of_the_tainted_pool() {
    let general = node("general-1", "pool: general", "");
    let ml = node("ml-1", "team: data, pool: ml", "dedicated=ml");
    let text = format!("{general}{ml}{}", tolerating("ml"));
    assert_eq!(
        fixed(&text, &["--fix"]),
        text,
        "safe mode applied an unsafe fix"
    );
    let after = fixed(&text, &["--fix", "--unsafe-fixes"]);
    insta::assert_snapshot!(pod_part(&after), @r"
    apiVersion: v1
    kind: Pod
    metadata:
      name: p
    spec:
      containers: [{name: a, image: b}]
      nodeSelector:
        pool: ml
      tolerations:
        - key: dedicated
          operator: Equal
          value: ml
          effect: NoSchedule
    ");
    assert_eq!(
        fixed(&after, &["--fix", "--unsafe-fixes"]),
        after,
        "not idempotent"
    );
    // A label named like the taint is preferred; one the other pools have too never is.
    let ml = node(
        "ml-1",
        "dedicated: ml, pool: general, team: data",
        "dedicated=ml",
    );
    let text = format!("{general}{ml}{}", tolerating("ml"));
    let after = fixed(&text, &["--fix", "--unsafe-fixes"]);
    assert!(
        pod_part(&after).contains("  nodeSelector:\n    dedicated: ml\n  tolerations:\n"),
        "{after}"
    );
    let ml = node("ml-1", "pool: general, team: data", "dedicated=ml");
    let text = format!("{general}{ml}{}", tolerating("ml"));
    let after = fixed(&text, &["--fix", "--unsafe-fixes"]);
    assert!(
        pod_part(&after).contains("  nodeSelector:\n    team: data\n  tolerations:\n"),
        "{after}"
    );
}

/// Several pools with the taint: a label they all share, or no fix when they share none; the
/// pool-name label (`karpenter.sh/nodepool`) differs between them and is not it.
#[test]
fn node_selector_for_several_tainted_pools_is_a_label_they_share() {
    let general = node_pool("general", "tier: general", "");
    let a = node_pool("gpu-a", "tier: gpu, gen: a", "dedicated=gpu");
    let b = node_pool("gpu-b", "tier: gpu, gen: b", "dedicated=gpu");
    let text = format!("{general}{a}{b}{}", tolerating("gpu"));
    let after = fixed(&text, &["--fix", "--unsafe-fixes"]);
    assert!(
        pod_part(&after).contains("  nodeSelector:\n    tier: gpu\n  tolerations:\n"),
        "{after}"
    );
    // Nothing shared but the taint: no fix, and the help says what to do.
    let a = node_pool("gpu-a", "gen: a", "dedicated=gpu");
    let b = node_pool("gpu-b", "gen: b", "dedicated=gpu");
    let text = format!("{general}{a}{b}{}", tolerating("gpu"));
    assert_eq!(fixed(&text, &["--fix", "--unsafe-fixes"]), text);
    // One pool: its own name label, which its source (Karpenter) sets on its nodes.
    let text = format!("{general}{a}{}", tolerating("gpu"));
    let after = fixed(&text, &["--fix", "--unsafe-fixes"]);
    assert!(
        pod_part(&after).contains("  nodeSelector:\n    karpenter.sh/nodepool: gpu-a\n"),
        "{after}"
    );
}

/// Node objects grouped into one pool keep the first node's labels: a label whose value
/// differs between the nodes is not selected.
#[test]
fn node_selector_never_selects_a_label_only_some_nodes_have() {
    let general = node("general-1", "pool: general", "");
    let one = node("ml-1", "team: a", "dedicated=ml");
    let two = node("ml-2", "team: b", "dedicated=ml");
    let text = format!("{general}{one}{two}{}", tolerating("ml"));
    assert_eq!(fixed(&text, &["--fix", "--unsafe-fixes"]), text);
    let one = node("ml-1", "team: a, tier: ml", "dedicated=ml");
    let two = node("ml-2", "team: b, tier: ml", "dedicated=ml");
    let text = format!("{general}{one}{two}{}", tolerating("ml"));
    let after = fixed(&text, &["--fix", "--unsafe-fixes"]);
    assert!(
        pod_part(&after).contains("  nodeSelector:\n    tier: ml\n"),
        "{after}"
    );
}

/// No pool known with the taint (none at all, or only others): no label to select, no fix.
/// Alone, the heuristic finding stays, its help saying what to add.
#[test]
fn no_node_selector_without_a_known_pool() {
    let dir = tempfile::tempdir().unwrap();
    let alone = tolerating("ml");
    let other = format!(
        "{}{}{alone}",
        node("general-1", "pool: general", ""),
        node("gpu-1", "pool: gpu", "gpu=a100")
    );
    for text in [&alone, &other] {
        assert_eq!(fixed(text, &["--fix", "--unsafe-fixes"]), *text);
        std::fs::write(dir.path().join("m.yaml"), text).unwrap();
        let r = taintlint(
            dir.path(),
            &["check", "m.yaml", "--isolated", "--format", "json"],
        );
        let json: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
        let findings = json["findings"].as_array().unwrap();
        assert!(!findings.is_empty(), "{}", r.stdout);
        for f in findings {
            assert!(!f["fix"].to_string().contains("nodeSelector"), "{f}");
        }
        if text == &alone {
            let f = findings
                .iter()
                .find(|f| f["rule"] == "dedicated-toleration-without-affinity")
                .unwrap_or_else(|| panic!("{}", r.stdout));
            assert!(f["fix"].is_null(), "{f}");
            assert!(
                f["help"]
                    .as_str()
                    .unwrap()
                    .contains("`nodeSelector: {dedicated: ml}`"),
                "{f}"
            );
        }
    }
}

#[test]
fn diff_prints_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let text = pod("    - key: a\n      operator: exists\n      value: x\n");
    std::fs::write(dir.path().join("m.yaml"), &text).unwrap();
    let r = taintlint(dir.path(), &["check", "m.yaml", "--isolated", "--diff"]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert_eq!(
        std::fs::read_to_string(dir.path().join("m.yaml")).unwrap(),
        text
    );
    insta::assert_snapshot!(r.stdout);
    std::fs::write(dir.path().join("m.yaml"), POD).unwrap();
    let clean = taintlint(dir.path(), &["check", "m.yaml", "--isolated", "--diff"]);
    assert_eq!((clean.code, clean.stdout.as_str()), (0, ""));
}

#[test]
fn remaining_findings_are_reported_after_fixing() {
    let dir = tempfile::tempdir().unwrap();
    let text = pod("    - key: a\n      operator: exists\n      effect: NoSchedul\n");
    std::fs::write(dir.path().join("m.yaml"), &text).unwrap();
    let r = taintlint(
        dir.path(),
        &[
            "check",
            "m.yaml",
            "--isolated",
            "--fix",
            "--format",
            "concise",
        ],
    );
    assert_eq!(r.code, 1);
    assert!(r.stderr.contains("fixed 1 finding"), "{}", r.stderr);
    assert!(
        r.stdout.contains("invalid-toleration-effect"),
        "{}",
        r.stdout
    );
    assert!(
        !r.stdout.contains("invalid-toleration-operator"),
        "{}",
        r.stdout
    );
}

#[test]
fn unsafe_fixes_needs_fix_or_diff() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("m.yaml"), POD).unwrap();
    let r = taintlint(dir.path(), &["check", "m.yaml", "--unsafe-fixes"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
}

#[cfg(unix)]
#[test]
fn permissions_are_kept() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("m.yaml");
    std::fs::write(&path, pod("    - {key: a, operator: exists}\n")).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o640)).unwrap();
    taintlint(dir.path(), &["check", "m.yaml", "--isolated", "--fix"]);
    assert!(std::fs::read_to_string(&path).unwrap().contains("Exists"));
    let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o640);
    // No temporary file is left behind.
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
}

#[cfg(unix)]
/// Issue 20, item 5: `--fix` on a symbolic link fixed nothing and replaced the link with a
/// regular file. Issue 26: a link is written through only when the command line says
/// `--follow-links` (a committed link must not send the fix outside the repository); then
/// the file it points to is fixed and the link stays a link.
#[cfg(unix)]
#[test]
fn fix_through_a_symlink_fixes_its_target() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("real")).unwrap();
    let target = dir.path().join("real/m.yaml");
    let before = pod("    - {key: a, operator: exists}\n");
    std::fs::write(&target, &before).unwrap();
    std::os::unix::fs::symlink("real/m.yaml", dir.path().join("link.yaml")).unwrap();
    let args = [
        "check",
        "link.yaml",
        "--isolated",
        "--fix",
        "--format",
        "concise",
    ];
    let r = taintlint(dir.path(), &args);
    assert_eq!(r.code, 2, "{}{}", r.stdout, r.stderr);
    assert!(r.stderr.contains("symbolic link"), "{}", r.stderr);
    assert_eq!(std::fs::read_to_string(&target).unwrap(), before);
    let r = taintlint(dir.path(), &[&args[..], &["--follow-links"]].concat());
    assert!(r.code == 0 || r.code == 1, "{}{}", r.stdout, r.stderr);
    let link = std::fs::symlink_metadata(dir.path().join("link.yaml")).unwrap();
    assert!(link.file_type().is_symlink(), "the link was replaced");
    let fixed = std::fs::read_to_string(&target).unwrap();
    assert!(fixed.contains("operator: Exists"), "{fixed}");
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 2);
    assert_eq!(
        std::fs::read_dir(dir.path().join("real")).unwrap().count(),
        1
    );
}

#[test]
fn files_without_fixes_are_not_rewritten() {
    use std::os::unix::fs::MetadataExt;
    let dir = tempfile::tempdir().unwrap();
    let clean = dir.path().join("clean.yaml");
    let unfixable = dir.path().join("typo.yaml");
    std::fs::write(&clean, POD).unwrap();
    std::fs::write(
        &unfixable,
        pod("    - {key: a, operator: Exists, effect: NoSchedul}\n"),
    )
    .unwrap();
    let before: Vec<_> = [&clean, &unfixable]
        .iter()
        .map(|p| {
            let m = std::fs::metadata(p).unwrap();
            (m.ino(), m.mtime(), m.mtime_nsec())
        })
        .collect();
    std::thread::sleep(std::time::Duration::from_millis(20));
    taintlint(dir.path(), &["check", ".", "--isolated", "--fix"]);
    let after: Vec<_> = [&clean, &unfixable]
        .iter()
        .map(|p| {
            let m = std::fs::metadata(p).unwrap();
            (m.ino(), m.mtime(), m.mtime_nsec())
        })
        .collect();
    assert_eq!(before, after);
}

#[test]
fn sarif_with_fixes_is_valid() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("m.yaml"),
        pod(concat!(
            "    - {key: a, operator: exists, value: x}\n",
            "    - {key: a, operator: exists, value: x}\n",
            "    - key: team\n      operator: Equal\n      value: ml\n      effect: NoSchedule\n",
        )),
    )
    .unwrap();
    let r = taintlint(
        dir.path(),
        &["check", "m.yaml", "--isolated", "--format", "sarif"],
    );
    let doc: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    let results = doc["runs"][0]["results"].as_array().unwrap();
    assert!(results.iter().any(|r| r["fixes"].is_array()));
    let schema_path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/schemas/sarif-schema-2.1.0.json");
    let schema: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(schema_path).unwrap()).unwrap();
    let mut schemas = boon::Schemas::new();
    let mut compiler = boon::Compiler::new();
    compiler
        .add_resource("https://taintlint.test/sarif.json", schema)
        .unwrap();
    let idx = compiler
        .compile("https://taintlint.test/sarif.json", &mut schemas)
        .unwrap();
    if let Err(e) = schemas.validate(&doc, idx) {
        panic!("SARIF with fixes is not valid: {e:#}");
    }
}

/// Lints `text` in memory and applies every fix once: the new text, and the edits taken
/// (span and replacement) in order.
fn apply_all(text: &str) -> (String, Vec<(usize, usize, String)>) {
    let opts = taintlint::engine::LintOptions::default();
    let source = taintlint::load::SourceFile::new("m.yaml", text.to_string());
    let report = taintlint::engine::lint_source(&source, &opts);
    let fixes: Vec<&taintlint::diagnostic::Fix> = report
        .findings
        .iter()
        .filter_map(|f| f.fix.as_ref())
        .collect();
    let (taken, _) = taintlint::fix::plan(text, &fixes);
    let edits = taken
        .iter()
        .map(|e| (e.span.start, e.span.end, e.replacement.clone()))
        .collect();
    (taintlint::fix::apply(text, &fixes).0, edits)
}

fn toleration() -> impl Strategy<Value = String> {
    let key = prop::sample::select(vec![
        "a",
        "dedicated",
        "node.alpha.kubernetes.io/notReady",
        "nvidia.com/gpu",
    ]);
    let op = prop::sample::select(vec!["Exists", "exists", "Equal", "'equal'", "EXISTS"]);
    let value = prop::option::of(prop::sample::select(vec!["x", "yes", "010", "\"q\""]));
    let effect = prop::option::of(prop::sample::select(vec![
        "NoSchedule",
        "noschedule",
        "NoExecute",
        "PreferNoSchedule",
    ]));
    let secs = prop::option::of(prop::sample::select(vec!["60", "010"]));
    let flow = any::<bool>();
    let comment = any::<bool>();
    (key, op, value, effect, secs, flow, comment).prop_map(
        |(key, op, value, effect, secs, flow, comment)| {
            let mut fields = vec![format!("key: {key}"), format!("operator: {op}")];
            if let Some(v) = value {
                fields.push(format!("value: {v}"));
            }
            if let Some(e) = effect {
                fields.push(format!("effect: {e}"));
            }
            if let Some(s) = secs {
                fields.push(format!("tolerationSeconds: {s}"));
            }
            let c = if comment { " # note" } else { "" };
            if flow {
                format!("    - {{{}}}{c}\n", fields.join(", "))
            } else {
                let mut s = String::new();
                for (i, f) in fields.iter().enumerate() {
                    let lead = if i == 0 { "    - " } else { "      " };
                    s.push_str(&format!("{lead}{f}{c}\n"));
                }
                s
            }
        },
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    /// Bytes outside the edited spans never change, and the result still parses.
    #[test]
    fn bytes_outside_edits_never_change(
        tols in prop::collection::vec(toleration(), 1..5),
        crlf in any::<bool>(),
    ) {
        let mut text = pod(&tols.concat());
        if crlf {
            text = text.replace('\n', "\r\n");
        }
        let (out, edits) = apply_all(&text);
        // The output is the input's bytes between the edits, unchanged and in order, with
        // only the replacements in between.
        let mut at_in = 0;
        let mut at_out = 0;
        for (start, end, replacement) in &edits {
            prop_assert!(at_in <= *start, "overlapping edits");
            let gap = &text[at_in..*start];
            prop_assert!(out[at_out..].starts_with(gap), "bytes before {start} changed:\n{text}\n=>\n{out}");
            at_out += gap.len();
            prop_assert!(out[at_out..].starts_with(replacement.as_str()));
            at_out += replacement.len();
            at_in = *end;
        }
        prop_assert_eq!(&out[at_out..], &text[at_in..]);
        // Whole lines are removed or a scalar replaced: an edit never splits a line end.
        for (start, end, _) in &edits {
            prop_assert!(text[*start..*end].matches('\n').count() == text[*start..*end].matches("\r\n").count() || !crlf);
        }
        let stream = taintlint::load::yaml::parse(&out, Default::default());
        prop_assert!(stream.error.is_none(), "{out}");
        if crlf {
            prop_assert!(!out.replace("\r\n", "").contains('\n'), "a bare LF in {out:?}");
        }
    }
}

/// A Terraform file is linted through a view of its heredocs: `--fix` never writes it, while
/// the YAML beside it is fixed.
#[test]
fn terraform_files_are_never_written() {
    let dir = tempfile::tempdir().unwrap();
    let scenario = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/scenarios/terraform");
    for sub in ["infra", "apps"] {
        std::fs::create_dir(dir.path().join(sub)).unwrap();
        for e in std::fs::read_dir(scenario.join(sub)).unwrap() {
            let e = e.unwrap();
            std::fs::copy(e.path(), dir.path().join(sub).join(e.file_name())).unwrap();
        }
    }
    let tf = std::fs::read(dir.path().join("infra/karpenter.tf")).unwrap();
    let yaml = std::fs::read_to_string(dir.path().join("apps/train.yaml")).unwrap();
    let r = taintlint(
        dir.path(),
        &["check", ".", "--isolated", "--fix", "--unsafe-fixes"],
    );
    assert_eq!(r.code, 1, "{}{}", r.stdout, r.stderr);
    assert_eq!(
        std::fs::read(dir.path().join("infra/karpenter.tf")).unwrap(),
        tf
    );
    let after = std::fs::read_to_string(dir.path().join("apps/train.yaml")).unwrap();
    assert_eq!(after, yaml.replace("value: \"yes\"", "value: \"true\""));
}

/// eksctl groups carry two pool-name labels: EKS's `eks.amazonaws.com/nodegroup` on a managed
/// group's nodes (preferred), eksctl's `alpha.eksctl.io/nodegroup-name` on a self-managed one's.
#[test]
fn node_selector_prefers_the_platform_pool_name_label() {
    let config = "apiVersion: eksctl.io/v1alpha5\nkind: ClusterConfig\nmetadata: {name: c, region: eu-west-1}\nmanagedNodeGroups:\n  - name: general\n  - name: ml\n    taints: [{key: dedicated, value: ml, effect: NoSchedule}]\nnodeGroups:\n  - name: batch\n    taints: [{key: dedicated, value: batch, effect: NoSchedule}]\n---\n";
    let text = format!("{config}{}", tolerating("ml"));
    let after = fixed(&text, &["--fix", "--unsafe-fixes"]);
    assert!(
        pod_part(&after).contains("  nodeSelector:\n    eks.amazonaws.com/nodegroup: ml\n"),
        "{after}"
    );
    let text = format!("{config}{}", tolerating("batch"));
    let after = fixed(&text, &["--fix", "--unsafe-fixes"]);
    assert!(
        pod_part(&after).contains("  nodeSelector:\n    alpha.eksctl.io/nodegroup-name: batch\n"),
        "{after}"
    );
}

/// A file kubectl decodes although it is not UTF-8 (UTF-16 with a byte order mark, bytes that
/// are not UTF-8, which kubectl reads as U+FFFD) is linted as kubectl decodes it, but never
/// fixed: the text linted is not the file's bytes.
#[test]
fn files_not_in_utf8_are_linted_but_never_fixed() {
    let text = pod("    - key: a\n      operator: exists\n      effect: NoSchedule\n");
    let latin1 = text
        .replace("name: p", "name: p\u{e9}")
        .replace('\u{e9}', "\u{1}");
    let mut latin1 = latin1.into_bytes();
    let at = latin1.iter().position(|&b| b == 1).unwrap();
    latin1[at] = 0xE9;
    let mut utf16 = vec![0xFF, 0xFE];
    utf16.extend(text.encode_utf16().flat_map(u16::to_le_bytes));
    for bytes in [latin1, utf16] {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("m.yaml");
        std::fs::write(&path, &bytes).unwrap();
        let r = taintlint(
            dir.path(),
            &[
                "check",
                "m.yaml",
                "--isolated",
                "--format",
                "concise",
                "--fix",
            ],
        );
        assert_eq!(r.code, 1, "{}{}", r.stdout, r.stderr);
        assert!(r.stdout.contains("invalid-encoding"), "{}", r.stdout);
        assert!(
            r.stdout.contains("invalid-toleration-operator"),
            "{}",
            r.stdout
        );
        assert_eq!(std::fs::read(&path).unwrap(), bytes, "{}", r.stdout);
    }
}
