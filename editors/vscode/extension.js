// The taintlint extension: a language client only. It starts `taintlint server` (from
// PATH, or the `taintlint.path` setting) over standard input and output; everything else
// (diagnostics, quick fixes, hovers, definitions) is the server's.
"use strict";

const vscode = require("vscode");
const { LanguageClient } = require("vscode-languageclient/node");

let client;

function serverOptions() {
  const config = vscode.workspace.getConfiguration("taintlint");
  const command = config.get("path") || "taintlint";
  const debounce = config.get("debounceMs", 150);
  return {
    command,
    args: ["server", "--debounce-ms", String(debounce)],
  };
}

function clientOptions() {
  return {
    // Manifests, Helm templates, Terraform: the files `taintlint check` reads.
    documentSelector: [
      { scheme: "file", language: "yaml" },
      { scheme: "file", language: "helm" },
      { scheme: "file", language: "json" },
      { scheme: "file", language: "terraform" },
    ],
    synchronize: {
      fileEvents: vscode.workspace.createFileSystemWatcher(
        "**/{*.yaml,*.yml,*.json,*.tf,.taintlint.yaml}"
      ),
    },
  };
}

async function start() {
  client = new LanguageClient("taintlint", "taintlint", serverOptions(), clientOptions());
  await client.start();
}

async function activate(context) {
  context.subscriptions.push(
    vscode.commands.registerCommand("taintlint.restart", async () => {
      if (client) {
        await client.stop();
      }
      await start();
    })
  );
  await start();
}

async function deactivate() {
  if (client) {
    await client.stop();
  }
}

module.exports = { activate, deactivate };
