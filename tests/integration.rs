//! Integrations, end to end on the real binary: the config file (discovery, `--config`,
//! `--isolated`, every key, mistakes), suppressions, baselines, Helm and Kustomize output on
//! stdin, and shell completions. Every test works in its own temporary directory (or the
//! repository's `testdata/`) and reads the binary's stdout and stderr with
//! `Command::output()`, so a full pipe can never deadlock.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

struct Run {
    code: i32,
    stdout: String,
    stderr: String,
}

impl Run {
    /// The finding lines of `--format concise` output (the summary line dropped).
    fn lines(&self) -> Vec<&str> {
        self.stdout
            .lines()
            .filter(|l| l.contains(": error[") || l.contains(": warning[") || l.contains(": info["))
            .collect()
    }

    /// The rules named in `--format concise` output, in output order.
    fn rules(&self) -> Vec<&str> {
        self.lines()
            .iter()
            .filter_map(|l| {
                let start = l.find('[')? + 1;
                let end = l[start..].find(']')? + start;
                Some(&l[start..end])
            })
            .collect()
    }

    fn summary(&self) -> &str {
        self.stdout.lines().last().unwrap_or("")
    }
}

fn command(dir: &Path, args: &[&str]) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_taintlint"));
    cmd.args(args)
        .current_dir(dir)
        .env_remove("TAINTLINT_FORMAT")
        .env("NO_COLOR", "1");
    cmd
}

fn finish(out: std::process::Output) -> Run {
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

fn run_in(dir: &Path, args: &[&str]) -> Run {
    finish(command(dir, args).output().expect("run taintlint"))
}

/// Runs with `input` on stdin, written from another thread while the output is read.
fn run_stdin(dir: &Path, args: &[&str], input: &[u8]) -> Run {
    let mut child = command(dir, args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn taintlint");
    let mut stdin = child.stdin.take().expect("stdin");
    let input = input.to_vec();
    let writer = std::thread::spawn(move || {
        // The binary may exit before reading everything; a broken pipe is not our failure.
        let _ = stdin.write_all(&input);
    });
    let out = child.wait_with_output().expect("wait for taintlint");
    writer.join().expect("stdin writer");
    finish(out)
}

/// `check --format concise ARGS...` in `dir`.
fn concise(dir: &Path, args: &[&str]) -> Run {
    let mut all = vec!["check", "--format", "concise"];
    all.extend_from_slice(args);
    run_in(dir, &all)
}

/// A temporary directory with these files (paths relative to it; folders created).
fn tree(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    for (path, text) in files {
        write(dir.path(), path, text);
    }
    dir
}

fn write(dir: &Path, path: &str, text: &str) {
    let p = dir.join(path);
    std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
    std::fs::write(p, text).expect("write");
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A pod that tolerates everything (`tolerates-all-taints`, line 7) and has a toleration the
/// API server rejects (`toleration-exists-with-value`, line 10).
const POD: &str = "\
apiVersion: v1
kind: Pod
metadata:
  name: debug
spec:
  tolerations:
    - operator: Exists
    - key: dedicated
      operator: Exists
      value: infra
      effect: NoSchedule
  containers: [{name: c, image: nginx}]
";

/// A pod with one toleration the API server rejects, at line 8 (value at column 14).
const BAD_VALUE: &str = "\
apiVersion: v1
kind: Pod
metadata:
  name: web
spec:
  tolerations:
    - key: dedicated
      operator: Exists
      value: infra
      effect: NoSchedule
  affinity:
    nodeAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
        nodeSelectorTerms:
          - matchExpressions: [{key: dedicated, operator: Exists}]
  containers: [{name: c, image: nginx}]
";

/// Tolerates everything (line 7), nothing else to report.
const TOLERATE_ALL: &str = "\
apiVersion: v1
kind: Pod
metadata:
  name: agent
spec:
  tolerations:
    - operator: Exists
  containers: [{name: c, image: nginx}]
";

// ---------------------------------------------------------------- config discovery

#[test]
fn config_is_discovered_from_a_nested_subdirectory() {
    let dir = tree(&[
        (
            ".taintlint.yaml",
            "rules:\n  tolerates-all-taints: off\n  nosuch-rule: warning\n",
        ),
        ("apps/web/pod.yaml", TOLERATE_ALL),
    ]);
    let sub = dir.path().join("apps/web");
    let r = concise(&sub, &["."]);
    // The rule is off, and the config's mistake names the config relative to the cwd.
    assert_eq!(
        r.lines(),
        [
            "../../.taintlint.yaml:3:3: error[invalid-config] unknown rule `nosuch-rule` (see `taintlint rules`)"
        ],
        "{}",
        r.stderr
    );

    // The nearest config wins, and `taintlint.yaml` (no dot) counts too.
    write(dir.path(), "apps/taintlint.yaml", "rules: {}\n");
    let r = concise(&sub, &["."]);
    assert_eq!(r.rules(), ["tolerates-all-taints"]);

    // Without any config the rule runs at its default level.
    let bare = tree(&[("a/b/pod.yaml", TOLERATE_ALL)]);
    let r = concise(&bare.path().join("a/b"), &["."]);
    assert_eq!(
        r.lines(),
        [
            "pod.yaml:7:7: warning[tolerates-all-taints] toleration tolerates every taint of every effect"
        ]
    );
}

#[test]
fn explicit_config_overrides_discovery_and_isolated_ignores_it() {
    let dir = tree(&[
        (".taintlint.yaml", "rules:\n  tolerates-all-taints: off\n"),
        ("other.yaml", "rules:\n  tolerates-all-taints: error\n"),
        ("pod.yaml", TOLERATE_ALL),
    ]);
    let d = dir.path();
    assert_eq!(concise(d, &["pod.yaml"]).rules(), Vec::<&str>::new());

    let r = concise(d, &["--config", "other.yaml", "pod.yaml"]);
    assert_eq!(
        r.lines(),
        [
            "pod.yaml:7:7: error[tolerates-all-taints] toleration tolerates every taint of every effect"
        ]
    );

    let r = concise(d, &["--isolated", "pod.yaml"]);
    assert_eq!(
        r.lines(),
        [
            "pod.yaml:7:7: warning[tolerates-all-taints] toleration tolerates every taint of every effect"
        ]
    );

    // A missing --config is a tool error, and the two flags exclude each other.
    let r = concise(d, &["--config", "missing.yaml", "pod.yaml"]);
    assert_eq!(r.code, 2);
    assert!(
        r.stderr.contains("missing.yaml does not exist"),
        "{}",
        r.stderr
    );
    let r = concise(d, &["--config", "other.yaml", "--isolated", "pod.yaml"]);
    assert_eq!(r.code, 2);
}

// ---------------------------------------------------------------- config keys

const STATEFULSET: &str = "\
apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: db
spec:
  serviceName: db
  selector:
    matchLabels: {app: db}
  template:
    metadata:
      labels: {app: db}
    spec:
      containers: [{name: postgres, image: postgres:16}]
";

#[test]
fn rule_levels_from_config() {
    let dir = tree(&[
        (
            ".taintlint.yaml",
            "rules:\n  tolerates-all-taints: off\n  toleration-exists-with-value: warning\n  stateful-eviction-timeout: info\n  shadowed-toleration: false\n  dedicated-toleration-without-affinity: \"off\"\n",
        ),
        ("pod.yaml", POD),
        ("sts.yaml", STATEFULSET),
    ]);
    let d = dir.path();
    let r = concise(d, &["."]);
    assert_eq!(
        r.lines(),
        [
            "pod.yaml:10:14: warning[toleration-exists-with-value] toleration has `operator: Exists` and `value: infra`; the API server rejects this object",
            "sts.yaml:2:7: info[stateful-eviction-timeout] StatefulSet pods get the default 300 s toleration for `node.kubernetes.io/not-ready` and `node.kubernetes.io/unreachable`: they are evicted five minutes after their node fails",
        ],
        "{}",
        r.stdout
    );
    // The error became a warning: `--fail-on error` passes.
    assert_eq!(r.code, 1);
    assert_eq!(concise(d, &["--fail-on", "error", "."]).code, 0);

    // Opt-in rules stay off without the config.
    let r = concise(d, &["--isolated", "."]);
    assert!(
        !r.rules().contains(&"stateful-eviction-timeout"),
        "{}",
        r.stdout
    );
    assert!(r.rules().contains(&"tolerates-all-taints"));
}

#[test]
fn select_on_the_command_line_beats_config_off() {
    let dir = tree(&[
        (".taintlint.yaml", "rules:\n  tolerates-all-taints: off\n"),
        ("pod.yaml", TOLERATE_ALL),
    ]);
    let r = concise(
        dir.path(),
        &["--select", "tolerates-all-taints", "pod.yaml"],
    );
    assert_eq!(r.rules(), ["tolerates-all-taints"]);
    // Only naming the rule does: a category leaves the config's `off` in place.
    let r = concise(dir.path(), &["--select", "suspicious", "pod.yaml"]);
    assert_eq!(r.rules(), Vec::<&str>::new());
}

#[test]
fn ignore_on_the_command_line_beats_a_config_level() {
    let dir = tree(&[
        (".taintlint.yaml", "rules:\n  tolerates-all-taints: error\n"),
        ("pod.yaml", TOLERATE_ALL),
    ]);
    let r = concise(
        dir.path(),
        &["--ignore", "tolerates-all-taints", "pod.yaml"],
    );
    assert_eq!(r.rules(), Vec::<&str>::new(), "{}", r.stdout);
    let r = concise(dir.path(), &["--ignore", "suspicious", "pod.yaml"]);
    assert_eq!(r.rules(), Vec::<&str>::new(), "{}", r.stdout);
}

#[test]
fn exclude_from_config() {
    let dir = tree(&[
        (
            ".taintlint.yaml",
            "exclude:\n  - vendor/**\n  - \"*.generated.yaml\"\n",
        ),
        ("pod.yaml", TOLERATE_ALL),
        ("vendor/chart/pod.yaml", POD),
        ("deep/x.generated.yaml", POD),
    ]);
    let r = concise(dir.path(), &["."]);
    assert_eq!(r.rules(), ["tolerates-all-taints"], "{}", r.stdout);
    // The config itself is a file of the walk; the excluded ones are not.
    assert!(
        r.summary().ends_with("in 2 files (2 documents)"),
        "{}",
        r.summary()
    );
}

#[test]
fn per_file_ignores_and_globs_that_match_nothing() {
    let dir = tree(&[
        (
            ".taintlint.yaml",
            "per-file-ignores:\n  \"charts/legacy/**\": [tolerates-all-taints, toleration-exists-with-value]\n  \"agent.yaml\": tolerates-all-taints\n  \"nothing/**\": [shadowed-toleration]\n",
        ),
        ("charts/legacy/pod.yaml", POD),
        ("agent.yaml", TOLERATE_ALL),
    ]);
    let r = concise(dir.path(), &["."]);
    assert_eq!(
        r.lines(),
        [
            ".taintlint.yaml:4:3: warning[invalid-config] `per-file-ignores` glob `nothing/**` matches no linted file",
            "charts/legacy/pod.yaml:8:7: warning[dedicated-toleration-without-affinity] tolerates the `dedicated` taint, but nothing pins the pod to those nodes: it can land on any untainted node as well",
            "charts/legacy/pod.yaml:8:7: warning[shadowed-toleration] toleration is shadowed: an earlier toleration already matches every taint this one matches",
        ],
        "{}",
        r.stdout
    );
    // The glob is matched against path suffixes too: linting from above still ignores.
    let parent = dir.path().parent().expect("parent");
    let name = dir
        .path()
        .file_name()
        .unwrap()
        .to_string_lossy()
        .into_owned();
    let r = concise(
        parent,
        &["--config", &format!("{name}/.taintlint.yaml"), &name],
    );
    assert!(!r.rules().contains(&"tolerates-all-taints"), "{}", r.stdout);
}

#[test]
fn dedicated_exempt_keys_from_config() {
    let pod = "\
apiVersion: v1
kind: Pod
metadata:
  name: batch
spec:
  tolerations:
    - key: example.com/batch
      operator: Exists
      effect: NoSchedule
    - key: scheduling.example.com/spot
      operator: Exists
      effect: NoSchedule
  containers: [{name: c, image: busybox}]
";
    let dir = tree(&[("pod.yaml", pod)]);
    let d = dir.path();
    let r = concise(d, &["pod.yaml"]);
    assert_eq!(
        r.rules(),
        [
            "dedicated-toleration-without-affinity",
            "dedicated-toleration-without-affinity"
        ]
    );
    write(
        d,
        ".taintlint.yaml",
        "dedicated-exempt-keys:\n  - example.com/batch\n",
    );
    let r = concise(d, &["pod.yaml"]);
    assert_eq!(
        r.lines(),
        [
            "pod.yaml:10:7: warning[dedicated-toleration-without-affinity] tolerates the `scheduling.example.com/spot` taint, but nothing pins the pod to those nodes: it can land on any untainted node as well"
        ]
    );
    write(
        d,
        ".taintlint.yaml",
        "dedicated-exempt-keys:\n  - example.com/batch\n  - scheduling.example.com/*\n",
    );
    let r = concise(d, &["pod.yaml"]);
    assert_eq!(r.code, 0, "{}", r.stdout);
    assert!(r.lines().is_empty());
}

fn api_error(r: &Run) -> String {
    let v: serde_json::Value = serde_json::from_str(&r.stdout).expect("JSON output");
    v["findings"][0]["api_error"]
        .as_str()
        .expect("api_error")
        .to_string()
}

#[test]
fn kube_version_from_config_and_the_flag_beats_it() {
    let dir = tree(&[("pod.yaml", BAD_VALUE)]);
    let d = dir.path();
    let args = [
        "check",
        "--format",
        "json",
        "--select",
        "toleration-exists-with-value",
        "pod.yaml",
    ];
    let current = api_error(&run_in(d, &args));
    assert_eq!(
        current,
        "spec.tolerations[0].operator: Invalid value: \"infra\": value must be empty when `operator` is 'Exists'"
    );
    write(d, ".taintlint.yaml", "kube-version: \"1.31\"\n");
    let old = api_error(&run_in(d, &args));
    assert!(
        old.starts_with(
            "spec.tolerations[0].operator: Invalid value: core.Toleration{Key:\"dedicated\""
        ),
        "{old}"
    );
    let mut flag = args.to_vec();
    flag.insert(1, "--kube-version=1.35");
    assert_eq!(api_error(&run_in(d, &flag)), current);
}

#[test]
fn feature_gates_from_config() {
    let pod = "\
apiVersion: v1
kind: Pod
metadata:
  name: p
spec:
  tolerations:
    - key: example.com/generation
      operator: Lt
      value: \"5\"
      effect: NoSchedule
  affinity:
    nodeAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
        nodeSelectorTerms:
          - matchExpressions: [{key: example.com/generation, operator: Lt, values: [\"5\"]}]
  containers: [{name: c, image: busybox}]
";
    let dir = tree(&[("pod.yaml", pod)]);
    let d = dir.path();
    let r = concise(d, &["pod.yaml"]);
    assert_eq!(r.rules(), ["invalid-toleration-operator"], "{}", r.stdout);
    write(
        d,
        ".taintlint.yaml",
        "feature-gates:\n  TaintTolerationComparisonOperators: true\n",
    );
    let r = concise(d, &["pod.yaml"]);
    assert_eq!(r.code, 0, "{}", r.stdout);
    // The command line can turn it off again.
    let r = concise(
        d,
        &[
            "--feature-gates",
            "TaintTolerationComparisonOperators=false",
            "pod.yaml",
        ],
    );
    assert_eq!(r.rules(), ["invalid-toleration-operator"]);
}

const GPU_DEPLOYMENT: &str = "\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: trainer
  namespace: shop
spec:
  template:
    spec:
      nodeSelector:
        pool: gpu
      containers: [{name: t, image: pytorch}]
";

#[test]
fn inline_inventory_pools_drive_unschedulable_workload() {
    let dir = tree(&[
        (
            ".taintlint.yaml",
            "inventory:\n  pools:\n    - name: gpu\n      labels: {pool: gpu}\n      taints: [\"nvidia.com/gpu=present:NoSchedule\"]\n",
        ),
        ("app.yaml", GPU_DEPLOYMENT),
    ]);
    let r = concise(dir.path(), &["app.yaml"]);
    assert_eq!(
        r.lines(),
        [
            ".taintlint.yaml:3:13: info[pool-tolerated-by-nothing] no linted workload (other than DaemonSets) can run on Inventory pool `gpu`, tainted `nvidia.com/gpu=present:NoSchedule`",
            "app.yaml:2:7: error[unschedulable-workload] 0/1 node pools can run this pod: 1 has untolerated taint {nvidia.com/gpu: present}",
        ],
        "{}",
        r.stdout
    );
    // Without the config there is no inventory, and nothing to say.
    assert_eq!(concise(dir.path(), &["--isolated", "app.yaml"]).code, 0);

    // A bad taint string is reported where it is written.
    write(
        dir.path(),
        ".taintlint.yaml",
        "inventory:\n  pools:\n    - name: gpu\n      taints: [\"nvidia.com/gpu=present:Sometimes\"]\n",
    );
    let r = concise(dir.path(), &["app.yaml"]);
    assert!(
        r.lines().contains(&".taintlint.yaml:4:16: error[invalid-taint-spec] `nvidia.com/gpu=present:Sometimes` is not a valid taint: invalid taint effect: Sometimes, unsupported taint effect"),
        "{}",
        r.stdout
    );
}

#[test]
fn inventory_files_are_relative_to_the_config() {
    let inventory = std::fs::read_to_string(
        root().join("testdata/scenarios/external-inventory/platform/inventory.yaml"),
    )
    .expect("inventory fixture");
    let dir = tree(&[
        (
            ".taintlint.yaml",
            "inventory:\n  files: [platform/inventory.yaml]\n",
        ),
        ("platform/inventory.yaml", &inventory),
        ("apps/app.yaml", GPU_DEPLOYMENT),
    ]);
    // Run from a subdirectory: the file is found beside the config, not the cwd.
    let r = concise(&dir.path().join("apps"), &["app.yaml"]);
    assert_eq!(
        r.lines()[2],
        "app.yaml:2:7: error[unschedulable-workload] 0/3 node pools can run this pod: 1 didn't match Pod's node affinity/selector, 1 has untolerated taint {nvidia.com/gpu: present}, 1 has untolerated taint {workload: batch}",
        "{}",
        r.stdout
    );
    // The inventory file is not linted as input (one file), but its pools are named in it.
    assert!(
        r.summary().ends_with("in 1 file (1 document)"),
        "{}",
        r.summary()
    );
    assert!(
        r.lines()
            .iter()
            .any(|l| l
                .starts_with("../platform/inventory.yaml:8:11: info[pool-tolerated-by-nothing]")),
        "{}",
        r.stdout
    );

    // The list form, and a file that does not exist.
    write(
        dir.path(),
        ".taintlint.yaml",
        "inventory: [platform/inventory.yaml, platform/missing.yaml]\n",
    );
    let r = concise(dir.path(), &["apps"]);
    assert!(
        r.rules().contains(&"unschedulable-workload"),
        "{}",
        r.stdout
    );
    assert!(
        r.lines().contains(
            &".taintlint.yaml:1:12: error[invalid-config] inventory file `platform/missing.yaml` does not exist"
        ),
        "{}",
        r.stdout
    );
}

const GPU_TOLERATIONS: &str = "\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: shop
spec:
  template:
    spec:
      containers: [{name: web, image: nginx}]
      tolerations:
        - key: nvidia.com/gpu
          operator: Exists
          effect: NoSchedule
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: trainer
  namespace: ml-research
spec:
  template:
    spec:
      containers: [{name: trainer, image: pytorch}]
      tolerations:
        - key: nvidia.com/gpu
          operator: Exists
          effect: NoSchedule
";

#[test]
fn policies_from_config_and_policy_file() {
    let policy = "policies:\n  - taint: nvidia.com/gpu\n    namespaces: [\"ml-*\"]\n";
    let expected = "w.yaml:11:11: error[toleration-not-allowed] `Deployment/shop/web` tolerates `nvidia.com/gpu`, which the policy for `nvidia.com/gpu` allows only for namespace `ml-*`";
    let dir = tree(&[("w.yaml", GPU_TOLERATIONS), ("policy.yaml", policy)]);
    let d = dir.path();
    let sel = "--select=toleration-not-allowed";

    let r = concise(d, &[sel, "--isolated", "w.yaml"]);
    assert_eq!(r.code, 0, "no policy, no finding: {}", r.stdout);

    let r = concise(d, &[sel, "--isolated", "--policy", "policy.yaml", "w.yaml"]);
    assert_eq!(r.lines(), [expected], "{}", r.stderr);

    write(d, ".taintlint.yaml", policy);
    let r = concise(d, &[sel, "w.yaml"]);
    assert_eq!(r.lines(), [expected]);

    // The policy is a related location in JSON output.
    let r = run_in(d, &["check", "--format", "json", sel, "w.yaml"]);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).expect("JSON");
    let related = &v["findings"][0]["related"][0];
    assert_eq!(related["file"], ".taintlint.yaml");
    assert_eq!(related["line"], 2);

    // Mistakes in a policy file are findings in that file.
    write(
        d,
        "bad-policy.yaml",
        "policies:\n  - taint: x\n    namespace: [a]\n",
    );
    let r = concise(d, &["--isolated", "--policy", "bad-policy.yaml", "w.yaml"]);
    assert!(
        r.lines().contains(&"bad-policy.yaml:3:5: error[invalid-config] unknown policy key `namespace`: expected taint, namespaces, workloads"),
        "{}",
        r.stdout
    );
}

#[test]
fn workload_kinds_name_where_a_custom_pod_spec_lives() {
    // The worker's pod spec has no scheduling fields, so the generic search over custom
    // resources does not see a workload there; the `sidecar` block does look like one.
    let job = "\
apiVersion: example.com/v1
kind: TrainingJob
metadata:
  name: tj
  namespace: ml
spec:
  worker:
    replicas: 2
    template:
      spec:
        containers: [{name: t, image: pytorch}]
  sidecar:
    tolerations:
      - key: dedicated
        operator: Exists
        value: decoy
";
    let pools = "inventory:\n  pools:\n    - name: gpu\n      labels: {pool: gpu}\n      taints: [\"nvidia.com/gpu=present:NoSchedule\"]\n";
    let dir = tree(&[("job.yaml", job), (".taintlint.yaml", pools)]);
    let d = dir.path();
    let sel = "--ignore=pool-tolerated-by-nothing";

    // Unconfigured, the `sidecar` block's tolerations are not shown to reach a pod (it holds
    // no `containers`): not judged, one notice for the kind.
    let r = concise(d, &[sel, "job.yaml"]);
    assert_eq!(
        r.rules(),
        ["unjudged-custom-kind"],
        "generic search: {}",
        r.stdout
    );
    assert!(r.lines()[0].starts_with("job.yaml:13:5: "), "{}", r.stdout);

    write(
        d,
        ".taintlint.yaml",
        &format!(
            "{pools}workload-kinds:\n  - kind: TrainingJob\n    apiVersion: example.com/v1\n    podSpec: spec.worker.template.spec\n"
        ),
    );
    let r = concise(d, &[sel, "job.yaml"]);
    assert_eq!(
        r.lines(),
        [
            "job.yaml:2:7: error[unschedulable-workload] 0/1 node pools can run this pod: 1 has untolerated taint {nvidia.com/gpu: present}"
        ],
        "configured kind: {}",
        r.stdout
    );
    let r = run_in(d, &["check", "--format", "json", sel, "job.yaml"]);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).expect("JSON");
    assert_eq!(v["findings"][0]["object"]["kind"], "TrainingJob");

    // Another apiVersion is not the configured kind: not judged again.
    let other = job.replace("example.com/v1", "other.example.com/v1");
    write(d, "job.yaml", &other);
    let r = concise(d, &[sel, "job.yaml"]);
    assert_eq!(r.rules(), ["unjudged-custom-kind"], "{}", r.stdout);

    // A kind without podSpec is a config mistake.
    write(
        d,
        ".taintlint.yaml",
        "workload-kinds:\n  - kind: TrainingJob\n",
    );
    let r = concise(d, &["--select=invalid-config", "job.yaml"]);
    assert_eq!(
        r.lines(),
        [
            ".taintlint.yaml:2:5: error[invalid-config] a workload kind needs `kind:` and `podSpec:` (e.g. spec.template.spec) or `roles:`"
        ]
    );
}

/// `workload-kinds:` with roles: a kind the catalogue does not have, read the way the config
/// says (a label-selector node selector, a per-node role, tolerations merged from two places),
/// judged like the catalogue's kinds; mistakes in the declaration are `invalid-config`.
#[test]
fn workload_kinds_declare_roles_as_the_catalogue_does() {
    let cache = "\
apiVersion: cache.example.com/v1
kind: CacheCluster
metadata:
  name: sessions
  namespace: cache
spec:
  placement:
    tolerations:
      - {key: dedicated, operator: Equal, value: cache, effect: NoSchedule}
  server:
    replicas: 3
    nodeSelector:
      matchLabels:
        pool: cache
  agent:
    tolerations:
      - {key: dedicated, operator: Equal, value: cache, effect: NoSchedule}
";
    let pools = "inventory:\n  pools:\n    - name: cache\n      labels: {pool: cache}\n      taints: [\"dedicated=cache:NoSchedule\"]\n    - name: general\n      labels: {pool: general}\n    - name: gpu\n      labels: {pool: gpu}\n      taints: [\"nvidia.com/gpu=present:NoSchedule\"]\n";
    let kinds = "workload-kinds:
  - kind: CacheCluster
    apiVersion: cache.example.com/*
    roles:
      - name: server
        at: spec.server
        tolerations: {from: [/spec.placement.tolerations, tolerations], merge: append}
        nodeSelector: {from: nodeSelector, shape: labelSelector}
        replicas: replicas
      - name: agent
        at: spec.agent
        tolerations: tolerations
        replicas: perNode
";
    let dir = tree(&[
        ("cache.yaml", cache),
        (".taintlint.yaml", &format!("{pools}{kinds}")),
    ]);
    let d = dir.path();
    let r = concise(d, &["--ignore=pool-tolerated-by-nothing", "cache.yaml"]);
    // The server runs on the cache pool only (its LabelSelector and `placement`'s toleration);
    // the agent, one per node, misses the GPU pool.
    assert_eq!(
        r.lines(),
        [
            "cache.yaml:16:5: info[daemonset-misses-pools] CacheCluster/cache/sessions agent pods (one per node) runs on 2/3 node pools; not on: Inventory pool `gpu` (taint `nvidia.com/gpu=present:NoSchedule`)"
        ],
        "{}",
        r.stdout
    );
    let m = run_in(d, &["matrix", "cache.yaml"]);
    assert!(
        m.stdout.contains("CacheCluster/cache/sessions server pods"),
        "{}",
        m.stdout
    );

    // Mistakes: where they are, with did-you-mean.
    write(
        d,
        ".taintlint.yaml",
        "workload-kinds:\n  - kind: CacheCluster\n    roles:\n      - nmae: server\n        at: spec.server\n        tolerations: {from: tolerations, merge: sideways}\n",
    );
    let r = concise(d, &["--select=invalid-config", "cache.yaml"]);
    assert_eq!(
        r.lines(),
        [
            ".taintlint.yaml:4:9: error[invalid-config] unknown role key `nmae` (did you mean `name`?)",
            ".taintlint.yaml:6:49: error[invalid-config] unknown merge `sideways`: expected override, append, keys or byIndex",
        ],
        "{}",
        r.stdout
    );
}

// ---------------------------------------------------------------- config mistakes

const BAD_CONFIG: &str = "\
rulez:
  tolerates-all-taints: off
rules:
  tolerates-all-taintz: off
  shadowed-toleration: loud
exclud: [vendor/**]
kube-version: \"1.20\"
feature-gates:
  TaintTolerationComparisonOperator: true
";

#[test]
fn config_mistakes_are_findings_in_the_config_file() {
    let dir = tree(&[(".taintlint.yaml", BAD_CONFIG), ("pod.yaml", TOLERATE_ALL)]);
    let r = concise(dir.path(), &["pod.yaml"]);
    assert_eq!(r.code, 1);
    assert_eq!(
        r.lines(),
        [
            ".taintlint.yaml:1:1: error[invalid-config] unknown config key `rulez` (did you mean `rules`?)",
            ".taintlint.yaml:4:3: error[invalid-config] unknown rule `tolerates-all-taintz` (did you mean `tolerates-all-taints`?)",
            ".taintlint.yaml:5:24: error[invalid-config] invalid severity `loud` for `shadowed-toleration`: expected off, info, warning or error",
            ".taintlint.yaml:6:1: error[invalid-config] unknown config key `exclud` (did you mean `exclude`?)",
            ".taintlint.yaml:7:15: error[invalid-config] `kube-version` must be a version from 1.30 to 1.37, e.g. \"1.35\"",
            ".taintlint.yaml:9:3: error[invalid-config] unknown feature gate `TaintTolerationComparisonOperator` (known: TaintTolerationComparisonOperators)",
            "pod.yaml:7:7: warning[tolerates-all-taints] toleration tolerates every taint of every effect",
        ],
        "{}",
        r.stdout
    );
    let human = run_in(dir.path(), &["check", "--color", "never", "pod.yaml"]);
    insta::assert_snapshot!("config_mistakes_human", human.stdout);
}

/// `admission-plugins` and `admission-config`: unknown plugins and unreadable settings are
/// findings in the config; what is valid reaches the run.
#[test]
fn admission_config_mistakes_and_use() {
    let config = "\
admission-plugins: [PodNodeSelector, AlwaysPullImages]
admission-config:
  PodNodeSelector:
    clusterDefaultNodeSelector: \"env\"
  PodTolerationRestriction:
    defaults: []
  Priority: {}
";
    let dir = tree(&[(".taintlint.yaml", config), ("pod.yaml", TOLERATE_ALL)]);
    let r = concise(dir.path(), &["--select", "invalid-config", "pod.yaml"]);
    assert_eq!(
        r.lines(),
        [
            ".taintlint.yaml:1:38: error[invalid-config] unknown admission plugin `AlwaysPullImages` (known: PodNodeSelector, PodTolerationRestriction, ExtendedResourceToleration, OpenShiftProjectNodeSelector; RuntimeClass is always on)",
            ".taintlint.yaml:4:33: error[invalid-config] invalid node selector: invalid selector: [env]",
            ".taintlint.yaml:6:5: error[invalid-config] unknown PodTolerationRestriction key `defaults`: expected default, whitelist",
            ".taintlint.yaml:7:3: error[invalid-config] `admission-config` has no settings for `Priority` (known: PodNodeSelector, PodTolerationRestriction, OpenShiftProjectNodeSelector)",
        ],
        "{}",
        r.stdout
    );

    // The cluster default reaches the pods of a namespace the files have.
    let config = "\
admission-plugins: [PodNodeSelector]
admission-config:
  PodNodeSelector:
    clusterDefaultNodeSelector: \"pool=general\"
";
    let files = "\
apiVersion: v1
kind: Namespace
metadata: {name: web, annotations: {scheduler.alpha.kubernetes.io/defaultTolerations: ''}}
---
apiVersion: v1
kind: Node
metadata: {name: n1, labels: {pool: gpu}}
---
apiVersion: v1
kind: Pod
metadata: {name: p, namespace: web}
spec:
  containers: [{name: c, image: i}]
";
    let dir = tree(&[(".taintlint.yaml", config), ("all.yaml", files)]);
    let r = concise(dir.path(), &["all.yaml"]);
    assert_eq!(r.rules(), ["unschedulable-workload"], "{}", r.stdout);
}

#[test]
fn invalid_config_can_be_ignored_like_any_rule() {
    let dir = tree(&[(".taintlint.yaml", BAD_CONFIG), ("pod.yaml", TOLERATE_ALL)]);
    let r = concise(dir.path(), &["--ignore", "invalid-config", "pod.yaml"]);
    assert_eq!(r.rules(), ["tolerates-all-taints"], "{}", r.stdout);
    let r = concise(
        dir.path(),
        &["--select", "tolerates-all-taints", "pod.yaml"],
    );
    assert_eq!(r.rules(), ["tolerates-all-taints"], "{}", r.stdout);
}

#[test]
fn an_unusable_config_is_a_tool_error() {
    for (text, message) in [
        ("rules: [\n", "config .taintlint.yaml:2:1 is not valid YAML"),
        (
            "- rules\n",
            "config .taintlint.yaml must be a mapping of settings",
        ),
    ] {
        let dir = tree(&[(".taintlint.yaml", text), ("pod.yaml", TOLERATE_ALL)]);
        let r = concise(dir.path(), &["pod.yaml"]);
        assert_eq!(r.code, 2, "{text:?}: {}", r.stdout);
        assert!(r.stdout.is_empty(), "{}", r.stdout);
        assert!(r.stderr.contains(message), "{text:?}: {}", r.stderr);
        // `--isolated` still works.
        assert_eq!(concise(dir.path(), &["--isolated", "pod.yaml"]).code, 1);
    }
    // An empty config is the default config.
    let dir = tree(&[
        (".taintlint.yaml", "# nothing yet\n"),
        ("pod.yaml", TOLERATE_ALL),
    ]);
    assert_eq!(
        concise(dir.path(), &["pod.yaml"]).rules(),
        ["tolerates-all-taints"]
    );
}

#[test]
fn config_init_writes_a_default_that_parses_cleanly() {
    let dir = tree(&[("pod.yaml", TOLERATE_ALL)]);
    let d = dir.path();
    let r = run_in(d, &["config", "init"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stderr.contains("wrote .taintlint.yaml"), "{}", r.stderr);
    let written = std::fs::read_to_string(d.join(".taintlint.yaml")).expect("written");
    // Every key is documented in it.
    for key in [
        "rules:",
        "exclude:",
        "per-file-ignores:",
        "dedicated-exempt-keys:",
        "inventory:",
        "policies:",
        "kube-version:",
        "feature-gates:",
        "workload-kinds:",
    ] {
        assert!(written.contains(key), "default config lacks {key}");
    }
    // It parses with zero findings and changes nothing.
    let r = concise(d, &["--select", "invalid-config", "."]);
    assert_eq!(r.code, 0, "{}", r.stdout);
    assert!(r.lines().is_empty());
    assert_eq!(
        concise(d, &["pod.yaml"]).stdout,
        concise(d, &["--isolated", "pod.yaml"]).stdout
    );

    // No overwrite without --force.
    std::fs::write(d.join(".taintlint.yaml"), "rules: {}\n").expect("write");
    let r = run_in(d, &["config", "init"]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("already exists"), "{}", r.stderr);
    assert_eq!(run_in(d, &["config", "init", "--force"]).code, 0);
    assert_eq!(
        std::fs::read_to_string(d.join(".taintlint.yaml")).expect("read"),
        written
    );

    // `-` prints it; another path writes there.
    let r = run_in(d, &["config", "init", "-"]);
    assert_eq!(r.code, 0);
    assert_eq!(r.stdout, written);
    assert_eq!(run_in(d, &["config", "init", "ci.yaml"]).code, 0);
    let r = concise(
        d,
        &[
            "--config",
            "ci.yaml",
            "--select",
            "invalid-config",
            "pod.yaml",
        ],
    );
    assert_eq!(r.code, 0, "{}", r.stdout);
}

// ---------------------------------------------------------------- suppressions

#[test]
fn suppression_comments_trailing_and_on_the_line_above() {
    let text = "\
apiVersion: v1
kind: Pod
metadata:
  name: debug
spec:
  tolerations:
    - operator: Exists # taintlint: ignore[tolerates-all-taints] node agent, must run everywhere
    # taintlint: ignore[dedicated-toleration-without-affinity, shadowed-toleration] legacy

    - key: dedicated
      operator: Exists
      value: infra # taintlint: ignore[toleration-exists-with-value]
      effect: NoSchedule
  containers: [{name: c, image: nginx}]
";
    let dir = tree(&[("pod.yaml", text)]);
    let r = concise(dir.path(), &["--isolated", "pod.yaml"]);
    assert_eq!(r.code, 0, "{}", r.stdout);
    assert!(r.lines().is_empty());

    // Without the comments, all four findings are there.
    let bare: String = text
        .lines()
        .map(|l| l.split(" # taintlint").next().unwrap_or(l))
        .filter(|l| !l.trim_start().starts_with("# taintlint"))
        .map(|l| format!("{l}\n"))
        .collect();
    write(dir.path(), "pod.yaml", &bare);
    let r = concise(dir.path(), &["--isolated", "pod.yaml"]);
    assert_eq!(
        r.rules(),
        [
            "tolerates-all-taints",
            "dedicated-toleration-without-affinity",
            "shadowed-toleration",
            "toleration-exists-with-value"
        ]
    );
}

#[test]
fn ignore_file_and_annotation() {
    let ignore_file = format!("# taintlint: ignore-file[tolerates-all-taints]\n{TOLERATE_ALL}");
    let annotated = "\
apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: agent
  annotations:
    taintlint.dev/ignore: \"tolerates-all-taints, toleration-exists-with-value\"
spec:
  template:
    spec:
      tolerations:
        - operator: Exists
        - key: k
          operator: Exists
          value: v
      containers: [{name: a, image: busybox}]
---
apiVersion: v1
kind: Pod
metadata:
  name: other
spec:
  tolerations:
    - operator: Exists
  containers: [{name: c, image: nginx}]
";
    let dir = tree(&[("file.yaml", &ignore_file), ("annotated.yaml", annotated)]);
    let r = concise(
        dir.path(),
        &[
            "--isolated",
            "--select",
            "tolerates-all-taints,toleration-exists-with-value,unused-suppression",
            ".",
        ],
    );
    // The annotation covers its own object only: the second document is still reported.
    assert_eq!(
        r.lines(),
        [
            "annotated.yaml:23:7: warning[tolerates-all-taints] toleration tolerates every taint of every effect"
        ],
        "{}",
        r.stdout
    );
    // The ignore-file directive covers one rule only.
    write(
        dir.path(),
        "file.yaml",
        &format!("{ignore_file}---\n{BAD_VALUE}"),
    );
    let r = concise(
        dir.path(),
        &[
            "--isolated",
            "--select",
            "correctness,suspicious",
            "file.yaml",
        ],
    );
    assert_eq!(r.rules(), ["toleration-exists-with-value"], "{}", r.stdout);
}

#[test]
fn unused_and_unknown_suppressions_are_reported() {
    let text = "\
# taintlint: ignore-file[deprecated-taint-key]
apiVersion: v1
kind: Pod
metadata:
  name: debug
  annotations:
    taintlint.dev/ignore: \"tolerates-all-taints,shadowed-toleration\"
spec:
  tolerations:
    - operator: Exists # taintlint: ignore[tolerates-all-taints, tolerates-all-effects]
    # taintlint: ignore[toleraton-exists-with-value] misspelt
    - key: dedicated
      operator: Exists
      effect: NoSchedule
    # taintlint: ignore[stateful-eviction-timeout] that rule is off, so this is not judged
    - key: other
      operator: Exists
      effect: NoExecute
    # taintlint: ignore
    - key: node.kubernetes.io/not-ready
      operator: Exists
      effect: NoExecute
      tolerationSeconds: 60
  # taintlint: ignore
  containers: [{name: c, image: nginx}]
";
    let dir = tree(&[("pod.yaml", text)]);
    let r = concise(dir.path(), &["--isolated", "pod.yaml"]);
    insta::assert_snapshot!("unused_suppressions_concise", r.stdout);
    assert_eq!(
        r.lines()
            .iter()
            .filter(|l| l.contains("[unused-suppression]"))
            .map(|l| l.split(": ").next().unwrap_or(""))
            .collect::<Vec<_>>(),
        // ignore-file, the second rule of a list, a misspelt rule, a rule-less one; not the
        // rule-less one above the not-ready toleration (it suppressed `shadowed-toleration`)
        // nor the one naming a rule that is off.
        [
            "pod.yaml:1:26",
            "pod.yaml:10:66",
            "pod.yaml:11:25",
            "pod.yaml:24:3"
        ],
        "{}",
        r.stdout
    );
    let human = run_in(
        dir.path(),
        &["check", "--isolated", "--color", "never", "pod.yaml"],
    );
    insta::assert_snapshot!("unused_suppressions_human", human.stdout);

    // With only some rules running, a rule-less suppression cannot be judged.
    let r = concise(
        dir.path(),
        &["--isolated", "--select", "unused-suppression", "pod.yaml"],
    );
    assert_eq!(
        r.lines(),
        [
            "pod.yaml:11:25: warning[unused-suppression] unknown rule `toleraton-exists-with-value` in a suppression"
        ],
        "{}",
        r.stdout
    );

    // `--ignore unused-suppression` silences them, and so does the config.
    let r = concise(
        dir.path(),
        &["--isolated", "--ignore", "unused-suppression", "pod.yaml"],
    );
    assert!(!r.rules().contains(&"unused-suppression"));
    write(
        dir.path(),
        ".taintlint.yaml",
        "rules:\n  unused-suppression: off\n",
    );
    assert!(
        !concise(dir.path(), &["pod.yaml"])
            .rules()
            .contains(&"unused-suppression")
    );

    // A suppression of a rule that `--select` leaves out is not judged either.
    let r = concise(
        dir.path(),
        &[
            "--isolated",
            "--select",
            "tolerates-all-taints,unused-suppression",
            "pod.yaml",
        ],
    );
    assert!(
        !r.stdout
            .contains("`tolerates-all-effects` is suppressed here"),
        "{}",
        r.stdout
    );
}

// ---------------------------------------------------------------- baseline

#[test]
fn baseline_hides_old_findings_and_shows_new_ones() {
    let dir = tree(&[("k8s/pod.yaml", POD), ("k8s/agent.yaml", TOLERATE_ALL)]);
    let d = dir.path();
    let before = concise(d, &["--isolated", "k8s"]);
    assert_eq!(before.lines().len(), 5, "{}", before.stdout);

    let r = concise(
        d,
        &["--isolated", "--write-baseline", "baseline.json", "k8s"],
    );
    assert_eq!(r.code, 0);
    assert!(r.stdout.is_empty(), "{}", r.stdout);
    assert!(r.stderr.contains("wrote 5 finding(s)"), "{}", r.stderr);
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(d.join("baseline.json")).expect("read"))
            .expect("baseline is JSON");
    assert_eq!(doc["version"], 1);
    assert_eq!(doc["findings"].as_array().map(Vec::len), Some(5));
    assert!(doc["findings"][0]["fingerprint"].is_string());

    let r = concise(d, &["--isolated", "--baseline", "baseline.json", "k8s"]);
    assert_eq!(r.code, 0, "{}", r.stdout);
    assert!(r.lines().is_empty());
    assert!(r.summary().starts_with("no findings"), "{}", r.summary());

    // A new mistake in another document of an old file: only it is reported.
    let grown = format!("{POD}---\n{BAD_VALUE}");
    write(d, "k8s/pod.yaml", &grown);
    let r = concise(d, &["--isolated", "--baseline", "baseline.json", "k8s"]);
    assert_eq!(
        r.lines(),
        [
            "k8s/pod.yaml:22:14: error[toleration-exists-with-value] toleration has `operator: Exists` and `value: infra`; the API server rejects this object"
        ],
        "{}",
        r.stdout
    );
    assert_eq!(r.code, 1);

    // A baseline that is not one is a tool error.
    write(d, "not-a-baseline.json", "{\"findings\": 3}");
    let r = concise(
        d,
        &["--isolated", "--baseline", "not-a-baseline.json", "k8s"],
    );
    assert_eq!(r.code, 2);
    assert!(
        r.stderr.contains("is not a taintlint baseline"),
        "{}",
        r.stderr
    );
    let r = concise(d, &["--isolated", "--baseline", "missing.json", "k8s"]);
    assert_eq!(r.code, 2);
}

#[test]
fn fingerprints_survive_inserting_lines_above() {
    let dir = tree(&[("pod.yaml", POD)]);
    let d = dir.path();
    assert_eq!(
        concise(d, &["--isolated", "--write-baseline", "b.json", "pod.yaml"]).code,
        0
    );
    // Comments, a new first document and a label above every finding: each line moves.
    let moved = format!(
        "# Owned by the platform team.\n# Reviewed 2025.\n{TOLERATE_ALL}---\n{}",
        POD.replace(
            "  name: debug\n",
            "  name: debug\n  labels:\n    app: debug\n"
        )
    );
    write(d, "pod.yaml", &moved);
    let r = concise(d, &["--isolated", "pod.yaml"]);
    assert_eq!(
        r.lines()
            .iter()
            .map(|l| l.split(": ").next().unwrap_or(""))
            .collect::<Vec<_>>(),
        [
            "pod.yaml:9:7",
            "pod.yaml:20:7",
            "pod.yaml:21:7",
            "pod.yaml:21:7",
            "pod.yaml:23:14"
        ],
        "{}",
        r.stdout
    );
    // The moved findings are all known; the new document's own is not.
    let r = concise(d, &["--isolated", "--baseline", "b.json", "pod.yaml"]);
    assert_eq!(
        r.lines(),
        [
            "pod.yaml:9:7: warning[tolerates-all-taints] toleration tolerates every taint of every effect"
        ],
        "{}",
        r.stdout
    );

    // The SARIF fingerprints agree with the baseline's.
    let sarif = run_in(d, &["check", "--isolated", "--format", "sarif", "pod.yaml"]);
    let v: serde_json::Value = serde_json::from_str(&sarif.stdout).expect("SARIF");
    let baseline: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(d.join("b.json")).expect("read"))
            .expect("JSON");
    let known: Vec<&str> = baseline["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .filter_map(|f| f["fingerprint"].as_str())
        .collect();
    let results = v["runs"][0]["results"].as_array().expect("results");
    let matched = results
        .iter()
        .filter(|r| {
            r["partialFingerprints"].as_object().is_some_and(|fp| {
                fp.values()
                    .any(|x| known.contains(&x.as_str().unwrap_or("")))
            })
        })
        .count();
    assert_eq!(matched, known.len(), "{}", sarif.stdout);
}

// ---------------------------------------------------------------- Helm and Kustomize

/// What `helm template` prints: each document after `---` and its `# Source:` comment.
const HELM: &str = "\
---
# Source: mychart/templates/serviceaccount.yaml
apiVersion: v1
kind: ServiceAccount
metadata:
  name: web
---
# Source: mychart/templates/deployment.yaml
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  template:
    spec:
      tolerations:
        - key: dedicated
          operator: Exists
          value: \"true\"
          effect: NoSchedule
      containers: [{name: web, image: nginx}]
---
# Source: mychart/templates/daemonset.yaml
apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: agent
spec:
  template:
    spec:
      tolerations:
        - operator: Exists
      containers: [{name: a, image: busybox}]
";

#[test]
fn helm_output_on_stdin_names_the_templates() {
    let dir = tree(&[]);
    let r = run_stdin(
        dir.path(),
        &["check", "--isolated", "--format", "concise", "-"],
        HELM.as_bytes(),
    );
    assert_eq!(r.code, 1, "{}", r.stderr);
    // Lines count from the template's first line, the one after `# Source:` (issue 20, item 3:
    // they counted from the `---`, two too many).
    assert_eq!(
        r.lines(),
        [
            "mychart/templates/daemonset.yaml:9:11: info[tolerates-all-taints] toleration tolerates every taint of every effect",
            "mychart/templates/deployment.yaml:9:11: warning[dedicated-toleration-without-affinity] tolerates the `dedicated` taint, but nothing pins the pod to those nodes: it can land on any untainted node as well",
            "mychart/templates/deployment.yaml:11:18: error[toleration-exists-with-value] toleration has `operator: Exists` and `value: true`; the API server rejects this object",
        ],
        "{}",
        r.stdout
    );
    assert_eq!(
        r.summary(),
        "1 error, 1 warning, 1 info in 3 files (3 documents)"
    );

    let human = run_stdin(
        dir.path(),
        &["check", "--isolated", "--color", "never", "-"],
        HELM.as_bytes(),
    );
    insta::assert_snapshot!("helm_stdin_human", human.stdout);

    // Config globs and suppressions see the template paths.
    write(
        dir.path(),
        ".taintlint.yaml",
        "per-file-ignores:\n  \"mychart/templates/daemonset.yaml\": [tolerates-all-taints]\n",
    );
    let r = run_stdin(
        dir.path(),
        &["check", "--format", "concise", "-"],
        HELM.as_bytes(),
    );
    assert_eq!(r.lines().len(), 2, "{}", r.stdout);
    assert!(!r.rules().contains(&"tolerates-all-taints"));
    assert!(!r.rules().contains(&"invalid-config"), "{}", r.stdout);

    // JSON and SARIF name the template too.
    let r = run_stdin(
        dir.path(),
        &["check", "--isolated", "--format", "sarif", "-"],
        HELM.as_bytes(),
    );
    let v: serde_json::Value = serde_json::from_str(&r.stdout).expect("SARIF");
    let uri =
        &v["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"];
    assert_eq!(uri, "mychart/templates/daemonset.yaml");
}

/// Issue 20, item 3: the lines are the template's own, `--source-root` moves the chart's paths
/// onto the chart's directory, and `--stdin-filename` is not ignored any more.
#[test]
fn helm_lines_source_root_and_stdin_filename() {
    let template = HELM
        .split("# Source: mychart/templates/deployment.yaml\n")
        .nth(1)
        .and_then(|rest| rest.split("---\n").next())
        .expect("the deployment template");
    let dir = tree(&[("charts/web/templates/deployment.yaml", template)]);
    let value_line = template
        .lines()
        .position(|l| l.contains("value: \"true\""))
        .expect("the value line")
        + 1;

    // The line reported is the template file's line.
    let r = run_stdin(
        dir.path(),
        &[
            "check",
            "--isolated",
            "--format",
            "concise",
            "--source-root",
            "charts/web",
            "-",
        ],
        HELM.as_bytes(),
    );
    let wanted = format!(
        "charts/web/templates/deployment.yaml:{value_line}:18: error[toleration-exists-with-value]"
    );
    assert!(
        r.lines().iter().any(|l| l.starts_with(&wanted)),
        "{wanted}\n{}",
        r.stdout
    );
    for l in r.lines() {
        let file = l.split(':').next().unwrap_or("");
        assert!(file.starts_with("charts/web/templates/"), "{l}");
    }
    // A real file: the human report shows its line, read back from the disk.
    let human = run_stdin(
        dir.path(),
        &[
            "check",
            "--isolated",
            "--color",
            "never",
            "--source-root",
            "charts/web/",
            "-",
        ],
        HELM.as_bytes(),
    );
    assert!(
        human.stdout.contains(&format!(
            "[charts/web/templates/deployment.yaml:{value_line}:18]"
        )),
        "{}",
        human.stdout
    );
    assert!(
        human
            .stdout
            .contains(&format!(" {value_line} │           value: \"true\"")),
        "{}",
        human.stdout
    );

    // --stdin-filename alone names all of standard input, with its own lines.
    let r = run_stdin(
        dir.path(),
        &[
            "check",
            "--isolated",
            "--format",
            "concise",
            "--stdin-filename",
            "rendered/prod.yaml",
            "-",
        ],
        HELM.as_bytes(),
    );
    let stdin_line = HELM
        .lines()
        .position(|l| l.contains("value: \"true\""))
        .expect("the value line")
        + 1;
    assert!(
        r.lines().contains(&format!("rendered/prod.yaml:{stdin_line}:18: error[toleration-exists-with-value] toleration has `operator: Exists` and `value: true`; the API server rejects this object").as_str()),
        "{}",
        r.stdout
    );
    assert!(
        r.summary().ends_with("in 1 file (3 documents)"),
        "{}",
        r.summary()
    );

    // Both: templates under the root, the documents without `# Source:` under the name.
    let mixed = format!("{TOLERATE_ALL}{HELM}");
    let r = run_stdin(
        dir.path(),
        &[
            "check",
            "--isolated",
            "--format",
            "concise",
            "--stdin-filename",
            "rendered/prod.yaml",
            "--source-root",
            "charts/web",
            "-",
        ],
        mixed.as_bytes(),
    );
    let files: std::collections::BTreeSet<&str> = r
        .lines()
        .iter()
        .map(|l| l.split(':').next().unwrap_or(""))
        .collect();
    assert_eq!(
        files.into_iter().collect::<Vec<_>>(),
        [
            "charts/web/templates/daemonset.yaml",
            "charts/web/templates/deployment.yaml",
            "rendered/prod.yaml"
        ],
        "{}",
        r.stdout
    );
}

#[test]
fn plain_stdin_keeps_its_name_and_line_numbers() {
    let plain: String = HELM
        .lines()
        .filter(|l| !l.starts_with("# Source:"))
        .map(|l| format!("{l}\n"))
        .collect();
    let dir = tree(&[]);
    let r = run_stdin(
        dir.path(),
        &["check", "--isolated", "--format", "concise", "-"],
        plain.as_bytes(),
    );
    assert_eq!(
        r.lines()
            .iter()
            .map(|l| l.split(": ").next().unwrap_or(""))
            .collect::<Vec<_>>(),
        ["<stdin>:15:11", "<stdin>:17:18", "<stdin>:29:11"],
        "{}",
        r.stdout
    );
    let r = run_stdin(
        dir.path(),
        &[
            "check",
            "--isolated",
            "--format",
            "concise",
            "--stdin-filename",
            "rendered/all.yaml",
            "-",
        ],
        plain.as_bytes(),
    );
    assert!(
        r.lines()[0].starts_with("rendered/all.yaml:15:11: "),
        "{}",
        r.stdout
    );
    assert!(
        r.summary().ends_with("in 1 file (3 documents)"),
        "{}",
        r.summary()
    );

    // Mixed: a document without a Source comment keeps stdin's name and its real line.
    let mixed = format!("{TOLERATE_ALL}{HELM}");
    let r = run_stdin(
        dir.path(),
        &["check", "--isolated", "--format", "concise", "-"],
        mixed.as_bytes(),
    );
    assert!(
        r.lines()
            .contains(&"<stdin>:7:7: warning[tolerates-all-taints] toleration tolerates every taint of every effect"),
        "{}",
        r.stdout
    );
}

#[test]
fn kubectl_kustomize_output_on_stdin() {
    let Ok(out) = Command::new("kubectl")
        .args(["kustomize", "testdata/kustomize/overlays/prod"])
        .current_dir(root())
        .output()
    else {
        eprintln!("SKIPPED kubectl_kustomize_output_on_stdin: `kubectl` is not on PATH");
        return;
    };
    assert!(
        out.status.success(),
        "kubectl kustomize failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let rendered = String::from_utf8(out.stdout).expect("UTF-8");
    assert!(rendered.contains("namespace: ml-prod"), "{rendered}");
    let line = rendered
        .lines()
        .position(|l| l.trim_start().starts_with("value: present"))
        .expect("the patched toleration")
        + 1;
    let r = run_stdin(
        &root(),
        &["check", "--isolated", "--format", "concise", "-"],
        rendered.as_bytes(),
    );
    assert_eq!(
        r.lines(),
        [format!(
            "<stdin>:{line}:16: error[toleration-exists-with-value] toleration has `operator: Exists` and `value: present`; the API server rejects this object"
        )],
        "{}",
        r.stdout
    );
    assert_eq!(r.code, 1);
    let r = run_stdin(
        &root(),
        &[
            "check",
            "--isolated",
            "--format",
            "json",
            "--stdin-filename",
            "overlays/prod",
            "-",
        ],
        rendered.as_bytes(),
    );
    let v: serde_json::Value = serde_json::from_str(&r.stdout).expect("JSON");
    assert_eq!(v["findings"][0]["file"], "overlays/prod");
    assert_eq!(v["findings"][0]["object"]["namespace"], "ml-prod");
}

// ---------------------------------------------------------------- completions

#[test]
fn completions_for_every_shell() {
    for (shell, marker) in [
        ("bash", "complete -F"),
        ("zsh", "#compdef taintlint"),
        ("fish", "complete -c taintlint"),
    ] {
        let r = run_in(&root(), &["completions", shell]);
        assert_eq!(r.code, 0, "{shell}: {}", r.stderr);
        assert!(r.stdout.len() > 500, "{shell}: {}", r.stdout);
        assert!(r.stdout.contains(marker), "{shell}: {}", r.stdout);
        for word in ["check", "baseline", "isolated", "stdin-filename", "config"] {
            assert!(r.stdout.contains(word), "{shell} completion lacks {word}");
        }
    }
    let r = run_in(&root(), &["completions", "tcsh"]);
    assert_eq!(r.code, 2);
}
