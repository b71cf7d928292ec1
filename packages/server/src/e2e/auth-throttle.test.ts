import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { startAirlock } from '../airlock.js';
import { DEFAULT_AUTH_FAILURE_LIMIT } from '../api/auth-throttle.js';
import { type Deployment, deploy, waitFor } from '../testing/harness.js';
import { backends } from '../testing/stores.js';

const all = await backends();

/** A token of the right shape that no credential holds. */
const wrongToken = (i: number) => `alk_member_${i.toString(16).padStart(43, '0')}`;

interface Refusal {
  status: number;
  code: string | undefined;
  retryAfter: string | null;
}

async function getWith(d: Deployment, token: string): Promise<Refusal> {
  const response = await fetch(`${d.url}${d.ws}/runs`, {
    headers: { authorization: `Bearer ${token}` },
  });
  const body = (await response.json()) as { error?: { code: string } };
  return {
    status: response.status,
    code: body.error?.code,
    retryAfter: response.headers.get('retry-after'),
  };
}

function socketStatus(url: string): Promise<number> {
  return new Promise((resolve) => {
    const socket = new WebSocket(url);
    socket.once('unexpected-response', (_req, res) => {
      resolve(res.statusCode ?? 0);
      socket.terminate();
    });
    socket.once('open', () => {
      resolve(101);
      socket.close();
    });
    socket.once('error', () => undefined);
  });
}

for (const backend of all) {
  describe.skipIf(backend.skip !== null)(
    `failed authentication is throttled per peer (${backend.name})`,
    () => {
      let d: Deployment;
      afterEach(async () => {
        await d?.close();
      });

      it("2,000 wrong tokens meet 429 rate_limited with Retry-After; a member's approve in the same window succeeds", async () => {
        // The default's burst with a refill slow enough that the clock never races the test.
        d = await deploy(backend, {
          authFailureLimit: { burst: DEFAULT_AUTH_FAILURE_LIMIT.burst, perSecond: 1 / 600 },
        });
        const created = await d.agent.post(`${d.ws}/runs`, {
          approval_mode: 'ask',
          input: 'x',
          provider: {
            kind: 'scripted',
            rounds: [{ tool_calls: [{ name: 'bash', input: { command: 'ls' } }] }, { final: 'f' }],
          },
        });
        expect(created.status).toBe(201);
        const runId = created.body.id as string;
        await waitFor(async () => {
          const tasks = (await d.member.get(`${d.ws}/runs/${runId}/tasks`)).body.tasks;
          return tasks[0]?.state === 'needs_approval';
        });
        const answers: Refusal[] = [];
        let approve: Promise<{ status: number; body: { state?: string } }> | null = null;
        for (let batch = 0; batch < 40; batch++) {
          const sent = Array.from({ length: 50 }, (_, i) => getWith(d, wrongToken(batch * 50 + i)));
          // Halfway through the flood, from the same address, a person approves.
          if (batch === 20) approve = d.member.post(`${d.ws}/runs/${runId}/tasks/t1/approve`);
          answers.push(...(await Promise.all(sent)));
        }
        expect(answers).toHaveLength(2000);
        const throttled = answers.filter((a) => a.status === 429);
        const refused = answers.filter((a) => a.status === 401);
        expect(throttled.length + refused.length).toBe(2000);
        // The burst, then nothing but 429 (the refill grants one failure per ten minutes).
        expect(refused.length).toBe(DEFAULT_AUTH_FAILURE_LIMIT.burst);
        expect(throttled.length).toBe(2000 - DEFAULT_AUTH_FAILURE_LIMIT.burst);
        for (const answer of throttled) {
          expect(answer.code).toBe('rate_limited');
          expect(Number(answer.retryAfter)).toBeGreaterThanOrEqual(1);
        }
        const approved = await approve!;
        expect(approved.status).toBe(200);
        expect(approved.body.state).toBe('runnable');
        // Valid credentials of every plane still pass while the address is throttled.
        expect((await getWith(d, d.tokens.member)).status).toBe(200);
        expect((await getWith(d, d.tokens.agent)).status).toBe(200);
        // The other surfaces count the same failures: tRPC and the WebSocket feed refuse too.
        const input = encodeURIComponent(JSON.stringify({ workspace_id: d.workspaceId }));
        const viaTrpc = await fetch(`${d.url}/trpc/runs.list?input=${input}`, {
          headers: { authorization: `Bearer ${wrongToken(9999)}` },
        });
        expect(viaTrpc.status).toBe(429);
        expect(viaTrpc.headers.get('retry-after')).not.toBeNull();
        const feed = `${d.url.replace('http', 'ws')}${d.ws}/feed?access_token=`;
        expect(await socketStatus(`${feed}${wrongToken(10_000)}`)).toBe(429);
        expect(await socketStatus(`${feed}${d.tokens.member}`)).toBe(101);
        // No token at all counts as a failure too.
        expect((await fetch(`${d.url}${d.ws}/runs`)).status).toBe(429);
      }, 120_000);

      it('is on by default, whatever the store', async () => {
        const opened = await backend.open();
        await opened.store.close();
        const airlock = await startAirlock({ ...opened.location, validateOutputs: false });
        try {
          // Wrong tokens until the first 429. The bucket refills while they are sent (one a
          // second by default), so on a slow machine it may take a few more than the burst;
          // never fewer.
          const { burst } = DEFAULT_AUTH_FAILURE_LIMIT;
          const statuses: number[] = [];
          for (let i = 0; i < burst * 3 && statuses.at(-1) !== 429; i++) {
            const answer = await fetch(`${airlock.url}/api/v1/workspaces/w/runs`, {
              headers: { authorization: `Bearer ${wrongToken(i)}` },
            });
            statuses.push(answer.status);
          }
          expect(statuses.at(-1)).toBe(429);
          expect(statuses.length).toBeGreaterThan(burst);
          expect(statuses.slice(0, -1).every((status) => status === 401)).toBe(true);
        } finally {
          await airlock.close();
          await opened.dispose();
        }
      });
    },
  );
}
