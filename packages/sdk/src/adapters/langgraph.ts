import { type StructuredToolInterface, tool } from '@langchain/core/tools';
import { interrupt } from '@langchain/langgraph';
import {
  type CallVerdict,
  FrameworkSession,
  type FrameworkSessionOptions,
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
  };
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
 *   not the resume value, decides) and the call runs once;
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
        let verdict: CallVerdict = await this.session.check(call);
        if (verdict.verdict === 'wait') {
          // Raises on the first pass; on a resume it returns and Airlock is asked again.
          interrupt<AirlockInterrupt>({
            airlock: {
              tool: name,
              callId,
              taskKey: verdict.taskKey,
              runId: verdict.runId,
              requiresUser: verdict.requiresUser,
              reason: verdict.reason,
            },
          });
          verdict = await this.session.check(call);
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

/** Airlock for LangGraph.js: see {@link LangGraphAirlock}. */
export function createLangGraphAirlock(options: FrameworkSessionOptions): LangGraphAirlock {
  return new LangGraphAirlock(options);
}
