import type { ServerResponse } from 'node:http';
import {
  contentText,
  type ModelServer,
  type ScriptStep,
  startEventStream,
  startScriptedServer,
  writeEvent,
} from './scripted-server.js';

interface ResponsesTool {
  type?: string;
  name?: string;
  parameters?: { properties?: Record<string, unknown> };
}

interface ResponsesBody {
  model?: string;
  tools?: ResponsesTool[];
}

type OutputItem =
  | {
      type: 'message';
      id: string;
      role: 'assistant';
      status: 'completed';
      content: Array<{ type: 'output_text'; text: string; annotations: [] }>;
    }
  | {
      type: 'function_call';
      id: string;
      call_id: string;
      name: string;
      arguments: string;
      status: 'completed';
    };

/** Codex's shell tool and the argument shape it takes, read from the tools the request offers. */
function shellCall(
  tools: ResponsesTool[],
  command: string,
): { name: string; input: Record<string, unknown> } {
  const byName = new Map(tools.map((tool) => [tool.name ?? '', tool]));
  if (byName.has('exec_command')) return { name: 'exec_command', input: { cmd: command } };
  if (byName.has('shell_command')) return { name: 'shell_command', input: { command } };
  return { name: 'shell', input: { command: ['bash', '-lc', command] } };
}

function itemFor(step: ScriptStep, index: number, tools: ResponsesTool[]): OutputItem {
  const suffix = String(index).padStart(4, '0');
  if (step.kind === 'text') {
    return {
      type: 'message',
      id: `msg_scripted_${suffix}`,
      role: 'assistant',
      status: 'completed',
      content: [{ type: 'output_text', text: step.text, annotations: [] }],
    };
  }
  const call =
    step.kind === 'shell' ? shellCall(tools, step.command) : { name: step.name, input: step.input };
  return {
    type: 'function_call',
    id: `fc_scripted_${suffix}`,
    call_id: `call_scripted_${suffix}`,
    name: call.name,
    arguments: JSON.stringify(call.input),
    status: 'completed',
  };
}

function streamResponse(response: ServerResponse, model: string, item: OutputItem): void {
  const id = `resp_${Date.now()}`;
  const base = {
    id,
    object: 'response',
    created_at: Math.floor(Date.now() / 1000),
    model,
    status: 'in_progress',
    output: [],
  };
  startEventStream(response);
  writeEvent(
    response,
    { type: 'response.created', sequence_number: 0, response: base },
    'response.created',
  );
  writeEvent(
    response,
    { type: 'response.output_item.added', sequence_number: 1, output_index: 0, item },
    'response.output_item.added',
  );
  writeEvent(
    response,
    { type: 'response.output_item.done', sequence_number: 2, output_index: 0, item },
    'response.output_item.done',
  );
  writeEvent(
    response,
    {
      type: 'response.completed',
      sequence_number: 3,
      response: {
        ...base,
        status: 'completed',
        output: [item],
        usage: {
          input_tokens: 10,
          input_tokens_details: { cached_tokens: 0 },
          output_tokens: 5,
          output_tokens_details: { reasoning_tokens: 0 },
          total_tokens: 15,
        },
      },
    },
    'response.completed',
  );
  response.end();
}

function readToolResults(body: unknown): Array<{ id: string; output: string }> {
  const input = ((body ?? {}) as { input?: unknown }).input;
  if (!Array.isArray(input)) return [];
  return (input as Array<{ type?: string; call_id?: string; output?: unknown }>)
    .filter((item) => item.type === 'function_call_output' && item.call_id)
    .map((item) => ({ id: item.call_id as string, output: contentText(item.output) }));
}

/**
 * A scripted OpenAI Responses server (what Codex speaks through a custom model provider
 * with `wire_api = "responses"`). A request offering a shell tool is a main turn.
 */
export function startResponsesServer(script: ScriptStep[]): Promise<ModelServer> {
  return startScriptedServer(
    script,
    async ({ request, response, body, nextStep }) => {
      const path = request.url ?? '';
      if (request.method === 'GET' && path.includes('/models')) {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ object: 'list', data: [], models: [] }));
        return { main: false };
      }
      if (!path.includes('/responses')) {
        response.writeHead(404, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ error: { message: `no route ${path}` } }));
        return { main: false };
      }
      const responses = (body ?? {}) as ResponsesBody;
      const tools = responses.tools ?? [];
      const main = tools.length > 0;
      const { step, index } = main
        ? await nextStep()
        : { step: { kind: 'text', text: 'ok' } as ScriptStep, index: -1 };
      streamResponse(response, responses.model ?? 'gpt-scripted', itemFor(step, index, tools));
      return main ? { main, step: index } : { main };
    },
    readToolResults,
  );
}
