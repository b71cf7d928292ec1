import { checkCommand } from '../commands/check.js';
import { classifyCommand } from '../commands/classify.js';
import { evalCommand } from '../commands/eval.js';
import { schemaCommand } from '../commands/schema.js';
import { testCommand } from '../commands/test.js';
import { TOOL_VERSION } from '../reporters/sarif.js';
import { type CliIo, EXIT, UsageError } from './cli-io.js';

/** `rules-lint --help`. */
export const USAGE = `rules-lint: lint Airlock approval rule files

Usage:
  rules-lint check FILE|FOLDER|GLOB|-... [--format pretty|json|sarif|github|junit|checkstyle]
      [--config FILE] [--tools CATALOG.json] [--mode bypass|ask|rules] [--quiet] [--output FILE]
      [--max-warnings N] [--error-on-warnings] [--stdin-filename NAME]
  rules-lint eval --rules FILE --mode bypass|ask|rules [--origin model|author|kernel] --tool NAME [--input JSON]
  rules-lint test FILE... [--format F] [--allow-empty] [--output FILE] [--stdin-filename NAME]
  rules-lint schema
  rules-lint classify 'COMMAND' [--format pretty|json]
  rules-lint lsp [--stdio] [--tools CATALOG.json]

Exit codes: 0 clean, 1 errors found (or an example failed), 2 bad usage or an unreadable file.
`;

/**
 * Runs one command line (without `node` and the script) and returns the exit
 * code. Never throws and never prints a stack trace: usage mistakes and
 * unreadable input are one line on stderr with exit 2.
 */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  const [command, ...args] = argv;
  try {
    switch (command) {
      case 'check':
        return await checkCommand(args, io);
      case 'eval':
        return await evalCommand(args, io);
      case 'test':
        return await testCommand(args, io);
      case 'schema':
        return schemaCommand(args, io);
      case 'classify':
        return classifyCommand(args, io);
      case 'lsp': {
        // Loaded on demand: the language server library is most of start-up for the other commands.
        const { lspCommand } = await import('../commands/lsp.js');
        return await lspCommand(args, io);
      }
      case '--help':
      case '-h':
      case 'help':
        io.stdout(USAGE);
        return EXIT.clean;
      case '--version':
        io.stdout(`${TOOL_VERSION}\n`);
        return EXIT.clean;
      case undefined:
        throw new UsageError(
          'missing command: check, eval, test, schema or lsp (see rules-lint --help)',
        );
      default:
        throw new UsageError(
          `unknown command "${command}": use check, eval, test, schema or lsp (see rules-lint --help)`,
        );
    }
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr(`rules-lint: ${error.message}\n`);
      return EXIT.usage;
    }
    const message = error instanceof Error ? error.message : String(error);
    io.stderr(`rules-lint: internal error: ${message.split('\n')[0]}\n`);
    return EXIT.usage;
  }
}
