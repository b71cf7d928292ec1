import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AgentName } from './agent-binaries.js';
import { type AgentSandbox, writeCodexConfig } from './agent-sandbox.js';

/** A command hook on the agent's pre-tool event, written straight into the agent's user settings. */
export interface NativeHook {
  command: string;
  /** In seconds (converted to milliseconds for Gemini CLI). */
  timeoutSeconds?: number;
  /** Extra fields on the hook entry (Claude Code's `onFailure`). */
  extra?: Record<string, unknown>;
}

/** The agent's name for its pre-tool event and its shell tool. */
export const preToolEvent: Record<AgentName, { event: string; shellTool: string }> = {
  'claude-code': { event: 'PreToolUse', shellTool: 'Bash' },
  codex: { event: 'PreToolUse', shellTool: 'Bash' },
  gemini: { event: 'BeforeTool', shellTool: 'run_shell_command' },
};

function readJson(path: string): Record<string, unknown> {
  return existsSync(path)
    ? (JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>)
    : {};
}

/**
 * Installs a pre-tool command hook matching every tool, in the agent's own user-level config:
 * `~/.claude/settings.json`, `$CODEX_HOME/config.toml`, `~/.gemini/settings.json`.
 */
export function installNativeHook(sandbox: AgentSandbox, hook: NativeHook): void {
  installNativeHooks(sandbox, { [preToolEvent[sandbox.agent].event]: hook });
}

/** Installs command hooks on several events (the agent's own event names), replacing any there. */
export function installNativeHooks(sandbox: AgentSandbox, hooks: Record<string, NativeHook>): void {
  if (sandbox.agent === 'codex') {
    const toml = Object.entries(hooks).map(([event, hook]) => {
      const lines = [
        `\n[[hooks.${event}]]`,
        `[[hooks.${event}.hooks]]`,
        'type = "command"',
        `command = ${JSON.stringify(hook.command)}`,
      ];
      if (hook.timeoutSeconds !== undefined) lines.push(`timeout = ${hook.timeoutSeconds}`);
      return lines.join('\n');
    });
    writeCodexConfig(sandbox, `${toml.join('\n')}\n`);
    return;
  }
  const folder = join(sandbox.home, sandbox.agent === 'gemini' ? '.gemini' : '.claude');
  mkdirSync(folder, { recursive: true });
  const path = join(folder, 'settings.json');
  const settings = readJson(path);
  const entries: Record<string, unknown> = {};
  for (const [event, hook] of Object.entries(hooks)) {
    const timeout =
      hook.timeoutSeconds === undefined
        ? {}
        : {
            timeout: sandbox.agent === 'gemini' ? hook.timeoutSeconds * 1000 : hook.timeoutSeconds,
          };
    const entry = { type: 'command', command: hook.command, ...timeout, ...hook.extra };
    entries[event] = [{ matcher: '.*', hooks: [entry] }];
  }
  settings.hooks = entries;
  writeFileSync(path, JSON.stringify(settings, null, 2));
}

/** Writes an executable shell script into the sandbox's home and returns its path. */
export function writeHookScript(sandbox: AgentSandbox, name: string, body: string): string {
  const path = join(sandbox.home, `${name}.sh`);
  writeFileSync(path, `#!/bin/sh\n${body}\n`);
  chmodSync(path, 0o755);
  return path;
}

/** The JSON an agent reads as "deny, with this reason for the model" from a pre-tool command hook. */
export function denyOutput(agent: AgentName, reason: string): string {
  if (agent === 'gemini') return JSON.stringify({ decision: 'deny', reason });
  return JSON.stringify({
    hookSpecificOutput: {
      hookEventName: 'PreToolUse',
      permissionDecision: 'deny',
      permissionDecisionReason: reason,
    },
  });
}

/** The JSON an agent reads as "allow" from a pre-tool command hook. */
export function allowOutput(agent: AgentName): string {
  if (agent === 'gemini') return JSON.stringify({ decision: 'allow' });
  return JSON.stringify({
    hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'allow' },
  });
}
