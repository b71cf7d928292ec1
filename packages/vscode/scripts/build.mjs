// Builds the extension into dist/: the client (CommonJS, as VS Code loads it), the
// bundled rules-lint server and the JSON Schema of rule files.
import { mkdirSync, writeFileSync } from 'node:fs';
import { ruleFileSchema } from '@airlock/rules-lint';
import { build } from 'esbuild';

const root = new URL('../', import.meta.url);
const path = (relative) => new URL(relative, root).pathname;
mkdirSync(path('dist/server'), { recursive: true });

await build({
  entryPoints: [path('src/extension.ts')],
  outfile: path('dist/extension.cjs'),
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node18',
  external: ['vscode'],
  logLevel: 'warning',
});

// The server, and the analysis thread it loads from `lint-worker.js` beside itself (without
// that file it analyses on its own thread and hover waits for a slow file), as ES modules.
const serverModule = {
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node18',
  conditions: ['source'],
  // jsonc-parser's `main` is a UMD build whose dynamic require()s esbuild cannot follow.
  mainFields: ['module', 'main'],
  // Bundled CommonJS dependencies call require(); give the ES module one.
  banner: {
    js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);",
  },
  logLevel: 'warning',
};
// The server reads its docs links from `../../package.json` beside itself: two folders
// down from the extension's root, that is the extension's own manifest (which declares
// the same repository as @airlock/rules-lint).
await build({
  ...serverModule,
  entryPoints: [path('src/server.ts')],
  outfile: path('dist/server/server.mjs'),
});
await build({
  ...serverModule,
  entryPoints: [path('../rules-lint/src/lsp/lint-worker.ts')],
  outfile: path('dist/server/lint-worker.js'),
});

writeFileSync(path('dist/rule-file.schema.json'), `${JSON.stringify(ruleFileSchema(), null, 2)}\n`);
console.log(
  'built dist/extension.cjs, dist/server/server.mjs, dist/server/lint-worker.js, dist/rule-file.schema.json',
);
