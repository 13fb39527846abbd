#!/usr/bin/env node
// The `chatfold` bin. The Node check comes first and in syntax every Node parses: the program's
// modules load only after it (a static import would load them first), and they need Node 22.
const nodeMajor = Number(process.versions.node.split('.')[0]);
if (nodeMajor < 22) {
  process.stderr.write(
    `chatfold: Node.js >= 22 is required, this is ${process.version} (${process.execPath}); get Node 24 with \`npm install --prefix ~/.node24 node@24\` and put ~/.node24/node_modules/.bin first on PATH [E_NODE_VERSION]\n`,
  );
  process.exit(1);
}
// Node's on-disk compile cache (in the system temp folder): a short command such as `chatfold
// count` spends most of its start-up parsing the program's modules (TOK-8, bench/tokens.ts).
(await import('node:module')).enableCompileCache?.();
const { runCli } = await import('./run-cli.ts');
process.exitCode = await runCli(process.argv);
