import { getEventListeners } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import { createCredential } from '../../store/accounts.js';
import { createAgentApplication } from '../../store/applications.js';
import { client, type Deployment, deploy, waitFor } from '../../testing/harness.js';
import { finalMessage, startModelServer } from '../../testing/model-server.js';
import { backends } from '../../testing/stores.js';

/** A chat-completions endpoint that answers `done`; with `hangFirst`, not its first request. */
const modelThatHangsOnce = (hangFirst = true) =>
  startModelServer((n) => (hangFirst && n === 1 ? 'hang' : finalMessage()));

import { modelStopOf } from './model-stop.js';

for (const backend of await backends()) {
  describe.skipIf(backend.skip !== null)(`a kernel stopping mid-round (${backend.name})`, () => {
    let d: Deployment | undefined;
    let model: Awaited<ReturnType<typeof modelThatHangsOnce>> | undefined;
    afterEach(async () => {
      model?.close();
      await d?.close();
      d = model = undefined;
    });

    it('aborts the model request, records nothing, and the next kernel asks again at once', async () => {
      model = await modelThatHangsOnce();
      // A round may take ten minutes: a stop that waited for it, or a lease left to run out, hangs the test.
      d = await deploy(backend, {
        openai: { baseUrl: model.url, apiKey: 'sk-test', model: 'm', timeoutMs: 600_000 },
      });
      const created = await d.member.post(`${d.ws}/runs`, {
        approval_mode: 'bypass',
        input: 'hello',
        provider: { kind: 'openai' },
      });
      expect(created.status).toBe(201);
      await waitFor(async () => model!.requests === 1, { what: 'the first model request' });
      // The kernel's own stop aborts the request (the restart closes it first).
      await d.restart();
      const run = await waitFor(
        async () => {
          const read = (await d!.member.get(`${d!.ws}/runs/${created.body.id}`)).body;
          return read.state !== 'running' && read;
        },
        { timeoutMs: 20_000, what: 'the run to end' },
      );
      expect(run).toMatchObject({ state: 'completed', final_answer: 'done' });
      expect(model.requests).toBe(2);
    });

    it('aborts the model request of a run stopped meanwhile, dropping nothing into the run', async () => {
      model = await modelThatHangsOnce();
      d = await deploy(backend, {
        openai: { baseUrl: model.url, apiKey: 'sk-test', model: 'm', timeoutMs: 600_000 },
      });
      const created = await d.member.post(`${d.ws}/runs`, {
        approval_mode: 'bypass',
        input: 'hello',
        provider: { kind: 'openai' },
      });
      await waitFor(async () => model!.requests === 1, { what: 'the first model request' });
      const stopped = await d.member.post(`${d.ws}/runs/${created.body.id}/stop`);
      expect(stopped.body).toMatchObject({ state: 'canceled' });
      await waitFor(async () => model!.dropped === 1, { what: 'the request to be dropped' });
      await d.airlock.kernel.idle();
      const run = (await d.member.get(`${d.ws}/runs/${created.body.id}`)).body;
      expect(run).toMatchObject({ state: 'canceled', error: null, round: 0 });
      expect(model.requests).toBe(1);
    });

    it('aborts the model request of a run whose agent application was removed meanwhile', async () => {
      model = await modelThatHangsOnce();
      d = await deploy(backend, {
        openai: { baseUrl: model.url, apiKey: 'sk-test', model: 'm', timeoutMs: 600_000 },
      });
      const app = await createAgentApplication(d.airlock.store, {
        workspaceId: d.workspaceId,
        name: 'nightly',
      });
      const { token } = await createCredential(d.airlock.store, {
        workspaceId: d.workspaceId,
        kind: 'agent',
        agentApplicationId: app.id,
      });
      const created = await client(d.url, token).post(`${d.ws}/runs`, {
        approval_mode: 'bypass',
        input: 'hello',
        provider: { kind: 'openai' },
      });
      expect(created.status).toBe(201);
      await waitFor(async () => model!.requests === 1, { what: 'the first model request' });
      const removed = await d.member.post(`${d.ws}/agent_applications/${app.id}/remove`);
      expect(removed.body).toMatchObject({ stopping_run_ids: [created.body.id] });
      // Without the abort the request hangs for its whole ten minutes.
      await waitFor(async () => model!.dropped === 1, { what: 'the request to be dropped' });
      await d.airlock.kernel.idle();
      const run = (await d.member.get(`${d.ws}/runs/${created.body.id}`)).body;
      expect(run).toMatchObject({
        state: 'canceled',
        error: { code: 'agent_application_removed' },
        round: 0,
      });
      expect(model.requests).toBe(1);
    });

    it("leaves nothing listed on the kernel's stop once a round is answered", async () => {
      model = await modelThatHangsOnce(false);
      d = await deploy(backend, { openai: { baseUrl: model.url, apiKey: 'sk-test', model: 'm' } });
      const created = await d.member.post(`${d.ws}/runs`, {
        approval_mode: 'bypass',
        input: 'hello',
        provider: { kind: 'openai' },
      });
      await waitFor(async () => {
        const read = (await d!.member.get(`${d!.ws}/runs/${created.body.id}`)).body;
        return read.state === 'completed';
      });
      const stop = modelStopOf(d.airlock.kernel.context);
      expect(getEventListeners(stop, 'abort')).toEqual([]);
      // Node keeps each AbortSignal.any() signal on its sources (one per round, for ever, on Node 20).
      const dependants = Object.getOwnPropertySymbols(stop).find(
        (symbol) => symbol.description === 'kDependantSignals',
      );
      const listed = dependants
        ? (stop as unknown as Record<symbol, Set<unknown>>)[dependants]
        : undefined;
      expect(listed?.size ?? 0).toBe(0);
    });
  });
}
