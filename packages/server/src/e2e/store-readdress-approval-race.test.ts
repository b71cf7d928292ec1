import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { approveTask } from '../kernel/verbs/approvals.js';
import { revokeCredentialAndReaddress } from '../kernel/verbs/revocation.js';
import type { Principal } from '../store/accounts.js';
import { gatedContext } from '../testing/gated-store.js';
import { addMember, type Deployment, deploy, waitFor } from '../testing/harness.js';
import { backends } from '../testing/stores.js';

const postgres = (await backends()).find((backend) => backend.name === 'postgres')!;

/**
 * Revoking an application's last executor readdresses its parked rows, which
 * moves each row's version; the approvals given to the old version are
 * carried to the new one. An approval given while the revocation ran, to the
 * row as its approver read it, committed after the carry and stayed on a
 * version no row had any more: the quorum lost it, and one more member had
 * to approve. The revocation now takes the rows' runs' locks first, as every
 * decision does, so such an approval commits first and is carried.
 */
describe.skipIf(postgres.skip !== null)(
  'an approval given as its row is readdressed (postgres)',
  () => {
    let d: Deployment | undefined;
    afterEach(async () => {
      await d?.close();
      d = undefined;
    });

    it('still counts toward the quorum', async () => {
      const deployment = await deploy(postgres);
      d = deployment;
      const ana = await addMember(deployment, 'Ana');
      const bo = await addMember(deployment, 'Bo');
      const policy = await deployment.member.put(`${deployment.ws}/approval_policy`, {
        policy: {
          groups: { leads: [ana.id, bo.id] },
          rules: [{ approvers: ['group:leads'], required: 2 }],
        },
      });
      expect(policy.status).toBe(200);
      const created = await deployment.agent.post(`${deployment.ws}/runs`, {
        approval_mode: 'ask',
        input: 'ship it',
        provider: {
          kind: 'scripted',
          rounds: [{ tool_calls: [{ name: 'deploy' }] }, { final: 'f' }],
        },
      });
      const runId = created.body.id as string;
      const row = `${deployment.ws}/runs/${runId}/tasks/t1`;
      await waitFor(async () => (await deployment.member.get(row)).body.state === 'needs_approval');
      const store = deployment.airlock.store;
      const parked = await store.db
        .selectFrom('tasks')
        .select('addressee')
        .where('run_id', '=', runId)
        .executeTakeFirstOrThrow();
      expect(parked.addressee).toBe(deployment.appId);

      // Bo's approval is made and held before its COMMIT while the executor is revoked.
      let release!: () => void;
      const released = new Promise<void>((settle) => {
        release = settle;
      });
      let paused!: () => void;
      const holding = new Promise<void>((settle) => {
        paused = settle;
      });
      const ctx = gatedContext(deployment.airlock.kernel.context, {
        inside: async () => {
          paused();
          await released;
        },
      });
      const boPrincipal: Principal = {
        credential_id: bo.id,
        kind: 'member',
        workspace_id: deployment.workspaceId,
        agent_application_id: null,
        role: 'approver',
      };
      const address = { workspaceId: deployment.workspaceId, runId, taskKey: 't1' };
      const boApproves = approveTask(ctx, boPrincipal, address);
      await holding;
      const revoked = revokeCredentialAndReaddress(store, {
        idOrToken: deployment.tokens.executor,
        workspaceId: deployment.workspaceId,
        principal: 'member:test',
      });
      // The revocation either ends, or waits for the lock Bo's approval holds.
      let settled = false;
      void revoked.finally(() => {
        settled = true;
      });
      await waitFor(async () => {
        if (settled) return true;
        const { rows } = await sql<{
          n: number | string;
        }>`select count(*) as n from pg_stat_activity
        where datname = current_database() and wait_event_type = 'Lock'`.execute(store.db);
        return Number(rows[0]!.n) > 0;
      });
      release();
      expect((await boApproves).approvals).toMatchObject({ required: 2 });
      expect((await revoked).readdressed).toEqual([{ run_id: runId, task_key: 't1' }]);

      const anaApproves = await ana.client.post(`${row}/approve`, {});
      expect(anaApproves.status).toBe(200);
      expect(anaApproves.body.state).toBe('runnable');
    });
  },
);
