import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addMember, type Deployment, deploy, waitFor } from '../testing/harness.js';
import { backends } from '../testing/stores.js';

const all = await backends();

// biome-ignore lint/suspicious/noExplicitAny: tests read JSON lines loosely and assert on them.
type Loose = any;

/** The sequence numbers of an audit answer (JSON lines over REST). */
async function seqs(d: Deployment, path: string): Promise<number[]> {
  const response = await fetch(`${d.url}${path}`, {
    headers: { authorization: `Bearer ${d.tokens.member}` },
  });
  expect(response.status).toBe(200);
  const text = await response.text();
  return text
    .split('\n')
    .filter(Boolean)
    .map((line) => (JSON.parse(line) as Loose).seq);
}

for (const backend of all) {
  describe.skipIf(backend.skip !== null)(`the audit trail's order (${backend.name})`, () => {
    let d: Deployment;
    let run: string;
    beforeAll(async () => {
      d = await deploy(backend);
      // Each credential made is a decision on the workspace's trail.
      for (const label of ['m1', 'm2', 'm3', 'm4', 'm5']) await addMember(d, label);
      run = (
        await d.agent.post(`${d.ws}/runs`, {
          approval_mode: 'bypass',
          provider: {
            kind: 'scripted',
            rounds: [{ tool_calls: [{ name: 'a' }, { name: 'b' }, { name: 'c' }] }, { final: 'f' }],
          },
        })
      ).body.id;
      await waitFor(async () => (await seqs(d, `${d.ws}/runs/${run}/audit`)).length >= 3);
    }, 60_000);
    afterAll(async () => {
      await d?.close();
    });

    it('reads the newest decisions first, paging back with before', async () => {
      const oldest = await seqs(d, `${d.ws}/audit`);
      expect(oldest.length).toBeGreaterThanOrEqual(8);
      const newestFirst = [...oldest].reverse();
      const first = await seqs(d, `${d.ws}/audit?order=newest&limit=3`);
      expect(first).toEqual(newestFirst.slice(0, 3));
      const second = await seqs(d, `${d.ws}/audit?order=newest&limit=3&before=${first.at(-1)}`);
      expect(second).toEqual(newestFirst.slice(3, 6));
      // `before` bounds an oldest-first read too, and `after` a newest-first one.
      expect(await seqs(d, `${d.ws}/audit?before=${oldest[3]}`)).toEqual(oldest.slice(0, 3));
      expect(await seqs(d, `${d.ws}/audit?order=newest&after=${oldest.at(-3)}`)).toEqual(
        newestFirst.slice(0, 2),
      );
      expect(await seqs(d, `${d.ws}/audit?order=oldest`)).toEqual(oldest);
    });

    it("reads one run's decisions newest first", async () => {
      const oldest = await seqs(d, `${d.ws}/runs/${run}/audit`);
      expect(await seqs(d, `${d.ws}/runs/${run}/audit?order=newest`)).toEqual(
        [...oldest].reverse(),
      );
    });

    it('refuses an order it does not know, and a before of 0, as invalid_input naming the field', async () => {
      for (const [query, pointer] of [
        ['order=sideways', '/order'],
        ['order=NEWEST', '/order'],
        ['before=0', '/before'],
        ['before=-1', '/before'],
      ] as const) {
        const answer = await d.member.get(`${d.ws}/audit?${query}`);
        expect(answer.status, query).toBe(400);
        expect(answer.body.error.code, query).toBe('invalid_input');
        expect(
          answer.body.error.problems.map((p: Loose) => p.pointer),
          query,
        ).toContain(pointer);
      }
    });

    it('answers the same over tRPC', async () => {
      const input = encodeURIComponent(
        JSON.stringify({ workspace_id: d.workspaceId, order: 'newest', limit: 2 }),
      );
      const response = await fetch(`${d.url}/trpc/audit.export?input=${input}`, {
        headers: { authorization: `Bearer ${d.tokens.member}` },
      });
      expect(response.status).toBe(200);
      const body = (await response.json()) as Loose;
      const viaTrpc = body.result.data.records.map((r: Loose) => r.seq);
      expect(viaTrpc).toEqual(await seqs(d, `${d.ws}/audit?order=newest&limit=2`));
      const bad = encodeURIComponent(
        JSON.stringify({ workspace_id: d.workspaceId, order: 'sideways' }),
      );
      const refused = await fetch(`${d.url}/trpc/audit.export?input=${bad}`, {
        headers: { authorization: `Bearer ${d.tokens.member}` },
      });
      expect(refused.status).toBe(400);
      expect(((await refused.json()) as Loose).error.data.error.code).toBe('invalid_input');
    });
  });
}
