import { type ChildProcess, spawn } from 'node:child_process';
import {
  createMessageConnection,
  type MessageConnection,
  StreamMessageReader,
  StreamMessageWriter,
} from 'vscode-jsonrpc/node.js';

/** An LSP diagnostic as the tests read it. */
export interface WireDiagnostic {
  range: { start: { line: number; character: number }; end: { line: number; character: number } };
  severity: number;
  code: string;
  source: string;
  message: string;
  codeDescription?: { href: string };
}

/** One publishDiagnostics notification as received. */
export interface PublishedDiagnostics {
  uri: string;
  version?: number;
  diagnostics: WireDiagnostic[];
}

/** A running `rules-lint lsp --stdio` with a JSON-RPC connection to it. */
export interface LspSession {
  readonly connection: MessageConnection;
  /** Every publishDiagnostics received so far, in order. */
  readonly published: readonly PublishedDiagnostics[];
  /** Resolves with the next diagnostics published for `uri`. */
  nextDiagnostics(uri: string): Promise<WireDiagnostic[]>;
  /** Shuts the server down and resolves with its exit code. */
  close(): Promise<number | null>;
}

/** What the client says of itself at `initialize` besides `rootUri`. */
export interface ClientInitialize {
  readonly capabilities?: object;
  readonly workspaceFolders?: readonly { uri: string; name: string }[];
}

/** Spawns the built CLI's language server in `cwd` and initializes it (with `rootUri` as its workspace). */
export async function startLspSession(
  cli: string,
  cwd: string,
  args: readonly string[] = [],
  rootUri: string | null = null,
  client: ClientInitialize = {},
): Promise<LspSession> {
  const server: ChildProcess = spawn(process.execPath, [cli, 'lsp', '--stdio', ...args], {
    cwd,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const connection = createMessageConnection(
    new StreamMessageReader(server.stdout!),
    new StreamMessageWriter(server.stdin!),
  );
  const waiters = new Map<string, ((diagnostics: WireDiagnostic[]) => void)[]>();
  const published: PublishedDiagnostics[] = [];
  connection.onNotification('textDocument/publishDiagnostics', (message: PublishedDiagnostics) => {
    published.push(message);
    waiters.get(message.uri)?.shift()?.(message.diagnostics);
  });
  connection.listen();
  await connection.sendRequest('initialize', {
    processId: process.pid,
    rootUri,
    capabilities: client.capabilities ?? {},
    ...(client.workspaceFolders === undefined ? {} : { workspaceFolders: client.workspaceFolders }),
  });
  await connection.sendNotification('initialized', {});
  const exited = new Promise<number | null>((resolve) => server.on('exit', resolve));
  return {
    connection,
    published,
    nextDiagnostics: (uri) =>
      new Promise((resolve) => {
        const list = waiters.get(uri) ?? [];
        list.push(resolve);
        waiters.set(uri, list);
      }),
    async close() {
      await connection.sendRequest('shutdown');
      await connection.sendNotification('exit');
      const code = await exited;
      connection.dispose();
      return code;
    },
  };
}
