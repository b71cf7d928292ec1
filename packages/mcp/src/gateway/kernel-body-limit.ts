import { BODY_LIMIT_HEADER, readBodyLimitHeader } from '@airlock/core';

/**
 * The body limit the gateway sizes commits by: the one the kernel says on its
 * answers (its `--body-limit`), or `given` when that is smaller (never wider
 * than the kernel takes); `given` alone (else the SDK's 1 MiB default, as
 * undefined) when the kernel says none (an older kernel) or cannot be asked:
 * the gateway's next request to it reports that failure.
 */
export async function kernelBodyLimit(
  url: string,
  options: { given?: number | undefined; timeoutMs?: number | undefined },
): Promise<number | undefined> {
  const said = await bodyLimitSaidBy(url, options.timeoutMs ?? 30_000);
  if (said === null) return options.given;
  return options.given === undefined ? said : Math.min(said, options.given);
}

/** Asks the kernel's health check, which needs no credential, for the limit it says. */
async function bodyLimitSaidBy(url: string, timeoutMs: number): Promise<number | null> {
  try {
    const answer = await fetch(`${url.replace(/\/+$/, '')}/healthz`, {
      signal: AbortSignal.timeout(timeoutMs),
    });
    await answer.arrayBuffer();
    return readBodyLimitHeader(answer.headers.get(BODY_LIMIT_HEADER));
  } catch {
    return null;
  }
}
