import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Deployment, deploy, waitFor } from '../testing/harness.js';
import { makeFixture } from '../testing/run-fixtures.js';
import { backends } from '../testing/stores.js';

/*
 * A question's prompt is text a model wrote and the kernel keeps as text: a NUL (which
 * PostgreSQL refuses) or a lone surrogate is kept as U+FFFD, the same on every store, instead
 * of the round being refused on PostgreSQL and kept garbled on SQLite.
 */
for (const backend of await backends()) {
  describe.skipIf(backend.skip !== null)(`a question's text (${backend.name})`, () => {
    let d: Deployment;
    beforeAll(async () => {
      d = await deploy(backend);
    });
    afterAll(async () => {
      await d?.close();
    });

    it('a prompt holding NUL or a lone surrogate is asked with U+FFFD in their place', async () => {
      const { runId } = await makeFixture(d, 'gateway');
      const answer = await d.agent.post(`${d.ws}/runs/${runId}/calls`, {
        calls: [
          { name: 'ask', input: { prompt: 'ship\u0000 it a\ud800b?', options: ['y\u0000', 'n'] } },
        ],
      });
      expect(answer.status, JSON.stringify(answer.body)).toBe(201);
      const row = await waitFor(async () => {
        const read = (await d.member.get(`${d.ws}/runs/${runId}/tasks/t1`)).body;
        return read.state === 'awaiting_input' ? read : null;
      });
      expect(row.prompt).toBe('ship\ufffd it a\ufffdb?');
      expect(row.options).toEqual(['y\u0000', 'n']);
      const events = (await d.member.get(`${d.ws}/runs/${runId}/events`)).body.events as {
        type: string;
        data: { prompt?: string };
      }[];
      expect(events.find((e) => e.type === 'task.asked')?.data.prompt).toBe(row.prompt);
    });
  });
}
