import { shownKernelUrl } from '@airlock/core';

/** The list entry that admits any base URL (the behaviour before the list existed). */
export const ANY_BASE_URL = '*';

/** The setting an operator changes to admit another base URL, as a refusal names it. */
export const BASE_URLS_SETTING = '--model-base-urls (AIRLOCK_MODEL_BASE_URLS)';

/** The openai provider's endpoint when the deployment names none. */
export const DEFAULT_OPENAI_BASE_URL = 'https://api.openai.com/v1';

/**
 * A base URL as two are compared: scheme and host lowercased and a default
 * port dropped (what `URL` does), the path without its trailing slashes.
 * Null for anything but an http(s) URL without a user name or password, and
 * for one with a query or fragment (the provider adds `/chat/completions`
 * after the base URL, so such a URL cannot work): never admitted.
 */
export function baseUrlKey(text: string): string | null {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return null;
  }
  if (!/^https?:$/.test(url.protocol) || url.username || url.password) return null;
  if (url.search || url.hash) return null;
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
}

/**
 * Which base URLs a run's `provider.base_url` may name: the deployment's own
 * endpoint and those the operator listed (`--model-base-urls`), or any at all
 * when the list holds `*`. A run is sent from inside the deployment's network,
 * and up to 500 characters of what the URL answers come back in the run's
 * error, so an unlisted URL would let any agent credential make the kernel
 * POST to internal services (cloud metadata, admin endpoints, its own loopback).
 */
export class BaseUrlAllowance {
  private readonly keys: ReadonlySet<string>;
  private readonly any: boolean;

  constructor(deploymentUrl: string, listed: readonly string[] = []) {
    this.any = listed.includes(ANY_BASE_URL);
    const keys = [deploymentUrl, ...listed].map(baseUrlKey);
    this.keys = new Set(keys.filter((key): key is string => key !== null));
  }

  /** True when a run may name this base URL. */
  admits(text: string): boolean {
    const key = baseUrlKey(text);
    return this.any ? key !== null : key !== null && this.keys.has(key);
  }

  /** Why a run may not name this base URL, for its creator or its error. */
  refusal(text: string): string {
    const bare = text.replace(/[?#].*$/s, '');
    const parsed = URL.canParse(text) ? new URL(text) : null;
    if (parsed && (parsed.search || parsed.hash) && baseUrlKey(bare) !== null) {
      return `the base URL ${JSON.stringify(shownKernelUrl(bare))} is followed by a query or fragment, which the provider cannot send to (it adds /chat/completions after the base URL); name the base URL alone`;
    }
    return `this deployment does not send runs to the base URL ${JSON.stringify(shownKernelUrl(text))}: a run may name only the deployment's own (OPENAI_BASE_URL) or one listed in ${BASE_URLS_SETTING}; an operator may add it there`;
  }
}

/** True when two base URLs name the same endpoint (see {@link baseUrlKey}). */
export function sameBaseUrl(a: string, b: string): boolean {
  const key = baseUrlKey(a);
  return key !== null && key === baseUrlKey(b);
}
