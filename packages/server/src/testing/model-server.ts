import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What a test's chat-completions endpoint answers its nth request (from 1): a message, or nothing yet. */
export type ModelAnswer = (n: number) => Record<string, unknown> | 'hang';

/** A chat-completions endpoint on loopback for the `openai` provider, counting what it was asked. */
export interface ModelServer {
  /** The base URL to give the provider (`…/v1`). */
  url: string;
  /** Requests whose body arrived. */
  requests: number;
  /** Requests the kernel gave up on before any answer was written. */
  dropped: number;
  close(): void;
}

/** An assistant message with the final answer `text`. */
export function finalMessage(text = 'done'): Record<string, unknown> {
  return { role: 'assistant', content: text };
}

/** An assistant message calling `tool` once with no arguments, under the call id `id`. */
export function toolCallMessage(tool: string, id: string): Record<string, unknown> {
  return {
    role: 'assistant',
    content: null,
    tool_calls: [{ id, type: 'function', function: { name: tool, arguments: '{}' } }],
  };
}

/**
 * Starts a chat-completions endpoint whose nth answer is `answer(n)`'s
 * message (`'hang'`: the request is read and never answered).
 */
export async function startModelServer(answer: ModelAnswer): Promise<ModelServer> {
  let server: Server | undefined;
  const model: ModelServer = {
    url: '',
    requests: 0,
    dropped: 0,
    close() {
      server?.closeAllConnections();
      server?.close();
    },
  };
  server = createServer((req, res) => {
    res.on('close', () => {
      if (!res.writableEnded) model.dropped += 1;
    });
    req.resume();
    req.on('end', () => {
      model.requests += 1;
      const message = answer(model.requests);
      if (message === 'hang') return;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ choices: [{ index: 0, message }] }));
    });
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  model.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  return model;
}
