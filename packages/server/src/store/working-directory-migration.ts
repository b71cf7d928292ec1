import type { Kysely, Migration } from 'kysely';

/**
 * The working directory a hooked agent said for a call (`tasks.working_directory`, its
 * pre_tool `cwd`) is kept on the call's row, so a decision made again from the row (a
 * retry, an approval with changes, a guardrail at the claim) reads its relative paths
 * from the same directory the first one did. Rows written before keep null: they are
 * read from the project root, as they were.
 */
export function workingDirectoryMigration(): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema.alterTable('tasks').addColumn('working_directory', 'text').execute();
    },
  };
}
