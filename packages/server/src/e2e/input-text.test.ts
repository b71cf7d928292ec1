import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Deployment, deploy, waitFor } from '../testing/harness.js';
import { connect } from '../testing/sockets.js';
import { backends } from '../testing/stores.js';

const all = await backends();

/*
 * U+0000 (NUL) and lone surrogates in what a client sends. An id, a
 * tool's name and what a person writes never hold either, on any store:
 * they are refused as invalid_input, with nothing changed (PostgreSQL
 * cannot store NUL in text; SQLite used to keep it, so the stores
 * answered differently).
 */
for (const backend of all) {
  describe.skipIf(backend.skip !== null)(
    `NUL and lone surrogates in input (${backend.name})`,
    () => {
      let d: Deployment;
      let runId: string;

      beforeAll(async () => {
        d = await deploy(backend);
        const created = await d.agent.post(`${d.ws}/runs`, {
          approval_mode: 'ask',
          input: 'x',
          provider: {
            kind: 'scripted',
            rounds: [{ tool_calls: [{ name: 'deploy' }] }, { final: 'f' }],
          },
        });
        runId = created.body.id;
        await waitFor(
          async () =>
            (await d.member.get(`${d.ws}/runs/${runId}/tasks/t1`)).body.state === 'needs_approval',
        );
      });
      afterAll(async () => {
        await d?.close();
      });

      const expectRefused = (answer: {
        status: number;
        body: { error?: { code: string; detail: string } };
      }) => {
        expect(answer.status).toBe(400);
        expect(answer.body.error?.code).toBe('invalid_input');
        expect(answer.body.error?.detail).not.toMatch(/0x00|DatabaseError|at .*\.js/);
      };

      it('refuses an id holding NUL or a lone surrogate, in a path, a query or a body', async () => {
        expectRefused(await d.member.get(`${d.ws}/runs/a%00b`));
        expectRefused(await d.agent.get(`${d.ws}/runs/a%00b`));
        expectRefused(await d.member.get(`${d.ws}/runs/a%ED%A0%80b`));
        const sessions = await d.airlock.store.db
          .selectFrom('hook_sessions')
          .select('session_id')
          .execute();
        for (const bad of ['s\u0000', 's\ud800']) {
          for (const event of [
            { session_id: bad, event: 'session_start' },
            // The row a wait asks about again is named like an id too.
            { session_id: 'sess-1', event: 'pre_tool', tool_name: 'Bash', task_key: bad },
          ]) {
            expectRefused(
              await d.agent.post('/agent_api/v1/hooks/events', { agent: 'claude-code', ...event }),
            );
          }
        }
        expect(
          await d.airlock.store.db.selectFrom('hook_sessions').select('session_id').execute(),
        ).toEqual(sessions);
      });

      it('answers NUL in what a person writes and in a tool-name filter with invalid_input on every store', async () => {
        const before = await d.member.get(`${d.ws}/runs/${runId}/tasks/t1`);
        const apps = await d.airlock.store.db
          .selectFrom('agent_applications')
          .select('name')
          .execute();
        const denied = await d.member.post(`${d.ws}/runs/${runId}/tasks/t1/deny`, {
          reason: 'no\u0000',
          version: before.body.version,
        });
        const named = await d.member.post(`${d.ws}/agent_applications`, { name: 'a\u0000b' });
        const claimed = await d.executor.post('/executor_api/v1/claim', { tool_names: ['\u0000'] });
        for (const answer of [denied, named, claimed]) expectRefused(answer);
        expect(denied.body.error.problems?.[0]?.message ?? denied.body.error.detail).toMatch(/NUL/);
        const after = await d.member.get(`${d.ws}/runs/${runId}/tasks/t1`);
        expect(after.body.state).toBe('needs_approval');
        expect(after.body.version).toBe(before.body.version);
        expect(
          await d.airlock.store.db.selectFrom('agent_applications').select('name').execute(),
        ).toEqual(apps);
      });

      it('refuses a lone surrogate in what a person writes: a name, a label, a deny reason', async () => {
        const before = await d.member.get(`${d.ws}/runs/${runId}/tasks/t1`);
        const apps = await d.airlock.store.db
          .selectFrom('agent_applications')
          .select('name')
          .execute();
        const credentials = await d.airlock.store.db
          .selectFrom('credentials')
          .select(['id', 'label'])
          .execute();
        const answers = [
          await d.member.post(`${d.ws}/agent_applications`, { name: 'app-\ud800-x' }),
          await d.member.post(`${d.ws}/credentials`, { kind: 'member', label: 'lab\udc00el' }),
          await d.member.post(`${d.ws}/credentials/${credentials[0]!.id}/label`, {
            label: '\udfff',
          }),
        ];
        for (const answer of answers) {
          expectRefused(answer);
          expect(answer.body.error?.detail).toContain('lone surrogate');
        }
        expect(
          await d.airlock.store.db.selectFrom('agent_applications').select('name').execute(),
        ).toEqual(apps);
        expect(
          await d.airlock.store.db.selectFrom('credentials').select(['id', 'label']).execute(),
        ).toEqual(credentials);
        // Checked before the row is read: the parked call stays as it was (on SQLite, the test above denied it).
        const denied = await d.member.post(`${d.ws}/runs/${runId}/tasks/t1/deny`, {
          reason: 'no \ud83d way',
          version: before.body.version,
        });
        expectRefused(denied);
        expect((await d.member.get(`${d.ws}/runs/${runId}/tasks/t1`)).body).toEqual(before.body);
        // A whole pair is text like any other.
        const emoji = await d.member.post(`${d.ws}/agent_applications`, {
          name: 'app \ud83d\ude00',
        });
        expect(emoji.status).toBe(201);
        expect(emoji.body.name).toBe('app \u{1F600}');
      });

      it('refuses a feed socket for a run id holding NUL, without a 500', async () => {
        await expect(connect(`${d.url}${d.ws}/feed?run_id=a%00b`, d.tokens.agent)).rejects.toThrow(
          /status 4\d\d/,
        );
      });
    },
  );
}
