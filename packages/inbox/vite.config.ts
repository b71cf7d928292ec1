import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { defaultClientConditions, defineConfig } from 'vite';

const root = import.meta.dirname;

// dist/ also holds the Node helper compiled by tsc (dist/lib), so only the page's own stale
// assets are cleared, after a build. The SDK is bundled from its TypeScript source (the `source` condition).
export default defineConfig({
  root,
  base: './',
  resolve: { conditions: ['source', ...defaultClientConditions] },
  build: { outDir: 'dist', emptyOutDir: false, target: 'es2022', sourcemap: true },
  // `pnpm --filter @airlock/inbox dev` serves the page and passes API calls and the feed's
  // WebSocket to a kernel (AIRLOCK_URL, default the local one), so the page stays same-origin.
  server: {
    proxy: Object.fromEntries(
      ['/trpc', '/api', '/openapi.json'].map((path) => [
        path,
        { target: process.env.AIRLOCK_URL ?? 'http://127.0.0.1:4820', ws: true },
      ]),
    ),
  },
  plugins: [
    {
      name: 'airlock-inbox-clean',
      apply: 'build',
      // The last build's assets go once this one's are written, not before: a kernel serving
      // dist/ meanwhile always has a page and the assets it names.
      writeBundle(_options, bundle) {
        const written = new Set(Object.keys(bundle).flatMap((name) => [name, `${name}.map`]));
        const assets = join(root, 'dist', 'assets');
        for (const name of readdirSync(assets)) {
          if (!written.has(`assets/${name}`)) rmSync(join(assets, name), { force: true });
        }
      },
    },
  ],
});
