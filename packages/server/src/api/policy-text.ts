import { type ProblemDetail, textIsWellFormed } from '@airlock/core';
import { AirlockError } from '../errors.js';

function escapePointer(key: string): string {
  return key.replaceAll('~', '~0').replaceAll('/', '~1');
}

/**
 * Every string (and object key) under `value` that holds a lone surrogate:
 * stored, it would silently become U+FFFD, so a person would read other text
 * than the one declared.
 */
export function loneSurrogateProblems(value: unknown, pointer = ''): ProblemDetail[] {
  const problems: ProblemDetail[] = [];
  const walk = (node: unknown, at: string) => {
    if (typeof node === 'string') {
      if (!textIsWellFormed(node)) {
        problems.push({
          code: 'not_unicode',
          pointer: at,
          message: 'the text holds a lone surrogate (no Unicode text); send it as UTF-8 text',
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
      walk(item, next);
    }
  };
  walk(value, pointer);
  return problems;
}

/**
 * Refuses a declaration whose policy texts (rule reasons, contract
 * constraints, overlay reasons, every key and value of the policy) are not
 * Unicode text. `skip` names top-level keys that carry no policy (a create
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
    problems.push(...loneSurrogateProblems(value, `/${escapePointer(key)}`));
  }
  if (problems.length > 0) {
    throw new AirlockError(
      'invalid_configuration',
      `${problems.length} policy text(s) are not Unicode text; nothing was changed`,
      problems,
    );
  }
}
