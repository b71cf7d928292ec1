import { HOOKED_OUTPUT_MAX_BYTES, type HookedRanCall, truncateUtf8 } from '@airlock/core';
import { findModelRowByCallId } from '../../store/hooked-rows.js';
import type { RunTable } from '../../store/schema.js';
import type { KernelContext } from '../context.js';
import { moveTask } from '../machines/move-task.js';
import { lockRun } from '../machines/run-state.js';
import { hookedPrincipal } from './agent-calls.js';
import { toolFailure } from './hooked-reports.js';
import { ranResult } from './ran-result.js';

/**
 * At the turn's stop: fails the rows whose call the agent reported as run
 * and succeeded while its own transcript shows the call failed. Codex
 * 0.169's `PostToolUse` carries a command's output but not its exit code, so
 * its report of `false` reads as a success; the transcript's exec output
 * names the exit code (read by the hook client, `ran_calls`). Only rows found
 * by the agent's call id are corrected, and only from succeeded to failed: a
 * report that said failed stays failed.
 */
export async function correctReportedOutcomes(
  ctx: KernelContext,
  run: RunTable,
  agent: string,
  ranCalls: readonly HookedRanCall[],
): Promise<void> {
  const failed = ranCalls.filter((call) => call.outcome === 'failed');
  if (failed.length === 0) return;
  await ctx.store.transaction(async (tx) => {
    const locked = await lockRun(tx, run.workspace_id, run.id);
    for (const call of failed) {
      const row = await findModelRowByCallId(tx, locked.id, call.tool_use_id);
      if (row?.state !== 'succeeded' || row.kind !== 'tool') continue;
      const output = truncateUtf8(call.output ?? '', HOOKED_OUTPUT_MAX_BYTES);
      // The detail says where the failure was read, since the agent's report said otherwise.
      const error = toolFailure(`the ${agent} transcript shows it failed: ${output}`);
      await moveTask(tx, {
        verb: 'correct_outcome',
        run: locked,
        key: row.key,
        to: 'failed',
        set: {
          error_code: error.code,
          error_detail: error.detail,
          // The report's output stays unless the transcript has one.
          ...(output ? { result: ranResult(output) } : {}),
        },
        event: { type: 'task.failed', data: { error } },
        principal: hookedPrincipal(agent),
        settle: { ctx, run: locked },
      });
    }
  });
}
