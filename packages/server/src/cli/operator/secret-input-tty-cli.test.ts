import { type ChildProcessWithoutNullStreams, spawn, spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI_NODE_ARGS } from '../../testing/cli-entry.js';
import { type Deployment, deploy, waitFor } from '../../testing/harness.js';
import { operatorCliEnv, sqliteBackend } from '../../testing/operator-cli.js';

const sqlite = await sqliteBackend();

/** script (util-linux) runs a command on a pseudo-terminal of its own: stdin is then a TTY. */
const scriptSkipReason: string | null = spawnSync('script', ['--version']).error
  ? 'script (util-linux) is not installed'
  : null;

const quoted = (word: string) => `'${word.replaceAll("'", "'\\''")}'`;

/** The real `airlock` with a terminal for its standard input, and what it printed so far. */
function onTerminal(d: Deployment, args: string[]) {
  const command = ['exec', process.execPath, ...CLI_NODE_ARGS, ...args].map(quoted).join(' ');
  const child: ChildProcessWithoutNullStreams = spawn(
    'script',
    ['--quiet', '--flush', '--return', '--command', command, '/dev/null'],
    { env: operatorCliEnv(d) },
  );
  let output = '';
  child.stdout.on('data', (chunk) => {
    output += chunk;
  });
  child.stderr.on('data', (chunk) => {
    output += chunk;
  });
  const exited = new Promise<number | null>((settle) => child.once('close', settle));
  return { child, output: () => output, exited };
}

// Each step starts the CLI in a child process: slow on a loaded machine, so a wide bound.
describe.skipIf(scriptSkipReason !== null)(
  'a secret read from standard input that is a terminal',
  { timeout: 180_000 },
  () => {
    let d: Deployment;
    const started: ChildProcessWithoutNullStreams[] = [];
    beforeAll(async () => {
      d = await deploy(sqlite);
    });
    afterAll(async () => {
      for (const child of started) if (child.exitCode === null) child.kill('SIGKILL');
      await d?.close();
    });

    it('tokens revoke - says what it waits for, and reads one line without Ctrl-D', async () => {
      const made = await d.member.post(`${d.ws}/credentials`, {
        kind: 'member',
        agent_application_id: null,
        label: 'to revoke',
      });
      const member = made.body as { credential_id: string; token: string };
      const cli = onTerminal(d, ['tokens', 'revoke', '-']);
      started.push(cli.child);
      await waitFor(async () => cli.output().includes('airlock tokens revoke: reading'), {
        timeoutMs: 60_000,
        what: 'the prompt on the terminal',
      });
      expect(cli.output()).toContain(
        'airlock tokens revoke: reading the credential id or token from standard input',
      );
      // One line, no end of input: a terminal's reader ends the line with Enter, not Ctrl-D.
      cli.child.stdin.write(`${member.token}\r`);
      expect(await cli.exited).toBe(0);
      expect(cli.output()).toContain(`revoked member credential ${member.credential_id}`);
    });
  },
);
