import type { RetentionPolicyView } from '@airlock/core';
import { unknownVerbLine } from '@airlock/core/command-line';
import { shownValue } from '../shown-value.js';
import { plainWholeNumber } from '../whole-number.js';
import {
  CONNECTION_HELP,
  connectionFrom,
  isKernelRefusal,
  parseOperatorArgs,
  print,
  UsageError,
} from './connection.js';

/**
 * The longest window a policy may set, in days. It comes with the contracts'
 * schemas, loaded only when the help or an age needs it: a mistyped flag or
 * a missing credential is told before.
 */
async function retentionMaxDays(): Promise<number> {
  return (await import('@airlock/core')).RETENTION_MAX_DAYS;
}

/** `airlock retention --help`, for a policy of at most `maxDays` days. */
export function retentionHelp(maxDays: number): string {
  return `Usage:
  airlock retention get
  airlock retention set [--events <age>] [--runs <age>] [--audit <age>]

Reads or sets how long the workspace keeps its data, through a running kernel:
get needs a member credential, set an admin's (admin_required otherwise). The
kernel prunes what is older in small batches (a few hundred rows per
transaction), writing it first as JSON lines to its export directory (audit
records in the format of \`airlock audit export\`). get also says whether the
kernel's pruning passes keep failing (pruning FAILING: an export directory it
cannot write, a full disk): nothing is pruned until one succeeds.

  --events <age>   lifecycle events that are not decisions (claims, rounds, model reads)
  --runs <age>     ended runs, with their task rows and remaining events
  --audit <age>    the audit trail (every decision)

An age is a number of days (90, 90d), weeks (12w) or years (1y = 365 days),
from 1 day to ${maxDays} days, or \`forever\`. A flag left out keeps its current value,
as it is when the change is written: a change someone made meanwhile is read
again, not undone.

${CONNECTION_HELP}`;
}

const UNIT_DAYS: Record<string, number> = { d: 1, w: 7, y: 365 };

/**
 * Reads an age flag: days, weeks or years up to `maxDays` days, or `forever` (null).
 * @throws UsageError (exit 2) naming the flag and what it accepts.
 */
export function parseRetentionAge(flag: string, text: string, maxDays: number): number | null {
  if (text === 'forever') return null;
  const match = /^(.*?)([dwy]?)$/.exec(text);
  const count = match ? plainWholeNumber(match[1]!, 1, maxDays) : null;
  const days = count === null ? Number.NaN : count * UNIT_DAYS[match?.[2] || 'd']!;
  if (!(days >= 1 && days <= maxDays)) {
    throw new UsageError(
      `airlock retention set: --${flag} wants an age from 1d to ${maxDays}d (90, 90d, 12w, 1y) or forever, not ${shownValue(text)}`,
    );
  }
  return days;
}

function describe(policy: RetentionPolicyView): string[] {
  const age = (days: number | null) => (days === null ? 'forever' : `${days} days`);
  return [
    `events  ${age(policy.events_days)}`,
    `runs    ${age(policy.runs_days)} (after they end)`,
    `audit   ${age(policy.audit_days)}`,
    `pruned through sequence number ${policy.pruned_through}`,
    pruningLine(policy.pass_failure),
  ];
}

/** Whether the kernel's pruning passes succeed, and what to do when they keep failing. */
function pruningLine(failure: RetentionPolicyView['pass_failure']): string {
  if (failure === null) return 'pruning: no pass failing';
  const codes = [failure.code, failure.cause_code].filter((code) => code !== null).join(', ');
  return [
    `pruning FAILING: ${failure.passes} passes in a row since ${new Date(failure.since).toISOString()}`,
    codes ? ` (${codes})` : '',
    "; nothing is pruned until a pass succeeds. The kernel's log (retention pass failed) names the file: check its --retention-export-dir can be written and its disk has room",
  ].join('');
}

/** Runs `airlock retention ...`; returns the exit code. */
export async function retention(argv: string[]): Promise<number> {
  const { values, positionals } = parseOperatorArgs(argv, 'retention', {
    get: {},
    set: {
      flags: { events: { type: 'string' }, runs: { type: 'string' }, audit: { type: 'string' } },
    },
  });
  const [verb] = positionals;
  if (values.help || !verb) {
    process.stdout.write(retentionHelp(await retentionMaxDays()));
    return values.help ? 0 : 2;
  }
  if (verb !== 'get' && verb !== 'set') {
    throw new UsageError(unknownVerbLine('retention', verb, ['get', 'set']));
  }
  const changes: Partial<Record<'events_days' | 'runs_days' | 'audit_days', number | null>> = {};
  for (const flag of ['events', 'runs', 'audit'] as const) {
    const text = values[flag];
    if (typeof text === 'string') {
      changes[`${flag}_days`] = parseRetentionAge(flag, text, await retentionMaxDays());
    }
  }
  if (verb === 'set' && Object.keys(changes).length === 0) {
    throw new UsageError('airlock retention set: give --events, --runs or --audit');
  }
  const connection = connectionFrom(values);
  const workspace_id = connection.workspace;
  for (let attempt = 1; ; attempt += 1) {
    const current = await connection.call('retention.get', { workspace_id });
    if (verb === 'get') {
      print(connection, current, () => describe(current));
      return 0;
    }
    try {
      // The windows not named keep what was read, and the write is refused if another change
      // came since the read (it is then read again): a concurrent change of another window stays.
      const updated = await connection.call('retention.put', {
        workspace_id,
        events_days: current.events_days,
        runs_days: current.runs_days,
        audit_days: current.audit_days,
        ...changes,
        expected_updated_at: current.updated_at,
      });
      print(connection, updated, () => describe(updated));
      return 0;
    } catch (error) {
      if (!(await isKernelRefusal(error, 'stale_digest')) || attempt === SET_ATTEMPTS) {
        throw error;
      }
    }
  }
}

/** How many reads a `set` makes when the policy keeps changing under it before giving up. */
const SET_ATTEMPTS = 3;
