//! The language server's handlers on any text: one server in memory (`Connection::memory`,
//! no debounce), fed random bytes as UTF-8 and YAML-like fragments by open and by
//! incremental change at random positions, and asked hovers, definitions and code actions at
//! random positions. Every change must come back as published diagnostics and every request
//! as a response: a panic on the worker or the main loop would leave one unanswered.

#![allow(clippy::unwrap_used)] // tests may unwrap

use std::time::Duration;

use lsp_server::{Connection, Message, Notification, Request, RequestId};
use proptest::prelude::*;
use serde_json::{Value, json};

/// How long to wait for an answer before taking the server to hang (not a time limit: an
/// answer takes milliseconds; the wait ends when it comes).
const WAIT: Duration = Duration::from_secs(120);

struct Harness {
    client: Connection,
    next: i32,
    thread: Option<std::thread::JoinHandle<Result<(), String>>>,
}

impl Harness {
    fn start() -> Harness {
        let (server, client) = Connection::memory();
        let options = taintlint::server::Options {
            debounce: Duration::ZERO,
        };
        let thread = std::thread::spawn(move || taintlint::server::serve(&server, &options));
        let mut h = Harness {
            client,
            next: 0,
            thread: Some(thread),
        };
        let dir = std::env::temp_dir().join("taintlint-server-fuzz-root-does-not-exist");
        let root = url::Url::from_directory_path(&dir).unwrap();
        h.request(
            "initialize",
            json!({"processId": null, "rootUri": root, "capabilities": {}}),
        );
        h.notify("initialized", json!({}));
        h
    }

    fn notify(&self, method: &str, params: Value) {
        self.client
            .sender
            .send(Message::Notification(Notification::new(
                method.to_string(),
                params,
            )))
            .unwrap();
    }

    fn request(&mut self, method: &str, params: Value) -> Value {
        self.next += 1;
        let id = RequestId::from(self.next);
        self.client
            .sender
            .send(Message::Request(Request::new(
                id.clone(),
                method.to_string(),
                params,
            )))
            .unwrap();
        loop {
            match self.client.receiver.recv_timeout(WAIT).unwrap() {
                Message::Response(r) if r.id == id => match r.response_result {
                    Ok(v) => return v,
                    Err(e) => panic!("{method}: {e:?}"),
                },
                _ => {}
            }
        }
    }

    /// Waits for the diagnostics of `version` of `uri`.
    fn published(&self, uri: &str, version: i32) {
        loop {
            if let Message::Notification(n) = self.client.receiver.recv_timeout(WAIT).unwrap()
                && n.method == "textDocument/publishDiagnostics"
                && n.params["uri"] == uri
                && n.params["version"] == json!(version)
            {
                let crashed = n.params["diagnostics"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .any(|d| d["code"] == "internal-error");
                assert!(!crashed, "{:?}", n.params);
                return;
            }
        }
    }

    fn stop(mut self) {
        assert!(self.request("shutdown", Value::Null).is_null());
        self.notify("exit", Value::Null);
        let served = self.thread.take().unwrap().join().unwrap();
        assert_eq!(served, Ok(()));
    }
}

/// Text that is mostly YAML about scheduling, cut and spliced at random, or random bytes.
fn text() -> impl Strategy<Value = String> {
    let fragments = prop::sample::select(vec![
        "apiVersion: apps/v1\nkind: Deployment\n",
        "metadata:\n  name: x\n",
        "spec:\n  template:\n    spec:\n",
        "      tolerations:\n        - key: a\n          operator: Exists\n          value: v\n",
        "      nodeSelector:\n        pool: gpu\n",
        "      affinity:\n        nodeAffinity:\n          requiredDuringSchedulingIgnoredDuringExecution:\n            nodeSelectorTerms:\n            - matchExpressions:\n              - {key: k, operator: In, values: [a]}\n",
        "---\napiVersion: v1\nkind: Node\nmetadata: {name: n}\nspec:\n  taints:\n  - {key: a, value: v, effect: NoSchedule}\n",
        "{{ .Values.x }}\n",
        "# taintlint: ignore[\n",
        "\r\n\u{85}\u{2028}😀é\t",
        "- ",
        ": ",
        "\"",
    ]);
    prop_oneof![
        prop::collection::vec(fragments, 0..12).prop_map(|v| v.concat()),
        prop::collection::vec(any::<u8>(), 0..300)
            .prop_map(|b| String::from_utf8_lossy(&b).into_owned()),
    ]
}

fn position() -> impl Strategy<Value = Value> {
    (
        prop_oneof![0u32..40, Just(u32::MAX)],
        prop_oneof![0u32..120, Just(u32::MAX)],
    )
        .prop_map(|(l, c)| json!({"line": l, "character": c}))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn handlers_survive_any_text(
        first in text(),
        inserted in text(),
        at in (position(), position()),
        asks in prop::collection::vec(position(), 1..4),
    ) {
        let mut h = Harness::start();
        let uri = "file:///nowhere/fuzz.yaml";
        h.notify(
            "textDocument/didOpen",
            json!({"textDocument": {"uri": uri, "languageId": "yaml", "version": 1, "text": first}}),
        );
        h.published(uri, 1);
        for p in &asks {
            let doc = json!({"textDocument": {"uri": uri}, "position": p});
            h.request("textDocument/hover", doc.clone());
            h.request("textDocument/definition", doc);
            h.request(
                "textDocument/codeAction",
                json!({"textDocument": {"uri": uri}, "range": {"start": p, "end": at.1}, "context": {"diagnostics": []}}),
            );
        }
        h.notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": uri, "version": 2},
                   "contentChanges": [{"range": {"start": at.0, "end": at.1}, "text": inserted}]}),
        );
        h.published(uri, 2);
        for p in &asks {
            let doc = json!({"textDocument": {"uri": uri}, "position": p});
            h.request("textDocument/hover", doc);
            h.request(
                "textDocument/codeAction",
                json!({"textDocument": {"uri": uri}, "range": {"start": at.0, "end": p}, "context": {"diagnostics": []}}),
            );
        }
        h.notify("textDocument/didClose", json!({"textDocument": {"uri": uri}}));
        h.stop();
    }
}

#[test]
fn unknown_requests_and_bad_params_are_answered() {
    let h = Harness::start();
    h.client
        .sender
        .send(Message::Request(Request::new(
            RequestId::from(99),
            "textDocument/hover".to_string(),
            json!({"nonsense": true}),
        )))
        .unwrap();
    loop {
        if let Message::Response(r) = h.client.receiver.recv_timeout(WAIT).unwrap() {
            assert!(r.response_result.is_err());
            break;
        }
    }
    h.client
        .sender
        .send(Message::Request(Request::new(
            RequestId::from(100),
            "workspace/symbol".to_string(),
            json!({"query": "\u{1b}[2J"}),
        )))
        .unwrap();
    loop {
        if let Message::Response(r) = h.client.receiver.recv_timeout(WAIT).unwrap() {
            let e = r.response_result.unwrap_err();
            assert!(e.message.contains("workspace/symbol"));
            break;
        }
    }
    h.stop();
}
