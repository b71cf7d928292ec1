import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/** The built entry an agent runs (`pnpm run build` makes it before the tests run). */
const ENTRY = fileURLToPath(new URL('../../dist/bin/airlock-hook.js', import.meta.url));

describe('the hook entry reading its payload', () => {
  it('refuses a tool call whose payload is not UTF-8, instead of asking about a mended one', () => {
    const payload = Buffer.concat([
      Buffer.from(
        '{"session_id":"s","hook_event_name":"PreToolUse","tool_name":"Read","tool_input":{"file_path":"a',
      ),
      Buffer.from([0xff, 0xfe]),
      Buffer.from('"}}'),
    ]);
    const run = spawnSync(process.execPath, [ENTRY, 'claude-code', '--config', '/nonexistent'], {
      input: payload,
      encoding: 'utf8',
    });
    expect(run.status).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain('the payload is not UTF-8');
  });
});
