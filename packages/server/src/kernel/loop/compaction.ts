import { type PastRound, SUMMARY_INSTRUCTION, type SummaryRequest } from '../../providers/types.js';
import type { Reader } from '../../store/reader.js';
import type { RunTable, TaskTable } from '../../store/schema.js';
import type { Tx } from '../../store/store.js';
import { findTaskBySource } from '../../store/tasks.js';
import type { KernelContext } from '../context.js';
import { type HookExtras, hookOutcome, hookRow, waitForHook } from '../hooks/hooks.js';
import { moveTask } from '../machines/move-task.js';
import { providerKind, touchRun } from '../machines/run-machine.js';
import { plantToolRow } from '../stage/approval-stage.js';
import { readRounds, summaryRound } from './history.js';
import { modelRequestSignal, modelStopOf, type RunEndsAfter } from './model-stop.js';
import { turnTimeoutOf } from './turn-time.js';

/** Estimated tokens of a text: its UTF-8 bytes / 4, rounded up. */
export function estimateTokens(bytes: number): number {
  return Math.ceil(bytes / 4);
}

const bytesOf = (text: string) => Buffer.byteLength(text, 'utf8');

/** The rounds a compaction would replace (all but the latest), and the size of the whole context. */
async function measure(reader: Reader, run: RunTable) {
  const byRound = await readRounds(reader, run);
  let bytes = bytesOf((JSON.parse(run.input) as { content?: string }).content ?? '');
  bytes += run.summary === null ? 0 : bytesOf(run.summary);
  const older: PastRound[] = [];
  for (const past of byRound.values()) {
    if (past.round <= run.summary_through_round) continue;
    bytes += past.text === undefined ? 0 : bytesOf(past.text);
    for (const r of past.results) {
      bytes += bytesOf(r.tool_name) + bytesOf(JSON.stringify(r.tool_input)) + bytesOf(r.content);
      bytes += r.answer === undefined ? 0 : bytesOf(r.answer);
    }
    if (past.round < run.round) older.push(past);
  }
  return { bytes, older };
}

/** Why and by how much the context passed its limit, or null when it did not. */
function overshoot(run: RunTable, bytes: number): HookExtras | null {
  const overBytes = run.context_limit_bytes === null ? 0 : bytes - run.context_limit_bytes;
  const overTokens =
    run.context_limit_tokens === null ? 0 : estimateTokens(bytes) - run.context_limit_tokens;
  if (overBytes <= 0 && overTokens <= 0) return null;
  return {
    compaction_trigger: overBytes > 0 ? 'context_limit_bytes' : 'context_limit_tokens',
    overshoot_bytes: Math.max(0, overBytes),
    ...(run.context_limit_tokens !== null ? { overshoot_tokens: Math.max(0, overTokens) } : {}),
  };
}

async function rowBySource(tx: Tx, run: RunTable, source: string): Promise<TaskTable | undefined> {
  return findTaskBySource(tx, run.id, source);
}

/**
 * Compacts the run's context when it passed its limit, before the next model
 * request: `pre_compact`, then a summarizer kernel row (the provider's summary
 * replaces every round but the latest), then `post_compact`. Each step is a
 * durable row, so a restart resumes where it stopped. Returns true when the
 * model may be asked now; false while the run waits on one of those rows.
 */
export async function compactIfDue(ctx: KernelContext, tx: Tx, run: RunTable): Promise<boolean> {
  if (run.compactions > 0) {
    const post = await hookRow(ctx, tx, run, {
      event: 'post_compact',
      source: String(run.compactions),
      round: run.round,
    });
    if (post && hookOutcome(post).status !== 'passed') {
      await waitForHook(tx, run);
      return false;
    }
  }
  if (run.context_limit_bytes === null && run.context_limit_tokens === null) return true;
  const next = run.compactions + 1;
  let summarizer = await rowBySource(tx, run, `summary:${next}`);
  if (!summarizer) {
    const { bytes, older } = await measure(tx, run);
    const extras = overshoot(run, bytes);
    if (!extras || older.length === 0) return true;
    const pre = await hookRow(ctx, tx, run, {
      event: 'pre_compact',
      source: String(next),
      round: run.round,
      extras,
    });
    if (pre && hookOutcome(pre).status !== 'passed') {
      await waitForHook(tx, run);
      return false;
    }
    summarizer = await plantToolRow(ctx, tx, run, {
      origin: 'kernel',
      kind: 'summary',
      hookSource: `summary:${next}`,
      toolName: 'summarize',
      toolInput: { ...extras, through_round: run.round - 1 },
      toolCallId: null,
      onFailure: 'hold',
      round: run.round,
      principal: 'kernel',
    });
  }
  if (summarizer.state !== 'runnable') {
    await waitForHook(tx, run);
    return false;
  }
  if (!ctx.providers.get(providerKind(run))?.inline) return false;
  const text = await summarize(ctx, tx, run, { row: summarizer });
  await completeSummary(ctx, tx, run, summarizer, text);
  return compactIfDue(ctx, tx, run);
}

/** The summarizer row a non-inline provider must be asked for outside a transaction, if any. */
export async function pendingSummary(
  reader: Reader,
  run: RunTable,
): Promise<TaskTable | undefined> {
  return findTaskBySource(reader, run.id, `summary:${run.compactions + 1}`, {
    runnableOnly: true,
  });
}

/**
 * A summary, or the failure of a blank one: it would replace every round it
 * covers with nothing, so the model would go on without them.
 */
function nonblank(text: string): string | { error: { code: string; detail: string } } {
  if (text.trim() !== '') return text;
  return {
    error: {
      code: 'summary_failed',
      detail: 'the model answered a blank summary; the rounds it was to replace are kept',
    },
  };
}

/**
 * Asks the run's provider for the summary a summarizer row stands for: its
 * own `summarize`, or an ordinary round with no tools ending in the summary
 * instruction. Provider failures, and a blank summary, are returned as `{error}`.
 */
export async function summarize(
  ctx: KernelContext,
  reader: Reader,
  run: RunTable,
  summary: {
    row: TaskTable;
    /** Where another kernel's end of the run is heard from, when this kernel listens for them. */
    heard?: RunEndsAfter | undefined;
  },
): Promise<string | { error: { code: string; detail: string } }> {
  const { row } = summary;
  const through = (JSON.parse(row.tool_input) as { through_round: number }).through_round;
  const byRound = await readRounds(reader, run);
  const rounds = [...byRound.values()].filter(
    (past) => past.round > run.summary_through_round && past.round <= through,
  );
  const config = JSON.parse(run.provider) as { kind: string };
  const model = ctx.providers.get(config.kind);
  const limit = modelRequestSignal(ctx, {
    runId: run.id,
    stop: modelStopOf(ctx),
    timeoutMs: turnTimeoutOf(model),
    heard: summary.heard,
  });
  const request: SummaryRequest = {
    runId: run.id,
    input: (JSON.parse(run.input) as { content?: string }).content ?? '',
    previousSummary: run.summary,
    rounds,
    signal: limit.signal,
  };
  try {
    if (!model) throw new Error(`no provider ${config.kind}`);
    if (model.summarize) return nonblank(await model.summarize(config, request));
    // The earlier summary stands for the rounds before these: the new one must carry it on.
    const previous = summaryRound(run);
    const earlier = previous ? [previous] : [];
    const instruction = {
      task_key: row.key,
      tool_call_id: null,
      tool_name: 'summarize',
      tool_input: {},
      content: SUMMARY_INSTRUCTION,
      kind: 'feedback' as const,
    };
    const answer = await model.nextRound(
      { ...config, tools: [] },
      {
        runId: run.id,
        index: run.round,
        input: request.input,
        toolNames: [],
        history: [...earlier, ...rounds, { round: through + 1, results: [instruction] }],
        fed: [instruction],
        signal: request.signal,
      },
    );
    if (answer.type === 'final') return nonblank(answer.content);
    return {
      error: { code: 'summary_failed', detail: 'the model called tools instead of summarizing' },
    };
  } catch (error) {
    const failure = error as { code?: string; detail?: string; message?: string };
    return {
      error: {
        code: failure.code ?? 'summary_failed',
        detail: failure.detail ?? failure.message ?? 'the summary failed',
      },
    };
  } finally {
    limit.done();
  }
}

/**
 * Records a summarizer row's outcome: the summary replaces the rounds it
 * covers, or the row fails and holds the run (retry asks again).
 */
export async function completeSummary(
  ctx: KernelContext,
  tx: Tx,
  run: RunTable,
  row: TaskTable,
  text: string | { error: { code: string; detail: string } },
): Promise<void> {
  const failed = typeof text !== 'string';
  const moved = await moveTask(
    tx,
    {
      verb: 'summarize',
      run,
      key: row.key,
      to: failed ? 'failed' : 'succeeded',
      set: failed
        ? { error_code: text.error.code, error_detail: text.error.detail, decided_by: 'kernel' }
        : { result: JSON.stringify({ summary: text }), decided_by: 'kernel' },
      event: failed
        ? { type: 'task.failed', data: { error: text.error } }
        : { type: 'task.succeeded' },
      principal: failed ? null : 'kernel',
    },
    { quiet: true },
  );
  if (!moved) return;
  const base = { workspace_id: run.workspace_id, run_id: run.id, task_key: row.key };
  if (failed) {
    await waitForHook(tx, run);
    return;
  }
  const through = (JSON.parse(row.tool_input) as { through_round: number }).through_round;
  run.summary = text;
  run.summary_through_round = through;
  run.compactions += 1;
  touchRun(tx, run);
  tx.emit({
    ...base,
    type: 'run.compacted',
    data: { compaction: run.compactions, through_round: through, summary_bytes: bytesOf(text) },
    principal: 'kernel',
  });
  ctx.logger.debug({ runId: run.id, compaction: run.compactions }, 'compacted');
}
