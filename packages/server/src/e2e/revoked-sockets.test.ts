import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { CREDENTIAL_REVOKED_CLOSE } from '../feed/ws.js';
import { type Deployment, sharedKernels } from '../testing/harness.js';
import { connect, type Socket } from '../testing/sockets.js';
import { backends } from '../testing/stores.js';

/**
 * A revoked credential's open sockets end within the kernel's recheck (here
 * 100 ms), with close code 4401, rather than at their next reconnect; the
 * sockets of credentials that still work stay open.
 */

const all = await backends();

for (const backend of all) {
  describe.skipIf(backend.skip !== null)(
    `sockets of a revoked credential (${backend.name})`,
    () => {
      let d: Deployment;
      const kernels = sharedKernels();
      afterAll(() => kernels.close());
      const sockets: Socket[] = [];
      afterEach(async () => {
        for (const socket of sockets.splice(0)) socket.close();
        await d?.close();
      });

      it('closes its feed, its cable and its tRPC subscription, and leaves the others open', async () => {
        d = await kernels.deploy(backend, { credentialRecheckMs: 100 });
        const make = async (kind: string) =>
          (await d.member.post(`${d.ws}/credentials`, { kind })).body as {
            credential_id: string;
            token: string;
          };
        const member = await make('member');
        const executor = await make('executor');
        const feed = await connect(`${d.url}${d.ws}/feed?after=0`, member.token);
        const cable = await connect(`${d.url}/executor_api/v1/cable?after=0`, executor.token);
        const kept = await connect(`${d.url}${d.ws}/feed?after=0`, d.tokens.member);
        sockets.push(feed, cable, kept);
        // The same feed as a tRPC subscription (server-sent events), read to its end.
        const input = encodeURIComponent(JSON.stringify({ workspace_id: d.workspaceId, after: 0 }));
        const subscription = await fetch(`${d.url}/trpc/runs.feed?input=${input}`, {
          headers: { authorization: `Bearer ${member.token}` },
        });
        const streamed = subscription.text();

        for (const made of [member, executor]) {
          const revoked = await d.member.post(`${d.ws}/credentials/${made.credential_id}/revoke`);
          expect(revoked.status).toBe(200);
        }
        for (const socket of [feed, cable]) {
          expect(await socket.closed).toEqual({
            code: CREDENTIAL_REVOKED_CLOSE,
            reason: 'credential revoked',
          });
        }
        expect(await streamed).toContain('unauthenticated');
        const stillOpen = await Promise.race([
          kept.closed.then(() => false),
          new Promise<boolean>((resolve) => setTimeout(() => resolve(true), 400)),
        ]);
        expect(stillOpen).toBe(true);
      });

      it('ends them at once when this kernel revokes, not at the next recheck (minutes here)', async () => {
        // Before, a revoked member's feed kept receiving the workspace's events until the recheck.
        d = await kernels.deploy(backend, { credentialRecheckMs: 600_000 });
        const made = (await d.member.post(`${d.ws}/credentials`, { kind: 'member' })).body as {
          credential_id: string;
          token: string;
        };
        const feed = await connect(`${d.url}${d.ws}/feed?after=0`, made.token);
        sockets.push(feed);
        expect(
          (await d.member.post(`${d.ws}/credentials/${made.credential_id}/revoke`)).status,
        ).toBe(200);
        expect(await feed.closed).toEqual({
          code: CREDENTIAL_REVOKED_CLOSE,
          reason: 'credential revoked',
        });
      });
    },
  );
}
