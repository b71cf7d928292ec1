import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Kysely, type KyselyPlugin, sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { storeBeforeMigration } from '../testing/older-schema.js';
import { freshPostgresDatabase, postgresSkipReason } from '../testing/postgres.js';
import type { StoreLocation } from './backend.js';
import { backendFor } from './backends.js';
import { parseDurability } from './durability.js';
import { migrateToLatest } from './migrations.js';
import { Store } from './store.js';

/**
 * An upgrade cut short in the middle of a migration (the disk filled up, the
 * process was killed) leaves the store as it was before that migration, so
 * the next start applies it whole. A migration of several statements used
 * to leave its first ones applied on SQLite, and every later start failed on
 * them (`duplicate column name: loop`) until someone edited the file by hand.
 */

const root = mkdtempSync(join(tmpdir(), 'airlock-migration-cut-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const pgSkip = await postgresSkipReason();

/** Fails the statement of a migration whose SQL starts with `prefix`, as a full disk would. */
function failingAt(prefix: string): KyselyPlugin {
  return {
    transformQuery(args) {
      const node = args.node as { kind: string; sqlFragments?: readonly string[] };
      if (node.kind === 'RawNode' && node.sqlFragments?.[0]?.trimStart().startsWith(prefix)) {
        throw Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' });
      }
      return args.node;
    },
    transformResult: async (args) => args.result,
  };
}

/** A store from before 0018 whose upgrade to 0018 fails at its backfill, after adding the column. */
async function upgradeCutShort(location: StoreLocation): Promise<void> {
  await storeBeforeMigration(location, '0018', async (db) => {
    await sql`insert into runs (id, workspace_id, agent_application_id, state, phase,
      approval_mode, approval_rules, tool_aliases, provider, input, on_failure, round, task_counter,
      created_by, created_at, updated_at)
      values ('run_gateway', 'ws_old', 'app_old', 'running', 'tools', 'bypass', '[]', '{}',
      '{"kind":"gateway"}', '{"content":"x"}', 'continue', 1, 1, 'agent:app_old', 1, 1)`.execute(
      db,
    );
  });
  const backend = backendFor(location);
  const opened = await backend.open(location, parseDurability(undefined));
  try {
    const db = (opened.db as Kysely<unknown>).withPlugin(failingAt('update runs set loop'));
    await expect(migrateToLatest(db, backend.dialect)).rejects.toThrow(/disk is full/);
  } finally {
    await opened.close();
  }
}

async function expectWholeUpgradeNext(location: StoreLocation): Promise<void> {
  await upgradeCutShort(location);
  const store = await Store.open(location);
  try {
    const runs = await store.db.selectFrom('runs').select(['id', 'loop']).execute();
    expect(runs).toEqual([{ id: 'run_gateway', loop: 'gateway' }]);
  } finally {
    await store.close();
  }
}

describe('a migration cut short', () => {
  it('leaves a SQLite store as it was, so the next start applies it whole', async () => {
    await expectWholeUpgradeNext({ dataDir: join(root, 'sqlite') });
  });

  it.skipIf(pgSkip !== null)(
    'leaves a PostgreSQL store as it was, so the next start applies it whole',
    async () => {
      await expectWholeUpgradeNext({ databaseUrl: await freshPostgresDatabase() });
    },
  );
});
