import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { backends, freshStorePerTest } from '../testing/stores.js';
import { authenticate, createCredential, createWorkspace, revokeCredential } from './accounts.js';
import { createAgentApplication } from './applications.js';
import { currentProfileConfiguration, putProfileConfiguration } from './profiles.js';
import { SQL } from './sql-handle.js';
import type { Store } from './store.js';
import { StoreUnavailableError } from './store-errors.js';

const all = await backends();

for (const backend of all) {
  describe.skipIf(backend.skip !== null)(`store contract (${backend.name})`, () => {
    const open = freshStorePerTest(backend);
    /** The workspace's name as stored: what a rolled-back rename must leave as it was. */
    async function workspaceName(store: Store, id: string): Promise<string | undefined> {
      const row = await store.db
        .selectFrom('workspaces')
        .select('name')
        .where('id', '=', id)
        .executeTakeFirst();
      return row?.name;
    }

    it('creates credentials that authenticate until revoked, stored hashed', async () => {
      const store = await open();
      const ws = await createWorkspace(store, 'w');
      const app = await createAgentApplication(store, { workspaceId: ws.id, name: 'a' });
      const { credential, token } = await createCredential(store, {
        workspaceId: ws.id,
        kind: 'executor',
        agentApplicationId: app.id,
      });
      const stored = await store.db.selectFrom('credentials').selectAll().execute();
      expect(JSON.stringify(stored)).not.toContain(token);
      expect(await authenticate(store, token)).toEqual({
        credential_id: credential.credential_id,
        kind: 'executor',
        workspace_id: ws.id,
        agent_application_id: app.id,
        role: null,
      });
      expect(await authenticate(store, `${token}x`)).toBeNull();
      expect(await revokeCredential(store, credential.credential_id)).toBe(true);
      expect(await revokeCredential(store, token)).toBe(false);
      expect(await authenticate(store, token)).toBeNull();
    });

    it('versions profile configurations; the current one is the latest', async () => {
      const store = await open();
      const ws = await createWorkspace(store, 'w');
      const app = await createAgentApplication(store, { workspaceId: ws.id, name: 'a' });
      expect(await currentProfileConfiguration(store, app.id)).toBeNull();
      const versions = await Promise.all(
        [1, 2, 3].map((n) =>
          store.transaction((tx) =>
            putProfileConfiguration(tx, {
              agentApplicationId: app.id,
              configuration: { approval_mode: 'ask', n },
              createdBy: 'test',
            }),
          ),
        ),
      );
      expect(versions.map((v) => v.version).sort()).toEqual([1, 2, 3]);
      const current = await currentProfileConfiguration(store, app.id);
      expect(current?.version).toBe(3);
    });

    it('sequences events per workspace without gaps under concurrent transactions', async () => {
      const store = await open();
      const ws = await createWorkspace(store, 'w');
      const seen: number[] = [];
      store.onCommitted((events) => seen.push(...events.map((e) => e.seq)));
      await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          store.transaction(async (tx) => {
            tx.emit({
              workspace_id: ws.id,
              run_id: `run_${i}`,
              type: 'run.round_started',
              data: { round: i, calls: 1 },
            });
            tx.emit({ workspace_id: ws.id, run_id: `run_${i}`, type: 'run.attention_cleared' });
          }),
        ),
      );
      const rows = await store.db
        .selectFrom('run_events')
        .select(['seq', 'run_id', 'type'])
        .orderBy('seq')
        .execute();
      expect(rows.map((r) => r.seq)).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
      expect([...seen].sort((a, b) => a - b)).toEqual(rows.map((r) => r.seq));
      for (let i = 0; i < 40; i += 2) {
        expect(rows[i]?.run_id).toBe(rows[i + 1]?.run_id);
      }
    });

    it('rolls back events with the transaction', async () => {
      const store = await open();
      const ws = await createWorkspace(store, 'w');
      await expect(
        store.transaction(async (tx) => {
          tx.emit({ workspace_id: ws.id, run_id: 'r', type: 'run.attention_cleared' });
          throw new Error('boom');
        }),
      ).rejects.toThrow('boom');
      const count = await store.db.selectFrom('run_events').select('seq').execute();
      expect(count).toEqual([]);
    });

    it('rolls back every write of a unit whose events name no workspace', async () => {
      const store = await open();
      const ws = await createWorkspace(store, 'w');
      await expect(
        store.transaction(async (tx) => {
          await tx[SQL].db
            .updateTable('workspaces')
            .set({ name: 'renamed' })
            .where('id', '=', ws.id)
            .execute();
          tx.emit({ workspace_id: 'ws_missing', run_id: 'r', type: 'run.attention_cleared' });
        }),
      ).rejects.toThrow();
      expect(await workspaceName(store, ws.id)).toBe('w');
      expect(await store.db.selectFrom('run_events').select('seq').execute()).toEqual([]);
    });

    it('goes on after a unit whose statement failed, on the same connections', async () => {
      const store = await open();
      const ws = await createWorkspace(store, 'w');
      for (let i = 0; i < 12; i += 1) {
        await expect(
          store.transaction(async (tx) => {
            await tx[SQL].db
              .updateTable('workspaces')
              .set({ name: `try-${i}` })
              .where('id', '=', ws.id)
              .execute();
            // The primary key is taken: the statement fails and the unit rolls back.
            await tx[SQL].db
              .insertInto('workspaces')
              .values({ id: ws.id, name: 'x', created_at: 0 })
              .execute();
          }),
        ).rejects.toThrow();
        const written = await store.transaction(async (tx) => {
          tx.emit({ workspace_id: ws.id, run_id: 'r', type: 'run.attention_cleared' });
          return 'ok';
        });
        expect(written).toBe('ok');
      }
      expect(await workspaceName(store, ws.id)).toBe('w');
      const seqs = await store.db.selectFrom('run_events').select('seq').orderBy('seq').execute();
      expect(seqs.map((r) => Number(r.seq))).toEqual(Array.from({ length: 12 }, (_, i) => i + 1));
    });

    // PostgreSQL raises the SQLSTATE itself (RAISE ... USING ERRCODE), on every attempt.
    it.skipIf(backend.name !== 'postgres')(
      'retries a unit PostgreSQL keeps failing with a serialization failure or a deadlock, then answers store_unavailable, nothing written',
      async () => {
        const store = await open();
        const ws = await createWorkspace(store, 'w');
        for (const [code, reason] of [
          ['40001', 'serialization failures'],
          ['40P01', 'deadlocks'],
        ] as const) {
          let attempts = 0;
          const failed = await store
            .transaction(async (tx) => {
              attempts += 1;
              await tx[SQL].db
                .updateTable('workspaces')
                .set({ name: `try-${attempts}` })
                .where('id', '=', ws.id)
                .execute();
              await sql`do $$ begin raise exception 'conflict' using errcode = '${sql.raw(code)}'; end $$`.execute(
                tx[SQL].db,
              );
            })
            .catch((error: unknown) => error);
          expect(attempts).toBe(6);
          expect(failed).toBeInstanceOf(StoreUnavailableError);
          expect((failed as StoreUnavailableError).status).toBe(503);
          expect((failed as StoreUnavailableError).detail).toContain(`${reason}`);
          expect((failed as StoreUnavailableError).detail).toContain(code);
        }
        expect(await workspaceName(store, ws.id)).toBe('w');
      },
    );

    it('lets exactly one of racing conditional updates win', async () => {
      const store = await open();
      const ws = await createWorkspace(store, 'w');
      await store.db
        .insertInto('workspaces')
        .values({ id: 'ws_other', name: 'x', created_at: 0 })
        .execute();
      const results = await Promise.all(
        Array.from({ length: 8 }, (_, i) =>
          store.transaction(async (tx) => {
            const r = await tx[SQL].db
              .updateTable('workspaces')
              .set({ name: `winner-${i}` })
              .where('id', '=', ws.id)
              .where('name', '=', 'w')
              .executeTakeFirst();
            return Number(r.numUpdatedRows);
          }),
        ),
      );
      expect(results.reduce((a, b) => a + b, 0)).toBe(1);
    });
  });
}
