import { type HookedFramework, type JsonValue, OWN_WORKSPACE } from '@airlock/core';
import { isAirlockError } from '../errors.js';
import { nextTurn } from '../internal/next-turn.js';
import { createOperations } from '../internal/operations.js';
import type { OperationsClient } from '../internal/transport.js';
import type { CallVerdict, FrameworkCall } from './call-verdict.js';
import { cancelCall } from './cancel-call.js';
import { decidedOrThrown, failedCheck, gaveNoDecision, NO_SUCH_CALL } from './check-failures.js';
import { outputText, thrownText } from './output-text.js';
import { decisionOfLook } from './parked-decision.js';

export type { CallVerdict, FrameworkCall } from './call-verdict.js';
export { failedCheck } from './check-failures.js';

/** How an adapter reaches Airlock: the kernel, an agent credential, and the conversation. */
export interface FrameworkSessionOptions {
  /** The kernel's base URL, such as `http://127.0.0.1:4820`. */
  url: string;
  /** An **agent** credential of the application whose profile (rules, rule set, contract) applies. */
  token: string;
  /**
   * The application's id for this conversation (a chat id, a thread id): one
   * Airlock conversation per session, a run per turn. Keep it with the
   * framework's saved state so a restarted process resumes the same session.
   */
  sessionId: string;
  /** A `fetch` to use instead of the global one. */
  fetch?: typeof fetch | undefined;
  /**
   * How long one request to the kernel may take, in ms (default 30000; null
   * waits as long as it takes). A check the kernel did not answer in time
   * answers `deny` with the code `deadline_exceeded`: the call does not run.
   */
  timeoutMs?: number | null | undefined;
  /**
   * Commit what each tool returned before handing it to the framework (one
   * more kernel round trip on every call's path). By default the report
   * goes behind the call: the session's next check, `flush()` and `finish()`
   * wait for it. Either way a report the kernel refused or never got is
   * thrown by `flush()` (and `finish()`), never handed to the framework in
   * place of what the tool returned: the call ran, and a model that read it
   * as failed would make it again.
   */
  awaitReports?: boolean | undefined;
}

/**
 * A hooked session of an agent framework: every call the framework is about
 * to run crosses Airlock's approval stage as a model row, and what ran is
 * committed back to that row. A failure to reach Airlock is a deny, never
 * an allow.
 */
export class FrameworkSession {
  readonly sessionId: string;
  readonly framework: HookedFramework;
  /** The Airlock run of the session's latest turn (null before its first call). */
  runId: string | null = null;
  readonly #operations: OperationsClient;
  readonly #awaitReports: boolean;
  /** The reports sent behind their calls and not yet answered, in order. */
  #reporting: Promise<void> = Promise.resolve();
  /** The first report the kernel refused since the last flush (or a withdrawal that failed). */
  #reportFailure: unknown = null;
  /** Reports the kernel gave no answer to (out of reach, a 5xx), in order: each flush sends them again. */
  #unsent: { call: FrameworkCall; ran: { ok: boolean; output: unknown } }[] = [];
  /** The workspace of the agent credential, once a withdrawal asked for it. */
  #workspaceId: Promise<string> | undefined;
  /** Granted calls running now, by call id, until their report is on its way. */
  readonly #running = new Map<string, Promise<unknown>>();

  constructor(framework: HookedFramework, options: FrameworkSessionOptions) {
    this.framework = framework;
    this.sessionId = options.sessionId;
    this.#awaitReports = options.awaitReports ?? false;
    this.#operations = createOperations({
      url: options.url,
      token: options.token,
      fetch: options.fetch,
      timeoutMs: options.timeoutMs,
    });
  }

  /**
   * Asks Airlock about a call (again, after a park: the call id finds its
   * row). A row that already ran answers `deny`: a call runs at most once.
   * Never throws: an unreachable or failing kernel answers `deny`.
   */
  async check(call: FrameworkCall): Promise<CallVerdict> {
    try {
      return await this.#ask(call);
    } catch (error) {
      return failedCheck(error);
    }
  }

  /**
   * Asks Airlock about a parked call for a resume, as {@link check} does,
   * except that a kernel that gave no decision throws instead of answering
   * `deny`: a resume that wrote that deny into the framework's state would
   * refuse for good a call a person may still approve.
   * @throws AirlockError `connection_failed`, `deadline_exceeded`, a 5xx or an unreadable 2xx (`internal`): no decision; ask again.
   */
  async checkParked(call: FrameworkCall): Promise<CallVerdict> {
    return decidedOrThrown(() => this.#ask(call));
  }

  /**
   * Reads what became of a parked call for a resume, taking nothing: `allow`
   * is a decision to run, not a grant. Airlock's single-use grant stays for
   * the {@link check} of whichever process runs the call, so a resume in one
   * process never takes the grant that the framework's run in another needs.
   * A call already granted to another check, or already run, answers `deny`.
   * @throws AirlockError `connection_failed`, `deadline_exceeded`, a 5xx or an unreadable 2xx: the kernel gave no
   *   decision; ask again. `task_not_found`: the session holds no such call (the adapter names
   *   another `sessionId` than the one the call was parked under), so there is no decision to
   *   read, and refusing the call would refuse for good one a person may have approved.
   */
  async decided(call: FrameworkCall): Promise<CallVerdict> {
    return decidedOrThrown(() => this.#look(call), NO_SUCH_CALL);
  }

  /** Reads Airlock's decision on a call, taking nothing; every kernel error is thrown. */
  async #look(call: FrameworkCall): Promise<CallVerdict> {
    await this.#reporting;
    const answer = await this.#operations.hooks.event.mutate({
      agent: this.framework,
      session_id: this.sessionId,
      event: 'pre_tool',
      look: true,
      tool_name: call.name,
      tool_input: (call.input ?? {}) as JsonValue,
      tool_use_id: call.callId,
    });
    this.runId = answer.run_id ?? this.runId;
    return decisionOfLook(answer);
  }

  /**
   * Withdraws a call the framework dropped before running it (one of the tool's own input
   * guardrails stopped it) that Airlock still holds open: a park waiting for a person, or a
   * call a person approved whose grant nobody took. Its row is canceled, so no one is asked
   * about, or approves, a call nothing will run. A call Airlock refused, or already granted,
   * has nothing to withdraw. `reason` (at most 4096 characters) is kept on the canceled row,
   * for the run's story and the audit trail. Never throws: a failure is kept for {@link flush},
   * as a report's is.
   * @returns true when Airlock holds the call open no longer; false when the withdrawal failed.
   */
  async withdraw(call: FrameworkCall, reason?: string): Promise<boolean> {
    try {
      await this.withdrawOrThrow(call, reason);
      return true;
    } catch (error) {
      this.#reportFailure ??= error;
      return false;
    }
  }

  /**
   * Withdraws a call Airlock holds open, as {@link withdraw} does, throwing its failure.
   * @throws AirlockError when the kernel could not be asked or refused: `call_mismatch` (another
   *   tool or input than the row's under the call id), `task_not_found` (no such call in this
   *   session), `unauthorized`, `connection_failed`, a 5xx. The call may still be open. A
   *   reason the kernel refuses (past 4096 characters, holding NUL, or a kernel older than
   *   reasons) is dropped, and the call withdrawn without it.
   */
  async withdrawOrThrow(call: FrameworkCall, reason?: string): Promise<void> {
    try {
      const open = await this.#look(call);
      if (open.verdict === 'deny' || open.runId === null || open.taskKey === null) return;
      // The agent credential's own workspace, read once: a cancel names it.
      this.#workspaceId ??= this.#operations.credentials.self
        .query({ workspace_id: OWN_WORKSPACE })
        .then(
          (self) => self.workspace_id,
          (error: unknown) => {
            this.#workspaceId = undefined;
            throw error;
          },
        );
      const workspace = await this.#workspaceId;
      const address = { workspace_id: workspace, run_id: open.runId, task_key: open.taskKey };
      await cancelCall(this.#operations, address, reason);
    } catch (error) {
      // Decided (refused, granted) between the look and the cancel: no longer open.
      if (isAirlockError(error) && error.code === 'task_not_waiting') return;
      throw error;
    }
  }

  async #ask(call: FrameworkCall): Promise<CallVerdict> {
    // The same call still running here (a framework that runs it again on a resume, as
    // LangGraph's tool node does): its end and report first, so the kernel answers with what it
    // returned instead of a grant still held.
    await this.#running.get(call.callId);
    // The session's calls reach Airlock in the order they ran: an earlier report first.
    await this.#reporting;
    const answer = await this.#operations.hooks.event.mutate({
      agent: this.framework,
      session_id: this.sessionId,
      event: 'pre_tool',
      tool_name: call.name,
      tool_input: (call.input ?? {}) as JsonValue,
      tool_use_id: call.callId,
    });
    this.runId = answer.run_id ?? this.runId;
    const base = {
      reason: answer.reason,
      taskKey: answer.task_key,
      runId: answer.run_id,
      requiresUser: answer.requires_user,
    };
    if (answer.verdict === 'allow' && answer.task_state !== 'claimed') {
      return {
        ...base,
        verdict: 'deny',
        reason: `this call already ran (Airlock run ${answer.run_id}, task ${answer.task_key})`,
      };
    }
    if (answer.verdict === 'allow') {
      return {
        ...base,
        verdict: 'allow',
        ...(answer.updated_input === undefined ? {} : { updatedInput: answer.updated_input }),
      };
    }
    if (answer.verdict === 'wait') return { ...base, verdict: 'wait' };
    return { ...base, verdict: 'deny', reason: answer.reason ?? 'Airlock refused this call' };
  }

  /**
   * Runs a call Airlock granted, with the input a person approved when they
   * changed it (`verdict.updatedInput`), and reports what it returned or
   * threw (whatever was thrown, even `null`) before passing it on. `failed`
   * tells a failure the framework caught and handed back as the tool's output
   * (reported as failed, and passed on all the same): true, or the failure's text to record.
   * @throws what `execute` threw.
   */
  async runGranted<T>(
    call: FrameworkCall,
    verdict: CallVerdict,
    execute: (input: unknown) => Promise<T> | T,
    failed: (output: T) => boolean | string = () => false,
  ): Promise<T> {
    const ran = grantedCall(call, verdict);
    const running = (async () => {
      let output: T;
      try {
        output = await execute(ran.input);
      } catch (error) {
        await this.ran(ran, { ok: false, output: thrownText(error) });
        throw error;
      }
      const failure = failed(output);
      await this.ran(
        ran,
        failure === false
          ? { ok: true, output }
          : { ok: false, output: failure === true ? output : failure },
      );
      return output;
    })();
    const settled = running.then(
      () => undefined,
      () => undefined,
    );
    this.#running.set(call.callId, settled);
    try {
      return await running;
    } finally {
      if (this.#running.get(call.callId) === settled) this.#running.delete(call.callId);
    }
  }

  /**
   * Commits what a granted call returned (or how it failed) to its row, so
   * the run story shows the whole run.
   * @throws AirlockError when the kernel refuses the report.
   */
  async report(call: FrameworkCall, ran: { ok: boolean; output: unknown }): Promise<void> {
    await this.#reporting;
    await this.#send(call, ran);
  }

  async #send(call: FrameworkCall, ran: { ok: boolean; output: unknown }): Promise<void> {
    await this.#operations.hooks.event.mutate({
      agent: this.framework,
      session_id: this.sessionId,
      event: 'post_tool',
      tool_name: call.name,
      tool_input: (call.input ?? {}) as JsonValue,
      tool_use_id: call.callId,
      outcome: ran.ok ? 'succeeded' : 'failed',
      output: outputText(ran.output),
    });
  }

  /**
   * What an adapter does once a granted call ran: commits it now when the
   * session awaits its reports, else sends the report behind the call (see
   * {@link FrameworkSessionOptions.awaitReports}), from the event loop's next
   * turn: the framework hands the tool's result on to its model first. A
   * report that fails is kept for {@link flush}, never thrown here.
   */
  async ran(call: FrameworkCall, ran: { ok: boolean; output: unknown }): Promise<void> {
    if (this.#awaitReports) {
      await this.report(call, ran).catch((error: unknown) => this.#failedReport(call, ran, error));
      return;
    }
    const earlier = this.#reporting;
    this.#reporting = Promise.all([earlier, nextTurn()])
      .then(() => this.#send(call, ran))
      .catch((error: unknown) => this.#failedReport(call, ran, error));
  }

  /** Keeps a report that failed: one the kernel never answered to send again, a refusal to throw. */
  #failedReport(call: FrameworkCall, ran: { ok: boolean; output: unknown }, error: unknown): void {
    if (isAirlockError(error) && gaveNoDecision(error)) this.#unsent.push({ call, ran });
    else this.#reportFailure ??= error;
  }

  /**
   * Waits until every report sent behind its call is committed, and sends
   * again, in order, each report the kernel gave no answer to (out of reach, a
   * 5xx): the call ran, so its row must not be left to read as one that may
   * have run. One still unanswered stays for the next flush. A granted call still running
   * (one a framework left behind as it paused, as LangGraph's tool node does when a sibling
   * call of the step parks) is waited for first, so its report is among them.
   * @throws AirlockError the first report the kernel refused since the last flush, or the
   *   failure of a report still unanswered (`connection_failed`, a 5xx): flush again later.
   */
  async flush(): Promise<void> {
    await Promise.all(this.#running.values());
    await this.#reporting;
    let failure = this.#reportFailure;
    this.#reportFailure = null;
    const unsent = this.#unsent;
    this.#unsent = [];
    for (const [at, report] of unsent.entries()) {
      try {
        await this.#send(report.call, report.ran);
      } catch (error) {
        failure ??= error;
        // Still no answer: this report and those after it wait, in order, for the next flush.
        if (isAirlockError(error) && gaveNoDecision(error)) {
          this.#unsent = [...unsent.slice(at), ...this.#unsent];
          break;
        }
      }
    }
    if (failure !== null) throw failure;
  }

  /**
   * Ends the current turn with the model's final answer (through the
   * profile's `stop` hook), after the reports still on their way; calls
   * still parked keep the run open.
   * @throws AirlockError when the kernel refuses the event or a report.
   */
  async finish(text: string): Promise<void> {
    await this.flush();
    await this.#operations.hooks.event.mutate({
      agent: this.framework,
      session_id: this.sessionId,
      event: 'stop',
      text,
    });
  }
}

/**
 * The call a grant runs, as its report names it: after a person's edit the
 * kernel takes only the edited input as run.
 */
export function grantedCall(call: FrameworkCall, verdict: CallVerdict): FrameworkCall {
  return 'updatedInput' in verdict ? { ...call, input: verdict.updatedInput } : call;
}

/** The text a model reads when Airlock refuses a call. */
export function refusalText(verdict: CallVerdict): string {
  if (verdict.verdict === 'wait') {
    return `Airlock: this call waits for a person's approval (run ${verdict.runId}, task ${verdict.taskKey})`;
  }
  return `Airlock refused this call: ${verdict.reason ?? 'no reason given'}`;
}
