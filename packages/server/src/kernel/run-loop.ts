import type { Kysely } from 'kysely';
import {
  type FedResult,
  type ModelProvider,
  type PastRound,
  ProviderError,
  type ProviderRound,
} from '../providers/types.js';
import type { Database, RunTable, TaskTable } from '../store/schema.js';
import type { Tx } from '../store/store.js';
import { plantToolRow } from './approval-stage.js';
import type { KernelContext } from './context.js';
import { beforeModel, onFinalAnswer } from './lifecycle.js';
import { finishRun, lockRun, settleRun, touchRun } from './run-state.js';
import { APPROVAL_EXPIRED_TEXT } from './task-states.js';

/** How long one process may hold a run's model turn before another may take it over. */
const MODEL_LEASE_MS = 120_000;
/** Most rounds one inline advance takes before it lets other work in. */
const INLINE_ROUNDS = 300;

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

/** What the model reads for one row: a call's result, or a stop hook's feedback. */
function fedResult(task: TaskTable, run: RunTable): FedResult | null {
  if (task.kind !== 'hook') {
    return {
      task_key: task.key,
      tool_call_id: task.tool_call_id,
      tool_name: task.tool_name,
      tool_input: JSON.parse(task.tool_input),
      content: fedContent(task),
    };
  }
  if (task.round > run.round) return null;
  const result = task.result ? (JSON.parse(task.result) as { structured_content?: unknown }) : null;
  const decision = result?.structured_content as { continue?: boolean; feedback?: string } | null;
  if (!decision?.continue || typeof decision.feedback !== 'string') return null;
  return {
    task_key: task.key,
    tool_call_id: null,
    tool_name: task.tool_name,
    tool_input: {},
    content: decision.feedback,
    kind: 'feedback',
  };
}

function keyNumber(key: string): number {
  return Number.parseInt(key.slice(1), 10);
}

async function readHistory(
  db: Kysely<Database>,
  run: RunTable,
): Promise<{ history: PastRound[]; fed: FedResult[] }> {
  if (run.round === 0) return { history: [], fed: [] };
  const tasks = await db
    .selectFrom('tasks')
    .selectAll()
    .where('run_id', '=', run.id)
    .where((eb) =>
      eb.or([
        eb('origin', '=', 'model'),
        // A stop hook's continuation feedback is read in the round it opened.
        eb.and([eb('kind', '=', 'hook'), eb('state', '=', 'succeeded')]),
      ]),
    )
    .execute();
  tasks.sort((a, b) => a.round - b.round || keyNumber(a.key) - keyNumber(b.key));
  const byRound = new Map<number, FedResult[]>();
  for (const task of tasks) {
    const fed = fedResult(task, run);
    if (!fed) continue;
    const list = byRound.get(task.round) ?? [];
    list.push(fed);
    byRound.set(task.round, list);
  }
  const history = [...byRound.entries()].map(([round, results]) => ({ round, results }));
  return { history, fed: byRound.get(run.round) ?? [] };
}

function providerOf(
  ctx: KernelContext,
  run: RunTable,
): { config: { kind: string }; model: ModelProvider | undefined } {
  const config = JSON.parse(run.provider) as { kind: string };
  return { config, model: ctx.providers.get(config.kind) };
}

async function askModel(
  model: ModelProvider | undefined,
  config: { kind: string },
  run: RunTable,
  reading: { history: PastRound[]; fed: FedResult[] },
): Promise<ProviderRound | ProviderError> {
  try {
    if (!model) throw new ProviderError('provider_unknown', `no provider ${config.kind}`);
    return await model.nextRound(config, {
      runId: run.id,
      index: run.round,
      input: (JSON.parse(run.input) as { content?: string }).content ?? '',
      toolNames: run.tool_names ? (JSON.parse(run.tool_names) as string[]) : null,
      history: reading.history,
      fed: reading.fed,
      signal: AbortSignal.timeout(MODEL_LEASE_MS),
    });
  } catch (error) {
    return error instanceof ProviderError
      ? error
      : new ProviderError('provider_error', (error as Error).message);
  }
}

/** Records what the model read and what it answered: a final answer, a failure, or a round of calls. */
async function applyRound(
  ctx: KernelContext,
  tx: Tx,
  run: RunTable,
  fed: FedResult[],
  outcome: ProviderRound | ProviderError,
): Promise<void> {
  const base = { workspace_id: run.workspace_id, run_id: run.id };
  tx.emit({
    ...base,
    type: 'run.model_read',
    data: { round: run.round, fed: fed.map((f) => ({ task_key: f.task_key, content: f.content })) },
  });
  if (outcome instanceof ProviderError) {
    ctx.logger.warn(
      { runId: run.id, code: outcome.code, detail: outcome.detail },
      'provider failed',
    );
    await finishRun(tx, run, {
      state: 'failed',
      error: { code: outcome.code, detail: outcome.detail },
    });
    return;
  }
  if (outcome.type === 'final') {
    await onFinalAnswer(ctx, tx, run, outcome.content);
    return;
  }
  run.round += 1;
  run.phase = 'tools';
  run.model_lease_owner = null;
  run.model_lease_until = null;
  touchRun(tx, run);
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
}

function due(run: RunTable, now: number): boolean {
  return (
    run.state === 'running' &&
    run.phase === 'model' &&
    (run.model_lease_until === null || run.model_lease_until < now)
  );
}

/**
 * Takes every due step of a run whose provider is inline, inside the caller's
 * transaction (which holds the run row). Returns false when the provider is not inline.
 */
export async function advanceInline(ctx: KernelContext, tx: Tx, run: RunTable): Promise<boolean> {
  const { config, model } = providerOf(ctx, run);
  if (!model?.inline) return false;
  for (let i = 0; i < INLINE_ROUNDS && due(run, tx.now); i += 1) {
    if (!(await beforeModel(ctx, tx, run))) continue;
    const reading = await readHistory(tx.db, run);
    const outcome = await askModel(model, config, run, reading);
    await applyRound(ctx, tx, run, reading.fed, outcome);
  }
  return true;
}

/**
 * Takes the next step of a run whose next round is due. An inline provider's
 * step is taken in one transaction; any other leases the model turn, asks the
 * provider outside a transaction, and commits only while it still holds the
 * lease. Safe to call from several processes.
 */
export async function driveRun(ctx: KernelContext, runId: string): Promise<void> {
  const peek = await ctx.store.db
    .selectFrom('runs')
    .selectAll()
    .where('id', '=', runId)
    .executeTakeFirst();
  if (!peek || !due(peek, ctx.store.now())) return;
  if (providerOf(ctx, peek).model?.inline) {
    await ctx.store.transaction(async (tx) => {
      const run = await lockRun(tx, peek.workspace_id, runId);
      await advanceInline(ctx, tx, run);
    });
    return;
  }
  const ready = await ctx.store.transaction(async (tx) => {
    const run = await lockRun(tx, peek.workspace_id, runId);
    return due(run, tx.now) && (await beforeModel(ctx, tx, run));
  });
  if (!ready) return;
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
  const { config, model } = providerOf(ctx, leased);
  const reading = await readHistory(ctx.store.db, leased);
  const outcome = await askModel(model, config, leased, reading);
  await ctx.store.transaction(async (tx) => {
    const run = await lockRun(tx, leased.workspace_id, runId);
    if (run.state !== 'running' || run.phase !== 'model' || run.model_lease_owner !== owner) return;
    await applyRound(ctx, tx, run, reading.fed, outcome);
    // A step the answer made due (its stop hook's decision) is taken by the next drive.
    if (due(run, tx.now)) tx.afterCommit(() => ctx.scheduleDrive(runId));
  });
}
