import { OPERATION_CONTRACTS } from '@airlock/core';
import { readRun } from '../kernel/machines/run-state.js';
import { decisionViews } from '../kernel/verbs/approval-quorum.js';
import { appendAuthorRow, readTask } from '../kernel/verbs/decisions.js';
import { implement } from './operation.js';
import { decodeTaskCursor, encodeTaskCursor } from './page-cursors.js';
import { readTaskPage, TASK_PAGE_BYTES } from './task-pages.js';

/**
 * GET /api/v1/workspaces/{ws}/runs/{run}/tasks: the run's rows in planting
 * order, a page at a time: at most `limit` rows (every row when absent), fewer
 * once their text passes {@link TASK_PAGE_BYTES}, never none; `next_cursor` is
 * where the next page starts, null once no row follows.
 * @throws run_not_found; invalid_input for a cursor this run's list did not make.
 */
export const listTasks = implement(
  OPERATION_CONTRACTS['tasks.list'],
  async ({ kernel, principal }, input) => {
    await readRun(kernel.context.store, principal.workspace_id, input.run_id);
    const afterKey =
      input.cursor === undefined ? undefined : decodeTaskCursor(input.cursor, input.run_id);
    const { rows, more } = await readTaskPage(kernel.context.store, input.run_id, {
      limit: input.limit,
      afterKey,
    });
    const last = rows[rows.length - 1];
    return {
      tasks: await decisionViews(kernel.context.store, principal.workspace_id, rows),
      next_cursor: more && last !== undefined ? encodeTaskCursor(last) : null,
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
