import { asKeptText, type ProblemDetail, type RowFailureCode } from '@airlock/core';
/** A tool call as a provider proposes it. */
export interface ProposedCall {
  /** The provider's id for the call (the model reads results by it); null when it has none. */
  id: string | null;
  name: string;
  input: unknown;
  onFailure?: 'continue' | 'hold' | undefined;
  /** A hooked agent's working directory for the call (see IncomingCall.workingDirectory). */
  workingDirectory?: string | undefined;
}

/** What the model read about one of its earlier calls. */
export interface FedResult {
  task_key: string;
  tool_call_id: string | null;
  tool_name: string;
  tool_input: unknown;
  /** The text the model reads: the result, the refusal, or the expiry notice. */
  content: string;
  /**
   * Not a call's result: `feedback` from a stop hook asking for another round,
   * or `summary` of older rounds a compaction replaced. Absent for results.
   */
  kind?: 'feedback' | 'summary' | undefined;
  /**
   * For `feedback`: the answer the model gave that the stop hook sent back, as the hook's input
   * kept it (whole up to 4 KiB, else its start followed by `…`), so the model reads what it is
   * asked to revise. Absent when the hook's input kept none.
   */
  answer?: string | undefined;
}

/** One earlier round: what the model asked for and what it read back. */
export interface PastRound {
  round: number;
  results: FedResult[];
  /**
   * What the model wrote alongside the round's calls (its plan), as kept (at most
   * {@link ASSISTANT_TEXT_MAX} characters); absent when it wrote nothing, or the round
   * was recorded before the kernel kept it.
   */
  text?: string | undefined;
}

/** What a provider is asked: the conversation so far. */
export interface RoundRequest {
  runId: string;
  /** 0-based index of the round to produce. */
  index: number;
  /** The run's input text (the user's message). */
  input: string;
  toolNames: string[] | null;
  history: PastRound[];
  /** Results of the round just settled (empty for the first round). */
  fed: FedResult[];
  signal: AbortSignal;
}

/** A provider's answer: tool calls, or the final answer. */
export type ProviderRound =
  | { type: 'tool_calls'; calls: ProposedCall[]; content?: string | undefined }
  | { type: 'final'; content: string };

/** The most characters of a provider failure's detail the run keeps. */
export const PROVIDER_DETAIL_MAX = 2000;

/**
 * The most characters of what the model wrote alongside a round's calls the run keeps
 * and sends back to it: a plan, not a document (its answer's own bound is the completion's).
 */
export const ASSISTANT_TEXT_MAX = 16_000;

/** `text` cut to `max` characters with an ellipsis, never inside a surrogate pair. */
export function boundedText(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = max - 1;
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end -= 1;
  return `${text.slice(0, end)}…`;
}

/** The failure codes a provider fails a run with (core's list is the one that names them). */
export type ProviderFailureCode = Extract<
  RowFailureCode,
  `provider_${string}` | `script_${string}`
>;

/**
 * A provider failure; the run fails with this code and detail. The detail is
 * kept as text every store keeps alike ({@link asKeptText}: NUL as U+FFFD, a
 * lone surrogate replaced): it may quote what an endpoint answered, and a NUL
 * in it made PostgreSQL refuse the run's end, so the run never ended. It is
 * cut to {@link PROVIDER_DETAIL_MAX} characters: it may quote what the model
 * was fed (a scripted expectation), which has no bound of its own.
 */
export class ProviderError extends Error {
  readonly detail: string;

  constructor(
    readonly code: ProviderFailureCode,
    detail: string,
  ) {
    const kept = asKeptText(boundedText(detail, PROVIDER_DETAIL_MAX));
    super(`${code}: ${kept}`);
    this.detail = kept;
    this.name = 'ProviderError';
  }
}

/** What a provider is asked to summarize when the kernel compacts a run's context. */
export interface SummaryRequest {
  runId: string;
  input: string;
  /** The summary an earlier compaction made, if any. */
  previousSummary: string | null;
  /** The rounds the summary replaces. */
  rounds: PastRound[];
  signal: AbortSignal;
}

/** The instruction a provider without its own summarizer is given as a last message. */
export const SUMMARY_INSTRUCTION =
  'Summarize the conversation so far (the task, what was done, what was learned and what is left) for your own later use. Answer with the summary only; call no tools.';

/** A model provider: asked for one round at a time. */
export interface ModelProvider {
  /**
   * True when a round costs no I/O (the scripted provider): the kernel then takes
   * the step inside the run's transaction instead of leasing the model turn.
   */
  readonly inline?: boolean;
  /**
   * True when the rounds come from outside the kernel (the MCP gateway): the
   * loop never asks such a provider; a client plants each round through the
   * `runs.calls` verb instead.
   */
  readonly external?: boolean;
  /**
   * The longest one round (or summary) may take, in milliseconds; the kernel
   * aborts the request's signal then and holds the run's model turn a little
   * longer (see `kernel/loop/turn-time.ts`). Absent: two minutes.
   */
  readonly turnTimeoutMs?: number | undefined;
  /**
   * Produces the next round.
   * @throws ProviderError when the model cannot answer (the run fails).
   */
  nextRound(config: unknown, request: RoundRequest): Promise<ProviderRound>;
  /**
   * What is wrong with a run's provider configuration for this deployment
   * (pointers from the request's root, such as `/provider/base_url`); the
   * kernel refuses a new run that has any, `invalid_configuration`, creating
   * nothing. Absent: nothing a schema did not already check.
   */
  configProblems?(config: unknown): ProblemDetail[];
  /**
   * Summarizes older rounds for a compaction. A provider without it is asked
   * for an ordinary round ending in {@link SUMMARY_INSTRUCTION}, with no tools.
   * @throws ProviderError when the model cannot answer.
   */
  summarize?(config: unknown, request: SummaryRequest): Promise<string>;
}

// The provider configurations cross the wire (a run's create call), so their schemas live in core.
export {
  GatewayProviderSchema,
  OpenAIProviderSchema,
  OpenAIToolSchema,
  type ProviderConfig,
  ProviderConfigSchema,
  ScriptedCallSchema,
  ScriptedProviderSchema,
  type ScriptedRound,
  ScriptedRoundSchema,
} from '@airlock/core';
