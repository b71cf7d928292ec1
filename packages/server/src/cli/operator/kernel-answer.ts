import { OPERATION_CONTRACTS, type OperationName } from '@airlock/core';
import { isAirlockError } from '@airlock/sdk';

/**
 * Statuses a proxy or load balancer in front of a kernel answers itself, in
 * its own words, while the kernel restarts, is down or is slow: no sign the
 * URL is wrong.
 */
const PROXY_STATUSES = new Set([502, 503, 504]);

/**
 * A failed call whose answer is not in a kernel's words, or null: a body
 * that is not JSON, or an error status without Airlock's
 * `{error: {code, detail}}` (every answer of a kernel is JSON, every error
 * carries its code). `why` says which.
 */
function foreignFailure(error: unknown): { status: number; why: string } | null {
  if (!isAirlockError(error) || error.status === null) return null;
  const { status } = error;
  if (error.cause instanceof SyntaxError) {
    return { status, why: `it answered HTTP ${status} with a body that is not JSON` };
  }
  // The SDK's words for an error body without Airlock's envelope.
  if (error.detail === `the server answered ${status}`) {
    return { status, why: `it answered HTTP ${status} without an Airlock error` };
  }
  return null;
}

/** The status of a failed call that a proxy in front of the kernel answered in its own words (502, 503, 504), or null. */
export function proxyFailureStatus(error: unknown): number | null {
  const foreign = foreignFailure(error);
  return foreign && PROXY_STATUSES.has(foreign.status) ? foreign.status : null;
}

/**
 * What in a failed call shows that no Airlock kernel answered, or null: an
 * answer not in a kernel's words ({@link foreignFailure}), unless a proxy's
 * own 502, 503 or 504 ({@link proxyFailureStatus}).
 */
export function unlikeKernelFailure(error: unknown): string | null {
  const foreign = foreignFailure(error);
  return foreign && !PROXY_STATUSES.has(foreign.status) ? foreign.why : null;
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
  servesAirlockApi: () => Promise<boolean>,
): Promise<string | null> {
  const checked = OPERATION_CONTRACTS[operation].output.safeParse(answer);
  if (checked.success) return null;
  if (await servesAirlockApi()) return null;
  const issue = checked.error.issues[0];
  const where = issue ? ` (/${issue.path.join('/')}: ${issue.message})` : '';
  return `its answer to ${operation} is not an Airlock answer${where}`;
}

/** True when the server's GET /openapi.json is the Airlock kernel's API document. */
export async function servesAirlockApi(options: {
  url: string;
  timeoutMs: number;
}): Promise<boolean> {
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
