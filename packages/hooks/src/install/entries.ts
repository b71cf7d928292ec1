import type { HookedAgent } from '@airlock/core';
import {
  DEFAULT_WAIT_MS,
  HOOK_TIMEOUT_SECONDS,
  SHORT_HOOK_TIMEOUT_SECONDS,
} from '../client/wait-limits.js';
import { airlockCommandOf, EXIT_BLOCKS } from './command-shape.js';

/** What one agent event runs. */
export interface HookEntry {
  /** The agent's event name. */
  event: string;
  /** Whether it takes a tool matcher (tool events). */
  tools: boolean;
  /** Whether a failure of the hook must block (the pre-tool event, where the agent has the setting). */
  blockOnFailure: boolean;
  /**
   * The pre-tool event of an agent without such a setting (Codex, Gemini CLI): the command ends
   * `|| exit 2`, so a hook whose program is gone (exit 127) still refuses the call.
   */
  exitBlocksOnFailure?: boolean;
  timeoutSeconds: number;
  /**
   * Whether the agent may run the command hook in the background, not
   * waiting for it (Claude Code's `async`): the report of what ran, which
   * cannot change the call. The kernel's `Stop` waits a moment for reports
   * still on their way.
   */
  background?: boolean;
  /**
   * Whether this is the event that ends the agent's turn (`Stop`, Gemini's
   * `AfterAgent`). Its entry always runs the Node.js client, whichever client
   * the tool events use: only that client reads the agent's transcript for
   * the calls no hook saw, and it starts once a turn, not once a call.
   */
  turnEnd?: boolean;
}

const short = SHORT_HOOK_TIMEOUT_SECONDS;

/** The entries `install` writes for each agent, one per event it answers. */
export const HOOK_ENTRIES: Readonly<Record<HookedAgent, readonly HookEntry[]>> = {
  'claude-code': [
    { event: 'SessionStart', tools: false, blockOnFailure: false, timeoutSeconds: short },
    {
      event: 'UserPromptSubmit',
      tools: false,
      blockOnFailure: false,
      timeoutSeconds: HOOK_TIMEOUT_SECONDS,
    },
    {
      event: 'PreToolUse',
      tools: true,
      blockOnFailure: true,
      timeoutSeconds: HOOK_TIMEOUT_SECONDS,
    },
    {
      event: 'PostToolUse',
      tools: true,
      blockOnFailure: false,
      timeoutSeconds: short,
      background: true,
    },
    {
      event: 'PostToolUseFailure',
      tools: true,
      blockOnFailure: false,
      timeoutSeconds: short,
      background: true,
    },
    {
      event: 'Stop',
      tools: false,
      blockOnFailure: false,
      timeoutSeconds: HOOK_TIMEOUT_SECONDS,
      turnEnd: true,
    },
    {
      event: 'PreCompact',
      tools: false,
      blockOnFailure: false,
      timeoutSeconds: HOOK_TIMEOUT_SECONDS,
    },
  ],
  codex: [
    { event: 'SessionStart', tools: false, blockOnFailure: false, timeoutSeconds: short },
    {
      event: 'UserPromptSubmit',
      tools: false,
      blockOnFailure: false,
      timeoutSeconds: HOOK_TIMEOUT_SECONDS,
    },
    {
      event: 'PreToolUse',
      tools: true,
      blockOnFailure: false,
      exitBlocksOnFailure: true,
      timeoutSeconds: HOOK_TIMEOUT_SECONDS,
    },
    { event: 'PostToolUse', tools: true, blockOnFailure: false, timeoutSeconds: short },
    {
      event: 'Stop',
      tools: false,
      blockOnFailure: false,
      timeoutSeconds: HOOK_TIMEOUT_SECONDS,
      turnEnd: true,
    },
  ],
  gemini: [
    { event: 'SessionStart', tools: false, blockOnFailure: false, timeoutSeconds: short },
    {
      event: 'BeforeAgent',
      tools: false,
      blockOnFailure: false,
      timeoutSeconds: HOOK_TIMEOUT_SECONDS,
    },
    {
      event: 'BeforeTool',
      tools: true,
      blockOnFailure: false,
      exitBlocksOnFailure: true,
      timeoutSeconds: HOOK_TIMEOUT_SECONDS,
    },
    { event: 'AfterTool', tools: true, blockOnFailure: false, timeoutSeconds: short },
    {
      event: 'AfterAgent',
      tools: false,
      blockOnFailure: false,
      timeoutSeconds: HOOK_TIMEOUT_SECONDS,
      turnEnd: true,
    },
    // No PreCompress: Gemini CLI 0.61 fires it before every model request, before it checks
    // whether the history is long enough to compress, so the entry would start one more hook
    // process per tool call and run the profile's `pre_compact` hook on turns that compact
    // nothing. The kernel still maps a PreCompress entry added by hand.
  ],
};

/** The commands Airlock's entries run: one for every event, and the Node.js client for the turn's end. */
export interface HookCommands {
  /** What each event's entry runs (the client `install --client` chose). */
  each: string;
  /** What the entry of the event that ends the turn runs (see {@link HookEntry.turnEnd}). */
  turnEnd: string;
}

/** The command an entry runs. */
export function commandOf(entry: HookEntry, commands: HookCommands): string {
  const command = entry.turnEnd ? commands.turnEnd : commands.each;
  return entry.exitBlocksOnFailure ? `${command}${EXIT_BLOCKS}` : command;
}

/** True when a hook command is one Airlock wrote (its exact shape, see `airlockCommandOf`). */
export function isAirlockCommand(command: unknown): boolean {
  return airlockCommandOf(command) !== null;
}

/**
 * The kernel path that answers an agent's hook events in its own shape, with
 * its options segment: `default`, or `wait-N` and `-defer` when asked.
 */
export function nativeHookPath(
  agent: HookedAgent,
  options: { waitMs?: number | undefined; defer?: boolean | undefined },
): string {
  const segment =
    options.waitMs === undefined && !options.defer
      ? 'default'
      : `wait-${options.waitMs ?? DEFAULT_WAIT_MS}${options.defer ? '-defer' : ''}`;
  return `/agent_api/v1/hooks/${agent}/${segment}`;
}

/** The path of an HTTP hook `install` writes (see {@link nativeHookPath}). */
const CLAUDE_HTTP_HOOK = /^\/agent_api\/v1\/hooks\/claude-code\/(?:default|wait-\d+(?:-defer)?)$/;

function isAirlockHookUrl(url: unknown): boolean {
  if (typeof url !== 'string') return false;
  try {
    return CLAUDE_HTTP_HOOK.test(new URL(url).pathname);
  } catch {
    return false;
  }
}

/**
 * True when a hook entry is one Airlock wrote: a command in the shape
 * `install` writes, or an HTTP hook on the kernel's Claude Code endpoint.
 */
export function isAirlockEntry(hook: unknown): boolean {
  if (typeof hook !== 'object' || hook === null) return false;
  const { type, command, url } = hook as { type?: unknown; command?: unknown; url?: unknown };
  return type === 'http' ? isAirlockHookUrl(url) : isAirlockCommand(command);
}
