import { createRequire } from 'node:module';
import type SqliteDatabase from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Deployment, deploy, waitFor } from '../../testing/harness.js';
import { bashPostTool, bashPreTool, postHookEvent } from '../../testing/hooked-events.js';
import { backends } from '../../testing/stores.js';

/*
 * better-sqlite3's SQLite is built with STAT4, under which a statement is
 * prepared again on every run when a bound value may change its plan: a
 * `LIMIT ?`, and a parameter compared with a column that a partial index's
 * condition compares with a literal (`kind = ?` against `where "kind" =
 * 'hook'`). Either doubles or triples what the statement costs
 * (docs/performance-sql.md). This test records every statement a kernel runs
 * while it serves hooked calls, parks and approvals, and refuses those
 * shapes, with the partial indexes read from the store's own schema.
 */

const sqlite = (await backends()).find((backend) => backend.name === 'sqlite')!;
const Database = createRequire(import.meta.url)('better-sqlite3') as typeof SqliteDatabase;

/** Every SQL text run through better-sqlite3 in this process while `recording` is on. */
const ran = new Set<string>();
let recording = false;
const statementPrototype = Object.getPrototypeOf(new Database(':memory:').prepare('select 1'));
const originals = new Map<string, (...args: unknown[]) => unknown>();
for (const method of ['all', 'get', 'run', 'iterate'] as const) {
  const original = statementPrototype[method];
  originals.set(method, original);
  statementPrototype[method] = function (this: SqliteDatabase.Statement, ...args: unknown[]) {
    if (recording) ran.add(this.source);
    return original.apply(this, args);
  };
}

/** Per table, the columns its partial indexes' conditions compare with a literal. */
function literalConditionColumns(database: SqliteDatabase.Database): Map<string, Set<string>> {
  const indexes = database
    .prepare(
      "select tbl_name, sql from sqlite_master where type = 'index' and sql like '% where %'",
    )
    .all() as { tbl_name: string; sql: string }[];
  const columns = new Map<string, Set<string>>();
  for (const { tbl_name: table, sql } of indexes) {
    const condition = sql.slice(sql.toLowerCase().lastIndexOf(' where ') + 7);
    for (const [, column] of condition.matchAll(/"(\w+)" (?:=|in) [('"]/g)) {
      columns.set(table, (columns.get(table) ?? new Set()).add(column!));
    }
  }
  return columns;
}

describe('statements SQLite must not prepare again on every run', () => {
  let d: Deployment;
  beforeAll(async () => {
    d = await deploy(sqlite);
    await d.agent.put('/agent_api/v1/profile/configuration', {
      approval_mode: 'rules',
      approval_rules: [
        { tool: 'Bash', path: 'command', match: 'ls*', verdict: 'allow' },
        { tool: 'Bash', path: 'command', match: 'rm *', verdict: 'ask' },
      ],
    });
    recording = true;
    // Granted calls and their reports, a park a member approves, and its report.
    for (let i = 0; i < 3; i += 1) {
      expect((await postHookEvent(d, bashPreTool(`ls ${i}`, `c${i}`))).status).toBe(200);
      await postHookEvent(d, bashPostTool(`ls ${i}`, `c${i}`, 'succeeded', 'ok'));
    }
    const parked = await postHookEvent(d, bashPreTool('rm x', 'p1'));
    expect(parked.body).toMatchObject({ verdict: 'wait' });
    const { run_id: run, task_key: task } = parked.body as { run_id: string; task_key: string };
    const approved = await d.member.post(`${d.ws}/runs/${run}/tasks/${task}/approve`, {});
    expect(approved.status).toBe(200);
    expect((await postHookEvent(d, bashPreTool('rm x', 'p1'))).body).toMatchObject({
      verdict: 'allow',
    });
    await postHookEvent(d, bashPostTool('rm x', 'p1', 'succeeded', 'removed'));
    await postHookEvent(d, { event: 'stop', text: 'done' });
    // A kernel run: a call parked for a person, approved, claimed and committed by an executor.
    const created = await d.agent.post(`${d.ws}/runs`, {
      approval_mode: 'ask',
      input: 'list',
      provider: {
        kind: 'scripted',
        rounds: [{ tool_calls: [{ name: 'bash', input: { command: 'ls' } }] }, { final: 'listed' }],
      },
    });
    expect(created.status).toBe(201);
    const kernelRun = created.body.id as string;
    await waitFor(
      async () =>
        (await d.member.get(`${d.ws}/runs/${kernelRun}/tasks/t1`)).body.state === 'needs_approval',
      { what: 'the kernel run to park its call' },
    );
    await d.member.get(`${d.ws}/decisions`);
    expect((await d.member.post(`${d.ws}/runs/${kernelRun}/tasks/t1/approve`, {})).status).toBe(
      200,
    );
    await d.executor.get('/executor_api/v1/inbox');
    const claim = await d.executor.post(`/executor_api/v1/runs/${kernelRun}/tasks/t1/claim`);
    expect(claim.status).toBe(200);
    await d.executor.post(`/executor_api/v1/runs/${kernelRun}/tasks/t1/commit`, {
      claim_id: claim.body.claim_id,
      outcome: 'succeeded',
      result: 'a b c',
    });
    await waitFor(
      async () => (await d.member.get(`${d.ws}/runs/${kernelRun}`)).body.state === 'completed',
      { what: 'the kernel run to end' },
    );
    await d.member.get(`${d.ws}/runs?limit=10`);
    await d.member.get(`${d.ws}/runs/${kernelRun}/events?limit=100`);
    // The audit answers JSON lines, which the test client does not parse.
    const audit = await fetch(`${d.url}${d.ws}/runs/${kernelRun}/audit`, {
      headers: { authorization: `Bearer ${d.tokens.member}` },
    });
    expect(audit.status).toBe(200);
    await audit.text();
    recording = false;
  });
  afterAll(async () => {
    await d?.close();
    // The prototype is the process's: later test files in this worker get it back as it was.
    for (const [method, original] of originals) statementPrototype[method] = original;
  });

  it('bind no LIMIT, and no value against a column a partial index compares with a literal', () => {
    expect(ran.size).toBeGreaterThan(40);
    const file = d.airlock.store.description.replace(/^sqlite /, '');
    const schema = new Database(file, { readonly: true });
    const guarded = literalConditionColumns(schema);
    schema.close();
    expect(guarded.get('tasks')).toContain('kind');
    const offending: string[] = [];
    for (const text of ran) {
      if (/\blimit \?/i.test(text)) offending.push(`LIMIT ?: ${text}`);
      const table = /\b(?:from|update) "(\w+)"/i.exec(text)?.[1];
      // Conditions only: an UPDATE's SET comes before its first WHERE.
      const where = text.toLowerCase().indexOf(' where ');
      if (!table || where === -1) continue;
      const conditions = text.slice(where + 1);
      for (const column of guarded.get(table) ?? []) {
        const bound = new RegExp(`(?:"${table}"\\.)?"${column}" (?:=|!=|<>) \\?`);
        if (bound.test(conditions)) offending.push(`${column} = ?: ${text}`);
      }
    }
    expect(offending).toEqual([]);
  });
});
