import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI_NODE_ARGS } from '../testing/cli-entry.js';
import { type Client, client, waitFor } from '../testing/harness.js';

interface Served {
  child: ChildProcess;
  url: string;
  stderr: string;
}

/** Spawns `airlock serve` (the build when current, else the sources) and waits until it listens. */
async function serve(dataDir: string, extra: string[] = []): Promise<Served> {
  const child = spawn(
    process.execPath,
    // The parks must outlive a kill -9 and a restart even on a loaded machine (a restart took
    // over 4 s at load 15), so the check after the restart still finds them waiting.
    [
      ...CLI_NODE_ARGS,
      'serve',
      '--port',
      '0',
      '--data-dir',
      dataDir,
      '--park-ttl',
      '10s',
      '--no-demo',
      ...extra,
    ],
    { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, DATABASE_URL: '' } },
  );
  let stdout = '';
  const served: Served = { child, url: '', stderr: '' };
  child.stdout!.on('data', (chunk) => {
    stdout += chunk;
  });
  child.stderr!.on('data', (chunk) => {
    served.stderr += chunk;
  });
  served.url = await waitFor(
    async () => /"url":"(http:\/\/127\.0\.0\.1:\d+)"/.exec(stdout)?.[1] ?? null,
    // From the sources (no current build) a start transpiles the kernel first: seconds at load.
    { what: 'the kernel to listen', timeoutMs: 60_000 },
  );
  return served;
}

describe('crash and restart of `airlock serve` (kill -9)', () => {
  let dataDir: string;
  const children: ChildProcess[] = [];
  beforeAll(() => {
    // The CLI as every process test runs it (testing/cli-entry.ts): the build when it is current,
    // as in CI, which builds first; else the sources, never a stale build. No `tsc -b` here.
    dataDir = mkdtempSync(join(tmpdir(), 'airlock-crash-'));
  });
  afterAll(() => {
    for (const child of children) child.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('loses no parked row or deadline, and the clock still fires after the restart', async () => {
    const first = await serve(dataDir);
    children.push(first.child);
    await waitFor(async () => first.stderr.includes('member token'), { what: 'the tokens' });
    const token = (kind: string) => new RegExp(`${kind} token\\s+(\\S+)`).exec(first.stderr)![1]!;
    const workspace = /workspace\s+(\S+)/.exec(first.stderr)![1]!;
    const ws = `/api/v1/workspaces/${workspace}`;
    const agent = client(first.url, token('agent'));
    const runs: string[] = [];
    for (let i = 0; i < 3; i += 1) {
      const created = await agent.post(`${ws}/runs`, {
        approval_mode: 'ask',
        input: `run ${i}`,
        provider: {
          kind: 'scripted',
          rounds: [
            { tool_calls: [{ name: 'deploy', input: { n: i } }] },
            {
              final: 'expired as expected',
              expect: 'Nobody approved this tool call before it expired.',
            },
          ],
        },
      });
      expect(created.body.attention[0].blocked_task_keys).toEqual(['t1']);
      runs.push(created.body.id);
    }
    first.child.kill('SIGKILL');
    await new Promise((r) => first.child.once('exit', r));

    const second = await serve(dataDir);
    children.push(second.child);
    const member: Client = client(second.url, token('member'));
    for (const runId of runs) {
      const task = await member.get(`${ws}/runs/${runId}/tasks/t1`);
      expect(task.body).toMatchObject({
        state: 'needs_approval',
        tool_input: { n: runs.indexOf(runId) },
      });
      expect(task.body.deadline_at).toBeGreaterThan(Date.now() - 1000);
    }
    const before = (await member.get(`${ws}/runs/${runs[0]}/events`)).body.events.length;
    expect(before).toBeGreaterThan(3);
    const ended = await waitFor(
      async () => {
        const states = await Promise.all(
          runs.map(async (id) => (await member.get(`${ws}/runs/${id}`)).body),
        );
        return states.every((r) => r.state !== 'running') ? states : null;
      },
      { timeoutMs: 25_000, what: 'the clocks to fire after the restart' },
    );
    for (const run of ended)
      expect(run).toMatchObject({ state: 'completed', final_answer: 'expired as expected' });
    second.child.kill('SIGTERM');
    const code = await new Promise((r) => second.child.once('exit', r));
    expect(code).toBe(0);
  }, 120_000);
});
