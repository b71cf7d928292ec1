import { z } from 'zod';
import { AirlockError } from '../kernel/errors.js';
import { cancelGatewayCall, submitGatewayRound } from '../kernel/gateway-calls.js';
import { RunViewSchema, runView, TaskViewSchema, taskView } from '../kernel/views.js';
import { defineOperation } from './operation.js';
import { OnFailureSchema, RunParams, TaskParams } from './schemas.js';

/** One call a gateway client asks for. */
const GatewayCallSchema = z.strictObject({
  name: z.string().min(1).max(512),
  input: z.unknown().optional(),
  /** The client's id for the call (an MCP request id), kept on the row. */
  id: z.string().max(200).optional(),
  on_failure: OnFailureSchema.optional(),
});

/** POST /api/v1/workspaces/{ws}/runs/{run}/calls: a gateway client's round. */
export const submitCalls = defineOperation({
  name: 'runs.calls',
  summary:
    "Plant a gateway client's calls as model rows (or end the run with its final answer); each crosses the approval stage",
  method: 'POST',
  path: '/api/v1/workspaces/{workspace_id}/runs/{run_id}/calls',
  planes: ['agent', 'member'],
  status: 201,
  input: z.strictObject({
    ...RunParams,
    calls: z.array(GatewayCallSchema).min(1).max(64).optional(),
    final: z.string().max(1_000_000).optional(),
  }),
  output: z.object({ run: RunViewSchema, tasks: z.array(TaskViewSchema) }),
  async handle({ kernel, principal }, input) {
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
    const { run, tasks } = await submitGatewayRound(
      kernel.context,
      principal,
      input.run_id,
      submission,
    );
    return { run: runView(run), tasks: tasks.map(taskView) };
  },
});

/** POST /api/v1/workspaces/{ws}/runs/{run}/calls/{task_key}/cancel */
export const cancelCall = defineOperation({
  name: 'runs.cancelCall',
  summary: "Cancel a gateway client's call that has not started (parked ones included)",
  method: 'POST',
  path: '/api/v1/workspaces/{workspace_id}/runs/{run_id}/calls/{task_key}/cancel',
  planes: ['agent', 'member'],
  input: z.strictObject(TaskParams),
  output: TaskViewSchema,
  handle({ kernel, principal }, input) {
    return cancelGatewayCall(kernel.context, principal, input.run_id, input.task_key);
  },
});
