import { processIo, runCli } from '@airlock/rules-lint';

// The language server the extension starts: `rules-lint lsp --stdio [--tools FILE]`, bundled with it.
runCli(process.argv.slice(2), processIo()).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(
      `rules-lint: internal error: ${error instanceof Error ? error.message : String(error)}\n`,
    );
    process.exitCode = 2;
  },
);
