//! Issue 36's attack, the command line's part: each probe at the size of the issue's table,
//! committed in a pull request (manifests, `.taintlint.yaml`, links), and the outcome it must
//! have: the findings, the exit status, the file `--fix` leaves, never a panic. Times are
//! not asserted (they are in bench/hostile.py and bench/README.md); the harness's watchdog
//! only catches a hang. The language server's probes are in tests/server.rs.

#![allow(clippy::unwrap_used)] // tests may unwrap

use std::path::Path;

use serde_json::Value;

mod common;

use common::cli::taintlint;

/// A folder standing for the pull request's checkout (with a `.git`), beside an `outside`
/// folder standing for the rest of the machine.
fn checkout() -> (tempfile::TempDir, std::path::PathBuf, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path().join("repo");
    let outside = dir.path().join("outside");
    std::fs::create_dir_all(repo.join(".git")).unwrap();
    std::fs::create_dir_all(&outside).unwrap();
    (dir, repo, outside)
}

const POD_HEAD: &str = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers:\n    - name: c\n      image: nginx:1.27\n";

/// (rule, file) of each finding.
fn findings(v: &Value) -> Vec<(String, String)> {
    v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["rule"].as_str().unwrap().to_string(),
                f["file"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

fn count(v: &Value, rule: &str) -> usize {
    findings(v).iter().filter(|(r, _)| r == rule).count()
}

/// The findings of `rule`, in report order.
fn of_rule<'a>(v: &'a Value, rule: &str) -> Vec<&'a Value> {
    v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["rule"] == rule)
        .collect()
}

/// Row 2: 250,000 copies of one toleration. `--fix` removed them one finding at a time,
/// each removal checking the whole list (over 300 s); now every copy but the first is one
/// finding, and one `--fix` run removes them all.
#[test]
fn a_quarter_million_duplicate_tolerations_are_fixed_in_one_run() {
    let (_dir, repo, _) = checkout();
    let mut text = format!("{POD_HEAD}  tolerations:\n");
    for _ in 0..250_000 {
        text.push_str("    - {key: dedicated, operator: Equal, value: gpu, effect: NoSchedule}\n");
    }
    std::fs::write(repo.join("pod.yaml"), &text).unwrap();
    let select = ["--select", "shadowed-toleration", "--isolated"];
    let r = taintlint(
        &[
            &["check", "pod.yaml", "--format", "concise", "-q"],
            &select[..],
        ]
        .concat(),
    )
    .in_dir(&repo)
    .run();
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert_eq!(r.stdout.lines().count(), 249_999);
    assert!(r.stdout.lines().all(|l| l.contains("duplicate toleration")));
    let r = taintlint(
        &[
            &[
                "check",
                "pod.yaml",
                "--fix",
                "--unsafe-fixes",
                "--format",
                "json",
            ],
            &select[..],
        ]
        .concat(),
    )
    .in_dir(&repo)
    .run();
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(
        std::fs::read_to_string(repo.join("pod.yaml")).unwrap(),
        format!(
            "{POD_HEAD}  tolerations:\n    - {{key: dedicated, operator: Equal, value: gpu, effect: NoSchedule}}\n"
        )
    );
}

/// Row 4: a policy glob against 8 keys of about 200,000 bytes (1.65 MB), which the
/// backtracking matcher compared at every position of each key: each key is judged, the
/// one the policy's glob matches is not allowed in this namespace.
#[test]
fn policy_globs_against_long_keys() {
    let (_dir, repo, _) = checkout();
    let glob = format!("*{}b*", "a".repeat(1000));
    std::fs::write(
        repo.join(".taintlint.yaml"),
        format!("policies:\n  - taint: \"{glob}\"\n    namespaces: [\"{glob}\", ml-*]\n"),
    )
    .unwrap();
    let mut text = format!("{POD_HEAD}  tolerations:\n");
    for i in 0..8 {
        // Keys 0, 2, 4, 6 hold the `b` the glob needs, the others only `a`s.
        let tail = if i % 2 == 0 { "b" } else { "" };
        text.push_str(&format!(
            "  - {{key: {}{tail}{i}, operator: Exists, effect: NoSchedule}}\n",
            "a".repeat(207_000)
        ));
    }
    assert!(text.len() > 1_650_000);
    std::fs::write(repo.join("pod.yaml"), &text).unwrap();
    let (code, v) = taintlint(&["check", ".", "--format", "json"])
        .in_dir(&repo)
        .json();
    assert_eq!(code, 1);
    assert_eq!(count(&v, "toleration-not-allowed"), 4, "{v:#}");
    assert_eq!(count(&v, "invalid-config"), 0, "{v:#}");
}

/// Row 4's limit: a policy glob over 1,024 bytes is an `invalid-config` error at its place
/// and not used; the manifests are still linted.
#[test]
fn policy_globs_over_the_limit_are_config_errors() {
    let (_dir, repo, _) = checkout();
    let long = format!("*{}*", "a?".repeat(60_000));
    std::fs::write(
        repo.join(".taintlint.yaml"),
        format!(
            "policies:\n  - taint: \"{long}\"\n  - taint: gpu\n    namespaces: [\"{long}\", ml-*]\n"
        ),
    )
    .unwrap();
    std::fs::write(
        repo.join("pod.yaml"),
        format!("{POD_HEAD}  tolerations: [{{key: gpu, operator: Exists}}]\n"),
    )
    .unwrap();
    let (code, v) = taintlint(&["check", ".", "--format", "json"])
        .in_dir(&repo)
        .json();
    assert_eq!(code, 1);
    let config: Vec<&Value> = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["rule"] == "invalid-config")
        .collect();
    assert_eq!(config.len(), 2, "{v:#}");
    for f in &config {
        assert_eq!(f["file"], ".taintlint.yaml");
        assert!(
            f["message"].as_str().unwrap().contains("at most 1024"),
            "{f}"
        );
        assert!(f["message"].as_str().unwrap().len() < 300, "{f}");
    }
    assert_eq!(config[0]["line"], 2);
    assert_eq!(config[1]["line"], 4);
    // The second policy still applies, with its short glob.
    assert_eq!(count(&v, "toleration-not-allowed"), 1, "{v:#}");
}

/// Row 8: a `per-file-ignores` glob of 100,000 `*` made globset's `compile_matcher` panic
/// (exit 101, no report). Now: an `invalid-config` finding at the glob, every file linted;
/// the same under `clusters:` paths; under `exclude` a clean exit 2 naming its place; on the
/// command line a clean exit 2 naming the glob.
#[test]
fn globs_that_cannot_compile_are_findings_or_clean_errors() {
    let (_dir, repo, _) = checkout();
    let stars = "*".repeat(100_000);
    std::fs::write(
        repo.join("pod.yaml"),
        format!("{POD_HEAD}  tolerations: [{{key: a, operator: Exists, value: b}}]\n"),
    )
    .unwrap();
    // An implicit YAML key is at most 1,024 characters: the long one is an explicit key.
    for config in [
        format!("per-file-ignores:\n  ? \"{stars}\"\n  : [toleration-exists-with-value]\n"),
        format!("clusters:\n  - name: a\n    paths: [\"{stars}\"]\n"),
        "per-file-ignores:\n  \"{a,b}/{c,d}/[\": [toleration-exists-with-value]\n".to_string(),
    ] {
        std::fs::write(repo.join(".taintlint.yaml"), &config).unwrap();
        let r = taintlint(&["check", ".", "--format", "json"])
            .in_dir(&repo)
            .run();
        assert_eq!(r.code, 1, "{}", r.stderr);
        assert!(!r.stderr.contains("internal error"), "{}", r.stderr);
        let v: Value = serde_json::from_str(&r.stdout).unwrap();
        let f = findings(&v);
        assert!(
            f.contains(&("invalid-config".into(), ".taintlint.yaml".into())),
            "{config:.80}: {f:?}"
        );
        assert!(
            f.contains(&("toleration-exists-with-value".into(), "pod.yaml".into())),
            "{config:.80}: {f:?}"
        );
        assert!(r.stdout.len() < 100_000, "the glob is shown cut short");
    }
    std::fs::write(
        repo.join(".taintlint.yaml"),
        format!("kube-version: \"1.35\"\nexclude: [\"{stars}\"]\n"),
    )
    .unwrap();
    let r = taintlint(&["check", "."]).in_dir(&repo).run();
    assert_eq!(r.code, 2, "{}{}", r.stdout, r.stderr);
    assert!(
        r.stderr.contains(".taintlint.yaml:2:") && r.stderr.contains("exclude"),
        "{}",
        r.stderr
    );
    assert!(r.stderr.len() < 1000, "{}", r.stderr);
    let r = taintlint(&["check", ".", "--isolated", "--exclude", &stars])
        .in_dir(&repo)
        .run();
    assert_eq!(r.code, 2, "{}{}", r.stdout, r.stderr);
    assert!(r.stderr.contains("invalid glob"), "{}", r.stderr);
    assert!(r.stderr.len() < 1000, "{}", r.stderr);
}

fn link(target: &Path, at: &Path) {
    std::os::unix::fs::symlink(target, at).unwrap();
}

/// Row 9, the command line's part: a committed link to a folder outside, named in the
/// config's `inventory:`, is not read (every component of the path is resolved).
#[test]
fn inventory_through_a_linked_folder_is_not_read() {
    let (_dir, repo, outside) = checkout();
    std::fs::write(
        outside.join("nodes.yaml"),
        "apiVersion: v1\nkind: Node\nmetadata: {name: secret-node-name}\nspec:\n  taints: [{key: secret, effect: NoSchedule}]\n",
    )
    .unwrap();
    link(&outside, &repo.join("linked"));
    std::fs::write(
        repo.join(".taintlint.yaml"),
        "inventory: [linked/nodes.yaml]\n",
    )
    .unwrap();
    std::fs::write(repo.join("pod.yaml"), POD_HEAD).unwrap();
    let r = taintlint(&["check", ".", "--format", "json"])
        .in_dir(&repo)
        .run();
    assert!(!r.stdout.contains("secret-node-name"), "{}", r.stdout);
    assert!(r.stdout.contains("outside the repository"), "{}", r.stdout);
}

/// A Namespace whose PodTolerationRestriction annotations hold `n` distinct tolerations
/// each (defaults and allow list), written as JSON lists.
fn namespace_with_tolerations(name: &str, n: usize) -> String {
    let list = (0..n)
        .map(|i| format!(r#"{{"key":"example.com/k{i:05}","operator":"Exists"}}"#))
        .collect::<Vec<_>>()
        .join(",");
    // The allow list also takes the tolerations DefaultTolerationSeconds adds to every pod.
    let added = r#"{"key":"node.kubernetes.io/not-ready","operator":"Exists"},{"key":"node.kubernetes.io/unreachable","operator":"Exists"}"#;
    format!(
        "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: {name}\n  annotations:\n    scheduler.alpha.kubernetes.io/defaultTolerations: '[{list}]'\n    scheduler.alpha.kubernetes.io/tolerationsWhitelist: '[{added},{list}]'\n"
    )
}

/// `count` Pods in `namespace`, each tolerating one key of the allow list but the last,
/// which tolerates a key outside it.
fn pods_in(namespace: &str, count: usize) -> String {
    (0..count)
        .map(|i| {
            let key = if i + 1 == count {
                "example.com/outside".to_string()
            } else {
                format!("example.com/k{:05}", i * 7)
            };
            format!(
                "---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: p{i}\n  namespace: {namespace}\nspec:\n  containers: [{{name: c, image: nginx:1.27}}]\n  nodeSelector: {{pool: p}}\n  tolerations:\n    - {{key: {key}, operator: Exists}}\n"
            )
        })
        .collect()
}

/// Row 3: PodTolerationRestriction's merge of a namespace's default tolerations into each
/// pod was pairwise (20,000 defaults: 12 s for one pod). Under the API server's 256 KiB
/// annotation limit, 2,500 distinct defaults and as large an allow list are merged into 40
/// pods, each judged (the one toleration outside the allow list is rejected); over it (20,000
/// defaults, 1.9 MB), the Namespace is one finding with the API server's message and its
/// annotations are not read at all.
#[test]
fn namespace_default_tolerations_at_the_limit_and_over_it() {
    let (_dir, repo, _) = checkout();
    std::fs::write(
        repo.join(".taintlint.yaml"),
        "admission-plugins: [PodTolerationRestriction]\n",
    )
    .unwrap();
    let under = namespace_with_tolerations("under", 2_500);
    assert!(under.len() < 256 * 1024 && under.len() > 200 * 1024);
    std::fs::write(repo.join("under.yaml"), under + &pods_in("under", 40)).unwrap();
    let over = namespace_with_tolerations("over", 20_000);
    assert!(over.len() > 1_900_000);
    std::fs::write(repo.join("over.yaml"), over + &pods_in("over", 40)).unwrap();
    let (code, v) = taintlint(&["check", ".", "--format", "json"])
        .in_dir(&repo)
        .json();
    assert_eq!(code, 1, "{v:#}");
    let rejected: Vec<_> = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["rule"] == "admission-rejected")
        .collect();
    assert_eq!(rejected.len(), 1, "{v:#}");
    assert_eq!(rejected[0]["file"], "under.yaml");
    assert!(
        rejected[0]["message"]
            .as_str()
            .unwrap()
            .contains("example.com/outside"),
        "{v:#}"
    );
    let too_long: Vec<_> = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["rule"] == "invalid-namespace-scheduling-annotation")
        .collect();
    assert_eq!(too_long.len(), 1, "{v:#}");
    assert_eq!(too_long[0]["file"], "over.yaml");
    assert!(
        too_long[0]["api_error"]
            .as_str()
            .unwrap()
            .contains("262144"),
        "{v:#}"
    );
}

/// Row 6: 4,000 Nodes, each with a label and a taint of its own, and 4,000 Pods, each
/// selecting one Node and tolerating its taint with the wrong value (1.35 MB; 97 s, growing
/// as n^2.5, when every pair was judged): every Pod is unschedulable, each told so once, and
/// the near miss names its own Node's taint.
#[test]
fn four_thousand_distinct_pools_by_four_thousand_signatures() {
    let (_dir, repo, _) = checkout();
    let n = 4_000;
    let mut nodes = String::new();
    let mut pods = String::new();
    for i in 0..n {
        nodes.push_str(&format!(
            "---\napiVersion: v1\nkind: Node\nmetadata:\n  name: node-{i:05}\n  labels: {{kubernetes.io/hostname: node-{i:05}, example.com/pool: pool-{i:05}}}\nspec:\n  taints:\n    - {{key: example.com/dedicated-{i:05}, value: dedicated, effect: NoSchedule}}\n"
        ));
        pods.push_str(&format!(
            "---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: app-{i:05}\nspec:\n  containers: [{{name: c, image: nginx:1.27}}]\n  nodeSelector: {{example.com/pool: pool-{i:05}}}\n  tolerations:\n    - {{key: example.com/dedicated-{i:05}, operator: Equal, value: dedicated-x, effect: NoSchedule}}\n"
        ));
    }
    std::fs::write(repo.join("nodes.yaml"), nodes).unwrap();
    std::fs::write(repo.join("apps.yaml"), pods).unwrap();
    let (code, v) = taintlint(&[
        "check",
        "apps.yaml",
        "--inventory",
        "nodes.yaml",
        "--isolated",
        "--format",
        "json",
    ])
    .in_dir(&repo)
    .json();
    assert_eq!(code, 1, "{v:#}");
    let unschedulable = of_rule(&v, "unschedulable-workload");
    assert_eq!(unschedulable.len(), n, "{:#}", v["findings"][0]);
    // Sorted by line: the Pods in file order; each names its own Node's taint.
    for (i, f) in unschedulable.iter().enumerate().step_by(997) {
        let text = format!("{}{}", f["message"], f["help"]);
        assert!(
            text.contains(&format!("example.com/dedicated-{i:05}")),
            "{f:#}"
        );
    }
}

/// 4,000 Nodes, each with a label `role: rI` and a taint of its own value, and 4,000
/// Deployments each tolerating its Node's taint but selecting `rIx` (one slip from `rI`, and
/// from `rI0`…`rI9`): every class is tolerated by key, so the near miss of each pod scored
/// every pool (34 s at 8,000; now only the classes nearest by value). Each pod is
/// unschedulable, told so once, and pointed at a Node one edit away.
#[test]
fn four_thousand_pods_tolerated_everywhere_and_selecting_a_slip() {
    let (_dir, repo, _) = checkout();
    let n = 4_000;
    let mut nodes = String::new();
    let mut apps = String::new();
    for i in 0..n {
        nodes.push_str(&format!(
            "---\napiVersion: v1\nkind: Node\nmetadata:\n  name: n{i}\n  labels: {{role: r{i}}}\nspec:\n  taints:\n    - {{key: dedicated, value: v{i}, effect: NoSchedule}}\n"
        ));
        apps.push_str(&format!(
            "---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: app{i}\nspec:\n  selector: {{matchLabels: {{app: a}}}}\n  template:\n    metadata: {{labels: {{app: a}}}}\n    spec:\n      nodeSelector: {{role: r{i}x}}\n      tolerations: [{{key: dedicated, value: v{i}, effect: NoSchedule}}]\n      containers: [{{name: c, image: i}}]\n"
        ));
    }
    std::fs::write(repo.join("nodes.yaml"), nodes).unwrap();
    std::fs::write(repo.join("apps.yaml"), apps).unwrap();
    let (code, v) = taintlint(&["check", ".", "--isolated", "--format", "json"])
        .in_dir(&repo)
        .json();
    assert_eq!(code, 1, "{v:#}");
    let unschedulable = of_rule(&v, "unschedulable-workload");
    assert_eq!(unschedulable.len(), n, "{:#}", v["findings"][0]);
    for f in &unschedulable {
        let help = f["help"].as_str().unwrap();
        assert!(
            help.contains("the pool this pod is meant for is node `n"),
            "{f:#}"
        );
    }
    // `r3999x` is one edit from `r3999` only.
    let last = unschedulable
        .iter()
        .find(|f| f["object"]["name"] == "app3999")
        .unwrap();
    assert!(
        last["help"].as_str().unwrap().contains("node `n3999`"),
        "{last:#}"
    );
}

/// 4,000 folders, each an eksctl ClusterConfig and a Deployment missing its node group: 4,000
/// clusters the files define, each judged alone (every cluster's inventory held a copy of the
/// run's list of stored places: 1.6 GB at 8,000). Each Deployment is judged in its own
/// cluster only.
#[test]
fn four_thousand_clusters_each_judged_alone() {
    let (_dir, repo, _) = checkout();
    let n = 4_000;
    for i in 0..n {
        let d = repo.join(format!("examples/ex{i}"));
        std::fs::create_dir_all(&d).unwrap();
        std::fs::write(
            d.join("cluster.yaml"),
            format!("apiVersion: eksctl.io/v1alpha5\nkind: ClusterConfig\nmetadata:\n  name: c{i}\n  region: us-east-1\nmanagedNodeGroups:\n  - name: ng{i}\n    labels: {{role: r{i}}}\n"),
        )
        .unwrap();
        std::fs::write(
            d.join("app.yaml"),
            format!("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: app{i}\nspec:\n  selector: {{matchLabels: {{app: a}}}}\n  template:\n    metadata: {{labels: {{app: a}}}}\n    spec:\n      nodeSelector: {{role: other{i}}}\n      containers: [{{name: c, image: i}}]\n"),
        )
        .unwrap();
    }
    let (code, v) = taintlint(&["check", ".", "--isolated", "--format", "json"])
        .in_dir(&repo)
        .json();
    assert_eq!(code, 1, "{v:#}");
    let unschedulable = of_rule(&v, "unschedulable-workload");
    assert_eq!(unschedulable.len(), n, "{:#}", v["findings"][0]);
    for f in unschedulable.iter().step_by(397) {
        let i = f["object"]["name"]
            .as_str()
            .unwrap()
            .trim_start_matches("app");
        let text = format!("{}{}", f["message"], f["help"]);
        assert!(
            text.contains(&format!("examples/ex{i}/cluster.yaml")),
            "{f:#}"
        );
        assert!(text.contains(&format!("`r{i}`")), "{f:#}");
        assert_eq!(text.matches("managedNodeGroup `").count(), 1, "{f:#}");
    }
}
