import { type HookedRanCall, truncateUtf8 } from '@airlock/core';
import { listRunEventData } from '../../store/events.js';
import { listModelCalls } from '../../store/hooked-rows.js';
import type { RunTable } from '../../store/schema.js';
import type { Tx } from '../../store/store.js';
import type { KernelContext } from '../context.js';
import { hookedPrincipal } from './agent-calls.js';
import { IdlessRows } from './idless-rows.js';

/** How much of an unstaged call's output the run story keeps. */
const UNSTAGED_OUTPUT_MAX_BYTES = 2048;

/** A call the agent ran that crossed no stage, and how the kernel learned of it. */
export interface UnstagedCall {
  toolName: string;
  toolUseId: string | null;
  /** Null when the agent's transcript held the call but not its result. */
  outcome: 'succeeded' | 'failed' | null;
  output: string;
  /**
   * `post_tool`: the agent's report of a call no pre-tool hook asked about;
   * `transcript`: a call of the turn's transcript no hook reported at all.
   */
  foundIn: 'post_tool' | 'transcript';
}

/**
 * Writes one `run.unstaged_call` event in the transaction: a call the agent
 * ran that no layer decided (see {@link recordUnstagedCalls}), or one it ran
 * under a row's call id that is not the call the row holds.
 */
export function emitUnstagedCall(
  tx: Tx,
  run: RunTable,
  options: { agent: string; call: UnstagedCall },
): void {
  const { agent, call } = options;
  tx.emit({
    workspace_id: run.workspace_id,
    run_id: run.id,
    task_key: null,
    type: 'run.unstaged_call',
    data: {
      agent,
      tool_name: call.toolName,
      tool_use_id: call.toolUseId,
      outcome: call.outcome,
      output: truncateUtf8(call.output, UNSTAGED_OUTPUT_MAX_BYTES),
      found_in: call.foundIn,
    },
    principal: hookedPrincipal(agent),
  });
}

/**
 * Records calls the agent ran without asking first (no hook matched their
 * tool, or the hook was not installed when they ran): one
 * `run.unstaged_call` event each on the session's turn, in one
 * transaction, so the story and the audit trail say a call ran that no
 * layer decided.
 */
export async function recordUnstagedCalls(
  ctx: KernelContext,
  run: RunTable,
  agent: string,
  calls: readonly UnstagedCall[],
): Promise<void> {
  if (calls.length === 0) return;
  await ctx.store.transaction(async (tx) => {
    for (const call of calls) emitUnstagedCall(tx, run, { agent, call });
  });
}

/**
 * The calls the agent's transcript shows it ran that no hook asked or told
 * the turn `run` about: no row of the turn has their call id (or, for an
 * agent whose hooks carry none, their tool and input), and no earlier event
 * recorded them.
 */
export async function unseenTranscriptCalls(
  ctx: KernelContext,
  run: RunTable,
  ranCalls: readonly HookedRanCall[],
): Promise<UnstagedCall[]> {
  if (ranCalls.length === 0) return [];
  const staged = await listModelCalls(ctx.store, run.id);
  const recorded = await listRunEventData(ctx.store, {
    workspaceId: run.workspace_id,
    runId: run.id,
    type: 'run.unstaged_call',
  });
  const known = new Set<string>();
  for (const call of staged) if (call.tool_call_id !== null) known.add(call.tool_call_id);
  for (const data of recorded) {
    const id = (JSON.parse(data) as { tool_use_id?: unknown }).tool_use_id;
    if (typeof id === 'string') known.add(id);
  }
  const idless = new IdlessRows(staged);
  const unseen: UnstagedCall[] = [];
  for (const call of ranCalls) {
    if (known.has(call.tool_use_id)) continue;
    known.add(call.tool_use_id);
    if (idless.take(call) !== null) continue;
    unseen.push({
      toolName: call.tool_name,
      toolUseId: call.tool_use_id,
      outcome: call.outcome ?? null,
      output: call.output ?? '',
      foundIn: 'transcript',
    });
  }
  return unseen;
}

/**
 * At the turn's stop: records the calls the agent's transcript shows it ran
 * in this turn that no hook asked or told about (see
 * {@link unseenTranscriptCalls}). A stop sent again (a continuation, a
 * retry) records nothing twice.
 */
export async function recordTranscriptCalls(
  ctx: KernelContext,
  run: RunTable,
  agent: string,
  ranCalls: readonly HookedRanCall[],
): Promise<void> {
  await recordUnstagedCalls(ctx, run, agent, await unseenTranscriptCalls(ctx, run, ranCalls));
}
