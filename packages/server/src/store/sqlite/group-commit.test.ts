import { describe, expect, it } from 'vitest';
import { backends, freshStorePerTest } from '../../testing/stores.js';
import { createWorkspace } from '../accounts.js';
import { createAgentApplication } from '../applications.js';
import { SQL } from '../sql-handle.js';

const all = await backends();

// Units of work started together share a SQLite COMMIT (PostgreSQL: one transaction each);
// either way each unit is atomic on its own and answers only once it is durable.
for (const backend of all) {
  describe.skipIf(backend.skip !== null)(`concurrent units of work (${backend.name})`, () => {
    const open = freshStorePerTest(backend);

    it('a unit that throws rolls back alone; the others commit with their events', async () => {
      const store = await open();
      const ws = await createWorkspace(store, 'w');
      const app = await createAgentApplication(store, { workspaceId: ws.id, name: 'a' });
      const committed: string[] = [];
      store.onCommitted((events) => committed.push(...events.map((e) => e.run_id)));
      const unit = (name: string, fail: boolean) =>
        store.transaction(async (tx) => {
          await tx[SQL].db
            .insertInto('conversations')
            .values({
              id: name,
              workspace_id: ws.id,
              agent_application_id: app.id,
              created_at: tx.now,
            })
            .execute();
          tx.emit({ workspace_id: ws.id, run_id: name, type: 'run.attention_cleared' });
          if (fail) throw new Error(`${name} failed`);
          return name;
        });
      const outcomes = await Promise.allSettled([
        unit('a', false),
        unit('b', true),
        unit('c', false),
        unit('a', false), // a duplicate key: the database refuses it, the unit alone fails
        unit('d', false),
      ]);
      const statuses = outcomes.map((o) => o.status);
      if (backend.name === 'postgres') {
        // The units run concurrently: either of the two units writing a wins, the other fails.
        expect([statuses[0], statuses[3]].sort()).toEqual(['fulfilled', 'rejected']);
        expect([statuses[1], statuses[2], statuses[4]]).toEqual([
          'rejected',
          'fulfilled',
          'fulfilled',
        ]);
      } else {
        expect(statuses).toEqual(['fulfilled', 'rejected', 'fulfilled', 'rejected', 'fulfilled']);
      }
      const rows = await store.db.selectFrom('conversations').select('id').orderBy('id').execute();
      expect(rows.map((r) => r.id)).toEqual(['a', 'c', 'd']);
      const events = await store.db
        .selectFrom('run_events')
        .select(['run_id', 'seq'])
        .orderBy('seq')
        .execute();
      // PostgreSQL runs the units concurrently: their order is whichever committed first.
      expect(events.map((e) => e.run_id).sort()).toEqual(['a', 'c', 'd']);
      expect(events.map((e) => e.seq)).toEqual([1, 2, 3]);
      expect(committed.sort()).toEqual(['a', 'c', 'd']);
    });

    it('a unit whose events fail gives its sequence numbers back: no gap, the counter agrees', async () => {
      const store = await open();
      const ws = await createWorkspace(store, 'w');
      const unit = (name: string, workspaces: string[]) =>
        store.transaction(async (tx) => {
          for (const id of workspaces)
            tx.emit({ workspace_id: id, run_id: name, type: 'run.attention_cleared' });
        });
      // Workspaces are sequenced in sorted order: the real one is numbered before the missing one fails.
      const outcomes = await Promise.allSettled([
        unit('a', [ws.id]),
        unit('b', [ws.id, ws.id, 'zz-missing']),
        unit('c', [ws.id]),
      ]);
      expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
      const events = await store.db
        .selectFrom('run_events')
        .select(['run_id', 'seq'])
        .where('workspace_id', '=', ws.id)
        .orderBy('seq')
        .execute();
      expect(events.map((e) => e.run_id).sort()).toEqual(['a', 'c']);
      expect(events.map((e) => e.seq)).toEqual([1, 2]);
      const counter = await store.db
        .selectFrom('workspaces')
        .select('event_seq')
        .where('id', '=', ws.id)
        .executeTakeFirstOrThrow();
      expect(Number(counter.event_seq)).toBe(2);
      // The next batch continues from the stored counter.
      await unit('d', [ws.id]);
      const last = await store.db
        .selectFrom('run_events')
        .select('seq')
        .where('run_id', '=', 'd')
        .executeTakeFirstOrThrow();
      expect(Number(last.seq)).toBe(3);
    });

    it('answers a unit only after its commit: a read outside sees what it wrote', async () => {
      const store = await open();
      const ws = await createWorkspace(store, 'w');
      const seen = await Promise.all(
        Array.from({ length: 8 }, async (_, i) => {
          await store.transaction(async (tx) => {
            tx.emit({ workspace_id: ws.id, run_id: `r${i}`, type: 'run.attention_cleared' });
          });
          const row = await store.db
            .selectFrom('run_events')
            .select('seq')
            .where('run_id', '=', `r${i}`)
            .executeTakeFirst();
          return row !== undefined;
        }),
      );
      expect(seen).toEqual(Array(8).fill(true));
    });
  });
}
