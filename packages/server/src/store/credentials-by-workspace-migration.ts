import type { Kysely, Migration } from 'kysely';

/**
 * An index of credentials by workspace. The principal roster every
 * decision's view reads (store/principal-roster.ts), the member credentials
 * an approval policy checks and the credential listing each select a
 * workspace's credentials; without it each of them walked every workspace's
 * credentials, so a decision cost more the more workspaces a kernel served.
 */
export function credentialsByWorkspaceMigration(): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createIndex('credentials_by_workspace')
        .on('credentials')
        .column('workspace_id')
        .execute();
    },
  };
}
