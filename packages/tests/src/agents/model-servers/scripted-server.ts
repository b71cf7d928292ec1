import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One turn of a scripted model: call the agent's shell tool, call a named tool, or answer text. */
export type ScriptStep = (
  | { kind: 'shell'; command: string }
  | { kind: 'tool'; name: string; input: Record<string, unknown> }
  | { kind: 'text'; text: string }
) & {
  /** Awaited before the turn is answered: a test acts here (approves a park, stops the kernel). */
  before?: () => Promise<void>;
};

/** A request the agent sent, kept for the test to read back. */
export interface RecordedRequest {
  method: string;
  path: string;
  /** The parsed JSON body (undefined when the body was empty or not JSON). */
  body: unknown;
  /** The raw body text, for searching what the agent sent (a tool result, a hook's reason). */
  raw: string;
  /** True for a turn of the agent's own loop (it offers tools); false for side calls (titles, checks). */
  main: boolean;
  /** Which script step answered it (main turns only). */
  step?: number;
  /** When it arrived (performance.now()). */
  at: number;
  /** When its answer was fully written (performance.now()); undefined until then. */
  answeredAt?: number;
}

/** A scripted model server on loopback, recording what the agent sends. */
export interface ModelServer {
  url: string;
  requests: RecordedRequest[];
  /** The main-loop turns, in order. */
  turns(): RecordedRequest[];
  /** What the agent sent back for each scripted tool call (tool output or a hook's refusal), in call order. */
  toolOutputs(): string[];
  close(): Promise<void>;
}

/** What a wire format does with one request: answer it, saying whether it was a main turn. */
export type WireHandler = (context: {
  request: IncomingMessage;
  response: ServerResponse;
  body: unknown;
  raw: string;
  /** The step for the next main turn (a text "done" once the script is exhausted), and its index, once its `before` is done. */
  nextStep: () => Promise<{ step: ScriptStep; index: number }>;
}) => { main: boolean; step?: number } | Promise<{ main: boolean; step?: number }>;

/** Reads the tool results a request carries (the whole history is resent each turn), keyed by call id. */
export type ToolResultReader = (body: unknown) => Array<{ id: string; output: string }>;

/** Starts a loopback HTTP server that answers with `handler`, stepping through `script` on main turns. */
export async function startScriptedServer(
  script: ScriptStep[],
  handler: WireHandler,
  readToolResults: ToolResultReader,
): Promise<ModelServer> {
  const requests: RecordedRequest[] = [];
  const outputs = new Map<string, string>();
  let turn = 0;
  const nextStep = async () => {
    const index = turn++;
    const step: ScriptStep = script[index] ?? { kind: 'text', text: 'done' };
    await step.before?.();
    return { step, index };
  };
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      let body: unknown;
      try {
        body = raw ? JSON.parse(raw) : undefined;
      } catch {
        body = undefined;
      }
      const record: RecordedRequest = {
        method: request.method ?? 'GET',
        path: request.url ?? '/',
        body,
        raw,
        main: false,
        at: performance.now(),
      };
      response.on('finish', () => {
        record.answeredAt = performance.now();
      });
      requests.push(record);
      for (const { id, output } of readToolResults(body))
        if (!outputs.has(id)) outputs.set(id, output);
      Promise.resolve(handler({ request, response, body, raw, nextStep }))
        .then((outcome) => {
          record.main = outcome.main;
          if (outcome.step !== undefined) record.step = outcome.step;
        })
        .catch((error: unknown) => {
          if (!response.headersSent)
            response.writeHead(500, { 'content-type': 'application/json' });
          response.end(JSON.stringify({ error: { message: String(error) } }));
        });
    });
  });
  server.keepAliveTimeout = 1000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const turns = () => requests.filter((r) => r.main);
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    turns,
    toolOutputs: () => [...outputs.values()],
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Writes one server-sent event (named when `event` is given) carrying `data` as JSON. */
export function writeEvent(response: ServerResponse, data: unknown, event?: string): void {
  response.write(`${event ? `event: ${event}\n` : ''}data: ${JSON.stringify(data)}\n\n`);
}

/** Starts an SSE response. */
export function startEventStream(response: ServerResponse): void {
  response.writeHead(200, {
    'content-type': 'text/event-stream',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
  });
}

/** Flattens a tool result's content (a string, text blocks, or any JSON) to text. */
export function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map(contentText).join('\n');
  if (
    content &&
    typeof content === 'object' &&
    'text' in content &&
    typeof content.text === 'string'
  ) {
    return content.text;
  }
  return JSON.stringify(content ?? '');
}
