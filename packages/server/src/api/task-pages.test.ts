import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Deployment, deploy, runOfCalls } from '../testing/harness.js';
import { bashPreTool, postHookEvent } from '../testing/hooked-events.js';
import { runOperatorCli } from '../testing/operator-cli.js';
import { backends } from '../testing/stores.js';
import { readTaskPage, TASK_PAGE_BYTES } from './task-pages.js';

/**
 * tasks.list with no limit answered every row of a run in one page, whatever their size: a run
 * of thousands of calls with large inputs made one answer of unbounded size. A page ends once
 * its rows' text passes TASK_PAGE_BYTES, limit or none, and carries next_cursor; the cursor
 * reads on from there, every row once, and `airlock runs show` follows it.
 */

const all = await backends();
const PROFILE = {
  approval_mode: 'ask',
  tool_manifest: [{ name: 'Bash', input_schema: { type: 'object' }, risk_traits: ['execute'] }],
};
/** A command whose call, counted twice, is about five-eighths of a page: one fits, not two. */
const big = (n: number) => `echo ${String(n).repeat(Math.floor((5 * TASK_PAGE_BYTES) / 16))}`;
/** Big, small, big, small, big: pages of t1-t2, t3-t4 and t5. */
const COMMANDS = [big(1), 'echo small 2', big(3), 'echo small 4', big(5)];

for (const backend of all) {
  describe.skipIf(backend.skip !== null)(
    `a run's rows past a page's bytes (${backend.name})`,
    () => {
      let d: Deployment;
      let runId: string;
      beforeAll(async () => {
        d = await deploy(backend);
        expect((await d.agent.put('/agent_api/v1/profile/configuration', PROFILE)).status).toBe(
          200,
        );
        for (const [n, command] of COMMANDS.entries()) {
          const parked = await postHookEvent(d, bashPreTool(command, `tu-${n}`));
          expect(parked.body.task_state, JSON.stringify(parked.body).slice(0, 300)).toBe(
            'needs_approval',
          );
          runId = parked.body.run_id as string;
        }
      }, 120_000);
      afterAll(async () => {
        await d?.close();
      });

      /** Every page from the first, with `query` (`limit=50`, or nothing). */
      async function pages(query: string): Promise<string[][]> {
        const read: string[][] = [];
        let cursor: string | null = null;
        do {
          const params = [query, cursor === null ? '' : `cursor=${cursor}`].filter(Boolean);
          const page = await d.member.get(`${d.ws}/runs/${runId}/tasks?${params.join('&')}`);
          expect(page.status).toBe(200);
          const tasks = page.body.tasks as { key: string; tool_input: { command: string } }[];
          for (const task of tasks) {
            expect(task.tool_input.command).toBe(COMMANDS[Number(task.key.slice(1)) - 1]);
          }
          read.push(tasks.map((task) => task.key));
          cursor = page.body.next_cursor as string | null;
        } while (cursor !== null && read.length < 10);
        return read;
      }

      it('ends a page at its byte budget without a limit, and the cursor reads every row once', async () => {
        expect(await pages('')).toEqual([['t1', 't2'], ['t3', 't4'], ['t5']]);
      });

      it('ends a page at its byte budget under a limit too', async () => {
        expect(await pages('limit=50')).toEqual([['t1', 't2'], ['t3', 't4'], ['t5']]);
        expect(await pages('limit=1')).toEqual([['t1'], ['t2'], ['t3'], ['t4'], ['t5']]);
        expect(await pages('limit=3')).toEqual([['t1', 't2'], ['t3', 't4'], ['t5']]);
      });

      it.skipIf(backend.name !== 'sqlite')(
        'shows every row in airlock runs show',
        async () => {
          const shown = await runOperatorCli(d, ['runs', 'show', runId]);
          expect(shown.code, shown.stderr).toBe(0);
          const keys = shown.stdout
            .split('\n')
            .map((line) => /^\s+(t\d+)\s/.exec(line)?.[1])
            .filter(Boolean);
          expect(keys).toEqual(['t1', 't2', 't3', 't4', 't5']);
        },
        60_000,
      );
    },
  );
}

/*
 * Without a limit a page is read in several reads (the first of FIRST_READ_ROWS rows, then as
 * many as still fit): every row of the run in one page, once each, in order.
 */
for (const backend of all) {
  describe.skipIf(backend.skip !== null)(`a page read in several reads (${backend.name})`, () => {
    let d: Deployment;
    afterAll(async () => {
      await d?.close();
    });

    it('holds every row once, in planting order', async () => {
      d = await deploy(backend);
      const runId = await runOfCalls(d, {
        mode: 'ask',
        tool: 'wipe',
        count: 12,
        state: 'needs_approval',
      });
      const keys = Array.from({ length: 12 }, (_, n) => `t${n + 1}`);
      for (const firstRead of [1, 2, 5, 11, 12]) {
        const page = await readTaskPage(d.airlock.store, runId, {
          limit: undefined,
          afterKey: undefined,
          firstRead,
        });
        expect(page.rows.map((row) => row.key)).toEqual(keys);
        expect(page.more).toBe(false);
        const rest = await readTaskPage(d.airlock.store, runId, {
          limit: undefined,
          afterKey: 't9',
          firstRead,
        });
        expect(rest.rows.map((row) => row.key)).toEqual(['t10', 't11', 't12']);
      }
    });
  });
}
