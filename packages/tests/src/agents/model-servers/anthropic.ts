import type { ServerResponse } from 'node:http';
import {
  contentText,
  type ModelServer,
  type ScriptStep,
  startEventStream,
  startScriptedServer,
  writeEvent,
} from './scripted-server.js';

interface MessagesBody {
  model?: string;
  stream?: boolean;
  tools?: Array<{ name?: string }>;
}

type ContentBlock =
  | { type: 'text'; text: string }
  | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> };

function blockFor(step: ScriptStep, index: number): ContentBlock {
  if (step.kind === 'text') return { type: 'text', text: step.text };
  const id = `toolu_scripted_${String(index).padStart(4, '0')}`;
  if (step.kind === 'shell')
    return {
      type: 'tool_use',
      id,
      name: 'Bash',
      input: { command: step.command, description: 'scripted' },
    };
  return { type: 'tool_use', id, name: step.name, input: step.input };
}

/** Streams one assistant message the way the Messages API does (message_start … message_stop). */
function streamMessage(response: ServerResponse, model: string, block: ContentBlock): void {
  const stopReason = block.type === 'tool_use' ? 'tool_use' : 'end_turn';
  startEventStream(response);
  writeEvent(
    response,
    {
      type: 'message_start',
      message: {
        id: `msg_${Date.now()}`,
        type: 'message',
        role: 'assistant',
        model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: 10, output_tokens: 1 },
      },
    },
    'message_start',
  );
  if (block.type === 'text') {
    writeEvent(
      response,
      { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
      'content_block_start',
    );
    writeEvent(
      response,
      { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: block.text } },
      'content_block_delta',
    );
  } else {
    writeEvent(
      response,
      {
        type: 'content_block_start',
        index: 0,
        content_block: { type: 'tool_use', id: block.id, name: block.name, input: {} },
      },
      'content_block_start',
    );
    writeEvent(
      response,
      {
        type: 'content_block_delta',
        index: 0,
        delta: { type: 'input_json_delta', partial_json: JSON.stringify(block.input) },
      },
      'content_block_delta',
    );
  }
  writeEvent(response, { type: 'content_block_stop', index: 0 }, 'content_block_stop');
  writeEvent(
    response,
    {
      type: 'message_delta',
      delta: { stop_reason: stopReason, stop_sequence: null },
      usage: { output_tokens: 5 },
    },
    'message_delta',
  );
  writeEvent(response, { type: 'message_stop' }, 'message_stop');
  response.end();
}

function sendMessage(response: ServerResponse, model: string, block: ContentBlock): void {
  response.writeHead(200, { 'content-type': 'application/json' });
  response.end(
    JSON.stringify({
      id: `msg_${Date.now()}`,
      type: 'message',
      role: 'assistant',
      model,
      content: [block],
      stop_reason: block.type === 'tool_use' ? 'tool_use' : 'end_turn',
      stop_sequence: null,
      usage: { input_tokens: 10, output_tokens: 5 },
    }),
  );
}

interface AnthropicMessage {
  role?: string;
  content?: unknown;
}

function readToolResults(body: unknown): Array<{ id: string; output: string }> {
  const messages = ((body ?? {}) as { messages?: AnthropicMessage[] }).messages ?? [];
  const results: Array<{ id: string; output: string }> = [];
  for (const message of messages) {
    if (message.role !== 'user' || !Array.isArray(message.content)) continue;
    for (const block of message.content as Array<{
      type?: string;
      tool_use_id?: string;
      content?: unknown;
    }>) {
      if (block.type === 'tool_result' && block.tool_use_id) {
        results.push({ id: block.tool_use_id, output: contentText(block.content) });
      }
    }
  }
  return results;
}

/**
 * A scripted Anthropic Messages server (what Claude Code speaks through ANTHROPIC_BASE_URL).
 * A request offering tools is a main turn and gets the next script step; any other call
 * (titles, checks) gets a short text answer.
 */
export function startAnthropicServer(script: ScriptStep[]): Promise<ModelServer> {
  return startScriptedServer(
    script,
    async ({ request, response, body, nextStep }) => {
      const path = request.url ?? '';
      if (path.includes('count_tokens')) {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ input_tokens: 10 }));
        return { main: false };
      }
      if (!path.startsWith('/v1/messages')) {
        response.writeHead(404, { 'content-type': 'application/json' });
        response.end(
          JSON.stringify({ type: 'error', error: { type: 'not_found_error', message: path } }),
        );
        return { main: false };
      }
      const messages = (body ?? {}) as MessagesBody;
      const model = messages.model ?? 'claude-scripted';
      const main = (messages.tools ?? []).some((tool) => tool.name === 'Bash');
      let block: ContentBlock = { type: 'text', text: 'ok' };
      let stepIndex: number | undefined;
      if (main) {
        const { step, index } = await nextStep();
        block = blockFor(step, index);
        stepIndex = index;
      }
      if (messages.stream) streamMessage(response, model, block);
      else sendMessage(response, model, block);
      return stepIndex === undefined ? { main } : { main, step: stepIndex };
    },
    readToolResults,
  );
}
