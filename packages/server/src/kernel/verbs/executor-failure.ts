import type { RowFailureCode } from '@airlock/core';

/**
 * The failure codes the kernel assigns when a person decides a row or one of
 * its clocks runs out; the kernel branches on them (a denied call is data
 * the model reads and holds nothing; a retried expired park or question
 * waits again). Only the kernel writes them: an executor never decides.
 */
const DECIDED_BY_KERNEL: ReadonlySet<string> = new Set<RowFailureCode>([
  'approval_denied',
  'approval_expired',
  'question_expired',
  'declined',
  'invalid_question',
  'hook_timed_out',
  'outcome_unknown',
  'canceled',
  'abandoned',
  'agent_application_removed',
]);

/**
 * The failure an executor's commit records: its own code and detail, except
 * that a code the kernel keeps for its decisions and clocks is recorded as
 * `tool_failed`, the code the executor sent leading its detail. The call ran
 * (a bridge may relay a downstream tool's own "denied"), so the commit is
 * kept, result and all, and the row follows its on_failure like any failure.
 */
export function executorFailure(
  error: { code: string; detail: string } | undefined,
): { code: string; detail: string } | undefined {
  if (!error || !DECIDED_BY_KERNEL.has(error.code)) return error;
  return { code: 'tool_failed', detail: `the executor reported ${error.code}: ${error.detail}` };
}
