import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Deployment, deploy, waitFor } from '../testing/harness.js';
import { type Backend, backends } from '../testing/stores.js';

const postgres = (await backends()).find((backend) => backend.name === 'postgres')!;

/**
 * PostgreSQL with deadlock detection out of reach: two units waiting on each other stay
 * waiting until lock_timeout fails one of them (store_unavailable), where the kernel would
 * otherwise retry the victim a second later and the cycle would go unseen. No wait of units
 * that take their locks in one order comes anywhere near the bound.
 */
const undetectedDeadlocks: Backend = {
  ...postgres,
  async open(clock) {
    const opened = await postgres.open(clock);
    const url = opened.location.databaseUrl!;
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const name = client.escapeIdentifier(new URL(url).pathname.slice(1));
      await client.query(`alter database ${name} set deadlock_timeout = '10min'`);
      await client.query(`alter database ${name} set lock_timeout = '60s'`);
    } finally {
      await client.end();
    }
    return opened;
  },
};

type Rule = { verdict: string; tools?: string[]; arguments?: { '': { env: string } } };
type Group = { ruleSetId: string; rules: Rule[] };

/*
 * An approve that remembers into a conversation's overlay and a replace of that document sent
 * at the same moment take turns on the workspace's lock on PostgreSQL: the remember appends to
 * whatever the replace wrote, or the replace (whose digest is then stale) is refused 409. The
 * approve never fails on the replace's write, and no write that was answered 200 is lost.
 */
describe.skipIf(postgres.skip !== null)(
  'remember and overlays.replace at once on PostgreSQL',
  () => {
    let d: Deployment;
    beforeAll(async () => {
      d = await deploy(undetectedDeadlocks);
      const put = await d.agent.put('/agent_api/v1/profile/configuration', {
        approval_mode: 'bypass',
        permission_rule_set: 'supervised',
      });
      expect(put.status).toBe(200);
    });
    afterAll(async () => {
      await d?.close();
    });

    async function parkedTurn(conversation: string, env: string): Promise<string> {
      const started = await d.agent.post(`/agent_api/v1/conversations/${conversation}/inputs`, {
        input: 'go',
        provider: {
          kind: 'scripted',
          rounds: [{ tool_calls: [{ name: 'deploy', input: { env } }] }, { final: 'done' }],
        },
      });
      expect(started.status).toBe(201);
      const runId = started.body.id as string;
      await waitFor(
        async () =>
          (await d.member.get(`${d.ws}/runs/${runId}/tasks/t1`)).body.state === 'needs_approval',
        { timeoutMs: 60_000, what: `the deploy to ${env} to park` },
      );
      return runId;
    }

    it('loses neither write and answers every approve', async () => {
      const conversation = (await d.agent.post('/agent_api/v1/conversations')).body.id as string;
      const overlay = `${d.ws}/overlays/conversation/${conversation}`;
      const remembered: string[] = [];
      const replaced: string[] = [];
      for (let round = 0; round < 12; round++) {
        const env = `e${round}`;
        const runId = await parkedTurn(conversation, env);
        const read = (await d.member.get(overlay)).body as { digest: string; groups: Group[] };
        const rules = read.groups.find((group) => group.ruleSetId === 'supervised')?.rules ?? [];
        // Replaces sent a few milliseconds apart across the approve's unit: one may land between
        // the remember's read of the document and its write. At most one of them is answered 200.
        const approving = d.member.post(`${d.ws}/runs/${runId}/tasks/t1/approve`, {
          remember: { scope: 'conversation' },
        });
        const replacing = Array.from({ length: 16 }, (_, slot) => slot).map(async (slot) => {
          await new Promise((resolve) => setTimeout(resolve, slot));
          const denied = `tool_${round}_${slot}`;
          const answer = await d.member.put(overlay, {
            expected_digest: read.digest,
            groups: [
              { ruleSetId: 'supervised', rules: [...rules, { verdict: 'deny', tools: [denied] }] },
            ],
          });
          return { denied, answer };
        });
        const approved = await approving;
        expect({ round, status: approved.status, body: approved.body }).toMatchObject({
          round,
          status: 200,
        });
        remembered.push(env);
        for (const { denied, answer } of await Promise.all(replacing)) {
          if (answer.status === 200) replaced.push(denied);
          else {
            expect({ status: answer.status, code: answer.body.error.code }).toEqual({
              status: 409,
              code: 'stale_digest',
            });
          }
        }
      }
      const document = (await d.member.get(overlay)).body as { groups: Group[] };
      const kept = document.groups.flatMap((group) => group.rules);
      const envs = kept.flatMap((rule) => (rule.arguments ? [rule.arguments[''].env] : []));
      const denies = kept.flatMap((rule) => (rule.verdict === 'deny' ? (rule.tools ?? []) : []));
      expect([...envs].sort()).toEqual([...remembered].sort());
      expect([...denies].sort()).toEqual([...replaced].sort());
    }, 600_000);
  },
);
