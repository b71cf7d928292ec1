import type { PolicyTextCode, Problem } from '@airlock/core';
import type { RequestGuardCode } from './request-guard.js';

/** The kernel's check on policy texts lives in core, so the linter and the kernel run one copy. */
export { POLICY_TEXT_CODES, type PolicyTextCode, policyTextProblems } from '@airlock/core';

/**
 * A problem the kernel refuses a declaration for: core's validator's, the policy-text
 * check's, or its request guard's.
 */
export interface DeclarationProblem extends Omit<Problem, 'code'> {
  readonly code: Problem['code'] | PolicyTextCode | RequestGuardCode;
}
