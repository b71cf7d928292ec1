import { setTimeout as sleep } from 'node:timers/promises';
import type { HookedRanCall } from '@airlock/core';
import { listClaimedModelRows, listModelCalls } from '../../store/hooked-rows.js';
import type { RunTable } from '../../store/schema.js';
import type { Tx } from '../../store/store.js';
import type { KernelContext } from '../context.js';
import { NOT_RUN, OUTCOME_UNKNOWN } from '../machines/task-machine.js';
import { commitRan, failClaimed } from './hooked-reports.js';
import { idlessRowCalls } from './idless-rows.js';

/*
 * The calls a hooked agent was granted but never reported, at its turn's
 * stop: waited for while their reports may be on their way, then closed with
 * what the agent's transcript shows of them.
 */

/**
 * The calls the agent's transcript shows returned (ran to a result), by the
 * agent's call id: read by the hook client at the turn's stop (`ran_calls`).
 */
function returnedCalls(ranCalls: readonly HookedRanCall[]): Map<string, HookedRanCall> {
  const returned = new Map<string, HookedRanCall>();
  for (const call of ranCalls) if (hasReturned(call)) returned.set(call.tool_use_id, call);
  return returned;
}

/** True of a transcript call that returned (its result is in the transcript). */
function hasReturned(call: HookedRanCall): boolean {
  return call.outcome !== undefined || call.output !== undefined;
}

/**
 * Closes the calls the agent was allowed but never reported: failed
 * `not_run` when its transcript does not show them returned (the agent
 * stopped before them), so the turn can end and the story says they did
 * not run; should the call's report come after all, it corrects the row. A call the agent's
 * transcript shows succeeded did run, its report lost or still on its way:
 * it is committed with what the transcript shows instead. A call the
 * transcript shows returned without saying how (a Codex call that is no
 * exec: a patch, an MCP tool) may have run: it fails `outcome_unknown`,
 * which its report, should it come after all, corrects. The calls of an
 * agent whose hooks carry no call id are matched by tool and input (see
 * {@link idlessRowCalls}). A failed result proves nothing either (the
 * agent's own refusal of a call reads the same): `outcome_unknown`. A stop
 * that carries no transcript (`ranCalls` undefined: the agent named none,
 * or its client could not read it) says nothing of any call, so each
 * unreported one fails `outcome_unknown` too, never `not_run`.
 */
export async function closeUnreported(
  ctx: KernelContext,
  tx: Tx,
  run: RunTable,
  agent: string,
  ranCalls: readonly HookedRanCall[] | undefined,
): Promise<void> {
  const rows = await listClaimedModelRows(tx, run.id);
  const returned = returnedCalls(ranCalls ?? []);
  // An agent whose hooks carry no call id (Gemini CLI): its rows are matched by tool and input.
  const idless =
    ranCalls !== undefined && rows.some((row) => row.tool_call_id === null)
      ? idlessRowCalls(await listModelCalls(tx, run.id), ranCalls)
      : new Map<string, HookedRanCall>();
  for (const row of rows) {
    if (row.claim_id === null) continue;
    const shown = row.tool_call_id === null ? idless.get(row.key) : returned.get(row.tool_call_id);
    const ran = shown !== undefined && hasReturned(shown) ? shown : undefined;
    if (ran?.outcome === 'succeeded') {
      const call = {
        toolName: row.tool_name,
        toolInput: JSON.parse(row.tool_input) as unknown,
        toolUseId: row.tool_call_id,
        outcome: ran.outcome,
        output: ran.output ?? '',
        answeredByUser: false,
      };
      await commitRan(ctx, tx, run, { agent, ran: call, row, verb: 'commit' });
      continue;
    }
    await failClaimed(ctx, tx, run, {
      row,
      claimId: row.claim_id,
      agent,
      error: unreportedError(agent, ranCalls === undefined ? 'none' : ran),
    });
  }
}

/**
 * Why an unreported claimed call is closed, by what the stop's transcript
 * showed of it: no transcript at all (`none`), or the call returned without
 * an outcome or failed (the agent's own refusal reads the same as a call
 * that ran and failed): it may have run; else it did not return, nor run.
 */
function unreportedError(
  agent: string,
  shown: HookedRanCall | undefined | 'none',
): { code: string; detail: string } {
  if (shown === 'none') {
    return {
      code: OUTCOME_UNKNOWN,
      detail: `${agent} did not report this call, and its stop carried no transcript to tell whether it ran: it may have run`,
    };
  }
  if (shown !== undefined && shown.outcome === undefined) {
    return {
      code: OUTCOME_UNKNOWN,
      detail: `${agent} did not report this call, and its transcript shows it returned without saying whether it succeeded: it may have run`,
    };
  }
  if (shown !== undefined && shown.outcome === 'failed') {
    return {
      code: OUTCOME_UNKNOWN,
      detail: `${agent} did not report this call, and its transcript shows it returned failed, as the agent's own refusal of it would: it may have run`,
    };
  }
  return { code: NOT_RUN, detail: `${agent} did not report running this call` };
}

/**
 * How long a call's report may still be on its way: Claude Code sends
 * `PostToolUse` from a hook that runs in the background, so a turn's `Stop`
 * can arrive before the report of its last call.
 */
export const REPORT_GRACE_MS = 1_500;

/** How often a `Stop` looks again for reports still on their way. */
const REPORT_POLL_MS = 20;

/**
 * Waits (at most {@link REPORT_GRACE_MS}) until the agent reported every
 * call of the run whose report may be on its way: one granted within the
 * grace, or one the agent's transcript (`ranCalls`) shows returned, however
 * long it ran. Returns at once when no granted call is unreported, or when
 * every unreported one was granted longer ago than the grace and did not
 * return (its report is not coming).
 */
export async function awaitReportsInFlight(
  ctx: KernelContext,
  runId: string,
  ranCalls: readonly HookedRanCall[] = [],
): Promise<void> {
  const started = performance.now();
  const returned = returnedCalls(ranCalls);
  for (;;) {
    const rows = await listClaimedModelRows(ctx.store, runId);
    const now = ctx.store.now();
    const coming = rows.some(
      (row) =>
        now - row.updated_at < REPORT_GRACE_MS ||
        (row.tool_call_id !== null && returned.has(row.tool_call_id)),
    );
    if (!coming || performance.now() - started >= REPORT_GRACE_MS) return;
    await sleep(REPORT_POLL_MS);
  }
}
