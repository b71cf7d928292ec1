import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { afterAll, describe, expect, it } from 'vitest';
import { runOperatorInProcess } from '../../testing/cli-in-process.js';
import { runOperatorCli } from '../../testing/operator-cli.js';

const servers: Server[] = [];
afterAll(async () => {
  for (const server of servers) await new Promise((closed) => server.close(closed));
});

/** A loopback HTTP server that answers every request with `answer`; its URL. */
async function serving(answer: (req: IncomingMessage, res: ServerResponse) => void) {
  const server = createServer(answer);
  servers.push(server);
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  return `http://127.0.0.1:${(server.address() as { port: number }).port}`;
}

const json = (res: ServerResponse, status: number, body: unknown) => {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
};

const target = (url: string) => ({ url, workspaceId: 'ws_x', tokens: { member: 'alk_member_x' } });

describe('the operator CLI says what is wrong with the kernel URL it was given', {
  timeout: 120_000,
}, () => {
  it('refuses a --url without http:// or https://, exit 2, guessing the fix', async () => {
    const refused = await runOperatorInProcess(target('http://127.0.0.1:9'), [
      'runs',
      'list',
      '--url',
      'localhost:7070',
    ]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toBe(
      `airlock: --url wants the kernel's base URL with http:// or https://, such as http://127.0.0.1:4820, not "localhost:7070" (http://localhost:7070?)\n`,
    );
  });

  it('names AIRLOCK_URL when the variable is the one without a scheme', async () => {
    const refused = await runOperatorInProcess(target('127.0.0.1:7070'), ['decisions', 'list']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/^airlock: AIRLOCK_URL wants the kernel's base URL with http:/);
  });

  it('does not quote back what may be credentials in the URL', async () => {
    for (const [given, shown] of [
      [
        'admin:s3cret@kernel.example:4820',
        '"…@kernel.example:4820" (http://…@kernel.example:4820?)',
      ],
      ['ftp://admin:s3cret@kernel.example', '"ftp://…@kernel.example"'],
    ] as const) {
      const refused = await runOperatorInProcess(target(given), ['runs', 'list']);
      expect(refused.code).toBe(2);
      expect(refused.stderr).not.toContain('s3cret');
      expect(refused.stderr).toContain(`not ${shown}\n`);
    }
  });

  it('refuses a URL carrying a user and password without showing them', async () => {
    // The SDK refuses such a url before any request (its feed would send them as Basic auth).
    const outcome = await runOperatorInProcess(target('http://admin:s3cret@127.0.0.1:9'), [
      'runs',
      'list',
    ]);
    expect(outcome.code).not.toBe(0);
    expect(outcome.stderr).not.toContain('s3cret');
    expect(outcome.stderr).toContain('url must carry no user or password');
  });

  it.each([
    [
      'a web page',
      (_req: IncomingMessage, res: ServerResponse) => {
        res.writeHead(404, { 'content-type': 'text/html' });
        res.end('<html><body>Not found</body></html>');
      },
      'it answered HTTP 404 with a body that is not JSON',
    ],
    [
      'JSON of another shape',
      (_req: IncomingMessage, res: ServerResponse) => json(res, 200, { hello: 'world' }),
      'its answer to runs.list is not an Airlock answer (/runs: ',
    ],
    [
      'an error without an Airlock error body',
      (_req: IncomingMessage, res: ServerResponse) => json(res, 500, { message: 'oops' }),
      'it answered HTTP 500 without an Airlock error',
    ],
    [
      'a 200 that is not JSON',
      (_req: IncomingMessage, res: ServerResponse) => res.end('hello'),
      'it answered HTTP 200 with a body that is not JSON',
    ],
  ])('says a server answering %s is not an Airlock kernel, exit 1', async (_what, answer, why) => {
    const url = await serving(answer);
    const outcome = await runOperatorInProcess(target(url), ['runs', 'list']);
    expect(outcome.code).toBe(1);
    expect(outcome.stdout).toBe('');
    expect(outcome.stderr).toMatch(/^airlock: the server at /);
    expect(outcome.stderr).toContain(`${url} did not answer as an Airlock kernel: ${why}`);
    expect(outcome.stderr).toMatch(/; check AIRLOCK_URL\n$/);
  });

  it.each([502, 503, 504])(
    "reports a proxy's own %i as the kernel behind it being away, not as a wrong URL",
    async (status) => {
      const url = await serving((_req, res) => {
        res.writeHead(status, { 'content-type': 'text/html' });
        res.end(`<html><body>${status} no healthy upstream</body></html>`);
      });
      const outcome = await runOperatorInProcess(target(url), ['runs', 'list']);
      expect(outcome.code).toBe(1);
      expect(outcome.stdout).toBe('');
      expect(outcome.stderr).toBe(
        `airlock: the server at ${url} answered HTTP ${status} in words not the kernel's: a proxy or load balancer in front of it, whose kernel may be restarting, down or slow; try again\n`,
      );
    },
  );

  it('does not report a decision another server acknowledged as made', async () => {
    const url = await serving((_req, res) => json(res, 200, { ok: true }));
    const outcome = await runOperatorInProcess(target(url), [
      'decisions',
      'approve',
      'run_1',
      't1',
    ]);
    expect(outcome.code).toBe(1);
    expect(outcome.stdout).toBe('');
    expect(outcome.stderr).toContain(`the server at ${url} did not answer as an Airlock kernel`);
    expect(outcome.stderr).toContain('decisions.approve');
  });

  it('passes on the answer of an Airlock kernel of another version, whose shape differs', async () => {
    // A kernel's API document says it is one: its answer (no created_at here) is printed as before.
    const url = await serving((req, res) =>
      req.url === '/openapi.json'
        ? json(res, 200, { openapi: '3.1.0', info: { title: 'Airlock kernel API' } })
        : json(res, 200, { agent_applications: [{ id: 'app_1', name: 'ci', removed_at: null }] }),
    );
    const outcome = await runOperatorInProcess(target(url), ['apps', 'list']);
    expect(outcome.stderr).toBe('');
    expect(outcome.code).toBe(0);
    expect(outcome.stdout).toBe('app_1\tactive\tci\n');
  });

  // The real CLI in a child process prints what the command printed in-process (the cases
  // above run it in-process, as cli.ts runs it: testing/cli-in-process.ts).
  it('the spawned CLI says what the command says in-process of a URL and of a server', async () => {
    const page = await serving((_req, res) => {
      res.writeHead(404, { 'content-type': 'text/html' });
      res.end('<html><body>Not found</body></html>');
    });
    for (const [url, code] of [
      ['localhost:7070', 2],
      ['http://admin:s3cret@127.0.0.1:9', 1],
      [page, 1],
    ] as const) {
      const spawned = await runOperatorCli(target(url), ['runs', 'list']);
      expect(spawned).toEqual(await runOperatorInProcess(target(url), ['runs', 'list']));
      expect(spawned.code).toBe(code);
      expect(spawned.stderr).not.toMatch(/\n\s+at /);
    }
  });
});
