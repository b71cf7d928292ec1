import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../testing/free-port.js';
import { runOperatorCli } from '../../testing/operator-cli.js';

/** Each list's path under the workspace and the field its rows come in. */
const LISTS = {
  runs: { path: '/runs', rows: 'runs' },
  decisions: { path: '/decisions', rows: 'decisions' },
  notifications: { path: '/notifications', rows: 'deliveries' },
} as const;

// Past this many pages the server ends the list, so a CLI without the guard ends (exit 0) instead of hanging.
const GIVE_UP = 25;

/**
 * A kernel whose lists go round: every page hands `same`, or under `/cycle` (a base URL with a
 * path) `c1`, then `c2`, then `c1` again. Its API document says it is an Airlock kernel, so the
 * CLI takes its loose rows as another version's.
 */
function cyclingKernel(asked: string[]): Server {
  return createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://kernel');
    const answer = (body: unknown) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify(body));
    };
    if (url.pathname.endsWith('/openapi.json'))
      return answer({ info: { title: 'Airlock kernel API' } });
    const list = Object.values(LISTS).find((one) => url.pathname.endsWith(one.path));
    if (!list) {
      response.writeHead(404, { 'content-type': 'application/json' });
      return response.end(JSON.stringify({ error: { code: 'not_found', detail: url.pathname } }));
    }
    const cursor = url.searchParams.get('cursor');
    asked.push(`${list.path} ${cursor ?? '-'}`);
    const cycle = url.pathname.startsWith('/cycle/');
    const next = asked.length >= GIVE_UP ? null : cycle ? (cursor === 'c1' ? 'c2' : 'c1') : 'same';
    answer({
      [list.rows]: [{ id: `row_${asked.length}` }],
      next_cursor: next,
      total: 1,
    });
  });
}

describe('airlock runs|decisions|notifications list --all stops when the kernel repeats a cursor', {
  timeout: 120_000,
}, () => {
  const asked: string[] = [];
  const server = cyclingKernel(asked);
  let url = '';

  beforeAll(async () => {
    const port = await freePort();
    await new Promise<void>((listening) => server.listen(port, '127.0.0.1', listening));
    url = `http://127.0.0.1:${port}`;
  });
  afterAll(async () => {
    await new Promise((closed) => server.close(closed));
  });

  const target = (base: string) => ({
    url: base,
    workspaceId: 'ws_x',
    tokens: { member: 'alk_member_x' },
  });

  it.each(Object.keys(LISTS))(
    '%s list --all: a page that hands back the cursor it was read with ends in exit 1',
    async (list) => {
      asked.length = 0;
      const outcome = await runOperatorCli(target(url), [list, 'list', '--all']);
      expect(outcome.code).toBe(1);
      expect(outcome.stderr).toContain(
        `airlock ${list} list --all: the kernel answered the same cursor twice ("same")`,
      );
      expect(outcome.stderr).not.toMatch(/\n\s+at /);
      expect(outcome.stdout).toBe('');
      // The first page, then the page read with "same", which hands "same" again.
      expect(asked).toHaveLength(2);
    },
  );

  it('a cycle of two cursors ends too, after the page that hands the first one again', async () => {
    asked.length = 0;
    const outcome = await runOperatorCli(target(`${url}/cycle`), ['runs', 'list', '--all']);
    expect(outcome.code).toBe(1);
    expect(outcome.stderr).toContain('the kernel answered the same cursor twice ("c1")');
    expect(asked).toEqual(['/runs -', '/runs c1', '/runs c2']);
  });
});
