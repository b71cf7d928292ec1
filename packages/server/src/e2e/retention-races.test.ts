import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { replaceOverlayOperation } from '../api/overlays.js';
import type { KernelContext } from '../kernel/context.js';
import { recordHookedEvent } from '../kernel/hooks/hooked-sessions.js';
import type { Kernel } from '../kernel/kernel.js';
import { RetentionPruner } from '../kernel/retention/retention.js';
import { type RunStart, regenerateRun, startTurn } from '../kernel/verbs/runs.js';
import { authenticate, type Principal } from '../store/accounts.js';
import { EMPTY_OVERLAY_DIGEST } from '../store/overlays.js';
import { exportedLines, gatedContext, someoneWaitsForALock } from '../testing/gated-store.js';
import { type Deployment, deploy, waitFor } from '../testing/harness.js';
import { backends } from '../testing/stores.js';

const all = await backends();
const DAY = 24 * 60 * 60 * 1000;
const root = mkdtempSync(join(tmpdir(), 'airlock-retention-races-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const SAY_HI: RunStart = {
  input: 'hello',
  provider: { kind: 'scripted', rounds: [{ final: 'hi' }] },
};

const OLD_SESSION = { agent: 'claude-code', session_id: 'old-session' } as const;

/** True once a workspace's export holds a conversations line naming `conversationId`. */
function conversationExported(dir: string, workspaceId: string, conversationId: string): boolean {
  return exportedLines(dir, workspaceId, 'conversations').some(
    (line) => (line.conversation as { id: string }).id === conversationId,
  );
}

for (const backend of all) {
  describe.skipIf(backend.skip !== null)(`retention races (${backend.name})`, () => {
    let d: Deployment | undefined;
    afterEach(async () => {
      await d?.close();
      d = undefined;
    });

    /**
     * A kernel whose clock is 100 days past a conversation's one turn, a
     * policy that prunes ended runs after 90 days, and a pruner of the
     * test's own (the kernel's is stopped) exporting into a fresh directory.
     */
    async function oldConversation(options: { hooked?: boolean } = {}) {
      let offset = 0;
      d = await deploy(backend, { clock: () => Date.now() + offset });
      const deployment = d;
      await deployment.airlock.kernel.pruner!.stop();
      expect(
        (
          await deployment.agent.put('/agent_api/v1/profile/configuration', {
            approval_mode: 'ask',
          })
        ).status,
      ).toBe(200);
      let conversation: string;
      let oldRun: string;
      if (options.hooked) {
        // A coding agent's session whose one turn ended.
        const hooked = await deployment.agent.post('/agent_api/v1/hooks/events', {
          ...OLD_SESSION,
          event: 'turn_start',
          text: 'tidy up',
        });
        expect(hooked.status).toBe(200);
        const stop = { ...OLD_SESSION, event: 'stop', text: 'done' };
        expect((await deployment.agent.post('/agent_api/v1/hooks/events', stop)).status).toBe(200);
        conversation = hooked.body.conversation_id as string;
        oldRun = hooked.body.run_id as string;
      } else {
        conversation = (await deployment.agent.post('/agent_api/v1/conversations')).body
          .id as string;
        const turn = await deployment.agent.post(
          `/agent_api/v1/conversations/${conversation}/inputs`,
          SAY_HI,
        );
        expect(turn.status).toBe(201);
        oldRun = turn.body.id as string;
      }
      await waitFor(
        async () =>
          (await deployment.member.get(`${deployment.ws}/runs/${oldRun}`)).body.state ===
          'completed',
        { what: 'the old turn to end' },
      );
      offset += 100 * DAY;
      expect(
        (
          await deployment.member.put(`${deployment.ws}/retention`, {
            events_days: null,
            runs_days: 90,
            audit_days: null,
          })
        ).status,
      ).toBe(200);
      const exportDir = mkdtempSync(join(root, 'exports-'));
      const kernel = deployment.airlock.kernel;
      const pruner = (ctx: KernelContext = kernel.context) =>
        new RetentionPruner(ctx, { exportDir, intervalMs: 10 * 365 * DAY });
      const store = deployment.airlock.store;
      const principal = async (token: string): Promise<Principal> =>
        (await authenticate(store, token))!;
      /** The rows left that name the conversation, table by table. */
      const left = async () => ({
        conversations: (
          await store.db
            .selectFrom('conversations')
            .select('id')
            .where('id', '=', conversation)
            .execute()
        ).length,
        runs: (
          await store.db
            .selectFrom('runs')
            .select('id')
            .where('conversation_id', '=', conversation)
            .execute()
        ).map((row) => row.id),
        overlays: (
          await store.db
            .selectFrom('overlay_documents')
            .select('owner_id')
            .where('owner_id', '=', conversation)
            .execute()
        ).length,
      });
      return {
        deployment,
        kernel,
        store,
        conversation,
        oldRun,
        exportDir,
        pruner,
        principal,
        left,
      };
    }

    it('a turn posted as the pruner takes its conversation answers conversation_not_found and writes nothing', async () => {
      const old = await oldConversation();
      let pruned: Awaited<ReturnType<RetentionPruner['pruneNow']>> | undefined;
      // The turn read the conversation; the pass prunes it before the turn's unit of work starts.
      const ctx = gatedContext(old.kernel.context, {
        before: async () => {
          pruned ??= await old.pruner().pruneNow();
        },
      });
      const agent = await old.principal(old.deployment.tokens.agent);
      await expect(
        startTurn(ctx, agent, { conversation_id: old.conversation, ...SAY_HI }),
      ).rejects.toMatchObject({ code: 'conversation_not_found' });
      expect(pruned).toMatchObject({ runs: 1 });
      expect(await old.left()).toEqual({ conversations: 0, runs: [], overlays: 0 });
      expect(
        conversationExported(old.exportDir, old.deployment.workspaceId, old.conversation),
      ).toBe(true);
      // Over HTTP, that answer is a 404 with its code.
      const again = await old.deployment.agent.post(
        `/agent_api/v1/conversations/${old.conversation}/inputs`,
        SAY_HI,
      );
      expect(again.status).toBe(404);
      expect(again.body.error.code).toBe('conversation_not_found');
    });

    it('a coding agent’s next turn, as the pruner takes its session’s conversation, opens a new session', async () => {
      const old = await oldConversation({ hooked: true });
      let pruned: Awaited<ReturnType<RetentionPruner['pruneNow']>> | undefined;
      const ctx = gatedContext(old.kernel.context, {
        before: async () => {
          pruned ??= await old.pruner().pruneNow();
        },
      });
      const agent = await old.principal(old.deployment.tokens.agent);
      const answer = await recordHookedEvent(ctx, agent, {
        ...OLD_SESSION,
        event: 'turn_start',
        text: 'and again',
      });
      expect(pruned).toMatchObject({ runs: 1 });
      expect(answer.conversation_id).not.toBe(old.conversation);
      expect(answer.run_id).toEqual(expect.any(String));
      expect(await old.left()).toEqual({ conversations: 0, runs: [], overlays: 0 });
      const session = await old.store.db
        .selectFrom('hook_sessions')
        .selectAll()
        .where('session_id', '=', OLD_SESSION.session_id)
        .execute();
      expect(session.map((row) => [row.conversation_id, row.run_id])).toEqual([
        [answer.conversation_id, answer.run_id],
      ]);
    });

    it('regenerating a turn as the pruner takes it answers run_not_found and writes nothing', async () => {
      const old = await oldConversation();
      let pruned: Awaited<ReturnType<RetentionPruner['pruneNow']>> | undefined;
      const ctx = gatedContext(old.kernel.context, {
        before: async () => {
          pruned ??= await old.pruner().pruneNow();
        },
      });
      const agent = await old.principal(old.deployment.tokens.agent);
      await expect(regenerateRun(ctx, agent, old.oldRun)).rejects.toMatchObject({
        code: 'run_not_found',
      });
      expect(pruned).toMatchObject({ runs: 1 });
      expect(await old.left()).toEqual({ conversations: 0, runs: [], overlays: 0 });
    });

    it('an overlay written as the pruner takes its conversation answers conversation_not_found and leaves no overlay', async () => {
      const old = await oldConversation();
      let pruned: Awaited<ReturnType<RetentionPruner['pruneNow']>> | undefined;
      const ctx = gatedContext(old.kernel.context, {
        before: async () => {
          pruned ??= await old.pruner().pruneNow();
        },
      });
      const kernel = Object.assign(Object.create(old.kernel) as Kernel, { context: ctx });
      const member = await old.principal(old.deployment.tokens.member);
      await expect(
        replaceOverlayOperation.handle(
          { kernel, principal: member },
          {
            workspace_id: old.deployment.workspaceId,
            scope: 'conversation',
            owner_id: old.conversation,
            expected_digest: EMPTY_OVERLAY_DIGEST,
            groups: [],
          },
        ),
      ).rejects.toMatchObject({ code: 'conversation_not_found' });
      expect(pruned).toMatchObject({ runs: 1 });
      expect(await old.left()).toEqual({ conversations: 0, runs: [], overlays: 0 });
    });

    it('a turn that lands between the pruner reading a conversation and deleting it keeps the conversation; the old run still goes, exported once', async () => {
      const old = await oldConversation();
      let turn: { status: number; body: { id: string } } | undefined;
      // Each step exports its lines before its unit of work: the conversation's line is written,
      // its delete not yet started, when the new turn comes in and commits.
      const ctx = gatedContext(old.kernel.context, {
        before: async () => {
          if (
            turn ||
            !conversationExported(old.exportDir, old.deployment.workspaceId, old.conversation)
          ) {
            return;
          }
          turn = await old.deployment.agent.post(
            `/agent_api/v1/conversations/${old.conversation}/inputs`,
            SAY_HI,
          );
        },
      });
      const report = await old.pruner(ctx).pruneNow();
      expect(turn?.status).toBe(201);
      expect(report.runs).toBe(1);
      expect(await old.left()).toEqual({ conversations: 1, runs: [turn!.body.id], overlays: 0 });
      // The old run was exported once; the conversation's line was cut with its rolled-back delete.
      const runs = exportedLines(old.exportDir, old.deployment.workspaceId, 'runs');
      expect(runs.map((line) => (line.run as { id: string }).id)).toEqual([old.oldRun]);
      expect(
        conversationExported(old.exportDir, old.deployment.workspaceId, old.conversation),
      ).toBe(false);
    });

    it.skipIf(backend.name !== 'postgres')(
      'a pruner that meets a turn not yet committed waits for it and keeps the conversation',
      async () => {
        const old = await oldConversation();
        let pass: Promise<unknown> | undefined;
        // The turn holds its conversation (its run written, not committed) while the pass runs.
        const ctx = gatedContext(old.kernel.context, {
          inside: async () => {
            if (pass) return;
            pass = old.pruner().pruneNow();
            pass.catch(() => {});
            await someoneWaitsForALock(old.store);
          },
        });
        const agent = await old.principal(old.deployment.tokens.agent);
        const run = await startTurn(ctx, agent, {
          conversation_id: old.conversation,
          ...SAY_HI,
        });
        await expect(pass).resolves.toMatchObject({ runs: 1 });
        expect(await old.left()).toEqual({ conversations: 1, runs: [run.id], overlays: 0 });
        const runs = exportedLines(old.exportDir, old.deployment.workspaceId, 'runs');
        expect(runs.map((line) => (line.run as { id: string }).id)).toEqual([old.oldRun]);
        expect(
          conversationExported(old.exportDir, old.deployment.workspaceId, old.conversation),
        ).toBe(false);
      },
    );

    it.skipIf(backend.name !== 'postgres')(
      'a turn that meets the pruner’s delete not yet committed waits for it and answers 404 conversation_not_found',
      async () => {
        const old = await oldConversation();
        let turn: Promise<{ status: number; body: { error?: { code: string } } }> | undefined;
        // The pass has deleted the conversation, not committed, when the turn comes in.
        const ctx = gatedContext(old.kernel.context, {
          inside: async () => {
            if (
              turn ||
              !conversationExported(old.exportDir, old.deployment.workspaceId, old.conversation)
            ) {
              return;
            }
            turn = old.deployment.agent.post(
              `/agent_api/v1/conversations/${old.conversation}/inputs`,
              SAY_HI,
            );
            await someoneWaitsForALock(old.store);
          },
        });
        expect(await old.pruner(ctx).pruneNow()).toMatchObject({ runs: 1 });
        const answer = await turn!;
        expect(answer.status).toBe(404);
        expect(answer.body.error?.code).toBe('conversation_not_found');
        expect(await old.left()).toEqual({ conversations: 0, runs: [], overlays: 0 });
      },
    );
  });
}
