import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ApprovalRule } from '@airlock/core';
import {
  type Airlock,
  type AirlockOptions,
  createAgentApplication,
  createCredential,
  createWorkspace,
  startAirlock,
} from '@airlock/server';

/** One workspace with an agent application and a token of each plane. */
export interface TestWorkspace {
  id: string;
  appId: string;
  tokens: { agent: string; executor: string; member: string };
}

/** A real kernel on loopback (SQLite in a temp dir, or PostgreSQL) with one workspace. */
export interface TestKernel {
  /** The running kernel (a new one after {@link TestKernel.restart}). */
  airlock: Airlock;
  url: string;
  workspace: TestWorkspace;
  /** Adds another workspace with its own tokens. */
  addWorkspace(name: string): Promise<TestWorkspace>;
  /** Stops the kernel and starts a new process-like kernel on the same port and store. */
  restart(): Promise<void>;
  /** Stops the kernel, keeping its port and store for {@link TestKernel.start}: an outage. */
  stop(): Promise<void>;
  /** Starts a new kernel on the stopped one's port and store. */
  start(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Starts a kernel on 127.0.0.1 with one workspace, on a fresh SQLite store, or on the
 * PostgreSQL database `store.databaseUrl` names (see support/postgres.ts).
 */
export async function startTestKernel(
  options: Omit<AirlockOptions, 'dataDir' | 'databaseUrl'> = {},
  store: { databaseUrl?: string } = {},
): Promise<TestKernel> {
  const dataDir = mkdtempSync(join(tmpdir(), 'airlock-sdk-test-'));
  const where = store.databaseUrl ? { dataDir, databaseUrl: store.databaseUrl } : { dataDir };
  let airlock = await startAirlock({ sweepIntervalMs: 50, ...options, ...where });
  const addWorkspace = async (name: string): Promise<TestWorkspace> => {
    const workspace = await createWorkspace(airlock.store, name);
    const app = await createAgentApplication(airlock.store, {
      workspaceId: workspace.id,
      name: `${name}-app`,
    });
    const token = async (kind: 'agent' | 'executor' | 'member') =>
      (
        await createCredential(airlock.store, {
          workspaceId: workspace.id,
          kind,
          agentApplicationId: app.id,
          // The workspace's first member governs it, as a kernel's first member does.
          ...(kind === 'member' ? { role: 'admin' as const } : {}),
          label: `${name} ${kind}`,
        })
      ).token;
    return {
      id: workspace.id,
      appId: app.id,
      tokens: {
        agent: await token('agent'),
        executor: await token('executor'),
        member: await token('member'),
      },
    };
  };
  const workspace = await addWorkspace('test');
  const port = airlock.http.port;
  const kernel: TestKernel = {
    airlock,
    url: airlock.url,
    workspace,
    addWorkspace,
    async restart() {
      await kernel.stop();
      await kernel.start();
    },
    async stop() {
      await airlock.close();
    },
    async start() {
      airlock = await startAirlock({ sweepIntervalMs: 50, ...options, ...where, port });
      kernel.airlock = airlock;
    },
    async close() {
      await airlock.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
  return kernel;
}

/** Polls until a check returns a truthy value, or fails after a timeout. */
export async function eventually<T>(
  check: () => Promise<T | null | undefined | false> | T | null | undefined | false,
  options: { timeoutMs?: number; what?: string } = {},
): Promise<T> {
  const deadline = Date.now() + (options.timeoutMs ?? 10_000);
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) {
      throw new Error(`timed out waiting for ${options.what ?? 'a condition'}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** A scripted standalone run: the rounds the model plays, under a mode and rules. */
export function scriptedRun(
  mode: 'bypass' | 'ask' | 'rules',
  rounds: unknown[],
  rules: ApprovalRule[] = [],
) {
  return {
    approval_mode: mode,
    approval_rules: rules,
    input: 'do the thing',
    provider: { kind: 'scripted' as const, rounds: rounds as never },
  };
}

/**
 * Declares a stop hook served by `tool` on the workspace's agent profile
 * (bypass mode, one continuation at most) and starts a conversation turn
 * that answers at once, so the hook's row is planted as the turn ends.
 * @returns the turn's run id.
 */
export async function startTurnWithStopHook(
  kernel: TestKernel,
  hook: { tool: string; timeoutMs: number },
): Promise<string> {
  const agent = async (method: string, path: string, body: unknown) =>
    (
      await fetch(`${kernel.url}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${kernel.workspace.tokens.agent}`,
          'content-type': 'application/json',
        },
        body: JSON.stringify(body),
      })
    ).json() as Promise<{ id: string }>;
  await agent('PUT', '/agent_api/v1/profile/configuration', {
    approval_mode: 'bypass',
    lifecycle_hooks: {
      stop: { tool: hook.tool, timeout_ms: hook.timeoutMs, max_continuations: 1 },
    },
  });
  const conversation = await agent('POST', '/agent_api/v1/conversations', {});
  const turn = await agent('POST', `/agent_api/v1/conversations/${conversation.id}/inputs`, {
    input: 'finish',
    provider: { kind: 'scripted', rounds: [{ final: 'done' }] },
  });
  return turn.id;
}
