// The extension's decisions, without VS Code: `vscode` and `vscode-languageclient/node` are
// stand-ins that record what the extension asks for. Run with `npm test` (`node --test
// test/extension.test.js`); tests/server.rs runs it too. Needs no node_modules.
"use strict";

const assert = require("node:assert");
const Module = require("node:module");
const path = require("node:path");
const test = require("node:test");

const EXTENSION = path.join(__dirname, "..", "extension.js");

/// A glob of the extension's (`**/x`, `x/**`, `*`, `{a,b}`) as a regex over `/`-separated paths.
function globRegex(glob) {
  let re = "";
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i];
    if (glob.startsWith("**/", i)) {
      re += "(?:.*/)?";
      i += 2;
    } else if (glob.startsWith("**", i)) {
      re += ".*";
      i += 1;
    } else if (c === "*") {
      re += "[^/]*";
    } else if (c === "{") {
      const end = glob.indexOf("}", i);
      re += "(?:" + glob.slice(i + 1, end).split(",").map((s) => s.replace(/[.]/g, "\\.").replace(/\*/g, "[^/]*")).join("|") + ")";
      i = end;
    } else {
      re += c.replace(/[.+?^$()|[\]\\]/g, "\\$&");
    }
  }
  return new RegExp("^" + re + "$");
}

/// A workspace: `files` (path -> text) on disk, `open` documents ([path, languageId]), the
/// user's and the workspace's `taintlint.*` settings, whether it is trusted.
function workspace({ files = {}, open = [], user = {}, folder = {}, trusted = true }) {
  const seen = { clients: [], warnings: [], listeners: {} };
  const docs = open.map(([p, languageId]) => ({
    uri: { scheme: "file", path: p },
    languageId,
    getText: () => files[p] || "",
  }));
  const defaults = { path: "", debounceMs: 150, json: "auto", terraform: "auto" };
  const on = (name) => (f) => {
    (seen.listeners[name] = seen.listeners[name] || []).push(f);
    return { dispose() {} };
  };
  const vscode = {
    workspace: {
      isTrusted: trusted,
      textDocuments: docs,
      getConfiguration: (section) => {
        assert.strictEqual(section, "taintlint");
        return {
          // What VS Code gives for a `machine` setting is not relied on: `get` here returns
          // the workspace's value first, as it does for ordinary settings.
          get: (key, dflt) => (key in folder ? folder[key] : key in user ? user[key] : dflt),
          inspect: (key) => ({
            key: "taintlint." + key,
            defaultValue: defaults[key],
            globalValue: user[key],
            workspaceValue: folder[key],
          }),
        };
      },
      findFiles: async (include, exclude, max) => {
        const inc = globRegex(include);
        const exc = globRegex(exclude);
        return Object.keys(files)
          .filter((p) => inc.test(p) && !exc.test(p))
          .slice(0, max)
          .map((p) => ({ scheme: "file", path: p }));
      },
      fs: { readFile: async (uri) => Buffer.from(files[uri.path], "utf8") },
      createFileSystemWatcher: () => ({ dispose() {} }),
      onDidOpenTextDocument: on("open"),
      onDidChangeConfiguration: on("config"),
    },
    window: { showWarningMessage: (m) => seen.warnings.push(m) },
    commands: { registerCommand: (name, f) => on("command:" + name)(f) },
  };
  class LanguageClient {
    constructor(id, name, serverOptions, clientOptions) {
      this.serverOptions = serverOptions;
      this.languages = clientOptions.documentSelector.map((s) => s.language);
      this.running = false;
      seen.clients.push(this);
    }
    async start() {
      this.running = true;
    }
    async stop() {
      this.running = false;
    }
  }
  return { vscode, languageclient: { LanguageClient }, seen, docs };
}

/// Loads a fresh copy of the extension against `ws` and activates it.
async function activate(ws) {
  const load = Module._load;
  Module._load = function (request, parent, isMain) {
    if (request === "vscode") return ws.vscode;
    if (request === "vscode-languageclient/node") return ws.languageclient;
    return load.call(this, request, parent, isMain);
  };
  try {
    delete require.cache[require.resolve(EXTENSION)];
    const ext = require(EXTENSION);
    await ext.activate({ subscriptions: [] });
    return ext;
  } finally {
    Module._load = load;
  }
}

/// Opens `p` (a `languageId` document) as VS Code would: into textDocuments, then the event.
async function openDocument(ws, p, languageId, text) {
  const doc = { uri: { scheme: "file", path: p }, languageId, getText: () => text || "" };
  ws.docs.push(doc);
  for (const f of ws.seen.listeners.open || []) {
    await f(doc);
  }
}

const POD_YAML = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n";
const POD_JSON = '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"}}';
const PACKAGE_JSON = '{"name": "app", "version": "1.0.0", "dependencies": {}}';

test("the executable comes from the user's settings only, never the workspace's", async () => {
  // A repository's .vscode/settings.json names a program of its own.
  let ws = workspace({ open: [["/w/a.yaml", "yaml"]], folder: { path: "/w/evil.sh" } });
  await activate(ws);
  assert.strictEqual(ws.seen.clients.length, 1);
  assert.strictEqual(ws.seen.clients[0].serverOptions.command, "taintlint");
  assert.deepStrictEqual(ws.seen.clients[0].serverOptions.args, ["server", "--debounce-ms", "150"]);
  assert.strictEqual(ws.seen.warnings.length, 1);
  assert.match(ws.seen.warnings[0], /taintlint\.path.*ignored/);

  // The user's own setting wins, trusted workspace or not.
  for (const trusted of [true, false]) {
    ws = workspace({
      open: [["/w/a.yaml", "yaml"]],
      user: { path: "/opt/taintlint/bin/taintlint" },
      folder: { path: "/w/evil.sh" },
      trusted,
    });
    await activate(ws);
    assert.strictEqual(ws.seen.clients[0].serverOptions.command, "/opt/taintlint/bin/taintlint");
  }
});

test("YAML and Helm start the server; JSON and Terraform only where there are manifests", async () => {
  // A JSON file in a workspace without manifests: the extension wakes, no server starts.
  let ws = workspace({
    files: { "/w/package.json": PACKAGE_JSON, "/w/tsconfig.json": "{}" },
    open: [["/w/package.json", "json"]],
  });
  await activate(ws);
  assert.strictEqual(ws.seen.clients.length, 0);
  // A YAML file opened later starts it, for YAML and Helm only.
  await openDocument(ws, "/w/ci.yaml", "yaml", "on: push\n");
  assert.strictEqual(ws.seen.clients.length, 1);
  assert.deepStrictEqual(ws.seen.clients[0].languages, ["yaml", "helm"]);

  // Kubernetes JSON (minified too) among the files: JSON and Terraform are linted.
  ws = workspace({
    files: { "/w/package.json": PACKAGE_JSON, "/w/k8s/pod.json": POD_JSON },
    open: [["/w/package.json", "json"]],
  });
  await activate(ws);
  assert.strictEqual(ws.seen.clients.length, 1);
  assert.deepStrictEqual(ws.seen.clients[0].languages, ["yaml", "helm", "json", "terraform"]);

  // YAML manifests, or a taintlint config, count as well; node_modules does not.
  for (const files of [{ "/w/deploy/pod.yaml": POD_YAML }, { "/w/.taintlint.yaml": "rules: {}\n" }]) {
    ws = workspace({ files: { ...files, "/w/main.tf": "" }, open: [["/w/main.tf", "terraform"]] });
    await activate(ws);
    assert.deepStrictEqual(ws.seen.clients[0].languages, ["yaml", "helm", "json", "terraform"]);
  }
  ws = workspace({
    files: { "/w/node_modules/x/pod.json": POD_JSON, "/w/a.json": "{}" },
    open: [["/w/a.json", "json"]],
  });
  await activate(ws);
  assert.strictEqual(ws.seen.clients.length, 0);
});

test("taintlint.json and taintlint.terraform override the guess", async () => {
  let ws = workspace({
    files: { "/w/a.json": "{}" },
    open: [["/w/a.json", "json"]],
    user: { json: "on" },
  });
  await activate(ws);
  assert.deepStrictEqual(ws.seen.clients[0].languages, ["yaml", "helm", "json"]);

  ws = workspace({
    files: { "/w/k8s/pod.json": POD_JSON },
    open: [["/w/k8s/pod.json", "json"]],
    folder: { json: "off", terraform: "off" },
  });
  await activate(ws);
  assert.strictEqual(ws.seen.clients.length, 0);
});

test("a manifest is recognised in YAML and in JSON, not in other files", async () => {
  const { looksLikeManifest } = await activate(workspace({}));
  assert.ok(looksLikeManifest(POD_YAML));
  assert.ok(looksLikeManifest(POD_JSON));
  assert.ok(looksLikeManifest('{\n  "kind": "List",\n  "apiVersion": "v1",\n  "items": []\n}'));
  assert.ok(!looksLikeManifest(PACKAGE_JSON));
  assert.ok(!looksLikeManifest("name: CI\non: push\njobs: {}\n"));
  assert.ok(!looksLikeManifest('{"kind": "x"}'));
});
