/**
 * The header in which a kernel says, on every HTTP answer, the largest request body it reads
 * (its `--body-limit`, in bytes), so that a client deciding whether a commit fits (the MCP
 * gateway answering a call before its commit) uses the limit of the kernel it talks to.
 */
export const BODY_LIMIT_HEADER = 'airlock-body-limit';

/** The least and most a kernel's body limit can be (`airlock serve --body-limit`). */
const BODY_LIMIT_BOUNDS = { min: 1024, max: 1024 * 1024 * 1024 } as const;

/**
 * Reads a {@link BODY_LIMIT_HEADER} value: plain decimal digits within
 * {@link BODY_LIMIT_BOUNDS}; null when it is absent or anything else (an older
 * kernel, a proxy that rewrote it), so the reader keeps its own default.
 */
export function readBodyLimitHeader(value: string | null | undefined): number | null {
  if (value === null || value === undefined || !/^[1-9][0-9]{0,9}$/.test(value)) return null;
  const bytes = Number(value);
  return bytes >= BODY_LIMIT_BOUNDS.min && bytes <= BODY_LIMIT_BOUNDS.max ? bytes : null;
}
