import { textIsWellFormed } from '../glob/well-formed.js';

/**
 * Codes of the check on a declaration's policy texts, which the kernel runs
 * on a profile, an overlay document or a run before core's validator, and
 * refuses the whole declaration for (422 invalid_configuration); the linter
 * runs the same check so the two never disagree.
 */
export const POLICY_TEXT_CODES = ['not_unicode', 'holds_nul'] as const;

/** One of {@link POLICY_TEXT_CODES}. */
export type PolicyTextCode = (typeof POLICY_TEXT_CODES)[number];

/** One text the check refuses: its code, its JSON pointer and what is wrong, in words. */
export interface PolicyTextProblem {
  code: PolicyTextCode;
  pointer: string;
  message: string;
}

/**
 * The keys whose texts a person reads as written (a rule's or guardrail's
 * `reason`, a contract's `constraints`): unlike a pattern, which may match a
 * NUL a call holds, a NUL in them could only be shown as U+FFFD.
 */
const READ_TEXT_KEYS: ReadonlySet<string> = new Set(['reason', 'constraints']);

/** A key as a JSON pointer token (RFC 6901). */
export function pointerToken(key: string): string {
  return key.replaceAll('~', '~0').replaceAll('/', '~1');
}

/**
 * What the policy-text check refuses under `value` (pointers start at
 * `pointer`): every string or object key holding a lone surrogate (it has no
 * UTF-8 form: stored, it would read as other text than the one declared),
 * and every text a person reads (`reason`, `constraints` and their list
 * items) holding NUL. Never throws.
 */
export function policyTextProblems(value: unknown, pointer = ''): PolicyTextProblem[] {
  const problems: PolicyTextProblem[] = [];
  const visit = (node: unknown, at: string, read: boolean): void => {
    if (typeof node === 'string') {
      if (!textIsWellFormed(node)) {
        problems.push({
          code: 'not_unicode',
          pointer: at,
          message: 'the text holds a lone surrogate (no Unicode text); send it as UTF-8 text',
        });
      } else if (read && node.includes('\u0000')) {
        problems.push({
          code: 'holds_nul',
          pointer: at,
          message:
            'the text holds NUL (U+0000), which would be shown as U+FFFD; send it without NUL',
        });
      }
      return;
    }
    if (node === null || typeof node !== 'object') return;
    const list = Array.isArray(node);
    const entries: [string, unknown][] = list
      ? node.map((item, index) => [String(index), item])
      : Object.entries(node);
    for (const [key, item] of entries) {
      const here = `${at}/${pointerToken(key)}`;
      if (!list && !textIsWellFormed(key)) {
        problems.push({
          code: 'not_unicode',
          pointer: here,
          message: 'the key holds a lone surrogate (no Unicode text)',
        });
      }
      // A list's items are read as the key that holds the list is (a contract's constraints).
      visit(item, here, list ? read : READ_TEXT_KEYS.has(key));
    }
  };
  visit(value, pointer, false);
  return problems;
}
