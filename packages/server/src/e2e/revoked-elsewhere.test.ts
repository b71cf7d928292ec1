import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type Airlock, startAirlock } from '../airlock.js';
import { CREDENTIAL_REVOKED_CLOSE } from '../feed/ws.js';
import { revokeCredentialAndReaddress } from '../kernel/verbs/revocation.js';
import { Store } from '../store/store.js';
import { client } from '../testing/harness.js';
import { connect, type Socket } from '../testing/sockets.js';
import { backends } from '../testing/stores.js';
import { workspaceWithTokens } from '../testing/workspace-tokens.js';

/*
 * A credential revoked by another process (the operator's `airlock token revoke`, or another
 * kernel sharing the PostgreSQL database) ends the feeds it holds open in this kernel as soon
 * as the revocation reaches this kernel's feed hub, not at the next credential recheck (ten
 * minutes here, so a feed that waited for it would time the test out).
 */

const RECHECK_MS = 600_000;
const all = await backends();

/** A kernel on `location`, as `airlock serve` starts one, with the recheck far away. */
function kernelOn(location: { dataDir?: string; databaseUrl?: string }): Promise<Airlock> {
  return startAirlock({
    ...location,
    credentialRecheckMs: RECHECK_MS,
    rateLimit: null,
    authFailureLimit: null,
    sweepIntervalMs: 50,
    retention: { exportDir: mkdtempSync(join(tmpdir(), 'airlock-exports-')) },
  });
}

for (const backend of all) {
  describe.skipIf(backend.skip !== null)(`a revocation made elsewhere (${backend.name})`, () => {
    const kernels: Airlock[] = [];
    const sockets: Socket[] = [];
    const stores: Store[] = [];
    afterEach(async () => {
      for (const socket of sockets.splice(0)) socket.close();
      for (const store of stores.splice(0)) await store.close();
      for (const kernel of kernels.splice(0)) await kernel.close();
    });

    async function started() {
      const opened = await backend.open();
      await opened.store.close();
      const kernel = await kernelOn(opened.location);
      kernels.push(kernel);
      const shared = await workspaceWithTokens(kernel.store, 'revoked-elsewhere');
      const ws = `/api/v1/workspaces/${shared.workspaceId}`;
      const admin = client(kernel.url, shared.tokens.member);
      const make = async (kind: string) => {
        const made = await admin.post(`${ws}/credentials`, { kind, label: `${kind} to revoke` });
        expect(made.status).toBe(201);
        return made.body as { credential_id: string; token: string };
      };
      return { location: opened.location, kernel, ws, admin, make };
    }

    it("ends a feed and a cable at the operator CLI's revocation, made on a store of its own", async () => {
      const { location, kernel, ws, make } = await started();
      const member = await make('member');
      const executor = await make('executor');
      const feed = await connect(`${kernel.url}${ws}/feed?after=0`, member.token);
      const cable = await connect(`${kernel.url}/executor_api/v1/cable?after=0`, executor.token);
      sockets.push(feed, cable);
      // As `airlock token revoke` does, from a process of its own: its own store on the location.
      const cli = await Store.open(location);
      stores.push(cli);
      for (const made of [member, executor]) {
        await revokeCredentialAndReaddress(cli, {
          idOrToken: made.credential_id,
          principal: 'operator:cli',
        });
      }
      for (const socket of [feed, cable]) {
        expect(await socket.closed).toEqual({
          code: CREDENTIAL_REVOKED_CLOSE,
          reason: 'credential revoked',
        });
      }
    });

    it.skipIf(backend.name !== 'postgres')(
      "ends a feed on one kernel at another kernel's revocation and application removal",
      async () => {
        const { location, kernel: a, ws, admin, make } = await started();
        const b = await kernelOn(location);
        kernels.push(b);
        const member = await make('member');
        const feed = await connect(`${b.url}${ws}/feed?after=0`, member.token);
        const app = await admin.post(`${ws}/agent_applications`, { name: 'leaving' });
        expect(app.status).toBe(201);
        const appId = app.body.id as string;
        const agent = await admin.post(`${ws}/credentials`, {
          kind: 'agent',
          agent_application_id: appId,
        });
        expect(agent.status).toBe(201);
        const agentFeed = await connect(`${b.url}${ws}/feed?after=0`, agent.body.token);
        sockets.push(feed, agentFeed);

        expect((await admin.post(`${ws}/credentials/${member.credential_id}/revoke`)).status).toBe(
          200,
        );
        expect(await feed.closed).toEqual({
          code: CREDENTIAL_REVOKED_CLOSE,
          reason: 'credential revoked',
        });
        expect((await admin.post(`${ws}/agent_applications/${appId}/remove`)).status).toBe(202);
        expect(await agentFeed.closed).toEqual({
          code: CREDENTIAL_REVOKED_CLOSE,
          reason: 'credential revoked',
        });
        expect(a.url).not.toBe(b.url);
      },
    );
  });
}
