/*
 * The OpenAI Agents SDK application of the framework tests: a scripted `Model` and an agent whose tools count what ran.
 */
import type { createOpenAIAgentsAirlock } from '@airlock/sdk/openai-agents';
import {
  Agent,
  type Model,
  type ModelRequest,
  type ModelResponse,
  tool,
  Usage,
} from '@openai/agents';

export type Step = { call: { id: string; name: string; input: unknown } } | { text: string };

/** A model implementing the Agents SDK's `Model` interface, playing a script; it keeps every request. */
export class ScriptedModel implements Model {
  readonly requests: ModelRequest[] = [];
  constructor(private readonly steps: Step[]) {}

  async getResponse(request: ModelRequest): Promise<ModelResponse> {
    this.requests.push(request);
    const step = this.steps.shift() ?? { text: 'done' };
    const output: ModelResponse['output'] =
      'text' in step
        ? [
            {
              type: 'message',
              role: 'assistant',
              status: 'completed',
              content: [{ type: 'output_text', text: step.text }],
            },
          ]
        : [
            {
              type: 'function_call',
              callId: step.call.id,
              name: step.call.name,
              arguments: JSON.stringify(step.call.input),
              status: 'completed',
            },
          ];
    return { usage: new Usage(), output };
  }

  // biome-ignore lint/correctness/useYield: the tests never stream
  async *getStreamedResponse(): AsyncIterable<never> {
    throw new Error('not used: the tests do not stream');
  }

  /** The input of the latest request, as text. */
  lastInput(): string {
    return JSON.stringify(this.requests.at(-1)?.input);
  }
}

/** The application's agent with its tools wrapped; `ran` counts what really executed. */
export function appAgent(airlock: ReturnType<typeof createOpenAIAgentsAirlock>, model: Model) {
  const ran: string[] = [];
  const make = (name: string) =>
    tool({
      name,
      description: name,
      parameters: {
        type: 'object',
        properties: {},
        required: [],
        additionalProperties: true,
      },
      strict: false,
      execute: async (input) => {
        ran.push(name);
        return JSON.stringify({ ok: true, tool: name, input });
      },
    });
  const agent = new Agent({
    name: 'assistant',
    instructions: 'help',
    model,
    tools: airlock.tools([make('lookup'), make('delete_file'), make('send_email'), make('bash')]),
  });
  return { agent, ran };
}
