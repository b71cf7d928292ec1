import { z } from 'zod';
import { RunParams, TaskParams } from '../inputs.js';
import { defineContract } from '../operation.js';
import { JsonValueSchema } from '../registry.js';
import { operationRoute } from '../routes.js';
import { storableName } from '../stored-text.js';
import { AppendedTaskViewSchema, OnFailureSchema, TaskViewSchema } from '../views.js';
import { NextCursorSchema, PageCursorSchema } from './runs.js';

/** GET /api/v1/workspaces/{ws}/runs/{run}/tasks */
export const listTasksContract = defineContract({
  ...operationRoute('tasks.list'),
  summary:
    "List a run's task rows in order (t1, t2, ...), a page at a time: every row after the cursor, or at most limit rows, and fewer once their calls and results pass about 8 MiB of text (never none), limit or not; follow next_cursor (pass it back as cursor) until it is null",
  planes: ['agent', 'member'],
  input: z.strictObject({
    ...RunParams,
    // No default: a caller that names no limit reads every row up to the page's byte budget.
    limit: z
      .number()
      .int()
      .min(1)
      .max(1000)
      .optional()
      .describe(
        'At most this many rows (1 to 1000); when absent, every row after the cursor that fits in about 8 MiB (next_cursor says where the rest start).',
      ),
    cursor: PageCursorSchema.optional(),
  }),
  output: z.object({ tasks: z.array(TaskViewSchema), next_cursor: NextCursorSchema }),
  errors: ['run_not_found'],
});

/** GET /api/v1/workspaces/{ws}/runs/{run}/tasks/{key} */
export const getTaskContract = defineContract({
  ...operationRoute('tasks.get'),
  summary: 'Read one task row: its state, call, frozen effect profile and result',
  planes: ['agent', 'member'],
  input: z.strictObject(TaskParams),
  output: TaskViewSchema,
  errors: ['run_not_found', 'task_not_found'],
});

/** POST /api/v1/workspaces/{ws}/runs/{run}/tasks: the tasks door (author rows). */
export const appendTaskContract = defineContract({
  ...operationRoute('tasks.append'),
  summary:
    "Append an author row: granted by its origin where the workspace's approval policy lets the appender alone approve it and no guardrail asks, else parked for the policy (the appender's approval counted when allowed) or refused by a guardrail; an ask row returns its resolution_token",
  planes: ['member'],
  status: 201,
  input: z.strictObject({
    ...RunParams,
    tool_name: storableName(z.string().min(1).max(512)),
    tool_input: JsonValueSchema.default({}),
    on_failure: OnFailureSchema.optional(),
  }),
  output: AppendedTaskViewSchema,
  errors: ['run_not_found', 'run_not_running', 'invalid_question', 'invalid_configuration'],
});
