import { type StructuredToolInterface, tool } from '@langchain/core/tools';
import { interrupt } from '@langchain/langgraph';
import { isAirlockError } from '../errors.js';
import {
  type CallVerdict,
  type FrameworkCall,
  FrameworkSession,
  type FrameworkSessionOptions,
  failedCheck,
  refusalText,
} from './session.js';

/**
 * The value of the `interrupt()` a parked call raises: what the application
 * (or a person's UI) needs to find the call in Airlock.
 */
export interface AirlockInterrupt {
  airlock: {
    tool: string;
    callId: string;
    /** The call's input as the model composed it: what {@link LangGraphAirlock.withdraw} names. */
    input: unknown;
    taskKey: string | null;
    runId: string | null;
    requiresUser: boolean;
    reason: string | null;
    /**
     * Set when the graph paused again on a resume because Airlock gave no
     * decision (`connection_failed`, `deadline_exceeded`, a 5xx): resume
     * again once the kernel is back; nothing was refused.
     */
    unreached?: string;
  };
}

/** A check that reached no decision: the kernel's error code, what it said, and its refusal. */
interface Unreached {
  verdict: 'unreached';
  code: string;
  reason: string;
  /** What the model reads when the call was not resumed: a call just made is refused. */
  refusal: CallVerdict;
}

/**
 * Whether the graph is being resumed with a value for this tool's next
 * `interrupt()`: asked of `interrupt()` itself, which returns only then and
 * otherwise raises the pause (caught here, so nothing pauses). LangGraph's
 * public API has no other way to tell a `Command({ resume })` from a call the
 * model just made; reading the task's scratchpad, where `interrupt()` keeps
 * its resume values, would tie the adapter to a private config key. Only
 * asked when Airlock gave no decision: the resume value it takes is the one
 * the wrapper's next pause would have taken.
 */
function resumedHere(value: AirlockInterrupt): boolean {
  try {
    interrupt<AirlockInterrupt>(value);
    return true;
  } catch {
    // The pause (no resume value waits), or no checkpointer: either way, nothing to resume.
    return false;
  }
}

/**
 * Airlock for LangGraph.js (`@langchain/langgraph` with `@langchain/core`
 * tools): wrap the tools a `ToolNode` runs, and every call crosses Airlock's
 * approval stage.
 *
 * - grant: the tool runs, and what it returned is committed to the row;
 * - refuse: the tool does not run; the model reads `Airlock refused this call: REASON`;
 * - park: LangGraph's own `interrupt()` (the graph needs a checkpointer), its
 *   value an {@link AirlockInterrupt}; after a person decides, resume the
 *   thread with `new Command({ resume: ... })` (any value: Airlock's decision,
 *   not the resume value, decides) and the call runs once. A resume before
 *   the decision, or while Airlock is out of reach, pauses the graph again
 *   (`unreached` names the error): nothing runs and nothing is refused. A
 *   call the model just made while Airlock is out of reach is refused. The
 *   wrapper tells the two apart with `interrupt()` alone (see `resumedHere`),
 *   reading nothing private of LangGraph's;
 * - a call that already ran, run again by the tool node on a resume (a granted
 *   call beside a parked one in the same step): the model reads what it
 *   returned then, and the tool does not run again;
 * - a park the application will not go on with (it rejects the call itself, or
 *   drops the thread): {@link LangGraphAirlock.withdraw} cancels its row, so no
 *   person is asked about a call nothing will run; a resume after it has the
 *   model read that the call was withdrawn.
 */
export class LangGraphAirlock {
  readonly session: FrameworkSession;

  constructor(options: FrameworkSessionOptions) {
    this.session = new FrameworkSession('langgraph', options);
  }

  /** The same tools, each asking Airlock before it runs. */
  tools(tools: StructuredToolInterface[]): StructuredToolInterface[] {
    return tools.map((original) => this.#wrap(original));
  }

  #wrap(original: StructuredToolInterface): StructuredToolInterface {
    const name = original.name;
    // A tool answering content and artifact: the model reads the content (the row records it),
    // the application keeps the artifact; every answer of the wrapper is then a two-tuple.
    // Not on StructuredToolInterface's type, though every StructuredTool has it.
    const { responseFormat } = original as { responseFormat?: 'content' | 'content_and_artifact' };
    const withArtifact = responseFormat === 'content_and_artifact';
    const answer = (text: string) => (withArtifact ? [text, undefined] : text);
    return tool(
      async (input: unknown, config) => {
        const callId = config?.toolCall?.id ?? '';
        const call = { name, input, callId };
        let verdict = await this.#ask(call);
        if (verdict.verdict === 'unreached') {
          // A call just made is refused; on a resume a kernel out of reach must not refuse (a
          // person may have approved the call), so the graph pauses again.
          if (!resumedHere(interruptValue(call, null, verdict)))
            return answer(refusalText(verdict.refusal));
          verdict = await this.#ask(call);
        }
        let parked: CallVerdict | null = null;
        while (verdict.verdict === 'wait' || verdict.verdict === 'unreached') {
          if (verdict.verdict === 'wait') parked = verdict;
          // Raises: the graph pauses. On a resume it returns, and Airlock is asked again.
          interrupt<AirlockInterrupt>(interruptValue(call, parked, verdict));
          verdict = await this.#ask(call);
        }
        // The tool node runs every call of a step again on a resume, those that ran included:
        // one that ran hands the model what it returned, and does not run twice.
        if (verdict.verdict === 'deny' && verdict.ranOutput !== undefined) {
          return answer(verdict.ranOutput);
        }
        // Granted to an earlier run of the step that never reported (a process that stopped
        // after running it): not a refusal, since it may have run; the model must not redo it blindly.
        if (verdict.verdict === 'deny' && verdict.code === 'not_claimable') {
          return answer(
            `Airlock: this call was granted to an earlier run of it that has not reported what it returned, so it may have run; its outcome is unknown (${verdict.reason})`,
          );
        }
        if (verdict.verdict !== 'allow') return answer(refusalText(verdict));
        let artifact: unknown;
        const content = await this.session.runGranted(call, verdict, async (granted) => {
          if (!withArtifact)
            return original.invoke(granted as never, { ...config, toolCall: undefined });
          // Only a call with its tool call id answers the artifact, in a ToolMessage.
          const message = (await original.invoke(granted as never, config)) as {
            content?: unknown;
            artifact?: unknown;
          };
          artifact = message.artifact;
          return message.content;
        });
        return withArtifact ? [content, artifact] : content;
      },
      {
        name,
        description: original.description,
        schema: original.schema as never,
        returnDirect: original.returnDirect,
        responseFormat,
      },
    ) as unknown as StructuredToolInterface;
  }

  /** Asks Airlock about a call: no decision from the kernel is `unreached`, not a deny. */
  async #ask(call: FrameworkCall): Promise<CallVerdict | Unreached> {
    try {
      return await this.session.checkParked(call);
    } catch (error) {
      const code = isAirlockError(error) ? error.code : 'connection_failed';
      const detail = isAirlockError(error) ? error.detail : String(error);
      return {
        verdict: 'unreached',
        code,
        reason: `Airlock gave no decision (${code}: ${detail}); resume again once it is reachable`,
        refusal: failedCheck(error),
      };
    }
  }

  /**
   * Withdraws the parks of a paused graph that the application will not go on
   * with: it rejects the calls itself, or drops the thread. Takes what the
   * paused `invoke` returned in `__interrupt__` (LangGraph's `Interrupt`s), or
   * their values. Each call Airlock still holds open (waiting for a person, or
   * approved with its grant untaken) is canceled, so nobody is asked about, or
   * approves, a call that will not run; a call already decided otherwise, or
   * an interrupt that is not Airlock's, is left as it is. Resuming the thread
   * afterwards has the model read that the call was withdrawn; it never runs. `reason` (at most
   * 4096 characters) is kept on each canceled row, for the run's story and the audit trail.
   * @throws AirlockError when the kernel gave no answer or refused (`call_mismatch`,
   *   `task_not_found` for an adapter built with another `sessionId` than the park's,
   *   `connection_failed`, a 5xx): the calls not yet withdrawn may still be open; withdraw again.
   */
  async withdraw(
    interrupts:
      | AirlockInterrupt
      | { value?: unknown }
      | readonly (AirlockInterrupt | { value?: unknown })[],
    reason = 'the application withdrew the call from its paused LangGraph thread',
  ): Promise<void> {
    const list = Array.isArray(interrupts) ? interrupts : [interrupts];
    for (const item of list) {
      const parked = airlockPark(item);
      if (parked === null) continue;
      await this.session.withdrawOrThrow(
        {
          name: parked.tool,
          input: parked.input,
          callId: parked.callId,
        },
        reason,
      );
    }
  }

  /**
   * Ends the turn with the graph's final answer (through the profile's stop hook).
   * @throws AirlockError when the kernel refuses it.
   */
  finish(text: string): Promise<void> {
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

/** The value of the interrupt that pauses a call: its park, and why it paused again if it did. */
function interruptValue(
  call: FrameworkCall,
  parked: CallVerdict | null,
  verdict: CallVerdict | Unreached,
): AirlockInterrupt {
  return {
    airlock: {
      tool: call.name,
      callId: call.callId,
      input: call.input,
      taskKey: parked?.taskKey ?? null,
      runId: parked?.runId ?? null,
      requiresUser: parked?.requiresUser ?? false,
      reason: verdict.reason,
      ...(verdict.verdict === 'unreached' ? { unreached: verdict.code } : {}),
    },
  };
}

/** The Airlock park an interrupt (or its value) holds, or null for an interrupt of another kind. */
function airlockPark(item: unknown): AirlockInterrupt['airlock'] | null {
  const value = isObject(item) && !('airlock' in item) && 'value' in item ? item.value : item;
  const parked = isObject(value) ? value.airlock : undefined;
  if (!isObject(parked)) return null;
  if (typeof parked.tool !== 'string' || typeof parked.callId !== 'string') return null;
  return parked as unknown as AirlockInterrupt['airlock'];
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

/** Airlock for LangGraph.js: see {@link LangGraphAirlock}. */
export function createLangGraphAirlock(options: FrameworkSessionOptions): LangGraphAirlock {
  return new LangGraphAirlock(options);
}
