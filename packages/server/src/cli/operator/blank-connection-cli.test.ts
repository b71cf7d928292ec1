import { describe, expect, it } from 'vitest';
import { runOperatorInProcess } from '../../testing/cli-in-process.js';
import { runOperatorCli } from '../../testing/operator-cli.js';

// No kernel: each command line is refused before any call (port 9 would refuse the connection,
// exit 1, which is what a blank workspace or credential sent on used to give).
const target = {
  url: 'http://127.0.0.1:9',
  workspaceId: 'ws_x',
  tokens: { member: 'alk_member_x' },
};

describe('a blank workspace or credential is missing, not sent (exit 2)', {
  timeout: 120_000,
}, () => {
  // `--workspace "$WS"` with WS a space, or AIRLOCK_WORKSPACE=' ': the kernel answered forbidden.
  it.each([
    [
      ['runs', 'list', '--workspace', ' '],
      'airlock: no workspace: pass --workspace or set AIRLOCK_WORKSPACE',
    ],
    [['runs', 'list', '--token', ' '], 'airlock: no credential: pass --token or set AIRLOCK_TOKEN'],
  ])('%j', async (args, message) => {
    const refused = await runOperatorInProcess(target, args);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(message);
  });

  // A token file written on Windows, read with `export AIRLOCK_TOKEN="$(cat token)"`, keeps its \r.
  it.each([
    ['alk_member_x\r', 'a line break'],
    ['alk_member_x ', 'a space'],
    ['alk_mémber_x', 'a character that is not visible ASCII'],
  ])('refuses AIRLOCK_TOKEN %j naming it, never quoting it (exit 2)', async (token, what) => {
    const refused = await runOperatorInProcess(target, ['runs', 'list'], { token });
    expect({ code: refused.code, stderr: refused.stderr }).toEqual({
      code: 2,
      stderr: `airlock: AIRLOCK_TOKEN holds ${what}: a token is one word of visible ASCII, as issued\n`,
    });
    const flagged = await runOperatorInProcess(target, ['runs', 'list', '--token', token]);
    expect(flagged.code).toBe(2);
    expect(flagged.stderr).toContain(`airlock: --token holds ${what}: `);
  });

  it('AIRLOCK_WORKSPACE and AIRLOCK_TOKEN holding only spaces count as unset', async () => {
    const workspace = await runOperatorInProcess({ ...target, workspaceId: '  ' }, [
      'runs',
      'list',
    ]);
    expect({ code: workspace.code, stderr: workspace.stderr }).toEqual({
      code: 2,
      stderr: 'airlock: no workspace: pass --workspace or set AIRLOCK_WORKSPACE\n',
    });
    const token = await runOperatorInProcess(target, ['runs', 'list'], { token: '\t' });
    expect({ code: token.code, stderr: token.stderr }).toEqual({
      code: 2,
      stderr:
        'airlock: no credential: pass --token or set AIRLOCK_TOKEN (see `airlock serve` output)\n',
    });
  });
});

// The cases above run each command in-process, as cli.ts runs it (testing/cli-in-process.ts).
describe('the spawned CLI refuses a blank connection setting as the command does in-process', {
  timeout: 120_000,
}, () => {
  it.each([
    [['runs', 'list', '--workspace', ' ']],
    [['runs', 'list', '--token', 'alk_member_x\r']],
  ])('%j', async (args) => {
    const spawned = await runOperatorCli(target, args);
    expect(spawned).toEqual(await runOperatorInProcess(target, args));
    expect(spawned.code).toBe(2);
  });
});
