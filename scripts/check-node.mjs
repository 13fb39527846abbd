// Preflight of `npm test` and `npm run demo`: on a Node older than 22 (the project's engines),
// one line saying what is needed and how to get it, instead of a failure deep inside Vitest
// (`Map.groupBy is not a function`). Plain JavaScript that every Node version parses.
const major = Number(process.versions.node.split('.')[0]);
if (major < 22) {
  process.stderr.write(
    `chatfold: Node.js >= 22 is required, this is ${process.version} (${process.execPath}); get Node 24 with \`npm install --prefix ~/.node24 node@24\` and put ~/.node24/node_modules/.bin first on PATH (see DEVELOPERS.md) [E_NODE_VERSION]\n`,
  );
  process.exit(1);
}
