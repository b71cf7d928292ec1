import { mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { createClient, type Workspace } from '@airlock/sdk';
import { startTestKernel, type TestKernel } from '../support/kernel.js';
import type { AgentName } from './agent-binaries.js';
import type { AgentSandbox } from './agent-sandbox.js';
import { installNativeHooks, type NativeHook } from './native-hooks.js';

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

/** The hook client's entry (packages/hooks' built `airlock-hook`). */
export function hookClientPath(): string {
  // The package's main file is src/index.ts or dist/index.js by export condition; the built bin is in dist.
  const entry = createRequire(import.meta.url).resolve('@airlock/hooks');
  return join(dirname(dirname(entry)), 'dist', 'bin', 'airlock-hook.js');
}

/** The events Airlock's hook client answers, in each agent's own names. */
const hookedEvents: Record<AgentName, string[]> = {
  'claude-code': ['SessionStart', 'UserPromptSubmit', 'PreToolUse', 'PostToolUse', 'Stop'],
  codex: ['SessionStart', 'UserPromptSubmit', 'PreToolUse', 'PostToolUse', 'Stop'],
  gemini: ['SessionStart', 'BeforeAgent', 'BeforeTool', 'AfterTool', 'AfterAgent'],
};

/** Options of {@link installAirlockHooks}. */
export interface AirlockHookOptions {
  /** How long a parked call waits inside one hook before it is refused with the waiting reason. */
  waitMs?: number;
}

/**
 * Puts Airlock's hook client in front of the sandbox's agent: the kernel's URL and agent
 * credential in `~/.airlock/hooks.json`, and a command hook per event in the agent's settings.
 */
export function installAirlockHooks(
  sandbox: AgentSandbox,
  airlock: AirlockKernel,
  options: AirlockHookOptions = {},
): void {
  mkdirSync(join(sandbox.home, '.airlock'), { recursive: true });
  writeFileSync(
    join(sandbox.home, '.airlock', 'hooks.json'),
    JSON.stringify({ url: airlock.kernel.url, token: airlock.kernel.workspace.tokens.agent }),
    { mode: 0o600 },
  );
  const wait = options.waitMs === undefined ? '' : ` --wait-ms ${options.waitMs}`;
  const hook: NativeHook = {
    command: `${process.execPath} ${hookClientPath()} ${sandbox.agent}${wait}`,
    timeoutSeconds: 120,
    ...(sandbox.agent === 'claude-code' ? { extra: { onFailure: 'block' } } : {}),
  };
  installNativeHooks(
    sandbox,
    Object.fromEntries(hookedEvents[sandbox.agent].map((event) => [event, hook])),
  );
}
