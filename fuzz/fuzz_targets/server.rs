//! Arbitrary bytes → the language server's handlers, as an editor would send them: the text
//! opened, changed at a position, and hovers, definitions and code actions asked at
//! positions, all taken from the input. One server in memory (`Connection::memory`, no
//! debounce) per input. Asserts: every change is answered with diagnostics and none is an
//! `internal-error`, every request with a response (a panic on the worker or the main loop
//! would leave one unanswered), and the server ends cleanly on shutdown and exit.

#![no_main]

use std::time::Duration;

use libfuzzer_sys::fuzz_target;
use lsp_server::{Connection, Message, Notification, Request, RequestId};
use serde_json::{Value, json};

const WAIT: Duration = Duration::from_secs(30);

fn notify(c: &Connection, method: &str, params: Value) {
    let n = Notification::new(method.to_string(), params);
    c.sender.send(Message::Notification(n)).expect("server alive");
}

fn request(c: &Connection, id: i32, method: &str, params: Value) -> Value {
    let r = Request::new(RequestId::from(id), method.to_string(), params);
    c.sender.send(Message::Request(r)).expect("server alive");
    loop {
        match c.receiver.recv_timeout(WAIT).expect("an answer") {
            Message::Response(r) if r.id == RequestId::from(id) => {
                return r.response_result.expect("a result");
            }
            _ => {}
        }
    }
}

fn published(c: &Connection, uri: &str, version: i32) {
    loop {
        if let Message::Notification(n) = c.receiver.recv_timeout(WAIT).expect("diagnostics")
            && n.method == "textDocument/publishDiagnostics"
            && n.params["uri"] == uri
            && n.params["version"] == json!(version)
        {
            let crashed = n.params["diagnostics"]
                .as_array()
                .is_some_and(|d| d.iter().any(|d| d["code"] == "internal-error"));
            assert!(!crashed, "internal-error: {:?}", n.params);
            return;
        }
    }
}

fn pos(b: &[u8], i: usize) -> Value {
    let at = |k: usize| u32::from(b.get(i * 2 + k).copied().unwrap_or(0));
    json!({"line": at(0) % 64, "character": at(1)})
}

fuzz_target!(|data: &[u8]| {
    // [8 position bytes][opened text] 0xFF [inserted text]
    let (head, rest) = data.split_at(data.len().min(8));
    let mut parts = rest.splitn(2, |&b| b == 0xFF);
    let opened = String::from_utf8_lossy(parts.next().unwrap_or(&[])).into_owned();
    let inserted = String::from_utf8_lossy(parts.next().unwrap_or(&[])).into_owned();

    let (server, client) = Connection::memory();
    let options = taintlint::server::Options {
        debounce: Duration::ZERO,
    };
    let thread = std::thread::spawn(move || taintlint::server::serve(&server, &options));
    let root = "file:///taintlint-fuzz-root-that-does-not-exist/";
    request(
        &client,
        1,
        "initialize",
        json!({"processId": null, "rootUri": root, "capabilities": {}}),
    );
    notify(&client, "initialized", json!({}));
    let uri = "file:///taintlint-fuzz-root-that-does-not-exist/f.yaml";
    notify(
        &client,
        "textDocument/didOpen",
        json!({"textDocument": {"uri": uri, "languageId": "yaml", "version": 1, "text": opened}}),
    );
    published(&client, uri, 1);
    let doc = |i| json!({"textDocument": {"uri": uri}, "position": pos(head, i)});
    request(&client, 2, "textDocument/hover", doc(0));
    request(&client, 3, "textDocument/definition", doc(1));
    request(
        &client,
        4,
        "textDocument/codeAction",
        json!({"textDocument": {"uri": uri}, "range": {"start": pos(head, 2), "end": pos(head, 3)}, "context": {"diagnostics": []}}),
    );
    notify(
        &client,
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri, "version": 2},
               "contentChanges": [{"range": {"start": pos(head, 0), "end": pos(head, 1)}, "text": inserted}]}),
    );
    published(&client, uri, 2);
    request(&client, 5, "textDocument/hover", doc(2));
    request(&client, 6, "textDocument/definition", doc(3));
    request(
        &client,
        7,
        "textDocument/codeAction",
        json!({"textDocument": {"uri": uri}, "range": {"start": pos(head, 0), "end": pos(head, 3)}, "context": {"diagnostics": []}}),
    );
    notify(&client, "textDocument/didClose", json!({"textDocument": {"uri": uri}}));
    request(&client, 8, "shutdown", Value::Null);
    notify(&client, "exit", Value::Null);
    let served = thread.join().expect("the server thread ends");
    assert_eq!(served, Ok(()));
});
