import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { storeBeforeMigration } from '../testing/older-schema.js';
import { freshPostgresDatabase, postgresSkipReason } from '../testing/postgres.js';
import { authenticate, listCredentials } from './accounts.js';
import type { StoreLocation } from './backend.js';
import { hashToken } from './ids.js';
import { Store } from './store.js';

/**
 * A store made by a kernel from before member roles (every migration up to
 * 0016) keeps working after the upgrade, and takes no power from anyone:
 * each member credential it holds becomes an admin; agent and executor
 * credentials get no role.
 */

const root = mkdtempSync(join(tmpdir(), 'airlock-member-roles-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const pgSkip = await postgresSkipReason();

/** Applies the migrations named before `0017_member_roles`, as an older kernel did. */
async function migrateAsBeforeRoles(location: StoreLocation): Promise<void> {
  await storeBeforeMigration(location, '0017', async (db) => {
    for (const [id, kind, application] of [
      ['cred_member', 'member', 'app_old'],
      ['cred_workspace_member', 'member', null],
      ['cred_agent', 'agent', 'app_old'],
      ['cred_executor', 'executor', 'app_old'],
    ] as const) {
      await sql`insert into credentials (id, workspace_id, agent_application_id, kind, token_hash, label, created_at)
      values (${id}, 'ws_old', ${application}, ${kind}, ${hashToken(`token-${id}`)}, ${kind}, 1)`.execute(
        db,
      );
    }
  });
}

async function expectRolesAfterUpgrade(location: StoreLocation): Promise<void> {
  await migrateAsBeforeRoles(location);
  const store = await Store.open(location);
  try {
    const roles = Object.fromEntries(
      (await listCredentials(store, 'ws_old')).map((c) => [c.credential_id, c.role]),
    );
    expect(roles).toEqual({
      cred_member: 'admin',
      cred_workspace_member: 'admin',
      cred_agent: null,
      cred_executor: null,
    });
    expect((await authenticate(store, 'token-cred_member'))?.role).toBe('admin');
    expect((await authenticate(store, 'token-cred_agent'))?.role).toBeNull();
  } finally {
    await store.close();
  }
}

describe('the member roles migration', () => {
  it('makes every member credential of an older SQLite store an admin, and no other a role', async () => {
    await expectRolesAfterUpgrade({ dataDir: join(root, 'sqlite') });
  });

  it.skipIf(pgSkip !== null)(
    'makes every member credential of an older PostgreSQL store an admin, and no other a role',
    async () => {
      await expectRolesAfterUpgrade({ databaseUrl: await freshPostgresDatabase() });
    },
  );
});
