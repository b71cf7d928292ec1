import { z } from 'zod';
import { appendAuthorRow, readTask } from '../kernel/decisions.js';
import { readRun } from '../kernel/run-state.js';
import { TaskViewSchema, taskView } from '../kernel/views.js';
import { defineOperation } from './operation.js';
import { OnFailureSchema, RunParams, TaskParams } from './schemas.js';

/** GET /api/v1/workspaces/{ws}/runs/{run}/tasks */
export const listTasks = defineOperation({
  name: 'tasks.list',
  summary: "List a run's task rows in order",
  method: 'GET',
  path: '/api/v1/workspaces/{workspace_id}/runs/{run_id}/tasks',
  planes: ['agent', 'member'],
  input: z.strictObject(RunParams),
  output: z.object({ tasks: z.array(TaskViewSchema) }),
  async handle({ kernel, principal }, input) {
    await readRun(kernel.context.store, principal.workspace_id, input.run_id);
    const rows = await kernel.context.store.db
      .selectFrom('tasks')
      .selectAll()
      .where('run_id', '=', input.run_id)
      .execute();
    const order = (key: string) => Number.parseInt(key.slice(1), 10);
    rows.sort((a, b) => order(a.key) - order(b.key));
    return { tasks: rows.map(taskView) };
  },
});

/** GET /api/v1/workspaces/{ws}/runs/{run}/tasks/{key} */
export const getTask = defineOperation({
  name: 'tasks.get',
  summary: 'Read one task row: its state, call, frozen effect profile and result',
  method: 'GET',
  path: '/api/v1/workspaces/{workspace_id}/runs/{run_id}/tasks/{task_key}',
  planes: ['agent', 'member'],
  input: z.strictObject(TaskParams),
  output: TaskViewSchema,
  async handle({ kernel, principal }, input) {
    await readRun(kernel.context.store, principal.workspace_id, input.run_id);
    return taskView(await readTask(kernel.context.store, input.run_id, input.task_key));
  },
});

/** POST /api/v1/workspaces/{ws}/runs/{run}/tasks: the tasks door (author rows). */
export const appendTask = defineOperation({
  name: 'tasks.append',
  summary:
    'Append an author row (pre-approved by its origin unless a rule names author); an ask row returns its resolution_token',
  method: 'POST',
  path: '/api/v1/workspaces/{workspace_id}/runs/{run_id}/tasks',
  planes: ['member'],
  status: 201,
  input: z.strictObject({
    ...RunParams,
    tool_name: z.string().min(1).max(512),
    tool_input: z.unknown().default({}),
    on_failure: OnFailureSchema.optional(),
  }),
  output: TaskViewSchema.extend({
    /** Only on a question: the token that alone answers it (shown once). */
    resolution_token: z.string().optional(),
  }),
  handle({ kernel, principal }, input) {
    return appendAuthorRow(kernel.context, principal, {
      runId: input.run_id,
      tool_name: input.tool_name,
      tool_input: input.tool_input,
      on_failure: input.on_failure,
    });
  },
});
