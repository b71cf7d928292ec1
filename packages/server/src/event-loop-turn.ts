/**
 * Work on a large value (an 800 KB pasted script) is cut into turns of the
 * event loop, so that one request never holds every other one for the whole
 * of it: past this many characters, the step that handled the value lets a
 * turn pass before the next one runs.
 */
export const LARGE_VALUE_CHARACTERS = 64 * 1024;

/**
 * Resolves with `value` after a turn of the event loop: timers and I/O run
 * first, whichever phase the caller is in. One `setImmediate` is not enough
 * from an I/O callback (a request body's last chunk): its check phase follows
 * the poll phase with no timer or I/O between, so the two pieces of work
 * would hold the loop as one.
 */
export function nextTurn<T>(value: T): Promise<T> {
  return new Promise((resolve) => setImmediate(() => setImmediate(() => resolve(value))));
}
