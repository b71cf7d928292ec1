import { thrownText } from './output-text.js';

// The Agents SDK's tool input guardrail, written structurally: the SDK builds without it.

/** A tool input guardrail of an Agents SDK function tool (`defineToolInputGuardrail`). */
export interface AgentsInputGuardrail {
  name: string;
  run: (data: never) => Promise<unknown>;
}

/** The call a guardrail is about, as the runner hands it over. */
interface GuardrailData {
  toolCall?: { callId?: string; name?: string; arguments?: string };
}

/** The call a guardrail refused, and why, for the adapter to close its grant. */
export interface RefusedByGuardrail {
  callId: string;
  name: string | undefined;
  arguments: string | undefined;
  why: string;
}

/** True for a guardrail output that stops the call: `rejectContent` or `throwException`. */
function stopsTheCall(output: unknown): string | null {
  const behavior = (output as { behavior?: { type?: string; message?: string } } | null)?.behavior;
  if (behavior?.type === 'rejectContent') return `refused it: ${behavior.message ?? ''}`;
  if (behavior?.type === 'throwException') return 'tripped';
  return null;
}

/**
 * A tool's input guardrails, each telling `refused` when it stops the call
 * (rejects it, trips, or throws) before handing its outcome on unchanged. The
 * Agents SDK runs them after the tool's approval and before its `invoke`, so a
 * call whose grant the adapter took in `needsApproval` may never run: the
 * adapter then records the call as not run instead of leaving its row granted
 * until the kernel can only say it may have run.
 */
export function watchedGuardrails<GUARDRAIL extends AgentsInputGuardrail>(
  guardrails: GUARDRAIL[],
  refused: (call: RefusedByGuardrail) => Promise<void>,
): GUARDRAIL[] {
  return guardrails.map((guardrail) => ({
    ...guardrail,
    run: async (data: GuardrailData) => {
      const toolCall = data?.toolCall ?? {};
      const tell = (why: string) =>
        toolCall.callId
          ? refused({
              callId: toolCall.callId,
              name: toolCall.name,
              arguments: toolCall.arguments,
              why: `the tool's input guardrail ${guardrail.name} ${why}`,
            })
          : Promise.resolve();
      let output: unknown;
      try {
        output = await guardrail.run(data as never);
      } catch (error) {
        await tell(`failed: ${thrownText(error)}`);
        throw error;
      }
      const stopped = stopsTheCall(output);
      if (stopped !== null) await tell(stopped);
      return output;
    },
  }));
}
