import { setTimeout as sleep } from 'node:timers/promises';
import { Agent } from 'undici';
import { withoutSecrets } from './provider-secrets.js';
import { ProviderError } from './types.js';

/** Most requests one round makes: the first and two retries of a request timeout, a rate limit, a server error or a dropped connection. */
export const COMPLETION_ATTEMPTS = 3;
/** The longest wait before a retry; a server asking for more ends the round at once. */
export const RETRY_WAIT_MAX_MS = 30_000;
/** The largest completion body read; a longer one fails the round instead of filling memory. */
export const COMPLETION_MAX_BYTES = 16 * 1024 * 1024;

/**
 * The statuses worth asking again: a request timeout (408), a rate limit, or a server that
 * could not answer now, 529 included (overloaded, as some gateways say). The OpenAI and
 * Anthropic client libraries retry these too; 409 and 501 they also retry are left out: a
 * compatible server means a conflict or a missing feature by them, which asking again keeps.
 */
const RETRIED_STATUSES = new Set([408, 429, 500, 502, 503, 504, 529]);

/** The wait a `Retry-After` header asks for (seconds or an HTTP date), or null when it names none. */
function retryAfterMs(header: string | null): number | null {
  if (header === null || header.trim() === '') return null;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(header);
  return Number.isNaN(date) ? null : Math.max(0, date - Date.now());
}

const UTF8 = new TextDecoder('utf-8');

/**
 * The connections model requests go over. Node's fetch gives up waiting for an answer's
 * headers, or between two pieces of its body, after 300 s of its own, so a round given a
 * longer `--model-timeout` (a reasoning model that thinks for minutes) failed
 * `provider_unreachable` at five minutes. The round's signal is the one bound here.
 */
const modelConnections = new Agent({ headersTimeout: 0, bodyTimeout: 0 });

/** Reads a body up to `COMPLETION_MAX_BYTES`, or throws `provider_response_too_large`. */
async function readCapped(response: Response): Promise<string> {
  const declared = Number(response.headers.get('content-length'));
  if (declared > COMPLETION_MAX_BYTES) {
    await response.body?.cancel();
    throw tooLarge();
  }
  if (!response.body) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (let read = await reader.read(); !read.done; read = await reader.read()) {
    total += read.value.byteLength;
    if (total > COMPLETION_MAX_BYTES) {
      await reader.cancel().catch(() => {});
      throw tooLarge();
    }
    chunks.push(read.value);
  }
  // As fetch's text() reads it: a leading byte order mark dropped, which JSON.parse would refuse.
  return UTF8.decode(Buffer.concat(chunks));
}

function tooLarge(): ProviderError {
  return new ProviderError(
    'provider_response_too_large',
    `the completion is larger than ${COMPLETION_MAX_BYTES} bytes`,
  );
}

/**
 * Why a request got no answer: the round's time ran out (`provider_timeout`), or the endpoint
 * failed, said as `what` when given (fetch's own words, such as "terminated", when not).
 */
function unreachable(
  error: unknown,
  signal: AbortSignal,
  secrets: readonly string[],
  what?: string,
): ProviderError {
  if (signal.aborted && (signal.reason as Error | undefined)?.name === 'TimeoutError') {
    return new ProviderError(
      'provider_timeout',
      "the model did not answer within the round's time limit (airlock serve --model-timeout)",
    );
  }
  // fetch says only "fetch failed": its cause names why (ECONNREFUSED, ENOTFOUND, bad port).
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  const why = cause?.code ?? cause?.message;
  const message = `${what ?? (error as Error).message}${why ? ` (${why})` : ''}`;
  return new ProviderError('provider_unreachable', withoutSecrets(message, secrets));
}

/**
 * A failed answer, its body cut to 500 characters after the secrets are taken out (none is
 * left cut in half), then `note` (why it was not asked again), if any.
 */
function failure(
  status: number,
  text: string,
  secrets: readonly string[],
  note = '',
): ProviderError {
  return new ProviderError(
    status === 429 ? 'provider_rate_limited' : 'provider_error',
    `HTTP ${status}: ${withoutSecrets(text, secrets).slice(0, 500)}${note}`,
  );
}

/** Why an answer the kernel meant to ask again for was the last: the round's time ran out first. */
function waitedOut(waitMs: number): string {
  return ` (the round's time limit, airlock serve --model-timeout, ran out waiting ${Math.ceil(waitMs / 1000)} s to ask again)`;
}

/**
 * A redirect the endpoint answered, not followed: the base URLs a run may name are
 * checked (`--model-base-urls`), and a redirect would carry the request past that check.
 */
function redirected(response: Response, secrets: readonly string[]): ProviderError {
  const location = withoutSecrets(response.headers.get('location') ?? 'nowhere', secrets);
  return new ProviderError(
    'provider_error',
    `HTTP ${response.status}: the endpoint redirects to ${JSON.stringify(location.slice(0, 500))}, which the kernel does not follow; name that URL as the base URL instead`,
  );
}

/** The causes of a failed fetch that mean a connection was made and then dropped. */
const DROPPED_CAUSES = new Set(['ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET', 'UND_ERR_CLOSED']);

/**
 * Whether a fetch failed because the endpoint (or a proxy before it) dropped
 * the connection, which asking again may get past, rather than because it
 * cannot be reached at all (refused, no such host: asking again would only
 * delay the failure) or the request was aborted.
 */
function droppedConnection(error: unknown, signal: AbortSignal): boolean {
  if (signal.aborted) return false;
  const code = (error as { cause?: { code?: string } }).cause?.code;
  return code !== undefined && DROPPED_CAUSES.has(code);
}

/**
 * Waits the backoff before asking again after a dropped connection (1 s, then 2 s), within
 * `signal`; throws `failed` (or the timeout, when the round's time ran out) when it ends first.
 */
async function waitToAskAgain(
  attempt: number,
  signal: AbortSignal,
  failed: ProviderError,
): Promise<void> {
  try {
    await sleep(1000 * 2 ** (attempt - 1), undefined, { signal });
  } catch {
    // The round's time running out says so (provider_timeout); a stop or a run's end keeps `failed`.
    const timedOut = (signal.reason as Error | undefined)?.name === 'TimeoutError';
    throw timedOut ? unreachable(failed, signal, []) : failed;
  }
}

/**
 * POSTs one chat-completions request and returns the body of its successful
 * answer. A request timeout (408), a rate limit, a server error (529 included)
 * or a connection dropped before the
 * whole answer arrived is asked again (at most `COMPLETION_ATTEMPTS`
 * requests), after the `Retry-After` the server names or a short backoff, all
 * within `signal`; a wait longer than `RETRY_WAIT_MAX_MS`
 * is not waited for, and a redirect is not followed. The error text a failure carries (stored in the run's
 * error, written to the log) holds none of `secrets` (the API key) and no
 * `Bearer` credential, even when the endpoint echoes the request.
 */
export async function postCompletion(
  url: string,
  init: {
    headers: Record<string, string>;
    body: string;
    signal: AbortSignal;
    secrets: readonly string[];
  },
): Promise<string> {
  const { secrets, ...request } = init;
  for (let attempt = 1; ; attempt += 1) {
    let response: Response;
    let text: string;
    try {
      // Node's fetch reads `dispatcher` (undici's option), which RequestInit does not declare.
      const sent: RequestInit & { dispatcher: Agent } = {
        method: 'POST',
        redirect: 'manual',
        dispatcher: modelConnections,
        ...request,
      };
      response = await fetch(url, sent);
    } catch (error) {
      const failed = unreachable(error, init.signal, secrets);
      if (!droppedConnection(error, init.signal) || attempt >= COMPLETION_ATTEMPTS) throw failed;
      await waitToAskAgain(attempt, init.signal, failed);
      continue;
    }
    try {
      text = await readCapped(response);
    } catch (error) {
      if (error instanceof ProviderError) throw error;
      const failed = unreachable(
        error,
        init.signal,
        secrets,
        'the connection closed before the whole answer arrived',
      );
      if (init.signal.aborted || attempt >= COMPLETION_ATTEMPTS) throw failed;
      await waitToAskAgain(attempt, init.signal, failed);
      continue;
    }
    if (response.ok) return text;
    if (response.status >= 300 && response.status < 400) throw redirected(response, secrets);
    if (!RETRIED_STATUSES.has(response.status) || attempt >= COMPLETION_ATTEMPTS) {
      throw failure(response.status, text, secrets);
    }
    const wait = retryAfterMs(response.headers.get('retry-after')) ?? 1000 * 2 ** (attempt - 1);
    if (wait > RETRY_WAIT_MAX_MS) throw failure(response.status, text, secrets);
    try {
      await sleep(wait, undefined, { signal: init.signal });
    } catch {
      // The answer that asked for the wait is why the round failed, not the network.
      throw failure(response.status, text, secrets, waitedOut(wait));
    }
  }
}
