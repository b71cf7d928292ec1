import { OPERATION_CONTRACTS } from '@airlock/core';
import { AirlockError } from '../errors.js';
import { cancelGatewayCall, submitGatewayRound } from '../kernel/verbs/gateway-calls.js';
import { runView, taskView } from '../kernel/views.js';
import { implement } from './operation.js';

/** POST /api/v1/workspaces/{ws}/runs/{run}/calls: a gateway client's round. */
export const submitCalls = implement(
  OPERATION_CONTRACTS['runs.calls'],
  async ({ kernel, principal }, input) => {
    if ((input.calls === undefined) === (input.final === undefined)) {
      throw new AirlockError('invalid_input', 'send either calls or final, exactly one of them');
    }
    const submission =
      input.calls !== undefined
        ? {
            calls: input.calls.map((call) => ({
              id: call.id ?? null,
              name: call.name,
              input: call.input ?? {},
              onFailure: call.on_failure,
            })),
          }
        : { final: input.final ?? '' };
    const { run, tasks, claims } = await submitGatewayRound(
      kernel.context,
      principal,
      input.run_id,
      submission,
      { claim: input.claim && { leaseMs: input.claim.lease_ms } },
    );
    // A row claimed in the round answers as claimed.
    const claimed = new Map(claims.map((claim) => [claim.task.key, claim.task]));
    return {
      run: runView(run),
      tasks: tasks.map((task) => claimed.get(task.key) ?? taskView(task)),
      ...(input.claim ? { claims } : {}),
    };
  },
);

/** POST /api/v1/workspaces/{ws}/runs/{run}/calls/{task_key}/cancel */
export const cancelCall = implement(
  OPERATION_CONTRACTS['runs.cancelCall'],
  ({ kernel, principal }, input) => {
    return cancelGatewayCall(kernel.context, principal, input.run_id, input.task_key, input.reason);
  },
);
