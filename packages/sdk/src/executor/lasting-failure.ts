import { isAirlockError, isConnectionError, isValidationError } from '../errors.js';
import { tlsFailure } from '../internal/tls-failure.js';

/**
 * Whether an executor-wide request (the cable's check, a claim of the next row) failed in a
 * way asking again gets the same answer, so the executor ends instead of polling for ever:
 * any 4xx but 408 and 429 (a refused credential, a url whose routes answer 404, a claim the
 * kernel refuses as it is), a success that is not the kernel's answer (another web server),
 * a request the SDK itself refuses, a TLS failure, and an error that is no AirlockError.
 * Passing: no answer (refused, reset, timed out, a name not resolved yet), 408, 429, 5xx.
 * Once the url has reached the kernel (`reachedKernel`), a 404 or an answer that is not the
 * kernel's says the server behind it changed (a proxy whose route is gone while the kernel
 * redeploys) rather than that the url is wrong: it passes too.
 */
export function isLastingFailure(error: unknown, reachedKernel = false): boolean {
  if (!isAirlockError(error)) return true;
  if (isConnectionError(error)) return tlsFailure(error);
  const { status } = error;
  if (status === null) return isValidationError(error);
  if (status === 408 || status === 429 || status >= 500) return false;
  return !(reachedKernel && (status === 404 || status < 400));
}
