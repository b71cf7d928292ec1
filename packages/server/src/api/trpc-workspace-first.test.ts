import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Deployment, deploy } from '../testing/harness.js';
import { backends } from '../testing/stores.js';

const [sqlite] = await backends();

// biome-ignore lint/suspicious/noExplicitAny: tests read JSON answers loosely and assert on them.
type Loose = any;

describe.skipIf(sqlite!.skip !== null)('a request naming another workspace', () => {
  let d: Deployment;
  beforeAll(async () => {
    d = await deploy(sqlite!);
  }, 60_000);
  afterAll(async () => {
    await d?.close();
  });

  /** The status and error code of an answer. */
  async function refusal(response: Response): Promise<[number, string]> {
    const body = (await response.json()) as Loose;
    return [response.status, body.error.data?.error.code ?? body.error.code];
  }

  it('is refused as forbidden before its input is read, over tRPC as over REST', async () => {
    const headers = {
      authorization: `Bearer ${d.tokens.member}`,
      'content-type': 'application/json',
    };
    const cases: [string, RequestInit, string, RequestInit][] = [
      [
        '/api/v1/workspaces/ws_other/runs?limit=0',
        { headers },
        `/trpc/runs.list?input=${encodeURIComponent(JSON.stringify({ workspace_id: 'ws_other', limit: 0 }))}`,
        { headers },
      ],
      [
        '/api/v1/workspaces/ws_other/credentials',
        { method: 'POST', headers, body: '{"kind":"nope"}' },
        '/trpc/credentials.create',
        { method: 'POST', headers, body: '{"workspace_id":"ws_other","kind":"nope"}' },
      ],
      [
        '/api/v1/workspaces/ws_other/retention',
        { method: 'PUT', headers, body: '{"events_days":-1}' },
        '/trpc/retention.put',
        { method: 'POST', headers, body: '{"workspace_id":"ws_other","events_days":-1}' },
      ],
    ];
    for (const [restPath, restInit, trpcPath, trpcInit] of cases) {
      const rest = await refusal(await fetch(`${d.url}${restPath}`, restInit));
      expect(rest, restPath).toEqual([403, 'forbidden']);
      const trpc = await refusal(await fetch(`${d.url}${trpcPath}`, trpcInit));
      expect(trpc, trpcPath).toEqual(rest);
    }
  });

  it('still has its input checked when it names its own workspace', async () => {
    const input = encodeURIComponent(JSON.stringify({ workspace_id: d.workspaceId, limit: 0 }));
    const answer = await fetch(`${d.url}/trpc/runs.list?input=${input}`, {
      headers: { authorization: `Bearer ${d.tokens.member}` },
    });
    expect(await refusal(answer)).toEqual([400, 'invalid_input']);
  });
});
