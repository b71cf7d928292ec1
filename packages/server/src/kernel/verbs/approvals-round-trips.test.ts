import { Socket } from 'node:net';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type Answer,
  type Deployment,
  deploy,
  putOverlay,
  waitFor,
} from '../../testing/harness.js';
import { backends } from '../../testing/stores.js';

const postgres = (await backends()).find((backend) => backend.name === 'postgres')!;

/**
 * Records what this process sends to PostgreSQL's port, write by write: the
 * SQL of each statement the `pg` driver is handed, grouped by the write to
 * the server (one network round trip) that carried it.
 */
function recordWrites(port: number): { writes: string[][]; stop: () => void } {
  const socket = Socket.prototype as unknown as Record<
    '_write' | '_writev',
    (...args: unknown[]) => unknown
  >;
  const client = pg.Client.prototype as unknown as { query(...args: unknown[]): unknown };
  const originals = { _write: socket._write, _writev: socket._writev };
  const query = client.query;
  const writes: string[][] = [];
  let pending: string[] = [];
  for (const method of ['_write', '_writev'] as const) {
    const original = originals[method];
    socket[method] = function (this: Socket, ...args: unknown[]) {
      if (this.remotePort === port) {
        writes.push(pending);
        pending = [];
      }
      return original.apply(this, args);
    };
  }
  client.query = function (this: unknown, ...args: unknown[]) {
    const first = args[0] as string | { text?: string };
    pending.push(typeof first === 'string' ? first : (first?.text ?? ''));
    return query.apply(this, args);
  };
  return {
    writes,
    stop() {
      Object.assign(socket, originals);
      client.query = query;
    },
  };
}

/** The write whose statements include one matching `pattern`. */
function writeOf(writes: string[][], pattern: RegExp): string[] {
  const found = writes.filter((write) => write.some((statement) => pattern.test(statement)));
  expect(found, `one write carries ${pattern}`).toHaveLength(1);
  return found[0]!;
}

/*
 * An approve reads its row with its run's lock, then its workspace's policy, its roster, the
 * approvals given and the overlays the stage weighs the call against again, all in one write:
 * the stage's second crossing costs no round trip of its own on PostgreSQL.
 */
describe.skipIf(postgres.skip !== null)('an approve on PostgreSQL', () => {
  let d: Deployment;
  let port: number;
  beforeAll(async () => {
    // No sweep during a count: only the approve talks to the database.
    d = await deploy(postgres, { sweepIntervalMs: 3_600_000 });
    port = Number(new URL(process.env.AIRLOCK_TEST_DATABASE_URL!).port || 5432);
    // A member's user document: the stage reads the workspace's guardrails' digests.
    const own = `${d.ws}/overlays/user/me`;
    const groups = [{ ruleSetId: 'supervised', rules: [{ verdict: 'ask', tools: ['sudo'] }] }];
    expect((await putOverlay(d.member, own, groups)).status).toBe(200);
  });
  afterAll(async () => {
    await d?.close();
  });

  async function parkedDeploy(): Promise<string> {
    const created = await d.agent.post(`${d.ws}/runs`, {
      approval_mode: 'ask',
      input: 'ship it',
      provider: {
        kind: 'scripted',
        rounds: [{ tool_calls: [{ name: 'deploy', input: { env: 'prod' } }] }, { final: 'done' }],
      },
    });
    expect(created.status).toBe(201);
    const runId = created.body.id as string;
    await waitFor(
      async () =>
        (await d.member.get(`${d.ws}/runs/${runId}/tasks/t1`)).body.state === 'needs_approval',
    );
    await d.airlock.kernel.idle();
    return runId;
  }

  it('sends the row with its lock, and every read of the workspace in one write', async () => {
    // The first approve warms what every later one reuses (the credential, the guardrails).
    const warm = await parkedDeploy();
    expect((await d.member.post(`${d.ws}/runs/${warm}/tasks/t1/approve`, {})).status).toBe(200);
    const runId = await parkedDeploy();
    const recorded = recordWrites(port);
    let approved: Answer;
    try {
      approved = await d.member.post(`${d.ws}/runs/${runId}/tasks/t1/approve`, {});
      await d.airlock.kernel.idle();
    } finally {
      recorded.stop();
    }
    expect(approved.status).toBe(200);
    expect(approved.body.state).toBe('runnable');
    const { writes } = recorded;
    expect(writeOf(writes, /from "runs" .* for update/)).toEqual(
      expect.arrayContaining([expect.stringMatching(/^select \* from "tasks"/)]),
    );
    // The roster's read (authentication, when it reads the token again, reads credentials too).
    const reads = writeOf(writes, /^select "id", "kind", "label", "revoked_at" from "credentials"/);
    for (const table of ['approval_policies', 'overlay_documents', 'task_approvals']) {
      expect(reads).toEqual(expect.arrayContaining([expect.stringContaining(`from "${table}"`)]));
    }
    // The stage read the run's overlays and the guardrails' digests once, in that write.
    expect(writes.flat().filter((sql) => sql.includes('from "overlay_documents"'))).toHaveLength(1);
  });
});
