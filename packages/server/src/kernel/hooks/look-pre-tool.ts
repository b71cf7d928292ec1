import type { HookedAnswer, HookedLoop, JsonValue } from '@airlock/core';
import { AirlockError } from '../../errors.js';
import type { Principal } from '../../store/accounts.js';
import { findOtherRunOfCall } from '../../store/conversation-calls.js';
import { readHookSession } from '../../store/hook-sessions.js';
import { peekRun } from '../../store/runs.js';
import type { KernelContext } from '../context.js';
import { answerableInAgentPrompt } from './agent-prompt.js';
import { checkPresentedCall } from './call-binding.js';
import { findCallRow } from './hooked-calls.js';
import type { PreToolInput } from './hooked-pre-tool.js';
import { keyOf } from './hooked-turns.js';
import { answerOf, wasEdited } from './hooked-verdicts.js';

/** A pre_tool event with `look`: a question about a call's row that changes nothing. */
export interface LookInput extends PreToolInput {
  agent: HookedLoop;
  session_id: string;
}

/**
 * Answers a pre_tool `look`: what became of a call of the session (named by
 * its call id, or by `task_key`, in the run `run_id` names or else the
 * session's last turn, or by its call id in an earlier turn of the session),
 * reading only. A call decided to run whose grant is
 * still to take (runnable, its run running) is `allow` with `task_state`
 * `runnable`, and the input a person approved with changes as
 * `updated_input`; any other row is answered as a pre_tool answers it. No
 * session is opened, no row planted, no grant taken: the grant stays for the
 * pre_tool of whoever runs the call, so a framework's resume in one process
 * never takes the grant that another process's run needs.
 * @throws AirlockError invalid_input (no tool_name, or nothing naming the call, a run_id without
 *   its task_key), task_not_found (no such call in the session), call_mismatch (the call
 *   presented is not the one its row holds).
 */
export async function lookPreTool(
  ctx: KernelContext,
  principal: Principal,
  input: LookInput,
): Promise<HookedAnswer> {
  if (!input.tool_name) throw new AirlockError('invalid_input', 'pre_tool needs tool_name');
  if (input.task_key === undefined && input.tool_use_id === undefined) {
    throw new AirlockError('invalid_input', 'a look names its call by tool_use_id or task_key');
  }
  if (input.run_id !== undefined && input.task_key === undefined) {
    throw new AirlockError(
      'invalid_input',
      'run_id names the run of a task_key asked about again: send both',
    );
  }
  const session = await readHookSession(ctx.store, keyOf(principal, input));
  const runId = input.run_id ?? session?.run_id ?? null;
  if (session === null || runId === null) throw noSuchCall(input);
  const call = {
    toolName: input.tool_name,
    toolInput: input.tool_input ?? {},
    toolUseId: input.tool_use_id ?? null,
    workingDirectory: input.cwd,
  };
  return ctx.store.transaction(async (tx) => {
    const sessionRun = async (id: string) => {
      const found = await peekRun(tx, id);
      if (
        found?.workspace_id !== principal.workspace_id ||
        found.conversation_id !== session.conversation_id
      ) {
        throw noSuchCall(input);
      }
      return found;
    };
    let run = await sessionRun(runId);
    const by = { taskKey: input.task_key, toolUseId: call.toolUseId };
    let row = await findCallRow(tx, run, by, undefined);
    if (row === null && input.run_id === undefined && call.toolUseId !== null) {
      // A call of an earlier turn: the session's next turn began since (a stop, a new prompt).
      const earlier = await findOtherRunOfCall(tx, {
        workspaceId: principal.workspace_id,
        conversationId: session.conversation_id,
        toolUseId: call.toolUseId,
        exceptRunId: run.id,
      });
      if (earlier !== undefined) {
        run = await sessionRun(earlier);
        row = await findCallRow(tx, run, by, undefined);
      }
    }
    if (row === null) throw noSuchCall(input);
    await checkPresentedCall(tx, run, row, call);
    const base = { conversation_id: session.conversation_id, run_id: run.id };
    const running = run.state === 'running';
    const inAgentPrompt = await answerableInAgentPrompt(tx, run, row);
    const answer = answerOf(base, row, { inAgentPrompt, running });
    if (row.state !== 'runnable' || !running) return answer;
    return {
      ...answer,
      verdict: 'allow',
      reason: null,
      ...(wasEdited(row) ? { updated_input: JSON.parse(row.tool_input) as JsonValue } : {}),
    };
  });
}

/** The refusal of a look at a call the session has no row for. */
function noSuchCall(input: LookInput): AirlockError {
  const named = input.task_key ?? input.tool_use_id;
  const where = input.run_id === undefined ? 'the session' : `run ${input.run_id} of this session`;
  return new AirlockError('task_not_found', `no call ${named} in ${where}`);
}
