/**
 * Work on a large value (an 800 KB pasted script) is cut into turns of the
 * event loop, so that one request never holds every other one for the whole
 * of it: past this many characters, the step that handled the value lets a
 * turn pass before the next one runs.
 */
export const LARGE_VALUE_CHARACTERS = 64 * 1024;

/** Resolves with `value` after a turn of the event loop (I/O and timers run first). */
export function nextTurn<T>(value: T): Promise<T> {
  return new Promise((resolve) => setImmediate(() => resolve(value)));
}
