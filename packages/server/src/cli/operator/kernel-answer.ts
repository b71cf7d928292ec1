import { OPERATION_CONTRACTS, type OperationName } from '@airlock/core';
import { isAirlockError } from '@airlock/sdk';

/**
 * What in a failed call shows that no Airlock kernel answered, or null: a
 * body that is not JSON, or an error status without Airlock's
 * `{error: {code, detail}}` (every answer of a kernel is JSON, every error
 * carries its code).
 */
export function unlikeKernelFailure(error: unknown): string | null {
  if (!isAirlockError(error) || error.status === null) return null;
  if (error.cause instanceof SyntaxError) {
    return `it answered HTTP ${error.status} with a body that is not JSON`;
  }
  // The SDK's words for an error body without Airlock's envelope.
  if (error.detail === `the server answered ${error.status}`) {
    return `it answered HTTP ${error.status} without an Airlock error`;
  }
  return null;
}

/**
 * What in an answer shows that no Airlock kernel gave it, or null: an answer
 * that does not fit the operation's contract, from a server whose API
 * document is not Airlock's. A kernel of another version may answer in
 * another shape; its answer is passed on as before.
 */
export async function unlikeKernelAnswer(
  operation: OperationName,
  answer: unknown,
  options: { url: string; timeoutMs: number },
): Promise<string | null> {
  const checked = OPERATION_CONTRACTS[operation].output.safeParse(answer);
  if (checked.success) return null;
  if (await servesAirlockApi(options)) return null;
  const issue = checked.error.issues[0];
  const where = issue ? ` (/${issue.path.join('/')}: ${issue.message})` : '';
  return `its answer to ${operation} is not an Airlock answer${where}`;
}

/** True when the server's GET /openapi.json is the Airlock kernel's API document. */
async function servesAirlockApi(options: { url: string; timeoutMs: number }): Promise<boolean> {
  try {
    const response = await fetch(`${options.url}/openapi.json`, {
      signal: AbortSignal.timeout(options.timeoutMs),
    });
    const document = (await response.json()) as { info?: { title?: unknown } } | null;
    return document?.info?.title === 'Airlock kernel API';
  } catch {
    return false;
  }
}
