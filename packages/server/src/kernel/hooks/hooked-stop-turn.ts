import type { HookedRanCall } from '@airlock/core';
import type { Principal } from '../../store/accounts.js';
import type { HookSessionKey } from '../../store/hook-sessions.js';
import type { HookSessionTable, RunTable } from '../../store/schema.js';
import type { KernelContext } from '../context.js';
import { lastTurn, newTurn } from './hooked-turns.js';
import { unseenTranscriptCalls } from './unstaged-calls.js';

/**
 * The turn a `Stop` ends. The session's last turn, unless the calls the
 * agent's transcript shows were made after it: a session no other hook told
 * of (only the turn's end is hooked, or its prompt never reached the
 * kernel), or one whose last turn already ended (the agent completed it, or
 * a member stopped it) and whose transcript holds calls that turn never
 * saw. Those calls go on a new turn, which ends with this stop's answer,
 * instead of on a turn that already ended. A stop asked again by its hook's
 * key, or sent again with the ended turn's own calls, is that turn's. Null
 * when the session has no turn and the stop carries no call.
 * @throws AirlockError no_profile_configuration.
 */
export async function turnOfStop(
  ctx: KernelContext,
  principal: Principal,
  session: { row: HookSessionTable; key: HookSessionKey },
  input: { task_key?: string | undefined; ran_calls?: HookedRanCall[] | undefined },
): Promise<RunTable | null> {
  const last = await lastTurn(ctx, session.row);
  const ranCalls = input.ran_calls ?? [];
  if (last === null) {
    return ranCalls.length > 0
      ? newTurn(ctx, principal, session.row, session.key, undefined)
      : null;
  }
  if (last.state === 'running' || input.task_key !== undefined || ranCalls.length === 0) {
    return last;
  }
  const unseen = await unseenTranscriptCalls(ctx, last, ranCalls);
  return unseen.length > 0 ? newTurn(ctx, principal, session.row, session.key, undefined) : last;
}
