import { afterEach, describe, expect, it } from 'vitest';
import {
  addMember,
  claimAndCommit,
  type Deployment,
  deploy,
  putOverlay,
  waitFor,
} from '../testing/harness.js';
import { backends } from '../testing/stores.js';

/**
 * A member's runs go on after the member is revoked, and the member's user
 * document still applies to them: its allow rules (remembered approvals
 * among them) kept granting calls in those runs for a person who may no
 * longer decide anything. The revocation now drops them, on the audit trail;
 * the document's deny rules stay.
 */

const GROUPS = [
  {
    ruleSetId: 'supervised',
    rules: [
      { verdict: 'allow', tools: ['deploy'] },
      { verdict: 'deny', tools: ['wipe'], reason: 'never wipe' },
    ],
  },
];

// biome-ignore lint/suspicious/noExplicitAny: tests read JSON loosely and assert on it.
type Loose = any;

for (const backend of await backends()) {
  describe.skipIf(backend.skip !== null)(`a revoked member's allows (${backend.name})`, () => {
    let d: Deployment | undefined;
    afterEach(async () => {
      await d?.close();
      d = undefined;
    });

    it('grant nothing more in the runs the member started; their denies stay', async () => {
      d = await deploy(backend);
      const dep = d;
      const ana = await addMember(dep, 'Ana');
      expect((await putOverlay(ana.client, `${dep.ws}/overlays/user/me`, GROUPS)).status).toBe(200);
      const created = await ana.client.post(`${dep.ws}/runs`, {
        approval_mode: 'bypass',
        permission_rule_set: 'supervised',
        input: 'ship it',
        provider: {
          kind: 'scripted',
          rounds: [
            { tool_calls: [{ name: 'deploy', input: { n: 1 } }] },
            { tool_calls: [{ name: 'deploy', input: { n: 2 } }] },
            { final: 'done' },
          ],
        },
      });
      expect(created.status).toBe(201);
      const runId = created.body.id as string;
      const stateOf = (key: string) =>
        waitFor(async () => {
          const task = (await dep.member.get(`${dep.ws}/runs/${runId}/tasks/${key}`)).body as Loose;
          return task?.state && task.state !== 'ready' ? (task.state as string) : null;
        });
      // Ana's allow grants the first call.
      expect(await stateOf('t1')).toBe('runnable');

      const revoked = await dep.member.post(`${dep.ws}/credentials/${ana.id}/revoke`);
      expect(revoked.status).toBe(200);
      expect((await claimAndCommit(dep, runId, 't1', { outcome: 'succeeded' })).status).toBe(200);
      // The run goes on; its next identical call now waits for a person.
      expect(await stateOf('t2')).toBe('needs_approval');

      const path = `${dep.ws}/overlays/user/member:${ana.id}`;
      expect((await dep.member.get(path)).body.groups).toEqual([
        { ruleSetId: 'supervised', rules: [GROUPS[0]!.rules[1]] },
      ]);
      const audit = (
        await (
          await fetch(`${dep.url}${dep.ws}/audit`, {
            headers: { authorization: `Bearer ${dep.tokens.member}` },
          })
        ).text()
      )
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as Loose)
        .filter((record) => record.event === 'policy.changed');
      expect(JSON.stringify(audit)).toContain(
        `dropped 1 allow rule(s) from the user overlay of revoked member member:${ana.id}`,
      );
    });
  });
}
