import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { installHooks } from '@airlock/hooks';
import { createClient, type Workspace } from '@airlock/sdk';
import { startTestKernel, type TestKernel } from '../support/kernel.js';
import type { AgentSandbox } from './agent-sandbox.js';

/** A kernel on loopback for one agent test, with the member's SDK handle on its workspace. */
export interface AirlockKernel {
  kernel: TestKernel;
  /** The workspace as a member sees it through the SDK (decisions, runs, tasks). */
  member: Workspace;
  /** Sets the agent application's profile configuration (mode, rules, contracts, stop hooks …). */
  setProfile(configuration: Record<string, unknown>): Promise<void>;
  /** Stops the kernel (as a crash would, mid-session); close() after it is harmless. */
  stop(): Promise<void>;
  close(): Promise<void>;
}

/** Starts a kernel (SQLite in a temp dir) for hooked sessions. */
export async function startAirlockKernel(): Promise<AirlockKernel> {
  const kernel = await startTestKernel();
  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= kernel.close();
    return closing;
  };
  const member = createClient({ url: kernel.url, token: kernel.workspace.tokens.member }).workspace(
    kernel.workspace.id,
  );
  return {
    kernel,
    member,
    async setProfile(configuration) {
      const response = await fetch(`${kernel.url}/agent_api/v1/profile/configuration`, {
        method: 'PUT',
        headers: {
          authorization: `Bearer ${kernel.workspace.tokens.agent}`,
          'content-type': 'application/json',
        },
        body: JSON.stringify(configuration),
      });
      if (!response.ok)
        throw new Error(`profile refused: ${response.status} ${await response.text()}`);
    },
    stop: close,
    close,
  };
}

/** The `airlock` command line (packages/server's built cli.js). */
export function airlockCliPath(): string {
  // The package's main file is src/index.ts or dist/index.js by export condition; the CLI is built into dist.
  const entry = createRequire(import.meta.url).resolve('@airlock/server');
  return join(dirname(dirname(entry)), 'dist', 'cli.js');
}

/** Options of {@link installAirlockHooks}. */
export interface AirlockHookOptions {
  /** How long a parked call waits inside one hook before it is refused with the waiting reason. */
  waitMs?: number;
  /** Claude Code headless: a park ends the agent's run with `defer`, and `--resume` asks again. */
  defer?: boolean;
  /** The hook client the entries run: `node` (default), `sh` (a shell and curl) or `bash` (bash alone). */
  client?: 'node' | 'sh' | 'bash';
  /**
   * Claude Code only: its HTTP hooks to the kernel (`--http`); the sandbox's environment then
   * carries the agent credential as AIRLOCK_TOKEN, as the entries expect.
   */
  http?: boolean;
  /**
   * Install by running the `airlock` command line (a Node.js process of its own, as a person does);
   * default: the function the command runs (`installHooks`), in this process, with the same
   * options, which writes the same entries without a process start per test.
   */
  cli?: boolean;
}

/**
 * Puts Airlock in front of the sandbox's agent the way a person does: `airlock hooks install
 * <agent> --user` into the sandbox's HOME (and CODEX_HOME), with the kernel's URL and a file
 * holding the agent credential (run as a command with `options.cli`, else called in process).
 * @throws Error with the command's output when it fails.
 */
export function installAirlockHooks(
  sandbox: AgentSandbox,
  airlock: AirlockKernel,
  options: AirlockHookOptions = {},
): void {
  const tokenFile = join(sandbox.home, '.airlock-agent-token');
  writeFileSync(tokenFile, `${airlock.kernel.workspace.tokens.agent}\n`, { mode: 0o600 });
  const env = { PATH: process.env.PATH ?? '', HOME: sandbox.home, CODEX_HOME: sandbox.codexHome };
  if (options.http) sandbox.env.AIRLOCK_TOKEN = airlock.kernel.workspace.tokens.agent;
  if (!options.cli) {
    installHooks({
      agent: sandbox.agent,
      scope: { kind: 'user' },
      url: airlock.kernel.url,
      tokenFile,
      waitMs: options.waitMs,
      defer: options.defer,
      client: options.client,
      http: options.http,
      env,
    });
    return;
  }
  const args = [airlockCliPath(), 'hooks', 'install', sandbox.agent, '--user'];
  args.push('--url', airlock.kernel.url, '--token-file', tokenFile);
  if (options.waitMs !== undefined) args.push('--wait-ms', String(options.waitMs));
  if (options.defer) args.push('--defer');
  if (options.client) args.push('--client', options.client);
  if (options.http) args.push('--http');
  const installed = spawnSync(process.execPath, args, { env, encoding: 'utf8' });
  if (installed.status !== 0) {
    throw new Error(
      `airlock hooks install failed (${installed.status}): ${installed.stdout}${installed.stderr}`,
    );
  }
}

/**
 * A kernel guarding the sandbox project's secrets/ the way people write it: `files` written into
 * the project (relative paths), then a profile with `project_root` set to it and a rule set that
 * denies `secrets/**` and allows the rest, the agent hooked with a short wait (`waitMs`), so a
 * call put to a person is refused once nobody answers.
 */
export async function guardSecrets(
  sandbox: AgentSandbox,
  files: Record<string, string | Buffer>,
  waitMs = 1500,
): Promise<AirlockKernel> {
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(sandbox.project, path)), { recursive: true });
    writeFileSync(join(sandbox.project, path), content);
  }
  const airlock = await startAirlockKernel();
  await airlock.setProfile({
    approval_mode: 'bypass',
    project_root: sandbox.project,
    permission_rule_set: 'house',
    custom_rule_sets: [
      { id: 'house', rules: [{ verdict: 'deny', targets: ['secrets/**'] }, { verdict: 'allow' }] },
    ],
  });
  installAirlockHooks(sandbox, airlock, { waitMs });
  return airlock;
}
