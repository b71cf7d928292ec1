import {
  type CanonicalTarget,
  callTargets,
  canonicalPath,
  MUTATION_TRAITS,
  type ToolManifest,
} from '@airlock/core';
import { sequentialLockKey, takeClaimLocks as takeLocks } from '../../store/claim-locks.js';
import { policyLayersOfRun } from '../../store/runs.js';
import type { TaskTable } from '../../store/schema.js';
import type { Tx } from '../../store/store.js';

/**
 * The absolute, normalized path a path target names: the key of its lock, so
 * one file has one key across runs, whichever way each run spelled its
 * project root (`/srv/app`, `/srv/./app/`, `//srv//app`) and whether the call
 * named it inside the root or by its absolute path.
 */
function absolutePath(target: CanonicalTarget, root: string | undefined): string {
  if (!target.rooted) return target.text;
  return canonicalPath(`/${root ?? ''}/${target.text}`, undefined).text;
}

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
    const root = frozen.project_root as string | undefined;
    for (const target of callTargets(entry, JSON.parse(row.tool_input), root)) {
      if (target.kind !== 'path') continue;
      keys.push(`path:${absolutePath(target, root)}`);
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
