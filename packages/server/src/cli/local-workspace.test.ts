import { afterEach, describe, expect, it } from 'vitest';
import { listWorkspaces } from '../store/accounts.js';
import { Store } from '../store/store.js';
import { freshPostgresDatabase, postgresSkipReason } from '../testing/postgres.js';
import { ensureLocalWorkspace } from './local-workspace.js';

const skip = await postgresSkipReason();
if (skip) console.warn(`[airlock tests] skipping the local-workspace race on PostgreSQL: ${skip}`);

describe.skipIf(skip !== null)(
  'ensureLocalWorkspace from several processes at once (PostgreSQL)',
  () => {
    const stores: Store[] = [];
    afterEach(async () => {
      for (const store of stores.splice(0)) await store.close();
    });

    it('creates exactly one local workspace; every caller gets it and one gets the tokens', async () => {
      const databaseUrl = await freshPostgresDatabase();
      // Separate stores stand for separate processes: each has its own connection pool.
      for (let i = 0; i < 4; i++) stores.push(await Store.open({ databaseUrl }));
      const results = await Promise.all(stores.map((store) => ensureLocalWorkspace(store)));
      expect(await listWorkspaces(stores[0]!)).toHaveLength(1);
      expect(new Set(results.map((result) => result.workspaceId)).size).toBe(1);
      expect(results.filter((result) => result.tokens !== null)).toHaveLength(1);
    });
  },
);
