import { type ProblemDetail, pointerToken, policyTextProblems } from '@airlock/core';
import { AirlockError } from '../errors.js';

/**
 * Refuses a declaration whose policy texts (rule reasons, contract
 * constraints, overlay reasons, every key and value of the policy) are not
 * Unicode text, or whose texts a person reads (reasons, constraints) hold NUL (core's
 * `policyTextProblems`, which the linter runs too). `skip` names top-level keys that carry no policy (a create
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
    problems.push(...policyTextProblems(value, `/${pointerToken(key)}`));
  }
  if (problems.length > 0) {
    throw new AirlockError(
      'invalid_configuration',
      `${problems.length} policy text(s) are not Unicode text or hold NUL; nothing was changed`,
      problems,
    );
  }
}
