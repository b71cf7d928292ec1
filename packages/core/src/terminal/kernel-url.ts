import { SettingError } from './setting-error.js';

/** Where a kernel listens when neither `--url` nor AIRLOCK_URL says. */
export const DEFAULT_KERNEL_URL = 'http://127.0.0.1:4820';

/** The kernel's base URL and where it came from, so a message can say what to fix. */
export interface KernelUrl {
  /** The URL without trailing slashes. */
  readonly url: string;
  readonly source: '--url' | 'AIRLOCK_URL' | 'default';
}

/**
 * Reads the kernel's base URL from `--url`, else AIRLOCK_URL in `env` (an
 * empty or blank one is unset, as every AIRLOCK_ variable), else {@link DEFAULT_KERNEL_URL}. Pure: the caller
 * hands in the environment.
 * @throws SettingError (`invalid_kernel_url`) naming the flag or variable when
 *   the URL is not http:// or https:// (`localhost:4820` reads as a URL of
 *   scheme `localhost:`); the value is quoted without its `user:secret@` part.
 */
export function readKernelUrl(
  flag: string | undefined,
  env: Readonly<Record<string, string | undefined>>,
): KernelUrl {
  const fromEnv = env.AIRLOCK_URL;
  const [text, source]: [string, KernelUrl['source']] =
    flag !== undefined
      ? [flag, '--url']
      : fromEnv?.trim()
        ? [fromEnv, 'AIRLOCK_URL']
        : [DEFAULT_KERNEL_URL, 'default'];
  if (!isHttpUrl(text)) {
    const shown = withoutCredentials(text);
    // Guessed only where adding the scheme makes a URL: `localhost:7070`, not `not a url`.
    const guess = !text.includes('://') && isHttpUrl(`http://${text}`) ? ` (http://${shown}?)` : '';
    throw new SettingError(
      'invalid_kernel_url',
      source,
      `${source} wants the kernel's base URL with http:// or https://, such as ${DEFAULT_KERNEL_URL}, not "${shown}"${guess}`,
    );
  }
  return { url: text.replace(/\/+$/, ''), source };
}

/**
 * An accepted kernel URL as a message may show it: with `…@` in place of
 * its user and password, if it has any (stderr lands in CI logs).
 */
export function shownKernelUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (!parsed.username && !parsed.password) return url;
    // The authority's last `@` (a raw `@` in the password comes before it).
    const start = url.indexOf('//') + 2;
    const end = url.slice(start).search(/[/?#]/);
    const at = url.lastIndexOf('@', end === -1 ? url.length : start + end);
    return `${parsed.protocol}//…${url.slice(at)}`;
  } catch {
    return withoutCredentials(url);
  }
}

/** Whether `text` is an absolute http(s) URL, the kind the SDK sends to. */
function isHttpUrl(text: string): boolean {
  try {
    const { protocol } = new URL(text);
    return protocol === 'http:' || protocol === 'https:';
  } catch {
    return false;
  }
}

/**
 * `text` with what may be credentials (`user:secret@`) written `…@`: a
 * refusal lands on stderr, and so in CI logs. Everything up to the last `@`
 * goes, as a secret may hold `/` or `@` itself.
 */
function withoutCredentials(text: string): string {
  return text.replace(/^([^/@]*\/\/)?.*@/s, '$1…@');
}
