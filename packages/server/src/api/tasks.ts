import { OPERATION_CONTRACTS } from '@airlock/core';
import { readRun } from '../kernel/machines/run-state.js';
import { decisionViews } from '../kernel/verbs/approval-quorum.js';
import { appendAuthorRow, readTask } from '../kernel/verbs/decisions.js';
import { listTasksOfRun } from '../store/tasks.js';
import { implement } from './operation.js';
import { decodeTaskCursor, encodeTaskCursor, pageOf } from './page-cursors.js';

/**
 * GET /api/v1/workspaces/{ws}/runs/{run}/tasks: the run's rows in planting
 * order, every one or (with `limit`) a page; `next_cursor` is where the next
 * page starts, null once no row follows.
 * @throws run_not_found; invalid_input for a cursor this run's list did not make.
 */
export const listTasks = implement(
  OPERATION_CONTRACTS['tasks.list'],
  async ({ kernel, principal }, input) => {
    await readRun(kernel.context.store, principal.workspace_id, input.run_id);
    const afterKey =
      input.cursor === undefined ? undefined : decodeTaskCursor(input.cursor, input.run_id);
    const { limit } = input;
    // One row past the page tells whether another page follows.
    const rows = await listTasksOfRun(kernel.context.store, input.run_id, {
      limit: limit === undefined ? undefined : limit + 1,
      afterKey,
    });
    const { page, next_cursor } = pageOf(rows, limit, encodeTaskCursor);
    return {
      tasks: await decisionViews(kernel.context.store, principal.workspace_id, page),
      next_cursor,
    };
  },
);

/** GET /api/v1/workspaces/{ws}/runs/{run}/tasks/{key} */
export const getTask = implement(
  OPERATION_CONTRACTS['tasks.get'],
  async ({ kernel, principal }, input) => {
    await readRun(kernel.context.store, principal.workspace_id, input.run_id);
    const row = await readTask(kernel.context.store, input.run_id, input.task_key);
    const [view] = await decisionViews(kernel.context.store, principal.workspace_id, [row]);
    return view!;
  },
);

/** POST /api/v1/workspaces/{ws}/runs/{run}/tasks: the tasks door (author rows). */
export const appendTask = implement(
  OPERATION_CONTRACTS['tasks.append'],
  ({ kernel, principal }, input) => {
    return appendAuthorRow(kernel.context, principal, {
      runId: input.run_id,
      tool_name: input.tool_name,
      tool_input: input.tool_input,
      on_failure: input.on_failure,
    });
  },
);
