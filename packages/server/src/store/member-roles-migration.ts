import { type Kysely, type Migration, sql } from 'kysely';

/**
 * A role on each member credential (`admin` or `approver`; null for agent and
 * executor credentials). Every member credential made before roles existed
 * becomes `admin`: it could do everything then, and an upgrade takes no power
 * away from anyone.
 */
export function memberRolesMigration(): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema.alterTable('credentials').addColumn('role', 'text').execute();
      await db
        .updateTable('credentials' as never)
        .set({ role: sql.lit('admin') } as never)
        .where(sql.ref('kind'), '=', sql.lit('member'))
        .execute();
    },
  };
}
