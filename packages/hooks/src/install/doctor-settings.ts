import type { HookedAgent } from '@airlock/core';
import { claudeHooksSwitchedOff } from './doctor-claude.js';
import { codexChecks } from './doctor-codex.js';
import { airlockHooks, entryCheck } from './doctor-entries.js';
import { geminiHooksSwitchedOff } from './doctor-gemini.js';
import type { DoctorCheck } from './doctor-types.js';
import { HOOK_ENTRIES } from './entries.js';
import { readTextFile } from './file-writes.js';
import { parseAsAgent } from './json-comments.js';
import { hooksShapeProblem, isJsonObject } from './json-settings.js';
import { type InstallEnv, type InstallScope, settingsPath } from './targets.js';

function jsonChecks(
  agent: Exclude<HookedAgent, 'codex'>,
  path: string,
  text: string,
  scope: InstallScope,
  env: InstallEnv,
): DoctorCheck[] {
  const name = `${agent} hooks`;
  let settings: unknown;
  try {
    settings = parseAsAgent(agent, text);
  } catch {
    return [
      {
        check: name,
        status: 'fail',
        detail: `${path} is not valid JSON: the agent cannot read its hooks`,
        fix: `fix the JSON, then airlock hooks install ${agent}`,
      },
    ];
  }
  const problem = isJsonObject(settings)
    ? hooksShapeProblem(settings)
    : 'the file is not a JSON object';
  if (problem || !isJsonObject(settings)) {
    return [
      {
        check: name,
        status: 'fail',
        detail: `${path}: ${problem}`,
        fix: `fix it, then airlock hooks install ${agent}`,
      },
    ];
  }
  const switchedOff = agent === 'gemini' ? geminiHooksSwitchedOff(scope, env, settings) : null;
  const checks: DoctorCheck[] = switchedOff ? [switchedOff] : [];
  const hooks = (settings.hooks ?? {}) as Record<string, unknown[]>;
  for (const entry of HOOK_ENTRIES[agent]) {
    checks.push({
      check: `${name} ${entry.event}`,
      ...entryCheck(agent, entry, hooks[entry.event] ?? []),
    });
  }
  // An event an earlier install registered and this one no longer does (Gemini CLI's PreCompress).
  const expected = new Set(HOOK_ENTRIES[agent].map((entry) => entry.event));
  for (const [event, groups] of Object.entries(hooks)) {
    if (expected.has(event) || airlockHooks(groups).length === 0) continue;
    checks.push({
      check: `${name} ${event}`,
      status: 'warn',
      detail: `registered by an earlier install; Airlock no longer hooks ${event} (see docs/agents.md)`,
      fix: `airlock hooks install ${agent}`,
    });
  }
  return checks;
}

/**
 * Checks one agent's hook settings: the file readable in the agent's format,
 * hooks not switched off (Claude Code's `disableAllHooks`, Gemini CLI's
 * `hooksConfig`), every event registered with Airlock's entry, covering every
 * tool, with its fail-closed settings and timeout, and a program and script
 * that exist.
 * Never throws: whatever it cannot read is a failed check saying what to fix.
 */
export function settingsChecks(
  agent: HookedAgent,
  scope: InstallScope,
  env: InstallEnv,
): DoctorCheck[] {
  const name = `${agent} hooks`;
  const path = settingsPath(agent, scope, env);
  let text: string | null;
  try {
    text = readTextFile(path);
  } catch (error) {
    return [
      {
        check: name,
        status: 'fail',
        detail: `${(error as Error).message}: the agent cannot read it either`,
        fix: `make ${path} a file you (and the agent) can read`,
      },
    ];
  }
  if (text === null) {
    return [
      {
        check: name,
        status: 'fail',
        detail: `${path} does not exist`,
        fix: `airlock hooks install ${agent}`,
      },
    ];
  }
  if (agent === 'codex') return codexChecks(path, text);
  const switchedOff = agent === 'claude-code' ? claudeHooksSwitchedOff(scope, env) : null;
  return [...(switchedOff ? [switchedOff] : []), ...jsonChecks(agent, path, text, scope, env)];
}
