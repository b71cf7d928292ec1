import { isForbiddenError, isUnauthorizedError } from '@airlock/sdk';

/**
 * The end of a signed-in session: the kernel refused the token (revoked,
 * expired, unknown). Whatever page is open, the page that signed in is told
 * once, so it stops the open page's feed and shows the sign-in form with the
 * kernel's words; no row stays on screen with buttons that would be refused.
 */
let handler: ((reason: string) => void) | null = null;

/** Sets what ends the session (main.ts's sign-out). */
export function onSessionEnd(end: (reason: string) => void): void {
  handler = end;
}

/**
 * Whether a read's failure ends the session: a refused token (401) or a
 * credential the workspace no longer lets read (403).
 */
export function endsSession(error: unknown): error is { detail: string } {
  return isUnauthorizedError(error) || isForbiddenError(error);
}

/**
 * Ends the session when a read failed for its token; answers whether it did.
 * A verb's 403 is not passed here: it refuses that one call (the approval
 * policy), and the session goes on.
 */
export function endSessionOn(error: unknown): boolean {
  if (!endsSession(error)) return false;
  handler?.(error.detail);
  return true;
}

/** Ends the session when a verb was refused for its token (401 only); answers whether it did. */
export function endSessionOnVerb(error: unknown): boolean {
  return isUnauthorizedError(error) && endSessionOn(error);
}
