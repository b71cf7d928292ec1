import type { AgentProtocol, KernelAnswer, NeutralEvent, Reply } from '../agents/types.js';
import { type KernelTarget, KernelUnavailable, sendEvent } from './kernel-call.js';

/** How the hook client waits and what it hands over. */
export interface DecideOptions {
  kernel: KernelTarget;
  /** How long a call may wait for a person before the hook answers; keep it under the agent's own timeout. */
  waitMs: number;
  /** Claude Code headless (`-p`): a park ends the agent's run with `defer`; `--resume` asks again. */
  defer?: boolean;
  /** Hand a requires_user call to the agent's own prompt where it has one (default true). */
  nativeAsk?: boolean;
  /**
   * Where people decide, named in the waiting reason (default: the kernel's
   * inbox page, its root); null when no address is known (the kernel's own
   * HTTP hook endpoint), and the reason names none.
   */
  inboxUrl?: string | null;
  /** How often a waiting call asks again; default 250 ms, growing to 2 s. */
  pollMs?: number;
  /**
   * Aborted when nobody waits for the answer any more (the kernel's HTTP hook
   * endpoint: the agent closed its request): the wait ends at once and asks
   * the kernel nothing more, so no decision is taken for a reader that is gone.
   */
  signal?: AbortSignal;
  /** The clock (tests). */
  now?: () => number;
  /**
   * How an event reaches the kernel; default `POST /agent_api/v1/hooks/events`
   * over HTTP. The kernel's own HTTP hook endpoint records it in process.
   */
  send?: (event: NeutralEvent, timeoutMs: number) => Promise<KernelAnswer>;
}

/** Waits `ms`, or less when `signal` aborts meanwhile. */
function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}

/** The reply to a wait whose reader left: never read, and it allows nothing. */
function nobodyWaits(event: NeutralEvent): Reply {
  return failClosed(event, 'the agent stopped waiting for this hook');
}

/** The reason a call that outlived the hook's wait is refused with: where it waits, and what to do. */
export function waitingReason(answer: KernelAnswer, inboxUrl: string | null): string {
  const inbox = inboxUrl === null ? 'the Airlock inbox' : `the Airlock inbox (${inboxUrl})`;
  return (
    `Airlock: this call waits for a person's approval (run ${answer.run_id}, task ${answer.task_key}); ` +
    `it was not run. A member can approve or deny it in ${inbox}, the SDK or the CLI. ` +
    'Once it is approved, retry the identical call: it will be granted once.'
  );
}

function reminders(answer: KernelAnswer): string | null {
  return answer.reminders.length > 0 ? answer.reminders.join('\n') : null;
}

/** The reply to a settled answer. */
function replyOf(protocol: AgentProtocol, event: NeutralEvent, answer: KernelAnswer): Reply {
  switch (answer.verdict) {
    case 'allow':
      if (answer.updated_input !== undefined && !protocol.updatesInput) {
        // This agent would run its own input: refuse it, and tell the model what was approved.
        return {
          kind: 'deny',
          reason: `Airlock: a person approved this call only with changes, so it was not run as composed. Make the call again with this input: ${JSON.stringify(answer.updated_input)}`,
        };
      }
      return {
        kind: 'allow',
        context: reminders(answer),
        ...(answer.updated_input === undefined ? {} : { updatedInput: answer.updated_input }),
      };
    case 'deny':
      if (event.event === 'pre_tool' || event.event === 'turn_start') {
        return { kind: 'deny', reason: `Airlock refused this call: ${answer.reason ?? 'denied'}` };
      }
      return { kind: 'pass', context: null, note: `Airlock: ${answer.reason ?? 'refused'}` };
    case 'continue':
      return { kind: 'continue', feedback: answer.reason ?? 'Continue.' };
    default:
      return {
        kind: 'pass',
        context: reminders(answer),
        note: answer.reason ? `Airlock: ${answer.reason}` : null,
      };
  }
}

/** What the hook answers when it cannot reach a decision: a tool call is refused, anything else passes with a note. */
export function failClosed(event: NeutralEvent, why: string): Reply {
  if (event.event === 'pre_tool') {
    return {
      kind: 'deny',
      reason: `Airlock could not decide this call, so it was not run: ${why}`,
    };
  }
  return { kind: 'pass', context: null, note: `Airlock could not record this event: ${why}` };
}

/**
 * The event asked again about the row a wait named: by its task key, and a
 * call also by its run, so that a turn that changed meanwhile (a new turn
 * holding another call under the same key) is not answered in its place.
 */
function askAgain(event: NeutralEvent, waiting: KernelAnswer): NeutralEvent {
  if (!waiting.task_key) return event;
  const inRun = event.event === 'pre_tool' && waiting.run_id ? { run_id: waiting.run_id } : {};
  return { ...event, task_key: waiting.task_key, ...inRun };
}

/**
 * Asks the kernel about one event and waits (bounded) while it says wait:
 * a park for a person, a lifecycle hook's decision. Never throws and never
 * answers later than `waitMs` plus one request: past the wait a call is
 * refused with the waiting reason, and any failure to reach a decision
 * refuses a call (fail closed). When `signal` aborts, it asks nothing more
 * and refuses.
 */
export async function decide(
  protocol: AgentProtocol,
  event: NeutralEvent,
  options: DecideOptions,
): Promise<Reply> {
  if (!Number.isFinite(options.waitMs) || options.waitMs < 0) {
    // Not a number of milliseconds: no deadline could be kept, so nothing is asked.
    return failClosed(event, `the wait ${String(options.waitMs)} is not a number of milliseconds`);
  }
  if (options.signal?.aborted) return nobodyWaits(event);
  const now = options.now ?? Date.now;
  const started = now();
  const deadline = started + options.waitMs;
  // The kernel serves its inbox page at its root (there is no /inbox path).
  const inboxUrl =
    options.inboxUrl === undefined
      ? `${String(options.kernel.url).replace(/\/+$/, '')}/`
      : options.inboxUrl;
  const budget = () => Math.max(1, Math.min(10_000, deadline - now()));
  const sendTo = options.send ?? ((body, timeoutMs) => sendEvent(options.kernel, body, timeoutMs));
  // The agent's own event name is for its answer: the kernel's contract has no such field.
  const send = ({ hook_event_name: _, ...body }: NeutralEvent, timeoutMs: number) =>
    sendTo(body, timeoutMs);
  try {
    let answer = await send(event, budget());
    let delay = options.pollMs ?? 250;
    while (answer.verdict === 'wait') {
      if (event.event === 'pre_tool') {
        if (answer.requires_user && protocol.nativeAsk && options.nativeAsk !== false) {
          return {
            kind: 'ask',
            reason: `Airlock: ${answer.reason ?? 'this call needs your answer'}`,
          };
        }
        if (options.defer && protocol.canDefer) {
          return { kind: 'defer', reason: waitingReason(answer, inboxUrl) };
        }
      }
      if (now() + delay >= deadline) {
        return event.event === 'pre_tool'
          ? { kind: 'deny', reason: waitingReason(answer, inboxUrl) }
          : failClosed(
              event,
              `no decision within ${options.waitMs} ms (${answer.reason ?? 'waiting'})`,
            );
      }
      await sleep(delay, options.signal);
      if (options.signal?.aborted) return nobodyWaits(event);
      delay = Math.min(2000, Math.round(delay * 1.5));
      const waiting = answer;
      try {
        answer = await send(askAgain(event, waiting), budget());
      } catch (error) {
        // A poll's time is what is left of the wait: when it runs out before the kernel
        // answers (a slow machine near the deadline), the call still waits for its person,
        // and the model is told so, not that the kernel could not decide.
        if (!(error instanceof KernelUnavailable && error.code === 'timeout')) throw error;
        if (event.event !== 'pre_tool') throw error;
        return { kind: 'deny', reason: waitingReason(waiting, inboxUrl) };
      }
      // An answer about another row than the one asked about decides nothing for this call.
      if (
        (waiting.task_key && answer.task_key && answer.task_key !== waiting.task_key) ||
        (waiting.run_id && answer.run_id && answer.run_id !== waiting.run_id)
      ) {
        return failClosed(
          event,
          `the kernel answered about run ${answer.run_id} task ${answer.task_key}, not the call it holds`,
        );
      }
    }
    return replyOf(protocol, event, answer);
  } catch (error) {
    const why =
      error instanceof KernelUnavailable || error instanceof Error ? error.message : String(error);
    return failClosed(event, why);
  }
}
