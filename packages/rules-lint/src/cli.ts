#!/usr/bin/env node
import { processExitCode, processIo } from './cli/cli-io.js';
import { runCli } from './cli/run-cli.js';

// The last guard: whatever escapes is one line on stderr and exit 2, never a stack trace.
runCli(process.argv.slice(2), processIo()).then(
  (code) => {
    process.exitCode = processExitCode(code);
  },
  (error: unknown) => {
    process.stderr.write(
      `rules-lint: internal error: ${error instanceof Error ? error.message : String(error)}\n`,
    );
    process.exitCode = 2;
  },
);
