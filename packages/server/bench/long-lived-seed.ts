import { closeSync, fsyncSync, openSync } from 'node:fs';
import { join } from 'node:path';
import SqliteDatabase from 'better-sqlite3';

const DAY = 24 * 60 * 60 * 1000;

/** What a long-lived store is seeded with. */
export interface SeedOptions {
  dataDir: string;
  workspaceId: string;
  events: number;
  runs: number;
  /** Seeded runs ended between `oldestDays` and `newestDays` days ago. */
  oldestDays: number;
  newestDays: number;
  /** Puts every this many consecutive runs in one conversation; absent: runs of no conversation. */
  runsPerConversation?: number;
  /** Task rows per run (`t1`, `t2`, ...; default 1), each with a tool input of about 2 KB past the first. */
  tasksPerRun?: number;
}

/** The event types a seeded run's log cycles through: decisions and lifecycle noise. */
const TYPES = [
  'run.created',
  'run.round_started',
  'run.model_read',
  'task.granted',
  'task.claimed',
  'task.succeeded',
  'run.round_started',
  'run.model_read',
  'task.granted',
  'run.completed',
] as const;

/**
 * Fills a stopped kernel's SQLite store with ended runs (one task each, or `tasksPerRun`) and
 * their events by bulk insert (prepared statements, 50,000 rows a
 * transaction), dated between two ages, and moves the workspace's event
 * counter past them. Bench-only: it writes around the kernel on purpose.
 */
export function seedLongLived(options: SeedOptions): { seconds: number } {
  const started = Date.now();
  const database = new SqliteDatabase(join(options.dataDir, 'airlock.sqlite'));
  database.pragma('synchronous = OFF');
  const app = database.prepare('select id from agent_applications limit 1').get() as { id: string };
  const head = (
    database.prepare('select event_seq from workspaces where id = ?').get(options.workspaceId) as {
      event_seq: number;
    }
  ).event_seq;
  const insertRun = database.prepare(
    `insert into runs (id, workspace_id, agent_application_id, conversation_id, state, phase, approval_mode,
       approval_rules, tool_aliases, provider, input, on_failure, round, task_counter, created_by, created_at,
       updated_at, ended_at)
     values (?, ?, ?, ?, 'completed', 'done', 'bypass', '[]', '{}', '{"kind":"scripted"}', '"bench"', 'continue',
       2, 1, 'bench', ?, ?, ?)`,
  );
  const insertConversation = database.prepare(
    'insert into conversations (id, workspace_id, agent_application_id, created_at) values (?, ?, ?, ?)',
  );
  const perConversation = options.runsPerConversation;
  const insertTask = database.prepare(
    `insert into tasks (workspace_id, run_id, key, round, origin, kind, state, tool_name, tool_input,
       on_failure, attempts, created_at, updated_at, decision, result)
     values (?, ?, ?, 1, 'model', 'tool', 'succeeded', 'bash', ?, 'continue', 1, ?, ?,
       '{"outcome":"granted","granted_by":"mode","layer":"approval_rules","matched":[]}', '"ok"')`,
  );
  const tasksPerRun = Math.max(1, options.tasksPerRun ?? 1);
  const longerInput = JSON.stringify({ command: `echo ${'x'.repeat(2000)}` });
  const insertEvent = database.prepare(
    `insert into run_events (workspace_id, seq, run_id, task_key, type, data, principal, created_at)
     values (?, ?, ?, ?, ?, '{}', null, ?)`,
  );
  const span = (options.oldestDays - options.newestDays) * DAY;
  const now = Date.now();
  const perRun = Math.max(1, Math.floor(options.events / options.runs));
  let seq = head;
  const chunk = database.transaction((from: number, to: number) => {
    for (let n = from; n < to; n++) {
      const at = now - options.oldestDays * DAY + Math.floor((span * n) / options.runs);
      const runId = `run_seed_${n.toString(36)}`;
      let conversationId: string | null = null;
      if (perConversation) {
        conversationId = `conv_seed_${Math.floor(n / perConversation).toString(36)}`;
        if (n % perConversation === 0) {
          insertConversation.run(conversationId, options.workspaceId, app.id, at);
        }
      }
      insertRun.run(runId, options.workspaceId, app.id, conversationId, at, at, at);
      for (let t = 1; t <= tasksPerRun; t++) {
        const input = t === 1 ? '{"command":"ls"}' : longerInput;
        insertTask.run(options.workspaceId, runId, `t${t}`, input, at, at);
      }
      for (let e = 0; e < perRun; e++) {
        seq += 1;
        const type = TYPES[e % TYPES.length]!;
        insertEvent.run(
          options.workspaceId,
          seq,
          runId,
          type.startsWith('task.') ? 't1' : null,
          type,
          at,
        );
      }
    }
  });
  const runsPerChunk = Math.max(1, Math.floor(50_000 / (perRun + tasksPerRun + 1)));
  for (let from = 0; from < options.runs; from += runsPerChunk) {
    chunk(from, Math.min(options.runs, from + runsPerChunk));
  }
  database
    .prepare('update workspaces set event_seq = ? where id = ?')
    .run(seq, options.workspaceId);
  // The seed is written without fsync; put it on disk now, as a store that grew over months is,
  // so the kernel's first checkpoint does not flush gigabytes while the case measures.
  database.pragma('synchronous = FULL');
  database.pragma('wal_checkpoint(TRUNCATE)');
  database.close();
  const file = openSync(join(options.dataDir, 'airlock.sqlite'), 'r+');
  try {
    fsyncSync(file);
  } finally {
    closeSync(file);
  }
  return { seconds: (Date.now() - started) / 1000 };
}

/**
 * Whether a store still holds a seeded run (read from its own connection, by
 * one probe of the primary key): cheap enough to poll each second while the
 * kernel prunes, where counting 10 million events would take the CPU the
 * kernel prunes with.
 */
export function seededRunsLeft(dataDir: string): boolean {
  const database = new SqliteDatabase(join(dataDir, 'airlock.sqlite'), { readonly: true });
  try {
    return (
      database
        .prepare("select 1 from runs where id >= 'run_seed_' and id < 'run_seed`' limit 1")
        .get() !== undefined
    );
  } finally {
    database.close();
  }
}

/** Rows left in a store's runs, conversations and events tables, and its free pages (read from its own connection). */
export function storeCounts(dataDir: string): {
  seededRuns: number;
  seededConversations: number;
  events: number;
  freePages: number;
  pageSize: number;
} {
  const database = new SqliteDatabase(join(dataDir, 'airlock.sqlite'), { readonly: true });
  try {
    const count = (sql: string) => (database.prepare(sql).get() as { n: number }).n;
    return {
      seededRuns: count(
        "select count(*) as n from runs where id >= 'run_seed_' and id < 'run_seed`'",
      ),
      seededConversations: count(
        "select count(*) as n from conversations where id like 'conv_seed_%'",
      ),
      events: count('select count(*) as n from run_events'),
      freePages: database.pragma('freelist_count', { simple: true }) as number,
      pageSize: database.pragma('page_size', { simple: true }) as number,
    };
  } finally {
    database.close();
  }
}

/** Rewrites a stopped kernel's store without its free pages (what an operator may do after a first prune). */
export function vacuumStore(dataDir: string): void {
  const database = new SqliteDatabase(join(dataDir, 'airlock.sqlite'));
  database.exec('vacuum');
  database.pragma('wal_checkpoint(TRUNCATE)');
  database.close();
}
