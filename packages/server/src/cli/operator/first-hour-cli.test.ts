import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI_NODE_ARGS } from '../../testing/cli-entry.js';
import { type Deployment, deploy } from '../../testing/harness.js';
import { runToEnd } from '../../testing/kernel-process.js';
import { runOperatorCli, sqliteBackend } from '../../testing/operator-cli.js';
import { callerOf } from './kernel-caller.js';

const sqlite = await sqliteBackend();

/**
 * What a new user meets in the first hour, with a real kernel on loopback: a token copied
 * wrong, a kernel not started or at another address. Each says where the value came from.
 */
describe('a first hour with the operator CLI', { timeout: 120_000 }, () => {
  let d: Deployment;
  beforeAll(async () => {
    d = await deploy(sqlite);
  });
  afterAll(async () => {
    await d?.close();
  });

  it('a token the kernel does not know names where it came from and where to get one', async () => {
    const refused = await runOperatorCli(d, ['runs', 'list'], { token: 'alk_member_copiedwrong' });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe(
      'airlock: unauthenticated: the token is unknown or revoked (the token of AIRLOCK_TOKEN; ' +
        '`airlock serve` prints a member token on its first start, `airlock token create --kind member` makes another)\n',
    );
    const flag = await runToEnd(
      process.execPath,
      [
        ...CLI_NODE_ARGS,
        'runs',
        'list',
        '--url',
        d.url,
        '--workspace',
        d.workspaceId,
        '--token',
        'alk_member_x',
      ],
      { env: { ...process.env, AIRLOCK_URL: '', AIRLOCK_TOKEN: '', AIRLOCK_WORKSPACE: '' } },
    );
    expect(flag.code).toBe(1);
    expect(flag.stderr).toContain('(the token of --token;');
  });

  it('a kernel not reached says which setting named its URL', async () => {
    const refused = await runOperatorCli({ ...d, url: 'http://127.0.0.1:9' }, ['runs', 'list']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe(
      'airlock: cannot reach the kernel at http://127.0.0.1:9 (ECONNREFUSED): check AIRLOCK_URL, and that the kernel runs there (airlock serve)\n',
    );
  });

  it('the default URL not reached says how to start a kernel or name another', async () => {
    // Port 9 standing for the default address (4820 may serve another kernel on this machine).
    const call = callerOf(
      { url: 'http://127.0.0.1:9', source: 'default' },
      { token: 'alk_member_x', source: 'AIRLOCK_TOKEN' },
      5_000,
    );
    await expect(call('runs.list', { workspace_id: 'ws_x' })).rejects.toThrow(
      'cannot reach the kernel at http://127.0.0.1:9 (ECONNREFUSED), the default URL: start one with airlock serve, or pass its URL as --url or AIRLOCK_URL',
    );
  });
});
