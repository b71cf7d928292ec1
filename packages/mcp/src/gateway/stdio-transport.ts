import type { Readable, Writable } from 'node:stream';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { MCP_MESSAGE_LIMIT } from './http-transport.js';
import { INVALID_REQUEST, readableId, readEnvelope } from './json-rpc-envelope.js';

/** The longest line the stdio gateway reads: the HTTP front's body limit, 4 MiB. */
export const STDIO_LINE_LIMIT = MCP_MESSAGE_LIMIT;

const PARSE_ERROR = -32700;

/** Why a stdio client's connection ended: null when its input ended, else what broke it. */
export type StdioEnd = Error | null;

/**
 * MCP over newline-delimited JSON on stdin/stdout for one client. Unlike the
 * SDK's transport, a line that is not JSON or not a JSON-RPC message is
 * answered (-32700 or -32600, with its id when one can be read), and a line
 * over {@link STDIO_LINE_LIMIT} or a broken stream closes the connection;
 * {@link GatewayStdioTransport.ended} says why. The input's end closes it once
 * every request read before it is answered, as the SDK's own stdio servers do:
 * a client that pipes one call and closes its input still reads the answer.
 */
export class GatewayStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  /** Resolves when the connection closes: null when the input ended, else the error that ended it. */
  readonly ended: Promise<StdioEnd>;
  private resolveEnded: (end: StdioEnd) => void = () => {};
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private closed = false;
  private inputEnded = false;
  /**
   * The requests read and not answered yet, by id (a count: a client may reuse
   * an id). A request the client cancelled is answered by no one, so its
   * cancellation takes it off, once the request guard delivered it.
   */
  private readonly unanswered = new Map<string | number, number>();

  constructor(
    private readonly input: Readable = process.stdin,
    private readonly output: Writable = process.stdout,
    private readonly lineLimit = STDIO_LINE_LIMIT,
  ) {
    this.ended = new Promise((resolve) => {
      this.resolveEnded = resolve;
    });
  }

  private readonly onData = (chunk: Buffer | string) => {
    let data = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    let newline = data.indexOf(10);
    while (newline !== -1 && !this.closed) {
      const piece = data.subarray(0, newline);
      if (!this.fits(piece.length)) return;
      const line = Buffer.concat([...this.pending, piece]).toString('utf8');
      this.pending = [];
      this.pendingBytes = 0;
      this.receive(line.replace(/\r$/, ''));
      data = data.subarray(newline + 1);
      newline = data.indexOf(10);
    }
    if (this.closed || data.length === 0 || !this.fits(data.length)) return;
    this.pending.push(data);
    this.pendingBytes += data.length;
  };

  private readonly onEnd = () => {
    if (this.closed || this.inputEnded) return;
    this.inputEnded = true;
    this.input.off('data', this.onData);
    this.pending = [];
    this.pendingBytes = 0;
    if (this.unanswered.size === 0) void this.finish(null);
  };

  private readonly onStreamError = (error: Error) => {
    void this.finish(new Error(`the client's stream failed: ${error.message}`));
  };

  /** Whether `bytes` more fit in the current line; past the limit the connection ends. */
  private fits(bytes: number): boolean {
    if (this.pendingBytes + bytes <= this.lineLimit) return true;
    const limit = `${this.lineLimit / (1024 * 1024)} MiB`;
    const line = `a message line over the ${limit} limit`;
    this.answer(null, INVALID_REQUEST, `Invalid Request: ${line}; the gateway ends the connection`);
    void this.finish(new Error(`the client sent ${line}`));
    return false;
  }

  private receive(line: string): void {
    if (line.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      this.answer(null, PARSE_ERROR, 'Parse error: the line is not JSON');
      this.onerror?.(new Error('the client sent a line that is not JSON'));
      return;
    }
    const { message, problem } = readEnvelope(value);
    if (!message) {
      this.answer(readableId(value), INVALID_REQUEST, `Invalid Request: ${problem}`);
      this.onerror?.(new Error(`the client sent an invalid JSON-RPC message (${problem})`));
      return;
    }
    if ('method' in message && 'id' in message) {
      this.unanswered.set(message.id, (this.unanswered.get(message.id) ?? 0) + 1);
    }
    this.onmessage?.(message);
  }

  /**
   * Takes a request the server will not answer (its client cancelled it) off
   * those the input's end waits for. The request guard tells it, as it
   * delivers the cancellation: a malformed one it drops cancels nothing, and
   * that request is still answered.
   */
  requestCancelled(id: string | number): void {
    this.settle(id);
    if (this.inputEnded && this.unanswered.size === 0) void this.finish(null);
  }

  /** Takes one request with this id off those waiting for an answer. */
  private settle(id: string | number): void {
    const count = this.unanswered.get(id);
    if (count === undefined) return;
    if (count > 1) this.unanswered.set(id, count - 1);
    else this.unanswered.delete(id);
  }

  private answer(id: string | number | null, code: number, message: string): void {
    if (this.closed) return;
    this.output.write(`${JSON.stringify({ jsonrpc: '2.0', id, error: { code, message } })}\n`);
  }

  async start(): Promise<void> {
    this.input.on('data', this.onData);
    this.input.on('end', this.onEnd);
    this.input.on('close', this.onEnd);
    this.input.on('error', this.onStreamError);
    this.output.on('error', this.onStreamError);
  }

  send(message: JSONRPCMessage): Promise<void> {
    if (this.closed) return Promise.resolve();
    const answered = !('method' in message) && 'id' in message && message.id !== undefined;
    const sent = new Promise<void>((resolve) => {
      if (this.output.write(`${JSON.stringify(message)}\n`)) resolve();
      else this.output.once('drain', resolve);
    });
    if (!answered) return sent;
    this.settle(message.id as string | number);
    if (!this.inputEnded || this.unanswered.size > 0) return sent;
    // The last answer the client waited for after its input ended: the connection ends once it left.
    return sent.then(() => this.finish(null));
  }

  close(): Promise<void> {
    return this.finish(null);
  }

  private async finish(end: StdioEnd): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.input.off('data', this.onData);
    this.input.off('end', this.onEnd);
    this.input.off('close', this.onEnd);
    this.input.off('error', this.onStreamError);
    this.input.pause();
    this.pending = [];
    this.pendingBytes = 0;
    this.resolveEnded(end);
    this.onclose?.();
  }
}
