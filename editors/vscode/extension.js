// The taintlint extension: a language client only. It starts `taintlint server` (from PATH,
// or the `taintlint.path` user setting) over standard input and output; everything else
// (diagnostics, quick fixes, hovers, definitions) is the server's.
//
// When: for YAML and Helm files; for JSON and Terraform files only in a workspace that has
// Kubernetes manifests (a `.taintlint.yaml`, or a YAML or JSON file with `apiVersion` and
// `kind`), unless `taintlint.json` / `taintlint.terraform` say `on` or `off`. The server is
// started once a file it lints is open, not before.
//
// Which executable: only the user's own settings (or a remote machine's) choose it. A
// repository's `.vscode/settings.json` is the repository author's, and may be a stranger's:
// `taintlint.path` has `"scope": "machine"` (VS Code reads it from user and remote settings
// only) and is a restricted configuration in untrusted workspaces, and this file reads the
// user's value alone (`inspect().globalValue`) whatever VS Code's version does with scopes.
"use strict";

const vscode = require("vscode");
const { LanguageClient } = require("vscode-languageclient/node");

/// Folders never searched for manifests.
const EXCLUDE = "**/{node_modules,.git,target,vendor,dist,build,.venv,__pycache__}/**";
/// How many YAML and JSON files are looked into, and how much of each.
const LOOK_AT_FILES = 200;
const LOOK_AT_BYTES = 64 * 1024;

let client;
let starting;
let manifests;
let warned = false;

/// Whether `text` looks like a Kubernetes manifest: an `apiVersion` and a `kind` key, as YAML
/// (`kind: Pod`) or JSON (`"kind": "Pod"`, minified too).
function looksLikeManifest(text) {
  const key = (name) => new RegExp(`(^|[\\s{,])"?${name}"?\\s*:`, "m");
  return key("apiVersion").test(text) && key("kind").test(text);
}

/// Whether the workspace has Kubernetes manifests: a taintlint config, or an open or saved
/// YAML or JSON file that looks like one (the first LOOK_AT_FILES found, LOOK_AT_BYTES each).
/// Worked out once per session (the restart command works it out again).
async function workspaceHasManifests() {
  if (manifests !== undefined) {
    return manifests;
  }
  manifests = false;
  const configs = await vscode.workspace.findFiles("**/{.taintlint.yaml,taintlint.yaml}", EXCLUDE, 1);
  if (configs.length > 0) {
    return (manifests = true);
  }
  for (const doc of vscode.workspace.textDocuments) {
    if (["yaml", "helm", "json"].includes(doc.languageId) && looksLikeManifest(doc.getText().slice(0, LOOK_AT_BYTES))) {
      return (manifests = true);
    }
  }
  const files = await vscode.workspace.findFiles("**/*.{yaml,yml,json}", EXCLUDE, LOOK_AT_FILES);
  for (const uri of files) {
    try {
      const bytes = await vscode.workspace.fs.readFile(uri);
      const text = Buffer.from(bytes.subarray(0, LOOK_AT_BYTES)).toString("utf8");
      if (looksLikeManifest(text)) {
        return (manifests = true);
      }
    } catch (_) {
      // Unreadable: not a manifest.
    }
  }
  return manifests;
}

/// The languages the server gets: YAML and Helm always; JSON and Terraform as configured
/// (`auto`: where the workspace has manifests).
async function languages() {
  const config = vscode.workspace.getConfiguration("taintlint");
  const out = ["yaml", "helm"];
  for (const language of ["json", "terraform"]) {
    const mode = config.get(language, "auto");
    if (mode === "on" || (mode === "auto" && (await workspaceHasManifests()))) {
      out.push(language);
    }
  }
  return out;
}

/// The executable: the user's (or the remote machine's) `taintlint.path`, else `taintlint`
/// from PATH. A value in the workspace's settings is never used; the user is told once.
function executable() {
  const inspected = vscode.workspace.getConfiguration("taintlint").inspect("path") || {};
  const ignored = [inspected.workspaceValue, inspected.workspaceFolderValue].filter((v) => v);
  if (ignored.length > 0 && !warned) {
    warned = true;
    vscode.window.showWarningMessage(
      "taintlint: the `taintlint.path` of this workspace's settings is ignored (a repository does not choose the program VS Code runs); set it in your user settings."
    );
  }
  const path = typeof inspected.globalValue === "string" ? inspected.globalValue.trim() : "";
  return path || "taintlint";
}

function serverOptions() {
  const config = vscode.workspace.getConfiguration("taintlint");
  const debounce = Number(config.get("debounceMs", 150));
  return {
    command: executable(),
    args: ["server", "--debounce-ms", String(Number.isFinite(debounce) && debounce >= 0 ? Math.round(debounce) : 150)],
  };
}

function clientOptions(langs) {
  return {
    documentSelector: langs.map((language) => ({ scheme: "file", language })),
    synchronize: {
      fileEvents: vscode.workspace.createFileSystemWatcher("**/{*.yaml,*.yml,*.json,*.tf,.taintlint.yaml,taintlint.yaml}"),
    },
  };
}

/// Starts the server when a file it lints is open (and it is not running yet).
async function maybeStart() {
  if (client || starting) {
    return starting;
  }
  starting = (async () => {
    const langs = await languages();
    const open = vscode.workspace.textDocuments.some(
      (doc) => doc.uri.scheme === "file" && langs.includes(doc.languageId)
    );
    if (!open) {
      return;
    }
    client = new LanguageClient("taintlint", "taintlint", serverOptions(), clientOptions(langs));
    await client.start();
  })();
  try {
    await starting;
  } finally {
    starting = undefined;
  }
}

async function stop() {
  if (starting) {
    await starting.catch(() => {});
  }
  const running = client;
  client = undefined;
  if (running) {
    await running.stop();
  }
}

async function restart() {
  await stop();
  manifests = undefined;
  await maybeStart();
}

async function activate(context) {
  context.subscriptions.push(
    vscode.commands.registerCommand("taintlint.restart", restart),
    vscode.workspace.onDidOpenTextDocument(() => maybeStart()),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration("taintlint")) {
        return restart();
      }
    })
  );
  await maybeStart();
}

async function deactivate() {
  await stop();
}

module.exports = { activate, deactivate, looksLikeManifest };
