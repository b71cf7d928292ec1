import { OPERATION_CONTRACTS, type RetentionPolicyView } from '@airlock/core';
import { principalName } from '../store/accounts.js';
import {
  type RetentionPolicyRow,
  readRetentionPolicy,
  writeRetentionPolicy,
} from '../store/retention.js';
import { implement } from './operation.js';

function policyView(row: RetentionPolicyRow | undefined): RetentionPolicyView {
  return {
    events_days: row?.events_days ?? null,
    runs_days: row?.runs_days ?? null,
    audit_days: row?.audit_days ?? null,
    updated_by: row?.updated_by ?? null,
    updated_at: row === undefined ? null : Number(row.updated_at),
    pruned_through: Number(row?.pruned_through ?? 0),
  };
}

/** GET /api/v1/workspaces/{ws}/retention */
export const getRetention = implement(
  OPERATION_CONTRACTS['retention.get'],
  async ({ kernel, principal }) =>
    policyView(await readRetentionPolicy(kernel.context.store, principal.workspace_id)),
);

/** PUT /api/v1/workspaces/{ws}/retention: the kernel's next retention pass applies it. */
export const putRetention = implement(
  OPERATION_CONTRACTS['retention.put'],
  async ({ kernel, principal }, input) =>
    policyView(
      await writeRetentionPolicy(kernel.context.store, {
        workspaceId: principal.workspace_id,
        principal: principalName(principal),
        events_days: input.events_days,
        runs_days: input.runs_days,
        audit_days: input.audit_days,
      }),
    ),
);
