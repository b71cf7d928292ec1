import { type ChildProcess, spawn } from 'node:child_process';

/** One JSON-RPC message read back from the server. */
export interface RawMessage {
  id?: unknown;
  method?: string;
  params?: unknown;
  result?: unknown;
}

/** A `rules-lint lsp --stdio` spoken to with hand-made frames, malformed ones included. */
export interface RawLspSession {
  readonly child: ChildProcess;
  readonly messages: RawMessage[];
  stderr(): string;
  /** Writes bytes as they are (a bad header, half a frame). */
  write(bytes: string): void;
  /** Frames and writes one message. */
  send(message: unknown): void;
  /** Resolves with the first message that matches, or undefined after `timeout` ms (25 s: a server start on a loaded machine) or on exit. */
  waitFor(
    match: (message: RawMessage) => boolean,
    timeout?: number,
  ): Promise<RawMessage | undefined>;
  /** Resolves with the exit code, or undefined if the server is still running after `timeout` ms. */
  exited(timeout: number): Promise<number | null | undefined>;
  kill(): void;
}

/** How a raw session starts: the client capabilities it announces, and whether it initializes at all. */
export interface RawLspStart {
  readonly capabilities?: object;
  /** False leaves the server uninitialized (default true). */
  readonly initialize?: boolean;
  /** More arguments after `lsp --stdio`. */
  readonly args?: readonly string[];
}

/** Spawns the built CLI's language server and (unless told not to) initializes it. */
export async function startRawLsp(
  cli: string,
  { capabilities = {}, initialize = true, args = [] }: RawLspStart = {},
): Promise<RawLspSession> {
  const child = spawn(process.execPath, [cli, 'lsp', '--stdio', ...args], {
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const messages: RawMessage[] = [];
  let stderr = '';
  let pending = Buffer.alloc(0);
  let exitCode: number | null | undefined;
  const exit = new Promise<number | null>((resolve) =>
    child.on('exit', (code) => {
      exitCode = code;
      resolve(code);
    }),
  );
  child.stdin!.on('error', () => {});
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  child.stdout!.on('data', (chunk: Buffer) => {
    pending = Buffer.concat([pending, chunk]);
    for (;;) {
      const end = pending.indexOf('\r\n\r\n');
      if (end < 0) return;
      const length = Number(
        /Content-Length: (\d+)/i.exec(pending.subarray(0, end).toString())?.[1],
      );
      if (pending.length < end + 4 + length) return;
      messages.push(JSON.parse(pending.subarray(end + 4, end + 4 + length).toString()));
      pending = pending.subarray(end + 4 + length);
    }
  });
  const session: RawLspSession = {
    child,
    messages,
    stderr: () => stderr,
    write: (bytes) => child.stdin!.write(bytes),
    send(message) {
      const body = Buffer.from(JSON.stringify(message));
      child.stdin!.write(`Content-Length: ${body.length}\r\n\r\n`);
      child.stdin!.write(body);
    },
    async waitFor(match, timeout = 25_000) {
      const deadline = Date.now() + timeout;
      while (Date.now() < deadline && exitCode === undefined) {
        const found = messages.find(match);
        if (found) return found;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      return messages.find(match);
    },
    exited: (timeout) =>
      Promise.race([exit, new Promise<undefined>((resolve) => setTimeout(resolve, timeout))]),
    kill: () => {
      if (exitCode === undefined) child.kill('SIGKILL');
    },
  };
  if (!initialize) return session;
  session.send({
    jsonrpc: '2.0',
    id: 'init',
    method: 'initialize',
    // The parent's pid, as editors send it: the library then watches the parent with a timer.
    params: { processId: process.pid, rootUri: null, capabilities },
  });
  await session.waitFor((message) => message.id === 'init');
  session.send({ jsonrpc: '2.0', method: 'initialized', params: {} });
  return session;
}
