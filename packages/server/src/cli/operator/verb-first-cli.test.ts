import { describe, expect, it } from 'vitest';
import { CLI_NODE_ARGS } from '../../testing/cli-entry.js';
import { runToEnd } from '../../testing/kernel-process.js';

/** The CLI as a new operator runs it before a kernel gave them a token: no AIRLOCK_ variable. */
function airlockWithoutConnection(args: string[]) {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !name.startsWith('AIRLOCK_')),
  );
  return runToEnd(process.execPath, [...CLI_NODE_ARGS, ...args], { env });
}

// A mistyped verb was told as a missing credential; fixed that, the operator met the typo next.
describe('an operator command reads its verb before its connection', { timeout: 180_000 }, () => {
  it.each([
    [['runs', 'lst'], 'airlock runs: unknown verb "lst" (list, show, stop)'],
    [
      ['decisions', 'aprove', 'run_1', 't1'],
      'airlock decisions: unknown verb "aprove" (list, show, approve, deny, answer)',
    ],
    [['approvals', 'get'], 'airlock approvals: unknown verb "get" (show, set)'],
    [['overlays', 'list'], 'airlock overlays: unknown verb "list" (show, replace, trust, load)'],
    [
      ['tokens', 'remove', 'x'],
      'airlock tokens: unknown verb "remove" (create, list, revoke, label)',
    ],
    [['apps', 'delete', 'x'], 'airlock apps: unknown verb "delete" (create, list, remove)'],
    [
      ['notifications', 'retry', 'x'],
      'airlock notifications: unknown verb "retry" (list, redeliver)',
    ],
  ])('%j names the verb, exit 2, with no connection set', async (args, message) => {
    const refused = await airlockWithoutConnection(args);
    expect([refused.code, refused.stderr, refused.stdout]).toEqual([2, `${message}\n`, '']);
  });

  it.each([['runs'], ['retention'], ['decisions']])(
    'airlock %s help prints the help, exit 0, as --help does',
    async (command) => {
      const help = await airlockWithoutConnection([command, 'help']);
      expect(help.code).toBe(0);
      expect(help.stdout).toMatch(new RegExp(`^Usage:\\n {2}airlock ${command} `));
    },
  );
});
