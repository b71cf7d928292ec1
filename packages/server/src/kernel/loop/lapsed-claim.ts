import type { ToolManifest } from '@airlock/core';
import type { RunTable, TaskTable } from '../../store/schema.js';
import { frozenOf } from '../stage/policy-layers.js';

/** The traits a tool may declare and still be read-only: it reads, perhaps over the network. */
const READ_ONLY_TRAITS: readonly string[] = ['read', 'network'];

/**
 * Whether an executor's row whose claim lapsed on a running run may go back to
 * the inbox and run again. The kernel cannot tell a lapse after the tool ran
 * from one before it started, so only a tool the run's frozen manifest
 * declares read-only (`read`, perhaps `network`, nothing else) or idempotent
 * (`idempotent: true`, which an MCP bridge sets from `idempotentHint`) runs
 * again; a tool it declares otherwise (an MCP bridge registers every tool it
 * serves) does not, since a second run on one approval could act twice. A tool the
 * manifest does not name, or a run without one, keeps the executors'
 * at-least-once contract.
 */
export function mayRunAgainAfterLapse(
  run: Pick<RunTable, 'id' | 'policy_layers'>,
  task: Pick<TaskTable, 'tool_name' | 'resolved_tool_name'>,
): boolean {
  const manifest = frozenOf(run)?.tool_manifest as ToolManifest | undefined;
  const name = task.resolved_tool_name ?? task.tool_name;
  const entry = manifest?.find((tool) => tool.name === name);
  if (entry === undefined || entry.idempotent === true) return true;
  return (
    entry.risk_traits.includes('read') &&
    entry.risk_traits.every((trait) => READ_ONLY_TRAITS.includes(trait))
  );
}

/** Why a lapsed claim of a tool that may not run again fails `outcome_unknown`. */
export function lapsedWithoutCommit(toolName: string): string {
  return `the executor's claim on this call lapsed without a commit, so the tool may have run; the run's tool manifest does not declare ${toolName} read-only or idempotent, so it is not run again on this approval`;
}
