import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { defaultClientConditions, defineConfig } from 'vite';

const root = import.meta.dirname;

// dist/ also holds the Node helper compiled by tsc (dist/lib), so only the page's own files are
// cleared before a build. The SDK is bundled from its TypeScript source (the `source` condition).
export default defineConfig({
  root,
  base: './',
  resolve: { conditions: ['source', ...defaultClientConditions] },
  build: { outDir: 'dist', emptyOutDir: false, target: 'es2022', sourcemap: true },
  plugins: [
    {
      name: 'airlock-inbox-clean',
      apply: 'build',
      buildStart() {
        rmSync(join(root, 'dist', 'assets'), { recursive: true, force: true });
        rmSync(join(root, 'dist', 'index.html'), { force: true });
      },
    },
  ],
});
