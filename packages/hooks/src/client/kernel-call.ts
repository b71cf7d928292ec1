import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { KernelAnswer, NeutralEvent } from '../agents/types.js';

/** Where the kernel is and the agent credential the hooks present. */
export interface KernelTarget {
  url: string;
  token: string;
  /** The W3C trace context each event carries (the hook's inherited `TRACEPARENT`); none when absent. */
  traceparent?: string | null | undefined;
}

/** The kernel could not answer: unreachable, too slow, or it refused the event. */
export class KernelUnavailable extends Error {
  constructor(
    message: string,
    readonly code: string,
  ) {
    super(message);
    this.name = 'KernelUnavailable';
  }
}

/**
 * The most of an answer the client reads, as the sh and bash clients do: the
 * kernel's answers are a few KiB, and an endless one would otherwise be read
 * (and held in memory) until the deadline, or until the process runs out of
 * memory and exits with an error, which the agent takes as no decision.
 */
export const ANSWER_BYTES_MAX = 8 * 1024 * 1024;

/** A status and body read off the kernel's answer. */
interface RawAnswer {
  status: number;
  text: string;
}

/**
 * One POST with node:http(s), not fetch: fetch's HTTP parser is WebAssembly,
 * and compiling it adds tens of milliseconds to a fresh process and holds its
 * exit for a few hundred more, on every hook event the agent starts.
 */
function post(
  url: URL,
  headers: Record<string, string>,
  body: string,
  timeoutMs: number,
): Promise<RawAnswer> {
  const request = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const outgoing = request(
      url,
      {
        method: 'POST',
        // One request per process: no connection is kept to hold the process open.
        agent: false,
        headers: {
          ...headers,
          'content-length': String(Buffer.byteLength(body)),
          connection: 'close',
        },
      },
      (incoming) => {
        const chunks: Buffer[] = [];
        let read = 0;
        const announced = Number(incoming.headers['content-length']);
        if (announced > ANSWER_BYTES_MAX) {
          outgoing.destroy(new AnswerTooLarge());
          return;
        }
        incoming.on('data', (chunk: Buffer) => {
          read += chunk.length;
          if (read > ANSWER_BYTES_MAX) {
            outgoing.destroy(new AnswerTooLarge());
            return;
          }
          chunks.push(chunk);
        });
        incoming.on('end', () =>
          resolve({
            status: incoming.statusCode ?? 0,
            text: Buffer.concat(chunks).toString('utf8'),
          }),
        );
        incoming.on('error', reject);
      },
    );
    // One deadline for the whole exchange (an idle-socket timeout could only fire later).
    const deadline = setTimeout(
      () => outgoing.destroy(new TimeoutReached()),
      Math.max(1, timeoutMs),
    );
    outgoing.on('close', () => clearTimeout(deadline));
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

class TimeoutReached extends Error {}

class AnswerTooLarge extends Error {}

/**
 * The kernel URL as a refusal names it: the reason reaches the model and the
 * agent's transcript, so a `user:password@` part is left out. Core's
 * `shownKernelUrl` does the same for the CLIs; the hook entry loads no
 * package but core's tracing entry, so it is not used here.
 */
function withoutCredentials(url: string): string {
  try {
    const parsed = new URL(url);
    if (!parsed.username && !parsed.password) return url;
    parsed.username = '';
    parsed.password = '';
    return parsed.href.replace(/\/+$/, '');
  } catch {
    return url.replace(/^([^/@]*\/\/)?.*@/s, '$1…@');
  }
}

/**
 * Sends one event to `POST /agent_api/v1/hooks/events` and returns the
 * kernel's answer, within `timeoutMs`.
 * @throws KernelUnavailable on a network error, a timeout, or an error answer.
 */
export async function sendEvent(
  target: KernelTarget,
  event: NeutralEvent,
  timeoutMs: number,
): Promise<KernelAnswer> {
  const startedAt = Date.now();
  let answer: RawAnswer;
  try {
    answer = await post(
      new URL(`${target.url.replace(/\/+$/, '')}/agent_api/v1/hooks/events`),
      {
        authorization: `Bearer ${target.token}`,
        'content-type': 'application/json',
        ...(target.traceparent ? { traceparent: target.traceparent } : {}),
      },
      JSON.stringify(event),
      timeoutMs,
    );
  } catch (error) {
    if (error instanceof TimeoutReached) {
      throw new KernelUnavailable(`the kernel did not answer within ${timeoutMs} ms`, 'timeout');
    }
    if (error instanceof AnswerTooLarge) {
      throw new KernelUnavailable(
        `the kernel's answer was larger than ${ANSWER_BYTES_MAX} bytes`,
        'answer_too_large',
      );
    }
    const cause = (error as { code?: string }).code ?? (error as Error).message;
    throw new KernelUnavailable(
      `cannot reach the kernel at ${withoutCredentials(target.url)} (${cause})`,
      'unreachable',
    );
  }
  let body: (KernelAnswer & { error?: { code?: string; detail?: string } }) | null = null;
  try {
    body = JSON.parse(answer.text) as KernelAnswer & { error?: { code?: string; detail?: string } };
  } catch {
    body = null;
  }
  const ok = answer.status >= 200 && answer.status < 300;
  if (!ok || body === null || typeof body !== 'object' || typeof body.verdict !== 'string') {
    const code = body?.error?.code ?? `http_${answer.status}`;
    const detail = body?.error?.detail ?? `HTTP ${answer.status}`;
    if (refusesWorkingDirectory(event, answer.status, code, answer.text)) {
      // A kernel older than `cwd` (this client upgraded first) refuses the field it does not
      // know: asked again without it, the call is decided from the project root as that
      // kernel decides every call, rather than refused for the version gap.
      const { cwd: _unknownThere, ...older } = event;
      return sendEvent(target, older, Math.max(1, timeoutMs - (Date.now() - startedAt)));
    }
    throw new KernelUnavailable(`the kernel refused the event: ${code}: ${detail}`, code);
  }
  return body;
}

/** Whether a refusal is an older kernel's of the `cwd` field (a key it does not recognize). */
function refusesWorkingDirectory(
  event: NeutralEvent,
  status: number,
  code: string,
  text: string,
): boolean {
  return (
    event.cwd !== undefined &&
    status === 400 &&
    code === 'invalid_input' &&
    // Only a key it does not know: a kernel that knows cwd and refuses its value (over-long)
    // must not have the call decided again from the project root.
    /unrecognized/i.test(text) &&
    /\bcwd\b/.test(text)
  );
}
