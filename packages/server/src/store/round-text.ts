import { runPrepared } from './prepared.js';
import { SQL } from './sql-handle.js';
import type { Tx } from './store.js';

/**
 * Keeps what the model wrote alongside a round's calls on the round's first
 * row (`key`), just planted in this unit: the history the model reads next is
 * rebuilt from the rows (kernel/loop/history.ts).
 */
export async function writeAssistantText(
  tx: Tx,
  row: { runId: string; key: string; text: string },
): Promise<void> {
  const { db, dialect } = tx[SQL];
  await runPrepared(
    db,
    dialect,
    'tasks.assistant_text',
    (p) =>
      db
        .updateTable('tasks')
        .set({ assistant_text: p('text') })
        .where('run_id', '=', p('run_id'))
        .where('key', '=', p('key')),
    { run_id: row.runId, key: row.key, text: row.text },
  );
}
