import { type AirlockError, isAirlockError, isConflictError } from '../errors.js';
import type { CallVerdict } from './call-verdict.js';

/** The deny of a check that failed: the kernel's refusal with its code, or a kernel out of reach. */
export function failedCheck(error: unknown): CallVerdict {
  const refused = isAirlockError(error) && error.status !== null;
  return {
    verdict: 'deny',
    reason: refused
      ? `${error.code}: ${error.detail}`
      : `Airlock could not decide this call: ${(error as Error | null)?.message ?? String(error)}`,
    taskKey: null,
    runId: null,
    requiresUser: false,
    ...(isAirlockError(error) ? { code: error.code } : {}),
    ...(isConflictError(error) && error.ran !== null ? { ranOutput: error.ran.output } : {}),
  };
}

/**
 * Whether a failure carries no decision of the kernel: no answer, a 5xx, or a success it could not
 * read (another server at the url answering 200 with its page).
 */
export function gaveNoDecision(error: AirlockError): boolean {
  const { status } = error;
  return status === null || status >= 500 || (error.code === 'internal' && status < 300);
}

/** The code of a look at a call the session has no row for: no decision to read. */
export const NO_SUCH_CALL = ['task_not_found'];

/**
 * The verdict `ask` gave, or its failure as a deny; a kernel that gave no decision is thrown,
 * as is an error of one of the `undecided` codes.
 */
export async function decidedOrThrown(
  ask: () => Promise<CallVerdict>,
  undecided: readonly string[] = [],
): Promise<CallVerdict> {
  try {
    return await ask();
  } catch (error) {
    if (isAirlockError(error) && (gaveNoDecision(error) || undecided.includes(error.code))) {
      throw error;
    }
    return failedCheck(error);
  }
}
