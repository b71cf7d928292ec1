import { OPERATION_CONTRACTS, type RetentionPolicyView } from '@airlock/core';
import { AirlockError } from '../errors.js';
import type { Kernel } from '../kernel/kernel.js';
import { configurationDigest, recordPolicyChange } from '../kernel/verbs/policy-changes.js';
import { principalName } from '../store/accounts.js';
import {
  type RetentionPolicyRow,
  type RetentionWindows,
  readRetentionPolicy,
  readRetentionPolicyToReplace,
  writeRetentionPolicy,
} from '../store/retention.js';
import { implement } from './operation.js';

/**
 * A policy as the member plane shows it, with what fails this kernel's pruning passes while
 * they keep failing (the pruner is the kernel's, for every workspace: a pass stopped by one
 * workspace's export prunes none after it). The failure's codes only: its message names
 * files of the export directory, other workspaces' folders among them.
 */
function policyView(kernel: Kernel, row: RetentionPolicyRow | undefined): RetentionPolicyView {
  const failure = kernel.pruner?.failure ?? null;
  return {
    events_days: row?.events_days ?? null,
    runs_days: row?.runs_days ?? null,
    audit_days: row?.audit_days ?? null,
    updated_by: row?.updated_by ?? null,
    updated_at: row === undefined ? null : Number(row.updated_at),
    pruned_through: Number(row?.pruned_through ?? 0),
    pass_failure:
      failure === null
        ? null
        : {
            passes: failure.passes,
            since: failure.since,
            code: failure.code,
            cause_code: failure.causeCode,
          },
  };
}

/** A policy's three windows alone: what the audit trail shows before and after a change. */
type Windows = { [K in keyof RetentionWindows]: RetentionWindows[K] };

function windowsOf(row: RetentionWindows): Windows {
  return { events_days: row.events_days, runs_days: row.runs_days, audit_days: row.audit_days };
}

/** `events 90 d, runs kept, audit 365 d`: a policy in one phrase, for an audit line's detail. */
function describeWindows(windows: RetentionWindows): string {
  const one = (name: string, days: number | null) =>
    `${name} ${days === null ? 'kept' : `${days} d`}`;
  return [
    one('events', windows.events_days),
    one('runs', windows.runs_days),
    one('audit', windows.audit_days),
  ].join(', ');
}

/** GET /api/v1/workspaces/{ws}/retention */
export const getRetention = implement(
  OPERATION_CONTRACTS['retention.get'],
  async ({ kernel, principal }) =>
    policyView(kernel, await readRetentionPolicy(kernel.context.store, principal.workspace_id)),
);

/**
 * PUT /api/v1/workspaces/{ws}/retention: the kernel's next retention pass
 * applies it. The change is an audit record (who, the windows before and
 * after) written in the same transaction.
 */
export const putRetention = implement(
  OPERATION_CONTRACTS['retention.put'],
  async ({ kernel, principal }, input) =>
    kernel.context.store.transaction(async (tx) => {
      const workspaceId = principal.workspace_id;
      const who = principalName(principal);
      const found = await readRetentionPolicyToReplace(tx, workspaceId);
      const current = found === undefined ? null : Number(found.updated_at);
      if (input.expected_updated_at !== undefined && input.expected_updated_at !== current) {
        throw new AirlockError(
          'stale_digest',
          current === null
            ? `the workspace has no retention policy yet, not one updated at ${input.expected_updated_at}; read it again`
            : `the retention policy was changed at ${current} by ${found?.updated_by}, after the read it was updated at ${
                input.expected_updated_at ?? 'never'
              }; read it again`,
        );
      }
      const before = found === undefined ? null : windowsOf(found);
      const after = windowsOf(input);
      const written = await writeRetentionPolicy(tx, { workspaceId, principal: who, ...after });
      recordPolicyChange(tx, {
        workspaceId,
        principal: who,
        change: {
          change: 'retention_policy_replaced',
          scope: 'retention_policy',
          owner_id: workspaceId,
          before_digest: before === null ? null : configurationDigest(before),
          after_digest: configurationDigest(after),
          before,
          after,
        },
        detail: `set retention: ${describeWindows(after)} (was: ${
          before === null ? 'no policy, everything kept' : describeWindows(before)
        })`,
      });
      return policyView(kernel, written);
    }),
);
