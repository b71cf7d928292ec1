import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { afterEach } from 'vitest';
import { type Airlock, type AirlockOptions, startAirlock } from '../airlock.js';
import { parseNotificationsConfig } from '../notifications/config.js';
import { createCredential, listCredentials } from '../store/accounts.js';
import { freePort } from './free-port.js';
import { type Client, client, waitFor } from './harness.js';
import type { Backend } from './stores.js';
import { type WorkspaceTokens, workspaceWithTokens } from './workspace-tokens.js';

export { freePort };

/**
 * The delivery worker's settings in the notification tests: it looks for due
 * deliveries every 50 ms, retries after 20 to 100 ms, and a kernel's stop cuts a
 * send still in flight (a fake that holds its answer) after 100 ms instead of 5 s.
 */
export const FAST_DELIVERY = {
  pollMs: 50,
  backoff: { baseMs: 20, capMs: 100 },
  stopGraceMs: 100,
} as const;

/** A kernel started with notification channels that name its own workspace (tests only). */
export interface NotifyDeployment {
  airlock: Airlock;
  /** The PostgreSQL database the kernel runs on; undefined on SQLite. */
  databaseUrl: string | undefined;
  url: string;
  workspaceId: string;
  memberCredentialId: string;
  /** A second member of the workspace (for policies that need two approvals). */
  otherMember: { credentialId: string; client: Client };
  tokens: WorkspaceTokens;
  agent: Client;
  member: Client;
  ws: string;
  /** Starts a scripted run whose one call parks (mode ask); answers its id. */
  park(call?: { name: string; input: unknown }): Promise<string>;
  /** The run's events of one type. */
  events(runId: string, type: string): Promise<Record<string, unknown>[]>;
  close(): Promise<void>;
}

/**
 * Creates a workspace on a fresh store of the backend, then starts a kernel
 * whose notification configuration `configFor` builds from the workspace.
 */
export async function deployWithChannels(
  backend: Backend,
  configFor: (ids: {
    workspaceId: string;
    memberCredentialId: string;
    otherMemberCredentialId: string;
    url: string;
  }) => unknown,
  options: Omit<AirlockOptions, 'dataDir' | 'databaseUrl' | 'notifications'> & { port: number },
): Promise<NotifyDeployment> {
  const opened = await backend.open();
  const { workspaceId, appId, tokens } = await workspaceWithTokens(opened.store, 'notify');
  const member = (await listCredentials(opened.store, workspaceId)).find(
    (c) => c.kind === 'member',
  )!;
  const { credential: other, token: otherToken } = await createCredential(opened.store, {
    workspaceId,
    kind: 'member',
    agentApplicationId: appId,
  });
  await opened.store.close();
  const url = `http://127.0.0.1:${options.port}`;
  const airlock = await startAirlock({
    rateLimit: null,
    authFailureLimit: null,
    sweepIntervalMs: 50,
    ...options,
    ...opened.location,
    notifications: parseNotificationsConfig(
      configFor({
        workspaceId,
        memberCredentialId: member.credential_id,
        otherMemberCredentialId: other.credential_id,
        url,
      }),
    ),
  });
  const ws = `/api/v1/workspaces/${workspaceId}`;
  const memberClient = client(airlock.url, tokens.member);
  return {
    airlock,
    databaseUrl: opened.location.databaseUrl,
    url: airlock.url,
    workspaceId,
    memberCredentialId: member.credential_id,
    otherMember: { credentialId: other.credential_id, client: client(airlock.url, otherToken) },
    tokens,
    agent: client(airlock.url, tokens.agent),
    member: memberClient,
    ws,
    async park(call = { name: 'bash', input: { command: 'rm -rf /tmp/x' } }) {
      const answer = await client(airlock.url, tokens.agent).post(`${ws}/runs`, {
        approval_mode: 'ask',
        input: 'notify',
        provider: { kind: 'scripted', rounds: [{ tool_calls: [call] }, { final: 'done' }] },
      });
      if (answer.status !== 201) throw new Error(`run not created: ${JSON.stringify(answer.body)}`);
      return answer.body.id as string;
    },
    async events(runId, type) {
      const answer = await memberClient.get(`${ws}/runs/${runId}/events?after=0`);
      const all = (answer.body.events ?? answer.body) as Record<string, unknown>[];
      return all.filter((event) => event.type === type);
    },
    async close() {
      await airlock.close();
      await opened.dispose();
    },
  };
}

/**
 * Called inside a `describe`: after each test, closes the deployment
 * `current` names, then every closer pushed on the answered list (receivers).
 */
export function closeAfterEach(
  current: () => NotifyDeployment | undefined,
): (() => Promise<void>)[] {
  const closers: (() => Promise<void>)[] = [];
  const closed = new WeakSet<NotifyDeployment>();
  afterEach(async () => {
    const deployment = current();
    if (deployment && !closed.has(deployment)) {
      closed.add(deployment);
      await deployment.close();
    }
    for (const close of closers.splice(0)) await close();
  });
  return closers;
}

/** A webhook channel of a test, without its kind and workspace. */
export type TestWebhook = { name: string; url: string; secrets: string[] } & Record<
  string,
  unknown
>;

/** {@link deployWithChannels} with webhook channels only, on a free port. */
export async function deployWebhooks(
  backend: Backend,
  webhooks: TestWebhook[],
  tuning: AirlockOptions['notificationTuning'],
): Promise<NotifyDeployment> {
  return deployWithChannels(
    backend,
    ({ workspaceId }) => ({
      channels: webhooks.map((webhook) => ({
        kind: 'webhook',
        workspace: workspaceId,
        ...webhook,
      })),
    }),
    { port: await freePort(), notificationTuning: tuning },
  );
}

/** Waits for a delivery (of `channel`, if named) to have failed an attempt; answers its view. */
export async function failedDelivery(
  d: NotifyDeployment,
  options: { channel?: string; timeoutMs?: number } = {},
): Promise<{ state: string; attempts: number; last_error: string | null }> {
  return waitFor(
    async () => {
      const listed = await d.member.get(`${d.ws}/notifications?state=pending`);
      return (
        listed.body.deliveries as {
          channel: string;
          attempts: number;
          state: string;
          last_error: string | null;
        }[]
      ).find(
        (x) =>
          x.last_error !== null && (options.channel === undefined || x.channel === options.channel),
      );
    },
    { timeoutMs: options.timeoutMs ?? 10_000, what: 'a failed attempt' },
  );
}

/** One request a local receiver got: headers and raw body. */
export interface Received {
  path: string;
  headers: Record<string, string>;
  body: string;
}

/** What a test receiver answers a request. */
type Answer = { status: number; body?: string };

/**
 * A real HTTP server on loopback that records requests and answers with
 * `respond`; a `null` answer holds the request open (a receiver that never
 * answers) until the server closes, and a promise answers once it settles.
 */
export async function startReceiver(
  respond: (request: Received, index: number) => Answer | null | Promise<Answer | null> = () => ({
    status: 200,
  }),
): Promise<{ url: string; received: Received[]; server: Server; close(): Promise<void> }> {
  const received: Received[] = [];
  const server = createServer((req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const headers: Record<string, string> = {};
      for (const [key, value] of Object.entries(req.headers)) {
        if (typeof value === 'string') headers[key] = value;
      }
      const request = {
        path: req.url ?? '/',
        headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      received.push(request);
      void Promise.resolve(respond(request, received.length - 1)).then((answer) => {
        if (answer === null || res.destroyed) return;
        res.writeHead(answer.status, { 'content-type': 'application/json' });
        res.end(answer.body ?? '{}');
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** True when a received request carries a valid Standard Webhooks signature under the secret. */
export function verifiesWithStandardWebhooks(secret: string, request: Received): boolean {
  try {
    new Webhook(secret).verify(request.body, request.headers);
    return true;
  } catch {
    return false;
  }
}
