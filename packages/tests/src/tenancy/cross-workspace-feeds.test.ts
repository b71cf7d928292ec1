import { EXECUTOR_CABLE_PATH, workspaceFeedPath } from '@airlock/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../support/kernel.js';
import { kernelStores } from '../support/postgres.js';
import { type OpenSocket, openSocket, readSubscription } from './feed-wire.js';
import {
  caller,
  MARKS,
  madeUpLike,
  startTwoWorkspaces,
  type TwoWorkspaces,
} from './two-workspaces.js';

/** Whether a subscription's text ended on an error (tRPC sends it as an SSE event). */
const ended = (text: string) => text.includes('error');

/** Text with `value` put as `name`: a refusal naming B's id reads as one naming a made-up id. */
const named = (text: string, value: string, name: string) => text.split(value).join(`<${name}>`);

/*
 * The lifecycle feed (WebSocket and tRPC subscription) and the executor cable
 * of one workspace, with workspace B's runs and workspace: a feed of B's run is
 * refused as one of a made-up run id, B's workspace as a made-up workspace,
 * and A's feeds, cable and metrics carry nothing of B's while both work.
 */
for (const store of await kernelStores()) {
  describe.skipIf(store.skip)(`one workspace's feeds and another's runs (${store.name})`, () => {
    let two: TwoWorkspaces;
    const sockets: OpenSocket[] = [];
    beforeAll(async () => {
      two = await startTwoWorkspaces(await store.location());
    });
    afterAll(async () => {
      for (const socket of sockets) socket.close();
      await two?.kernel.close();
    });

    it("refuses a feed of B's run as one of a made-up run id, over WebSocket and tRPC", async () => {
      const runB = two.bThings.parkedRun;
      const madeUp = madeUpLike(runB);
      const feed = workspaceFeedPath(two.a.id);
      for (const plane of ['agent', 'member'] as const) {
        const token = two.a.tokens[plane];
        const socket = async (run: string) => {
          const opened = await openSocket(two.kernel.url, `${feed}?run_id=${run}&after=0`, token);
          if (opened.socket) sockets.push(opened.socket);
          return opened.refused;
        };
        const real = await socket(runB);
        expect(real?.status, plane).toBe(404);
        expect(named(JSON.stringify(real), runB, 'run')).toBe(
          named(JSON.stringify(await socket(madeUp)), madeUp, 'run'),
        );
        const subscribe = (run: string) =>
          readSubscription({
            url: two.kernel.url,
            token,
            input: { workspace_id: two.a.id, run_id: run, after: 0 },
            enough: ended,
          });
        const said = await subscribe(runB);
        expect(said.text, plane).toContain('run_not_found');
        expect(named(JSON.stringify(said), runB, 'run')).toBe(
          named(JSON.stringify(await subscribe(madeUp)), madeUp, 'run'),
        );
      }
    });

    it("refuses B's workspace feed as a made-up workspace's, to every plane", async () => {
      const madeUp = madeUpLike(two.b.id);
      for (const plane of ['agent', 'executor', 'member'] as const) {
        const token = two.a.tokens[plane];
        const socket = async (workspace: string) =>
          (await openSocket(two.kernel.url, workspaceFeedPath(workspace), token)).refused;
        const real = await socket(two.b.id);
        expect(real?.status, plane).toBe(403);
        expect(real).toEqual(await socket(madeUp));
        const subscribe = (workspace: string) =>
          readSubscription({
            url: two.kernel.url,
            token,
            input: { workspace_id: workspace, after: 0 },
            enough: ended,
          });
        const said = await subscribe(two.b.id);
        // tRPC answers a subscription's refusal inside its event stream.
        expect(said.text, plane).toContain('"error":{"code":"forbidden"');
        expect(said).toEqual(await subscribe(madeUp));
      }
    });

    it('refuses every subscription to a credential of another plane', async () => {
      const { url } = two.kernel;
      const { tokens } = two.a;
      const feed = workspaceFeedPath(two.a.id);
      const refusals = [
        (await openSocket(url, feed, tokens.executor)).refused,
        (await openSocket(url, EXECUTOR_CABLE_PATH, tokens.agent)).refused,
        (await openSocket(url, EXECUTOR_CABLE_PATH, tokens.member)).refused,
      ];
      expect(refusals.map((refused) => refused?.status)).toEqual([403, 403, 403]);
      const subscribed = await readSubscription({
        url,
        token: tokens.executor,
        input: { workspace_id: two.a.id, after: 0 },
        enough: ended,
      });
      expect(subscribed.text).toContain('"error":{"code":"forbidden"');
    });

    it("sends A's feeds, cable and metrics nothing of B's while B's runs move", async () => {
      const { url } = two.kernel;
      const open = async (path: string, token: string) => {
        const opened = await openSocket(url, path, token);
        if (!opened.socket) throw new Error(`${path} refused: ${JSON.stringify(opened.refused)}`);
        sockets.push(opened.socket);
        return opened.socket;
      };
      const feed = workspaceFeedPath(two.a.id);
      const memberFeed = await open(`${feed}?after=0`, two.a.tokens.member);
      const agentFeed = await open(`${feed}?after=0`, two.a.tokens.agent);
      const cable = await open(`${EXECUTOR_CABLE_PATH}?after=0`, two.a.tokens.executor);
      let marker = '\u0000not yet';
      const subscription = readSubscription({
        url,
        token: two.a.tokens.member,
        input: { workspace_id: two.a.id, after: 0 },
        enough: (text) => text.includes(marker),
      });
      // B's runs move: a decision, a new runnable call, an approval.
      const memberB = caller(url, two.b.tokens.member);
      const runB = { workspace_id: two.b.id, approval_mode: 'bypass', input: MARKS.b };
      const rounds = [{ tool_calls: [{ name: `${MARKS.b}_tool`, input: {} }] }, { final: 'f' }];
      const madeB = await memberB('runs.create', {
        ...runB,
        provider: { kind: 'scripted', rounds },
      });
      expect(madeB.status).toBe(201);
      const approved = await memberB('decisions.approve', {
        workspace_id: two.b.id,
        run_id: two.bThings.parkedRun,
        task_key: 't1',
      });
      expect(approved.status).toBe(200);
      // Then A's own run: once every feed has it, it had B's events before it, had they leaked.
      const madeA = await caller(url, two.a.tokens.agent)('runs.create', {
        workspace_id: two.a.id,
        approval_mode: 'bypass',
        input: MARKS.a,
        provider: {
          kind: 'scripted',
          rounds: [{ tool_calls: [{ name: 'a_tool' }] }, { final: 'f' }],
        },
      });
      marker = String((madeA.result as { id: string }).id);
      const holds = (socket: OpenSocket) => JSON.stringify(socket.messages).includes(marker);
      await eventually(() => holds(memberFeed) && holds(agentFeed) && holds(cable), {
        what: "A's run on A's feeds and cable",
      });
      const subscribed = await subscription;
      const scrape = await fetch(`${url}/metrics`, {
        headers: { authorization: `Bearer ${two.a.tokens.member}` },
      });
      expect(scrape.status).toBe(200);
      const metrics = await scrape.text();
      // The scrape shows A's own parks: it is one that would show B's, were they not left out.
      expect(metrics).toContain(`workspace="${two.a.id}"`);
      const seen = {
        memberFeed: JSON.stringify(memberFeed.messages),
        agentFeed: JSON.stringify(agentFeed.messages),
        cable: JSON.stringify(cable.messages),
        subscription: subscribed.text,
        metrics,
      };
      const b = [
        MARKS.b,
        two.b.id,
        two.bThings.parkedRun,
        String((madeB.result as { id: string }).id),
      ];
      const leaks = Object.entries(seen).flatMap(([where, text]) =>
        b.filter((value) => text.includes(value)).map((value) => `${where}: ${value}`),
      );
      expect(leaks).toEqual([]);
      expect(seen.subscription).toContain(marker);
    });

    it("ends a revoked credential's feeds mid-stream, and only its own", async () => {
      const { url } = two.kernel;
      const memberA = caller(url, two.a.tokens.member);
      const made = await memberA('credentials.create', {
        workspace_id: two.a.id,
        kind: 'member',
        agent_application_id: null,
        role: 'approver',
      });
      const { token, credential_id } = made.result as { token: string; credential_id: string };
      const openFeed = async (path: string, by: string) => {
        const opened = await openSocket(url, path, by);
        if (!opened.socket) throw new Error(`${path} refused: ${JSON.stringify(opened.refused)}`);
        sockets.push(opened.socket);
        return opened.socket;
      };
      const revokedFeed = await openFeed(workspaceFeedPath(two.a.id), token);
      const feedB = await openFeed(
        `${workspaceFeedPath(two.b.id)}?after=latest`,
        two.b.tokens.member,
      );
      const subscription = readSubscription({
        url,
        token,
        input: { workspace_id: two.a.id, after: 'latest' },
        enough: ended,
      });
      // The socket is open (its ready message came) before the revoke.
      await eventually(() => revokedFeed.messages.length > 0, { what: 'the feed ready' });
      const revoked = await memberA('credentials.revoke', {
        workspace_id: two.a.id,
        credential_id,
      });
      expect(revoked.status).toBe(200);
      expect(await revokedFeed.closed).toBe(4401);
      expect((await subscription).text).toContain('unauthenticated');
      // B's feed, of another workspace, goes on: it hears B's next event.
      const runB = await caller(url, two.b.tokens.member)('runs.create', {
        workspace_id: two.b.id,
        approval_mode: 'bypass',
        input: 'x',
        provider: { kind: 'scripted', rounds: [{ final: 'done' }] },
      });
      const id = String((runB.result as { id: string }).id);
      await eventually(() => JSON.stringify(feedB.messages).includes(id), { what: "B's event" });
    });
  });
}
