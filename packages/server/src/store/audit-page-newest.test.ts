import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { KyselyPlugin } from 'kysely';
import { describe, expect, it } from 'vitest';
import { backends } from '../testing/stores.js';
import { workspaceWithTokens } from '../testing/workspace-tokens.js';
import { readAuditEvents } from './audit-events.js';
import type { Reader } from './reader.js';
import { SQL } from './sql-handle.js';
import { SQLITE_FILE_NAME, type Store } from './store.js';

/**
 * A newest-first audit page holding a large decision is read twice (sized, then whole); the
 * second read brings the rows the first one sized and no others. It used to be bounded only
 * below, so decisions committed between the two reads came in place of the sized ones: a page
 * of rows nobody had sized, past the byte budget.
 */

const LARGE = 'x'.repeat(6000);

function eventRows(workspaceId: string, seqs: number[], data: string) {
  return seqs.map((seq) => ({
    workspace_id: workspaceId,
    seq,
    run_id: 'run_1',
    task_key: `t${seq}`,
    type: 'task.edited' as const,
    data: JSON.stringify({ tool_input: { text: data } }),
    principal: 'member:m',
    created_at: seq,
  }));
}

async function append(store: Store, workspaceId: string, seqs: number[], data: string) {
  await store.db
    .insertInto('run_events')
    .values(eventRows(workspaceId, seqs, data))
    .execute();
}

/**
 * Commits events as another writer would, while the store's own connection is still held by
 * the read that just answered: on SQLite through a second connection to the file.
 */
async function appendBeside(store: Store, workspaceId: string, seqs: number[], data: string) {
  if (store.dataDir === null) return append(store, workspaceId, seqs, data);
  const other = new Database(join(store.dataDir, SQLITE_FILE_NAME));
  try {
    const insert = other.prepare(
      `insert into run_events (workspace_id, seq, run_id, task_key, type, data, principal, created_at)
       values (@workspace_id, @seq, @run_id, @task_key, @type, @data, @principal, @created_at)`,
    );
    for (const row of eventRows(workspaceId, seqs, data)) insert.run(row);
  } finally {
    other.close();
  }
}

/** A reader that runs `between` once, after its first read answered and before it returns. */
function readerWithWriteBetween(store: Store, between: () => Promise<void>): Reader {
  let pending: (() => Promise<void>) | null = between;
  const plugin: KyselyPlugin = {
    transformQuery: (args) => args.node,
    async transformResult(args) {
      const run = pending;
      pending = null;
      if (run) await run();
      return args.result;
    },
  };
  const handle = store[SQL];
  return { [SQL]: { ...handle, db: handle.db.withPlugin(plugin) } };
}

describe.each(await backends())('a newest-first audit page on $name', (backend) => {
  it.skipIf(backend.skip !== null)(
    'holds the rows it sized, whatever was committed between its two reads',
    async () => {
      const { store, dispose } = await backend.open();
      try {
        const { workspaceId } = await workspaceWithTokens(store, 'newest');
        await append(store, workspaceId, [1, 2, 3], 'small');
        await append(store, workspaceId, [4], LARGE);
        const reader = readerWithWriteBetween(store, () =>
          appendBeside(store, workspaceId, [5, 6], LARGE),
        );
        const page = await readAuditEvents(reader, {
          workspaceId,
          types: ['task.edited'],
          after: 0,
          order: 'newest',
          limit: 2,
          maxBytes: 7000,
        });
        expect(page.rows.map((row) => Number(row.seq))).toEqual([4, 3]);
        expect(page.more).toBe(true);
      } finally {
        await dispose();
      }
    },
  );
});
