import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Airlock, type AirlockOptions, startAirlock } from '../airlock.js';
import type { Backend } from './stores.js';
import { type WorkspaceTokens, workspaceWithTokens } from './workspace-tokens.js';

// biome-ignore lint/suspicious/noExplicitAny: tests read JSON answers loosely and assert on them.
type Loose = any;

/** A JSON answer. */
export interface Answer<T = Loose> {
  status: number;
  body: T;
}

/** A tiny HTTP client bound to one token. */
export interface Client {
  call<T = Loose>(method: string, path: string, body?: unknown): Promise<Answer<T>>;
  get<T = Loose>(path: string): Promise<Answer<T>>;
  post<T = Loose>(path: string, body?: unknown): Promise<Answer<T>>;
  put<T = Loose>(path: string, body?: unknown): Promise<Answer<T>>;
}

/** Makes a client for a base URL and bearer token. */
export function client(url: string, token: string | null): Client {
  const call = async (method: string, path: string, body?: unknown): Promise<Answer> => {
    const response = await fetch(`${url}${path}`, {
      method,
      headers: {
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : null };
  };
  return {
    call,
    get: (path) => call('GET', path),
    post: (path, body) => call('POST', path, body ?? {}),
    put: (path, body) => call('PUT', path, body),
  };
}

/** A running kernel with a workspace, an agent application and a token of each kind. */
export interface Deployment {
  airlock: Airlock;
  url: string;
  workspaceId: string;
  appId: string;
  tokens: WorkspaceTokens;
  agent: Client;
  executor: Client;
  member: Client;
  /** `/api/v1/workspaces/{ws}` */
  ws: string;
  /** Stops the kernel and starts a new one on the same store and port (clients keep working). */
  restart(): Promise<void>;
  close(): Promise<void>;
}

/** A new workspace on a running kernel, with its tokens and a client for each. */
async function freshWorkspace(airlock: Airlock): Promise<Omit<Deployment, 'restart' | 'close'>> {
  const { workspaceId, appId, tokens } = await workspaceWithTokens(airlock.store, 'test');
  return {
    airlock,
    url: airlock.url,
    workspaceId,
    appId,
    tokens,
    agent: client(airlock.url, tokens.agent),
    executor: client(airlock.url, tokens.executor),
    member: client(airlock.url, tokens.member),
    ws: `/api/v1/workspaces/${workspaceId}`,
  };
}

/** Starts a kernel on a fresh store of a backend, with one workspace and its tokens. */
export async function deploy(
  backend: Backend,
  options: Omit<AirlockOptions, 'dataDir' | 'databaseUrl'> = {},
): Promise<Deployment> {
  const opened = await backend.open();
  await opened.store.close();
  const airlock = await startAirlock({
    ...options,
    // On a database server retention would export under the working directory (the repository).
    ...(opened.location.databaseUrl !== undefined && options.retention?.exportDir === undefined
      ? {
          retention: {
            ...options.retention,
            exportDir: mkdtempSync(join(tmpdir(), 'airlock-exports-')),
          },
        }
      : {}),
    // Rate limits are off in tests unless a test turns them on.
    rateLimit: options.rateLimit ?? null,
    authFailureLimit: options.authFailureLimit ?? null,
    ...opened.location,
    sweepIntervalMs: options.sweepIntervalMs ?? 50,
  });
  const deployment: Deployment = {
    ...(await freshWorkspace(airlock)),
    async restart() {
      const port = deployment.airlock.http.port;
      await deployment.airlock.close();
      deployment.airlock = await startAirlock({
        ...options,
        rateLimit: options.rateLimit ?? null,
        authFailureLimit: options.authFailureLimit ?? null,
        ...opened.location,
        sweepIntervalMs: options.sweepIntervalMs ?? 50,
        port,
      });
    },
    async close() {
      await deployment.airlock.close();
      await opened.dispose();
    },
  };
  return deployment;
}

/** Options that hold a function (a clock, a logger) are each a case's own: no kernel shares them. */
function holdsFunction(value: unknown): boolean {
  if (typeof value === 'function') return true;
  if (value === null || typeof value !== 'object') return false;
  return Object.values(value).some(holdsFunction);
}

/** A deployment on a fresh workspace of a running kernel; closing it leaves the kernel running. */
async function workspaceOn(kernel: Deployment): Promise<Deployment> {
  return {
    ...(await freshWorkspace(kernel.airlock)),
    async restart() {
      throw new Error('a kernel the cases of a block share is not restarted: use deploy()');
    },
    async close() {},
  };
}

/** Kernels the cases of a test file share, each case on a workspace of its own. */
export interface SharedKernels {
  /**
   * As {@link deploy}, on a fresh workspace (its own application and tokens) of a kernel the
   * first call per backend and options starts; its `close` leaves the kernel running. Options
   * holding a function (a clock) get a kernel of their own, which `close` stops.
   */
  deploy(
    backend: Backend,
    options?: Omit<AirlockOptions, 'dataDir' | 'databaseUrl'>,
  ): Promise<Deployment>;
  /** Stops every kernel started (call it in `afterAll`). */
  close(): Promise<void>;
}

/**
 * Kernels for the cases of a file that need a workspace of their own, not a kernel: a kernel start
 * per case is most of such a case's time. Cases still see nothing of each other's runs, tasks,
 * decisions or credentials. Not for a case that restarts the kernel or reads what is kernel-wide
 * (metrics, feed counts, the store's figures).
 */
export function sharedKernels(): SharedKernels {
  const kernels = new Map<string, Promise<Deployment>>();
  return {
    async deploy(backend, options = {}) {
      if (holdsFunction(options)) return deploy(backend, options);
      const key = `${backend.name} ${JSON.stringify(options)}`;
      let kernel = kernels.get(key);
      if (!kernel) {
        kernel = deploy(backend, options);
        kernels.set(key, kernel);
      }
      return workspaceOn(await kernel);
    },
    async close() {
      const started = [...kernels.values()];
      kernels.clear();
      for (const kernel of started) await (await kernel.catch(() => null))?.close();
    },
  };
}

/** A member credential of the workspace made over the API: its id, and a client that uses it. */
export interface MemberOf {
  id: string;
  client: Client;
}

/**
 * Makes a workspace-level member credential labelled `label` through the
 * deployment's member (an admin): an `approver` unless `role` says `admin`.
 */
export async function addMember(
  d: Deployment,
  label: string,
  role: 'admin' | 'approver' = 'approver',
): Promise<MemberOf> {
  const made = await d.member.post(`${d.ws}/credentials`, {
    kind: 'member',
    agent_application_id: null,
    role,
    label,
  });
  if (made.status !== 201) {
    throw new Error(`making member ${label} answered ${made.status}: ${JSON.stringify(made.body)}`);
  }
  return { id: made.body.credential_id, client: client(d.url, made.body.token) };
}

/**
 * Two leads (`L1`, `L2`) and an approver outside their group (`Cy`); with
 * `policy`, puts the workspace's approval policy with that group as `leads`
 * and the policy's other keys (its rules).
 */
export async function leadsAndOutsider(
  d: Deployment,
  policy?: Record<string, unknown>,
): Promise<{ lead1: MemberOf; lead2: MemberOf; cy: MemberOf }> {
  const [lead1, lead2, cy] = [
    await addMember(d, 'L1'),
    await addMember(d, 'L2'),
    await addMember(d, 'Cy'),
  ];
  if (policy) {
    const put = await d.member.put(`${d.ws}/approval_policy`, {
      policy: { groups: { leads: [lead1.id, lead2.id] }, ...policy },
    });
    if (put.status !== 200) {
      throw new Error(`putting the policy answered ${put.status}: ${JSON.stringify(put.body)}`);
    }
  }
  return { lead1, lead2, cy };
}

/** Replaces an overlay document as `by` (reading its digest first); answers the put. */
export async function putOverlay(by: Client, path: string, groups: unknown): Promise<Answer> {
  const read = await by.get(path);
  return by.put(path, { expected_digest: read.body.digest, groups });
}

/**
 * Claims a row with the workspace's executor credential and commits `outcome` for it; answers
 * the commit. Throws when the claim is refused.
 */
export async function claimAndCommit(
  d: Deployment,
  runId: string,
  key: string,
  outcome: { outcome: 'succeeded' | 'failed'; result?: unknown; error?: unknown },
): Promise<Answer> {
  const task = `/executor_api/v1/runs/${runId}/tasks/${key}`;
  const claimed = await d.executor.post(`${task}/claim`, {});
  if (claimed.status !== 200) {
    throw new Error(`claiming ${key} answered ${claimed.status}: ${JSON.stringify(claimed.body)}`);
  }
  return d.executor.post(`${task}/commit`, { claim_id: claimed.body.claim_id, ...outcome });
}

/**
 * Starts a run whose one round calls `tool` `count` times (inputs `{n}`), and
 * answers its id once every row stands at `state` (parked under `ask`,
 * runnable under `bypass`).
 */
export async function runOfCalls(
  d: Deployment,
  options: { mode: 'ask' | 'bypass'; tool: string; count: number; state: string },
): Promise<string> {
  const calls = Array.from({ length: options.count }, (_, n) => ({
    name: options.tool,
    input: { n },
  }));
  const created = await d.agent.post(`${d.ws}/runs`, {
    approval_mode: options.mode,
    input: 'x',
    provider: { kind: 'scripted', rounds: [{ tool_calls: calls }, { final: 'done' }] },
  });
  if (created.status !== 201) {
    throw new Error(`the run was not created: ${created.status} ${JSON.stringify(created.body)}`);
  }
  const runId = created.body.id as string;
  await waitFor(async () => {
    const tasks = (await d.member.get(`${d.ws}/runs/${runId}/tasks`)).body.tasks;
    return (
      tasks.filter((task: { state: string }) => task.state === options.state).length ===
      options.count
    );
  });
  return runId;
}

/** Polls until a check returns a truthy value, or fails after a timeout. */
export async function waitFor<T>(
  check: () => Promise<T | null | undefined | false>,
  options: { timeoutMs?: number; what?: string } = {},
): Promise<T> {
  const deadline = Date.now() + (options.timeoutMs ?? 10_000);
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline)
      throw new Error(`timed out waiting for ${options.what ?? 'a condition'}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
