import { OperatorError } from './operator-error.js';

/** Where a kernel listens when neither --url nor AIRLOCK_URL says. */
export const DEFAULT_KERNEL_URL = 'http://127.0.0.1:4820';

/** The kernel's base URL and where it came from, as the operator names it to fix it. */
export interface KernelUrl {
  /** The URL without trailing slashes. */
  readonly url: string;
  readonly source: '--url' | 'AIRLOCK_URL' | 'the default URL';
}

/**
 * Reads the kernel's base URL from `--url`, else AIRLOCK_URL (an empty one
 * is unset), else {@link DEFAULT_KERNEL_URL}.
 * @throws OperatorError (exit 2) naming the flag or variable when the URL is
 *   not http:// or https:// (`localhost:4820` reads as a URL of scheme `localhost:`).
 */
export function kernelUrlFrom(flag: string | boolean | undefined): KernelUrl {
  const fromEnv = process.env.AIRLOCK_URL;
  const [text, source]: [string, KernelUrl['source']] =
    flag !== undefined
      ? [String(flag), '--url']
      : fromEnv
        ? [fromEnv, 'AIRLOCK_URL']
        : [DEFAULT_KERNEL_URL, 'the default URL'];
  let protocol: string | null = null;
  try {
    protocol = new URL(text).protocol;
  } catch {
    // said below
  }
  if (protocol !== 'http:' && protocol !== 'https:') {
    // Quoted back without what may be credentials (`user:secret@host`): stderr lands in CI logs.
    const shown = text.replace(/^([^/]*?\/\/)?[^/@]*@/, '$1…@');
    const guess = shown !== '' && !shown.includes('://') ? ` (http://${shown}?)` : '';
    throw new OperatorError(
      `${source} wants the kernel's base URL with http:// or https://, such as ${DEFAULT_KERNEL_URL}, not "${shown}"${guess}`,
      2,
    );
  }
  return { url: text.replace(/\/+$/, ''), source };
}
