const KEEP = () => {};

/**
 * A signal that aborts as soon as either of two does, with that one's
 * reason, and `release`, which stops it following them (call it once the
 * work it stops is over). In place of `AbortSignal.any`, which Node makes
 * for each call with weak references and a finalization registry that the
 * collector then walks: two listeners cost less on every tool call.
 */
export function eitherSignal(
  first: AbortSignal,
  second: AbortSignal,
): { signal: AbortSignal; release: () => void } {
  if (first.aborted) return { signal: first, release: KEEP };
  if (second.aborted) return { signal: second, release: KEEP };
  const controller = new AbortController();
  const release = () => {
    first.removeEventListener('abort', onFirst);
    second.removeEventListener('abort', onSecond);
  };
  const onFirst = () => {
    release();
    controller.abort(first.reason);
  };
  const onSecond = () => {
    release();
    controller.abort(second.reason);
  };
  first.addEventListener('abort', onFirst, { once: true });
  second.addEventListener('abort', onSecond, { once: true });
  return { signal: controller.signal, release };
}
