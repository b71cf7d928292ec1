/** Seconds each agent gives one hook before it gives up on it (it must exceed the client's wait). */
export const HOOK_TIMEOUT_SECONDS = 120;

/**
 * Seconds the agent gives the hooks that decide nothing and wait for no
 * person: the session's start and the reports of what ran.
 */
export const SHORT_HOOK_TIMEOUT_SECONDS = 30;

/**
 * What the client needs beyond its wait to answer before the agent's timeout:
 * its own start, the last request to the kernel (the Node.js client's wait
 * bounds every request, but a process starts and writes its answer besides)
 * and, at the turn's end, the read of the transcript.
 */
export const WAIT_MARGIN_MS = 10_000;

/** The shortest wait accepted: under a second, every parked call is refused at once. */
export const MIN_WAIT_MS = 1000;

/** The first wait refused: the hook timeout `install` writes, less {@link WAIT_MARGIN_MS}. */
export const WAIT_LIMIT_MS = HOOK_TIMEOUT_SECONDS * 1000 - WAIT_MARGIN_MS;

/** The default time a call waits for a person inside one hook (under every agent's installed timeout). */
export const DEFAULT_WAIT_MS = 100_000;

/**
 * Why a wait cannot be used, or null when it can: a whole number of
 * milliseconds from {@link MIN_WAIT_MS} up to, not including,
 * {@link WAIT_LIMIT_MS}. `setting` names where the value came from in the
 * message (`--wait-ms`, or `"wait_ms" in FILE`). The installer checks what
 * it writes and the hook client what it reads with this one rule.
 */
export function waitMsProblem(waitMs: unknown, setting = '--wait-ms'): string | null {
  if (
    typeof waitMs !== 'number' ||
    !Number.isInteger(waitMs) ||
    waitMs < MIN_WAIT_MS ||
    waitMs >= WAIT_LIMIT_MS
  ) {
    const given =
      typeof waitMs === 'number' ? String(waitMs) : (JSON.stringify(waitMs) ?? 'nothing');
    return (
      `${setting} must be a whole number of milliseconds from ${MIN_WAIT_MS} to ${WAIT_LIMIT_MS - 1} ` +
      `(not ${given}): the hook must answer at least ${WAIT_MARGIN_MS / 1000} s before the ` +
      `${HOOK_TIMEOUT_SECONDS} s the agent gives it, or the agent gives up on the hook and may run the call`
    );
  }
  return null;
}
