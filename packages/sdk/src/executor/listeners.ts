/**
 * Calls one of the application's listeners (`onRan`, `onCommitted`,
 * `onError`) and hands what it throws to `thrown`: a listener that breaks
 * never stops the executor's own work, such as committing a row whose tool
 * already ran (left uncommitted, the row would run again once its lease
 * lapsed).
 */
export function tell<ARGS extends unknown[]>(
  listener: ((...args: ARGS) => void) | undefined,
  thrown: (error: Error) => void,
  ...args: ARGS
): void {
  try {
    listener?.(...args);
  } catch (error) {
    thrown(error instanceof Error ? error : new Error(String(error)));
  }
}
