import { type Problem, textIsWellFormed } from '@airlock/core';

/**
 * Codes of the kernel's check on policy texts, which runs on a profile, an
 * overlay document or a run before core's validator does (the server's
 * `api/policy-text.ts`): it refuses the whole declaration with 422
 * invalid_configuration when one applies.
 */
export const POLICY_TEXT_CODES = ['not_unicode', 'holds_nul'] as const;

/** One of {@link POLICY_TEXT_CODES}. */
export type PolicyTextCode = (typeof POLICY_TEXT_CODES)[number];

/** A problem the kernel refuses a declaration for: core's validator's, or the policy-text check's. */
export interface DeclarationProblem extends Omit<Problem, 'code'> {
  readonly code: Problem['code'] | PolicyTextCode;
}

/**
 * Keys whose texts a person reads as written (a rule's `reason`, a
 * contract's `constraints`): the kernel refuses NUL in them, since it could
 * only be shown as U+FFFD. A pattern may still hold NUL, as a call's input may.
 */
const READ_TEXT_KEYS: ReadonlySet<string> = new Set(['reason', 'constraints']);

function pointerToken(key: string): string {
  return key.replaceAll('~', '~0').replaceAll('/', '~1');
}

/**
 * What the kernel's policy-text check refuses under `value` (pointers start
 * at `pointer`): every string or object key holding a lone surrogate (it has
 * no UTF-8 form: stored, it would read as other text than the one declared),
 * and every text a person reads (`reason`, `constraints` and their list
 * items) holding NUL. A rule file carries such a text only through a JSON
 * escape (`"\ud800"`, `"\u0000"`): raw bytes that are not UTF-8 are refused
 * when the file is read. Never throws.
 */
export function policyTextProblems(value: unknown, pointer = ''): DeclarationProblem[] {
  const problems: DeclarationProblem[] = [];
  const visit = (node: unknown, at: string, read: boolean): void => {
    if (typeof node === 'string') {
      if (!textIsWellFormed(node)) {
        problems.push({
          code: 'not_unicode',
          pointer: at,
          message:
            'the text holds a lone UTF-16 surrogate, which has no UTF-8 form: the kernel refuses the declaration',
        });
      } else if (read && node.includes('\u0000')) {
        problems.push({
          code: 'holds_nul',
          pointer: at,
          message:
            'a text a person reads holds NUL (U+0000), which would be shown as U+FFFD: the kernel refuses the declaration',
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
          message:
            'the key holds a lone UTF-16 surrogate, which has no UTF-8 form: the kernel refuses the declaration',
        });
      }
      // A list's items are read as the key that holds the list is (a contract's constraints).
      visit(item, here, list ? read : READ_TEXT_KEYS.has(key));
    }
  };
  visit(value, pointer, false);
  return problems;
}
