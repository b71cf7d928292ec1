import { describe, expect, it } from 'vitest';
import { backends, freshStorePerTest } from '../testing/stores.js';
import { createWorkspace } from './accounts.js';
import {
  insertRow,
  type PreparedQuery,
  readAhead,
  runPrepared,
  ValuesInOrder,
} from './prepared.js';
import { SQL } from './sql-handle.js';
import type { Store } from './store.js';

const all = await backends();

for (const backend of all) {
  describe.skipIf(backend.skip !== null)(`prepared queries (${backend.name})`, () => {
    const open = freshStorePerTest(backend);

    const COLUMNS = [
      'workspace_id',
      'seq',
      'run_id',
      'task_key',
      'type',
      'data',
      'principal',
      'created_at',
    ] as const;
    const ORDER = [0, 1].flatMap((n) => COLUMNS.map((column) => `${n}:${column}`));

    /** Inserts two event rows in one statement, every column a named parameter. */
    function insertTwo(store: Store, key: string, values: Record<string, unknown> | ValuesInOrder) {
      return store.transaction(async (tx) => {
        await runPrepared(
          tx[SQL].db,
          tx[SQL].dialect,
          key,
          (p) =>
            tx[SQL].db
              .insertInto('run_events')
              .values(
                [0, 1].map((n) =>
                  Object.fromEntries(COLUMNS.map((column) => [column, p(`${n}:${column}`)])),
                ) as never,
              ),
          values,
        );
      });
    }

    /** Two rows' values, row after row in column order. */
    const rowValues = (ws: string, seq: number, run: string) => [
      ...[ws, seq, run, null, 'run.model_read', '{}', null, 0],
      ...[ws, seq + 1, `${run}2`, null, 'run.model_read', '{}', null, 0],
    ];

    it('binds values given in order exactly as the same values by name', async () => {
      const store = await open();
      const ws = await createWorkspace(store, 'w');
      const byName = rowValues(ws.id, 101, 'a');
      await insertTwo(
        store,
        'test.by_name',
        Object.fromEntries(ORDER.map((name, i) => [name, byName[i]])),
      );
      await insertTwo(store, 'test.in_order', new ValuesInOrder(ORDER, rowValues(ws.id, 103, 'c')));
      const rows = await store.db
        .selectFrom('run_events')
        .select(['seq', 'run_id', 'type'])
        .where('workspace_id', '=', ws.id)
        .orderBy('seq')
        .execute();
      expect(rows.map((r) => [Number(r.seq), r.run_id, r.type])).toEqual([
        [101, 'a', 'run.model_read'],
        [102, 'a2', 'run.model_read'],
        [103, 'c', 'run.model_read'],
        [104, 'c2', 'run.model_read'],
      ]);
    });

    it('refuses values whose order is not the SQL’s, and writes nothing', async () => {
      const store = await open();
      const ws = await createWorkspace(store, 'w');
      const swapped = [ORDER[1]!, ORDER[0]!, ...ORDER.slice(2)];
      const values = rowValues(ws.id, 105, 'e');
      await expect(
        insertTwo(
          store,
          'test.swapped',
          new ValuesInOrder(swapped, [values[1], values[0], ...values.slice(2)]),
        ),
      ).rejects.toThrow(/not in the SQL's order/);
      await expect(
        insertTwo(store, 'test.short', new ValuesInOrder(ORDER, values.slice(0, 8))),
      ).rejects.toThrow(/8 values for 16/);
      const count = await store.db
        .selectFrom('run_events')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('workspace_id', '=', ws.id)
        .executeTakeFirstOrThrow();
      expect(Number(count.n)).toBe(0);
    });

    /** A run row with every required column (no kernel involved). */
    const runRow = (id: string, workspaceId: string) => ({
      id,
      workspace_id: workspaceId,
      state: 'running',
      phase: 'model',
      approval_mode: 'ask',
      approval_rules: '[]',
      tool_aliases: '{}',
      provider: '{}',
      input: '{}',
      on_failure: 'continue',
      round: 0,
      task_counter: 0,
      created_by: 'test',
      created_at: 1,
      updated_at: 1,
    });
    const runIds = (store: Store, workspaceId: string) =>
      store.db
        .selectFrom('runs')
        .select('id')
        .where('workspace_id', '=', workspaceId)
        .orderBy('id')
        .execute()
        .then((rows) => rows.map((row) => row.id));

    // On PostgreSQL a row's INSERT goes out with the unit's next statement: these hold on both stores.
    it('shows an inserted row to the next read of its unit', async () => {
      const store = await open();
      const ws = await createWorkspace(store, 'w');
      const seen = await store.transaction(async (tx) => {
        await insertRow(tx[SQL].db, tx[SQL].dialect, 'runs', runRow('run_a', ws.id));
        await insertRow(tx[SQL].db, tx[SQL].dialect, 'runs', runRow('run_b', ws.id));
        const rows = await tx[SQL].db
          .selectFrom('runs')
          .select('id')
          .where('workspace_id', '=', ws.id)
          .execute();
        return rows.map((row) => row.id).sort();
      });
      expect(seen).toEqual(['run_a', 'run_b']);
      expect(await runIds(store, ws.id)).toEqual(['run_a', 'run_b']);
    });

    it('fails the unit with a failed INSERT’s own error, and writes nothing of it', async () => {
      const store = await open();
      const ws = await createWorkspace(store, 'w');
      let ranOn = false;
      const unit = store.transaction(async (tx) => {
        await insertRow(tx[SQL].db, tx[SQL].dialect, 'runs', runRow('run_a', ws.id));
        // The same primary key again: a unique violation.
        await insertRow(tx[SQL].db, tx[SQL].dialect, 'runs', runRow('run_a', ws.id));
        tx.emit({ workspace_id: ws.id, run_id: 'run_a', type: 'run.attention_cleared', data: {} });
        ranOn = true;
        await tx[SQL].db.selectFrom('runs').select('id').where('id', '=', 'run_a').execute();
      });
      const code = backend.name === 'postgres' ? '23505' : 'SQLITE_CONSTRAINT_PRIMARYKEY';
      await expect(unit).rejects.toMatchObject({ code });
      // On PostgreSQL the unit ran on to its next statement before the error came back.
      expect(ranOn).toBe(backend.name === 'postgres');
      expect(await runIds(store, ws.id)).toEqual([]);
      const events = await store.db
        .selectFrom('run_events')
        .select('seq')
        .where('workspace_id', '=', ws.id)
        .execute();
      expect(events).toEqual([]);
      // The pooled connection is whole again: the next unit commits.
      await store.transaction(async (tx) => {
        await insertRow(tx[SQL].db, tx[SQL].dialect, 'runs', runRow('run_c', ws.id));
      });
      expect(await runIds(store, ws.id)).toEqual(['run_c']);
    });

    /** A prepared read of a workspace's run ids. */
    const runIdsQuery = (store: Store, workspaceId: string): PreparedQuery => ({
      key: 'test.run_ids',
      build: (p) =>
        store.db.selectFrom('runs').select('id').where('workspace_id', '=', p('ws')).orderBy('id'),
      values: { ws: workspaceId },
    });

    it('reads ahead on PostgreSQL only: the rows come with the next statement and see it', async () => {
      const store = await open();
      const ws = await createWorkspace(store, 'w');
      await store.transaction(async (tx) => {
        await insertRow(tx[SQL].db, tx[SQL].dialect, 'runs', runRow('run_a', ws.id));
      });
      const seen = await store.transaction(async (tx) => {
        const ahead = readAhead<{ id: string }>(
          tx[SQL].db,
          tx[SQL].dialect,
          runIdsQuery(store, ws.id),
        );
        if (backend.name === 'sqlite') {
          expect(ahead).toBeUndefined();
          return null;
        }
        expect(ahead).toBeInstanceOf(Promise);
        await tx[SQL].db.deleteFrom('runs').where('id', '=', 'run_a').execute();
        return (await ahead!).map((row) => row.id);
      });
      if (backend.name === 'postgres') expect(seen).toEqual([]);
    });

    // Nothing is read ahead on SQLite (above).
    it.skipIf(backend.name === 'sqlite')(
      'fails a read ahead with its statement, and drops one nothing followed',
      async () => {
        const store = await open();
        const ws = await createWorkspace(store, 'w');
        let failedRead: unknown;
        const unit = store.transaction(async (tx) => {
          await insertRow(tx[SQL].db, tx[SQL].dialect, 'runs', runRow('run_a', ws.id));
          const ahead = readAhead(tx[SQL].db, tx[SQL].dialect, runIdsQuery(store, ws.id))!;
          ahead.catch((error: unknown) => {
            failedRead = error;
          });
          await insertRow(tx[SQL].db, tx[SQL].dialect, 'runs', runRow('run_a', ws.id));
          // The duplicate goes out with this read, which PostgreSQL refuses after it.
          await tx[SQL].db.selectFrom('runs').select('id').execute();
        });
        await expect(unit).rejects.toMatchObject({ code: '23505' });
        expect(failedRead).toMatchObject({ code: '23505' });
        // Asked for and never followed by a statement: the unit still commits, the read is refused.
        let dropped: unknown;
        await store.transaction(async (tx) => {
          await insertRow(tx[SQL].db, tx[SQL].dialect, 'runs', runRow('run_b', ws.id));
          readAhead(tx[SQL].db, tx[SQL].dialect, runIdsQuery(store, ws.id))!.catch(
            (error: unknown) => {
              dropped = error;
            },
          );
        });
        expect(String(dropped)).toMatch(/ended before this read went out/);
        expect(await runIds(store, ws.id)).toEqual(['run_b']);
      },
    );

    it('fails the unit when a held INSERT fails at the COMMIT, with no statement after it', async () => {
      const store = await open();
      const ws = await createWorkspace(store, 'w');
      const unit = store.transaction(async (tx) => {
        await insertRow(tx[SQL].db, tx[SQL].dialect, 'runs', runRow('run_a', ws.id));
        await insertRow(tx[SQL].db, tx[SQL].dialect, 'runs', runRow('run_a', ws.id));
      });
      const code = backend.name === 'postgres' ? '23505' : 'SQLITE_CONSTRAINT_PRIMARYKEY';
      await expect(unit).rejects.toMatchObject({ code });
      expect(await runIds(store, ws.id)).toEqual([]);
    });

    it.skipIf(backend.name !== 'sqlite')(
      'lets the event loop turn after a large write inside a unit, never after a small one',
      async () => {
        const store = await open();
        const ws = await createWorkspace(store, 'w');
        /** Whether a turn of the event loop passed during one event insert carrying `data`. */
        const turnedDuring = (data: string, seq: number) =>
          store.transaction(async (tx) => {
            let turned = false;
            setImmediate(() => {
              turned = true;
            });
            const row = [ws.id, seq, 'run_big', null, 'run.model_read', data, null, 0];
            await runPrepared(
              tx[SQL].db,
              tx[SQL].dialect,
              'events.one',
              (p) =>
                tx[SQL].db
                  .insertInto('run_events')
                  .values(Object.fromEntries(COLUMNS.map((c) => [c, p(c)])) as never),
              Object.fromEntries(COLUMNS.map((c, i) => [c, row[i]])),
            );
            return turned;
          });
        expect(await turnedDuring('{}', 1)).toBe(false);
        expect(await turnedDuring(JSON.stringify({ text: 'x'.repeat(100_000) }), 2)).toBe(true);
      },
    );
  });
}
