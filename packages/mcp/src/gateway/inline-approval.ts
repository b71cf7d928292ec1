import { asKeptText, shortened, visibleText } from '@airlock/core';
import { DENY_REASON_MAX } from '@airlock/core/wire';
import type { TaskView } from '@airlock/sdk';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { GatewaySession } from './gateway-session.js';

/** The form the client's user answers: approve or deny, and an optional reason. */
const DECISION_FORM = {
  type: 'object',
  properties: {
    decision: {
      type: 'string',
      title: 'Decision',
      enum: ['approve', 'deny'],
      enumNames: ['Approve', 'Deny'],
    },
    reason: { type: 'string', title: 'Reason (read by the model when you deny)' },
  },
  required: ['decision'],
} as const;

/**
 * A deny reason as the kernel takes it: NUL and lone surrogates as U+FFFD,
 * and a long one cut (marked `…`). The kernel refuses any other, which lost
 * the person's deny and left the call parked for anyone to approve.
 */
function keptReason(reason: string): string {
  const kept = asKeptText(reason);
  // A cut through a surrogate pair leaves half of it: kept as U+FFFD too.
  return kept.length <= DENY_REASON_MAX
    ? kept
    : `${asKeptText(kept.slice(0, DENY_REASON_MAX - 1))}…`;
}

/** The most of a call's input the question shows: past it, its start and its end. */
const INPUT_SHOWN_MAX = 2000;

/**
 * The question a person answers: the call as it will run, every character
 * that would change how it reads shown as a mark, and a long input cut in
 * its middle (never its end), saying so.
 */
export function questionOf(task: TaskView): string {
  const input = visibleText(JSON.stringify(task.tool_input));
  const shown = shortened(input, INPUT_SHOWN_MAX);
  const whole = shown === input ? '' : " (the whole input is in Airlock's inbox)";
  const name = visibleText(task.tool_name, { oneLine: true });
  return `Airlock holds this call for a person's approval: ${name} ${shown}${whole}`;
}

/** True when the client can ask its user and the session's credential can decide (a member's). */
export function canAskInline(server: Server, session: GatewaySession): boolean {
  return session.kind === 'member' && server.getClientCapabilities()?.elicitation !== undefined;
}

/**
 * Asks the client's own user to decide a parked call (MCP elicitation) and
 * records the answer as the member's decision: accept with `approve`
 * approves; accept with `deny`, or decline, denies; cancel leaves the park to
 * the inbox and its clock. The question is withdrawn when `signal` aborts
 * (the row was decided elsewhere, or the call ended).
 */
export async function askInline(options: {
  server: Server;
  session: GatewaySession;
  task: TaskView;
  signal: AbortSignal;
  /**
   * The client's `tools/call` the question is about: over Streamable HTTP
   * the question rides on that call's open response stream, which every
   * client reads (a client that opened no GET stream would never see it).
   */
  relatedRequestId?: string | number | undefined;
}): Promise<void> {
  const { task } = options;
  let answer: Awaited<ReturnType<Server['elicitInput']>>;
  try {
    answer = await options.server.elicitInput(
      {
        mode: 'form',
        message: questionOf(task),
        requestedSchema: DECISION_FORM as never,
      },
      {
        signal: options.signal,
        timeout: 24 * 60 * 60_000,
        relatedRequestId: options.relatedRequestId,
      },
    );
  } catch {
    // Withdrawn, refused or unanswered: the park waits for the inbox or its clock.
    return;
  }
  if (answer.action === 'cancel') return;
  const content = (answer.content ?? {}) as { decision?: unknown; reason?: unknown };
  if (answer.action === 'accept' && content.decision === 'approve') {
    await options.session.decide(task, { approve: true });
    return;
  }
  const reason =
    typeof content.reason === 'string' && content.reason.trim() !== ''
      ? content.reason
      : "the client's user denied this call";
  await options.session.decide(task, { approve: false, reason: keptReason(reason) });
}
