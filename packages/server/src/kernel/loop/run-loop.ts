import {
  ASSISTANT_TEXT_MAX,
  boundedText,
  type FedResult,
  type ModelProvider,
  type ProposedCall,
  ProviderError,
  type ProviderRound,
} from '../../providers/types.js';
import { workspaceHead } from '../../store/events.js';
import { writeAssistantText } from '../../store/round-text.js';
import { peekRun } from '../../store/runs.js';
import type { RunTable, TaskTable } from '../../store/schema.js';
import type { Tx } from '../../store/store.js';
import type { KernelContext } from '../context.js';
import { beforeModel, onFinalAnswer } from '../hooks/lifecycle.js';
import {
  endRun,
  holdModelTurnForClient,
  leaseCheckedModelTurn,
  leaseModel,
  setRunPhase,
  touchRun,
} from '../machines/run-machine.js';
import { lockRun, settleRun } from '../machines/run-state.js';
import { plantToolRow } from '../stage/approval-stage.js';
import { completeSummary, pendingSummary, summarize } from './compaction.js';
import { type RunReading, readHistory } from './history.js';
import { hearsRunEnds, modelRequestSignal, modelStopOf, type RunEndsAfter } from './model-stop.js';
import { refusalLoopEnd } from './refusal-loop.js';
import { type RunStep, recordStep } from './refused-step.js';
import { roundLimitEnd } from './round-limit.js';
import { modelTurnLeaseMs, turnTimeoutOf } from './turn-time.js';

/** The signal of an inline provider's request: it never aborts. */
const NEVER_ABORTED = new AbortController().signal;
/** Most rounds one inline advance takes before it lets other work in. */
const INLINE_ROUNDS = 300;

function providerOf(
  ctx: KernelContext,
  run: RunTable,
): { config: { kind: string }; model: ModelProvider | undefined } {
  const config = JSON.parse(run.provider) as { kind: string };
  return { config, model: ctx.providers.get(config.kind) };
}

/** One request of a round: the provider asked, the run, what it read, and what aborts it besides its time. */
interface ModelAsk {
  ctx: KernelContext;
  model: ModelProvider | undefined;
  config: { kind: string };
  run: RunTable;
  reading: RunReading;
  /** The kernel's stop ({@link modelStopOf}); none for an inline provider. */
  stop?: AbortSignal | undefined;
  /** Where another kernel's end of the run is heard from, when this kernel listens for them. */
  heard?: RunEndsAfter | undefined;
}

async function askModel({
  ctx,
  model,
  config,
  run,
  reading,
  stop,
  heard,
}: ModelAsk): Promise<ProviderRound | ProviderError> {
  // An inline provider answers inside the unit of work: it gets no timer to arm and disarm.
  const request =
    model && !model.inline
      ? modelRequestSignal(ctx, {
          runId: run.id,
          stop: stop ?? NEVER_ABORTED,
          timeoutMs: turnTimeoutOf(model),
          heard,
        })
      : null;
  try {
    if (!model) throw new ProviderError('provider_unknown', `no provider ${config.kind}`);
    return await model.nextRound(config, {
      runId: run.id,
      index: run.round,
      input: (JSON.parse(run.input) as { content?: string }).content ?? '',
      toolNames: run.tool_names ? (JSON.parse(run.tool_names) as string[]) : null,
      history: reading.history,
      fed: reading.fed,
      signal: request?.signal ?? NEVER_ABORTED,
    });
  } catch (error) {
    return error instanceof ProviderError
      ? error
      : new ProviderError('provider_error', (error as Error).message);
  } finally {
    request?.done();
  }
}

/**
 * Hands back a run's model turn whose request the kernel's stop aborted:
 * nothing of it is recorded, and the lease is let go so that the next kernel
 * asks again at once rather than after the lease runs out.
 */
async function handBackModelTurn(ctx: KernelContext, leased: RunTable, owner: string) {
  await ctx.store.transaction(async (tx) => {
    const run = await lockRun(tx, leased.workspace_id, leased.id);
    if (run.state !== 'running' || run.model_lease_owner !== owner) return;
    run.model_lease_owner = null;
    run.model_lease_until = null;
    touchRun(tx, run);
  });
}

/**
 * Records what the model read and what it answered: a final answer, a
 * failure, or a round of calls. Returns the rows a round of calls planted, as
 * written (none for an answer or a failure).
 */
export async function applyRound(
  ctx: KernelContext,
  tx: Tx,
  run: RunTable,
  fed: FedResult[],
  outcome: ProviderRound | ProviderError,
): Promise<TaskTable[]> {
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
    await endRun(tx, run, {
      state: 'failed',
      error: { code: outcome.code, detail: outcome.detail },
      principal: 'kernel',
    });
    return [];
  }
  if (outcome.type === 'final') {
    await onFinalAnswer(ctx, tx, run, outcome.content);
    return [];
  }
  const overLimit = roundLimitEnd(run);
  if (overLimit) {
    await endRun(tx, run, { state: 'failed', error: overLimit, principal: 'kernel' });
    return [];
  }
  run.round += 1;
  setRunPhase(tx, run, 'round_planted');
  // What the model wrote with its calls (its plan): the run's story shows it, and the model
  // reads it back with the round's calls.
  const text = outcome.content ? boundedText(outcome.content, ASSISTANT_TEXT_MAX) : undefined;
  tx.emit({
    ...base,
    type: 'run.round_started',
    data: { round: run.round, calls: outcome.calls.length, ...(text ? { text } : {}) },
  });
  const planted = await plantCalls(ctx, tx, run, outcome.calls);
  const first = planted[0];
  if (text && first) await writeAssistantText(tx, { runId: run.id, key: first.key, text });
  return planted;
}

/**
 * Plants a model's calls into the run's current round, each through the
 * approval stage, then settles the run. Returns the rows as written.
 */
export async function plantCalls(
  ctx: KernelContext,
  tx: Tx,
  run: RunTable,
  calls: readonly ProposedCall[],
): Promise<TaskTable[]> {
  const planted: TaskTable[] = [];
  for (const call of calls) {
    planted.push(
      await plantToolRow(ctx, tx, run, {
        origin: 'model',
        toolName: call.name,
        toolInput: call.input,
        toolCallId: call.id,
        onFailure: call.onFailure ?? run.on_failure,
        round: run.round,
        principal: null,
        workingDirectory: call.workingDirectory,
      }),
    );
  }
  await settleRun(ctx, tx, run);
  return planted;
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
    const reading = await readHistory(tx, run);
    const stuck = refusalLoopEnd(reading);
    if (stuck) {
      await endRun(tx, run, { state: 'failed', error: stuck, principal: 'kernel' });
      continue;
    }
    const outcome = await askModel({ ctx, model, config, run, reading });
    await applyRound(ctx, tx, run, reading.fed, outcome);
  }
  return true;
}

/** Leases the model turn of a run and asks its provider for a pending compaction summary. */
async function leaseModelTurn(ctx: KernelContext, runId: string, owner: string) {
  return ctx.store.transaction((tx) =>
    leaseModel(tx, { runId, owner, forMs: modelTurnLeaseMs(ctx) }),
  );
}

/**
 * A summarizer row of a provider that does I/O is asked outside any
 * transaction, under the run's model lease, and recorded only while the
 * lease still holds.
 */
async function summarizeOutside(
  ctx: KernelContext,
  turn: { runId: string; owner: string; heard: RunEndsAfter | undefined },
): Promise<void> {
  const { runId, owner, heard } = turn;
  const stop = modelStopOf(ctx);
  const peek = await peekRun(ctx.store, runId);
  if (!peek || !due(peek, ctx.store.now()) || !(await pendingSummary(ctx.store, peek))) return;
  const leased = await leaseModelTurn(ctx, runId, owner);
  if (!leased) return;
  const row = await pendingSummary(ctx.store, leased);
  if (!row) {
    // Another kernel recorded the summary between the peek and the lease, and its drive found
    // the turn leased here: let the turn go and take the run's next step, rather than hold the
    // run until the lease runs out.
    await handBackModelTurn(ctx, leased, owner);
    ctx.scheduleDrive(runId);
    return;
  }
  const text = await summarize(ctx, ctx.store, leased, { row, heard });
  if (stop.aborted) {
    await handBackModelTurn(ctx, leased, owner);
    return;
  }
  const step: RunStep = {
    runId,
    workspaceId: leased.workspace_id,
    stillOurs: (run) => run.model_lease_owner === owner,
  };
  await recordStep(ctx, step, async (tx) => {
    const run = await lockRun(tx, leased.workspace_id, runId);
    if (run.state !== 'running' || run.model_lease_owner !== owner) return;
    run.model_lease_owner = null;
    run.model_lease_until = null;
    touchRun(tx, run);
    await completeSummary(ctx, tx, run, row, text);
    if (due(run, tx.now)) tx.afterCommit(() => ctx.scheduleDrive(runId));
  });
}

/**
 * An external provider's rounds arrive through runs.calls: there is nobody
 * to ask. Its model turn is held for the client (settleRun does so in the
 * settling transaction; this covers a run resumed by the sweep).
 */
async function holdForClient(ctx: KernelContext, peek: RunTable): Promise<void> {
  await ctx.store.transaction(async (tx) => {
    const run = await lockRun(tx, peek.workspace_id, peek.id);
    if (due(run, tx.now)) holdModelTurnForClient(tx, run);
  });
}

/**
 * Takes the next step of a run whose next round is due. An inline provider's
 * step is taken in one transaction; any other leases the model turn, asks the
 * provider outside a transaction, and commits only while it still holds the
 * lease. Safe to call from several processes.
 */
export async function driveRun(ctx: KernelContext, runId: string): Promise<void> {
  const peek = await peekRun(ctx.store, runId);
  if (!peek || !due(peek, ctx.store.now())) return;
  const { model: peekModel } = providerOf(ctx, peek);
  if (peekModel?.external) {
    await holdForClient(ctx, peek);
    return;
  }
  const unleased: RunStep = {
    runId,
    workspaceId: peek.workspace_id,
    stillOurs: (run) => due(run, ctx.store.now()),
  };
  if (peekModel?.inline) {
    await recordStep(ctx, unleased, async (tx) => {
      const run = await lockRun(tx, peek.workspace_id, runId);
      await advanceInline(ctx, tx, run);
    });
    return;
  }
  const owner = `${ctx.instanceId}:${Math.random().toString(36).slice(2)}`;
  const stop = modelStopOf(ctx);
  // Read before either lease (a round's, a summary's): another kernel's end of the run after it
  // is heard past this point.
  const heard: RunEndsAfter | undefined = hearsRunEnds(ctx)
    ? { workspaceId: peek.workspace_id, after: await workspaceHead(ctx.store, peek.workspace_id) }
    : undefined;
  let ready = false;
  let leased: RunTable | undefined;
  await recordStep(ctx, unleased, async (tx) => {
    const run = await lockRun(tx, peek.workspace_id, runId);
    ready = due(run, tx.now) && (await beforeModel(ctx, tx, run));
    // Leased with the checks: a turn leased in a later unit could follow another kernel's whole
    // round (an answer left pending, a context grown past its limit) that nobody checked.
    if (ready) leaseCheckedModelTurn(tx, run, { owner, forMs: modelTurnLeaseMs(ctx) });
    // Only once committed: a unit the store refused leased nothing.
    tx.afterCommit(() => {
      if (ready) leased = run;
    });
  });
  if (!ready) {
    await summarizeOutside(ctx, { runId, owner, heard });
    return;
  }
  if (!leased) return;
  const { config, model } = providerOf(ctx, leased);
  const reading = await readHistory(ctx.store, leased);
  const stuck = refusalLoopEnd(reading);
  // A model stuck on refusals is not asked again: the run ends in the unit below.
  const asked = stuck
    ? { end: stuck }
    : { outcome: await askModel({ ctx, model, config, run: leased, reading, stop, heard }) };
  if (stop.aborted) {
    await handBackModelTurn(ctx, leased, owner);
    return;
  }
  const step: RunStep = {
    runId,
    workspaceId: leased.workspace_id,
    stillOurs: (run) => run.phase === 'model' && run.model_lease_owner === owner,
  };
  await recordStep(ctx, step, async (tx) => {
    const run = await lockRun(tx, peek.workspace_id, runId);
    if (run.state !== 'running' || run.phase !== 'model' || run.model_lease_owner !== owner) return;
    if ('end' in asked) {
      await endRun(tx, run, { state: 'failed', error: asked.end, principal: 'kernel' });
      return;
    }
    await applyRound(ctx, tx, run, reading.fed, asked.outcome);
    // A step the answer made due (its stop hook's decision) is taken by the next drive.
    if (due(run, tx.now)) tx.afterCommit(() => ctx.scheduleDrive(runId));
  });
}
