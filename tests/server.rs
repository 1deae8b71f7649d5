//! `taintlint server` driven as an editor drives it: the real binary on pipes, framed JSON-RPC,
//! every answer checked. Every wait is bounded (a reader thread and `recv_timeout`), and a
//! server still running when the test ends is killed: the test cannot hang CI.

#![allow(clippy::unwrap_used)] // tests may unwrap

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// How long to wait for an answer before taking the server to hang (not a time limit: an
/// answer takes milliseconds; the wait ends when it comes).
const WAIT: Duration = Duration::from_secs(120);

struct Client {
    child: Child,
    stdin: Option<ChildStdin>,
    inbox: Receiver<Value>,
    next_id: i64,
    /// Messages read while waiting for something else.
    seen: Vec<Value>,
}

impl Drop for Client {
    fn drop(&mut self) {
        if self.child.try_wait().ok().flatten().is_none() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

fn read_message(r: &mut impl BufRead) -> Option<Value> {
    let mut length = None;
    loop {
        let mut line = String::new();
        if r.read_line(&mut line).ok()? == 0 {
            return None;
        }
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        if let Some(n) = line.strip_prefix("Content-Length: ") {
            length = n.parse::<usize>().ok();
        }
    }
    let mut body = vec![0; length?];
    r.read_exact(&mut body).ok()?;
    serde_json::from_slice(&body).ok()
}

impl Client {
    fn start(root: &std::path::Path) -> Client {
        let mut child = Command::new(env!("CARGO_BIN_EXE_taintlint"))
            .arg("server")
            .current_dir(root)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, inbox) = channel();
        std::thread::spawn(move || {
            let mut r = BufReader::new(stdout);
            while let Some(m) = read_message(&mut r) {
                if tx.send(m).is_err() {
                    break;
                }
            }
        });
        Client {
            stdin: child.stdin.take(),
            child,
            inbox,
            next_id: 0,
            seen: Vec::new(),
        }
    }

    /// A server started in `root` and initialized with no client capabilities.
    fn initialized(root: &std::path::Path) -> Client {
        let mut c = Client::start(root);
        let root_uri = url::Url::from_directory_path(root).unwrap().to_string();
        c.request(
            "initialize",
            json!({"processId": null, "rootUri": root_uri, "capabilities": {}}),
        );
        c.notify("initialized", json!({}));
        c
    }

    /// Opens `uri` in the editor with `text` (version 1).
    fn open(&mut self, uri: &str, text: &str) {
        self.notify(
            "textDocument/didOpen",
            json!({"textDocument": {"uri": uri, "languageId": "yaml", "version": 1, "text": text}}),
        );
    }

    fn send(&mut self, msg: &Value) {
        let body = serde_json::to_vec(msg).unwrap();
        let stdin = self.stdin.as_mut().unwrap();
        write!(stdin, "Content-Length: {}\r\n\r\n", body.len()).unwrap();
        stdin.write_all(&body).unwrap();
        stdin.flush().unwrap();
    }

    fn notify(&mut self, method: &str, params: Value) {
        self.send(&json!({"jsonrpc": "2.0", "method": method, "params": params}));
    }

    /// Sends a request and waits for its response's `result`.
    fn request(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        let m = self.wait_for(|m| m["id"] == json!(id) && m.get("method").is_none());
        assert!(m.get("error").is_none(), "{method} failed: {m}");
        m["result"].clone()
    }

    /// The next message (read before or now) that `want` accepts.
    fn wait_for(&mut self, want: impl Fn(&Value) -> bool) -> Value {
        if let Some(i) = self.seen.iter().position(&want) {
            return self.seen.remove(i);
        }
        let deadline = Instant::now() + WAIT;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let m = self
                .inbox
                .recv_timeout(left)
                .unwrap_or_else(|_| panic!("no answer within {WAIT:?}; seen: {:?}", self.seen));
            if want(&m) {
                return m;
            }
            self.seen.push(m);
        }
    }

    /// The diagnostics published for `uri` at `version` (`None`: the clearing on close).
    fn diagnostics(&mut self, uri: &str, version: Option<i64>) -> Vec<Value> {
        let m = self.wait_for(|m| {
            m["method"] == "textDocument/publishDiagnostics"
                && m["params"]["uri"] == uri
                && match version {
                    Some(v) => m["params"]["version"] == json!(v),
                    None => m["params"]["diagnostics"] == json!([]),
                }
        });
        m["params"]["diagnostics"].as_array().unwrap().clone()
    }

    /// A hover or definition answer; asked again while the server is still working out
    /// its hovers (they follow the diagnostics).
    fn ask(&mut self, method: &str, uri: &str, line: u32, character: u32) -> Value {
        let deadline = Instant::now() + WAIT;
        loop {
            let r = self.request(
                method,
                json!({"textDocument": {"uri": uri}, "position": {"line": line, "character": character}}),
            );
            if !r.is_null() || Instant::now() > deadline {
                return r;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

/// Applies protocol text edits (UTF-16 columns; the test's text is ASCII) to `text`.
fn apply(text: &str, edits: &[Value]) -> String {
    let offset = |p: &Value| -> usize {
        let line = p["line"].as_u64().unwrap() as usize;
        let ch = p["character"].as_u64().unwrap() as usize;
        let start: usize = text.split_inclusive('\n').take(line).map(str::len).sum();
        start + ch
    };
    let mut edits: Vec<(usize, usize, String)> = edits
        .iter()
        .map(|e| {
            (
                offset(&e["range"]["start"]),
                offset(&e["range"]["end"]),
                e["newText"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    edits.sort_by_key(|e| std::cmp::Reverse(e.0));
    let mut out = text.to_string();
    for (s, e, t) in edits {
        out.replace_range(s..e, &t);
    }
    out
}

const CONFIG: &str = "inventory:
  pools:
    - name: gpu
      labels: {node-pool: gpu}
      taints: [\"nvidia.com/gpu=present:NoSchedule\"]
";

const NODES: &str = "apiVersion: v1
kind: Node
metadata:
  name: infra-1
  labels: {node-pool: infra}
spec:
  taints:
    - key: dedicated
      value: infra
      effect: NoSchedule
";

const DEPLOY: &str = "apiVersion: apps/v1
kind: Deployment
metadata:
  name: trainer
spec:
  template:
    spec:
      nodeSelector:
        node-pool: gpu
      tolerations:
        - key: nvidia.com/gpu
          operator: Exists
          value: present
          effect: NoSchedule
      containers: [{name: c, image: x}]
";

fn codes(diags: &[Value]) -> Vec<String> {
    diags
        .iter()
        .map(|d| {
            format!(
                "{}@{}",
                d["code"].as_str().unwrap(),
                d["range"]["start"]["line"]
            )
        })
        .collect()
}

#[test]
fn an_editor_session() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir(root.join(".git")).unwrap();
    std::fs::write(root.join(".taintlint.yaml"), CONFIG).unwrap();
    std::fs::write(root.join("nodes.yaml"), NODES).unwrap();
    // On disk the workload is empty: the server lints the editor's unsaved text.
    std::fs::write(root.join("deploy.yaml"), "").unwrap();
    let root_uri = url::Url::from_directory_path(root).unwrap().to_string();
    let uri = url::Url::from_file_path(root.join("deploy.yaml"))
        .unwrap()
        .to_string();

    let mut c = Client::start(root);
    let init = c.request(
        "initialize",
        json!({"processId": null, "rootUri": root_uri, "capabilities": {}}),
    );
    assert_eq!(init["capabilities"]["positionEncoding"], "utf-16");
    assert_eq!(init["serverInfo"]["name"], "taintlint");
    c.notify("initialized", json!({}));

    // Open: a rule-coded diagnostic at the right line.
    c.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": uri, "languageId": "yaml", "version": 1, "text": DEPLOY}}),
    );
    let diags = c.diagnostics(&uri, Some(1));
    assert_eq!(codes(&diags), ["toleration-exists-with-value@12"]);
    let d = &diags[0];
    assert_eq!(d["source"], "taintlint");
    assert_eq!(d["severity"], 1);
    assert_eq!(d["range"]["start"]["character"], 17);
    assert!(
        d["codeDescription"]["href"]
            .as_str()
            .unwrap()
            .ends_with("rules/toleration-exists-with-value.md")
    );

    // The quick fix's edit removes the problem; the ignore comment is offered too.
    let actions = c.request(
        "textDocument/codeAction",
        json!({"textDocument": {"uri": uri}, "range": d["range"], "context": {"diagnostics": [d]}}),
    );
    let actions = actions.as_array().unwrap();
    let fix = actions
        .iter()
        .find(|a| a["title"].as_str().unwrap().starts_with("Fix:"))
        .unwrap();
    assert_eq!(fix["kind"], "quickfix");
    assert_eq!(fix["isPreferred"], true);
    let ignore = actions
        .iter()
        .find(|a| a["title"].as_str().unwrap().starts_with("Ignore"))
        .unwrap();
    let ignore_edits = ignore["edit"]["changes"][&uri].as_array().unwrap();
    let ignored = apply(DEPLOY, ignore_edits);
    assert!(
        ignored.contains(
            "          # taintlint: ignore[toleration-exists-with-value]\n          value: present"
        ),
        "{ignored}"
    );
    let fixed = apply(DEPLOY, fix["edit"]["changes"][&uri].as_array().unwrap());
    assert!(!fixed.contains("value: present"), "{fixed}");
    c.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri, "version": 2}, "contentChanges": [{"text": fixed}]}),
    );
    assert_eq!(codes(&c.diagnostics(&uri, Some(2))), Vec::<String>::new());

    // The ignore comment (an incremental change) silences it as the CLI does.
    c.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri, "version": 3}, "contentChanges": [{"text": DEPLOY}]}),
    );
    let mut changes = vec![];
    for e in ignore_edits {
        changes.push(json!({"range": e["range"], "text": e["newText"]}));
    }
    c.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri, "version": 4}, "contentChanges": changes}),
    );
    assert_eq!(codes(&c.diagnostics(&uri, Some(4))), Vec::<String>::new());

    // Hover names the pools; definition goes to the taint the toleration matches.
    c.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri, "version": 5}, "contentChanges": [{"text": fixed}]}),
    );
    c.diagnostics(&uri, Some(5));
    let hover = c.ask("textDocument/hover", &uri, 10, 16);
    let text = hover["contents"]["value"].as_str().unwrap();
    assert!(
        text.contains("toleration `nvidia.com/gpu:NoSchedule`"),
        "{text}"
    );
    assert!(text.contains("✓ Inventory pool `gpu`"), "{text}");
    assert!(text.contains("node `infra-1`"), "{text}");
    assert!(text.contains("1 of 2 can run this pod"), "{text}");
    let hover = c.ask("textDocument/hover", &uri, 8, 10);
    let text = hover["contents"]["value"].as_str().unwrap();
    assert!(text.contains("nodeSelector `node-pool: gpu`"), "{text}");
    assert!(
        text.contains("Lets the pod onto: Inventory pool `gpu`"),
        "{text}"
    );
    assert!(text.contains("Keeps it off"), "{text}");
    let def = c.ask("textDocument/definition", &uri, 10, 16);
    let loc = &def.as_array().unwrap()[0];
    assert!(
        loc["uri"].as_str().unwrap().ends_with("/.taintlint.yaml"),
        "{def}"
    );
    assert_eq!(loc["range"]["start"]["line"], 4);

    // The config's pool judges the unsaved text: a NoExecute toleration leaves the pod nowhere.
    let mismatch = fixed.replace("effect: NoSchedule", "effect: NoExecute");
    c.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri, "version": 6}, "contentChanges": [{"text": mismatch}]}),
    );
    let diags = c.diagnostics(&uri, Some(6));
    assert_eq!(
        codes(&diags),
        ["unschedulable-workload@9", "toleration-effect-mismatch@10"]
    );
    assert!(
        diags[1]["message"]
            .as_str()
            .unwrap()
            .contains("Inventory pool `gpu`")
    );

    // A toleration of the Node's taint: definition goes to the Node's taint.
    let infra = fixed
        .replace("node-pool: gpu", "node-pool: infra")
        .replace("key: nvidia.com/gpu", "key: dedicated")
        .replace("operator: Exists", "value: infra");
    c.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri, "version": 7}, "contentChanges": [{"text": infra}]}),
    );
    assert_eq!(codes(&c.diagnostics(&uri, Some(7))), Vec::<String>::new());
    let def = c.ask("textDocument/definition", &uri, 10, 16);
    let loc = &def.as_array().unwrap()[0];
    assert!(
        loc["uri"].as_str().unwrap().ends_with("/nodes.yaml"),
        "{def}"
    );
    assert!(
        (6..=9).contains(&loc["range"]["start"]["line"].as_u64().unwrap()),
        "{def}"
    );

    // A file changed on disk (a checkout) refreshes the workspace: the Node's taint changes
    // and the open buffer is linted again against it.
    std::fs::write(
        root.join("nodes.yaml"),
        NODES.replace("value: infra", "value: infra-2"),
    )
    .unwrap();
    let changed = url::Url::from_file_path(root.join("nodes.yaml"))
        .unwrap()
        .to_string();
    c.notify(
        "workspace/didChangeWatchedFiles",
        json!({"changes": [{"uri": changed, "type": 2}]}),
    );
    let m = c.wait_for(|m| {
        m["method"] == "textDocument/publishDiagnostics"
            && m["params"]["version"] == json!(7)
            && m["params"]["diagnostics"] != json!([])
    });
    let diags = m["params"]["diagnostics"].as_array().unwrap();
    assert_eq!(
        codes(diags),
        ["unschedulable-workload@9", "toleration-matches-no-taint@10"]
    );

    // Close clears; shutdown and exit end the process with 0.
    c.notify(
        "textDocument/didClose",
        json!({"textDocument": {"uri": uri}}),
    );
    assert!(c.diagnostics(&uri, None).is_empty());
    assert!(c.request("shutdown", Value::Null).is_null());
    c.notify("exit", Value::Null);
    drop(c.stdin.take());
    let deadline = Instant::now() + WAIT;
    let status = loop {
        if let Some(s) = c.child.try_wait().unwrap() {
            break s;
        }
        assert!(Instant::now() < deadline, "the server did not exit");
        std::thread::sleep(Duration::from_millis(20));
    };
    assert_eq!(status.code(), Some(0));
}

#[test]
fn helm_template_gets_only_the_template_info() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir_all(root.join("chart/templates")).unwrap();
    std::fs::write(root.join("chart/Chart.yaml"), "name: c\nversion: 1.0.0\n").unwrap();
    let uri = url::Url::from_file_path(root.join("chart/templates/deploy.yaml"))
        .unwrap()
        .to_string();
    let mut c = Client::start(root);
    let root_uri = url::Url::from_directory_path(root).unwrap().to_string();
    c.request(
        "initialize",
        json!({"processId": null, "rootUri": root_uri, "capabilities": {"general": {"positionEncodings": ["utf-8", "utf-16"]}}}),
    );
    c.notify("initialized", json!({}));
    let text = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {{ .Release.Name }}\nspec:\n  template:\n    spec:\n      tolerations:\n        - key: x\n          operator: Exists\n          value: {{ .Values.v }}\n";
    c.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": uri, "languageId": "helm", "version": 1, "text": text}}),
    );
    let diags = c.diagnostics(&uri, Some(1));
    assert_eq!(
        diags
            .iter()
            .map(|d| d["code"].as_str().unwrap())
            .collect::<Vec<_>>(),
        ["template-not-rendered"]
    );
    assert_eq!(diags[0]["severity"], 3);
    assert!(c.request("shutdown", Value::Null).is_null());
    c.notify("exit", Value::Null);
}

const BOTH: &str = "apiVersion: apps/v1
kind: Deployment
metadata:
  name: trainer
spec:
  template:
    spec:
      affinity:
        nodeAffinity:
          requiredDuringSchedulingIgnoredDuringExecution:
            nodeSelectorTerms:
            - matchExpressions:
              - key: node-pool
                operator: In
                values: [gpu-x]
      tolerations:
        - key: dedicated
          value: gpu-x
          effect: NoSchedule
      containers: [{name: c, image: x}]
---
apiVersion: v1
kind: Node
metadata:
  name: gpu-x-1
  labels: {node-pool: gpu-x}
spec:
  taints:
    - key: dedicated
      value: gpu-x
      effect: NoSchedule
";

/// A buffer's own pools count with its unsaved text, and while a half-typed line does not
/// parse, those of its last text that did stay: only the syntax error is new.
#[test]
fn half_a_line_keeps_the_last_good_pools() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir(root.join(".git")).unwrap();
    std::fs::write(root.join("nodes.yaml"), NODES).unwrap();
    std::fs::write(
        root.join(".taintlint.yaml"),
        "exclude: [\"generated/**\"]\n",
    )
    .unwrap();
    let uri = url::Url::from_file_path(root.join("both.yaml"))
        .unwrap()
        .to_string();
    let mut c = Client::initialized(root);
    c.open(&uri, BOTH);
    assert_eq!(codes(&c.diagnostics(&uri, Some(1))), Vec::<String>::new());
    let hover = c.ask("textDocument/hover", &uri, 12, 20);
    let text = hover["contents"]["value"].as_str().unwrap();
    assert!(text.contains("required node affinity term 1"), "{text}");
    assert!(text.contains("Lets the pod onto: node `gpu-x-1`"), "{text}");
    assert!(text.contains("Keeps it off"), "{text}");
    assert!(text.contains("node `infra-1`"), "{text}");

    // `labels: {node-pool: gpu-x` typed without its brace yet.
    let broken = BOTH.replace("{node-pool: gpu-x}", "{node-pool: gpu-x");
    // (A file the config excludes gets nothing, as `check` gives it nothing when named.)
    let excluded = url::Url::from_file_path(root.join("generated/x.yaml"))
        .unwrap()
        .to_string();
    c.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": excluded, "languageId": "yaml", "version": 1, "text": DEPLOY}}),
    );
    assert_eq!(
        codes(&c.diagnostics(&excluded, Some(1))),
        Vec::<String>::new()
    );
    c.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri, "version": 2}, "contentChanges": [{"text": broken}]}),
    );
    assert_eq!(
        codes(&c.diagnostics(&uri, Some(2))),
        ["yaml-syntax-error@26"]
    );
    assert!(c.request("shutdown", Value::Null).is_null());
    c.notify("exit", Value::Null);
}

// --- Issue 36: a hostile pull request opened in the editor ---

/// Starts a session on `root` and opens `name` with `text`; its first diagnostics.
fn open(c: &mut Client, root: &std::path::Path, name: &str, text: &str) -> (String, Vec<Value>) {
    let root_uri = url::Url::from_directory_path(root).unwrap().to_string();
    c.request(
        "initialize",
        json!({"processId": null, "rootUri": root_uri, "capabilities": {}}),
    );
    c.notify("initialized", json!({}));
    let uri = url::Url::from_file_path(root.join(name))
        .unwrap()
        .to_string();
    c.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": uri, "languageId": "yaml", "version": 1, "text": text}}),
    );
    let diags = c.diagnostics(&uri, Some(1));
    (uri, diags)
}

/// Row 7: a minified one-line JSON Pod of 20,000 tolerations (1 MB): positions were counted
/// from the line's start for each of its 20,000 diagnostics (98 s); they are published, each
/// at its toleration's column in UTF-16 units (a two-unit emoji in the name before them).
#[test]
fn a_one_megabyte_line_is_linted_with_its_columns() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir(root.join(".git")).unwrap();
    let tolerations: Vec<String> = (0..20_000)
        .map(|i| format!(r#"{{"key":"example.com/key-{i}","operator":"Exists","value":"v"}}"#))
        .collect();
    let text = format!(
        r#"{{"apiVersion":"v1","kind":"Pod","metadata":{{"name":"p","annotations":{{"a":"😀"}}}},"spec":{{"containers":[{{"name":"c","image":"i"}}],"tolerations":[{}]}}}}"#,
        tolerations.join(",")
    );
    assert!(text.len() > 1_000_000);
    let mut c = Client::start(root);
    let (_, diags) = open(&mut c, root, "pod.json", &text);
    let values: Vec<&Value> = diags
        .iter()
        .filter(|d| d["code"] == "toleration-exists-with-value")
        .collect();
    assert_eq!(values.len(), 20_000);
    // The last one's value, counted in UTF-16 units (the emoji is two, one char).
    let last = text.rfind(r#""value":"v""#).unwrap() + r#""value":"#.len();
    let units = text[..last].chars().map(char::len_utf16).sum::<usize>();
    let starts: Vec<u64> = values
        .iter()
        .map(|d| d["range"]["start"]["character"].as_u64().unwrap())
        .collect();
    assert_eq!(*starts.iter().max().unwrap(), units as u64);
    assert!(values.iter().all(|d| d["range"]["start"]["line"] == 0));
    assert!(c.request("shutdown", Value::Null).is_null());
    c.notify("exit", Value::Null);
}

/// Row 8: a workspace whose config has a `per-file-ignores` glob of 100,000 `*` (globset
/// panicked compiling it and the worker died: nothing published). The worker lints the
/// buffer, and the editor is told why the glob is not used.
#[test]
fn a_glob_that_cannot_compile_does_not_stop_the_worker() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir(root.join(".git")).unwrap();
    std::fs::write(
        root.join(".taintlint.yaml"),
        format!(
            "per-file-ignores:\n  ? \"{}\"\n  : [toleration-exists-with-value]\n",
            "*".repeat(100_000)
        ),
    )
    .unwrap();
    std::fs::write(root.join("deploy.yaml"), DEPLOY).unwrap();
    let mut c = Client::start(root);
    let (_, diags) = open(&mut c, root, "deploy.yaml", DEPLOY);
    assert!(
        codes(&diags).contains(&"toleration-exists-with-value@12".to_string()),
        "{diags:?}"
    );
    let shown = c.wait_for(|m| m["method"] == "window/showMessage");
    let text = shown["params"]["message"].as_str().unwrap();
    assert!(
        text.contains(".taintlint.yaml:2:") && text.contains("at most 1024"),
        "{text}"
    );
    assert!(text.len() < 400, "{text}");
    // An `exclude` glob that cannot compile: the config is not used, and the editor says so.
    std::fs::write(
        root.join(".taintlint.yaml"),
        format!("exclude: [\"{}\"]\n", "*".repeat(100_000)),
    )
    .unwrap();
    c.notify("workspace/didChangeWatchedFiles", json!({"changes": []}));
    let shown = c.wait_for(|m| {
        m["method"] == "window/showMessage"
            && m["params"]["message"]
                .as_str()
                .is_some_and(|t| t.contains("exclude"))
    });
    assert!(
        shown["params"]["message"]
            .as_str()
            .unwrap()
            .contains("default config"),
        "{shown}"
    );
    assert!(c.request("shutdown", Value::Null).is_null());
    c.notify("exit", Value::Null);
}

/// Row 9: a committed link to a folder outside the repository, and a buffer opened through
/// it. The outside folder's `.taintlint.yaml` and the `inventory:` it names are not read (the
/// config was read, and its pools shown, when only the last component was checked); the
/// repository's own config still is, and the editor is told why the other was not.
#[test]
fn a_linked_folder_cannot_lend_its_config() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("repo");
    let outside = dir.path().join("outside");
    std::fs::create_dir_all(root.join(".git")).unwrap();
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(
        outside.join(".taintlint.yaml"),
        "inventory: [nodes.yaml]\nrules: {toleration-exists-with-value: off}\n",
    )
    .unwrap();
    std::fs::write(
        outside.join("nodes.yaml"),
        "apiVersion: v1\nkind: Node\nmetadata: {name: outside-secret-node}\nspec:\n  taints: [{key: nvidia.com/gpu, value: present, effect: NoSchedule}]\n",
    )
    .unwrap();
    std::os::unix::fs::symlink(&outside, root.join("linked")).unwrap();
    std::fs::write(root.join(".taintlint.yaml"), CONFIG).unwrap();
    let mut c = Client::start(&root);
    let (_, diags) = open(&mut c, &root, "linked/deploy.yaml", DEPLOY);
    let all = serde_json::to_string(&diags).unwrap();
    assert!(!all.contains("outside-secret-node"), "{all}");
    // The outside config would have turned this rule off.
    assert!(
        codes(&diags).contains(&"toleration-exists-with-value@12".to_string()),
        "{diags:?}"
    );
    let shown = c.wait_for(|m| m["method"] == "window/showMessage");
    let text = shown["params"]["message"].as_str().unwrap();
    assert!(text.contains("outside the repository"), "{text}");
    assert!(c.request("shutdown", Value::Null).is_null());
    c.notify("exit", Value::Null);
}

/// Row 12: `Content-Length: 18446744073709551615` panicked in the transport, `8000000000`
/// zero-filled gigabytes. Both now end the session cleanly: exit status 2 and the reason on
/// standard error, at once — with the input kept open (#49: the server waited for the body a
/// hostile client never sends).
#[test]
fn absurd_message_lengths_end_the_session_cleanly() {
    for length in ["18446744073709551615", "8000000000", "-1", "1e9"] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_taintlint"))
            .arg("server")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut stdin = child.stdin.take().unwrap();
        let init = serde_json::to_vec(&json!({"jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"processId": null, "rootUri": null, "capabilities": {}}}))
        .unwrap();
        write!(stdin, "Content-Length: {}\r\n\r\n", init.len()).unwrap();
        stdin.write_all(&init).unwrap();
        write!(
            stdin,
            "Content-Length: {length}\r\n\r\n{{\"jsonrpc\":\"2.0\"}}"
        )
        .unwrap();
        stdin.flush().unwrap();
        // Within a second, while the client still holds the input open.
        let deadline = Instant::now() + Duration::from_secs(1).max(WAIT / 10);
        let status = loop {
            if let Some(s) = child.try_wait().unwrap() {
                break s;
            }
            assert!(
                Instant::now() < deadline,
                "{length}: the server did not end with its input open"
            );
            std::thread::sleep(Duration::from_millis(20));
        };
        drop(stdin);
        let out = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(status.code(), Some(2), "{length}: {stderr}");
        assert!(!stderr.contains("internal error"), "{length}: {stderr}");
        assert!(
            stderr.contains("language server input"),
            "{length}: {stderr}"
        );
    }
}

/// Issue 39: started by hand (from a terminal) or fed anything but an editor's LSP messages,
/// the server says in one line what it is, what to run instead and where the editor set-up is
/// documented, writes nothing on standard output (the protocol's channel), and exits 2.
#[test]
fn started_by_hand_it_says_what_it_is() {
    let guide = taintlint::server::EDITORS_GUIDE;
    let rel = guide
        .split_once(&format!("/blob/v{}/", env!("CARGO_PKG_VERSION")))
        .unwrap()
        .1;
    assert!(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join(rel)
            .is_file(),
        "{guide}"
    );
    let says = |stderr: &str, why: &str| {
        assert_eq!(stderr.trim_end().lines().count(), 1, "one line: {stderr}");
        for part in [
            "Language Server Protocol",
            "started by an editor",
            "taintlint check",
            guide,
            why,
        ] {
            assert!(stderr.contains(part), "no {part:?} in {stderr}");
        }
    };
    let bin = env!("CARGO_BIN_EXE_taintlint");
    for (input, why) in [
        (&b"hello\n"[..], "is not LSP"),
        (
            &b"{\"jsonrpc\": \"2.0\", \"id\": 1, \"method\": \"initialize\"}\n"[..],
            "is not LSP",
        ),
        (&b"Content-Length: 5\r\n\r\nhello"[..], "is not LSP"),
        (&b""[..], "ended before the editor's `initialize` request"),
    ] {
        let mut child = Command::new(bin)
            .arg("server")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut stdin = child.stdin.take().unwrap();
        // It may stop reading before the end: a broken pipe here is no failure.
        let _ = stdin.write_all(input);
        drop(stdin);
        let out = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{input:?}: {stderr}");
        assert!(out.stdout.is_empty(), "{input:?}");
        says(&stderr, why);
    }
    // From a terminal: `script` gives it one (util-linux; skipped where it is missing).
    let script = Command::new("script")
        .args(["-qec", &format!("{bin} server"), "/dev/null"])
        .stdin(Stdio::null())
        .output();
    match script {
        Ok(out) if out.status.code() != Some(127) => {
            let text = String::from_utf8_lossy(&out.stdout);
            assert_eq!(out.status.code(), Some(2), "{text}");
            says(&text, "standard input is a terminal");
        }
        _ => eprintln!("skipped the terminal case: no `script` here"),
    }
}

/// The VS Code extension (`editors/vscode`, issues 36 and 39): a repository's settings cannot
/// choose the program it runs (`taintlint.path` is machine-scoped and restricted in untrusted
/// workspaces), it ships a licence and a lock file, and its activation logic — the server for
/// YAML and Helm files, for JSON and Terraform only where the workspace has manifests — is
/// tested under Node with stand-ins for VS Code (`editors/vscode/test`).
#[test]
fn the_vscode_extension() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("editors/vscode");
    let read = |f: &str| std::fs::read_to_string(dir.join(f)).unwrap();
    let manifest: Value = serde_json::from_str(&read("package.json")).unwrap();

    let path = &manifest["contributes"]["configuration"]["properties"]["taintlint.path"];
    assert_eq!(path["scope"], "machine", "{path}");
    let untrusted = &manifest["capabilities"]["untrustedWorkspaces"];
    assert_eq!(untrusted["supported"], "limited", "{untrusted}");
    assert!(
        untrusted["restrictedConfigurations"]
            .as_array()
            .unwrap()
            .contains(&json!("taintlint.path")),
        "{untrusted}"
    );
    let events: Vec<&str> = manifest["activationEvents"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e.as_str().unwrap())
        .collect();
    for e in ["onLanguage:yaml", "onLanguage:helm"] {
        assert!(events.contains(&e), "{events:?}");
    }
    assert!(!events.contains(&"*") && !events.contains(&"onStartupFinished"));
    for setting in ["taintlint.json", "taintlint.terraform"] {
        let s = &manifest["contributes"]["configuration"]["properties"][setting];
        assert_eq!(s["default"], "auto", "{setting}: {s}");
    }
    assert!(dir.join(manifest["main"].as_str().unwrap()).is_file());

    // The licence: both of the repository's, whole.
    let licence = read("LICENSE");
    for f in ["LICENSE-MIT", "LICENSE-APACHE"] {
        let text = std::fs::read_to_string(dir.join("../..").join(f)).unwrap();
        assert!(licence.contains(text.trim()), "LICENSE lacks {f}");
    }
    assert_eq!(manifest["license"], "MIT OR Apache-2.0");

    // The lock file pins what package.json asks for.
    let lock: Value = serde_json::from_str(&read("package-lock.json")).unwrap();
    assert!(
        lock["lockfileVersion"].as_u64().unwrap() >= 2,
        "{}",
        lock["lockfileVersion"]
    );
    let root = &lock["packages"][""];
    for deps in ["dependencies", "devDependencies"] {
        assert_eq!(
            root[deps], manifest[deps],
            "package-lock.json is stale: {deps}"
        );
        for name in manifest[deps].as_object().unwrap().keys() {
            let entry = &lock["packages"][format!("node_modules/{name}")];
            assert!(entry["version"].is_string(), "{name} is not locked");
            assert!(entry["integrity"].is_string(), "{name} has no integrity");
        }
    }

    // The extension's logic, under Node (skipped, saying so, where Node is not installed).
    match Command::new("node").arg("--version").output() {
        Ok(v) if v.status.success() => {
            let out = Command::new("node")
                .args(["--test", "test/extension.test.js"])
                .current_dir(&dir)
                .output()
                .unwrap();
            let text = String::from_utf8_lossy(&out.stdout).into_owned()
                + &String::from_utf8_lossy(&out.stderr);
            assert!(
                out.status.success(),
                "node --test test/extension.test.js:\n{text}"
            );
            assert!(
                text.contains("# fail 0") && !text.contains("# pass 0"),
                "{text}"
            );
        }
        _ => eprintln!("skipped editors/vscode/test: no node here"),
    }
}

/// An operator's resource in the editor: its pod roles are judged as a Deployment's pods are,
/// the diagnostics on the operator's own fields (an OpenShift `IngressController`'s
/// `nodePlacement`), and the hover on its toleration names the pools it opens.
#[test]
fn an_operators_resource_in_the_editor() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir(root.join(".git")).unwrap();
    let fixture = include_str!("../testdata/operators/ingress-controller/invalid.yaml");
    // The MachineSets (the pools) on disk, the IngressControllers in the editor's buffer.
    let split = fixture.find("# Tolerates the infra taint").unwrap();
    std::fs::write(root.join("machinesets.yaml"), &fixture[..split]).unwrap();
    std::fs::write(root.join("ingress.yaml"), "").unwrap();
    let text = format!("{}\n", &fixture[split..]);
    let uri = url::Url::from_file_path(root.join("ingress.yaml"))
        .unwrap()
        .to_string();
    let mut c = Client::initialized(root);
    c.open(&uri, &text);
    let diags = c.diagnostics(&uri, Some(1));
    // Lines (0-based) of the buffer: the fixture's, less the MachineSets' 37.
    assert_eq!(
        codes(&diags),
        [
            "dedicated-toleration-without-affinity@11",
            "invalid-node-selector@26",
            "invalid-toleration-effect@28",
            "toleration-effect-mismatch@29",
        ],
        "{diags:?}"
    );
    let message = diags[0]["message"].as_str().unwrap();
    assert!(
        message.contains("OpenShift MachineSet `ocp-worker-us-east-1a`"),
        "{message}"
    );
    let hover = c.ask("textDocument/hover", &uri, 11, 12);
    let shown = hover["contents"]["value"].as_str().unwrap();
    assert!(shown.contains("ocp-infra-us-east-1a"), "{shown}");
    assert!(c.request("shutdown", Value::Null).is_null());
    c.notify("exit", Value::Null);
}

// --- The editor says what `check` says ---

/// Copies `from` into `to`, recursively.
fn copy_tree(from: &std::path::Path, to: &std::path::Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let target = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_tree(&e.path(), &target);
        } else {
            std::fs::copy(e.path(), target).unwrap();
        }
    }
}

/// The manifests under `dir`, relative, sorted.
fn manifests(dir: &std::path::Path, base: &std::path::Path, out: &mut Vec<String>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            manifests(&p, base, out);
        } else if p
            .extension()
            .is_some_and(|x| x == "yaml" || x == "yml" || x == "json")
        {
            out.push(p.strip_prefix(base).unwrap().to_string_lossy().into_owned());
        }
    }
    out.sort();
}

/// Every scenario run as `check ROOT` (those without arguments of their own) gives each of
/// its manifests, opened in the editor, the diagnostics `check` gives that file: the editor
/// sees the workspace's pools, the clusters its files define and each inferred cluster's own
/// pools as `check` does (`pool-tolerated-by-nothing` is not shown in the editor).
#[test]
fn the_editor_agrees_with_check_on_the_scenarios() {
    let scenarios = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/scenarios");
    let mut names: Vec<_> = std::fs::read_dir(&scenarios)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir() && !p.join("args.txt").exists())
        .collect();
    names.sort();
    let mut problems = Vec::new();
    for scenario in names {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        copy_tree(&scenario, root);
        std::fs::create_dir_all(root.join(".git")).unwrap();
        let out = Command::new(env!("CARGO_BIN_EXE_taintlint"))
            .args(["check", ".", "--format", "json"])
            .current_dir(root)
            .output()
            .unwrap();
        let report: Value = serde_json::from_slice(&out.stdout).unwrap();
        let mut files = Vec::new();
        manifests(root, root, &mut files);
        let mut c = Client::initialized(root);
        for file in &files {
            let mut want: Vec<String> = report["findings"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|f| {
                    f["file"].as_str().map(|n| n.trim_start_matches("./")) == Some(file.as_str())
                        && f["rule"] != "pool-tolerated-by-nothing"
                })
                .map(|f| {
                    format!(
                        "{}@{}",
                        f["rule"].as_str().unwrap(),
                        f["line"].as_i64().unwrap() - 1
                    )
                })
                .collect();
            want.sort();
            let uri = url::Url::from_file_path(root.join(file))
                .unwrap()
                .to_string();
            let text = std::fs::read_to_string(root.join(file)).unwrap();
            c.open(&uri, &text);
            let mut got = codes(&c.diagnostics(&uri, Some(1)));
            got.sort();
            if got != want {
                problems.push(format!(
                    "{}/{file}: check {want:?}, editor {got:?}",
                    scenario.file_name().unwrap().to_string_lossy()
                ));
            }
        }
        assert!(c.request("shutdown", Value::Null).is_null());
        c.notify("exit", Value::Null);
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// Issue 49, hole 12: a hover puts pool names and taints in Markdown the editor renders. A
/// name with backticks and HTML ends no code span: nothing of it is live markup (no image
/// that loads a URL, no link).
#[test]
fn hover_markdown_keeps_names_as_text() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir(root.join(".git")).unwrap();
    let evil = "x``<img src=https://evil.example/b.png>``y";
    std::fs::write(
        root.join("nodes.yaml"),
        format!(
            "apiVersion: v1\nkind: Node\nmetadata:\n  name: {}\n  labels: {{pool: gpu}}\nspec:\n  taints:\n    - {{key: dedicated, value: gpu, effect: NoSchedule}}\n",
            serde_json::to_string(evil).unwrap()
        ),
    )
    .unwrap();
    let pod = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: p\nspec:\n  template:\n    spec:\n      nodeSelector:\n        pool: gpu\n      tolerations:\n        - key: dedicated\n          value: gpu\n          effect: NoSchedule\n      containers: [{name: c, image: x}]\n";
    let uri = url::Url::from_file_path(root.join("pod.yaml"))
        .unwrap()
        .to_string();
    let mut c = Client::initialized(root);
    c.open(&uri, pod);
    let _ = c.diagnostics(&uri, Some(1));
    for (line, character) in [(10, 16), (8, 10)] {
        let hover = c.ask("textDocument/hover", &uri, line, character);
        let md = hover["contents"]["value"].as_str().unwrap_or_default();
        assert!(md.contains("img src"), "the name is shown: {md}");
        assert_eq!(live_markup(md), Vec::<char>::new(), "{md}");
    }
    assert!(c.request("shutdown", Value::Null).is_null());
    c.notify("exit", Value::Null);
}

/// The markup characters of `md` outside code spans and not backslash-escaped (CommonMark:
/// a run of N backticks opens a span that the next run of exactly N closes).
fn live_markup(md: &str) -> Vec<char> {
    let chars: Vec<char> = md.chars().collect();
    let mut live = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c == '\\' {
            i += 2;
            continue;
        }
        if c == '`' {
            let n = chars[i..].iter().take_while(|&&c| c == '`').count();
            // The closing run of exactly n.
            let mut j = i + n;
            let mut closed = None;
            while j < chars.len() {
                if chars[j] == '`' {
                    let m = chars[j..].iter().take_while(|&&c| c == '`').count();
                    if m == n {
                        closed = Some(j + m);
                        break;
                    }
                    j += m;
                } else {
                    j += 1;
                }
            }
            match closed {
                Some(end) => i = end,
                None => {
                    live.push('`');
                    i += n;
                }
            }
            continue;
        }
        if matches!(c, '<' | '[' | ']' | '!') {
            live.push(c);
        }
        i += 1;
    }
    live
}
