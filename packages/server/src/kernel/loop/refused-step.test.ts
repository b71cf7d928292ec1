import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { claimAndCommit, type Deployment, deploy, waitFor } from '../../testing/harness.js';
import { finalMessage, startModelServer } from '../../testing/model-server.js';
import { backends } from '../../testing/stores.js';

/** A chat-completions endpoint that always answers the final answer `done`, counting requests. */
const finalAnswerModel = () => startModelServer(() => finalMessage());

/**
 * Makes this test's database refuse to record a completed run, as a store
 * refuses a value it cannot keep: the run's end is the write that fails.
 */
async function refuseCompletedRuns(d: Deployment, backend: 'sqlite' | 'postgres'): Promise<void> {
  const db = d.airlock.store.db;
  if (backend === 'sqlite') {
    await sql`CREATE TRIGGER refuse_completed BEFORE UPDATE OF state ON runs
      WHEN NEW.state = 'completed' BEGIN SELECT RAISE(ABORT, 'this test refuses a completed run'); END`.execute(
      db,
    );
    return;
  }
  await sql`CREATE FUNCTION refuse_completed() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN RAISE EXCEPTION 'this test refuses a completed run'; END $$`.execute(db);
  await sql`CREATE TRIGGER refuse_completed BEFORE UPDATE OF state ON runs FOR EACH ROW
    WHEN (NEW.state = 'completed') EXECUTE FUNCTION refuse_completed()`.execute(db);
}

for (const backend of await backends()) {
  describe.skipIf(backend.skip !== null)(
    `a run whose end the store refuses (${backend.name})`,
    () => {
      let d: Deployment | undefined;
      let model: Awaited<ReturnType<typeof finalAnswerModel>> | undefined;
      afterEach(async () => {
        model?.close();
        await d?.close();
        d = model = undefined;
      });

      async function ended(runId: string) {
        return waitFor(
          async () => {
            const run = (await d!.member.get(`${d!.ws}/runs/${runId}`)).body;
            return run.state !== 'running' && run;
          },
          { timeoutMs: 20_000, what: 'the run to end' },
        );
      }

      it('fails run_write_refused once the openai answer cannot be recorded, asking the model once', async () => {
        model = await finalAnswerModel();
        d = await deploy(backend, {
          openai: { baseUrl: model.url, apiKey: 'sk-test', model: 'm' },
        });
        await refuseCompletedRuns(d, backend.name);
        const created = await d.member.post(`${d.ws}/runs`, {
          approval_mode: 'bypass',
          input: 'hello',
          provider: { kind: 'openai' },
        });
        expect(created.status).toBe(201);
        const run = await ended(created.body.id);
        expect(run).toMatchObject({
          state: 'failed',
          final_answer: null,
          error: { code: 'run_write_refused' },
        });
        expect(run.error.detail).not.toMatch(/this test refuses|\n\s+at /);
        expect(model.requests).toBe(1);
        const events = (await d.member.get(`${d.ws}/runs/${created.body.id}/events`)).body.events;
        expect(events.map((e: { type: string }) => e.type)).toContain('run.failed');
      });

      it('fails run_write_refused when a scripted run cannot record its final answer', async () => {
        d = await deploy(backend);
        await refuseCompletedRuns(d, backend.name);
        const created = await d.member.post(`${d.ws}/runs`, {
          approval_mode: 'bypass',
          input: 'x',
          provider: {
            kind: 'scripted',
            rounds: [{ tool_calls: [{ name: 'ls' }] }, { final: 'done' }],
          },
        });
        expect(created.status).toBe(201);
        const committed = await claimAndCommit(d, created.body.id, 't1', {
          outcome: 'succeeded',
          result: 'ok',
        });
        expect(committed.status).toBe(200);
        const run = await ended(created.body.id);
        expect(run).toMatchObject({ state: 'failed', error: { code: 'run_write_refused' } });
        const tasks = (await d.member.get(`${d.ws}/runs/${created.body.id}/tasks`)).body.tasks;
        expect(tasks.map((t: { state: string }) => t.state)).toEqual(['succeeded']);
      });
    },
  );
}
