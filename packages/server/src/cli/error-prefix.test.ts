import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { CLI_NODE_ARGS } from '../testing/cli-entry.js';

const run = promisify(execFile);

/** The real CLI's exit code and standard error for some arguments (no kernel needed). */
async function failing(args: string[]) {
  const env = {
    ...process.env,
    AIRLOCK_URL: 'http://127.0.0.1:9',
    AIRLOCK_TOKEN: 'x',
    AIRLOCK_WORKSPACE: 'ws',
  };
  const outcome = await run(process.execPath, [...CLI_NODE_ARGS, ...args], {
    env,
  }).then(
    () => ({ code: 0, stderr: '' }),
    (error: { code: number; stderr: string }) => error,
  );
  return { code: outcome.code, stderr: outcome.stderr };
}

describe('the CLI names itself once in an error', () => {
  it('a command error that names its command is printed as it is', async () => {
    const { code, stderr } = await failing(['runs', 'list', '--state', 'sleeping']);
    expect(code).toBe(2);
    expect(stderr).toMatch(/^airlock runs list: --state wants one of /);
    expect(stderr).not.toContain('airlock: airlock');
  });

  it('an error without a command name gets the airlock: prefix once', async () => {
    const { code, stderr } = await failing(['audit', 'export', '--since', 'yesterday-ish']);
    expect(code).toBe(2);
    expect(stderr).toMatch(/^airlock: --since wants an ISO time/);
  });

  it('an unreachable kernel is named with its URL and the reason, exit 1, no stack', async () => {
    // Nothing listens on port 9 here: the socket's code is the reason.
    const { code, stderr } = await failing(['runs', 'list']);
    expect(code).toBe(1);
    expect(stderr).toBe(
      'airlock: cannot reach the kernel at http://127.0.0.1:9 (ECONNREFUSED): check AIRLOCK_URL, and that the kernel runs there (airlock serve)\n',
    );
  });
});
