import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type RawBuilder, sql } from 'kysely';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { AUDIT_EVENT_TYPES } from '../audit/audit-records.js';
import type { Store } from '../store/store.js';
import { client, waitFor } from '../testing/harness.js';
import {
  deployWithChannels,
  freePort,
  type NotifyDeployment,
  startReceiver,
} from '../testing/notify-kit.js';
import { backends } from '../testing/stores.js';

const all = await backends();
const DAY = 24 * 60 * 60 * 1000;
const root = mkdtempSync(join(tmpdir(), 'airlock-retention-orphans-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const FAST = { pollMs: 50, backoff: { baseMs: 20, capMs: 100 } };

/** A sequential tool: claiming it takes a claim lock keyed by its run and row. */
const MANIFEST = [
  {
    name: 'migrate',
    input_schema: { type: 'object' },
    risk_traits: ['execute'],
    execution: 'sequential',
  },
];

/** Rows of one table: all of them, and those that belong to one of `runIds`. */
interface TableCount {
  total: number;
  ofRuns: number;
}

/** The rows of a table that belong to some runs or conversations, as an SQL condition (null: none do). */
function belonging(
  table: { name: string; columns: { name: string }[] },
  owners: { runIds: string[]; conversationIds: string[] },
): RawBuilder<unknown> | null {
  const runs = sql.join(owners.runIds);
  const conversations = sql.join(owners.conversationIds);
  if (table.name === 'runs') {
    return sql`where id in (${runs}) or conversation_id in (${conversations})`;
  }
  if (table.name === 'conversations') return sql`where id in (${conversations})`;
  if (table.name === 'overlay_documents') {
    return sql`where scope = 'conversation' and owner_id in (${conversations})`;
  }
  const has = (column: string) => table.columns.some((c) => c.name === column);
  const terms = [
    ...(has('run_id') ? [sql`run_id in (${runs})`] : []),
    ...(has('conversation_id') ? [sql`conversation_id in (${conversations})`] : []),
  ];
  return terms.length === 0 ? null : sql`where ${sql.join(terms, sql` or `)}`;
}

/**
 * Counts the rows of every table the store has (read from the database
 * itself, so a table added later is counted too), and of each the rows that
 * belong to the given runs or conversations (see `belonging`).
 */
async function countEveryTable(
  store: Store,
  owners: { runIds: string[]; conversationIds: string[] },
): Promise<Map<string, TableCount>> {
  const tables = (await store.db.introspection.getTables()).filter(
    (table) => !table.name.startsWith('airlock_migrations'),
  );
  const counts = new Map<string, TableCount>();
  for (const table of tables) {
    const count = async (where: RawBuilder<unknown> | null) => {
      const { rows } = await sql<{ n: number | string }>`select count(*) as n from ${sql.table(
        table.name,
      )} ${where ?? sql``}`.execute(store.db);
      return Number(rows[0]!.n);
    };
    const where = belonging(table, owners);
    counts.set(table.name, {
      total: await count(null),
      ofRuns: where ? await count(where) : 0,
    });
  }
  return counts;
}

/** A workspace's export files of one kind, as parsed JSON lines. */
function exported(dir: string, workspaceId: string, kind: string): Record<string, unknown>[] {
  const folder = join(dir, workspaceId);
  return readdirSync(folder)
    .filter((name) => name.startsWith(`${kind}-`) && name.endsWith('.jsonl'))
    .flatMap((name) =>
      readFileSync(join(folder, name), 'utf8')
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => JSON.parse(line) as Record<string, unknown>),
    );
}

for (const backend of all) {
  describe.skipIf(backend.skip !== null)(
    `retention leaves no orphan rows (${backend.name})`,
    () => {
      let d: NotifyDeployment | undefined;
      const closers: (() => Promise<void>)[] = [];
      afterEach(async () => {
        await d?.close();
        d = undefined;
        for (const close of closers.splice(0)) await close();
      });

      it('prunes a run with its approvals, notification deliveries and claim locks, and a conversation with its last run, exporting them first', async () => {
        const receiver = await startReceiver();
        closers.push(receiver.close);
        let offset = 0;
        const exportDir = mkdtempSync(join(root, 'exports-'));
        d = await deployWithChannels(
          backend,
          ({ workspaceId }) => ({
            channels: [
              {
                name: 'ops',
                kind: 'webhook',
                workspace: workspaceId,
                url: `${receiver.url}/hook`,
                secrets: [`whsec_${Buffer.alloc(32, 3).toString('base64')}`],
              },
            ],
          }),
          {
            port: await freePort(),
            notificationTuning: FAST,
            clock: () => Date.now() + offset,
            retention: { exportDir, batchRows: 2, batchRuns: 1, intervalMs: 10 * 365 * DAY },
          },
        );
        const deployment = d;
        const executor = client(deployment.url, deployment.tokens.executor);
        const delivered = (runId: string) =>
          waitFor(
            async () => (await deployment.events(runId, 'notification.delivered')).length > 0,
            {
              what: `the notice of ${runId}`,
            },
          );

        // An old run whose sequential call parks (a notice), is approved (an approval row),
        // then claimed (a claim lock) and committed, and ends.
        expect(
          (
            await deployment.agent.put('/agent_api/v1/profile/configuration', {
              approval_mode: 'ask',
              tool_manifest: MANIFEST,
              project_root: '/repo',
            })
          ).status,
        ).toBe(200);
        const conversation = (await deployment.agent.post('/agent_api/v1/conversations')).body.id;
        const turn = await deployment.agent.post(
          `/agent_api/v1/conversations/${conversation}/inputs`,
          {
            input: 'migrate',
            provider: {
              kind: 'scripted',
              rounds: [{ tool_calls: [{ name: 'migrate', input: {} }] }, { final: 'migrated' }],
            },
          },
        );
        expect(turn.status).toBe(201);
        const approved = turn.body.id as string;
        const parked = await waitFor(async () => {
          const tasks = (await deployment.member.get(`${deployment.ws}/runs/${approved}/tasks`))
            .body.tasks as { key: string; state: string }[];
          return tasks.find((task) => task.state === 'needs_approval');
        });
        await delivered(approved);
        const approve = await deployment.member.post(
          `${deployment.ws}/runs/${approved}/tasks/${parked.key}/approve`,
        );
        expect(approve.status).toBe(200);
        const claim = await executor.post(
          `/executor_api/v1/runs/${approved}/tasks/${parked.key}/claim`,
        );
        expect(claim.status).toBe(200);
        const commit = await executor.post(
          `/executor_api/v1/runs/${approved}/tasks/${parked.key}/commit`,
          { claim_id: claim.body.claim_id, outcome: 'succeeded', result: 'ok' },
        );
        expect(commit.status).toBe(200);
        // An old standalone run whose park is denied.
        const denied = await deployment.park();
        await delivered(denied);
        expect(
          (await deployment.member.post(`${deployment.ws}/runs/${denied}/tasks/t1/deny`)).status,
        ).toBe(200);
        // The migrate turn's conversation holds a conversation overlay, which goes with it.
        const overlayPath = `${deployment.ws}/overlays/conversation/${conversation}`;
        const emptyOverlay = await deployment.member.get(overlayPath);
        const overlay = await deployment.member.put(overlayPath, {
          expected_digest: emptyOverlay.body.digest,
          groups: [
            {
              ruleSetId: 'read_only',
              rules: [{ verdict: 'allow', risks: ['write'], targets: ['src/**'] }],
            },
          ],
        });
        expect(overlay.status).toBe(200);
        // A coding agent's session whose one turn ended: its conversation and session row go too.
        const hook = (body: Record<string, unknown>) =>
          deployment.agent.post('/agent_api/v1/hooks/events', {
            agent: 'claude-code',
            session_id: 'old-session',
            ...body,
          });
        const hooked = await hook({ event: 'turn_start', text: 'tidy up' });
        expect(hooked.status).toBe(200);
        expect((await hook({ event: 'stop', text: 'done' })).status).toBe(200);
        // A conversation with an old turn and, later, a new one: it stays, with its new run.
        const kept = (await deployment.agent.post('/agent_api/v1/conversations')).body.id as string;
        const say = async () => {
          const said = await deployment.agent.post(`/agent_api/v1/conversations/${kept}/inputs`, {
            input: 'hello',
            provider: { kind: 'scripted', rounds: [{ final: 'hi' }] },
          });
          expect(said.status).toBe(201);
          return said.body.id as string;
        };
        const keptOld = await say();
        const old = [approved, denied, hooked.body.run_id as string, keptOld];
        const oldConversations = [conversation as string, hooked.body.conversation_id as string];
        for (const runId of old) {
          await waitFor(
            async () =>
              (await deployment.member.get(`${deployment.ws}/runs/${runId}`)).body.state !==
              'running',
            { what: `run ${runId} to end` },
          );
        }

        offset += 100 * DAY;
        // A live run parked now: its rows stay.
        const live = await deployment.park();
        const keptNew = await say();
        await delivered(live);
        expect(
          (
            await deployment.member.put(`${deployment.ws}/retention`, {
              events_days: null,
              runs_days: 90,
              audit_days: null,
            })
          ).status,
        ).toBe(200);

        const store = deployment.airlock.store;
        const owners = { runIds: old, conversationIds: oldConversations };
        const before = await countEveryTable(store, owners);
        const approvalsBefore = await store.db
          .selectFrom('task_approvals')
          .selectAll()
          .where('run_id', '=', approved)
          .execute();
        const deliveriesBefore = await store.db
          .selectFrom('notification_deliveries')
          .select(['id', 'run_id', 'state'])
          .where('run_id', 'in', old)
          .execute();
        const auditOfOld = await store.db
          .selectFrom('run_events')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('run_id', 'in', old)
          .where('type', 'in', [...AUDIT_EVENT_TYPES])
          .executeTakeFirstOrThrow();
        // The old runs hold rows in every table keyed by a run.
        for (const table of [
          'runs',
          'tasks',
          'run_events',
          'task_approvals',
          'notification_deliveries',
          'claim_locks',
          'conversations',
          'overlay_documents',
          'hook_sessions',
        ]) {
          expect(before.get(table)?.ofRuns, table).toBeGreaterThan(0);
        }

        const report = await deployment.airlock.kernel.pruner!.pruneNow();
        expect(report.runs).toBe(old.length);

        const after = await countEveryTable(store, owners);
        expect([...after.keys()].sort()).toEqual([...before.keys()].sort());
        for (const [table, counted] of before) {
          const now = after.get(table)!;
          // Nothing of the old runs is left, but their audit events (kept for the audit window).
          const left = table === 'run_events' ? Number(auditOfOld.n) : 0;
          expect(now.ofRuns, `${table} rows of the pruned runs`).toBe(left);
          // Every other row of every table is still there, and the pruner's record of its export.
          const added = table === 'retention_exports' ? 1 : 0;
          expect(now.total - now.ofRuns, `${table} rows of everything else`).toBe(
            counted.total - counted.ofRuns + added,
          );
        }
        expect(after.get('notification_deliveries')!.total).toBeGreaterThan(0);

        // What went was exported first: approvals and notices with their run.
        const lines = exported(exportDir, deployment.workspaceId, 'runs') as {
          run: { id: string };
          approvals: { task_key: string; principal: string; row_version: string }[];
          notifications: { id: string; state: string }[];
        }[];
        expect(lines.map((line) => line.run.id).sort()).toEqual([...old].sort());
        const approvedLine = lines.find((line) => line.run.id === approved)!;
        expect(approvedLine.approvals).toEqual(
          approvalsBefore.map((row) => ({
            task_key: row.task_key,
            row_version: row.row_version,
            principal: row.principal,
            created_at: Number(row.created_at),
          })),
        );
        expect(approvedLine.approvals[0]!.principal).toMatch(/^member:/);
        expect(
          lines
            .flatMap((line) => line.notifications.map((n) => ({ id: n.id, state: n.state })))
            .sort((a, b) => a.id.localeCompare(b.id)),
        ).toEqual(
          deliveriesBefore
            .map((row) => ({ id: row.id, state: row.state }))
            .sort((a, b) => a.id.localeCompare(b.id)),
        );
        // The conversations whose last run went were exported first, with what hung on them alone.
        const conversations = exported(exportDir, deployment.workspaceId, 'conversations') as {
          conversation: { id: string };
          hook_sessions: { session_id: string }[];
          overlay: { document: unknown } | null;
        }[];
        expect(conversations.map((line) => line.conversation.id).sort()).toEqual(
          [...oldConversations].sort(),
        );
        const withOverlay = conversations.find((line) => line.conversation.id === conversation)!;
        expect(withOverlay.overlay?.document).toEqual(overlay.body.groups);
        const withSession = conversations.find((line) => line.conversation.id !== conversation)!;
        expect(withSession.hook_sessions.map((row) => row.session_id)).toEqual(['old-session']);
        // The conversation with a new run stays, and so does that run.
        const keptRuns = await store.db
          .selectFrom('runs')
          .select('id')
          .where('conversation_id', '=', kept)
          .execute();
        expect(keptRuns.map((row) => row.id)).toEqual([keptNew]);
        // The live run's notice is untouched and still listed.
        const listed = await deployment.member.get(`${deployment.ws}/notifications?run_id=${live}`);
        expect(listed.body.deliveries).toHaveLength(1);
      });
    },
  );
}
