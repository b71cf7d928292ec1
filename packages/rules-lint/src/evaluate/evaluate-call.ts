import {
  type ApprovalMode,
  decide,
  explainMatches,
  type Origin,
  type Policy,
  type Verdict,
} from '@airlock/core';

/** One call as `rules-lint eval` takes it. */
export interface EvalCall {
  readonly mode: ApprovalMode;
  readonly origin: Origin;
  readonly tool: string;
  readonly input: unknown;
}

/** What `rules-lint eval` prints: core's decision, and for each matching rule why it matched. */
export interface EvalOutput {
  readonly outcome: 'granted' | 'parked' | 'denied';
  readonly granted_by: 'mode' | 'rule' | 'origin' | null;
  readonly error: { readonly code: string; readonly detail: string } | null;
  readonly matched: readonly number[];
  /** Every matching rule: its verdict and the text found at its path (null for a rule without path). */
  readonly matches: readonly {
    readonly index: number;
    readonly verdict: Verdict;
    readonly text: string | null;
  }[];
  /** The resolved tool name the rules saw. */
  readonly tool_name: string;
}

/** Decides one call with core's `decide` and explains it with `explainMatches`. Never throws. */
export function evaluateCall(policy: Policy, call: EvalCall): EvalOutput {
  const toolCall = {
    mode: call.mode,
    origin: call.origin,
    toolName: call.tool,
    toolInput: call.input,
  };
  const decision = decide(policy, toolCall);
  return {
    outcome: decision.outcome,
    granted_by: decision.granted_by,
    error: decision.error,
    matched: decision.matched,
    matches: explainMatches(policy, toolCall).map(({ index, verdict, text }) => ({
      index,
      verdict,
      text,
    })),
    tool_name: decision.tool_name,
  };
}
