import { OPERATION_CONTRACTS } from '@airlock/core';
import { claudeCode, DEFAULT_WAIT_MS, decide, failClosed } from '@airlock/hooks';
import { recordHookedEvent } from '../kernel/hooks/hooked-sessions.js';
import { implement } from './operation.js';

/** POST /agent_api/v1/hooks/events: one event of a coding agent's hooked session. */
export const hookEvent = implement(
  OPERATION_CONTRACTS['hooks.event'],
  ({ kernel, principal }, input) => recordHookedEvent(kernel.context, principal, input),
);

/** The longest a Claude Code HTTP hook may hold its request for a person (under its 10-minute ceiling). */
const MAX_HTTP_WAIT_MS = 280_000;

function waitOf(value: unknown): number {
  const asked = Number(value);
  return Number.isFinite(asked) && asked > 0 ? Math.min(asked, MAX_HTTP_WAIT_MS) : DEFAULT_WAIT_MS;
}

/** The wait and defer named by a hook URL's options (`default`, `wait-N`, `wait-N-defer`). */
function optionsOf(value: unknown): { waitMs: number; defer: boolean } {
  const match = /^wait-(\d+)(-defer)?$/.exec(String(value));
  return { waitMs: waitOf(match?.[1]), defer: match?.[2] !== undefined };
}

/**
 * POST /agent_api/v1/hooks/claude-code/{hook_options}: Claude Code's
 * HTTP hook, answered in its own format by the kernel itself. The same
 * mapping as the command hook, with the events recorded in process; any
 * failure to decide refuses a tool call.
 */
export const claudeCodeHook = implement(
  OPERATION_CONTRACTS['hooks.claudeCode'],
  async ({ kernel, principal }, input) => {
    const { hook_options: hookOptions, ...payload } = input as Record<string, unknown>;
    const { waitMs, defer } = optionsOf(hookOptions);
    let event: ReturnType<typeof claudeCode.parse>;
    try {
      event = claudeCode.parse(payload);
    } catch (error) {
      const reason = `Airlock could not read the hook payload: ${(error as Error).message}`;
      return JSON.parse(
        claudeCode.format(
          { agent: 'claude-code', session_id: String(payload.session_id), event: 'pre_tool' },
          failClosed(
            { agent: 'claude-code', session_id: String(payload.session_id), event: 'pre_tool' },
            reason,
          ),
        ).stdout,
      ) as Record<string, never>;
    }
    if (event === null) return {};
    const reply = await decide(claudeCode, event, {
      kernel: { url: '', token: '' },
      waitMs,
      defer,
      inboxUrl: 'the Airlock inbox',
      send: (body) => recordHookedEvent(kernel.context, principal, body),
    });
    return JSON.parse(claudeCode.format(event, reply).stdout) as Record<string, never>;
  },
);
