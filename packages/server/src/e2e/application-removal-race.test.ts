import { afterEach, describe, expect, it } from 'vitest';
import { type Airlock, startAirlock } from '../airlock.js';
import { listCredentials } from '../store/accounts.js';
import { listApplicationRecords } from '../store/applications.js';
import { type Client, client } from '../testing/harness.js';
import { backends } from '../testing/stores.js';
import { workspaceWithTokens } from '../testing/workspace-tokens.js';

const all = await backends();
const ROUNDS = 30;

for (const backend of all) {
  describe.skipIf(backend.skip !== null)(
    `removing an application while a member credential is made for it (${backend.name})`,
    () => {
      let closers: (() => Promise<void>)[] = [];
      afterEach(async () => {
        for (const close of closers.reverse()) await close();
        closers = [];
      });

      /** One kernel on SQLite (it owns the file); two sharing the database on PostgreSQL. */
      async function kernels(): Promise<[Airlock, Airlock]> {
        const opened = await backend.open();
        await opened.store.close();
        closers.push(opened.dispose);
        const options = { ...opened.location, rateLimit: null, authFailureLimit: null };
        const first = await startAirlock(options);
        closers.push(() => first.close());
        if (backend.name === 'sqlite') return [first, first];
        const second = await startAirlock(options);
        closers.push(() => second.close());
        return [first, second];
      }

      it('never leaves an active member credential of a removed application', async () => {
        const [remover, creator] = await kernels();
        const shared = await workspaceWithTokens(remover.store, 'race');
        const ws = `/api/v1/workspaces/${shared.workspaceId}`;
        // The operator's token belongs to the workspace's own application, never removed here.
        const removing: Client = client(remover.url, shared.tokens.member);
        const creating: Client = client(creator.url, shared.tokens.member);
        for (let round = 0; round < ROUNDS; round += 1) {
          const app = await removing.post(`${ws}/agent_applications`, { name: `app-${round}` });
          expect(app.status).toBe(201);
          const [removed, made] = await Promise.all([
            removing.post(`${ws}/agent_applications/${app.body.id}/remove`),
            creating.post(`${ws}/credentials`, {
              kind: 'member',
              agent_application_id: app.body.id,
            }),
          ]);
          const outcome = `remove ${removed.status} ${removed.body.error?.code ?? ''} / create ${made.status} ${made.body.error?.code ?? ''}`;
          // One of the two went first: either the credential exists and the removal is refused,
          // or the application is gone and the credential is refused.
          expect([
            'remove 409 application_has_member_credentials / create 201 ',
            'remove 202  / create 404 agent_application_not_found',
          ]).toContain(outcome);
        }
        const removedApps = new Set(
          (await listApplicationRecords(remover.store, shared.workspaceId))
            .filter((app) => app.removed_at !== null)
            .map((app) => app.id),
        );
        const orphans = (await listCredentials(remover.store, shared.workspaceId)).filter(
          (c) =>
            c.kind === 'member' &&
            c.revoked_at === null &&
            c.agent_application_id !== null &&
            removedApps.has(c.agent_application_id),
        );
        expect(orphans).toEqual([]);
      });
    },
  );
}
