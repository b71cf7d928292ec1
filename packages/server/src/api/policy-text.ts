import { type ProblemDetail, textIsWellFormed } from '@airlock/core';
import { AirlockError } from '../errors.js';

function escapePointer(key: string): string {
  return key.replaceAll('~', '~0').replaceAll('/', '~1');
}

/**
 * The keys whose texts a person reads as written (a rule's or guardrail's
 * `reason`, a contract's `constraints`): unlike a pattern, which may match a
 * NUL a call holds, a NUL in them could only be shown as U+FFFD.
 */
const READ_TEXT_KEYS: ReadonlySet<string> = new Set(['reason', 'constraints']);

/**
 * Every string (and object key) under `value` that holds a lone surrogate,
 * and every text a person reads (READ_TEXT_KEYS) that holds NUL: stored, it
 * would become U+FFFD, so a person would read other text than the one declared.
 */
export function unreadableTextProblems(value: unknown, pointer = ''): ProblemDetail[] {
  const problems: ProblemDetail[] = [];
  const walk = (node: unknown, at: string, read: boolean) => {
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
    const entries = Array.isArray(node)
      ? node.map((item, i) => [String(i), item] as const)
      : Object.entries(node);
    for (const [key, item] of entries) {
      const next = `${at}/${escapePointer(key)}`;
      if (!textIsWellFormed(key)) {
        problems.push({
          code: 'not_unicode',
          pointer: next,
          message: 'the key holds a lone surrogate (no Unicode text)',
        });
      }
      // An array's items are read as its key's texts are (a contract's list of constraints).
      walk(item, next, Array.isArray(node) ? read : READ_TEXT_KEYS.has(key));
    }
  };
  walk(value, pointer, false);
  return problems;
}

/**
 * Refuses a declaration whose policy texts (rule reasons, contract
 * constraints, overlay reasons, every key and value of the policy) are not
 * Unicode text, or whose texts a person reads (reasons, constraints) hold NUL. `skip` names top-level keys that carry no policy (a create
 * call's `input` and `provider`: what the model reads and says).
 * @throws AirlockError invalid_configuration (422) with a pointer per culprit.
 */
export function assertPolicyTextIsUnicode(
  input: Readonly<Record<string, unknown>>,
  skip: readonly string[] = [],
): void {
  const problems: ProblemDetail[] = [];
  for (const [key, value] of Object.entries(input)) {
    if (skip.includes(key)) continue;
    problems.push(...unreadableTextProblems(value, `/${escapePointer(key)}`));
  }
  if (problems.length > 0) {
    throw new AirlockError(
      'invalid_configuration',
      `${problems.length} policy text(s) are not Unicode text or hold NUL; nothing was changed`,
      problems,
    );
  }
}
