/*
 * The Vercel AI SDK application of the framework tests: a scripted mock model and tools that count what ran.
 */
import { jsonSchema, type ModelMessage, tool } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';

export type Step = { call: { id: string; name: string; input: unknown } } | { text: string };

export const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 1, text: 1, reasoning: 0 },
};

/** The AI SDK's own mock model playing a script; it keeps every prompt it was sent. */
export function scriptedModel(steps: Step[]) {
  const prompts: unknown[] = [];
  const model = new MockLanguageModelV3({
    doGenerate: async (options) => {
      prompts.push(options.prompt);
      const step = steps.shift() ?? { text: 'done' };
      if ('text' in step) {
        return {
          content: [{ type: 'text', text: step.text }],
          finishReason: { unified: 'stop', raw: 'stop' },
          usage,
          warnings: [],
        };
      }
      return {
        content: [
          {
            type: 'tool-call',
            toolCallId: step.call.id,
            toolName: step.call.name,
            input: JSON.stringify(step.call.input),
          },
        ],
        finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
        usage,
        warnings: [],
      };
    },
  });
  return { model, prompts };
}

/** The application's tools; `ran` counts what really executed. */
export function appTools() {
  const ran: string[] = [];
  const schema = jsonSchema<Record<string, string>>({ type: 'object' });
  const make = (name: string) =>
    tool({
      description: name,
      inputSchema: schema,
      execute: async (input) => {
        ran.push(name);
        return { ok: true, tool: name, input };
      },
    });
  return {
    ran,
    tools: {
      lookup: make('lookup'),
      delete_file: make('delete_file'),
      send_email: make('send_email'),
      bash: make('bash'),
    },
  };
}

export const USER: ModelMessage[] = [{ role: 'user', content: 'do the thing' }];
