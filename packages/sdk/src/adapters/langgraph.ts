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
 *   returned then, and the tool does not run again.
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
    return tool(
      async (input: unknown, config) => {
        const callId = config?.toolCall?.id ?? '';
        const call = { name, input, callId };
        let verdict = await this.#ask(call);
        if (verdict.verdict === 'unreached') {
          // A call just made is refused; on a resume a kernel out of reach must not refuse (a
          // person may have approved the call), so the graph pauses again.
          if (!resumedHere(interruptValue(call, null, verdict)))
            return refusalText(verdict.refusal);
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
        if (verdict.verdict === 'deny' && verdict.ranOutput !== undefined) return verdict.ranOutput;
        if (verdict.verdict !== 'allow') return refusalText(verdict);
        return this.session.runGranted(call, verdict, (granted) =>
          original.invoke(granted as never, { ...config, toolCall: undefined }),
        );
      },
      { name, description: original.description, schema: original.schema as never },
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
      taskKey: parked?.taskKey ?? null,
      runId: parked?.runId ?? null,
      requiresUser: parked?.requiresUser ?? false,
      reason: verdict.reason,
      ...(verdict.verdict === 'unreached' ? { unreached: verdict.code } : {}),
    },
  };
}

/** Airlock for LangGraph.js: see {@link LangGraphAirlock}. */
export function createLangGraphAirlock(options: FrameworkSessionOptions): LangGraphAirlock {
  return new LangGraphAirlock(options);
}
