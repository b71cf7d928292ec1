import { COMMANDS } from '../commands/registry.js';
import { TOOL_VERSION } from '../reporters/sarif.js';
import { type CliIo, EXIT, UsageError } from './cli-io.js';

const NAMES = COMMANDS.map((command) => command.name);

/** `rules-lint --help`. */
export const USAGE = `rules-lint: lint Airlock approval rule files

Usage:
${COMMANDS.flatMap((command) =>
  command.usage.map((line) => (line.startsWith(' ') ? `        ${line}` : `  rules-lint ${line}`)),
).join('\n')}

Exit codes: 0 clean, 1 errors found (or an example failed), 2 bad usage or an unreadable file.
`;

/**
 * Runs one command line (without `node` and the script) and returns the exit
 * code. Never throws and never prints a stack trace: usage mistakes and
 * unreadable input are one line on stderr with exit 2.
 */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  const [name, ...args] = argv;
  try {
    if (name === '--help' || name === '-h' || name === 'help') {
      io.stdout(USAGE);
      return EXIT.clean;
    }
    if (name === '--version') {
      io.stdout(`${TOOL_VERSION}\n`);
      return EXIT.clean;
    }
    if (name === undefined)
      throw new UsageError(`missing command: ${NAMES.join(', ')} (see rules-lint --help)`);
    const command = COMMANDS.find((candidate) => candidate.name === name);
    if (!command)
      throw new UsageError(
        `unknown command "${name}": use ${NAMES.join(', ')} (see rules-lint --help)`,
      );
    return await command.run(args, io);
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
