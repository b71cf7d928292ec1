import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: { conditions: ['source'] },
  ssr: { resolve: { conditions: ['source'] } },
  test: {
    include: ['packages/*/src/**/*.test.ts', 'packages/tests/**/*.test.ts', 'scripts/**/*.test.ts'],
    testTimeout: 30_000,
    // Every temporary directory of the run lives under one that the run removes at its end.
    globalSetup: ['scripts/testing/temp-root.ts'],
    // Every property test draws from one fixed seed (PROPERTY_SEED overrides; `pnpm
    // test:properties` tries new ones), so a run never fails on a draw.
    setupFiles: ['scripts/testing/seed-properties.ts'],
    // Three test files at a time on the 2-core machines this runs on: most files spend their time
    // waiting on the processes they start (kernels, agents, browsers), not on the CPU, and with two
    // the cores sat idle a third of a CI run (19.5 min user + 3.5 min system in 16.5 min). With
    // three, a full run on a machine loaded to 5-14 by other work passed whole in the time two took
    // on a quiet one. AIRLOCK_TEST_WORKERS=1 runs one file at a time.
    maxWorkers: Number(process.env.AIRLOCK_TEST_WORKERS ?? 3),
    // Test files of one worker share its module graph instead of loading the kernel, the SDK and
    // the MCP and AI SDKs again for each of 237 files (import time 288 s -> 79 s of worker time).
    // No test mocks modules or stubs globals; each starts its own kernels, stores and ports.
    // AIRLOCK_TEST_ISOLATE=1 gives every file a fresh module graph again.
    isolate: process.env.AIRLOCK_TEST_ISOLATE === '1',
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
