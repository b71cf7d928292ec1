import { OPERATION_CONTRACTS, type OperationName } from '@airlock/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROBES } from './operation-matrix.js';
import {
  caller,
  MARKS,
  madeUpLike,
  madeUpThings,
  startTwoWorkspaces,
  type ThingName,
  TRANSPORTS,
  type TwoWorkspaces,
  type WorkspaceThings,
} from './two-workspaces.js';
import { callOperation, type Reply } from './wire.js';

const PLANES = ['agent', 'executor', 'member'] as const;

/** Keys whose values differ from one call to the next whatever is asked (clocks, fresh rows). */
const FRESH_KEY = /(_at|_until|version|digest|^seq|^after|^id|_id|^token)$/;

/**
 * An answer with each named thing (B's real one, or its made-up twin) put as
 * its name, and what differs between any two calls (times, fresh ids) put as
 * a placeholder: two answers that say the same read the same.
 */
function normalized(reply: Reply, things: Record<string, string>): unknown {
  let text = JSON.stringify({ status: reply.status, error: reply.error, result: reply.result });
  const named = Object.entries(things).sort(([, x], [, y]) => y.length - x.length);
  for (const [name, value] of named) text = text.split(value).join(`<${name}>`);
  return JSON.parse(text, (key, value) =>
    FRESH_KEY.test(key) && typeof value !== 'object' ? `<${key}>` : value,
  );
}

function withNames(things: WorkspaceThings, names: readonly ThingName[]): Record<string, string> {
  const named: Record<string, string> = Object.fromEntries(
    names.map((name) => [name, things[name]]),
  );
  // A member is named `member:<credential id>` in overlays, by its bare id in an approval policy.
  if (names.includes('member')) named.memberId = things.member.slice('member:'.length);
  return named;
}

/** B's things and text, as they may show in an answer to a credential of A. */
function leaksOf(reply: Reply, b: WorkspaceThings, sent: readonly ThingName[]): string[] {
  const text = JSON.stringify(reply.result ?? null) + JSON.stringify(reply.error?.problems ?? null);
  const found: string[] = [];
  if (text.includes(MARKS.b)) found.push(`text ${MARKS.b}`);
  for (const [name, value] of Object.entries(b) as [ThingName, string][]) {
    // The caller's own input echoed back in a problem is no leak; a success naming it is.
    if (sent.includes(name) && reply.error) continue;
    if (value.length > 6 && text.includes(value)) found.push(`${name} ${value}`);
  }
  return found;
}

/** What B's member and agent read of B: every row a probe of A could have changed. */
async function snapshotOf(two: TwoWorkspaces): Promise<unknown> {
  const { b, bThings } = two;
  const member = caller(two.kernel.url, b.tokens.member);
  const workspace_id = b.id;
  const runs = [
    bThings.parkedRun,
    bThings.runnableRun,
    bThings.claimedRun,
    bThings.gatewayRun,
    bThings.turnRun,
  ];
  const reads: Promise<Reply>[] = [
    member('runs.list', { workspace_id, limit: 1000 }),
    member('decisions.list', { workspace_id }),
    member('credentials.list', { workspace_id, include_revoked: true }),
    member('agentApplications.list', { workspace_id }),
    member('approvalPolicy.get', { workspace_id }),
    member('retention.get', { workspace_id }),
    member('audit.export', { workspace_id }),
    member('overlays.get', { workspace_id, scope: 'project', owner_id: bThings.application }),
    caller(two.kernel.url, b.tokens.agent)('profile.get', {}),
    ...runs.map((run_id) => member('tasks.list', { workspace_id, run_id })),
    ...runs.map((run_id) => member('runs.events', { workspace_id, run_id })),
  ];
  return (await Promise.all(reads)).map((reply) => ({ status: reply.status, body: reply.result }));
}

/*
 * One kernel, two workspaces (A and B), each with an agent application, an
 * agent, executor and admin member token, and a run in every state its
 * operations act on. Every operation of the contracts is called with each of
 * A's tokens, over REST and tRPC, naming B's things: a credential of another
 * plane is refused; one of its plane is answered as if B's things were
 * made-up ids of the same form (no answer tells that they exist), and no
 * answer holds anything of B's; and B reads afterwards what it read before.
 */
describe('a credential of one workspace and the things of another', () => {
  let two: TwoWorkspaces;
  let before: unknown;
  beforeAll(async () => {
    two = await startTwoWorkspaces();
    before = await snapshotOf(two);
  });
  afterAll(async () => {
    await two?.kernel.close();
  });

  it('has a probe row for every operation the server serves', async () => {
    const document = (await (await fetch(`${two.kernel.url}/openapi.json`)).json()) as {
      paths: Record<string, Record<string, { operationId?: string }>>;
    };
    const served = Object.values(document.paths).flatMap((methods) =>
      Object.values(methods).flatMap((operation) => operation.operationId ?? []),
    );
    expect(Object.keys(PROBES).sort()).toEqual([...new Set(served)].sort());
    expect(Object.keys(PROBES).sort()).toEqual(Object.keys(OPERATION_CONTRACTS).sort());
  });

  for (const name of Object.keys(PROBES) as OperationName[]) {
    const contract = OPERATION_CONTRACTS[name];
    it(`${name}: B's things are answered as made-up ones, and nothing of B's comes back`, async () => {
      const findings: string[] = [];
      const own = { workspace: two.a.id, things: two.aThings };
      for (const transport of TRANSPORTS) {
        for (const plane of PLANES) {
          const token = two.a.tokens[plane];
          const call = (input: Record<string, unknown>) =>
            callOperation({ url: two.kernel.url, transport, token, name, input });
          for (const [index, probe] of PROBES[name].entries()) {
            const where = `${transport} ${plane} probe ${index}`;
            const real = await call(probe.input(two.bThings, own));
            if (!(contract.planes as readonly string[]).includes(plane)) {
              if (real.status !== 403 || real.error?.code !== 'forbidden') {
                findings.push(
                  `${where}: another plane answered ${real.status} ${real.error?.code}`,
                );
              }
              continue;
            }
            if (real.status >= 500) findings.push(`${where}: ${real.status} ${real.error?.detail}`);
            for (const leak of leaksOf(real, two.bThings, probe.names)) {
              findings.push(`${where}: the answer holds B's ${leak}`);
            }
            if (probe.names.length === 0) continue;
            const madeUp = madeUpThings(two.bThings);
            const fake = await call(probe.input(madeUp, own));
            const said = normalized(real, withNames(two.bThings, probe.names));
            const other = normalized(fake, withNames(madeUp, probe.names));
            if (JSON.stringify(said) !== JSON.stringify(other)) {
              findings.push(
                `${where}: B's things answered ${JSON.stringify(said)}, made-up ones ${JSON.stringify(other)}`,
              );
            }
          }
        }
      }
      expect(findings).toEqual([]);
    });
  }

  it("refuses B's workspace id as a made-up one, on every operation that names a workspace", async () => {
    const findings: string[] = [];
    const madeUp = madeUpLike(two.b.id);
    for (const name of Object.keys(PROBES) as OperationName[]) {
      const contract = OPERATION_CONTRACTS[name];
      if (!('workspace_id' in contract.input.shape)) continue;
      for (const transport of TRANSPORTS) {
        for (const plane of contract.planes) {
          const token = two.a.tokens[plane];
          const call = (workspace_id: string) =>
            callOperation({
              url: two.kernel.url,
              transport,
              token,
              name,
              input: {
                ...PROBES[name][0]!.input(two.bThings, {
                  workspace: workspace_id,
                  things: two.aThings,
                }),
              },
            });
          const real = await call(two.b.id);
          const fake = await call(madeUp);
          const said = { status: real.status, code: real.error?.code, detail: real.error?.detail };
          const other = { status: fake.status, code: fake.error?.code, detail: fake.error?.detail };
          if (real.status !== 403 || JSON.stringify(said) !== JSON.stringify(other)) {
            findings.push(
              `${name} ${transport} ${plane}: ${JSON.stringify(said)} / ${JSON.stringify(other)}`,
            );
          }
        }
      }
    }
    expect(findings).toEqual([]);
  });

  it('leaves every row of B as it was', async () => {
    expect(await snapshotOf(two)).toEqual(before);
  });
});
