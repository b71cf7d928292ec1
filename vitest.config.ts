import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: { conditions: ['source'] },
  ssr: { resolve: { conditions: ['source'] } },
  test: {
    include: ['packages/*/src/**/*.test.ts', 'packages/tests/**/*.test.ts', 'scripts/**/*.test.ts'],
    testTimeout: 30_000,
    // Two test files at a time on the 2-core machines this runs on: most files spend their time
    // waiting on the processes they start (kernels, agents, browsers), not on the CPU.
    // AIRLOCK_TEST_WORKERS=1 runs one file at a time.
    maxWorkers: Number(process.env.AIRLOCK_TEST_WORKERS ?? 2),
    hookTimeout: 60_000,
    // eventsource-parser (under the MCP SDK and the AI SDK) also exports a `source` condition,
    // pointing at .ts files: vite transforms them instead of handing Node a .ts file it cannot load.
    server: {
      deps: {
        inline: [
          /@modelcontextprotocol\/sdk/,
          /eventsource-parser/,
          /@ai-sdk\//,
          /\/node_modules\/ai\//,
        ],
      },
    },
  },
});
