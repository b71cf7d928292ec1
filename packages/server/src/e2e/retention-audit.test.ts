import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { CLI_NODE_ARGS } from '../testing/cli-entry.js';
import { type Deployment, deploy } from '../testing/harness.js';
import { backends } from '../testing/stores.js';

const all = await backends();
const execute = promisify(execFile);

// biome-ignore lint/suspicious/noExplicitAny: tests read JSON lines loosely and assert on them.
type Loose = any;

/** The workspace's audit trail as the member plane serves it. */
async function auditLines(d: Deployment): Promise<Loose[]> {
  const response = await fetch(`${d.url}${d.ws}/audit?limit=10000`, {
    headers: { authorization: `Bearer ${d.tokens.member}` },
  });
  expect(response.status).toBe(200);
  return (await response.text())
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line));
}

for (const backend of all) {
  describe.skipIf(backend.skip !== null)(
    `retention policy changes on the record (${backend.name})`,
    () => {
      let d: Deployment;
      afterEach(async () => {
        await d?.close();
      });

      it('each accepted PUT is an audit record naming who and the windows before and after; a refused one is not', async () => {
        d = await deploy(backend);
        const member = (await d.member.get(`${d.ws}/credentials/self`)).body.principal as string;
        const path = `${d.ws}/retention`;
        const first = { events_days: 90, runs_days: 90, audit_days: 365 };
        expect((await d.member.put(path, first)).status).toBe(200);
        // Refused: changes nothing and records nothing.
        expect(
          (await d.member.put(path, { events_days: 0, runs_days: 1, audit_days: 1 })).status,
        ).toBe(400);
        const second = { events_days: 30, runs_days: null, audit_days: 730 };
        expect((await d.member.put(path, second)).status).toBe(200);

        const records = (await auditLines(d)).filter(
          (record) => record.decision === 'retention_policy_replaced',
        );
        expect(records).toHaveLength(2);
        const [set, changed] = records;
        expect(set).toMatchObject({
          event: 'policy.changed',
          decider: 'person',
          principal: member,
          run_id: '',
          policy: {
            change: 'retention_policy_replaced',
            scope: 'retention_policy',
            owner_id: d.workspaceId,
            before: null,
            before_digest: null,
            after: first,
          },
        });
        expect(set.detail).toBe(
          'set retention: events 90 d, runs 90 d, audit 365 d (was: no policy, everything kept)',
        );
        expect(changed).toMatchObject({
          principal: member,
          policy: { before: first, after: second, before_digest: set.policy.after_digest },
        });
        expect(changed.policy.after_digest).not.toBe(set.policy.after_digest);
        expect(changed.detail).toBe(
          'set retention: events 30 d, runs kept, audit 730 d (was: events 90 d, runs 90 d, audit 365 d)',
        );

        // `airlock audit export` writes the same records.
        const { stdout } = await execute(process.execPath, [...CLI_NODE_ARGS, 'audit', 'export'], {
          env: {
            ...process.env,
            DATABASE_URL: '',
            AIRLOCK_URL: d.url,
            AIRLOCK_TOKEN: d.tokens.member,
            AIRLOCK_WORKSPACE: d.workspaceId,
          },
        });
        const exported = stdout
          .split('\n')
          .filter(Boolean)
          .map((line) => JSON.parse(line))
          .filter((record) => record.decision === 'retention_policy_replaced');
        expect(exported).toEqual(records);
      });
    },
  );
}
