import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { startAirlock } from '../airlock.js';
import { CLI_NODE_ARGS } from '../testing/cli-entry.js';
import { freshPostgresDatabase, postgresSkipReason } from '../testing/postgres.js';
import { InvalidDurabilityError, parseDurability } from './durability.js';
import { SQL } from './sql-handle.js';
import { Store } from './store.js';

const pgSkip = await postgresSkipReason();
if (pgSkip) console.warn(`[airlock tests] skipping synchronous_commit per mode: ${pgSkip}`);

const dirs: string[] = [];
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'airlock-durability-'));
  dirs.push(dir);
  return dir;
};
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe('the durability setting', () => {
  it('defaults to full, accepts relaxed, and refuses anything else with invalid_durability', () => {
    expect(parseDurability(undefined)).toBe('full');
    expect(parseDurability('')).toBe('full');
    expect(parseDurability('relaxed')).toBe('relaxed');
    expect(() => parseDurability('FULL')).toThrow(InvalidDurabilityError);
    expect(() => parseDurability('fast')).toThrow(
      /--durability must be full or relaxed, not "fast"/,
    );
  });

  it('sets SQLite synchronous to FULL by default and NORMAL when relaxed', async () => {
    for (const [durability, level] of [
      [undefined, 2],
      ['full', 2],
      ['relaxed', 1],
    ] as const) {
      const store = await Store.open({ dataDir: tempDir(), durability });
      const { rows } = await sql<{ synchronous: number }>`pragma synchronous`.execute(store.db);
      expect({ durability, level: rows[0]?.synchronous }).toEqual({ durability, level });
      await store.close();
    }
  });

  it('refuses an invalid mode from the programmatic API before opening anything', async () => {
    const dir = join(tempDir(), 'never');
    await expect(
      startAirlock({ dataDir: dir, durability: 'sometimes' as never }),
    ).rejects.toMatchObject({ code: 'invalid_durability' });
  });

  it('`airlock serve` refuses an invalid --durability or AIRLOCK_DURABILITY with exit 2', async () => {
    const serve = (args: string[], env: Record<string, string> = {}) =>
      promisify(execFile)(process.execPath, [...CLI_NODE_ARGS, 'serve', '--port', '0', ...args], {
        env: { ...process.env, DATABASE_URL: '', ...env },
        timeout: 30_000,
      }).then(
        () => ({ code: 0, stderr: '' }),
        (error: { code: number; stderr: string }) => ({ code: error.code, stderr: error.stderr }),
      );
    // The two starts (each a CLI process) go at once, each on a directory of its own.
    const [flag, env] = await Promise.all([
      serve(['--data-dir', join(tempDir(), 'data'), '--durability', 'fast']),
      serve(['--data-dir', join(tempDir(), 'data')], { AIRLOCK_DURABILITY: 'off' }),
    ]);
    expect(flag).toEqual({
      code: 2,
      stderr:
        'airlock serve: --durability must be full or relaxed, not "fast" (invalid_durability)\n',
    });
    expect(env.code).toBe(2);
    expect(env.stderr).toContain('AIRLOCK_DURABILITY must be full or relaxed, not "off"');
  });
});

describe.skipIf(pgSkip !== null)('PostgreSQL synchronous_commit per mode', () => {
  it('is on for every session of a full store and off for a relaxed one', async () => {
    const databaseUrl = await freshPostgresDatabase();
    // The database's own default says off: a full store must not inherit it.
    const admin = new pg.Client({ connectionString: databaseUrl });
    await admin.connect();
    const name = new URL(databaseUrl).pathname.slice(1);
    await admin.query(`alter database "${name}" set synchronous_commit = off`);
    await admin.end();
    for (const [durability, setting] of [
      ['full', 'on'],
      ['relaxed', 'off'],
    ] as const) {
      const store = await Store.open({ databaseUrl, durability, poolSize: 3 });
      // Several sessions at once: each one the pool opened says the same.
      const settings = await Promise.all(
        Array.from({ length: 3 }, () =>
          store.transaction(async (tx) => {
            const { rows } = await sql<{
              synchronous_commit: string;
            }>`show synchronous_commit`.execute(tx[SQL].db);
            return rows[0]?.synchronous_commit;
          }),
        ),
      );
      expect(settings).toEqual([setting, setting, setting]);
      await store.close();
    }
  });
});
