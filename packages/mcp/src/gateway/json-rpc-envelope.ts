import { type JSONRPCMessage, JSONRPCMessageSchema } from '@modelcontextprotocol/sdk/types.js';

/** JSON-RPC's code for a value that is JSON but no request, notification or response. */
export const INVALID_REQUEST = -32600;

/** The members a JSON-RPC 2.0 message may have (the MCP SDK refuses any other). */
const MEMBERS = new Set(['jsonrpc', 'id', 'method', 'params', 'result', 'error']);

/**
 * The id of a JSON-RPC message when it has one MCP takes (a string or an
 * integer), else null: what an error about the message answers with.
 */
export function readableId(value: unknown): string | number | null {
  if (typeof value !== 'object' || value === null || !('id' in value)) return null;
  const { id } = value as { id: unknown };
  return typeof id === 'string' || Number.isSafeInteger(id) ? (id as string | number) : null;
}

/** What makes a value that is not an array no JSON-RPC 2.0 message, in one line. */
function messageProblem(value: unknown): string {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return 'a message is one JSON object';
  }
  const message = value as Record<string, unknown>;
  if (message.jsonrpc !== '2.0') return '"jsonrpc" must be "2.0"';
  if ('id' in message && readableId(message) === null) return '"id" must be a string or an integer';
  if ('method' in message && typeof message.method !== 'string') return '"method" must be a string';
  const stranger = Object.keys(message).find((key) => !MEMBERS.has(key));
  if (stranger !== undefined) {
    return `${JSON.stringify(stranger.slice(0, 40))} is no member of a JSON-RPC message`;
  }
  const params = message.params;
  if (
    params !== undefined &&
    (typeof params !== 'object' || params === null || Array.isArray(params))
  ) {
    return '"params" must be an object';
  }
  const meta = (params as { _meta?: unknown } | undefined)?._meta;
  if (meta !== undefined && (typeof meta !== 'object' || meta === null || Array.isArray(meta))) {
    return '"params._meta" must be an object';
  }
  const token = (meta as { progressToken?: unknown } | undefined)?.progressToken;
  if (token !== undefined && typeof token !== 'string' && typeof token !== 'number') {
    return '"params._meta.progressToken" must be a string or a number';
  }
  return 'it is no JSON-RPC 2.0 request, notification or response';
}

/** A parsed value read as one JSON-RPC message: the message, or why it is none. */
export type EnvelopeReading =
  | { message: JSONRPCMessage; problem?: undefined }
  | { message?: undefined; problem: string };

/**
 * Reads a parsed JSON value as one JSON-RPC 2.0 message the MCP SDK takes,
 * or says in one line why it is none (answered with -32600 Invalid Request,
 * as JSON-RPC has it for JSON that is no request). A batch is no message:
 * MCP has none since its 2025-06-18 revision.
 */
export function readEnvelope(value: unknown): EnvelopeReading {
  const parsed = JSONRPCMessageSchema.safeParse(value);
  if (parsed.success) return { message: parsed.data };
  if (Array.isArray(value)) {
    return { problem: 'a message is one JSON object (batches are not part of MCP)' };
  }
  return { problem: messageProblem(value) };
}

/**
 * Why an HTTP body is neither one JSON-RPC message nor a batch of them (the
 * Streamable HTTP transport of MCP's 2025-03-26 revision takes batches), in
 * one line; null when it is either.
 */
export function bodyProblem(body: unknown): string | null {
  if (!Array.isArray(body)) return readEnvelope(body).problem ?? null;
  if (body.length === 0) return 'an empty batch holds no message';
  for (const [index, item] of body.entries()) {
    const { problem } = readEnvelope(item);
    if (problem !== undefined) return `batch item ${index}: ${problem}`;
  }
  return null;
}

/** The answer to a request whose id names one still in flight: MCP forbids reusing an id. */
export function idInUse(id: string | number): { code: number; message: string } {
  return {
    code: INVALID_REQUEST,
    message: `request id ${JSON.stringify(id)} is in use by a request not answered yet: MCP requires a new id for each request`,
  };
}

/**
 * The first request id of a body (one message or a batch) that `inFlight`
 * says is taken, or that the batch gives twice; null when there is none.
 * A front that maps answers to requests by id refuses such a body whole.
 */
export function reusedRequestId(
  body: unknown,
  inFlight: (id: string | number) => boolean,
): string | number | null {
  const seen = new Set<string | number>();
  for (const message of Array.isArray(body) ? body : [body]) {
    const id = readableId(message);
    if (id === null || typeof (message as { method?: unknown }).method !== 'string') continue;
    if (seen.has(id) || inFlight(id)) return id;
    seen.add(id);
  }
  return null;
}
