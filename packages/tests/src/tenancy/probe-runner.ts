import { OPERATION_CONTRACTS, type OperationName } from '@airlock/core';
import type { TestWorkspace } from '../support/kernel.js';
import { PROBES } from './operation-matrix.js';
import {
  caller,
  madeUpThings,
  type ThingName,
  TRANSPORTS,
  type WorkspaceThings,
} from './two-workspaces.js';
import { callOperation, type Reply } from './wire.js';

/** The planes of the credentials. */
export type Plane = 'agent' | 'executor' | 'member';

/** Keys whose values differ from one call to the next whatever is asked (clocks, fresh rows). */
const FRESH_KEY = /(_at|_until|version|digest|^seq|^after|^id|_id|^token)$/;

/**
 * An answer with each named thing (the target's real one, or its made-up
 * twin) put as its name, and what differs between any two calls (times, fresh
 * ids) put as a placeholder: two answers that say the same read the same.
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

/** The target's things and text, as they may show in an answer to the caller. */
function leaksOf(
  reply: Reply,
  target: { things: Partial<WorkspaceThings>; mark: string },
  sent: readonly ThingName[],
): string[] {
  const text = JSON.stringify(reply.result ?? null) + JSON.stringify(reply.error?.problems ?? null);
  const found: string[] = [];
  if (text.includes(target.mark)) found.push(`text ${target.mark}`);
  for (const [name, value] of Object.entries(target.things) as [ThingName, string][]) {
    // The caller's own input echoed back in a problem is no leak; a success naming it is.
    if (sent.includes(name) && reply.error) continue;
    if (value.length > 6 && text.includes(value)) found.push(`${name} ${value}`);
  }
  return found;
}

/** Who probes: the kernel, the caller's tokens by plane, its workspace and own things. */
export interface Prober {
  url: string;
  tokens: Partial<Record<Plane, string>>;
  own: { workspace: string; things: WorkspaceThings };
}

/**
 * Calls one operation with each of the prober's tokens over REST and tRPC,
 * with each probe of {@link PROBES} naming the target's things, and says what
 * went wrong: a token of another plane not refused 403 forbidden, a 5xx, an
 * answer holding the target's things or mark, or the target's things answered
 * otherwise than made-up ones of the same form.
 */
export async function probeFindings(
  prober: Prober,
  name: OperationName,
  target: { things: WorkspaceThings; mark: string },
): Promise<string[]> {
  const contract = OPERATION_CONTRACTS[name];
  const findings: string[] = [];
  // What the caller shares with the target (one workspace, one member) is its own to see.
  const shared = new Set(Object.values(prober.own.things));
  const foreign = Object.fromEntries(
    Object.entries(target.things).filter(([, value]) => !shared.has(value)),
  ) as Partial<WorkspaceThings>;
  for (const transport of TRANSPORTS) {
    for (const [plane, token] of Object.entries(prober.tokens) as [Plane, string][]) {
      const call = (input: Record<string, unknown>) =>
        callOperation({ url: prober.url, transport, token, name, input });
      for (const [index, probe] of PROBES[name].entries()) {
        const where = `${transport} ${plane} probe ${index}`;
        const real = await call(probe.input(target.things, prober.own));
        if (!(contract.planes as readonly string[]).includes(plane)) {
          if (real.status !== 403 || real.error?.code !== 'forbidden') {
            findings.push(`${where}: another plane answered ${real.status} ${real.error?.code}`);
          }
          continue;
        }
        if (real.status >= 500) findings.push(`${where}: ${real.status} ${real.error?.detail}`);
        for (const leak of leaksOf(real, { things: foreign, mark: target.mark }, probe.names)) {
          findings.push(`${where}: the answer holds the target's ${leak}`);
        }
        if (probe.names.length === 0) continue;
        const madeUp = madeUpThings(target.things);
        const fake = await call(probe.input(madeUp, prober.own));
        const said = normalized(real, withNames(target.things, probe.names));
        const other = normalized(fake, withNames(madeUp, probe.names));
        if (JSON.stringify(said) !== JSON.stringify(other)) {
          findings.push(
            `${where}: the target's things answered ${JSON.stringify(said)}, made-up ones ${JSON.stringify(other)}`,
          );
        }
      }
    }
  }
  return findings;
}

/** Keeps a list's rows of the runs in `runs` (a list answer's `runs` or `decisions`). */
function onlyRuns(result: unknown, key: 'runs' | 'decisions', runs: ReadonlySet<string>): unknown {
  const rows = (result as Record<string, { id?: string; run_id?: string }[]> | null)?.[key] ?? [];
  return rows.filter((row) => runs.has(row.run_id ?? row.id ?? ''));
}

/**
 * What a workspace's member and agent read of the things planted in it: every
 * row a probe could have changed, to compare before and after. The runs and
 * decisions lists are read for the planted runs only, so the prober's own new
 * rows (it shares the workspace when it probes another application) do not count.
 */
export async function snapshotOf(
  url: string,
  ws: TestWorkspace,
  things: WorkspaceThings,
): Promise<unknown> {
  const member = caller(url, ws.tokens.member);
  const workspace_id = ws.id;
  const runs = [
    things.parkedRun,
    things.runnableRun,
    things.claimedRun,
    things.gatewayRun,
    things.turnRun,
  ];
  const planted = new Set(runs);
  const reads: Promise<unknown>[] = [
    member('runs.list', { workspace_id, limit: 1000 }).then((r) =>
      onlyRuns(r.result, 'runs', planted),
    ),
    member('decisions.list', { workspace_id }).then((r) =>
      onlyRuns(r.result, 'decisions', planted),
    ),
    member('credentials.list', { workspace_id, include_revoked: true }).then((r) => r.result),
    member('agentApplications.list', { workspace_id }).then((r) => r.result),
    member('approvalPolicy.get', { workspace_id }).then((r) => r.result),
    member('retention.get', { workspace_id }).then((r) => r.result),
    member('overlays.get', { workspace_id, scope: 'project', owner_id: things.application }).then(
      (r) => r.result,
    ),
    caller(url, ws.tokens.agent)('profile.get', {}).then((r) => r.result),
    ...runs.map((run_id) => member('tasks.list', { workspace_id, run_id }).then((r) => r.result)),
    ...runs.map((run_id) => member('runs.events', { workspace_id, run_id }).then((r) => r.result)),
    ...runs.map((run_id) => member('audit.run', { workspace_id, run_id }).then((r) => r.result)),
  ];
  return Promise.all(reads);
}
