import { type KyselyPlugin, sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { backends, freshStorePerTest } from '../testing/stores.js';
import { createWorkspace } from './accounts.js';
import { takeClaimLocks } from './claim-locks.js';
import { SQL } from './sql-handle.js';
import type { Tx } from './store.js';

const postgres = (await backends()).find((backend) => backend.name === 'postgres')!;

/** Runs `step` once, right after the unit's first INSERT answered. */
function afterFirstInsert(step: () => Promise<void>): KyselyPlugin {
  const inserts = new WeakSet<object>();
  let done = false;
  return {
    transformQuery(args) {
      if (args.node.kind === 'InsertQueryNode') inserts.add(args.queryId);
      return args.node;
    },
    async transformResult(args) {
      if (!done && inserts.has(args.queryId)) {
        done = true;
        await step();
      }
      return args.result;
    },
  };
}

/**
 * Retention deletes the claim locks of the runs it prunes. A claim taking
 * the same lock (a path another run wrote long ago) while that delete
 * commits takes it all the same: it inserted (finding the old row), then read
 * the row it had found, gone by then, and the claim failed with a 500.
 */
describe.skipIf(postgres.skip !== null)('a claim lock pruned meanwhile (postgres)', () => {
  const open = freshStorePerTest(postgres);

  it('is taken by the claim, not lost between two statements', async () => {
    const store = await open();
    const ws = await createWorkspace(store, 'w');
    const key = 'path:/repo/src/app.ts';
    await store.db
      .insertInto('claim_locks')
      .values({
        workspace_id: ws.id,
        lock_key: key,
        run_id: 'run_old',
        task_key: 't1',
        taken_at: 1,
      })
      .execute();
    // As retention's delete of an old run's rows, on a session of its own. It may not wait for
    // a lock the claim holds (the claim waits for it): then it gives up, and deletes nothing.
    const prune = () =>
      store
        .transaction(async (other) => {
          await sql`set local lock_timeout = '200ms'`.execute(other[SQL].db);
          await other[SQL].db.deleteFrom('claim_locks').where('run_id', '=', 'run_old').execute();
        })
        .catch(() => {});
    const held = await store.transaction((tx) => {
      const db = tx[SQL].db.withPlugin(afterFirstInsert(prune));
      const racing: Tx = { ...tx, [SQL]: { db, dialect: tx[SQL].dialect } };
      return takeClaimLocks(racing, { workspace_id: ws.id, run_id: 'run_new', key: 't1' }, [key]);
    });
    expect(held).toBeNull();
    const locks = await store.db.selectFrom('claim_locks').select(['lock_key', 'run_id']).execute();
    expect(locks.filter((lock) => lock.run_id === 'run_new')).toEqual([
      { lock_key: key, run_id: 'run_new' },
    ]);
  });
});
