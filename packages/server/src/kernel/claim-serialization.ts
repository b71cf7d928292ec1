import { callTargets, MUTATION_TRAITS, type ToolManifest } from '@airlock/core';
import type { TaskTable } from '../store/schema.js';
import type { Tx } from '../store/store.js';

/**
 * The locks a row must hold while claimed (spec 003): `tool:<run>:<name>` for
 * a sequential tool, and `path:<absolute path>` for every path target of a
 * tool that mutates files. Empty for a run without a tool manifest.
 */
export function serializationKeys(
  row: Pick<TaskTable, 'run_id' | 'tool_name' | 'resolved_tool_name' | 'tool_input'>,
  frozen: Readonly<Record<string, unknown>>,
): string[] {
  const manifest = frozen.tool_manifest as ToolManifest | undefined;
  const name = row.resolved_tool_name ?? row.tool_name;
  const entry = manifest?.find((tool) => tool.name === name);
  if (!entry) return [];
  const keys: string[] = [];
  if (entry.execution === 'sequential') keys.push(`tool:${row.run_id}:${name}`);
  if (entry.risk_traits.some((trait) => MUTATION_TRAITS.includes(trait))) {
    const root = (frozen.project_root as string | undefined)?.replace(/\/+$/, '') ?? '';
    for (const target of callTargets(
      entry,
      JSON.parse(row.tool_input),
      frozen.project_root as string | undefined,
    )) {
      if (target.kind !== 'path') continue;
      // Keyed by absolute path, so runs with different project roots never collide by accident.
      keys.push(`path:${target.rooted ? `${root}/${target.text}` : target.text}`);
    }
  }
  return [...new Set(keys)].sort();
}

/**
 * Takes the row's serialization locks before a claim, or says which one is
 * held: a lock is held while the row that took it is still `claimed`, so a
 * committed, failed or expired claim frees it without any cleanup. Keys are
 * taken in sorted order; on PostgreSQL the lock row is read FOR UPDATE.
 * Returns null when the row may be claimed, else the key that blocks it.
 */
export async function takeClaimLocks(
  tx: Tx,
  row: Pick<
    TaskTable,
    'workspace_id' | 'run_id' | 'key' | 'tool_name' | 'resolved_tool_name' | 'tool_input'
  >,
): Promise<string | null> {
  const run = await tx.db
    .selectFrom('runs')
    .select('policy_layers')
    .where('id', '=', row.run_id)
    .executeTakeFirst();
  if (!run?.policy_layers) return null;
  const keys = serializationKeys(row, JSON.parse(run.policy_layers) as Record<string, unknown>);
  for (const key of keys) {
    await tx.db
      .insertInto('claim_locks')
      .values({
        workspace_id: row.workspace_id,
        lock_key: key,
        run_id: row.run_id,
        task_key: row.key,
        taken_at: tx.now,
      })
      .onConflict((oc) => oc.columns(['workspace_id', 'lock_key']).doNothing())
      .execute();
    const lock = await tx.db
      .selectFrom('claim_locks')
      .select(['run_id', 'task_key'])
      .where('workspace_id', '=', row.workspace_id)
      .where('lock_key', '=', key)
      .$if(tx.dialect === 'postgres', (qb) => qb.forUpdate())
      .executeTakeFirstOrThrow();
    if (lock.run_id === row.run_id && lock.task_key === row.key) continue;
    const holder = await tx.db
      .selectFrom('tasks')
      .select('state')
      .where('run_id', '=', lock.run_id)
      .where('key', '=', lock.task_key)
      .executeTakeFirst();
    if (holder?.state === 'claimed') return key;
    await tx.db
      .updateTable('claim_locks')
      .set({ run_id: row.run_id, task_key: row.key, taken_at: tx.now })
      .where('workspace_id', '=', row.workspace_id)
      .where('lock_key', '=', key)
      .execute();
  }
  return null;
}
