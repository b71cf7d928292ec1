import { describe, expect, it } from 'vitest';
import { runOperatorCli } from '../../testing/operator-cli.js';

// No kernel: each command line is refused before any call (port 9 would refuse the connection).
const target = {
  url: 'http://127.0.0.1:9',
  workspaceId: 'ws_x',
  tokens: { member: 'alk_member_x' },
};

describe('airlock runs|decisions|notifications list refuse an empty --cursor, exit 2', {
  timeout: 120_000,
}, () => {
  // `--cursor "$NEXT"` after the last page (no cursor printed) read the first page again: a
  // script paging that way went round for ever.
  it.each([['runs'], ['decisions'], ['notifications']])('%s list --cursor ""', async (list) => {
    for (const args of [
      [list, 'list', '--cursor', ''],
      [list, 'list', '--cursor=', '--limit', '5'],
    ]) {
      const refused = await runOperatorCli(target, args);
      expect(refused.stderr).toBe(
        `airlock ${list} list: --cursor wants the next_cursor a page printed, not an empty value\n`,
      );
      expect(refused.code).toBe(2);
    }
  });
});
