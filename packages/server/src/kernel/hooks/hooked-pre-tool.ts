import type { HookedAnswer, HookedLoop } from '@airlock/core';
import { AirlockError } from '../../errors.js';
import type { Principal } from '../../store/accounts.js';
import type { HookSessionKey } from '../../store/hook-sessions.js';
import type { HookSessionTable, RunTable, TaskTable } from '../../store/schema.js';
import type { KernelContext } from '../context.js';
import { lockRun } from '../machines/run-state.js';
import { answerableInAgentPrompt } from './agent-prompt.js';
import { preToolRow, rowOfEndedTurn } from './hooked-calls.js';
import { turnStart } from './hooked-turn-start.js';
import { inSessionTurn, newTurn } from './hooked-turns.js';
import { answerOf } from './hooked-verdicts.js';

/*
 * A hooked session's pre_tool: a call crossing the stage in the session's
 * turn, or asked about again by the row the kernel named.
 */

/** A pre_tool event of `hooks.event`, as the kernel reads it. */
export interface PreToolInput {
  agent: HookedLoop;
  task_key?: string | undefined;
  run_id?: string | undefined;
  tool_name?: string | undefined;
  tool_input?: unknown;
  tool_use_id?: string | undefined;
  cwd?: string | undefined;
}

/**
 * Answers a pre_tool: the call crosses the stage in the session's running
 * turn (a new turn, after its turn_start hook, when none runs). Asked again
 * by `task_key`, the row of a turn that ended is answered from that turn.
 * With `run_id` too, only that run's row answers: when the session's turn
 * changed meanwhile, a row of the new turn under the same key is another
 * call's and is not granted to this one.
 * @throws AirlockError invalid_input (no tool_name, a run_id without its
 * task_key), task_not_found (a key or run of no call of this session).
 */
export async function preTool(
  ctx: KernelContext,
  principal: Principal,
  session: HookSessionTable,
  key: HookSessionKey,
  input: PreToolInput,
): Promise<HookedAnswer> {
  if (!input.tool_name) throw new AirlockError('invalid_input', 'pre_tool needs tool_name');
  if (input.run_id !== undefined && input.task_key === undefined) {
    throw new AirlockError(
      'invalid_input',
      'run_id names the run of a task_key asked about again: send both',
    );
  }
  const base = { conversation_id: session.conversation_id };
  const options = {
    agent: input.agent,
    taskKey: input.task_key,
    call: {
      toolName: input.tool_name,
      toolInput: input.tool_input ?? {},
      toolUseId: input.tool_use_id ?? null,
      workingDirectory: input.cwd,
    },
  };
  const { taskKey } = options;
  // Another run than the session's turn: the row asked about is of a turn that ended.
  const named = input.run_id !== undefined && input.run_id !== session.run_id;
  const asked = named ? { ...session, run_id: input.run_id ?? null } : session;
  // The turn, when it still runs, is locked at once (no read of it before); a call asked about
  // again in a turn that ended is answered from that turn.
  const inTurn = await inSessionTurn(ctx, principal, asked, options, async (tx, run, ahead) => {
    if (named && run.conversation_id !== session.conversation_id) throw noSuchRow(input);
    if (run.state === 'running' && !named) return preToolRow(ctx, tx, run, options, ahead);
    return taskKey === undefined ? null : rowOfEndedTurn(tx, run, { call: options.call, taskKey });
  });
  if (inTurn?.value) return callAnswer(ctx, base, inTurn.run, inTurn.value);
  if (named) throw noSuchRow(input);
  // The session has no turn that runs (it ended, or there is none yet): a new one takes the call,
  // after its turn_start hook, as a prompt's would (the call is refused run_busy until it passes).
  const run = await newTurn(ctx, principal, session, key, undefined);
  await turnStart(ctx, run, undefined);
  const row = await ctx.store.transaction(async (tx) =>
    preToolRow(ctx, tx, await lockRun(tx, run.workspace_id, run.id), options),
  );
  return callAnswer(ctx, base, run, row);
}

/** The refusal of a run_id that names no turn of this session (gone, or another session's). */
function noSuchRow(input: PreToolInput): AirlockError {
  return new AirlockError(
    'task_not_found',
    `no task ${input.task_key} in run ${input.run_id} of this session`,
  );
}

/** The answer to a pre-tool check; a park is offered to the agent's prompt only where it may be answered there. */
async function callAnswer(
  ctx: KernelContext,
  base: Pick<HookedAnswer, 'conversation_id'>,
  run: RunTable,
  row: TaskTable,
): Promise<HookedAnswer> {
  const inAgentPrompt = await answerableInAgentPrompt(ctx.store, run, row);
  return answerOf({ ...base, run_id: run.id }, row, {
    inAgentPrompt,
    running: run.state === 'running',
  });
}
