import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kernelStores } from '../support/postgres.js';
import { caller, madeUpLike, startTwoWorkspaces, type TwoWorkspaces } from './two-workspaces.js';

interface BatchItem {
  result?: { data?: unknown };
  error?: { data?: { error?: { code: string; detail: string } } };
}

/** One tRPC batch request of `calls` (all queries or all mutations) with a token; its items. */
async function batch(
  url: string,
  token: string,
  kind: 'query' | 'mutation',
  calls: { name: string; input: Record<string, unknown> }[],
): Promise<BatchItem[]> {
  const names = calls.map((call) => call.name).join(',');
  const inputs = JSON.stringify(Object.fromEntries(calls.map((call, i) => [i, call.input])));
  const headers: Record<string, string> = { authorization: `Bearer ${token}` };
  const response =
    kind === 'query'
      ? await fetch(`${url}/trpc/${names}?batch=1&input=${encodeURIComponent(inputs)}`, { headers })
      : await fetch(`${url}/trpc/${names}?batch=1`, {
          method: 'POST',
          headers: { ...headers, 'content-type': 'application/json' },
          body: inputs,
        });
  return (await response.json()) as BatchItem[];
}

/** An item's error with `value` put as `<id>`, so two refusals of two ids compare. */
function refusal(item: BatchItem | undefined, value: string) {
  const error = item?.error?.data?.error;
  return error && { code: error.code, detail: error.detail.split(value).join('<id>') };
}

/*
 * tRPC batches (several calls in one request) mixing the caller's own things
 * with another workspace's and made-up ones: each call is answered alone, the
 * other workspace's as the made-up one, and nothing of it changes.
 */
for (const store of await kernelStores()) {
  describe.skipIf(store.skip)(
    `tRPC batches mixing one workspace's ids with another's (${store.name})`,
    () => {
      let two: TwoWorkspaces;
      beforeAll(async () => {
        two = await startTwoWorkspaces(await store.location());
      });
      afterAll(async () => {
        await two?.kernel.close();
      });

      it("answers B's run in a batch of reads as a made-up run, beside A's own", async () => {
        const madeUp = madeUpLike(two.bThings.parkedRun);
        const get = (run_id: string) => ({
          name: 'runs.get',
          input: { workspace_id: two.a.id, run_id },
        });
        for (const plane of ['agent', 'member'] as const) {
          // The gateway run is the agent's own (a member's run is of no application: no agent reads it).
          const own = two.aThings.gatewayRun;
          const items = await batch(two.kernel.url, two.a.tokens[plane], 'query', [
            get(own),
            get(two.bThings.parkedRun),
            get(madeUp),
          ]);
          expect((items[0]?.result?.data as { id?: string })?.id, plane).toBe(own);
          expect(refusal(items[1], two.bThings.parkedRun), plane).toEqual(
            refusal(items[2], madeUp),
          );
          expect(refusal(items[1], two.bThings.parkedRun)?.code, plane).toBe('run_not_found');
        }
      });

      it('refuses the call naming B’s workspace in a batch, and only that one', async () => {
        const items = await batch(two.kernel.url, two.a.tokens.member, 'query', [
          { name: 'runs.list', input: { workspace_id: two.a.id } },
          { name: 'runs.list', input: { workspace_id: two.b.id } },
          { name: 'decisions.list', input: { workspace_id: two.b.id } },
        ]);
        expect(items[0]?.result?.data).toMatchObject({ runs: expect.any(Array) });
        expect(JSON.stringify(items[0])).not.toContain(two.bThings.parkedRun);
        for (const item of items.slice(1)) expect(item.error?.data?.error?.code).toBe('forbidden');
      });

      it("approves A's call in a batch of approvals and leaves B's waiting", async () => {
        const approve = (workspace_id: string, run_id: string) => ({
          name: 'decisions.approve',
          input: { workspace_id, run_id, task_key: 't1' },
        });
        const items = await batch(two.kernel.url, two.a.tokens.member, 'mutation', [
          approve(two.a.id, two.bThings.parkedRun),
          approve(two.b.id, two.bThings.parkedRun),
          approve(two.a.id, two.aThings.parkedRun),
        ]);
        expect(items.map((item) => item.error?.data?.error?.code ?? 'ok')).toEqual([
          'run_not_found',
          'forbidden',
          'ok',
        ]);
        const task = await caller(two.kernel.url, two.b.tokens.member)('tasks.get', {
          workspace_id: two.b.id,
          run_id: two.bThings.parkedRun,
          task_key: 't1',
        });
        expect((task.result as { state: string }).state).toBe('needs_approval');
      });
    },
  );
}
