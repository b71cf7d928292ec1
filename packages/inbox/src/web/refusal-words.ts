/**
 * A kernel's refusal in a person's words: what the stable code means for
 * them, then the kernel's own detail. Pure, unit-tested in Node.
 */

const WORDS: Record<string, string> = {
  edit_refused: 'Your edit was refused and nothing changed: the call still waits as it was',
  approval_refused:
    "The workspace's policy now refuses this call, so it cannot be approved; nothing changed, and it waits for a deny or its deadline",
  approver_not_allowed: "The workspace's approval policy does not let you decide this call",
  self_approval_refused:
    "You asked for this call (you started its run or appended it), and the workspace's approval policy does not let you approve it",
  version_mismatch: 'This call changed since you read it: read it again before you decide',
  task_not_waiting: 'This call no longer waits for a decision',
  remember_unavailable: 'This approval cannot be remembered',
  admin_required:
    'Only an admin may do this: your member credential is an approver, and nothing changed',
  invalid_input: 'The kernel refused what was sent',
};

/** What a failed verb says on its card: the code in words and the kernel's detail. */
export function refusalWords(error: unknown): string {
  const { code, detail } = (error ?? {}) as { code?: unknown; detail?: unknown };
  const text =
    typeof detail === 'string' ? detail : error instanceof Error ? error.message : String(error);
  const words = typeof code === 'string' ? WORDS[code] : undefined;
  return words ? `${words} (${code}). ${text}` : text;
}
