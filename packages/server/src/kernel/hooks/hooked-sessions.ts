import type {
  Attention,
  HookedAnswer,
  HookedEvent,
  HookedLoop,
  HookedRanCall,
} from '@airlock/core';
import { AirlockError } from '../../errors.js';
import type { Principal } from '../../store/accounts.js';
import { listWaitingKeys } from '../../store/hooked-rows.js';
import type { RunTable, TaskTable } from '../../store/schema.js';
import type { Tx } from '../../store/store.js';
import { findTask, findTaskBySource } from '../../store/tasks.js';
import type { KernelContext } from '../context.js';
import { lockRun, openObligation, stopSourceOf } from '../machines/run-state.js';
import { reportToEarlierTurn } from './earlier-turn-report.js';
import { preTool } from './hooked-pre-tool.js';
import { postToolRow } from './hooked-reports.js';
import { turnOfStop } from './hooked-stop-turn.js';
import { promptOfEndedTurn, turnStart } from './hooked-turn-start.js';
import { currentTurn, inSessionTurn, keyOf, lastTurn, newTurn, sessionOf } from './hooked-turns.js';
import { hookAnswer } from './hooked-verdicts.js';
import { hookEventOf, hookOutcome, hookRow } from './hooks.js';
import { beforeModel, onFinalAnswer } from './lifecycle.js';
import { correctReportedOutcomes } from './transcript-outcomes.js';
import { awaitReportsInFlight, closeUnreported } from './unreported-calls.js';
import { recordTranscriptCalls, recordUnstagedCalls } from './unstaged-calls.js';

/** One event of a hooked session, as `hooks.event` takes it. */
export interface HookedEventInput {
  agent: HookedLoop;
  session_id: string;
  event: HookedEvent;
  task_key?: string | undefined;
  run_id?: string | undefined;
  tool_name?: string | undefined;
  tool_input?: unknown;
  tool_use_id?: string | undefined;
  outcome?: 'succeeded' | 'failed' | undefined;
  output?: string | undefined;
  text?: string | undefined;
  trigger?: string | undefined;
  answered_by_user?: boolean | undefined;
  ran_calls?: HookedRanCall[] | undefined;
}

/** A lifecycle hook row's answer: waiting, passed (ack, or continue with feedback), or failed. */
function hookRowAnswer(row: TaskTable | null): Pick<HookedAnswer, 'verdict' | 'reason'> {
  if (!row) return { verdict: 'ack', reason: null };
  const outcome = hookOutcome(row);
  if (outcome.status === 'waiting') {
    return { verdict: 'wait', reason: `lifecycle hook ${row.tool_name} has not answered yet` };
  }
  if (outcome.status === 'failed') {
    return {
      verdict: 'deny',
      reason: `lifecycle hook ${row.tool_name} failed (${row.error_code ?? row.state}): the run holds for a person`,
    };
  }
  const result = outcome.result as { continue: boolean; feedback?: string };
  return result.continue
    ? { verdict: 'continue', reason: result.feedback ?? null }
    : { verdict: 'ack', reason: null };
}

/** True when a failed row holds the run for a person (its attention names a failure hold). */
function holdsForFailure(run: RunTable): boolean {
  const attention = run.attention ? (JSON.parse(run.attention) as Attention[]) : [];
  return attention.some((reason) => reason.reason === 'failure_hold');
}

/**
 * pre_compact: the `pre_compact` hook (spec 002) of the agent's compaction;
 * asked again by its key, that hook's row.
 * @throws AirlockError task_not_found for a key of no `pre_compact` hook row of the turn.
 */
async function preCompact(
  ctx: KernelContext,
  run: RunTable,
  input: HookedEventInput,
): Promise<TaskTable | null> {
  return ctx.store.transaction(async (tx) => {
    const locked = await lockRun(tx, run.workspace_id, run.id);
    if (input.task_key !== undefined) {
      const row = await findTask(tx, locked.id, input.task_key);
      // A call's row, or another hook's, is no answer to a compaction.
      if (row?.kind !== 'hook' || hookEventOf(row) !== 'pre_compact') {
        throw new AirlockError(
          'task_not_found',
          `no pre_compact hook ${input.task_key} in run ${locked.id}`,
        );
      }
      return row;
    }
    if (locked.state !== 'running') return null;
    return hookRow(ctx, tx, locked, {
      event: 'pre_compact',
      source: `agent:${locked.task_counter + 1}`,
      round: locked.round,
      extras: { compaction_trigger: input.trigger ?? 'auto' },
    });
  });
}

/**
 * stop: closes the calls the agent never reported, then offers the agent's
 * last message as the run's final answer (through its `stop` hook, within
 * `max_continuations`). Calls still parked keep the run open: the agent
 * stops, the run waits for their people.
 */
async function stop(
  ctx: KernelContext,
  run: RunTable,
  input: HookedEventInput,
): Promise<Pick<HookedAnswer, 'verdict' | 'reason'> & { row: TaskTable | null; run: RunTable }> {
  return ctx.store.transaction(async (tx: Tx) => {
    const locked = await lockRun(tx, run.workspace_id, run.id);
    if (locked.state !== 'running') return { verdict: 'ack', reason: null, row: null, run: locked };
    const continuations = locked.continuations;
    if (input.task_key === undefined && locked.pending_answer === null) {
      await closeUnreported(ctx, tx, locked, input.agent, input.ran_calls);
      if (locked.phase === 'tools' && locked.pending_answer === null) {
        const waiting = await listWaitingKeys(tx, locked.id);
        if (waiting.length > 0) {
          return {
            verdict: 'ack',
            reason: `${waiting.length} call(s) still wait for a person; the run stays open`,
            row: null,
            run: locked,
          };
        }
        // A call approved after its hook gave up waits for the agent to make it again: like a
        // parked one, it keeps the run open without an answer, which would refuse the next
        // turn's calls (run_busy) until then. A hold still takes the answer and holds the run.
        if (!holdsForFailure(locked) && (await openObligation(tx, locked, stopSourceOf(locked)))) {
          return {
            verdict: 'ack',
            reason:
              "the run's open calls (one approved after its hook gave up waits for the identical call) keep the run open",
            row: null,
            run: locked,
          };
        }
      }
      if (locked.phase === 'model' || locked.phase === 'tools') {
        await onFinalAnswer(ctx, tx, locked, input.text ?? '');
      }
    } else if (locked.pending_answer !== null) {
      // The stop hook may have decided since: take the run's next lifecycle step.
      await beforeModel(ctx, tx, locked);
    }
    const row = (await findTaskBySource(tx, locked.id, `stop:${continuations}`)) ?? null;
    if (locked.state !== 'running') return { verdict: 'ack', reason: null, row, run: locked };
    if (locked.continuations > continuations) return { ...hookRowAnswer(row), row, run: locked };
    if (row === null && locked.pending_answer !== null) {
      // No stop hook row yet: the answer waits for the run's open rows or a hold.
      return {
        verdict: 'ack',
        reason: "the turn's answer waits for the run's open calls or a person's hold",
        row,
        run: locked,
      };
    }
    const answer = hookRowAnswer(row);
    return {
      ...answer,
      verdict: answer.verdict === 'continue' ? 'wait' : answer.verdict,
      row,
      run: locked,
    };
  });
}

/**
 * Records one event of a coding agent's hooked session and answers it in
 * the kernel's agent-neutral words (the per-agent mapping lives in
 * @airlock/hooks). The session is the agent's `session_id` within the
 * calling application: one conversation, a run per turn whose loop is the
 * agent's own.
 * @throws AirlockError forbidden, no_profile_configuration, run_busy, task_not_found.
 */
export async function recordHookedEvent(
  ctx: KernelContext,
  principal: Principal,
  input: HookedEventInput,
): Promise<HookedAnswer> {
  try {
    return await recordInSession(ctx, principal, input);
  } catch (error) {
    // The pruner took the session's conversation or last turn while this event was read (the
    // first write finds it gone, so nothing was written): read the session again, as the next
    // event would, which opens a new one when the session went with its conversation.
    if (!(error instanceof AirlockError) || !PRUNED_MEANWHILE.includes(error.code)) throw error;
    return recordInSession(ctx, principal, input);
  }
}

/** What a hooked event's first write answers when the pruner took what the event read. */
const PRUNED_MEANWHILE: readonly string[] = ['conversation_not_found', 'run_not_found'];

async function recordInSession(
  ctx: KernelContext,
  principal: Principal,
  input: HookedEventInput,
): Promise<HookedAnswer> {
  if (input.run_id !== undefined && input.event !== 'pre_tool') {
    throw new AirlockError('invalid_input', 'run_id is read on pre_tool only, beside its task_key');
  }
  const key = keyOf(principal, input);
  const session = await sessionOf(ctx, key);
  const base = { conversation_id: session.conversation_id };
  switch (input.event) {
    case 'session_start':
      return hookAnswer({ ...base, run_id: session.run_id, verdict: 'ack' });
    case 'turn_start': {
      const last = input.task_key === undefined ? null : await lastTurn(ctx, session);
      if (last && last.state !== 'running' && input.task_key !== undefined) {
        // Its turn ended while the prompt waited on the turn's hook: answered from that turn.
        const answer = await promptOfEndedTurn(ctx, last, input.task_key);
        return hookAnswer({ ...base, run_id: last.id, ...answer });
      }
      const run = await currentTurn(ctx, principal, session, key, input.text);
      const started = await turnStart(ctx, run, input.task_key);
      return hookAnswer({
        ...base,
        run_id: run.id,
        ...hookRowAnswer(started.row),
        task_key: started.row?.key ?? null,
        task_state: started.row?.state ?? null,
      });
    }
    case 'pre_tool':
      return preTool(ctx, principal, session, key, input);
    case 'post_tool': {
      if (!input.tool_name) throw new AirlockError('invalid_input', 'post_tool needs tool_name');
      const ran = {
        toolName: input.tool_name as string,
        toolInput: input.tool_input ?? {},
        toolUseId: input.tool_use_id ?? null,
        outcome: input.outcome ?? 'succeeded',
        output: input.output ?? '',
        answeredByUser: input.answered_by_user ?? false,
      };
      const event = { call: ran, taskKey: input.task_key, report: true };
      const report = () =>
        inSessionTurn(ctx, principal, session, event, (tx, run, ahead) =>
          postToolRow(ctx, tx, run, { agent: input.agent, taskKey: input.task_key, ran }, ahead),
        );
      let reported = await report();
      if (!reported && input.task_key === undefined) {
        // No turn to report to (none was opened, or it was pruned): the call ran all the same, and
        // a new turn's story records it, as a call no hook asked about. Its turn_start hook runs
        // first, as a prompt's would, so the calls that join the turn wait for it.
        await turnStart(ctx, await newTurn(ctx, principal, session, key, undefined), undefined);
        reported = await report();
      }
      if (!reported) {
        return hookAnswer({
          ...base,
          run_id: null,
          verdict: 'ack',
          reason: 'no call of this session crossed the stage',
        });
      }
      if (!reported.value.row && input.task_key === undefined) {
        // Not a call of this turn: it may be one of the turn before, reported after that turn ended.
        const earlier = await reportToEarlierTurn(ctx, {
          session,
          current: reported.run,
          agent: input.agent,
          ran,
          elsewhere: reported.value.elsewhere,
        });
        if (earlier) reported = earlier;
      }
      const { run } = reported;
      const { row, mismatch, ungranted, unmatched } = reported.value;
      if (!row) {
        await recordUnstagedCalls(ctx, run, input.agent, [
          {
            toolName: ran.toolName,
            toolUseId: ran.toolUseId,
            outcome: ran.outcome,
            output: ran.output,
            foundIn: 'post_tool',
          },
        ]);
        return hookAnswer({
          ...base,
          run_id: run.id,
          verdict: 'ack',
          reason:
            unmatched === undefined
              ? 'this call never crossed the approval stage; recorded as such'
              : `${unmatched}; recorded as an unstaged call, on none of their rows`,
        });
      }
      return hookAnswer({
        ...base,
        run_id: run.id,
        verdict: 'ack',
        task_key: row.key,
        task_state: row.state,
        // A report of another call than the row's is recorded as such, not refused: it ran.
        ...(mismatch === null
          ? {}
          : { reason: `${mismatch}; recorded as call_mismatch and as an unstaged call` }),
        ...(ungranted === undefined
          ? {}
          : { reason: `${ungranted}, never granted; recorded as an unstaged call` }),
        reminders: remindersOf(row),
      });
    }
    case 'stop': {
      // Calls of a turn no other hook told of go on a turn of their own, never on one that ended.
      const run = await turnOfStop(ctx, principal, { row: session, key }, input);
      if (!run) return hookAnswer({ ...base, run_id: null, verdict: 'ack' });
      if (input.task_key === undefined) await awaitReportsInFlight(ctx, run.id, input.ran_calls);
      if (input.ran_calls) {
        // Calls reported as succeeded that the agent's transcript shows failed (Codex: no exit code).
        await correctReportedOutcomes(ctx, run, input.agent, input.ran_calls);
        // Calls the agent's transcript shows that no hook asked or told about (its client read them).
        await recordTranscriptCalls(ctx, run, input.agent, input.ran_calls);
      }
      const stopped = await stop(ctx, run, input);
      return hookAnswer({
        ...base,
        run_id: run.id,
        verdict: stopped.verdict,
        reason: stopped.reason,
        task_key: stopped.row?.key ?? null,
        task_state: stopped.row?.state ?? null,
      });
    }
    case 'pre_compact': {
      const run = await lastTurn(ctx, session);
      if (!run) return hookAnswer({ ...base, run_id: null, verdict: 'ack' });
      const row = await preCompact(ctx, run, input);
      const answer = hookRowAnswer(row);
      return hookAnswer({
        ...base,
        run_id: run.id,
        // pre_compact only acknowledges (spec 002): a continuation request means nothing here.
        verdict: answer.verdict === 'continue' ? 'ack' : answer.verdict,
        reason: answer.reason,
        task_key: row?.key ?? null,
        task_state: row?.state ?? null,
      });
    }
  }
}

function remindersOf(row: TaskTable): string[] {
  const decision = row.decision ? (JSON.parse(row.decision) as { reminders?: string[] }) : null;
  return decision?.reminders ?? [];
}
