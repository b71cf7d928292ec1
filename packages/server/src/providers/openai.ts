import type { ProblemDetail } from '@airlock/core';
import { BaseUrlAllowance, DEFAULT_OPENAI_BASE_URL, sameBaseUrl } from './base-urls.js';
import { parseCompletion } from './openai-completion.js';
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
  /**
   * The base URLs a run's `provider.base_url` may name besides `baseUrl`
   * (`--model-base-urls`); `*` admits any. Absent: only `baseUrl`. A run
   * naming another is refused at creation, and a stored one fails its round
   * `provider_base_url_refused` without a request.
   */
  allowedBaseUrls?: readonly string[] | undefined;
}

/** The most tool calls one completion may ask for, unless the deployment says otherwise. */
export const DEFAULT_MAX_TOOL_CALLS = 128;

interface RunConfig {
  base_url?: string;
  model?: string;
  system?: string;
  tools?: { name: string; description?: string; parameters?: Record<string, unknown> }[];
}

/**
 * Why a run's offered tools cannot be sent, or null: a name offered twice. `runs.create`
 * refuses such a list, but a run stored before that check may hold one; its model would be
 * sent both definitions while the stage's offered-names check counts one name, so which
 * one the model follows would be nobody's choice. Picking one for it would be a guess
 * too, so the round fails `provider_misconfigured` without a request, naming the tool.
 */
function nameOfferedTwice(tools: readonly { name: string }[]): string | null {
  const seen = new Set<string>();
  for (const tool of tools) {
    if (seen.has(tool.name)) {
      return `the provider offers "${tool.name}" twice; a run offers each tool name once (start a new run with one definition of it)`;
    }
    seen.add(tool.name);
  }
  return null;
}

/** A character no HTTP header value carries as sent: a control character (a line break) or one past U+00FF. */
const NOT_IN_A_HEADER = /[^\t\x20-\x7e\x80-\xff]/;

/**
 * The `openai` provider: one chat-completions request per round, with the
 * run's tools offered and every earlier call's result (refusals included) as
 * a `tool` message the model reads.
 */
export class OpenAIProvider implements ModelProvider {
  readonly turnTimeoutMs: number | undefined;

  private readonly maxToolCalls: number;
  private readonly deploymentUrl: string;
  private readonly allowance: BaseUrlAllowance;
  /**
   * The key as fetch sends it: without the whitespace around it (a key read from a file or a
   * secret store often keeps its final newline), so an endpoint echoing it is redacted too.
   */
  private readonly apiKey: string | undefined;

  constructor(private readonly settings: OpenAISettings) {
    this.turnTimeoutMs = settings.timeoutMs;
    this.maxToolCalls = settings.maxToolCalls ?? DEFAULT_MAX_TOOL_CALLS;
    this.deploymentUrl = (settings.baseUrl ?? DEFAULT_OPENAI_BASE_URL).replace(/\/+$/, '');
    this.allowance = new BaseUrlAllowance(this.deploymentUrl, settings.allowedBaseUrls);
    this.apiKey = settings.apiKey?.trim() || undefined;
  }

  /**
   * A run's `base_url` the deployment does not admit (see {@link BaseUrlAllowance}), and a
   * run naming no model on a deployment that names none either (`model_missing`): every
   * round of such a run would fail, so it is refused at creation instead.
   */
  configProblems(config: unknown): ProblemDetail[] {
    const { base_url: baseUrl, model } = config as RunConfig;
    const problems: ProblemDetail[] = [];
    if (baseUrl !== undefined && !this.allowance.admits(baseUrl)) {
      problems.push({
        code: 'base_url_not_allowed',
        pointer: '/provider/base_url',
        message: this.allowance.refusal(baseUrl),
      });
    }
    if (!model && !this.settings.model) {
      problems.push({
        code: 'model_missing',
        pointer: '/provider/model',
        message: `this deployment names no model (OPENAI_MODEL): the run's provider must name one in "model"`,
      });
    }
    return problems;
  }

  async nextRound(config: unknown, request: RoundRequest): Promise<ProviderRound> {
    const run = config as RunConfig;
    // A run stored before the deployment narrowed its base URLs is not sent either.
    if (run.base_url !== undefined && !this.allowance.admits(run.base_url)) {
      throw new ProviderError('provider_base_url_refused', this.allowance.refusal(run.base_url));
    }
    const baseUrl = (run.base_url ?? this.deploymentUrl).replace(/\/+$/, '');
    // The deployment's key goes only to the deployment's endpoint: a run that names
    // another base URL is sent no credential, so a run input cannot exfiltrate it.
    const ownEndpoint = baseUrl === this.deploymentUrl || sameBaseUrl(baseUrl, this.deploymentUrl);
    const apiKey = ownEndpoint ? this.apiKey : undefined;
    // fetch would refuse such a key quoting the whole Authorization header, key included.
    if (apiKey !== undefined && NOT_IN_A_HEADER.test(apiKey)) {
      throw new ProviderError(
        'provider_misconfigured',
        'the API key (OPENAI_API_KEY) holds a line break or another character an HTTP header cannot carry; give the key alone',
      );
    }
    const model = run.model ?? this.settings.model;
    // A run stored before creation checked for one (or a kernel restarted without OPENAI_MODEL).
    if (!model) {
      throw new ProviderError(
        'provider_misconfigured',
        "no model configured: the deployment names none (OPENAI_MODEL) and neither does the run's provider",
      );
    }
    const twice = run.tools === undefined ? null : nameOfferedTwice(run.tools);
    if (twice !== null) throw new ProviderError('provider_misconfigured', twice);
    // A name `tool_names` repeats is one tool: its definitions would be the same.
    const toolSpecs: NonNullable<RunConfig['tools']> =
      run.tools ?? [...new Set(request.toolNames ?? [])].map((name) => ({ name }));
    const messages: unknown[] = [];
    if (run.system) messages.push({ role: 'system', content: run.system });
    messages.push({ role: 'user', content: request.input });
    for (const past of request.history) {
      // Feedback and summaries are said to the model, not answers to its calls; feedback
      // follows the answer it is about, which the model gave.
      for (const note of past.results.filter((r) => r.kind !== undefined)) {
        if (note.answer !== undefined) messages.push({ role: 'assistant', content: note.answer });
        messages.push({ role: 'user', content: note.content });
      }
      const calls = past.results.filter((r) => r.kind === undefined);
      if (calls.length === 0) continue;
      messages.push({
        role: 'assistant',
        // What the model wrote with its calls (its plan), so it reads its own reasoning back.
        content: past.text ?? null,
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
    return parseCompletion(text, {
      maxToolCalls: this.maxToolCalls,
      secrets: apiKey ? [apiKey] : [],
    });
  }
}
