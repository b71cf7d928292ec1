import { describe, expect, it } from 'vitest';
import { backends, freshStorePerTest } from '../testing/stores.js';
import {
  createCredential,
  createWorkspace,
  revokeActiveCredential,
  setCredentialLabel,
} from './accounts.js';
import {
  listApprovals,
  listApprovalsOfVersions,
  readApprovalPolicy,
  readApprovalPolicyOnce,
  recordApproval,
  writeApprovalPolicy,
} from './approvals.js';
import { memberCredentialStates, principalNames, principalRoster } from './principal-roster.js';

const all = await backends();

for (const backend of all) {
  describe.skipIf(backend.skip !== null)(`approval store (${backend.name})`, () => {
    const open = freshStorePerTest(backend);

    it('reads a policy once per unit of work (a round that parks many calls), afresh in the next', async () => {
      const store = await open();
      const ws = await createWorkspace(store, 'w');
      await store.transaction(async (tx) => {
        const first = readApprovalPolicyOnce(tx, ws.id);
        expect(readApprovalPolicyOnce(tx, ws.id)).toBe(first);
        expect((await first).version).toBe(0);
      });
      await store.transaction((tx) =>
        writeApprovalPolicy(tx, {
          workspaceId: ws.id,
          policy: { rules: [{ required: 2 }] },
          principal: 'member:cred_a',
        }),
      );
      const next = await store.transaction((tx) => readApprovalPolicyOnce(tx, ws.id));
      expect(next).toMatchObject({ version: 1, policy: { rules: [{ required: 2 }] } });
    });

    it('keeps one policy per workspace, counting its versions', async () => {
      const store = await open();
      const ws = await createWorkspace(store, 'w');
      expect(await readApprovalPolicy(store, ws.id)).toEqual({
        policy: {},
        version: 0,
        updated_by: null,
        updated_at: null,
      });
      for (const required of [2, 3]) {
        await store.transaction((tx) =>
          writeApprovalPolicy(tx, {
            workspaceId: ws.id,
            policy: { rules: [{ required }] },
            principal: 'member:cred_a',
          }),
        );
      }
      expect(await readApprovalPolicy(store, ws.id)).toMatchObject({
        policy: { rules: [{ required: 3 }] },
        version: 2,
        updated_by: 'member:cred_a',
      });
    });

    it('records each member once per row version', async () => {
      const store = await open();
      const ws = await createWorkspace(store, 'w');
      const key = { workspaceId: ws.id, runId: 'run_1', taskKey: 't1', rowVersion: 'v1' };
      await store.transaction(async (tx) => {
        await recordApproval(tx, { ...key, principal: 'member:cred_a' });
        await recordApproval(tx, { ...key, principal: 'member:cred_a' });
        await recordApproval(tx, { ...key, principal: 'member:cred_b' });
        await recordApproval(tx, { ...key, rowVersion: 'v2', principal: 'member:cred_a' });
      });
      expect((await listApprovals(store, key)).map((a) => a.principal).sort()).toEqual([
        'member:cred_a',
        'member:cred_b',
      ]);
      expect(await listApprovals(store, { ...key, rowVersion: 'v2' })).toHaveLength(1);
    });

    it('reads the approvals of the row versions asked for, and of no other row, version or workspace', async () => {
      const store = await open();
      const ws = await createWorkspace(store, 'w');
      const other = await createWorkspace(store, 'o');
      const t1 = { workspaceId: ws.id, runId: 'run_1', taskKey: 't1', rowVersion: 'v2' };
      await store.transaction(async (tx) => {
        await recordApproval(tx, { ...t1, principal: 'member:cred_b' });
        await recordApproval(tx, { ...t1, principal: 'member:cred_a' });
        await recordApproval(tx, { ...t1, rowVersion: 'v1', principal: 'member:cred_c' });
        await recordApproval(tx, { ...t1, taskKey: 't2', principal: 'member:cred_d' });
        await recordApproval(tx, { ...t1, runId: 'run_2', principal: 'member:cred_e' });
        await recordApproval(tx, { ...t1, workspaceId: other.id, principal: 'member:cred_f' });
      });
      const asked = [{ runId: 'run_1', taskKey: 't1', rowVersion: 'v2' }];
      const found = await listApprovalsOfVersions(store, ws.id, asked);
      expect(found.map((a) => [a.run_id, a.task_key, a.row_version])).toEqual([
        ['run_1', 't1', 'v2'],
        ['run_1', 't1', 'v2'],
      ]);
      expect(found.map((a) => a.principal).sort()).toEqual(['member:cred_a', 'member:cred_b']);
      // More versions than one read names are read in turns, each found once.
      const many = Array.from({ length: 250 }, (_, n) => ({
        runId: 'run_1',
        taskKey: `t${n + 1}`,
        rowVersion: 'v1',
      }));
      const all = await listApprovalsOfVersions(store, ws.id, [...many, ...asked]);
      expect(all.map((a) => a.principal).sort()).toEqual([
        'member:cred_a',
        'member:cred_b',
        'member:cred_c',
      ]);
      expect(await listApprovalsOfVersions(store, ws.id, [])).toEqual([]);
    });

    it('names members by label, renames them, and lists member credentials with their revocations', async () => {
      const store = await open();
      const ws = await createWorkspace(store, 'w');
      const other = await createWorkspace(store, 'o');
      const named = await createCredential(store, {
        workspaceId: ws.id,
        kind: 'member',
        label: 'Ana',
      });
      const plain = await createCredential(store, { workspaceId: ws.id, kind: 'member' });
      const ana = named.credential.credential_id;
      const plainId = plain.credential.credential_id;
      expect(await principalNames(store, ws.id)).toEqual(new Map([[`member:${ana}`, 'Ana']]));
      const renamed = await setCredentialLabel(store, {
        workspaceId: ws.id,
        credentialId: plainId,
        label: 'Bo',
      });
      expect(renamed?.label).toBe('Bo');
      expect((await principalNames(store, ws.id)).get(`member:${plainId}`)).toBe('Bo');
      expect(
        await setCredentialLabel(store, { workspaceId: other.id, credentialId: ana, label: 'x' }),
      ).toBeUndefined();
      expect(await memberCredentialStates(store, ws.id)).toEqual(
        new Map([
          [ana, { revoked: false }],
          [plainId, { revoked: false }],
        ]),
      );
      expect(await memberCredentialStates(store, other.id)).toEqual(new Map());
      await store.transaction((tx) =>
        revokeActiveCredential(tx, { idOrToken: plainId, workspaceId: ws.id }),
      );
      expect((await memberCredentialStates(store, ws.id)).get(plainId)).toEqual({ revoked: true });
      expect((await principalRoster(store, ws.id)).revoked).toEqual(new Set([`member:${plainId}`]));
    });
  });
}
