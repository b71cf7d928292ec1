import { parseArgs } from 'node:util';

/** Where and as whom an operator command talks to a running kernel. */
export interface Connection {
  readonly url: string;
  readonly token: string;
  readonly workspace: string;
  readonly json: boolean;
}

/** A failure the operator reads as one line; `status` is the exit code. */
export class OperatorError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly code?: string,
  ) {
    super(message);
  }
}

/** Options every operator command takes. */
export const CONNECTION_OPTIONS = {
  url: { type: 'string' },
  token: { type: 'string' },
  workspace: { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** The help lines for the connection options. */
export const CONNECTION_HELP = `Connection (flags win over the environment):
  --url <url>          the kernel's base URL (env AIRLOCK_URL; default http://127.0.0.1:4820)
  --token <token>      a bearer credential (env AIRLOCK_TOKEN)
  --workspace <id>     the workspace id (env AIRLOCK_WORKSPACE)
  --json               print JSON instead of text
`;

/** Parses an operator command's flags, adding the connection ones. */
export function parseOperatorArgs(
  argv: string[],
  extra: Record<string, { type: 'string' | 'boolean' }>,
): { values: Record<string, string | boolean | undefined>; positionals: string[] } {
  try {
    const parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: { ...CONNECTION_OPTIONS, ...extra },
    });
    return {
      values: parsed.values as Record<string, string | boolean | undefined>,
      positionals: parsed.positionals,
    };
  } catch (error) {
    throw new OperatorError((error as Error).message, 2);
  }
}

/** Reads the connection from flags and the environment; refuses when the token or workspace is missing. */
export function connectionFrom(values: {
  url?: string | boolean | undefined;
  token?: string | boolean | undefined;
  workspace?: string | boolean | undefined;
  json?: string | boolean | undefined;
}): Connection {
  const url = String(values.url ?? process.env.AIRLOCK_URL ?? 'http://127.0.0.1:4820').replace(
    /\/+$/,
    '',
  );
  const token = values.token ?? process.env.AIRLOCK_TOKEN;
  const workspace = values.workspace ?? process.env.AIRLOCK_WORKSPACE;
  if (typeof token !== 'string' || token === '') {
    throw new OperatorError(
      'no credential: pass --token or set AIRLOCK_TOKEN (see `airlock serve` output)',
      2,
    );
  }
  if (typeof workspace !== 'string' || workspace === '') {
    throw new OperatorError('no workspace: pass --workspace or set AIRLOCK_WORKSPACE', 2);
  }
  return { url, token, workspace, json: values.json === true };
}

/** Calls the kernel's REST API; returns the parsed body or throws an OperatorError with the server's code. */
export async function callKernel<T>(
  connection: Connection,
  method: 'GET' | 'POST' | 'PUT',
  path: string,
  body?: unknown,
): Promise<T> {
  let response: Response;
  try {
    response = await fetch(`${connection.url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${connection.token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause?.code ?? (error as Error).message;
    throw new OperatorError(`cannot reach the kernel at ${connection.url} (${cause})`, 1);
  }
  const text = await response.text();
  let parsed: unknown = null;
  try {
    parsed = text === '' ? null : JSON.parse(text);
  } catch {
    throw new OperatorError(
      `the kernel answered ${response.status} with a body that is not JSON`,
      1,
    );
  }
  if (!response.ok) {
    const error = (parsed as { error?: { code?: string; detail?: string } } | null)?.error;
    throw new OperatorError(
      `${error?.code ?? response.status}: ${error?.detail ?? response.statusText}`,
      1,
      error?.code,
    );
  }
  return parsed as T;
}

/** The REST prefix of the connection's workspace. */
export function workspacePath(connection: Connection): string {
  return `/api/v1/workspaces/${encodeURIComponent(connection.workspace)}`;
}

/** Prints a value as JSON or as the lines a person reads. */
export function print(connection: Connection, value: unknown, lines: () => string[]): void {
  if (connection.json) process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
  else process.stdout.write(`${lines().join('\n')}\n`);
}
