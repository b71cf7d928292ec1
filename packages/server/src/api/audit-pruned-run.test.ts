import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Deployment, deploy } from '../testing/harness.js';
import { endedRun } from '../testing/retention-runs.js';
import { backends } from '../testing/stores.js';

const all = await backends();
const DAY = 86_400_000;

/** An audit read over REST: its status and its lines' sequence numbers. */
async function auditOf(d: Deployment, path: string, token = d.tokens.member) {
  const response = await fetch(`${d.url}${path}`, {
    headers: { authorization: `Bearer ${token}` },
  });
  const text = await response.text();
  if (response.status !== 200) return { status: response.status, body: JSON.parse(text) };
  const seqs = text
    .split('\n')
    .filter(Boolean)
    .map((line) => (JSON.parse(line) as { seq: number }).seq);
  return { status: 200, seqs };
}

for (const backend of all) {
  describe.skipIf(backend.skip !== null)(`the audit of a pruned run (${backend.name})`, () => {
    let d: Deployment;
    let offset = 0;
    let pruned: string;
    let kept: number[];
    beforeAll(async () => {
      d = await deploy(backend, {
        clock: () => Date.now() + offset,
        retention: {
          exportDir: mkdtempSync(join(tmpdir(), 'airlock-exports-')),
          intervalMs: 10 * 365 * DAY,
        },
      });
      pruned = await endedRun(d);
      const before = await auditOf(d, `${d.ws}/runs/${pruned}/audit`);
      expect(before.status).toBe(200);
      kept = before.seqs!;
      expect(kept.length).toBeGreaterThan(0);
      offset += 100 * DAY;
      const policy = { events_days: null, runs_days: 90, audit_days: null };
      expect((await d.member.put(`${d.ws}/retention`, policy)).status).toBe(200);
      expect((await d.airlock.kernel.pruner!.pruneNow()).runs).toBe(1);
      expect((await d.member.get(`${d.ws}/runs/${pruned}`)).status).toBe(404);
    }, 60_000);
    afterAll(async () => {
      await d?.close();
    });

    it('answers the records retention kept, as the workspace export does', async () => {
      const after = await auditOf(d, `${d.ws}/runs/${pruned}/audit`);
      expect(after).toEqual({ status: 200, seqs: kept });
      // A page past its last record is empty, not a 404: an export paging on ends there.
      const past = await auditOf(d, `${d.ws}/runs/${pruned}/audit?after=${kept.at(-1)}`);
      expect(past).toEqual({ status: 200, seqs: [] });
    });

    it('still answers run_not_found for a run the workspace never held', async () => {
      const none = await auditOf(d, `${d.ws}/runs/run_never/audit`);
      expect(none.status).toBe(404);
      expect(none.body.error.code).toBe('run_not_found');
    });

    it("shows an agent credential no pruned run's records, whose application is no longer known", async () => {
      const agent = await auditOf(d, `${d.ws}/runs/${pruned}/audit`, d.tokens.agent);
      expect(agent.status).toBe(404);
      expect(agent.body.error.code).toBe('run_not_found');
    });
  });
}
