/** Input fields that hold a shell command line (an argv array runs no shell: not these). */
export const SHELL_FIELD = /^(command|cmd|script)$/i;

/**
 * The ways a shell runs a second command on a granted command's line, each
 * with a second command no rule is likely to name (a rule that catches
 * `rm -rf` still lets `ls x; touch x` through).
 */
export const CHAINS = [
  { after: '; touch x', by: '`;`' },
  { after: ' && touch x', by: '`&&`' },
  { after: ' | touch x', by: '`|`' },
  { after: '\ntouch x', by: 'a line break' },
  { after: ' $(touch x)', by: '`$(…)`' },
  { after: ' `touch x`', by: 'backticks' },
  { after: ' <(touch x)', by: '`<(…)`' },
  { after: ' > ~/.bashrc', by: '`>`' },
] as const;

/** One way of chaining a second command, as CHAINS lists them. */
export type ShellChain = (typeof CHAINS)[number];

/** True for a glob that grants every line on purpose (only stars): there is no first command to ride on. */
export function grantsEveryLine(match: string): boolean {
  return match.replaceAll('*', '') === '';
}

/** The text a glob matches with its last `*` standing for an argument and `after`; null without a `*`. */
export function chainedText(match: string, after: string): string | null {
  const star = match.lastIndexOf('*');
  if (star < 0) return null;
  const plain = (part: string) => part.replaceAll('*', '').replaceAll('?', 'x');
  const head = plain(match.slice(0, star));
  // `ls*` stands for `ls x; …`, `ls *` for `ls x; …`: an argument, then the second command.
  const argument = head === '' || /\s$/.test(head) ? 'x' : ' x';
  return `${head}${argument}${after}${plain(match.slice(star + 1))}`;
}

/** The lint message's advice, shared by approval rules and permission rules. */
export const CHAINS_ADVICE =
  'Add ask rules for them (`*;*`, `*&*`, `*|*`, `*$(*`, …), or grant exact commands.';
