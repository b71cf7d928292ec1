import { callTargets, MUTATION_TRAITS, type ToolManifest } from '@airlock/core';
import { sequentialLockKey, takeClaimLocks as takeLocks } from '../../store/claim-locks.js';
import { policyLayersOfRun } from '../../store/runs.js';
import type { TaskTable } from '../../store/schema.js';
import type { Tx } from '../../store/store.js';

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
  if (entry.execution === 'sequential') keys.push(sequentialLockKey(row.run_id, name));
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
 * held (see store/claim-locks.ts). Keys are taken in sorted order. Returns
 * null when the row may be claimed, else the key that blocks it.
 */
export async function takeClaimLocks(
  tx: Tx,
  row: Pick<
    TaskTable,
    'workspace_id' | 'run_id' | 'key' | 'tool_name' | 'resolved_tool_name' | 'tool_input'
  >,
): Promise<string | null> {
  const frozen = await policyLayersOfRun(tx, row.run_id);
  if (!frozen) return null;
  const keys = serializationKeys(row, JSON.parse(frozen) as Record<string, unknown>);
  return takeLocks(tx, row, keys);
}
