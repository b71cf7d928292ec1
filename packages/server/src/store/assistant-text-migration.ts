import type { Kysely, Migration } from 'kysely';

/**
 * What the model wrote alongside a round's calls (an `openai` assistant
 * message's `content`, such as its plan) is kept on the round's first model
 * row (`tasks.assistant_text`), where the history the model reads next is
 * rebuilt from. Rows written before keep null: the model is sent no text
 * for those rounds, as before.
 */
export function assistantTextMigration(): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema.alterTable('tasks').addColumn('assistant_text', 'text').execute();
    },
  };
}
