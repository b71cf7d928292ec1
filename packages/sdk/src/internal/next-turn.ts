/** `setImmediate`, where the runtime has it (Node, Bun, Deno); browsers do not. */
const immediate = (globalThis as { setImmediate?: (callback: () => void) => unknown }).setImmediate;

/**
 * Resolves on the event loop's next turn, after the I/O callbacks already due
 * (`setImmediate` where the runtime has it; a zero timeout elsewhere): work
 * already queued for this turn, such as writing an answer, goes first.
 */
export function nextTurn(): Promise<void> {
  return new Promise((resolve) => {
    if (immediate) immediate(resolve);
    else setTimeout(resolve, 0);
  });
}
