import { pointerFrom } from '@airlock/core';
import { AirlockError, MAX_LISTED_PROBLEMS, type ProblemDetail } from '../errors.js';

/** A validation issue as zod and Standard Schema report it. */
interface Issue {
  readonly code?: string;
  readonly message: string;
  readonly path?: readonly (PropertyKey | { readonly key: PropertyKey })[] | undefined;
}

function pointerOf(path: Issue['path']): string {
  const keys = (path ?? []).map((segment) =>
    String(typeof segment === 'object' && segment !== null ? segment.key : segment),
  );
  return pointerFrom(keys);
}

/** Turns validation issues into problems with JSON pointers. */
export function issueProblems(issues: readonly Issue[]): ProblemDetail[] {
  return issues.map((issue) => ({
    code: issue.code ?? 'invalid',
    pointer: pointerOf(issue.path),
    message: issue.message,
  }));
}

/**
 * The `invalid_input` error for a request whose input failed validation,
 * listing its first problems (AirlockError bounds the list and says how many).
 */
export function invalidInput(issues: readonly Issue[]): AirlockError {
  const problems = issueProblems(issues.slice(0, MAX_LISTED_PROBLEMS));
  const detail = problems.map((p) => `${p.pointer || '/'}: ${p.message}`).join('; ');
  return new AirlockError('invalid_input', detail, problems, issues.length);
}

/** The issues carried by a validator's error (zod's or Standard Schema's), if any. */
export function issuesOf(error: unknown): readonly Issue[] | null {
  const issues = (error as { issues?: unknown } | null)?.issues;
  return Array.isArray(issues) ? (issues as Issue[]) : null;
}
