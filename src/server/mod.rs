//! `taintlint server`: the Language Server Protocol over standard input and output, as
//! `ruff server` speaks it, on the crates rust-analyzer and ruff use (`lsp-server` for the
//! transport and message loop, `lsp-types` for the protocol's types).
//!
//! Two threads. The main loop reads messages, keeps the open buffers' texts (incremental
//! sync) and answers requests from the last analysis of each buffer; it never lints. The
//! worker owns the workspace (`workspace`): it builds it at start-up, debounces edits
//! ([`Options::debounce`]), lints each changed buffer as `taintlint check` would lint it
//! in its workspace (`analyze`), publishes the diagnostics itself, then works out the
//! buffer's hovers and quick fixes and hands them to the main loop. Standard output is the
//! protocol: nothing else is written there (logs go to the client as `window/logMessage`).

mod analyze;
mod edits;
mod position;
mod scan;
mod transport;
mod workspace;

use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crossbeam_channel::{Receiver, RecvTimeoutError, Sender};
use lsp_server::{Connection, ErrorCode, Message, Notification, Request, RequestId, Response};
use lsp_types::notification::{self as note, Notification as _};
use lsp_types::request::{self as req, Request as _};
use lsp_types::{
    CodeActionProviderCapability, HoverProviderCapability, OneOf, PositionEncodingKind,
    ServerCapabilities, TextDocumentSyncCapability, TextDocumentSyncKind, Url,
};

use analyze::name_of;
use position::Encoding;

use crate::analysis::types::NodeDecl;
use crate::commands::{ExitStatus, ToolError};

/// How the server runs.
#[derive(Clone, Debug)]
pub struct Options {
    /// How long the worker waits after an edit for the next before it lints.
    pub debounce: Duration,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            debounce: Duration::from_millis(150),
        }
    }
}

/// `taintlint server`: serves one client over standard input and output until it exits.
///
/// Run from a terminal, or given anything but an editor's first LSP message, it says in one
/// line what it is and where the editor set-up is documented, and fails (exit 2): before, a
/// user who tried it by hand got `error: disconnected channel`.
pub fn run(options: &Options) -> Result<ExitStatus, ToolError> {
    use std::io::IsTerminal as _;
    if std::io::stdin().is_terminal() {
        return Err(not_an_editor("standard input is a terminal"));
    }
    let (connection, io) = transport::stdio();
    let started = connection.initialize_start();
    let served = match started {
        Ok((id, params)) => serve_initialized(&connection, id, params, options),
        Err(_) => {
            drop(connection);
            return Err(not_an_editor(match io.join() {
                // The reader stopped at something that is not a message.
                Err(_) => {
                    "what came on standard input is not LSP (each message starts with a \
                     `Content-Length: N` header line and a blank line)"
                }
                Ok(()) => "standard input ended before the editor's `initialize` request",
            }));
        }
    };
    drop(connection);
    // A broken input first: it is why the session ended.
    io.join().map_err(|e| ToolError(e.to_string()))?;
    served.map_err(ToolError)?;
    Ok(ExitStatus::Clean)
}

/// Where the editor set-up is documented: the guide of this version in the repository (a
/// user of the binary alone has no `docs/`).
pub const EDITORS_GUIDE: &str = concat!(
    env!("CARGO_PKG_REPOSITORY"),
    "/blob/v",
    env!("CARGO_PKG_VERSION"),
    "/docs/editors.md"
);

/// The one line for a user who started the server by hand (or piped something else into it).
fn not_an_editor(why: &str) -> ToolError {
    ToolError(format!(
        "`taintlint server` is the language server: it speaks the Language Server Protocol \
         (LSP) on standard input and output and is started by an editor, not by hand: {why}. \
         To lint files, run \
         `taintlint check`; to set up VS Code, Neovim or Helix, see \"Editors\" in {EDITORS_GUIDE}"
    ))
}

/// A buffer as the editor has it.
struct Doc {
    version: i32,
    text: String,
}

/// The last analysis of each buffer, shared by the worker (which writes) and the main loop
/// (which reads); the lock is held only to look up or replace an entry.
type Analyses = Arc<Mutex<HashMap<Url, Arc<analyze::Analysis>>>>;

/// What the main loop tells the worker.
enum Job {
    Lint {
        uri: Url,
        version: i32,
        text: Arc<str>,
    },
    Close(Url),
    /// Files changed on disk (saved, or `workspace/didChangeWatchedFiles`): the workspace is
    /// read again and the open buffers linted again.
    Rescan,
    Stop,
}

/// Serves one client on `connection` until it asks to exit (`Err`: the protocol broke).
pub fn serve(connection: &Connection, options: &Options) -> Result<(), String> {
    let (id, params) = connection.initialize_start().map_err(|e| e.to_string())?;
    serve_initialized(connection, id, params, options)
}

/// [`serve`] after the client's `initialize` request (`id`, `params`) has been read.
fn serve_initialized(
    connection: &Connection,
    id: RequestId,
    params: serde_json::Value,
    options: &Options,
) -> Result<(), String> {
    let params: lsp_types::InitializeParams =
        serde_json::from_value(params).map_err(|e| format!("bad initialize params: {e}"))?;
    let encoding = if params
        .capabilities
        .general
        .as_ref()
        .and_then(|g| g.position_encodings.as_ref())
        .is_some_and(|e| e.contains(&PositionEncodingKind::UTF8))
    {
        Encoding::Utf8
    } else {
        Encoding::Utf16
    };
    let root = root_of(&params);
    let capabilities = ServerCapabilities {
        position_encoding: Some(match encoding {
            Encoding::Utf8 => PositionEncodingKind::UTF8,
            Encoding::Utf16 => PositionEncodingKind::UTF16,
        }),
        text_document_sync: Some(TextDocumentSyncCapability::Options(
            lsp_types::TextDocumentSyncOptions {
                open_close: Some(true),
                change: Some(TextDocumentSyncKind::INCREMENTAL),
                save: Some(lsp_types::TextDocumentSyncSaveOptions::Supported(true)),
                ..Default::default()
            },
        )),
        code_action_provider: Some(CodeActionProviderCapability::Options(
            lsp_types::CodeActionOptions {
                code_action_kinds: Some(vec![lsp_types::CodeActionKind::QUICKFIX]),
                ..Default::default()
            },
        )),
        hover_provider: Some(HoverProviderCapability::Simple(true)),
        definition_provider: Some(OneOf::Left(true)),
        ..Default::default()
    };
    let result = serde_json::json!({
        "capabilities": capabilities,
        "serverInfo": {"name": "taintlint", "version": env!("CARGO_PKG_VERSION")},
    });
    connection
        .initialize_finish(id, result)
        .map_err(|e| e.to_string())?;
    // Files changed outside the editor (a checkout, a generator) refresh the workspace: the
    // client is asked to watch what the walk lints and the config, when it can be asked.
    if params
        .capabilities
        .workspace
        .as_ref()
        .and_then(|w| w.did_change_watched_files.as_ref())
        .and_then(|w| w.dynamic_registration)
        == Some(true)
    {
        let watchers: Vec<lsp_types::FileSystemWatcher> =
            ["**/*.{yaml,yml,json,tf,j2,tpl}", "**/.taintlint.yaml"]
                .into_iter()
                .map(|g| lsp_types::FileSystemWatcher {
                    glob_pattern: lsp_types::GlobPattern::String(g.to_string()),
                    kind: None,
                })
                .collect();
        let registration = lsp_types::Registration {
            id: "taintlint-watched-files".to_string(),
            method: note::DidChangeWatchedFiles::METHOD.to_string(),
            register_options: serde_json::to_value(
                lsp_types::DidChangeWatchedFilesRegistrationOptions { watchers },
            )
            .ok(),
        };
        let request = Request::new(
            RequestId::from("taintlint-register".to_string()),
            req::RegisterCapability::METHOD.to_string(),
            lsp_types::RegistrationParams {
                registrations: vec![registration],
            },
        );
        connection
            .sender
            .send(Message::Request(request))
            .map_err(|e| e.to_string())?;
    }

    let analyses: Analyses = Arc::default();
    let (jobs, inbox) = crossbeam_channel::unbounded();
    let worker = {
        let sender = connection.sender.clone();
        let analyses = Arc::clone(&analyses);
        let options = options.clone();
        std::thread::Builder::new()
            .name("taintlint-worker".into())
            .spawn(move || Worker::new(root, encoding, sender, analyses, options).run(&inbox))
            .map_err(|e| format!("cannot start the worker thread: {e}"))?
    };
    let result = main_loop(connection, &jobs, &analyses, encoding);
    let _ = jobs.send(Job::Stop);
    let _ = worker.join();
    result
}

/// The workspace folder: the first of `workspaceFolders`, else `rootUri`, else the current
/// folder.
#[allow(deprecated)] // `root_uri`: older clients send only it
fn root_of(params: &lsp_types::InitializeParams) -> PathBuf {
    params
        .workspace_folders
        .as_ref()
        .and_then(|f| f.first())
        .map(|f| &f.uri)
        .or(params.root_uri.as_ref())
        .and_then(|u| u.to_file_path().ok())
        .or_else(|| std::env::current_dir().ok())
        .unwrap_or_else(|| PathBuf::from("."))
}

fn main_loop(
    connection: &Connection,
    jobs: &Sender<Job>,
    analyses: &Analyses,
    encoding: Encoding,
) -> Result<(), String> {
    let mut docs: HashMap<Url, Doc> = HashMap::new();
    for msg in &connection.receiver {
        match msg {
            Message::Request(request) => {
                if connection
                    .handle_shutdown(&request)
                    .map_err(|e| e.to_string())?
                {
                    return Ok(());
                }
                let response = answer(&request, &docs, analyses);
                connection
                    .sender
                    .send(Message::Response(response))
                    .map_err(|e| e.to_string())?;
            }
            Message::Notification(n) => {
                if n.method == note::Exit::METHOD {
                    return Err("exit before shutdown".to_string());
                }
                notified(n, &mut docs, jobs, encoding);
            }
            Message::Response(_) => {}
        }
    }
    Ok(())
}

fn lint_job(uri: &Url, doc: &Doc) -> Job {
    Job::Lint {
        uri: uri.clone(),
        version: doc.version,
        text: Arc::from(doc.text.as_str()),
    }
}

fn notified(n: Notification, docs: &mut HashMap<Url, Doc>, jobs: &Sender<Job>, encoding: Encoding) {
    match n.method.as_str() {
        note::DidOpenTextDocument::METHOD => {
            if let Ok(p) = serde_json::from_value::<lsp_types::DidOpenTextDocumentParams>(n.params)
            {
                let doc = Doc {
                    version: p.text_document.version,
                    text: p.text_document.text,
                };
                let _ = jobs.send(lint_job(&p.text_document.uri, &doc));
                docs.insert(p.text_document.uri, doc);
            }
        }
        note::DidChangeTextDocument::METHOD => {
            if let Ok(p) =
                serde_json::from_value::<lsp_types::DidChangeTextDocumentParams>(n.params)
                && let Some(doc) = docs.get_mut(&p.text_document.uri)
            {
                edits::apply(&mut doc.text, p.content_changes, encoding);
                doc.version = p.text_document.version;
                let _ = jobs.send(lint_job(&p.text_document.uri, doc));
            }
        }
        note::DidCloseTextDocument::METHOD => {
            if let Ok(p) = serde_json::from_value::<lsp_types::DidCloseTextDocumentParams>(n.params)
            {
                docs.remove(&p.text_document.uri);
                let _ = jobs.send(Job::Close(p.text_document.uri));
            }
        }
        note::DidSaveTextDocument::METHOD | note::DidChangeWatchedFiles::METHOD => {
            let _ = jobs.send(Job::Rescan);
        }
        _ => {}
    }
}

fn answer(request: &Request, docs: &HashMap<Url, Doc>, analyses: &Analyses) -> Response {
    let current = |uri: &Url| -> Option<Arc<analyze::Analysis>> {
        let doc = docs.get(uri)?;
        let map = analyses
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        map.get(uri).filter(|a| a.version == doc.version).cloned()
    };
    let id = request.id.clone();
    match request.method.as_str() {
        req::CodeActionRequest::METHOD => {
            match serde_json::from_value::<lsp_types::CodeActionParams>(request.params.clone()) {
                Ok(p) => {
                    let uri = &p.text_document.uri;
                    let actions: Vec<lsp_types::CodeActionOrCommand> = current(uri)
                        .map(|a| a.code_actions(uri, p.range))
                        .unwrap_or_default()
                        .into_iter()
                        .map(lsp_types::CodeActionOrCommand::CodeAction)
                        .collect();
                    Response::new_ok(id, actions)
                }
                Err(e) => invalid(id, &e),
            }
        }
        req::HoverRequest::METHOD => {
            match serde_json::from_value::<lsp_types::HoverParams>(request.params.clone()) {
                Ok(p) => {
                    let at = &p.text_document_position_params;
                    let hover = current(&at.text_document.uri).and_then(|a| {
                        let t = a.target_at(a.text.offset(at.position))?;
                        Some(lsp_types::Hover {
                            contents: lsp_types::HoverContents::Markup(lsp_types::MarkupContent {
                                kind: lsp_types::MarkupKind::Markdown,
                                value: t.markdown.clone(),
                            }),
                            range: Some(a.text.range(t.span)),
                        })
                    });
                    Response::new_ok(id, hover)
                }
                Err(e) => invalid(id, &e),
            }
        }
        req::GotoDefinition::METHOD => {
            match serde_json::from_value::<lsp_types::GotoDefinitionParams>(request.params.clone())
            {
                Ok(p) => {
                    let at = &p.text_document_position_params;
                    let found = current(&at.text_document.uri).and_then(|a| {
                        let t = a.target_at(a.text.offset(at.position))?;
                        (!t.definitions.is_empty()).then(|| {
                            lsp_types::GotoDefinitionResponse::Array(t.definitions.clone())
                        })
                    });
                    Response::new_ok(id, found)
                }
                Err(e) => invalid(id, &e),
            }
        }
        _ => Response::new_err(
            id,
            ErrorCode::MethodNotFound as i32,
            format!(
                "taintlint does not answer `{}`",
                crate::util::text::escape(&request.method)
            ),
        ),
    }
}

fn invalid(id: RequestId, e: &serde_json::Error) -> Response {
    Response::new_err(id, ErrorCode::InvalidParams as i32, e.to_string())
}

/// What a buffer's node declarations say, without where they say it.
fn signature(decls: &[NodeDecl]) -> String {
    let mut s = String::new();
    for d in decls {
        let taints: Vec<_> = d.taints.iter().map(|t| (&t.taint, t.startup)).collect();
        s.push_str(&format!(
            "{}|{}|{:?}|{:?}|{}|{}|{}\n",
            d.origin, d.name, d.labels, taints, d.unschedulable, d.open_labels, d.declared
        ));
    }
    s
}

/// The worker: the workspace, the open buffers' latest texts and pools, the debounce.
struct Worker {
    workspace: workspace::Workspace,
    encoding: Encoding,
    sender: Sender<Message>,
    analyses: Analyses,
    options: Options,
    /// The open buffers' latest texts.
    open: BTreeMap<Url, (i32, Arc<str>)>,
    /// The open buffers' pools from their last text that parsed, by file name.
    pools: BTreeMap<String, Vec<NodeDecl>>,
    /// Messages already shown, not shown again.
    shown: std::collections::BTreeSet<String>,
}

impl Worker {
    fn new(
        root: PathBuf,
        encoding: Encoding,
        sender: Sender<Message>,
        analyses: Analyses,
        options: Options,
    ) -> Self {
        Worker {
            workspace: workspace::Workspace::new(root),
            encoding,
            sender,
            analyses,
            options,
            open: BTreeMap::new(),
            pools: BTreeMap::new(),
            shown: std::collections::BTreeSet::new(),
        }
    }

    fn run(mut self, inbox: &Receiver<Job>) {
        // The workspace of its root, built before the first buffer needs it.
        let t = Instant::now();
        let root = self.workspace.root.clone();
        let mut problems = Vec::new();
        // A workspace the worker cannot read (a bug) must not end it: buffers are still
        // linted, each on its own.
        let declarations = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            self.workspace.scope(&root, &mut problems).declarations()
        }))
        .unwrap_or_else(|_| {
            self.workspace.clear();
            problems.push(
                "taintlint: reading the workspace crashed; this is a bug in taintlint, please report it. Open files are linted on their own"
                    .to_string(),
            );
            0
        });
        self.log(&format!(
            "taintlint: workspace read in {} ms ({declarations} node declarations)",
            t.elapsed().as_millis()
        ));
        for p in problems {
            self.show(&p);
        }
        loop {
            let Ok(first) = inbox.recv() else { return };
            let mut batch = vec![first];
            let deadline = Instant::now() + self.options.debounce;
            loop {
                match inbox.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
                    Ok(job) => batch.push(job),
                    Err(RecvTimeoutError::Timeout) => break,
                    Err(RecvTimeoutError::Disconnected) => return,
                }
            }
            let mut dirty: BTreeMap<Url, ()> = BTreeMap::new();
            for job in batch {
                match job {
                    Job::Stop => return,
                    Job::Lint { uri, version, text } => {
                        self.open.insert(uri.clone(), (version, text));
                        dirty.insert(uri, ());
                    }
                    Job::Close(uri) => {
                        self.open.remove(&uri);
                        dirty.remove(&uri);
                        let name = name_of(&uri);
                        if self.pools.remove(&name).is_some() {
                            dirty.extend(self.open.keys().map(|u| (u.clone(), ())));
                        }
                        self.analyses
                            .lock()
                            .unwrap_or_else(std::sync::PoisonError::into_inner)
                            .remove(&uri);
                        self.publish(uri, Vec::new(), None);
                    }
                    Job::Rescan => {
                        self.workspace.clear();
                        dirty.extend(self.open.keys().map(|u| (u.clone(), ())));
                    }
                }
            }
            self.lint_all(dirty.into_keys().collect());
        }
    }

    /// Lints these buffers; a buffer whose pools changed has the other open ones linted
    /// again (their pools are its unsaved text's).
    fn lint_all(&mut self, mut todo: Vec<Url>) {
        let mut done = std::collections::BTreeSet::new();
        while let Some(uri) = todo.pop() {
            if !done.insert(uri.clone()) {
                continue;
            }
            let linted = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| self.lint(&uri)));
            let changed = linted.unwrap_or_else(|_| {
                self.crashed(&uri);
                false
            });
            if changed {
                todo.extend(self.open.keys().filter(|u| !done.contains(*u)).cloned());
            }
        }
    }

    /// Lints one open buffer; `true` when its pools changed.
    fn lint(&mut self, uri: &Url) -> bool {
        let Some((version, text)) = self.open.get(uri).cloned() else {
            return false;
        };
        let name = name_of(uri);
        let dir = std::path::Path::new(&name)
            .parent()
            .map_or_else(|| self.workspace.root.clone(), std::path::Path::to_path_buf);
        let open: BTreeMap<String, Vec<NodeDecl>> = self
            .pools
            .iter()
            .filter(|(n, _)| **n != name)
            .map(|(n, d)| (n.clone(), d.clone()))
            .collect();
        let last = self.pools.get(&name).cloned();
        let encoding = self.encoding;
        let mut problems = Vec::new();
        let excluded = self.workspace.scope(&dir, &mut problems).excludes(&name);
        for p in problems.drain(..) {
            self.show(&p);
        }
        if excluded {
            self.publish(uri.clone(), Vec::new(), Some(version));
            return false;
        }
        let scope = self.workspace.scope(&dir, &mut problems);
        let linted = analyze::lint(
            uri,
            version,
            text,
            encoding,
            |own| scope.options_for(&name, &open, own),
            last.as_deref(),
        );
        for p in problems {
            self.show(&p);
        }
        let diagnostics = linted.diagnostics.clone();
        // Other buffers are linted again when what this one declares changes (not when
        // only its places move).
        let changed = match &linted.own {
            Some(own) => {
                let before = self.pools.get(&name).map(|b| signature(b));
                let after = signature(own);
                if own.is_empty() {
                    self.pools.remove(&name);
                } else {
                    self.pools.insert(name.clone(), own.clone());
                }
                before.unwrap_or_default() != after
            }
            None => false,
        };
        // Quick fixes are ready with the diagnostics; hovers right after.
        self.analyses
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .insert(uri.clone(), Arc::clone(&linted.analysis));
        self.publish(uri.clone(), diagnostics, Some(version));
        linted.finish(uri);
        changed
    }

    /// A bug: the buffer gets one `internal-error` diagnostic instead of its findings, as a
    /// file the CLI crashes on does.
    fn crashed(&self, uri: &Url) {
        let version = self.open.get(uri).map(|(v, _)| *v);
        let rule = crate::rules::INTERNAL_ERROR.name;
        let diagnostic = lsp_types::Diagnostic {
            severity: Some(lsp_types::DiagnosticSeverity::ERROR),
            code: Some(lsp_types::NumberOrString::String(rule.to_string())),
            source: Some("taintlint".to_string()),
            message: "taintlint crashed while checking this file; this is a bug in taintlint, please report it with the file attached".to_string(),
            ..Default::default()
        };
        self.publish(uri.clone(), vec![diagnostic], version);
    }

    fn publish(&self, uri: Url, diagnostics: Vec<lsp_types::Diagnostic>, version: Option<i32>) {
        let params = lsp_types::PublishDiagnosticsParams {
            uri,
            diagnostics,
            version,
        };
        let _ = self.sender.send(Message::Notification(Notification::new(
            note::PublishDiagnostics::METHOD.to_string(),
            params,
        )));
    }

    /// A message in the client's log (input text in it escaped).
    fn log(&self, text: &str) {
        self.message(note::LogMessage::METHOD, text);
    }

    /// A message shown to the user, once.
    fn show(&mut self, text: &str) {
        if self.shown.insert(text.to_string()) {
            self.message(note::ShowMessage::METHOD, text);
        }
    }

    fn message(&self, method: &str, text: &str) {
        let params = lsp_types::LogMessageParams {
            typ: lsp_types::MessageType::WARNING,
            message: crate::util::text::escape(text).into_owned(),
        };
        let _ = self.sender.send(Message::Notification(Notification::new(
            method.to_string(),
            params,
        )));
    }
}
