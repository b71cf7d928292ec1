import { call, type Loose, sleep } from './http.js';
import type { KernelProcess } from './kernel-process.js';

/** The tokens and workspace the workload acts with. */
export interface Actors {
  ws: string;
  agent: string;
  executor: string;
  member: string;
}

/** What the workload did and saw, for the invariants. */
export interface Ledger {
  /** Runs whose create was answered 201. */
  created: Set<string>;
  /** `run/key` -> answered approves (200) and denies (200). */
  approved: Map<string, number>;
  denied: Map<string, number>;
  /** `run/key` -> claims granted to the executor (each one ran the tool). */
  claims: Map<string, number>;
  /** `run/key` -> commits the kernel accepted (200). */
  commits: Map<string, number>;
  /** Answers with a 5xx status, by path pattern. */
  serverErrors: number;
  unreachable: number;
}

/** An empty ledger. */
export function newLedger(): Ledger {
  return {
    created: new Set(),
    approved: new Map(),
    denied: new Map(),
    claims: new Map(),
    commits: new Map(),
    serverErrors: 0,
    unreachable: 0,
  };
}

function bump(map: Map<string, number>, key: string): void {
  map.set(key, (map.get(key) ?? 0) + 1);
}

const RULES = [
  { tool: 'bash', path: 'command', match: 'ls*', verdict: 'allow' },
  { tool: 'deploy', verdict: 'ask' },
  { tool: 'bash', path: 'command', match: 'rm*', verdict: 'deny' },
];

/** The scripted runs the workload starts, in turn: parks, rule decisions, hooks, plain grants. */
export const RUN_KINDS: Record<string, unknown>[] = [
  {
    approval_mode: 'ask',
    provider: {
      kind: 'scripted',
      rounds: [{ tool_calls: [{ name: 'deploy' }, { name: 'migrate' }] }, { final: 'done' }],
    },
  },
  {
    approval_mode: 'rules',
    approval_rules: RULES,
    provider: {
      kind: 'scripted',
      rounds: [
        {
          tool_calls: [
            { name: 'bash', input: { command: 'ls' } },
            { name: 'deploy' },
            { name: 'bash', input: { command: 'rm -rf /' } },
          ],
        },
        { final: 'done' },
      ],
    },
  },
  {
    approval_mode: 'bypass',
    lifecycle_hooks: {
      turn_start: { tool: 'gate', timeout_ms: 10_000 },
      stop: { tool: 'check', timeout_ms: 10_000, max_continuations: 1 },
    },
    provider: {
      kind: 'scripted',
      rounds: [{ tool_calls: [{ name: 'build' }] }, { final: 'done' }],
    },
  },
  {
    approval_mode: 'bypass',
    provider: {
      kind: 'scripted',
      rounds: [{ tool_calls: [{ name: 'a' }, { name: 'b' }] }, { final: 'done' }],
    },
  },
];

function note(ledger: Ledger, outcome: { status: number | 'unreachable' }): void {
  if (outcome.status === 'unreachable') ledger.unreachable++;
  else if (outcome.status >= 500) ledger.serverErrors++;
}

/** Starts `count` runs, one every `gapMs`, cycling through {@link RUN_KINDS}. */
export async function createRuns(
  kernels: readonly KernelProcess[],
  actors: Actors,
  ledger: Ledger,
  options: { count: number; gapMs: number },
): Promise<void> {
  for (let i = 0; i < options.count; i++) {
    const body = { ...RUN_KINDS[i % RUN_KINDS.length], input: `run ${i}` };
    // A create lost to a kill is sent again: it may have taken effect, so a run may be made twice.
    for (let attempt = 0; attempt < 50; attempt++) {
      const outcome = await call(kernels, actors.agent, 'POST', `${actors.ws}/runs`, body);
      note(ledger, outcome);
      if (outcome.status === 201) ledger.created.add(outcome.body.id);
      if (outcome.status !== 'unreachable' && outcome.status < 500) break;
      await sleep(100);
    }
    await sleep(options.gapMs);
  }
}

/** Decides every waiting park it sees: about two in three approved, the rest denied. */
export async function decideParks(
  kernels: readonly KernelProcess[],
  actors: Actors,
  ledger: Ledger,
  until: () => boolean,
): Promise<void> {
  while (!until()) {
    const listed = await call(kernels, actors.member, 'GET', `${actors.ws}/decisions?limit=200`);
    note(ledger, listed);
    for (const row of (listed.body?.decisions ?? []) as Loose[]) {
      if (row.state !== 'needs_approval') continue;
      const key = `${row.run_id}/${row.key}`;
      const verb = Math.random() < 0.67 ? 'approve' : 'deny';
      const path = `${actors.ws}/runs/${row.run_id}/tasks/${row.key}/${verb}`;
      const outcome = await call(kernels, actors.member, 'POST', path, {});
      note(ledger, outcome);
      if (outcome.status === 200) bump(verb === 'approve' ? ledger.approved : ledger.denied, key);
    }
    await sleep(50);
  }
}

/**
 * Plays an executor: claims runnable rows (hooks included) with a 2 s lease,
 * "runs" each (counted as a claim) and commits it, retrying the commit on
 * another kernel while the claim may still hold.
 */
export async function executeRows(
  kernels: readonly KernelProcess[],
  actors: Actors,
  ledger: Ledger,
  until: () => boolean,
): Promise<void> {
  while (!until()) {
    const claimed = await call(kernels, actors.executor, 'POST', '/executor_api/v1/claim', {
      lease_ms: 2000,
    });
    note(ledger, claimed);
    const claim = claimed.status === 200 ? claimed.body.claim : null;
    if (!claim) {
      await sleep(50);
      continue;
    }
    const key = `${claim.task.run_id}/${claim.task.key}`;
    bump(ledger.claims, key);
    const hookResult = { structured_content: { continue: false } };
    const body = {
      claim_id: claim.claim_id,
      outcome: 'succeeded',
      result: claim.task.kind === 'hook' ? hookResult : { ran: key },
    };
    const path = `/executor_api/v1/runs/${claim.task.run_id}/tasks/${claim.task.key}/commit`;
    for (let attempt = 0; attempt < 20; attempt++) {
      const committed = await call(kernels, actors.executor, 'POST', path, body);
      note(ledger, committed);
      if (committed.status === 200) {
        bump(ledger.commits, key);
        break;
      }
      // 409: the lease was lost (the row will be claimed again) or an unanswered commit took effect.
      if (committed.status !== 'unreachable' && committed.status < 500) break;
      await sleep(100);
    }
  }
}
