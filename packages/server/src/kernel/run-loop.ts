import { type FedResult, type PastRound, ProviderError } from '../providers/types.js';
import type { RunTable, TaskTable } from '../store/schema.js';
import { plantToolRow } from './approval-stage.js';
import type { KernelContext } from './context.js';
import { finishRun, lockRun, settleRun } from './run-state.js';
import { APPROVAL_EXPIRED_TEXT } from './task-states.js';

/** How long one process may hold a run's model turn before another may take it over. */
const MODEL_LEASE_MS = 120_000;

/** The text the model reads for one of its earlier calls. */
export function fedContent(task: TaskTable): string {
  switch (task.state) {
    case 'succeeded': {
      const result = task.result === null ? null : JSON.parse(task.result);
      return typeof result === 'string' ? result : JSON.stringify(result);
    }
    case 'timed_out':
      return APPROVAL_EXPIRED_TEXT;
    case 'canceled':
      return JSON.stringify({ error: { code: 'canceled', detail: 'the call was canceled' } });
    default:
      return JSON.stringify({
        error: { code: task.error_code ?? 'failed', detail: task.error_detail ?? '' },
      });
  }
}

function keyNumber(key: string): number {
  return Number.parseInt(key.slice(1), 10);
}

async function readHistory(
  ctx: KernelContext,
  run: RunTable,
): Promise<{ history: PastRound[]; fed: FedResult[] }> {
  const tasks = await ctx.store.db
    .selectFrom('tasks')
    .selectAll()
    .where('run_id', '=', run.id)
    .where('origin', '=', 'model')
    .execute();
  tasks.sort((a, b) => a.round - b.round || keyNumber(a.key) - keyNumber(b.key));
  const byRound = new Map<number, FedResult[]>();
  for (const task of tasks) {
    const list = byRound.get(task.round) ?? [];
    list.push({
      task_key: task.key,
      tool_call_id: task.tool_call_id,
      tool_name: task.tool_name,
      tool_input: JSON.parse(task.tool_input),
      content: fedContent(task),
    });
    byRound.set(task.round, list);
  }
  const history = [...byRound.entries()].map(([round, results]) => ({ round, results }));
  return { history, fed: byRound.get(run.round) ?? [] };
}

/**
 * Takes one step of a run whose next round is due: leases the model turn,
 * asks the provider, and plants the round's calls through the approval stage
 * (or records the final answer). Safe to call from several processes: only
 * the lease holder's step is committed.
 */
export async function driveRun(ctx: KernelContext, runId: string): Promise<void> {
  const owner = `${ctx.instanceId}:${Math.random().toString(36).slice(2)}`;
  const leased = await ctx.store.transaction(async (tx) =>
    tx.db
      .updateTable('runs')
      .set({ model_lease_owner: owner, model_lease_until: tx.now + MODEL_LEASE_MS })
      .where('id', '=', runId)
      .where('state', '=', 'running')
      .where('phase', '=', 'model')
      .where((eb) =>
        eb.or([eb('model_lease_until', 'is', null), eb('model_lease_until', '<', tx.now)]),
      )
      .returningAll()
      .executeTakeFirst(),
  );
  if (!leased) return;
  const provider = JSON.parse(leased.provider) as { kind: string };
  const { history, fed } = await readHistory(ctx, leased);
  const input = JSON.parse(leased.input) as { content?: string };
  let outcome:
    | Awaited<ReturnType<NonNullable<ReturnType<typeof ctx.providers.get>>['nextRound']>>
    | ProviderError;
  try {
    const model = ctx.providers.get(provider.kind);
    if (!model) throw new ProviderError('provider_unknown', `no provider ${provider.kind}`);
    outcome = await model.nextRound(provider, {
      runId,
      index: leased.round,
      input: input.content ?? '',
      toolNames: leased.tool_names ? (JSON.parse(leased.tool_names) as string[]) : null,
      history: history.filter((h) => h.round <= leased.round),
      fed,
      signal: AbortSignal.timeout(MODEL_LEASE_MS),
    });
  } catch (error) {
    outcome =
      error instanceof ProviderError
        ? error
        : new ProviderError('provider_error', (error as Error).message);
  }
  await ctx.store.transaction(async (tx) => {
    const run = await lockRun(tx, leased.workspace_id, runId);
    if (run.state !== 'running' || run.phase !== 'model' || run.model_lease_owner !== owner) return;
    const base = { workspace_id: run.workspace_id, run_id: run.id };
    tx.emit({
      ...base,
      type: 'run.model_read',
      data: {
        round: run.round,
        fed: fed.map((f) => ({ task_key: f.task_key, content: f.content })),
      },
    });
    if (outcome instanceof ProviderError) {
      ctx.logger.warn({ runId, code: outcome.code, detail: outcome.detail }, 'provider failed');
      await finishRun(tx, run, {
        state: 'failed',
        error: { code: outcome.code, detail: outcome.detail },
      });
      return;
    }
    if (outcome.type === 'final') {
      await finishRun(tx, run, { state: 'completed', finalAnswer: outcome.content });
      return;
    }
    run.round += 1;
    run.phase = 'tools';
    await tx.db
      .updateTable('runs')
      .set({
        round: run.round,
        phase: 'tools',
        model_lease_owner: null,
        model_lease_until: null,
        updated_at: tx.now,
      })
      .where('id', '=', run.id)
      .execute();
    tx.emit({
      ...base,
      type: 'run.round_started',
      data: { round: run.round, calls: outcome.calls.length },
    });
    for (const call of outcome.calls) {
      await plantToolRow(ctx, tx, run, {
        origin: 'model',
        toolName: call.name,
        toolInput: call.input,
        toolCallId: call.id,
        onFailure: call.onFailure ?? run.on_failure,
        round: run.round,
        principal: null,
      });
    }
    await settleRun(ctx, tx, run);
  });
}
