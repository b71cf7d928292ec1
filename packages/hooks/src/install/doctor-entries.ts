import type { HookedAgent } from '@airlock/core';
import { SHORT_HOOK_TIMEOUT_SECONDS } from '../client/wait-limits.js';
import { airlockCommandOf, EXIT_BLOCKS } from './command-shape.js';
import { commandProblem, lacksShortLimit } from './doctor-commands.js';
import type { DoctorCheck } from './doctor-types.js';
import { type HookEntry, isAirlockEntry } from './entries.js';
import { isJsonObject } from './json-settings.js';

type Json = Record<string, unknown>;

/** The matchers that send every tool to the hook (Gemini CLI's are regular expressions). */
const EVERY_TOOL: Readonly<Record<HookedAgent, readonly unknown[]>> = {
  'claude-code': [undefined, '', '*'],
  codex: [undefined, '', '*'],
  gemini: [undefined, '', '*', '.*'],
};

/** The timeout an agent gives an entry that states none, where it is known: Gemini CLI 0.61's 60 s. */
const DEFAULT_TIMEOUT: Readonly<Record<HookedAgent, number | undefined>> = {
  'claude-code': undefined,
  codex: undefined,
  gemini: 60_000,
};

/** Airlock's entries of one event, each with the group (and so the matcher) it sits in. */
export function airlockHooks(groups: unknown[]): { hook: Json; group: Json }[] {
  return groups
    .filter(isJsonObject)
    .flatMap((group) =>
      (Array.isArray(group.hooks) ? group.hooks : [])
        .filter((hook): hook is Json => isJsonObject(hook) && isAirlockEntry(hook))
        .map((hook) => ({ hook, group })),
    );
}

/**
 * Checks one event's entry as the agent reads it (`groups`: the JSON agents'
 * hook groups, or Codex's block read into the same shape): registered,
 * covering every tool, failing closed where it must, with a timeout the
 * client answers within, and a command that starts.
 */
export function entryCheck(
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
  if (hook.type !== 'command' && hook.type !== 'http') {
    return {
      status: 'fail',
      detail: `registered with "type": ${JSON.stringify(hook.type)}, where install writes "command": the agent skips the entry and runs every call without asking Airlock`,
      fix,
    };
  }
  const unit = agent === 'gemini' ? ' ms' : ' s';
  if (hook.timeout !== undefined && !Number.isFinite(hook.timeout)) {
    return {
      status: 'fail',
      detail: `registered with a timeout of ${JSON.stringify(hook.timeout)}, not a number: Claude Code skips such an entry and runs every call, Codex does not start`,
      fix,
    };
  }
  const expected = entry.timeoutSeconds * (agent === 'gemini' ? 1000 : 1);
  const timeout = hook.timeout ?? DEFAULT_TIMEOUT[agent];
  if (typeof timeout === 'number' && timeout < expected) {
    const given =
      hook.timeout === undefined
        ? `no timeout, so the agent's own default of ${timeout}${unit}`
        : `a timeout of ${timeout}${unit}`;
    return {
      status: 'fail',
      detail: `registered with ${given} (install writes ${expected}): the agent may give up on the hook before it answers`,
      fix,
    };
  }
  if (!entry.background && hook.async === true) {
    return {
      status: 'fail',
      detail:
        'registered with "async": true: the agent runs it in the background and does not wait for its answer, so the call goes ahead whatever Airlock decides',
      fix,
    };
  }
  const answers = hook.type === 'http' ? agent : airlockCommandOf(hook.command)?.agent;
  if (answers !== undefined && answers !== agent) {
    return {
      status: 'fail',
      detail: `registered with a command that answers ${answers}'s hook events, not ${agent}'s (an entry copied from its settings): ${agent}'s calls are not decided as its own`,
      fix,
    };
  }
  const problem = hook.type === 'http' ? null : commandProblem(hook.command);
  if (problem) return { status: 'fail', detail: problem, fix };
  if (
    entry.exitBlocksOnFailure &&
    typeof hook.command === 'string' &&
    !hook.command.endsWith(EXIT_BLOCKS)
  ) {
    return {
      status: 'fail',
      detail: `registered without its ending "${EXIT_BLOCKS.trim()}": if the program it starts goes away (a Node.js upgrade), the hook exits 127 and the agent runs the call`,
      fix,
    };
  }
  if (entry.background && hook.type === 'command' && hook.async !== true) {
    return {
      status: 'warn',
      detail: 'registered without "async": true: the agent waits for the report of every call',
      fix,
    };
  }
  if (entry.timeoutSeconds === SHORT_HOOK_TIMEOUT_SECONDS && lacksShortLimit(hook.command)) {
    return {
      status: 'warn',
      detail: `registered with a shell client whose configuration has no short-max-time (an earlier install): a kernel that does not answer holds this event past the ${SHORT_HOOK_TIMEOUT_SECONDS} s the agent gives it`,
      fix,
    };
  }
  return { status: 'ok', detail: 'registered' };
}
