import type { HookedAgent } from '@airlock/core';
import { BLOCK_BEGIN, codexConfigProblem } from './codex-toml.js';
import { commandProblem } from './doctor-commands.js';
import type { DoctorCheck } from './doctor-types.js';
import { HOOK_ENTRIES, type HookEntry, isAirlockEntry } from './entries.js';
import { readTextFile } from './file-writes.js';
import { withoutJsonComments } from './json-comments.js';
import { hooksShapeProblem, isJsonObject } from './json-settings.js';
import { type InstallEnv, type InstallScope, settingsPath } from './targets.js';

type Json = Record<string, unknown>;

/** The matchers that send every tool to the hook (Gemini CLI's are regular expressions). */
const EVERY_TOOL: Readonly<Record<HookedAgent, readonly unknown[]>> = {
  'claude-code': [undefined, '', '*'],
  codex: [undefined, '', '*'],
  gemini: [undefined, '', '*', '.*'],
};

/** Airlock's entries of one event, each with the group (and so the matcher) it sits in. */
function airlockHooks(groups: unknown[]): { hook: Json; group: Json }[] {
  return groups
    .filter(isJsonObject)
    .flatMap((group) =>
      (Array.isArray(group.hooks) ? group.hooks : [])
        .filter((hook): hook is Json => isJsonObject(hook) && isAirlockEntry(hook))
        .map((hook) => ({ hook, group })),
    );
}

function entryCheck(
  agent: HookedAgent,
  entry: HookEntry,
  groups: unknown[],
): Omit<DoctorCheck, 'check'> {
  const fix = `airlock hooks install ${agent}`;
  const [ours] = airlockHooks(groups);
  if (ours === undefined) return { status: 'fail', detail: 'not registered', fix };
  const { hook, group } = ours;
  if (entry.tools && !EVERY_TOOL[agent].includes(group.matcher)) {
    return {
      status: 'fail',
      detail: `registered with the matcher ${JSON.stringify(group.matcher)}: the agent's other tools never reach Airlock`,
      fix,
    };
  }
  if (entry.blockOnFailure && hook.onFailure !== 'block') {
    return {
      status: 'fail',
      detail: 'registered without "onFailure": "block": a failed hook lets the call through',
      fix,
    };
  }
  const expected = entry.timeoutSeconds * (agent === 'gemini' ? 1000 : 1);
  if (typeof hook.timeout === 'number' && hook.timeout < expected) {
    return {
      status: 'fail',
      detail: `registered with a timeout of ${hook.timeout}${agent === 'gemini' ? ' ms' : ' s'} (install writes ${expected}): the agent may give up on the hook before it answers`,
      fix,
    };
  }
  const problem = hook.type === 'http' ? null : commandProblem(hook.command);
  if (problem) return { status: 'fail', detail: problem, fix };
  if (entry.background && hook.type === 'command' && hook.async !== true) {
    return {
      status: 'warn',
      detail: 'registered without "async": true: the agent waits for the report of every call',
      fix,
    };
  }
  return { status: 'ok', detail: 'registered' };
}

function jsonChecks(
  agent: Exclude<HookedAgent, 'codex'>,
  path: string,
  text: string,
): DoctorCheck[] {
  const name = `${agent} hooks`;
  let settings: unknown;
  try {
    // Gemini CLI reads its settings with comments stripped.
    settings = JSON.parse(agent === 'gemini' ? withoutJsonComments(text) : text);
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
  const checks: DoctorCheck[] = [];
  if (agent === 'claude-code' && settings.disableAllHooks === true) {
    checks.push({
      check: name,
      status: 'fail',
      detail: `${path} sets "disableAllHooks": true: Claude Code runs no hook, so no call reaches Airlock`,
      fix: `remove "disableAllHooks" from ${path}`,
    });
  }
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

/** The commands of Airlock's block (TOML basic strings, as install writes them). */
function blockCommands(text: string): unknown[] {
  const block = text.slice(text.indexOf(BLOCK_BEGIN));
  return [...block.matchAll(/^command = ("(?:[^"\\]|\\.)*")$/gm)].map((match) => {
    try {
      return JSON.parse(match[1] as string) as unknown;
    } catch {
      return null;
    }
  });
}

function codexChecks(path: string, text: string): DoctorCheck[] {
  const name = 'codex hooks';
  const problem = codexConfigProblem(text);
  const commandProblems = problem ? [] : blockCommands(text).map(commandProblem);
  const broken = commandProblems.find((found) => found !== null);
  const check: DoctorCheck = problem
    ? {
        check: name,
        status: 'fail',
        detail: `${path}: ${problem}`,
        fix: 'fix config.toml, then airlock hooks install codex',
      }
    : !text.includes(BLOCK_BEGIN)
      ? {
          check: name,
          status: 'fail',
          detail: `${path} has no Airlock hooks`,
          fix: 'airlock hooks install codex',
        }
      : broken
        ? { check: name, status: 'fail', detail: broken, fix: 'airlock hooks install codex' }
        : { check: name, status: 'ok', detail: `${path} holds Airlock's hooks` };
  return [
    check,
    {
      check: 'codex hook trust',
      status: 'warn',
      detail: 'Codex skips hooks it has not been told to trust, silently',
      fix: 'trust them once in Codex, or run codex with --dangerously-bypass-hook-trust in automation',
    },
  ];
}

/**
 * Checks one agent's hook settings: the file readable in the agent's format,
 * every event registered with Airlock's entry, covering every tool, with its
 * fail-closed settings and timeout, and a program and script that exist.
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
  return agent === 'codex' ? codexChecks(path, text) : jsonChecks(agent, path, text);
}
