import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCredential } from '../store/accounts.js';
import { createAgentApplication } from '../store/applications.js';
import { type Client, client, type Deployment, deploy, waitFor } from '../testing/harness.js';
import { connect, type Socket } from '../testing/sockets.js';
import { backends } from '../testing/stores.js';

const all = await backends();

const parkOne = {
  approval_mode: 'ask',
  input: 'x',
  provider: { kind: 'scripted', rounds: [{ tool_calls: [{ name: 'deploy' }] }, { final: 'f' }] },
};
const grantOne = { ...parkOne, approval_mode: 'bypass' };

/** Reads a tRPC subscription's server-sent events until `enough` holds; answers their data. */
async function readSubscription(
  url: string,
  token: string,
  enough: (events: { run_id: string }[]) => boolean,
): Promise<{ run_id: string }[]> {
  const controller = new AbortController();
  const response = await fetch(url, {
    headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream' },
    signal: controller.signal,
  });
  const events: { run_id: string }[] = [];
  let buffer = '';
  const decoder = new TextDecoder();
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
    buffer += decoder.decode(chunk, { stream: true });
    for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const data = /^id: .*$/m.test(block) ? /^data: (.*)$/m.exec(block)?.[1] : undefined;
      if (data) events.push(JSON.parse(data));
    }
    if (enough(events)) break;
  }
  controller.abort();
  return events;
}

for (const backend of all) {
  describe.skipIf(backend.skip !== null)(
    `agent applications are fenced from each other (${backend.name})`,
    () => {
      let d: Deployment;
      let otherAgent: Client;
      const tokensB = { agent: '', executor: '' };
      const sockets: Socket[] = [];
      let cableA: Socket;
      let cableB: Socket;
      let feedB: Socket;
      let feedMember: Socket;
      let parked: string;
      let granted: string;

      beforeAll(async () => {
        d = await deploy(backend);
        const appB = await createAgentApplication(d.airlock.store, {
          workspaceId: d.workspaceId,
          name: 'b',
        });
        for (const kind of ['agent', 'executor'] as const) {
          tokensB[kind] = (
            await createCredential(d.airlock.store, {
              workspaceId: d.workspaceId,
              kind,
              agentApplicationId: appB.id,
            })
          ).token;
        }
        otherAgent = client(d.url, tokensB.agent);
        cableA = await connect(`${d.url}/executor_api/v1/cable`, d.tokens.executor);
        cableB = await connect(`${d.url}/executor_api/v1/cable`, tokensB.executor);
        feedB = await connect(`${d.url}${d.ws}/feed`, tokensB.agent);
        feedMember = await connect(`${d.url}${d.ws}/feed`, d.tokens.member);
        sockets.push(cableA, cableB, feedB, feedMember);
        parked = (await d.agent.post(`${d.ws}/runs`, parkOne)).body.id;
        granted = (await d.agent.post(`${d.ws}/runs`, grantOne)).body.id;
        // Application A's executor hears of its runnable row; the member's feed sees both runs.
        await waitFor(async () =>
          cableA.messages.some((m) => m.type === 'work_available' && m.run_id === granted),
        );
        await waitFor(async () =>
          feedMember.messages.some((m) => m.type === 'event' && m.event.run_id === granted),
        );
      });
      afterAll(async () => {
        for (const socket of sockets) socket.close();
        await d.close();
      });

      it("nudges only the addressee's executors on the cable", async () => {
        // A later nudge on B's cable, for B's own run, shows the cable was live all along.
        const ownRun = (await otherAgent.post(`${d.ws}/runs`, grantOne)).body.id;
        await waitFor(async () => cableB.messages.some((m) => m.run_id === ownRun));
        expect(cableB.messages.filter((m) => m.run_id === granted || m.run_id === parked)).toEqual(
          [],
        );
        expect(cableA.messages.filter((m) => m.run_id === ownRun)).toEqual([]);
      });

      it("lists, reads and stops only its own application's runs over REST", async () => {
        const listed = (await otherAgent.get(`${d.ws}/runs`)).body.runs.map(
          (r: { id: string }) => r.id,
        );
        expect(listed).not.toContain(parked);
        expect(listed).not.toContain(granted);
        for (const path of [
          `${d.ws}/runs/${parked}`,
          `${d.ws}/runs/${parked}/events`,
          `${d.ws}/runs/${parked}/tasks`,
          `${d.ws}/runs/${parked}/tasks/t1`,
          `${d.ws}/runs/${parked}/audit`,
        ]) {
          const answer = await otherAgent.get(path);
          expect([path, answer.status, answer.body.error?.code]).toEqual([
            path,
            404,
            'run_not_found',
          ]);
        }
        // Word for word what a run that does not exist answers: nothing tells them apart.
        const other = (await otherAgent.get(`${d.ws}/runs/${parked}`)).body.error.detail;
        const none = (await otherAgent.get(`${d.ws}/runs/run_doesnotexist`)).body.error.detail;
        expect(other.replace(parked, 'RUN')).toBe(none.replace('run_doesnotexist', 'RUN'));
        const stop = await otherAgent.post(`${d.ws}/runs/${parked}/stop`);
        expect(stop.status).toBe(404);
        expect((await d.member.get(`${d.ws}/runs/${parked}`)).body.state).toBe('running');
        // Its owner and a member still act on it.
        expect((await d.agent.get(`${d.ws}/runs/${parked}`)).status).toBe(200);
        expect((await d.member.get(`${d.ws}/runs/${parked}/tasks/t1`)).body.state).toBe(
          'needs_approval',
        );
      });

      it('answers the same over tRPC', async () => {
        const input = encodeURIComponent(
          JSON.stringify({ workspace_id: d.workspaceId, run_id: parked }),
        );
        const read = await fetch(`${d.url}/trpc/runs.get?input=${input}`, {
          headers: { authorization: `Bearer ${tokensB.agent}` },
        });
        expect(read.status).toBe(404);
        const stop = await fetch(`${d.url}/trpc/runs.stop`, {
          method: 'POST',
          headers: { authorization: `Bearer ${tokensB.agent}`, 'content-type': 'application/json' },
          body: JSON.stringify({ workspace_id: d.workspaceId, run_id: parked }),
        });
        expect(stop.status).toBe(404);
        expect((await d.member.get(`${d.ws}/runs/${parked}`)).body.state).toBe('running');
      });

      it("refuses an agent's feed of another application's run as not found", async () => {
        await expect(
          connect(`${d.url}${d.ws}/feed?run_id=${parked}`, tokensB.agent),
        ).rejects.toThrow('status 404');
      });

      it('answers a feed of a run the workspace does not hold as one of another application: not found', async () => {
        // Else a missing run's empty feed would tell an agent which run ids another application holds.
        const missing = 'run_00000000000000000000000000';
        for (const token of [tokensB.agent, d.tokens.member]) {
          await expect(connect(`${d.url}${d.ws}/feed?run_id=${missing}`, token)).rejects.toThrow(
            'status 404',
          );
          const input = encodeURIComponent(
            JSON.stringify({ workspace_id: d.workspaceId, run_id: missing, after: 0 }),
          );
          const answer = await fetch(`${d.url}/trpc/runs.feed?input=${input}`, {
            headers: { authorization: `Bearer ${token}` },
          });
          expect(await answer.text()).toContain('run_not_found');
        }
      });

      it("shows an agent's feed only its own application's runs", async () => {
        const ownRun = (await otherAgent.post(`${d.ws}/runs`, parkOne)).body.id;
        await waitFor(async () =>
          feedB.messages.some((m) => m.type === 'event' && m.event.run_id === ownRun),
        );
        const foreign = feedB.messages.filter(
          (m) => m.type === 'event' && (m.event.run_id === parked || m.event.run_id === granted),
        );
        expect(foreign).toEqual([]);
      });

      it("refuses an agent's tRPC subscription to another application's run as not found", async () => {
        const input = encodeURIComponent(
          JSON.stringify({ workspace_id: d.workspaceId, run_id: parked, after: 0 }),
        );
        const controller = new AbortController();
        const answer = await fetch(`${d.url}/trpc/runs.feed?input=${input}`, {
          headers: { authorization: `Bearer ${tokensB.agent}` },
          signal: controller.signal,
        });
        const text = await Promise.race([
          answer.text(),
          new Promise<string>((resolve) => setTimeout(() => resolve('(still open)'), 1500)),
        ]);
        controller.abort();
        expect(text).toContain('run_not_found');
      });

      it("shows an agent's tRPC subscription only its own application's runs", async () => {
        const ownRun = (await otherAgent.post(`${d.ws}/runs`, grantOne)).body.id;
        const input = encodeURIComponent(JSON.stringify({ workspace_id: d.workspaceId, after: 0 }));
        const events = await readSubscription(
          `${d.url}/trpc/runs.feed?input=${input}`,
          tokensB.agent,
          (seen) => seen.some((event) => event.run_id === ownRun),
        );
        expect(events.some((event) => event.run_id === ownRun)).toBe(true);
        expect(
          events.filter((event) => event.run_id === parked || event.run_id === granted),
        ).toEqual([]);
      });
    },
  );
}
