/**
 * The SDK's requests in Node, without `fetch`: Node's own `http.request` over
 * a keep-alive agent. Node's `fetch` (undici) builds a WHATWG `Request`,
 * `Headers` and web streams for every call, a large part of a small JSON
 * request's time on loopback; every check and report of a framework adapter,
 * and every submit, claim and commit of an executor, paid it
 * (`KERNEL=process pnpm bench:frameworks` and `bench:mcp` show the
 * difference, docs/performance-frameworks.md). In a browser, or where the application
 * passes its own `fetch`, `fetch` is used.
 *
 * Only what the SDK reads of an answer is there: `ok`, `status`, `text()`,
 * `json()`.
 */

type Fetch = typeof fetch;

/*
 * The part of Node's `http` module used here, declared so that the SDK's
 * types need no Node declarations (a browser build type-checks it too).
 */
interface IncomingAnswer {
  statusCode?: number | undefined;
  on(event: 'data', listener: (chunk: Uint8Array) => void): void;
  on(event: 'end', listener: () => void): void;
  on(event: 'error', listener: (error: Error) => void): void;
}
interface OutgoingRequest {
  on(event: 'error', listener: (error: Error) => void): void;
  destroy(error?: Error): void;
  end(body?: Uint8Array): void;
}
interface Agent {
  readonly __agent?: never;
}
interface HttpModule {
  Agent: new (options: { keepAlive: boolean; timeout: number }) => Agent;
  request(
    url: URL,
    options: { method: string; headers: Record<string, string>; agent: Agent },
    onAnswer: (answer: IncomingAnswer) => void,
  ): OutgoingRequest;
}

/** Idle sockets are closed after this, well before a kernel's own idle timeout (65 s by default). */
const IDLE_SOCKET_MS = 4000;

interface Modules {
  http: HttpModule;
  https: HttpModule;
  agents: { http: Agent; https: Agent };
}

let loading: Promise<Modules | null> | null = null;

/** True in Node (not in a browser, whatever a bundler defines). */
function inNode(): boolean {
  const node = (globalThis as { process?: { versions?: { node?: unknown } } }).process?.versions
    ?.node;
  return (
    typeof node === 'string' && typeof (globalThis as { window?: unknown }).window === 'undefined'
  );
}

async function loadModules(): Promise<Modules | null> {
  if (!inNode()) return null;
  // Computed specifiers keep bundlers from pulling Node's modules into a browser build.
  const httpName = 'node:http';
  const httpsName = 'node:https';
  try {
    const [http, https] = (await Promise.all([
      import(/* @vite-ignore */ httpName),
      import(/* @vite-ignore */ httpsName),
    ])) as [HttpModule, HttpModule];
    const options = { keepAlive: true, timeout: IDLE_SOCKET_MS };
    return {
      http,
      https,
      agents: { http: new http.Agent(options), https: new https.Agent(options) },
    };
  } catch {
    return null;
  }
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** The answer's bytes as text (UTF-8). */
function decodeChunks(chunks: Uint8Array[]): string {
  if (chunks.length === 1) return decoder.decode(chunks[0]);
  let length = 0;
  for (const chunk of chunks) length += chunk.byteLength;
  const whole = new Uint8Array(length);
  let at = 0;
  for (const chunk of chunks) {
    whole.set(chunk, at);
    at += chunk.byteLength;
  }
  return decoder.decode(whole);
}

/** A failed request as `fetch` reports one: the socket's error (its `code`) as the cause. */
function requestFailed(error: Error): Error {
  return new TypeError(error.message, { cause: error });
}

/** True for the headers the SDK passes: a plain record of strings. */
function plainHeaders(
  headers: HeadersInit | undefined,
): headers is Record<string, string> | undefined {
  return headers === undefined || (!Array.isArray(headers) && !(headers instanceof Headers));
}

function send(modules: Modules, input: string | URL, init: RequestInit = {}): Promise<Response> {
  const url = input instanceof URL ? input : new URL(input);
  const secure = url.protocol === 'https:';
  const headers = { ...(init.headers as Record<string, string> | undefined) };
  // Encoded once: its length is the header, its bytes the body.
  const bytes = typeof init.body === 'string' ? encoder.encode(init.body) : undefined;
  if (bytes !== undefined) headers['content-length'] = String(bytes.byteLength);
  const signal = init.signal ?? undefined;
  return new Promise<Response>((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const request = (secure ? modules.https : modules.http).request(
      url,
      {
        method: init.method ?? 'GET',
        headers,
        agent: secure ? modules.agents.https : modules.agents.http,
      },
      (response) => {
        const chunks: Uint8Array[] = [];
        response.on('data', (chunk) => chunks.push(chunk));
        response.on('error', (error) => {
          signal?.removeEventListener('abort', onAbort);
          reject(requestFailed(error));
        });
        response.on('end', () => {
          signal?.removeEventListener('abort', onAbort);
          const text = decodeChunks(chunks);
          const status = response.statusCode ?? 0;
          resolve({
            ok: status >= 200 && status < 300,
            status,
            text: async () => text,
            json: async () => JSON.parse(text) as unknown,
          } as Response);
        });
      },
    );
    const onAbort = () => request.destroy(signal?.reason as Error);
    signal?.addEventListener('abort', onAbort, { once: true });
    request.on('error', (error) => {
      signal?.removeEventListener('abort', onAbort);
      reject(signal?.aborted ? signal.reason : requestFailed(error));
    });
    request.end(bytes);
  });
}

/**
 * The SDK's default `fetch`: Node's `http` where it runs in Node, else the
 * global `fetch`. A body other than a string (the SDK sends none) goes
 * through the global `fetch`, and so do a `Request` and `Headers`.
 */
export const defaultFetch: Fetch = async (input, init) => {
  loading ??= loadModules();
  const modules = await loading;
  if (
    !modules ||
    input instanceof Request ||
    (init?.body !== undefined && typeof init.body !== 'string') ||
    !plainHeaders(init?.headers)
  ) {
    return globalThis.fetch(input, init);
  }
  return send(modules, input, init);
};
