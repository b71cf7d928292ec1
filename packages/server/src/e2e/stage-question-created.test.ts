import { afterEach, describe, expect, it } from 'vitest';
import { type Deployment, deploy, waitFor } from '../testing/harness.js';
import { backends } from '../testing/stores.js';

const all = await backends();

for (const backend of all) {
  describe.skipIf(backend.skip !== null)(`a question's creation event (${backend.name})`, () => {
    let d: Deployment;
    afterEach(async () => {
      await d?.close();
    });

    it('task.created names the row a question, as the row and task.asked do', async () => {
      d = await deploy(backend);
      const created = await d.agent.post(`${d.ws}/runs`, {
        approval_mode: 'bypass',
        input: 'ask me',
        provider: {
          kind: 'scripted',
          rounds: [
            { tool_calls: [{ name: 'ask', input: { prompt: 'ship it?' } }] },
            { final: 'ok' },
          ],
        },
      });
      expect(created.status).toBe(201);
      const runId = created.body.id as string;
      const row = await waitFor(async () => {
        const read = (await d.member.get(`${d.ws}/runs/${runId}/tasks/t1`)).body;
        return read.state === 'awaiting_input' ? read : null;
      });
      expect(row.kind).toBe('ask');
      const events = (await d.member.get(`${d.ws}/runs/${runId}/events`)).body.events as {
        type: string;
        task_key: string | null;
        data: { kind?: string };
      }[];
      const made = events.find((e) => e.type === 'task.created' && e.task_key === 't1');
      expect(made?.data.kind).toBe('ask');
    });
  });
}
