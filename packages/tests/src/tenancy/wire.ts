import { OPERATION_CONTRACTS, type OperationName, pathParams } from '@airlock/core';

/** The two ways an operation is called over HTTP. */
export type Transport = 'rest' | 'trpc';

/** What an operation answered: its status, and its result or the `{code, detail}` of its error. */
export interface Reply {
  status: number;
  /** The error, as REST and tRPC both carry it; null on a success. */
  error: { code: string; detail: string; problems?: unknown } | null;
  /** The result on a success (JSON lines read as an array). */
  result: unknown;
}

function restRequest(name: OperationName, input: Record<string, unknown>) {
  const contract = OPERATION_CONTRACTS[name];
  const rest = { ...input };
  let path: string = contract.path;
  for (const param of pathParams(contract.path)) {
    path = path.replace(`{${param}}`, encodeURIComponent(String(rest[param])));
    delete rest[param];
  }
  if (contract.method === 'GET') {
    const query = new URLSearchParams();
    for (const [key, value] of Object.entries(rest)) query.set(key, String(value));
    const text = query.toString();
    return { method: 'GET', path: text ? `${path}?${text}` : path, body: undefined };
  }
  return { method: contract.method, path, body: JSON.stringify(rest) };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    // JSON lines (the audit operations): one value a line.
    return text
      .split('\n')
      .filter((line) => line.length > 0)
      .map((line) => JSON.parse(line));
  }
}

/** Calls an operation over REST or tRPC with a bearer token, as any HTTP client would. */
export async function callOperation(options: {
  url: string;
  transport: Transport;
  token: string;
  name: OperationName;
  input: Record<string, unknown>;
}): Promise<Reply> {
  const { url, transport, token, name, input } = options;
  const headers: Record<string, string> = { authorization: `Bearer ${token}` };
  let response: Response;
  if (transport === 'rest') {
    const request = restRequest(name, input);
    if (request.body !== undefined) headers['content-type'] = 'application/json';
    response = await fetch(`${url}${request.path}`, {
      method: request.method,
      headers,
      body: request.body,
    });
  } else if (OPERATION_CONTRACTS[name].method === 'GET') {
    const query = encodeURIComponent(JSON.stringify(input));
    response = await fetch(`${url}/trpc/${name}?input=${query}`, { headers });
  } else {
    headers['content-type'] = 'application/json';
    response = await fetch(`${url}/trpc/${name}`, {
      method: 'POST',
      headers,
      body: JSON.stringify(input),
    });
  }
  const text = await response.text();
  const body = text.length > 0 ? parseJson(text) : null;
  if (response.status >= 400) {
    type Envelope = { code?: string; detail?: string; problems?: unknown };
    const envelope = body as { error?: Envelope & { data?: { error?: Envelope } } };
    const error = transport === 'rest' ? envelope?.error : envelope?.error?.data?.error;
    return {
      status: response.status,
      error: {
        code: String(error?.code),
        detail: String(error?.detail),
        ...(error?.problems ? { problems: error.problems } : {}),
      },
      result: null,
    };
  }
  const result =
    transport === 'trpc' ? (body as { result?: { data?: unknown } })?.result?.data : body;
  return { status: response.status, error: null, result };
}
