import { z } from 'zod';
import { LeaseSchema, RunParams, TaskParams } from '../inputs.js';
import { CALL_ID_MAX, CALL_NAME_MAX, DENY_REASON_MAX } from '../kernel-limits.js';
import { defineContract } from '../operation.js';
import { JsonValueSchema } from '../registry.js';
import { operationRoute } from '../routes.js';
import { keptText, personText, storableName } from '../stored-text.js';
import { ClaimSchema, OnFailureSchema, RunViewSchema, TaskViewSchema } from '../views.js';

/** One call a gateway client asks for. */
const GatewayCallSchema = z.strictObject({
  name: storableName(z.string().min(1).max(CALL_NAME_MAX)),
  input: JsonValueSchema.optional(),
  /** The client's id for the call (an MCP request id), kept on the row. */
  id: storableName(z.string().max(CALL_ID_MAX)).optional(),
  on_failure: OnFailureSchema.optional(),
});

/** POST /api/v1/workspaces/{ws}/runs/{run}/calls: a gateway client's round. */
export const submitCallsContract = defineContract({
  ...operationRoute('runs.calls'),
  summary:
    "Plant a gateway client's calls as model rows (or end the run with its final answer); each crosses the approval stage",
  planes: ['agent', 'member'],
  status: 201,
  input: z.strictObject({
    ...RunParams,
    calls: z.array(GatewayCallSchema).min(1).max(64).optional(),
    final: keptText(z.string().max(1_000_000)).optional(),
    /**
     * The caller runs the calls the stage grants itself (a gateway with the
     * tools in its own process): each granted row is claimed for it in the
     * same transaction, and its claim comes back in `claims`. The row is
     * committed like any claim, through the executor plane with the claim id.
     */
    claim: z.strictObject({ lease_ms: LeaseSchema }).optional(),
  }),
  output: z.object({
    run: RunViewSchema,
    tasks: z.array(TaskViewSchema),
    /** The claims of the granted rows, when the round asked for them (`claim`). */
    claims: z.array(ClaimSchema).optional(),
  }),
  errors: ['run_not_found', 'run_not_running', 'run_not_gateway', 'run_busy'],
});

/** POST /api/v1/workspaces/{ws}/runs/{run}/calls/{task_key}/cancel */
export const cancelCallContract = defineContract({
  ...operationRoute('runs.cancelCall'),
  summary: "Cancel a gateway client's call that has not started (parked ones included)",
  planes: ['agent', 'member'],
  input: z.strictObject({
    ...TaskParams,
    /**
     * Why the caller gives the call up (an MCP client's `notifications/cancelled` reason, a
     * framework that dropped it): kept on the row as its error's detail, shown in the run's story
     * and the audit trail.
     */
    reason: personText(z.string().min(1).max(DENY_REASON_MAX)).optional(),
  }),
  output: TaskViewSchema,
  errors: [
    'run_not_found',
    'task_not_found',
    'run_not_running',
    'run_not_gateway',
    'task_not_waiting',
  ],
});
