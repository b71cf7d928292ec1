import type { CanonicalTarget } from './canonical-target.js';

/**
 * At most this many URL targets are read of one call: each is parsed and compared with every URL
 * rule, and 40,000 of them (1 MB of JSON, the kernel's body limit) under 20 rules held the
 * evaluator for a second. More are read as {@link ANY_URL}.
 */
export const MAX_URL_TARGETS = 1000;

/** A URL longer than this (browsers and servers refuse far shorter ones) is read as {@link ANY_URL}. */
export const MAX_URL_LENGTH = 65_536;

/**
 * A call that names too many URLs, or too long a one, to compare in bounded time: it may name
 * any URL. An allow never covers it; a deny or an ask over URLs asks of it (see match-rule.ts).
 */
export const ANY_URL: CanonicalTarget = {
  kind: 'url',
  text: '',
  rooted: false,
  raw: '',
  anyUrl: true,
};

/**
 * Normalizes a URL: scheme and host lower-case, the default port dropped,
 * dot segments of the path removed, and what names no other place dropped:
 * the credentials before the host (`user:pass@`) and a host's trailing dot
 * (`example.com.`), so a rule over `https://example.com/*` reads every
 * spelling of that host, and `https://example.com@evil.test/` reads as
 * evil.test. Text that is no absolute URL is kept as given.
 */
export function canonicalUrl(raw: string): CanonicalTarget {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { kind: 'url', text: raw, rooted: false, raw };
  }
  url.username = '';
  url.password = '';
  const host = url.hostname.replace(/\.+$/, '');
  if (host !== url.hostname && host !== '') url.hostname = host;
  return { kind: 'url', text: url.href, rooted: false, raw };
}

/**
 * The URLs in prose, as Gemini CLI's web_fetch finds what to fetch: `http://` or `https://` and
 * the characters up to the next space (the scheme in any case here: more is safer).
 */
export function urlsInText(text: string): string[] {
  return text.match(/https?:\/\/\S+/gi) ?? [];
}
