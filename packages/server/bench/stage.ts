/**
 * What one call costs at the approval stage in a workspace of realistic
 * size: `members` user documents of a few KB each (one of them an admin's
 * guardrails), a run that selected a shell-heavy custom rule set over a
 * manifest, and a long shell command per call. Each call is a gateway's
 * submit of one `bash` call the rule set grants (REST, an in-process kernel):
 * the stage reads the run's overlays and the workspace's guardrails for it.
 * Prints, per store and workspace size, the median and p90 wall time of a
 * call, the kernel's CPU per call and the SQL statements per call; then the
 * stage's overlay read alone, in a unit of work of its own, two ways: every
 * member's user document read in full (what the stage read up to December
 * 2026) and the stage's read now (the run's own documents, every user
 * document's digest, the guardrails from their digest-checked cache), with
 * the bytes each brings back per call.
 *
 *   node --conditions=source --import tsx bench/stage.ts [--members 20,200] [--calls 200]
 *
 * PostgreSQL runs too when AIRLOCK_BENCH_DATABASE_URL or AIRLOCK_TEST_DATABASE_URL is set.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { OverlayDocument, PermissionRule } from '@airlock/core';
import SqliteDatabase from 'better-sqlite3';
import pg from 'pg';
import { type Airlock, startAirlock } from '../src/airlock.js';
import { readRun } from '../src/kernel/machines/run-state.js';
import { activeOverlays } from '../src/kernel/stage/active-overlays.js';
import { guardrailsOfDocuments } from '../src/kernel/stage/workspace-guardrails.js';
import {
  EMPTY_OVERLAY_DIGEST,
  readOverlayDocuments,
  replaceOverlay,
} from '../src/store/overlays.js';
import { readStageOverlays } from '../src/store/stage-overlays.js';
import type { Tx } from '../src/store/store.js';
import { benchWorkspace } from './bench-workspace.js';
import { percentile, post } from './http-client.js';
import { freshDatabase } from './server-process.js';

const { values } = parseArgs({
  // `pnpm x -- --flag` hands the `--` on: the flags after it are still ours.
  args: process.argv.slice(2).filter((arg) => arg !== '--'),
  options: {
    members: { type: 'string', default: '20,200' },
    calls: { type: 'string', default: '200' },
  },
});
const sizes = values.members.split(',').map(Number);
const calls = Number(values.calls);

const counter = { statements: 0 };

/** Counts every statement better-sqlite3 runs and every query the pg driver sends. */
function countStatements(): void {
  const probe = new SqliteDatabase(':memory:');
  const statementPrototype = Object.getPrototypeOf(probe.prepare('select 1')) as Record<
    string,
    (...args: unknown[]) => unknown
  >;
  probe.close();
  for (const method of ['run', 'get', 'all', 'iterate'] as const) {
    const original = statementPrototype[method]!;
    statementPrototype[method] = function (this: unknown, ...args: unknown[]) {
      counter.statements += 1;
      return original.apply(this, args);
    };
  }
  const clientPrototype = pg.Client.prototype as unknown as { query(...args: unknown[]): unknown };
  const query = clientPrototype.query;
  clientPrototype.query = function (this: unknown, ...args: unknown[]) {
    counter.statements += 1;
    return query.apply(this, args);
  };
}

const SHELL_WORDS = ['git', 'npm', 'docker', 'kubectl', 'terraform', 'curl', 'make', 'psql'];

/** A shell-heavy list of rules over the `command` argument: `count` of them, `verdict` each. */
function shellRules(count: number, verdict: PermissionRule['verdict'], salt: string) {
  return Array.from({ length: count }, (_, i) => ({
    verdict,
    tools: ['bash'],
    argument_patterns: {
      '/command': `*${SHELL_WORDS[i % SHELL_WORDS.length]} ${salt}-${i} --flag-${i}*`,
    },
    reason: `${salt}: rule ${i} keeps ${SHELL_WORDS[i % SHELL_WORDS.length]} in its lane (team policy)`,
  }));
}

/** A member's user document, about 3 KB; the first member's holds an admin's guardrails. */
function userDocument(member: number): OverlayDocument {
  const rules: PermissionRule[] = shellRules(24, 'ask', `member-${member}`);
  if (member === 0) {
    rules.push(
      {
        verdict: 'deny',
        guardrail: true,
        tools: ['bash'],
        argument_patterns: { '/command': '*rm -rf /*' },
        reason: 'no wiping the disk',
      },
      { verdict: 'deny', guardrail: true, tools: ['deploy*'], reason: 'deploys are frozen' },
    );
  }
  return [{ ruleSetId: 'shell', rules }];
}

/** A long, realistic shell command (about 2 KB) that no deny of the bench matches. */
const COMMAND = Array.from(
  { length: 30 },
  (_, i) => `cd /srv/app/module-${i} && make test TARGET=unit-${i} | tee -a /tmp/log-${i}.txt`,
).join(' ; ');

/**
 * The CPU, in µs, of one unit of work doing each of two works: 20 warm-ups
 * each, then 10 turns of 50 units each, taking turns so that a drift of the
 * machine weighs on both alike.
 */
async function cpuPerUnit(
  airlock: Airlock,
  works: readonly [(tx: Tx) => Promise<unknown>, (tx: Tx) => Promise<unknown>],
): Promise<[number, number]> {
  for (const work of works) {
    for (let i = 0; i < 20; i += 1) await airlock.store.transaction(work);
  }
  const used = [0, 0];
  for (let turn = 0; turn < 10; turn += 1) {
    for (const [index, work] of works.entries()) {
      const cpu = process.cpuUsage();
      for (let i = 0; i < 50; i += 1) await airlock.store.transaction(work);
      const spent = process.cpuUsage(cpu);
      used[index]! += spent.user + spent.system;
    }
  }
  return [used[0]! / 500, used[1]! / 500];
}

async function measure(location: { dataDir?: string; databaseUrl?: string }, members: number) {
  const airlock = await startAirlock({ ...location, sweepIntervalMs: 3_600_000, rateLimit: null });
  try {
    const target = await benchWorkspace(airlock);
    const workspaceId = target.ws.split('/').pop()!;
    for (let member = 0; member < members; member += 1) {
      await airlock.store.transaction((tx) =>
        replaceOverlay(
          tx,
          { workspaceId, scope: 'user', ownerId: `member:bench-${member}` },
          { expectedDigest: EMPTY_OVERLAY_DIGEST, document: userDocument(member), by: 'bench' },
        ),
      );
    }
    const run = await post(target.url, target.agent, `${target.ws}/runs`, {
      approval_mode: 'bypass',
      input: 'bench',
      provider: { kind: 'gateway', client: 'bench 1.0' },
      tool_manifest: [
        {
          name: 'bash',
          input_schema: {
            type: 'object',
            properties: { command: { type: 'string' } },
            required: ['command'],
          },
          risk_traits: ['execute'],
          commands: ['/command'],
        },
      ],
      permission_rule_set: 'shell',
      custom_rule_sets: [
        {
          id: 'shell',
          rules: [
            ...shellRules(60, 'deny', 'set'),
            ...shellRules(60, 'ask', 'set-ask'),
            { verdict: 'allow', tools: ['bash'] },
          ],
        },
      ],
    });
    const times: number[] = [];
    let statements = 0;
    let cpuMicros = 0;
    for (let i = 0; i < calls + 10; i += 1) {
      counter.statements = 0;
      const cpu = process.cpuUsage();
      const started = performance.now();
      const answer = (await post(target.url, target.agent, `${target.ws}/runs/${run.id}/calls`, {
        calls: [{ name: 'bash', input: { command: `${COMMAND} # ${i}` }, id: `c${i}` }],
      })) as unknown as { tasks: { state: string }[] };
      const elapsed = performance.now() - started;
      const used = process.cpuUsage(cpu);
      if (answer.tasks[0]?.state !== 'runnable') {
        throw new Error(`the call was not granted: ${JSON.stringify(answer.tasks[0])}`);
      }
      // The first calls warm the caches and the JIT.
      if (i < 10) continue;
      times.push(elapsed);
      statements += counter.statements;
      cpuMicros += used.user + used.system;
    }
    times.sort((a, b) => a - b);
    const runRow = await readRun(airlock.store, workspaceId, run.id);
    const owners = { user: null, project: runRow.agent_application_id, conversation: null };
    const named = [['project', runRow.agent_application_id ?? '']] as const;
    const every = await airlock.store.transaction((tx) =>
      readOverlayDocuments(tx, workspaceId, named, { everyUserDocument: true }),
    );
    const now = await airlock.store.transaction((tx) => readStageOverlays(tx, workspaceId, owners));
    const [before, after] = await cpuPerUnit(airlock, [
      async (tx) => {
        // The read the stage made before: the run's documents and every user document in full.
        const rows = await readOverlayDocuments(tx, workspaceId, named, {
          everyUserDocument: true,
        });
        guardrailsOfDocuments(
          workspaceId,
          rows.filter((row) => row.scope === 'user'),
        );
      },
      (tx) => activeOverlays(tx, runRow),
    ]);
    const bytes = (rows: { digest: string; document: string | null }[]) =>
      rows.reduce((sum, row) => sum + row.digest.length + (row.document?.length ?? 0), 0);
    return {
      p50: percentile(times, 50),
      p90: percentile(times, 90),
      cpuMicros: cpuMicros / calls,
      statements: statements / calls,
      before: { micros: before, kb: bytes(every) / 1000 },
      after: { micros: after, kb: bytes(now) / 1000 },
    };
  } finally {
    await airlock.close();
  }
}

async function main() {
  countStatements();
  const pgUrl = process.env.AIRLOCK_BENCH_DATABASE_URL || process.env.AIRLOCK_TEST_DATABASE_URL;
  console.log(
    `approval stage: one granted bash call (${(COMMAND.length / 1000).toFixed(1)} KB command) per gateway submit, ${calls} calls after 10 warm-ups`,
  );
  console.log(
    '| store | members | p50 ms | p90 ms | CPU µs per call | statements per call | overlay read before: µs, KB | overlay read now: µs, KB |',
  );
  console.log('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
  const print = (store: string, members: number, r: Awaited<ReturnType<typeof measure>>) =>
    console.log(
      `| ${store} | ${members} | ${r.p50.toFixed(2)} | ${r.p90.toFixed(2)} | ${r.cpuMicros.toFixed(0)} | ${r.statements.toFixed(1)} | ${r.before.micros.toFixed(0)}, ${r.before.kb.toFixed(1)} | ${r.after.micros.toFixed(0)}, ${r.after.kb.toFixed(1)} |`,
    );
  for (const members of sizes) {
    const dataDir = mkdtempSync(join(tmpdir(), 'airlock-stage-'));
    try {
      print('sqlite', members, await measure({ dataDir }, members));
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }
  if (!pgUrl) {
    console.log(
      '(PostgreSQL skipped: set AIRLOCK_BENCH_DATABASE_URL or AIRLOCK_TEST_DATABASE_URL)',
    );
    return;
  }
  for (const members of sizes) {
    print('postgres', members, await measure({ databaseUrl: await freshDatabase(pgUrl) }, members));
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
