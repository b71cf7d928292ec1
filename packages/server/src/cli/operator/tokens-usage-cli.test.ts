import { describe, expect, it } from 'vitest';
import { runOperatorCli } from '../../testing/operator-cli.js';

// No kernel: each command line is refused before any call (port 9 would refuse the connection).
const target = {
  url: 'http://127.0.0.1:9',
  workspaceId: 'ws_x',
  tokens: { member: 'alk_member_x' },
};

describe('airlock tokens create refuses an empty --application or --label, exit 2', {
  timeout: 120_000,
}, () => {
  // `--application "$APP"` with APP unset went to the kernel, refused there invalid_input (exit 1).
  it.each([
    [
      ['tokens', 'create', '--kind', 'agent', '--application', ''],
      'airlock tokens create: --application wants an agent application id, not an empty value',
    ],
    [
      ['tokens', 'create', '--kind', 'member', '--label='],
      'airlock tokens create: --label wants a name, not an empty value',
    ],
  ])('%j', async (args, message) => {
    const refused = await runOperatorCli(target, args);
    expect(refused.stderr).toBe(`${message}\n`);
    expect(refused.code).toBe(2);
  });
});
