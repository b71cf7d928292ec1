/*
 * An MCP session spoken as raw JSON-RPC lines over a child's stdio, for the MCP benches
 * (bench-mcp-floor.ts, trace-mcp-path.ts): no SDK on the client's side, so the bench's own cost
 * is a JSON line each way.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';

/** An MCP session spoken as raw JSON-RPC lines over a child's stdio. */
export class LineSession {
  readonly #child: ChildProcess;
  readonly #waiting = new Map<number, (message: { result?: unknown; error?: unknown }) => void>();
  #nextId = 1;

  constructor(command: string, args: string[], env: NodeJS.ProcessEnv = process.env) {
    this.#child = spawn(command, args, { stdio: ['pipe', 'pipe', 'ignore'], env });
    createInterface({ input: this.#child.stdout! }).on('line', (line) => {
      const message = JSON.parse(line) as { id?: number; result?: unknown; error?: unknown };
      if (typeof message.id !== 'number') return;
      this.#waiting.get(message.id)?.(message);
      this.#waiting.delete(message.id);
    });
  }

  #request(method: string, params: unknown): Promise<{ result?: unknown; error?: unknown }> {
    const id = this.#nextId++;
    return new Promise((resolve) => {
      this.#waiting.set(id, resolve);
      this.#child.stdin!.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
    });
  }

  /** The process this session speaks to (the server, the relay or the gateway). */
  get pid(): number | undefined {
    return this.#child.pid;
  }

  async start(): Promise<void> {
    const answer = await this.#request('initialize', {
      protocolVersion: '2025-06-18',
      capabilities: {},
      clientInfo: { name: 'bench', version: '1' },
    });
    if (answer.error) throw new Error(`initialize failed: ${JSON.stringify(answer.error)}`);
    this.#child.stdin!.write(
      `${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`,
    );
  }

  async call(name: string, args: unknown): Promise<void> {
    const answer = await this.#request('tools/call', { name, arguments: args });
    const result = answer.result as { isError?: boolean } | undefined;
    if (answer.error || result?.isError) {
      throw new Error(`${name} failed: ${JSON.stringify(answer.error ?? answer.result)}`);
    }
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      if (this.#child.exitCode !== null) return resolve();
      this.#child.once('exit', () => resolve());
      this.#child.stdin!.end();
      setTimeout(() => this.#child.kill('SIGKILL'), 3000).unref();
    });
  }
}
