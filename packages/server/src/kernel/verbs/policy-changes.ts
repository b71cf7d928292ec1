import { createHash } from 'node:crypto';
import { canonicalJson, type PolicyChange } from '@airlock/core';
import type { Tx } from '../../store/store.js';

/** The digest of a profile configuration: SHA-256 of its canonical JSON, as overlays have. */
export function configurationDigest(configuration: unknown): string {
  return `sha256:${createHash('sha256').update(canonicalJson(configuration)).digest('hex')}`;
}

/**
 * Records a change of policy in the workspace's event log, in the
 * transaction that made it, so the audit trail (and `airlock audit export`)
 * shows who changed which document from which digest to which, and the
 * rule saved. `runId` names the approved row's run for a remember; other
 * changes belong to no run.
 */
export function recordPolicyChange(
  tx: Tx,
  options: {
    workspaceId: string;
    principal: string;
    change: PolicyChange;
    detail: string;
    runId?: string | undefined;
    taskKey?: string | undefined;
  },
): void {
  tx.emit({
    workspace_id: options.workspaceId,
    run_id: options.runId ?? '',
    task_key: options.taskKey ?? null,
    type: 'policy.changed',
    data: { ...options.change, detail: options.detail },
    principal: options.principal,
  });
}
