import type { ApprovalRule, HookedAgent } from '@airlock/core';
import { SHELL_TOOL, TOOL_MANIFESTS } from './tool-manifests.js';

const READ_ONLY: Readonly<Record<HookedAgent, string>> = {
  'claude-code': 'Read|Glob|Grep|TodoWrite',
  codex: '',
  gemini: 'read_file|read_many_files|list_directory|glob|search_file_content',
};

/**
 * Shell commands that only read, granted by default. Each names its command
 * word whole (`git diff *`, never `git diff*`, which also grants `git difftool
 * -x CMD`); what may follow it is cut down by {@link SHELL_SYNTAX}.
 */
const SAFE_COMMANDS = [
  'ls',
  'ls *',
  'pwd',
  'cat *',
  'git status',
  'git status *',
  'git diff',
  'git diff *',
  'git log',
  'git log *',
  'echo',
  'echo *',
];

/**
 * What turns one read-only command into more than a read, anywhere in the
 * text: another command after `;`, `&`, `|` or a line break, a command
 * substitution (`$(…)`, backticks), a redirection or process substitution
 * (`>`, `<`), and git's `--output=FILE`. A rule's glob reads the whole
 * command line, so `cat *` alone would grant `cat x; rm -rf ~`; these asks
 * win over every allow (ask beats allow), so such a line waits for a person
 * instead (a refusal still wins over them).
 */
const SHELL_SYNTAX = ['*;*', '*&*', '*|*', '*\n*', '*$(*', '*`*', '*>*', '*<*', 'git *--output*'];

/** Shell commands refused outright, with the reason the model reads (anywhere in the line). */
const REFUSED: readonly { match: string; reason: string }[] = [
  { match: '*rm -rf /*', reason: 'removing from the filesystem root is never allowed' },
  { match: '*rm -rf ~*', reason: 'removing the home folder is never allowed' },
  { match: '*| sh*', reason: 'piping downloaded text into a shell is never allowed' },
  { match: '*| bash*', reason: 'piping downloaded text into a shell is never allowed' },
  { match: '*git push*--force*', reason: 'force pushes are refused; push without --force' },
];

/**
 * A profile configuration a team starts from for one agent (PUT
 * /agent_api/v1/profile/configuration): mode `ask` (what no rule grants
 * waits for a person: deletes, pushes, publishes, downloads and the
 * unknown), reads and read-only shell commands granted (one command alone:
 * a line that chains, substitutes or redirects waits for a person),
 * destructive shell patterns refused with a reason anywhere in the line, and
 * the agent's tool manifest. `rules-lint check` finds nothing in it.
 */
export function defaultProfile(agent: HookedAgent): {
  approval_mode: 'ask';
  approval_rules: ApprovalRule[];
  tool_manifest: (typeof TOOL_MANIFESTS)[HookedAgent];
} {
  const shell = SHELL_TOOL[agent];
  const rules: ApprovalRule[] = [
    ...REFUSED.map(({ match, reason }) => ({
      tool: shell,
      path: 'command',
      match,
      verdict: 'deny' as const,
      reason,
    })),
    ...SHELL_SYNTAX.map((match) => ({
      tool: shell,
      path: 'command',
      match,
      verdict: 'ask' as const,
    })),
    ...SAFE_COMMANDS.map((match) => ({
      tool: shell,
      path: 'command',
      match,
      verdict: 'allow' as const,
    })),
  ];
  if (READ_ONLY[agent]) rules.push({ tool: READ_ONLY[agent], verdict: 'allow' });
  return { approval_mode: 'ask', approval_rules: rules, tool_manifest: TOOL_MANIFESTS[agent] };
}
