/*
 * A hooked session's turns: the session an event belongs to (one
 * conversation per agent session), and the run of its current turn, a new
 * one when the last has ended.
 */

import type { HookedLoop, ToolManifest } from '@airlock/core';
import { TOOL_MANIFESTS } from '@airlock/hooks';
import { AirlockError } from '../../errors.js';
import type { Principal } from '../../store/accounts.js';
import {
  type HookSessionKey,
  openHookSession,
  readHookSession,
  setHookSessionRun,
} from '../../store/hook-sessions.js';
import type { CallLookupsAhead } from '../../store/hooked-rows.js';
import { newId } from '../../store/ids.js';
import { peekRun } from '../../store/runs.js';
import type { HookSessionTable, RunTable } from '../../store/schema.js';
import type { Tx } from '../../store/store.js';
import type { KernelContext } from '../context.js';
import { lockRunIfAny } from '../machines/run-state.js';
import { startTurn, type TurnKeeper } from '../verbs/runs.js';
import { callLookupsAhead } from './hooked-calls.js';

/** The manifest Airlock ships for a coding agent (none for a framework's loop, whose tools are the app's). */
function shippedManifestOf(agent: string): ToolManifest | undefined {
  return Object.hasOwn(TOOL_MANIFESTS, agent)
    ? TOOL_MANIFESTS[agent as keyof typeof TOOL_MANIFESTS]
    : undefined;
}

/** Where a hooked session is kept: its workspace, application, agent and the agent's session id. */
export function keyOf(
  principal: Principal,
  input: { agent: HookedLoop; session_id: string },
): HookSessionKey {
  if (!principal.agent_application_id) {
    throw new AirlockError('forbidden', 'this credential belongs to no agent application');
  }
  return {
    workspaceId: principal.workspace_id,
    agentApplicationId: principal.agent_application_id,
    agent: input.agent,
    sessionId: input.session_id,
  };
}

/** The session of a key, opened (with its conversation) on its first event. */
export async function sessionOf(
  ctx: KernelContext,
  key: HookSessionKey,
): Promise<HookSessionTable> {
  return (await readHookSession(ctx.store, key)) ?? openHookSession(ctx.store, key, newId('conv'));
}

/**
 * The run of the session's current turn, when it is still running; else a
 * new turn (see {@link newTurn}).
 * @throws AirlockError no_profile_configuration.
 */
export async function currentTurn(
  ctx: KernelContext,
  principal: Principal,
  session: HookSessionTable,
  key: HookSessionKey,
  prompt: string | undefined,
): Promise<RunTable> {
  if (session.run_id !== null) {
    const run = await peekRun(ctx.store, session.run_id);
    if (run && run.state === 'running') return run;
  }
  return newTurn(ctx, principal, session, key, prompt);
}

/**
 * Starts a new turn of the session's conversation (the profile's
 * configuration, frozen), as a run whose calls come from the agent's hooks,
 * and makes it the session's current turn.
 * @throws AirlockError no_profile_configuration.
 */
export async function newTurn(
  ctx: KernelContext,
  principal: Principal,
  session: HookSessionTable,
  key: HookSessionKey,
  prompt: string | undefined,
): Promise<RunTable> {
  // An agent's parallel calls at the start of a turn race here: the session is read again under
  // its conversation's lock, so the first makes the turn and the others join it.
  const keeper: TurnKeeper = {
    async running(tx) {
      const runId = (await readHookSession(tx, key))?.run_id ?? null;
      const run = runId === null ? undefined : await peekRun(tx, runId);
      return run?.state === 'running' ? run : null;
    },
    adopt: (tx, run) => setHookSessionRun(tx, key, run.id),
  };
  const run = await startTurn(
    ctx,
    principal,
    {
      conversation_id: session.conversation_id,
      input: prompt ?? `${key.agent} session ${key.sessionId}`,
      provider: { kind: 'gateway', client: `${key.agent} hooks` },
    },
    keeper,
    shippedManifestOf(key.agent),
  );
  session.run_id = run.id;
  ctx.scheduleDrive(run.id);
  return run;
}

/**
 * Runs a call event's `work` on the session's last turn, locked in a
 * transaction of its own (on PostgreSQL the event's lookups of its row go
 * out with the lock); null when the session has no turn, or it is gone
 * (pruned).
 */
export async function inSessionTurn<T>(
  ctx: KernelContext,
  principal: Principal,
  session: HookSessionTable,
  event: Parameters<typeof callLookupsAhead>[2],
  work: (tx: Tx, run: RunTable, ahead: CallLookupsAhead | undefined) => Promise<T>,
): Promise<{ run: RunTable; value: T } | null> {
  const runId = session.run_id;
  if (runId === null) return null;
  return ctx.store.transaction(async (tx) => {
    const ahead = callLookupsAhead(tx, runId, event);
    const run = await lockRunIfAny(tx, principal.workspace_id, runId);
    return run ? { run, value: await work(tx, run, ahead) } : null;
  });
}

/** The run of the session's current turn, whatever its state; null before any. */
export async function lastTurn(
  ctx: KernelContext,
  session: HookSessionTable,
): Promise<RunTable | null> {
  if (session.run_id === null) return null;
  return (await peekRun(ctx.store, session.run_id)) ?? null;
}
