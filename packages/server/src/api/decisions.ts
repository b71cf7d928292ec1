import { OPERATION_CONTRACTS } from '@airlock/core';
import { decisionViews } from '../kernel/verbs/approval-quorum.js';
import { approveTask } from '../kernel/verbs/approvals.js';
import { denyTask, resolveTask } from '../kernel/verbs/decisions.js';
import { retryTask } from '../kernel/verbs/retry.js';
import type { TaskTable } from '../store/schema.js';
import { pageOpenDecisions } from '../store/tasks.js';
import { implement } from './operation.js';
import { decodeDecisionCursor, encodeDecisionCursor, pageOf } from './page-cursors.js';
import { ROW_PAGE_BYTES, taskRowBytes } from './row-bytes.js';

function address(input: { workspace_id: string; run_id: string; task_key: string }) {
  return { workspaceId: input.workspace_id, runId: input.run_id, taskKey: input.task_key };
}

/** POST .../tasks/{key}/approve */
export const approve = implement(
  OPERATION_CONTRACTS['decisions.approve'],
  ({ kernel, principal }, input) => {
    return approveTask(kernel.context, principal, address(input), {
      version: input.version,
      remember: input.remember,
      toolInput: input.tool_input,
    });
  },
);

/** POST .../tasks/{key}/deny */
export const deny = implement(
  OPERATION_CONTRACTS['decisions.deny'],
  ({ kernel, principal }, input) => {
    return denyTask(kernel.context, principal, address(input), input.reason, input.version);
  },
);

/** POST .../tasks/{key}/resolution */
export const resolution = implement(
  OPERATION_CONTRACTS['decisions.resolve'],
  ({ kernel, principal }, input) => {
    return resolveTask(kernel.context, principal, address(input), input);
  },
);

/** POST .../tasks/{key}/retry */
export const retry = implement(
  OPERATION_CONTRACTS['decisions.retry'],
  ({ kernel, principal }, input) => {
    return retryTask(kernel.context, principal, address(input));
  },
);

/** About how many bytes of stored call text one page of decisions holds at most (see ROW_PAGE_BYTES). */
export const DECISION_PAGE_BYTES = ROW_PAGE_BYTES;

/** How many of `rows` (at most `limit`) one page holds within {@link DECISION_PAGE_BYTES}; at least one. */
function rowsWithinBytes(rows: readonly TaskTable[], limit: number): number {
  let bytes = 0;
  let count = 0;
  for (const row of rows.slice(0, limit)) {
    bytes += taskRowBytes(row);
    if (count > 0 && bytes > DECISION_PAGE_BYTES) break;
    count += 1;
  }
  return count;
}

/**
 * GET /api/v1/workspaces/{ws}/decisions: every row resting on a person, a page
 * at a time (at most `limit` rows, fewer when their calls' text passes
 * {@link DECISION_PAGE_BYTES}); `next_cursor` is where the next page starts,
 * null once no row follows.
 * @throws invalid_input for a cursor this list did not make.
 */
export const listDecisions = implement(
  OPERATION_CONTRACTS['decisions.list'],
  async ({ kernel, principal }, input) => {
    const store = kernel.context.store;
    const after = input.cursor === undefined ? undefined : decodeDecisionCursor(input.cursor);
    // One row past the page tells whether another page follows.
    const { rows, total } = await pageOpenDecisions(store, principal.workspace_id, {
      limit: input.limit + 1,
      order: input.order,
      after,
    });
    const fits = rowsWithinBytes(rows, input.limit);
    const { page, next_cursor } = pageOf(rows, fits, encodeDecisionCursor);
    return {
      // Views with each call's approval progress and the names of who approved it so far.
      decisions: await decisionViews(store, principal.workspace_id, page),
      total,
      next_cursor,
    };
  },
);
