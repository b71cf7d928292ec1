import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { CLI_NODE_ARGS } from '../testing/cli-entry.js';

const run = promisify(execFile);

describe('airlock serve refuses a bad retention pace before opening a store', () => {
  let dir: string | undefined;
  afterEach(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  async function serve(args: string[], env: Record<string, string> = {}) {
    dir = mkdtempSync(join(tmpdir(), 'airlock-retention-flags-'));
    const dataDir = join(dir, 'store');
    const outcome = await run(
      process.execPath,
      [...CLI_NODE_ARGS, 'serve', '--data-dir', dataDir, '--port', '0', ...args],
      { env: { ...process.env, ...env }, timeout: 60_000 },
    ).then(
      () => ({ code: 0, stderr: '' }),
      (error: { code: number; stderr: string }) => error,
    );
    return { ...outcome, created: existsSync(dataDir) };
  }

  it('--retention-pace outside [0.01, 1], and the same from AIRLOCK_RETENTION_PACE', async () => {
    const flag = await serve(['--retention-pace', '2']);
    expect(flag.code).toBe(2);
    expect(flag.stderr).toContain(
      'airlock serve: --retention-pace must be a decimal from 0.01 to 1',
    );
    expect(flag.stderr).toContain('(invalid_retention_pace)');
    expect(flag.created).toBe(false);
    const env = await serve([], { AIRLOCK_RETENTION_PACE: 'fast' });
    expect(env.code).toBe(2);
    expect(env.stderr).toContain('AIRLOCK_RETENTION_PACE must be a decimal from 0.01 to 1');
    expect(env.created).toBe(false);
  }, 120_000);
});
