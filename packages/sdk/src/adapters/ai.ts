import {
  type AiSdkMessage,
  type ApprovalRequestSeen,
  approvalRequests,
  declaredCallIds,
  unansweredCalls,
  wasParked,
} from './ai-messages.js';
import { PendingApprovalsError } from './ai-pending.js';

import { isAsyncGeneratorFunction, runGrantedStream, settled } from './ai-streaming.js';
import { type Held, HeldVerdicts } from './held-verdicts.js';
import {
  type CallVerdict,
  type FrameworkCall,
  FrameworkSession,
  type FrameworkSessionOptions,
  failedCheck,
  grantedCall,
  refusalText,
} from './session.js';

export type { AiSdkMessage, UnansweredCall } from './ai-messages.js';
export { isPendingApprovalsError, PendingApprovalsError } from './ai-pending.js';

// The AI SDK's shapes this adapter reads, written structurally: the SDK builds without `ai`.

/** The part of an AI SDK `Tool` the adapter wraps. */
export interface AiSdkTool {
  execute?: ((input: never, options: never) => unknown) | undefined;
  needsApproval?: unknown;
}

/** What the AI SDK passes to a tool's `execute`. */
interface ExecutionOptions {
  toolCallId: string;
  /** Aborted when the application stops the generation (`generateText`'s `abortSignal`). */
  abortSignal?: AbortSignal | undefined;
}

/** The AI SDK's `ToolApprovalResponse` part. */
export interface AiSdkApprovalResponse {
  type: 'tool-approval-response';
  approvalId: string;
  approved: boolean;
  reason?: string;
}

/** Thrown inside a wrapped tool Airlock refused: the AI SDK hands its message to the model. */
export class AirlockRefusal extends Error {
  readonly verdict: CallVerdict;
  constructor(verdict: CallVerdict) {
    super(refusalText(verdict));
    this.name = 'AirlockRefusal';
    this.verdict = verdict;
  }
}

/** A parked call still waiting for a person, as {@link AiSdkAirlock.resume} reports it. */
export interface PendingApproval {
  approvalId: string;
  toolCallId: string;
  toolName: string;
  taskKey: string | null;
  runId: string | null;
  /** It waits because an action contract's `requires_user` matched. */
  requiresUser: boolean;
}

/** What {@link AiSdkAirlock.resume} gives back. */
export interface ResumeResult<MESSAGE extends AiSdkMessage> {
  /** The messages to hand back to `generateText` / `streamText` (with the decided approvals). */
  messages: MESSAGE[];
  /** The approval responses added (one per decided park). */
  responses: AiSdkApprovalResponse[];
  /**
   * The parks nobody has decided yet. While a call of the step is listed here, a generation
   * from `messages` throws {@link PendingApprovalsError} and runs nothing (the AI SDK goes on
   * only once every call of a step is answered): resume the saved messages again later.
   */
  pending: PendingApproval[];
}

/**
 * Airlock for the Vercel AI SDK (`ai` 6): wrap the tools once, and every call
 * the SDK's loop is about to run crosses Airlock's approval stage.
 *
 * - grant: the tool runs, and what it returned is committed to the row;
 * - refuse: the tool does not run; the model reads `Airlock refused this call: REASON`;
 * - park: the SDK's own pause, a `tool-approval-request`; after a person
 *   decides (inbox, CLI, Slack, SDK), {@link AiSdkAirlock.resume} adds the
 *   tool approval responses and the next `generateText` runs the call once.
 */
export class AiSdkAirlock {
  readonly session: FrameworkSession;
  /** Verdicts of `needsApproval`, taken once by the matching `execute`. */
  readonly #verdicts = new HeldVerdicts();
  /** The names of the tools this adapter wrapped: the only calls whose approvals `resume` answers. */
  readonly #wrapped = new Set<string>();
  /** The calls `resume` answered approved whose `execute` has not come yet, by call id. */
  readonly #approvedUnrun = new Map<string, FrameworkCall>();
  /** The denied approvals `resume` already made sure Airlock holds no longer open, by call id. */
  readonly #settledDenials = new Set<string>();

  constructor(options: FrameworkSessionOptions) {
    this.session = new FrameworkSession('ai-sdk', options);
  }

  /**
   * How many calls' verdicts the adapter holds for the framework's `execute` (granted calls not
   * run yet, parked ones not resumed yet); each goes when its call runs, when `resume` reads a
   * person's decision on it, or after 24 hours.
   */
  get verdictsHeld(): number {
    return this.#verdicts.size;
  }

  /** The same tools, each asking Airlock before it runs. Tools without `execute` pass through. */
  tools<TOOLS extends Record<string, AiSdkTool>>(tools: TOOLS): TOOLS {
    const wrapped: Record<string, AiSdkTool> = {};
    for (const [name, original] of Object.entries(tools)) {
      wrapped[name] = this.#wrap(name, original);
      if (original.execute) this.#wrapped.add(name);
    }
    return wrapped as TOOLS;
  }

  #wrap(name: string, original: AiSdkTool): AiSdkTool {
    const execute = original.execute as
      | ((input: unknown, options: ExecutionOptions) => unknown)
      | undefined;
    if (!execute) return original;
    const session = this.session;
    const decide = async (call: FrameworkCall, signal: AbortSignal | undefined) => {
      const verdict = await this.#decide(call);
      // The generation was stopped while Airlock was asked: the SDK calls execute all the same.
      if (signal?.aborted) await this.#abandoned(call, verdict, signal);
      return verdict;
    };
    return {
      ...original,
      needsApproval: async (
        input: unknown,
        options: { toolCallId: string; messages?: readonly AiSdkMessage[] },
      ) => {
        const callId = options.toolCallId;
        // Some calls of the step still wait: the SDK would run this one, then throw its own
        // missing-results error with what it returned lost. Nothing runs until all are answered.
        const unanswered = unansweredCalls(options.messages ?? []);
        if (unanswered.length > 0) throw new PendingApprovalsError(unanswered);
        await this.#closeStranded(options.messages ?? [], callId);
        // The SDK asks again before running an approved call: a parked call stays one that
        // needs approval, and execute (which reads Airlock's decision) does the rest.
        if (this.#verdicts.has(callId) || wasParked(options.messages ?? [], callId)) return true;
        const call: FrameworkCall = { name, input, callId };
        const verdict = await this.session.check(call);
        this.#verdicts.hold(call, verdict);
        return verdict.verdict === 'wait';
      },
      // A streaming tool stays one, so the SDK streams its preliminary results through.
      execute: isAsyncGeneratorFunction(execute)
        ? async function* (this: void, input: unknown, options: ExecutionOptions) {
            const call: FrameworkCall = { name, input, callId: options.toolCallId };
            const verdict = await decide(call, options.abortSignal);
            yield* runGrantedStream(session, call, verdict, (granted) =>
              (execute as (input: unknown, options: ExecutionOptions) => AsyncIterable<unknown>)(
                granted,
                options,
              ),
            );
          }
        : async (input: unknown, options: ExecutionOptions) => {
            const call: FrameworkCall = { name, input, callId: options.toolCallId };
            const verdict = await decide(call, options.abortSignal);
            return session.runGranted(call, verdict, (granted) =>
              settled(execute(granted, options)),
            );
          },
    };
  }

  /**
   * The grant of a call the SDK is about to run.
   * @throws AirlockRefusal when Airlock does not grant it.
   */
  async #decide(call: FrameworkCall): Promise<CallVerdict> {
    const approved = this.#approvedUnrun.get(call.callId);
    this.#approvedUnrun.delete(call.callId);
    // A verdict held for the call id is good for the call Airlock checked only: another
    // tool or input under that id (saved messages edited) is refused with call_mismatch.
    let verdict = this.#verdicts.take(call);
    // Resumed after a park (maybe in another process): Airlock, not the response, decides.
    if (!verdict || verdict.verdict === 'wait') {
      try {
        verdict = await this.session.checkParked(call);
      } catch (error) {
        // No decision (the kernel out of reach): the SDK is done with the call once the model
        // reads this, so finish() withdraws the approval resume read, nobody taking its grant.
        if (approved) this.#approvedUnrun.set(call.callId, approved);
        throw new AirlockRefusal(failedCheck(error));
      }
    }
    if (verdict.verdict === 'wait') {
      // An approval the application wrote itself while a person has not decided: the SDK is
      // done with the call once this refusal reaches the model, so Airlock stops asking.
      await this.session.withdraw(
        call,
        'the application approved the call in the AI SDK itself before a person decided',
      );
      throw new AirlockRefusal({
        ...verdict,
        verdict: 'deny',
        reason:
          "the application approved this call itself while it waited for a person's approval in Airlock; it did not run, and Airlock's approval request was withdrawn",
      });
    }
    if (verdict.verdict !== 'allow') throw new AirlockRefusal(verdict);
    return verdict;
  }

  /**
   * Records as failed, not run, a call granted to a generation the application aborted.
   * @throws the signal's reason, as the SDK's own aborted calls do.
   */
  async #abandoned(call: FrameworkCall, verdict: CallVerdict, signal: AbortSignal): Promise<never> {
    const why = signal.reason instanceof Error ? signal.reason.message : String(signal.reason);
    const output = `the call did not run: the application aborted the AI SDK generation before it ran (${why})`;
    await this.session.ran(grantedCall(call, verdict), { ok: false, output });
    throw signal.reason;
  }

  /**
   * Answers the parks of a paused generation from Airlock's decisions: for
   * each open `tool-approval-request`, a `tool-approval-response` (approved,
   * or denied with the person's reason) once a person decided; undecided ones
   * are listed as `pending`. Works in a fresh process from saved messages.
   * A request the application already denied itself is withdrawn in Airlock
   * (the SDK never runs it, so no person should be asked about it).
   * Only the calls of tools this adapter wrapped are answered: the approval
   * of a tool of the application's own (not given to {@link tools}, or one
   * without `execute`) is left to the application, since its own
   * `needsApproval` asked for a person Airlock does not stand in for. An
   * adapter that wrapped no tools yet cannot tell them apart and answers every
   * request: build the tools before calling `resume`.
   * @throws AirlockError when the kernel gives no decision (`connection_failed`,
   *   `deadline_exceeded`, a 5xx): no call is refused for it; resume again later. Also
   *   `task_not_found` when the session holds no such call (an adapter built with another
   *   `sessionId` than the park's): resume with the park's `sessionId`.
   */
  async resume<MESSAGE extends AiSdkMessage>(messages: MESSAGE[]): Promise<ResumeResult<MESSAGE>> {
    const responses: AiSdkApprovalResponse[] = [];
    const pending: PendingApproval[] = [];
    await this.#closeStranded(messages);
    const requests = approvalRequests(messages);
    await this.#withdrawDenied(requests.denied);
    for (const request of requests.open) {
      if (!this.#answers(request.toolName)) continue;
      const call: FrameworkCall = {
        name: request.toolName,
        input: request.input,
        callId: request.toolCallId,
      };
      // Reads the decision only: the grant is taken by the check of the execute that runs the
      // call, in this process or in another that goes on from the messages.
      const verdict = await this.session.decided(call);
      if (verdict.verdict === 'wait') {
        pending.push({
          approvalId: request.approvalId,
          toolCallId: request.toolCallId,
          toolName: request.toolName,
          taskKey: verdict.taskKey,
          runId: verdict.runId,
          requiresUser: verdict.requiresUser,
        });
        continue;
      }
      // What needsApproval held for the park goes: an approved call's execute asks Airlock (and
      // takes the grant), and the SDK never runs a refused approval's execute.
      this.#verdicts.forget(request.toolCallId);
      if (verdict.verdict === 'allow') this.#approvedUnrun.set(call.callId, call);
      responses.push({
        type: 'tool-approval-response',
        approvalId: request.approvalId,
        approved: verdict.verdict === 'allow',
        ...(verdict.verdict === 'allow' ? {} : { reason: refusalText(verdict) }),
      });
    }
    const answer = { role: 'tool', content: responses } as unknown as MESSAGE;
    return {
      messages: responses.length > 0 ? [...messages, answer] : messages,
      responses,
      pending,
    };
  }

  /**
   * Withdraws in Airlock the parks the application denied itself (a denial it wrote in place
   * of Airlock's decision): the SDK never runs a denied call, so nobody should be asked about
   * it. A denial `resume` wrote from Airlock's own deny has nothing open to withdraw. Each call
   * is settled once per adapter; a failure is kept for `flush` and tried again next time.
   */
  async #withdrawDenied(denied: readonly ApprovalRequestSeen[]): Promise<void> {
    for (const request of denied) {
      if (!this.#answers(request.toolName) || this.#settledDenials.has(request.toolCallId)) {
        continue;
      }
      this.#verdicts.forget(request.toolCallId);
      const call = { name: request.toolName, input: request.input, callId: request.toolCallId };
      // A withdrawal that failed (the kernel out of reach) is tried again by the next resume.
      const why = 'the application denied the call in the AI SDK (a tool approval response)';
      if (await this.session.withdraw(call, why)) this.#settledDenials.add(request.toolCallId);
    }
  }

  /** Whether `resume` answers the approval of a call of this tool (see {@link resume}). */
  #answers(toolName: string): boolean {
    return this.#wrapped.size === 0 || this.#wrapped.has(toolName);
  }

  /**
   * Ends the turn with the model's final text (through the profile's stop hook).
   * A call Airlock granted that the SDK never executed (its step ended with a
   * finish reason other than `stop` or `tool-calls`, such as `length`) is first
   * recorded as failed, not run: left alone, its row would read as a call that
   * may have run (`outcome_unknown`). A call `resume` answered approved whose
   * `execute` never came (the SDK refused the approved input when it checked
   * it again against the tool's schema, say after a deploy changed it) is
   * withdrawn, so its grant does not wait for good. Call it at the end of every turn: without
   * it the run stays open, and a granted call the SDK never executed is recorded as not run
   * only once later messages declare it (the next `resume`, or the next call's check); one the
   * application drops from the history stays claimed until its claim lapses to
   * `outcome_unknown`.
   * @throws AirlockError when the kernel refuses it.
   */
  async finish(text: string): Promise<void> {
    // One whose withdrawal failed stays, for the next finish; flush throws the failure.
    for (const [callId, call] of this.#approvedUnrun) {
      const why = 'the AI SDK turn finished without running the approved call';
      if (await this.session.withdraw(call, why)) this.#approvedUnrun.delete(callId);
    }
    await this.#recordNotRun(this.#verdicts.takeGrants());
    return this.session.finish(text);
  }

  /**
   * Records as not run the grants held for calls the messages declare, but `except`: the step
   * that declared them is over (the messages are what a later step or generation starts from),
   * so the SDK will never execute them. The application went on without `finish()`.
   */
  async #closeStranded(messages: readonly AiSdkMessage[], except?: string): Promise<void> {
    if (this.#verdicts.size === 0) return;
    const declared = declaredCallIds(messages);
    await this.#recordNotRun(
      this.#verdicts.takeGrants((callId) => callId !== except && declared.has(callId)),
    );
  }

  /** Commits each grant the SDK never executed as failed, not run, so no row reads "may have run". */
  async #recordNotRun(grants: readonly Held[]): Promise<void> {
    for (const { call, verdict } of grants) {
      await this.session.ran(grantedCall(call, verdict), {
        ok: false,
        output:
          'the call did not run: the AI SDK ended the generation without executing it (a step that finished for another reason than stop or tool-calls)',
      });
    }
  }

  /**
   * Waits until what the tools returned is committed to their Airlock rows
   * (each report goes behind its call unless `awaitReports` is set).
   * @throws AirlockError the first report the kernel refused since the last flush.
   */
  flush(): Promise<void> {
    return this.session.flush();
  }
}

/** Airlock for the Vercel AI SDK: see {@link AiSdkAirlock}. */
export function createAiSdkAirlock(options: FrameworkSessionOptions): AiSdkAirlock {
  return new AiSdkAirlock(options);
}
