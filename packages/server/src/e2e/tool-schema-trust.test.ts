import { Worker } from 'node:worker_threads';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { client, type Deployment, sharedKernels, waitFor } from '../testing/harness.js';
import { backends } from '../testing/stores.js';
import { workspaceWithTokens } from '../testing/workspace-tokens.js';

const sqlite = (await backends()).filter((backend) => backend.name === 'sqlite');

const script = (rounds: unknown[]) => ({ kind: 'scripted', rounds });

const grep = (schema: object, name = 'grep') => ({
  name,
  input_schema: schema,
  risk_traits: ['read'],
});

/**
 * Polls GET /healthz from a worker thread (its own event loop, so a kernel
 * that blocks its thread shows as slow answers) until stopped; resolves with
 * every answer's latency in milliseconds.
 */
function pollHealthz(url: string): { stop(): Promise<number[]> } {
  const worker = new Worker(
    `const { parentPort, workerData } = require('node:worker_threads');
     const latencies = [];
     let stopped = false;
     parentPort.on('message', () => { stopped = true; });
     (async () => {
       while (!stopped) {
         const start = performance.now();
         await (await fetch(workerData.url + '/healthz')).text();
         latencies.push(performance.now() - start);
         await new Promise((resolve) => setTimeout(resolve, 5));
       }
       parentPort.postMessage(latencies);
     })();`,
    { eval: true, workerData: { url } },
  );
  return {
    stop: () =>
      new Promise((resolve, reject) => {
        worker.once('message', (latencies: number[]) => {
          void worker.terminate();
          resolve(latencies);
        });
        worker.once('error', reject);
        worker.postMessage('stop');
      }),
  };
}

for (const backend of sqlite) {
  describe.skipIf(backend.skip !== null)(
    `tool input schemas are a trust boundary (${backend.name})`,
    () => {
      let d: Deployment;
      const kernels = sharedKernels();
      afterAll(() => kernels.close());
      afterEach(async () => {
        await d?.close();
      });

      it('a catastrophic pattern is matched in linear time: /healthz answers while the call is evaluated', async () => {
        d = await kernels.deploy(backend);
        const poller = pollHealthz(d.url);
        await new Promise((resolve) => setTimeout(resolve, 100));
        const started = d.agent.post(`${d.ws}/runs`, {
          approval_mode: 'bypass',
          input: 'x',
          tool_manifest: [
            grep({ type: 'object', properties: { q: { type: 'string', pattern: '^(a+)+$' } } }),
          ],
          provider: script([
            { tool_calls: [{ name: 'grep', input: { q: `${'a'.repeat(28)}!` } }] },
            { final: 'done' },
          ]),
        });
        const created = await started;
        expect(created.status).toBe(201);
        const runId = created.body.id as string;
        const task = await waitFor(
          async () => {
            const tasks = (await d.member.get(`${d.ws}/runs/${runId}/tasks`)).body.tasks;
            return tasks[0]?.state === 'failed' ? tasks[0] : null;
          },
          { timeoutMs: 10_000, what: 'the call refused by its schema' },
        );
        const latencies = await poller.stop();
        expect(task.error.detail).toMatch(/must match pattern "\^\(a\+\)\+\$"/);
        // A backtracking engine holds the event loop for seconds on this input (2^28 paths; tens of seconds).
        // Generous for a loaded machine: the backtracking engine misses it by an order of magnitude.
        expect(Math.max(...latencies)).toBeLessThan(3000);
        expect(latencies.length).toBeGreaterThan(0);
      }, 60_000);

      it('refuses a pattern the linear engine cannot compile, with a pointer to it', async () => {
        d = await kernels.deploy(backend);
        const put = await d.agent.put('/agent_api/v1/profile/configuration', {
          approval_mode: 'bypass',
          tool_manifest: [
            grep({ type: 'object', properties: { q: { type: 'string', pattern: '(a)\\1' } } }),
            grep({ type: 'object', patternProperties: { '^(?=x)': { type: 'string' } } }, 'g1'),
            grep({ type: 'object', enum: [{ pattern: '(?<=a)' }] }, 'g2'),
          ],
        });
        expect(put.status).toBe(422);
        expect(put.body.error.code).toBe('invalid_configuration');
        expect(put.body.error.problems.map((p: { pointer: string }) => p.pointer)).toEqual([
          '/tool_manifest/0/input_schema/properties/q/pattern',
          '/tool_manifest/1/input_schema/patternProperties/^(?=x)',
        ]);
        const run = await d.agent.post(`${d.ws}/runs`, {
          approval_mode: 'bypass',
          input: 'x',
          provider: script([{ final: 'x' }]),
          tool_manifest: [grep({ type: 'string', pattern: '(?<!a)b' })],
        });
        expect(run.status).toBe(422);
        expect(run.body.error.problems[0].pointer).toBe('/tool_manifest/0/input_schema/pattern');
        expect((await d.member.get(`${d.ws}/runs`)).body.runs).toEqual([]);
      });

      it('one workspace never sees the schemas another declared ($id, $ref)', async () => {
        d = await kernels.deploy(backend);
        const other = await workspaceWithTokens(d.airlock.store, 'b');
        const agentB = client(d.url, other.tokens.agent);
        const memberB = client(d.url, other.tokens.member);
        const id = 'https://schemas.example/q.json';
        const putA = await d.agent.put('/agent_api/v1/profile/configuration', {
          approval_mode: 'bypass',
          tool_manifest: [
            grep({ $id: id, type: 'object', properties: { q: { type: 'string', maxLength: 3 } } }),
          ],
        });
        expect(putA.status).toBe(200);
        // The same $id with other content is B's own business.
        const putB = await agentB.put('/agent_api/v1/profile/configuration', {
          approval_mode: 'bypass',
          tool_manifest: [grep({ $id: id, type: 'object', properties: { q: { type: 'number' } } })],
        });
        expect(putB.status).toBe(200);
        // A $ref to A's $id resolves to nothing in B.
        const refB = await agentB.put('/agent_api/v1/profile/configuration', {
          approval_mode: 'bypass',
          tool_manifest: [grep({ $ref: id })],
        });
        expect(refB.status).toBe(422);
        expect(refB.body.error.problems[0].pointer).toBe('/tool_manifest/0/input_schema');
        // B's calls are checked against B's schema: a string q is refused, a number passes.
        const runB = await agentB.post(`/api/v1/workspaces/${other.workspaceId}/runs`, {
          approval_mode: 'bypass',
          input: 'x',
          tool_manifest: [grep({ $id: id, type: 'object', properties: { q: { type: 'number' } } })],
          provider: script([
            {
              tool_calls: [
                { name: 'grep', input: { q: 'abc' } },
                { name: 'grep', input: { q: 7 } },
              ],
            },
            { final: 'done' },
          ]),
        });
        expect(runB.status).toBe(201);
        const tasks = await waitFor(async () => {
          const rows = (
            await memberB.get(`/api/v1/workspaces/${other.workspaceId}/runs/${runB.body.id}/tasks`)
          ).body.tasks;
          return rows.length === 2 ? rows : null;
        });
        expect(tasks.map((t: { state: string }) => t.state)).toEqual(['failed', 'runnable']);
        // A declares a new version of its own schema under the same $id.
        const again = await d.agent.put('/agent_api/v1/profile/configuration', {
          approval_mode: 'bypass',
          tool_manifest: [
            grep({ $id: id, type: 'object', properties: { q: { type: 'boolean' } } }),
          ],
        });
        expect(again.status).toBe(200);
      });
    },
  );
}
