import { asKeptText, isStorableText } from '@airlock/core';
import { postCompletion } from './openai-http.js';
import type { ModelProvider, ProviderRound, RoundRequest } from './types.js';
import { ProviderError } from './types.js';

/** Deployment settings of the OpenAI-compatible provider. */
export interface OpenAISettings {
  baseUrl?: string | undefined;
  apiKey?: string | undefined;
  model?: string | undefined;
  /** The longest one round may take (`--model-timeout`); absent: two minutes. */
  timeoutMs?: number | undefined;
  /**
   * The most tool calls one completion may ask for (`--model-max-calls`);
   * absent: {@link DEFAULT_MAX_TOOL_CALLS}. A completion asking for more fails
   * the run with `provider_too_many_calls`, none of its calls planted.
   */
  maxToolCalls?: number | undefined;
}

/** The most tool calls one completion may ask for, unless the deployment says otherwise. */
export const DEFAULT_MAX_TOOL_CALLS = 128;

interface RunConfig {
  base_url?: string;
  model?: string;
  system?: string;
  tools?: { name: string; description?: string; parameters?: Record<string, unknown> }[];
}

interface ChatToolCall {
  id?: string;
  type?: string;
  function?: { name?: string; arguments?: string };
}

/**
 * The `openai` provider: one chat-completions request per round, with the
 * run's tools offered and every earlier call's result (refusals included) as
 * a `tool` message the model reads.
 */
export class OpenAIProvider implements ModelProvider {
  readonly turnTimeoutMs: number | undefined;

  private readonly maxToolCalls: number;

  constructor(private readonly settings: OpenAISettings) {
    this.turnTimeoutMs = settings.timeoutMs;
    this.maxToolCalls = settings.maxToolCalls ?? DEFAULT_MAX_TOOL_CALLS;
  }

  async nextRound(config: unknown, request: RoundRequest): Promise<ProviderRound> {
    const run = config as RunConfig;
    const deploymentUrl = (this.settings.baseUrl ?? 'https://api.openai.com/v1').replace(
      /\/+$/,
      '',
    );
    const baseUrl = (run.base_url ?? deploymentUrl).replace(/\/+$/, '');
    // The deployment's key goes only to the deployment's endpoint: a run that names
    // another base URL is sent no credential, so a run input cannot exfiltrate it.
    const apiKey = baseUrl === deploymentUrl ? this.settings.apiKey : undefined;
    const model = run.model ?? this.settings.model;
    if (!model) throw new ProviderError('provider_misconfigured', 'no model configured');
    const toolSpecs: NonNullable<RunConfig['tools']> =
      run.tools ?? (request.toolNames ?? []).map((name) => ({ name }));
    const messages: unknown[] = [];
    if (run.system) messages.push({ role: 'system', content: run.system });
    messages.push({ role: 'user', content: request.input });
    for (const past of request.history) {
      // Feedback and summaries are said to the model, not answers to its calls.
      for (const note of past.results.filter((r) => r.kind !== undefined)) {
        messages.push({ role: 'user', content: note.content });
      }
      const calls = past.results.filter((r) => r.kind === undefined);
      if (calls.length === 0) continue;
      messages.push({
        role: 'assistant',
        content: null,
        tool_calls: calls.map((r) => ({
          id: r.tool_call_id ?? r.task_key,
          type: 'function',
          function: { name: r.tool_name, arguments: JSON.stringify(r.tool_input ?? {}) },
        })),
      });
      for (const r of calls) {
        messages.push({
          role: 'tool',
          tool_call_id: r.tool_call_id ?? r.task_key,
          content: r.content,
        });
      }
    }
    const body = {
      model,
      messages,
      ...(toolSpecs.length > 0
        ? {
            tools: toolSpecs.map((t) => ({
              type: 'function',
              function: {
                name: t.name,
                ...(t.description ? { description: t.description } : {}),
                parameters: t.parameters ?? { type: 'object', additionalProperties: true },
              },
            })),
          }
        : {}),
    };
    // The kernel's signal carries the round's time limit (this provider's `timeoutMs`).
    const text = await postCompletion(`${baseUrl}/chat/completions`, {
      headers: {
        'content-type': 'application/json',
        ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}),
      },
      body: JSON.stringify(body),
      signal: request.signal,
      secrets: apiKey ? [apiKey] : [],
    });
    return parseCompletion(text, this.maxToolCalls);
  }
}

/** Why a completion that stopped for a reason other than an answer or calls is not used. */
const CUT_SHORT: Record<string, { code: string; detail: string }> = {
  length: {
    code: 'provider_truncated',
    detail:
      'the model hit its output limit (finish_reason "length"): its answer or calls are cut off',
  },
  content_filter: {
    code: 'provider_content_filtered',
    detail: 'the endpoint withheld the answer (finish_reason "content_filter")',
  },
};

/** The longest tool name and call id a round may carry, as the gateway's calls. */
const NAME_MAX = 512;
const ID_MAX = 200;

/** A name or id every store keeps as sent: no NUL, no lone surrogate, not too long. */
function isKeptName(text: string, max: number): boolean {
  return text.length <= max && isStorableText(text);
}

function parseCompletion(text: string, maxToolCalls: number): ProviderRound {
  let payload: {
    choices?: {
      finish_reason?: string | null;
      message?: { content?: string | null; tool_calls?: ChatToolCall[] };
    }[];
  } | null;
  try {
    payload = JSON.parse(text);
  } catch {
    throw new ProviderError('provider_error', 'the completion is not JSON');
  }
  const choice = payload?.choices?.[0];
  const message = choice?.message;
  if (!message) throw new ProviderError('provider_error', 'the completion has no message');
  const cutShort = CUT_SHORT[choice.finish_reason ?? ''];
  if (cutShort) throw new ProviderError(cutShort.code, cutShort.detail);
  const calls = message.tool_calls ?? [];
  // What the model wrote is kept as text every store keeps alike (NUL as U+FFFD).
  const content = message.content == null ? message.content : asKeptText(message.content);
  if (calls.length === 0) return { type: 'final', content: content ?? '' };
  // Each call is a row the approval stage weighs, and may park for a person: a model that asks
  // for thousands in one round fails the run whole, rather than running some of what it planned.
  if (calls.length > maxToolCalls) {
    throw new ProviderError(
      'provider_too_many_calls',
      `the model asked for ${calls.length} tool calls in one round, more than the ${maxToolCalls} this kernel takes (airlock serve --model-max-calls); none was planted`,
    );
  }
  const seenIds = new Set<string>();
  return {
    type: 'tool_calls',
    content: content ?? undefined,
    calls: calls.map((call, index) => {
      const name = call.function?.name;
      if (!name) throw new ProviderError('provider_error', `tool call ${index} has no name`);
      if (!isKeptName(name, NAME_MAX)) {
        throw new ProviderError(
          'provider_error',
          `tool call ${index} has a name no store keeps as sent (NUL, a lone surrogate, or over ${NAME_MAX} characters)`,
        );
      }
      let input: unknown = {};
      const args = call.function?.arguments;
      if (args) {
        try {
          input = JSON.parse(args);
        } catch {
          // The model wrote arguments that are not JSON: the rules read them as text.
          input = { arguments: args };
        }
      }
      // An id the round already used would make two results indistinguishable, and one no
      // store keeps as sent would name another call: such a call (or one without an id) is
      // answered under its task key instead.
      const id =
        typeof call.id === 'string' &&
        call.id !== '' &&
        isKeptName(call.id, ID_MAX) &&
        !seenIds.has(call.id)
          ? call.id
          : null;
      if (id !== null) seenIds.add(id);
      return { id, name, input };
    }),
  };
}
