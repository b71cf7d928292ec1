import { STDIO_DEFAULT_MAX_BUFFER_SIZE } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

const NEWLINE = 10;

/**
 * The read buffer of a bridged server's stdout, in place of the MCP SDK's
 * (`StdioClientTransport` takes one message a line from it). The SDK's
 * checked each line against its JSON-RPC message schema, then its client
 * checks every message again as it dispatches it (the same four schemas),
 * and a tool result once more against `CallToolResultSchema`: this one only
 * parses the line, and leaves the checks to the dispatch, once. It also keeps
 * a long line's chunks apart until the line ends, where the SDK's copied the
 * whole line so far at each chunk.
 *
 * As with the SDK's: a line that is not JSON, or JSON but no object (which
 * no schema takes), throws, which the transport tells its `onerror` before
 * reading on; `readMessage` answers null only when no whole line is left; and
 * a line over the limit clears the buffer and throws the SDK's words
 * (`ReadBuffer exceeded maximum size of N bytes`), on which the transport
 * closes.
 */
export class ServerLineBuffer {
  private chunks: Buffer[] = [];
  private bytes = 0;
  /** How many of `chunks` are known to hold no newline. */
  private scanned = 0;

  constructor(private readonly maxBytes: number = STDIO_DEFAULT_MAX_BUFFER_SIZE) {}

  append(chunk: Buffer): void {
    if (this.bytes + chunk.length > this.maxBytes) {
      this.clear();
      throw new Error(`ReadBuffer exceeded maximum size of ${this.maxBytes} bytes`);
    }
    this.chunks.push(chunk);
    this.bytes += chunk.length;
  }

  readMessage(): JSONRPCMessage | null {
    const line = this.nextLine();
    if (line === null) return null;
    const value: unknown = JSON.parse(line);
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      throw new Error(`the server wrote a line that is no JSON-RPC message: ${line.slice(0, 80)}`);
    }
    // Checked as the client dispatches it: one that is no JSON-RPC message is told to onerror.
    return value as JSONRPCMessage;
  }

  clear(): void {
    this.chunks = [];
    this.bytes = 0;
    this.scanned = 0;
  }

  /** The next whole line (without its `\n` or `\r\n`), or null while it has not ended. */
  private nextLine(): string | null {
    for (let i = this.scanned; i < this.chunks.length; i += 1) {
      const chunk = this.chunks[i] as Buffer;
      const newline = chunk.indexOf(NEWLINE);
      if (newline === -1) continue;
      const head = chunk.subarray(0, newline);
      const text = (i === 0 ? head : Buffer.concat([...this.chunks.slice(0, i), head])).toString(
        'utf8',
      );
      const rest = chunk.subarray(newline + 1);
      this.chunks =
        rest.length > 0 ? [rest, ...this.chunks.slice(i + 1)] : this.chunks.slice(i + 1);
      this.bytes = this.chunks.reduce((sum, left) => sum + left.length, 0);
      this.scanned = 0;
      return text.endsWith('\r') ? text.slice(0, -1) : text;
    }
    this.scanned = this.chunks.length;
    return null;
  }
}

/**
 * Gives a stdio transport of the MCP SDK a {@link ServerLineBuffer} in place
 * of its own (a field the SDK does not expose); false when the transport has
 * no such field (another SDK version), which is left as it is.
 */
export function useServerLineBuffer(transport: object): boolean {
  const held = transport as { _readBuffer?: unknown };
  if (
    typeof (held._readBuffer as { readMessage?: unknown } | undefined)?.readMessage !== 'function'
  ) {
    return false;
  }
  held._readBuffer = new ServerLineBuffer();
  return true;
}
