import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readAudit } from '../audit/read-audit.js';
import { CLI_NODE_ARGS } from '../testing/cli-entry.js';
import { type Deployment, deploy } from '../testing/harness.js';
import { runToEnd } from '../testing/kernel-process.js';
import { operatorCliEnv, plantCalls, waitForDecisions } from '../testing/operator-cli.js';
import { backends } from '../testing/stores.js';

const all = await backends();

/** Six edits of this many bytes each: more than the 4 MiB a page holds. */
const EDIT_BYTES = 900_000;
const EDITS = 6;

/** Runs `airlock audit export` with these flags, its megabytes of output kept whole. */
function exportAudit(d: Deployment, flags: string[]) {
  return runToEnd(process.execPath, [...CLI_NODE_ARGS, 'audit', 'export', ...flags], {
    env: operatorCliEnv(d),
    maxBuffer: 256 * 1024 * 1024,
  });
}

/** The sequence numbers of JSON lines. */
function seqsOf(text: string): number[] {
  return text
    .split('\n')
    .filter(Boolean)
    .map((line) => (JSON.parse(line) as { seq: number }).seq);
}

/** A page of the workspace's trail over REST: its sequence numbers and its size. */
async function page(d: Deployment, query: string): Promise<{ seqs: number[]; bytes: number }> {
  const response = await fetch(`${d.url}${d.ws}/audit?${query}`, {
    headers: { authorization: `Bearer ${d.tokens.member}` },
  });
  expect(response.status).toBe(200);
  const text = await response.text();
  return { seqs: seqsOf(text), bytes: Buffer.byteLength(text) };
}

for (const backend of all) {
  // Each step moves megabytes (and the export starts the CLI): slow on a loaded machine.
  describe.skipIf(backend.skip !== null)(
    `audit pages bounded by bytes (${backend.name})`,
    { timeout: 180_000 },
    () => {
      let d: Deployment;
      let every: number[];
      beforeAll(async () => {
        d = await deploy(backend);
        const calls = Array.from({ length: EDITS }, (_, i) => ({
          name: 'bash',
          input: { command: `echo ${i}` },
          id: `c${i}`,
        }));
        const run = await plantCalls(d, calls);
        await waitForDecisions(d, EDITS);
        const rows = (await d.member.get(`${d.ws}/decisions`)).body.decisions as { key: string }[];
        for (const [i, row] of rows.entries()) {
          const edited = { command: `echo ${i} ${'x'.repeat(EDIT_BYTES)}` };
          const approved = await d.member.post(`${d.ws}/runs/${run}/tasks/${row.key}/approve`, {
            tool_input: edited,
          });
          expect(approved.status).toBe(200);
        }
        // One record a page reads the whole trail, whatever the byte budget.
        every = [];
        for (let after = 0; ; ) {
          const one = await page(d, `limit=1&after=${after}`);
          if (one.seqs.length === 0) break;
          every.push(...one.seqs);
          after = one.seqs.at(-1)!;
        }
        expect(every.length).toBeGreaterThan(EDITS);
      }, 180_000);
      afterAll(async () => {
        await d?.close();
      });

      it('stops a page of large edits near 4 MiB, and pages on to the whole trail', async () => {
        const first = await page(d, 'limit=1000');
        expect(first.seqs.length).toBeGreaterThan(0);
        expect(first.seqs.length).toBeLessThan(every.length);
        expect(first.bytes).toBeLessThan(6 * 1024 * 1024);
        const read = [...first.seqs];
        for (let after = first.seqs.at(-1)!; ; ) {
          const next = await page(d, `after=${after}`);
          if (next.seqs.length === 0) break;
          read.push(...next.seqs);
          after = next.seqs.at(-1)!;
        }
        expect(read).toEqual(every);
        // Newest first, paged back with before, the same records in reverse.
        const back: number[] = [];
        for (let query = 'order=newest'; ; ) {
          const next = await page(d, query);
          if (next.seqs.length === 0) break;
          back.push(...next.seqs);
          query = `order=newest&before=${next.seqs.at(-1)}`;
        }
        expect(back).toEqual([...every].reverse());
      });

      it('hands a record larger than the budget over alone, never an empty page', async () => {
        const store = d.airlock.store;
        const read: number[] = [];
        let alone = 0;
        for (let after = 0; ; ) {
          const { records, more } = await readAudit(store, {
            workspaceId: d.workspaceId,
            after,
            limit: 1000,
            maxBytes: 1000,
          });
          if (records.length === 0) {
            expect(more).toBe(false);
            break;
          }
          if (records.some((record) => record.decision === 'edited')) {
            expect(records).toHaveLength(1);
            alone += 1;
          }
          read.push(...records.map((record) => record.seq));
          after = records.at(-1)!.seq;
        }
        expect(alone).toBe(EDITS);
        expect(read).toEqual(every);
      });

      it('airlock audit export writes every record of a trail of large edits', async () => {
        // Two CLI processes, each a start of its own: at once.
        const [exported, newest] = await Promise.all([
          exportAudit(d, []),
          exportAudit(d, ['--newest']),
        ]);
        expect(exported.code, exported.stderr).toBe(0);
        expect(seqsOf(exported.stdout)).toEqual(every);
        expect(newest.code, newest.stderr).toBe(0);
        expect(seqsOf(newest.stdout)).toEqual([...every].reverse());
      });
    },
  );
}
