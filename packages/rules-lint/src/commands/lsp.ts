import { parseCommand } from '../cli/arguments.js';
import { type CliIo, EXIT, UsageError } from '../cli/cli-io.js';
import { loadToolCatalog } from '../cli/load.js';
import { startLanguageServer } from '../lsp/server.js';

/**
 * `rules-lint lsp [--stdio] [--tools CATALOG.json] [--clientProcessId PID]`:
 * a language server on stdin/stdout until the client says exit. `--stdio` is
 * accepted because editors pass it, and `--clientProcessId` because
 * vscode-languageclient appends it to every server it starts (the library
 * then ends the server when that process is gone). Ends the process when the
 * server stops. Throws UsageError.
 */
export async function lspCommand(args: readonly string[], io: CliIo): Promise<number> {
  const { values } = parseCommand(
    'lsp',
    args,
    {
      stdio: { type: 'boolean' },
      tools: { type: 'string' },
      clientProcessId: { type: 'string' },
    },
    { min: 0, max: 0, name: '' },
  );
  const clientProcessId = values.clientProcessId as string | undefined;
  if (clientProcessId !== undefined && !/^\d+$/.test(clientProcessId))
    throw new UsageError(`--clientProcessId must be a process id, not "${clientProcessId}"`);
  const tools = await loadToolCatalog(values.tools as string | undefined, io.cwd);
  // The language server library throws from its own callbacks once the client has gone:
  // one line on stderr and exit 1, never a stack trace.
  process.on('uncaughtException', (error) => {
    io.stderr(
      `rules-lint lsp: stopping: ${error instanceof Error ? error.message : String(error)}\n`,
    );
    process.exit(EXIT.findings);
  });
  const code = await startLanguageServer({
    input: process.stdin,
    output: process.stdout,
    log: (line) => io.stderr(line),
    ...(tools ? { tools } : {}),
  });
  // The library's parent-process watch keeps the event loop alive: end the process once output is flushed.
  if (process.stdout.writable)
    await new Promise<void>((resolve) => process.stdout.write('', () => resolve()));
  process.exit(code === 0 ? EXIT.clean : EXIT.findings);
}
