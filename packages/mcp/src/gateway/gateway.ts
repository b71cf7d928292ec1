import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { type ExecutorBridge, startExecutorBridge } from '../executor-bridge.js';
import { kernelApis } from '../kernel-api.js';
import type { NamedServer } from '../servers-config.js';
import { credentialKind, type MemberRunPolicy } from './client-credential.js';
import { createGatewayServer } from './gateway-server.js';
import { GatewaySession } from './gateway-session.js';
import { type HttpGateway, type HttpGatewayOptions, listenHttp } from './http-transport.js';
import { kernelBodyLimit } from './kernel-body-limit.js';
import { connectGuarded } from './request-guard.js';
import { GatewayStdioTransport, type StdioEnd } from './stdio-transport.js';

/** Options of {@link startGateway}. */
export interface GatewayOptions {
  /** The kernel's base URL. */
  url: string;
  /** The workspace the clients' runs are made in. */
  workspaceId: string;
  /** An executor credential: the gateway serves the granted calls itself. */
  executorToken: string;
  /** An agent credential to register the tools in the profile with (optional). */
  agentToken?: string | undefined;
  servers: readonly NamedServer[];
  /** The mode and rules of runs opened with a member credential; default `ask`, no rules. */
  memberPolicy?: MemberRunPolicy | undefined;
  /** How often a waiting call re-reads its row; default 250 ms. */
  pollMs?: number | undefined;
  /**
   * How long each request to the kernel waits for its answer, in
   * milliseconds; default 30 s. A call whose request the kernel does not
   * answer in time answers its client with a JSON-RPC error naming
   * `deadline_exceeded`; a call parked for a person is not cut short (each
   * re-read of its row is a request of its own).
   */
  timeoutMs?: number | undefined;
  /**
   * Answer each call only once its row is committed (see
   * `GatewaySessionOptions.awaitCommits`); default false: a call answers as
   * soon as the tool returned, and its commit follows at once.
   */
  awaitCommits?: boolean | undefined;
  /**
   * The kernel's request body limit in bytes: by default the one the kernel
   * says on its answers (its `--body-limit`; 1 MiB from a kernel that says
   * none); a value given here counts only where it is smaller. A call whose
   * result may be over it answers only once committed, as its row records it
   * (`result_too_large` when the kernel refused it).
   */
  bodyLimit?: number | undefined;
  /** How often a parked call sends progress; default 1 s. */
  progressEveryMs?: number | undefined;
  onError?: ((error: Error) => void) | undefined;
}

/** Where and how the HTTP front listens (see {@link listenHttp}). */
export type HttpListenOptions = Pick<
  HttpGatewayOptions,
  'host' | 'port' | 'allowOrigins' | 'sessionIdleMs' | 'maxSessionsPerCredential' | 'maxSessions'
>;

/** A running gateway. */
export interface Gateway {
  readonly bridge: ExecutorBridge;
  /** Serves one client over a transport (stdio, or any other) with a client credential. */
  connect(transport: Transport, token: string): Promise<void>;
  /**
   * Serves stdin/stdout as one MCP client with a client credential; `ended`
   * resolves when that connection closes: null when stdin ended, else the
   * error that ended it (a line over the limit, a broken stream).
   */
  serveStdio(token: string): Promise<{ ended: Promise<StdioEnd> }>;
  /** Serves Streamable HTTP at `/mcp`; each request carries its client credential. */
  listenHttp(options?: HttpListenOptions): Promise<HttpGateway>;
  /**
   * How many clients the gateway serves now: those given to {@link Gateway.connect}
   * whose connection is still open, and the open sessions of its HTTP fronts.
   */
  connectedClients(): number;
  /**
   * Stops the HTTP fronts, closes every client still connected, waits for
   * their sessions to settle the calls they planted, then closes the bridge.
   */
  close(): Promise<void>;
}

/**
 * Starts the gateway: bridges the MCP servers (the executor bridge, in this
 * process) and exposes their tools as an MCP server of its own, where every
 * `tools/call` is a model row of the client's gateway run.
 * @throws when a server cannot be started or the kernel refuses a credential
 *   (the SDK's ForbiddenError `forbidden` for a client of another workspace or application);
 *   the SDK's DeadlineExceededError when the kernel does not answer within `timeoutMs`.
 */
export async function startGateway(options: GatewayOptions): Promise<Gateway> {
  // The application whose executor serves the calls: an agent of another one would wait forever.
  const kernelAs = kernelApis(options);
  const own = await kernelAs(options.executorToken).self();
  const verify = (token: string, kind: 'agent' | 'member') =>
    kernelAs(token).verify(kind, own.agent_application_id);
  const bridge = await startExecutorBridge({
    url: options.url,
    executorToken: options.executorToken,
    agentToken: options.agentToken,
    workspaceId: options.workspaceId,
    servers: options.servers,
    timeoutMs: options.timeoutMs,
    bodyLimit: await kernelBodyLimit(options.url, {
      given: options.bodyLimit,
      timeoutMs: options.timeoutMs,
    }),
    onError: options.onError,
  });
  const fronts: HttpGateway[] = [];
  // The servers of the clients given to connect, each dropped when its connection closes.
  const clients = new Set<Server>();
  // Sessions still ending: the bridge stays open until the rows they planted are run.
  const endings = new Set<Promise<void>>();
  // Aborted as the gateway stops: sessions stop waiting for the rows their gone clients left.
  const stopping = new AbortController();

  const serverFor = (token: string, kind: 'agent' | 'member') => {
    const api = kernelAs(token);
    const server = createGatewayServer({
      tools: bridge.tools,
      onSessionEnding: (ending) => {
        endings.add(ending);
        void ending.finally(() => endings.delete(ending));
      },
      progressEveryMs: options.progressEveryMs,
      session: (clientName) =>
        new GatewaySession({
          api,
          kind,
          clientName,
          memberPolicy: options.memberPolicy,
          stopping: stopping.signal,
          pollMs: options.pollMs,
          awaitCommits: options.awaitCommits,
          bridge,
        }),
    });
    // A message the SDK drops (or a failed send) leaves a line on stderr, never nothing.
    server.onerror = (error) => options.onError?.(error);
    return server;
  };

  const kindOf = (token: string) => {
    const kind = credentialKind(token);
    if (!kind) throw new Error('the gateway takes a member or agent credential');
    return kind;
  };

  const gateway: Gateway = {
    bridge,
    async connect(transport, token) {
      const kind = kindOf(token);
      await verify(token, kind);
      const server = serverFor(token, kind);
      clients.add(server);
      const ended = server.onclose;
      server.onclose = () => {
        clients.delete(server);
        ended?.();
      };
      await connectGuarded(server, transport);
    },
    async serveStdio(token) {
      const transport = new GatewayStdioTransport();
      await gateway.connect(transport, token);
      return { ended: transport.ended };
    },
    async listenHttp(listen = {}) {
      const front = await listenHttp({
        ...listen,
        verify,
        // Not kept in `clients`: the front keeps and closes its own sessions, and the transport of a
        // failed initialize never closes, so it would stay there for good.
        open: (token, kind, transport) => connectGuarded(serverFor(token, kind), transport),
      });
      fronts.push(front);
      return front;
    },
    connectedClients() {
      return fronts.reduce((count, front) => count + front.sessions, clients.size);
    },
    async close() {
      stopping.abort();
      await Promise.all(fronts.map((front) => front.close()));
      await Promise.all([...clients].map((server) => server.close()));
      while (endings.size > 0) await Promise.allSettled([...endings]);
      await bridge.close();
    },
  };
  return gateway;
}
