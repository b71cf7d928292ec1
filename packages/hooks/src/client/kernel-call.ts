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
 * Sends one event to `POST /agent_api/v1/hooks/events` and returns the
 * kernel's answer, within `timeoutMs`.
 * @throws KernelUnavailable on a network error, a timeout, or an error answer.
 */
export async function sendEvent(
  target: KernelTarget,
  event: NeutralEvent,
  timeoutMs: number,
): Promise<KernelAnswer> {
  let response: Response;
  try {
    response = await fetch(`${target.url.replace(/\/+$/, '')}/agent_api/v1/hooks/events`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${target.token}`,
        'content-type': 'application/json',
        ...(target.traceparent ? { traceparent: target.traceparent } : {}),
      },
      body: JSON.stringify(event),
      signal: AbortSignal.timeout(Math.max(1, timeoutMs)),
    });
  } catch (error) {
    const name = (error as Error).name;
    if (name === 'TimeoutError' || name === 'AbortError') {
      throw new KernelUnavailable(`the kernel did not answer within ${timeoutMs} ms`, 'timeout');
    }
    const cause = (error as { cause?: { code?: string } }).cause?.code ?? (error as Error).message;
    throw new KernelUnavailable(
      `cannot reach the kernel at ${target.url} (${cause})`,
      'unreachable',
    );
  }
  const body = (await response.json().catch(() => null)) as
    | (KernelAnswer & { error?: { code?: string; detail?: string } })
    | null;
  if (!response.ok || body === null || typeof body.verdict !== 'string') {
    const code = body?.error?.code ?? `http_${response.status}`;
    const detail = body?.error?.detail ?? `HTTP ${response.status}`;
    throw new KernelUnavailable(`the kernel refused the event: ${code}: ${detail}`, code);
  }
  return body;
}
