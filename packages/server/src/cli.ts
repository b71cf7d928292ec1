#!/usr/bin/env node

import { readFileSync, writeSync } from 'node:fs';
import { COMMANDS } from './cli/commands.js';

const HELP = `Usage: airlock <command> [options]

Commands:
  serve          Start the approval kernel (airlock serve --help)
  decisions      List, approve, deny and answer decisions on a running kernel
  approvals      Show and set the workspace's approval policy (quorum, approvers, self-approval)
  runs           List, show and stop runs on a running kernel
  overlays       Read, replace, trust and load permission overlays on a running kernel
  tokens         Create, list and revoke credentials through a running kernel
  apps           Create, list and remove agent applications through a running kernel
  notifications  List the notification outbox and redeliver a notice (airlock notifications --help)
  audit          Export the decisions of a running kernel as JSON lines (airlock audit --help)
  retention      Read or set how long a running kernel keeps events, ended runs and audit records
  token          Create, revoke or list credentials straight in a local store
  backup         Copy the SQLite store to a file while the kernel serves (airlock backup --help)
  restore        Put a backup in place, the kernel stopped (airlock restore --help)
  fence          Hold the calls a restored store may have run since its backup (airlock fence --help)
  executor mcp   Serve MCP servers' tools as an executor (needs @airlock/mcp)
  gateway mcp    Serve MCP clients; every call crosses the approval stage (needs @airlock/mcp)
  hooks          Put Airlock in front of Claude Code, Codex, Gemini CLI: install, uninstall, doctor (needs @airlock/hooks)

Options:
  -h, --help     Show this help (each command has its own: airlock <command> --help, or airlock help <command>)
  --version      Print the version of @airlock/server this command belongs to
`;

/**
 * Words other tools have for what another command does here, and where to go instead: said
 * beside `unknown command`, so a new user's first guess leads somewhere.
 */
const OTHER_WORDS: Record<string, string> = {
  doctor: "airlock hooks doctor checks the coding agents' hooks",
  init: 'airlock serve makes the store, a workspace and its tokens on its first start',
  start: 'airlock serve starts the kernel',
  version: 'airlock --version prints it',
};

/** The version in this package's package.json (beside dist/ and src/ alike). */
function packageVersion(): string {
  const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
  return String(manifest.version);
}

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  // Own keys only: `toString` and the like are unknown commands, not Object's methods.
  if (command !== undefined && Object.hasOwn(COMMANDS, command)) {
    return (await COMMANDS[command]!())(rest);
  }
  if (command === 'executor' || command === 'gateway') {
    if (rest[0] === 'mcp') {
      const { mcp } = await import('./cli/mcp.js');
      return mcp(command, rest.slice(1));
    }
    // A command of two words: `airlock executor` alone is not an unknown command, it lacks its second.
    const line = `airlock ${command}: it takes mcp: airlock ${command} mcp [options] (airlock ${command} mcp --help)\n`;
    const asked = rest[0] === '--help' || rest[0] === '-h';
    (asked ? process.stdout : process.stderr).write(line);
    return asked ? 0 : 2;
  }
  // `airlock help [command]`, as git and npm take it: the help, or the command's.
  if (command === 'help') return main(rest.length > 0 ? [...rest, '--help'] : ['--help']);
  if (command === undefined || command === '--help' || command === '-h') {
    process.stdout.write(HELP);
    return 0;
  }
  if (command === '--version') {
    process.stdout.write(`${packageVersion()}\n`);
    return 0;
  }
  // Loaded only here: cli.ts itself reaches no package before it knows the command.
  const { unknownCommandLine } = await import('./cli/unknown-command.js');
  const instead = Object.hasOwn(OTHER_WORDS, command) ? ` (${OTHER_WORDS[command]})` : '';
  process.stderr.write(`airlock: ${unknownCommandLine(command)}${instead}\n\n${HELP}`);
  return 2;
}

/**
 * Ends the process once what it printed has left: writes to a pipe are
 * asynchronous, so exiting at once cut `airlock runs show --json | jq` at
 * 64 KiB.
 */
function exitWhenWritten(code: number): void {
  // setImmediate: a write's error event, queued behind its callback, has been heard by then.
  process.stdout.write('', () =>
    process.stderr.write('', () =>
      setImmediate(() => {
        if (lostOutput) failOutput(lostOutput);
        process.exit(code);
      }),
    ),
  );
}

/** A write error that lost output someone wanted (not a reader that went away). */
let lostOutput: NodeJS.ErrnoException | null = null;

/** Says on stderr (directly: a failed stdout must still be able to say so) that output was lost, and exits 1. */
function failOutput(error: NodeJS.ErrnoException): never {
  try {
    writeSync(2, `airlock: could not write the output: ${error.code ?? error.message}\n`);
  } catch {
    // stderr itself is gone: the exit code says it.
  }
  process.exit(1);
}

// A reader that went away (`airlock runs list | head -1`) ends the command quietly, not with a
// stack trace; what it did is done, and nobody is left to read the rest. Any other write error
// (a full disk) lost output someone wanted: the command fails.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    lostOutput ??= error;
  });
}

main(process.argv.slice(2)).then(exitWhenWritten, async (error: unknown) => {
  // A command that failed on the lost write itself (waiting for stdout to drain): said once.
  if (lostOutput && error === lostOutput) failOutput(lostOutput);
  // Loaded only on failure; it loads the SDK only for a failure that is not the command's own.
  const { describeFailure } = await import('./cli/operator/connection.js');
  const { message, exitCode } = await describeFailure(error);
  // Command errors already name themselves ("airlock runs list: ..."): one prefix, not two.
  process.stderr.write(`${message.startsWith('airlock ') ? message : `airlock: ${message}`}\n`);
  exitWhenWritten(exitCode);
});
