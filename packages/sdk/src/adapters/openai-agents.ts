import type { Problem } from '../errors.js';
import { invalidInput } from '../internal/deadline.js';
import {
  type AgentsInputGuardrail,
  type RefusedByGuardrail,
  watchedGuardrails,
} from './agents-guardrails.js';
import { type CaughtThrow, invokeNotingThrow } from './agents-tool-errors.js';
import { HeldVerdicts } from './held-verdicts.js';
import {
  type CallVerdict,
  type FrameworkCall,
  FrameworkSession,
  type FrameworkSessionOptions,
  failedCheck,
  grantedCall,
  refusalText,
} from './session.js';

// The Agents SDK's shapes this adapter reads, written structurally: the SDK builds without it.

/** The part of an Agents SDK `FunctionTool` the adapter wraps. */
export interface AgentsFunctionTool {
  type: string;
  name: string;
  invoke?: (runContext: never, input: string, details?: never) => Promise<unknown>;
  needsApproval?: unknown;
  inputGuardrails?: AgentsInputGuardrail[] | undefined;
}

interface CallDetails {
  toolCall?: { callId?: string; arguments?: string };
  /** Aborted once the runner stops waiting for the call (the tool's `timeoutMs`, a sibling's failure). */
  signal?: AbortSignal;
}

/** The part of a `RunToolApprovalItem` the adapter reads. */
export interface AgentsApprovalItem {
  rawItem: { type?: string; callId?: string; name?: string; arguments?: string };
  toolName?: string | undefined;
}

/** The part of a `RunState` the adapter drives: its interruptions and their verbs. */
export interface AgentsRunState<ITEM extends AgentsApprovalItem> {
  getInterruptions(): ITEM[];
  approve(item: ITEM): void;
  reject(item: ITEM, options?: { message?: string }): void;
}

/** An interruption nobody has decided yet in Airlock. */
export interface PendingInterruption<ITEM> {
  item: ITEM;
  taskKey: string | null;
  runId: string | null;
  requiresUser: boolean;
}

/**
 * How the output of the Agents SDK's default `errorFunction` begins: `tool()`
 * catches what its `execute` threw and hands this text on as the output.
 */
const TOOL_ERROR_PREFIX = 'An error occurred while running the tool. Please try again. Error: ';

/** True when a function tool's output is the text `tool()` made of what its `execute` threw. */
function isCaughtToolError(output: unknown): boolean {
  return typeof output === 'string' && output.startsWith(TOOL_ERROR_PREFIX);
}

function parseArguments(text: string | undefined): unknown {
  if (text === undefined || text === '') return {};
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/**
 * Airlock for the OpenAI Agents SDK for JavaScript (`@openai/agents`): wrap
 * the function tools, and every call the runner is about to make crosses
 * Airlock's approval stage. Other tools (local shell, apply-patch, computer,
 * hosted tools) are refused by {@link OpenAIAgentsAirlock.tools}: Airlock
 * cannot gate them.
 *
 * - grant: the tool runs, and what it returned is committed to the row;
 * - refuse: the tool does not run; its output is `Airlock refused this call: REASON`;
 * - park: the SDK's own interruption in the `RunState`; after a person
 *   decides, {@link OpenAIAgentsAirlock.resume} approves or rejects it in the
 *   state (a fresh process can do it from `RunState.fromString`), and the
 *   next `run(agent, state)` runs the call once.
 */
export class OpenAIAgentsAirlock {
  readonly session: FrameworkSession;
  /** Verdicts of `needsApproval`, taken once by the matching `invoke`. */
  readonly #verdicts = new HeldVerdicts();
  /** The names of the tools this adapter wrapped: the only calls whose approvals `resume` answers. */
  readonly #wrapped = new Set<string>();
  /** Calls refused because the kernel gave no decision when invoked, by call id, for finish(). */
  readonly #unreached = new Map<string, FrameworkCall>();

  constructor(options: FrameworkSessionOptions) {
    this.session = new FrameworkSession('openai-agents', options);
  }

  /**
   * How many calls' verdicts the adapter holds for the framework's `invoke` (granted calls not
   * run yet); each goes when its call runs, when a person refuses it, or after 24 hours.
   */
  get verdictsHeld(): number {
    return this.#verdicts.size;
  }

  /**
   * The same function tools, each asking Airlock before it runs.
   * @throws ValidationError `invalid_input` naming each tool that is not a function tool (a
   *   local shell, apply-patch or computer tool, a hosted tool): its calls never reach a
   *   function Airlock can gate, so wrapping it would let it run unchecked. Give such a tool
   *   to the agent outside `airlock.tools()` only if it may run without Airlock.
   */
  tools<TOOL extends AgentsFunctionTool>(tools: TOOL[]): TOOL[] {
    const problems: Problem[] = [];
    tools.forEach((tool, at) => {
      if (tool.type === 'function' && typeof tool.invoke === 'function') return;
      problems.push({
        code: 'invalid_input',
        pointer: `/${at}`,
        message:
          `the ${tool.type} tool ${JSON.stringify(tool.name)} is not a function tool: Airlock ` +
          'cannot check its calls, so airlock.tools() refuses it rather than let it run unchecked',
      });
    });
    if (problems.length > 0) throw invalidInput(problems);
    for (const tool of tools) this.#wrapped.add(tool.name);
    return tools.map((tool) => this.#wrap(tool));
  }

  #wrap<TOOL extends AgentsFunctionTool>(tool: TOOL): TOOL {
    const invoke = tool.invoke as
      | ((runContext: unknown, input: string, details?: CallDetails) => Promise<unknown>)
      | undefined;
    if (!invoke) return tool;
    const name = tool.name;
    return {
      ...tool,
      needsApproval: async (_runContext: unknown, input: unknown, callId?: string) => {
        const call: FrameworkCall = { name, input, callId: callId ?? '' };
        const verdict = await this.session.check(call);
        if (callId) {
          // A park's verdict is not held: invoke asks Airlock again after the person's decision.
          if (verdict.verdict === 'wait') this.#verdicts.forget(callId);
          else this.#verdicts.hold(call, verdict);
        }
        return verdict.verdict === 'wait';
      },
      invoke: async (runContext: unknown, input: string, details?: CallDetails) => {
        const callId = details?.toolCall?.callId ?? '';
        const call: FrameworkCall = { name, input: parseArguments(input), callId };
        // A verdict held for the call id is good for the call Airlock checked only: another
        // tool or arguments under that id (a RunState edited) is refused with call_mismatch.
        let verdict = this.#verdicts.take(call);
        // Approved in the RunState (maybe in another process): Airlock, not the state, decides.
        if (!verdict || verdict.verdict === 'wait') {
          try {
            verdict = await this.session.checkParked(call);
          } catch (error) {
            // No decision (the kernel out of reach): the runner is done with the call once the
            // model reads this, so finish() withdraws what Airlock may still hold open for it.
            this.#unreached.set(callId, call);
            return refusalText(failedCheck(error));
          }
        }
        if (verdict.verdict === 'wait') return this.#approvedItself(call);
        if (verdict.verdict !== 'allow') return refusalText(verdict);
        // The runner stopped waiting while Airlock was asked (the tool's timeoutMs passed, a
        // sibling call failed): the model has read that, so a grant that came late runs nothing.
        if (details?.signal?.aborted) return this.#abandoned(call, verdict, details.signal.reason);
        // The tool reads its arguments as text: a person's edit is handed over as JSON text.
        const edited = 'updatedInput' in verdict;
        // What execute threw comes back as an errorFunction's text (the default's, or the
        // application's own, which only the SDK's span mark tells): the call failed.
        let caught: CaughtThrow | null = null;
        return this.session.runGranted(
          call,
          verdict,
          async (granted) => {
            const text = edited ? JSON.stringify(granted) : input;
            const invoked = await invokeNotingThrow(name, () => invoke(runContext, text, details));
            caught = invoked.caught;
            return invoked.output;
          },
          (output) => (caught === null ? isCaughtToolError(output) : caught.text),
        );
      },
      ...(tool.inputGuardrails === undefined
        ? {}
        : {
            inputGuardrails: watchedGuardrails(tool.inputGuardrails, (refused) =>
              this.#notRun(name, refused),
            ),
          }),
    } as TOOL;
  }

  /**
   * Refuses a call the application approved in the RunState itself (`state.approve`, an
   * `alwaysApprove`) while it waits for a person in Airlock, and withdraws its park: the runner
   * is done with the call once the model reads this, so nobody should be asked about it.
   * @returns the text the model reads.
   */
  async #approvedItself(call: FrameworkCall): Promise<string> {
    await this.session.withdraw(
      call,
      'the application approved the call in its Agents SDK run itself before a person decided',
    );
    return "Airlock refused this call: the application approved this call itself while it waited for a person's approval in Airlock; it did not run, and Airlock's approval request was withdrawn";
  }

  /**
   * Records as failed, not run, a call Airlock granted after the runner stopped waiting for it.
   * @returns what the invoke answers, which the runner no longer reads.
   */
  async #abandoned(call: FrameworkCall, verdict: CallVerdict, reason: unknown): Promise<string> {
    const why = reason instanceof Error ? reason.message : String(reason);
    const output = `the call did not run: the Agents SDK stopped waiting for it before Airlock granted it (${why})`;
    await this.session.ran(grantedCall(call, verdict), { ok: false, output });
    return output;
  }

  /**
   * Closes in Airlock a call the runner will not invoke (one of the tool's own input guardrails
   * stopped it). A grant `needsApproval` took: the row records the call as failed, not run, with
   * why. A park (the guardrail ran before the approval, `preApprovalInputGuardrails`) or a call
   * approved through `resume` whose grant is untaken: the row is withdrawn (canceled), so the
   * inbox does not keep asking about a call the runner dropped. A refusal has nothing to close.
   */
  async #notRun(name: string, refused: RefusedByGuardrail): Promise<void> {
    const call: FrameworkCall = {
      name: refused.name ?? name,
      input: parseArguments(refused.arguments),
      callId: refused.callId,
    };
    const verdict = this.#verdicts.take(call);
    if (verdict?.verdict === 'deny') return;
    if (verdict?.verdict !== 'allow') {
      await this.session.withdraw(call, "one of the tool's input guardrails stopped the call");
      return;
    }
    await this.session.ran(grantedCall(call, verdict), {
      ok: false,
      output: `the call did not run: ${refused.why}`,
    });
  }

  /**
   * Answers a paused run's interruptions from Airlock's decisions: approves
   * in the state the calls a person approved, rejects (with the reason the
   * model reads) those refused, and lists those still waiting. Only the
   * calls of tools this adapter wrapped are answered: the interruption of a
   * tool of the application's own (not given to {@link tools}) is left to
   * the application, since its own `needsApproval` asked for a person Airlock
   * does not stand in for. An adapter that wrapped no tools yet cannot tell
   * them apart and answers every interruption: build the tools before
   * calling `resume`.
   * @throws AirlockError when the kernel gives no decision (`connection_failed`,
   *   `deadline_exceeded`, a 5xx): no call is rejected for it; resume again later. Also
   *   `task_not_found` when the session holds no such call (an adapter built with another
   *   `sessionId` than the park's): resume with the park's `sessionId`.
   */
  async resume<ITEM extends AgentsApprovalItem>(
    state: AgentsRunState<ITEM>,
  ): Promise<{ approved: number; rejected: number; pending: PendingInterruption<ITEM>[] }> {
    const pending: PendingInterruption<ITEM>[] = [];
    let approved = 0;
    let rejected = 0;
    for (const item of state.getInterruptions()) {
      const callId = item.rawItem.callId;
      const name = item.toolName ?? item.rawItem.name;
      if (!callId || !name) continue;
      if (this.#wrapped.size > 0 && !this.#wrapped.has(name)) continue;
      const call: FrameworkCall = { name, input: parseArguments(item.rawItem.arguments), callId };
      // Reads the decision only: the grant is taken by the check of the invoke that runs the
      // call, in this process or in another that goes on from the state.
      const verdict = await this.session.decided(call);
      if (verdict.verdict === 'wait') {
        pending.push({
          item,
          taskKey: verdict.taskKey,
          runId: verdict.runId,
          requiresUser: verdict.requiresUser,
        });
        continue;
      }
      // The invoke of an approved call asks Airlock, and takes the grant, when the runner runs
      // it; the runner never invokes a rejected one.
      this.#verdicts.forget(callId);
      if (verdict.verdict === 'allow') {
        state.approve(item);
        approved += 1;
      } else {
        state.reject(item, { message: refusalText(verdict) });
        rejected += 1;
      }
    }
    return { approved, rejected, pending };
  }

  /**
   * Withdraws the parks of a paused run that the application will not go on
   * with: it rejects them itself (`state.reject(item)`, in place of Airlock's
   * decision) or drops the run. Takes the interruptions (`result.interruptions`
   * or `state.getInterruptions()`). Each call of a wrapped tool Airlock still
   * holds open (waiting for a person, or approved with its grant untaken) is
   * canceled, so nobody is asked about, or approves, a call that will not run;
   * one already decided otherwise, or of a tool of the application's own, is left alone.
   * `reason` (at most 4096 characters) is kept on each canceled row, for the run's story.
   * @throws AirlockError when the kernel gave no answer or refused (`task_not_found` for an
   *   adapter built with another `sessionId` than the park's, `connection_failed`, a 5xx): the
   *   calls not yet withdrawn may still be open; withdraw again.
   */
  async withdraw(
    items: readonly AgentsApprovalItem[],
    reason = 'the application rejected the call in its paused Agents SDK run',
  ): Promise<void> {
    for (const item of items) {
      const callId = item.rawItem.callId;
      const name = item.toolName ?? item.rawItem.name;
      if (!callId || !name) continue;
      if (this.#wrapped.size > 0 && !this.#wrapped.has(name)) continue;
      this.#verdicts.forget(callId);
      await this.session.withdrawOrThrow(
        {
          name,
          input: parseArguments(item.rawItem.arguments),
          callId,
        },
        reason,
      );
    }
  }

  /**
   * Ends the turn with the agent's final output (through the profile's stop hook). A call the
   * runner invoked while the kernel was out of reach (refused, so never run; say one a person
   * had approved) is first withdrawn, so its approval does not wait for good. A call Airlock
   * granted that the runner never invoked (the run aborted through its `signal` while Airlock
   * was asked, or ended before the call) is recorded as failed, not run: left alone, its row
   * would stay claimed and later read as a call that may have run.
   * @throws AirlockError when the kernel refuses it.
   */
  async finish(text: string): Promise<void> {
    for (const { call, verdict } of this.#verdicts.takeGrants()) {
      await this.session.ran(grantedCall(call, verdict), {
        ok: false,
        output: 'the call did not run: the Agents SDK run ended without invoking it',
      });
    }
    // Refused for want of a decision, so never run: an approval left open would wait for good.
    // One whose withdrawal failed stays, for the next finish; flush throws the failure.
    for (const [callId, call] of this.#unreached) {
      const why = 'the Agents SDK run refused the call when Airlock could not be reached';
      if (await this.session.withdraw(call, why)) this.#unreached.delete(callId);
    }
    return this.session.finish(text);
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

/** Airlock for the OpenAI Agents SDK: see {@link OpenAIAgentsAirlock}. */
export function createOpenAIAgentsAirlock(options: FrameworkSessionOptions): OpenAIAgentsAirlock {
  return new OpenAIAgentsAirlock(options);
}
