import type { HookedAnswer } from '@airlock/core';
import type { CallVerdict } from './call-verdict.js';

/**
 * What a resume makes of the kernel's answer to a `look` at a parked call
 * (see {@link FrameworkSession.decided}): `allow` for a call decided to run
 * whose grant is still to take (the process that runs it takes the grant at
 * its check), `wait` while nobody decided, `deny` with the reason the model
 * reads for a refusal, and for a call already granted to another check or
 * already run, which must not run again here.
 */
export function decisionOfLook(answer: HookedAnswer): CallVerdict {
  const base = {
    reason: answer.reason,
    taskKey: answer.task_key,
    runId: answer.run_id,
    requiresUser: answer.requires_user,
  };
  const where = `Airlock run ${answer.run_id}, task ${answer.task_key}`;
  if (answer.verdict === 'allow' && answer.task_state === 'runnable') {
    return {
      ...base,
      verdict: 'allow',
      ...(answer.updated_input === undefined ? {} : { updatedInput: answer.updated_input }),
    };
  }
  if (answer.verdict === 'allow' && answer.task_state === 'claimed') {
    return {
      ...base,
      verdict: 'deny',
      reason: `this call was already granted to another check of it (${where}): a call is granted once`,
      code: 'not_claimable',
    };
  }
  if (answer.verdict === 'allow') {
    return { ...base, verdict: 'deny', reason: `this call already ran (${where})` };
  }
  if (answer.verdict === 'wait') return { ...base, verdict: 'wait' };
  return { ...base, verdict: 'deny', reason: answer.reason ?? 'Airlock refused this call' };
}
