import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { createWorkspace } from '../store/accounts.js';
import { workspaceHead } from '../store/events.js';
import { skippedRanges } from '../store/restored-log.js';
import { Store } from '../store/store.js';
import { runLocalCli } from '../testing/operator-cli.js';
import { freshMigratedPostgresDatabase, freshPostgresDatabase } from '../testing/postgres.js';
import { backends } from '../testing/stores.js';

/**
 * A PostgreSQL store restored with pg_restore keeps its event numbering
 * monotonic, as `airlock restore` keeps a SQLite store's: `airlock fence
 * --replaced-database-url` reads the replaced database's heads and numbers
 * the restored log on after them, so a feed client that read an event the
 * restore undid is told to resynchronise instead of taking new events for
 * ones it read (and skipping them).
 */

const run = promisify(execFile);
const postgres = (await backends()).find((backend) => backend.name === 'postgres');
const root = mkdtempSync(join(tmpdir(), 'airlock-restore-pg-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

async function emitEvents(databaseUrl: string, workspaceId: string, count: number): Promise<void> {
  const store = await Store.open({ databaseUrl });
  try {
    await store.transaction(async (tx) => {
      for (let i = 0; i < count; i++) {
        tx.emit({ workspace_id: workspaceId, run_id: 'run_1', type: 'run.attention_cleared' });
      }
    });
  } finally {
    await store.close();
  }
}

async function logOf(databaseUrl: string, workspaceId: string) {
  const store = await Store.open({ databaseUrl });
  try {
    await store.transaction(async (tx) => {
      tx.emit({ workspace_id: workspaceId, run_id: 'run_1', type: 'run.attention_cleared' });
    });
    return {
      head: await workspaceHead(store, workspaceId),
      skipped: await skippedRanges(store, workspaceId),
    };
  } finally {
    await store.close();
  }
}

describe.skipIf(!postgres || postgres.skip !== null)('a pg_restore, fenced', () => {
  it('numbers new events after the replaced database with --replaced-database-url', async () => {
    const live = await freshMigratedPostgresDatabase();
    const opened = await Store.open({ databaseUrl: live });
    const ws = await createWorkspace(opened, 'restored').finally(() => opened.close());
    await emitEvents(live, ws.id, 3);
    const dump = join(root, 'backup.dump');
    await run('pg_dump', ['--format=custom', '--no-owner', '--file', dump, live]);
    // After the backup the live store goes on to event 7; a feed client reads them.
    await emitEvents(live, ws.id, 4);
    const restored = await freshPostgresDatabase();
    await run('pg_restore', ['--no-owner', '--exit-on-error', '--dbname', restored, dump]);

    const fenced = await runLocalCli([
      'fence',
      '--database-url',
      restored,
      '--replaced-database-url',
      live,
    ]);
    expect(fenced.stderr).toContain(`workspace ${ws.id}: the replaced store's events 4 to 7`);
    expect(fenced.code).toBe(0);
    const { head, skipped } = await logOf(restored, ws.id);
    // A new event is numbered past 8, the head a client asking for the latest was given.
    expect(head).toBe(9);
    expect(skipped).toEqual([{ after: 3, through: 7 }]);

    // Fencing again changes nothing more.
    const again = await runLocalCli([
      'fence',
      '--database-url',
      restored,
      '--replaced-database-url',
      live,
    ]);
    expect(again.code).toBe(0);
    expect(again.stderr).toContain('numbering unchanged');
    expect((await logOf(restored, ws.id)).skipped).toEqual([{ after: 3, through: 7 }]);
  });

  it('refuses a replaced database that is no Airlock store, or without --database-url, changing nothing', async () => {
    const empty = await freshPostgresDatabase();
    const live = await freshMigratedPostgresDatabase();
    const opened = await Store.open({ databaseUrl: live });
    const ws = await createWorkspace(opened, 'kept').finally(() => opened.close());
    const refused = await runLocalCli([
      'fence',
      '--database-url',
      live,
      '--replaced-database-url',
      empty,
    ]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^airlock fence: not_an_airlock_store: the replaced database/);
    expect(refused.stderr).not.toMatch(/\n\s+at /);
    const usage = await runLocalCli(['fence', '--replaced-database-url', live]);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain('--replaced-database-url');
    expect((await logOf(live, ws.id)).head).toBe(1);
  });
});
