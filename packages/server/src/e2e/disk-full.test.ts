import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PARKING_RUN } from '../testing/changing-workload.js';
import { client, waitFor } from '../testing/harness.js';
import { type KernelProcess, startKernelProcess } from '../testing/kernel-process.js';

// The disk fills for the kernel alone: its file-size limit (RLIMIT_FSIZE) drops to 0, so every
// write into a file fails as it would on a full disk, and rises again when space "returns".
const probe = spawnSync('prlimit', ['--version'], { encoding: 'utf8' });
const skip = probe.error ? `prlimit (util-linux) is not installed: ${probe.error.message}` : null;
if (skip) console.warn(`[airlock tests] skipping the disk-full test: ${skip}`);

function setFileSizeLimit(pid: number, soft: string): void {
  execFileSync('prlimit', ['--pid', String(pid), `--fsize=${soft}:unlimited`]);
}

/** A raw answer with its headers, for `retry-after`. */
async function post(kernel: KernelProcess, token: string, path: string, body: unknown = {}) {
  const response = await fetch(`${kernel.url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return {
    status: response.status,
    retryAfter: response.headers.get('retry-after'),
    body: (await response.json()) as { error?: { code: string; detail: string } },
  };
}

describe.skipIf(skip !== null)('a kernel whose disk is full', () => {
  const dir = mkdtempSync(join(tmpdir(), 'airlock-disk-full-'));
  let kernel: KernelProcess;
  let ws: string;
  let parked: { runId: string; key: string };

  beforeAll(async () => {
    kernel = await startKernelProcess({ dataDir: join(dir, 'data') });
    ws = `/api/v1/workspaces/${kernel.workspaceId}`;
    const run = await client(kernel.url, kernel.tokens.agent).post(`${ws}/runs`, PARKING_RUN);
    expect(run.status).toBe(201);
    parked = { runId: run.body.id, key: run.body.attention[0].blocked_task_keys[0] };
  }, 90_000);

  afterAll(async () => {
    await kernel?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('refuses writes with 503 store_unavailable, serves reads, and recovers by itself when space returns', async () => {
    const member = client(kernel.url, kernel.tokens.member);
    const runsBefore = (await member.get(`${ws}/runs`)).body;
    setFileSizeLimit(kernel.pid, '0');
    try {
      // Writes: refused, retryable, and nothing is acknowledged.
      const created = await post(kernel, kernel.tokens.agent, `${ws}/runs`, PARKING_RUN);
      expect(created).toMatchObject({
        status: 503,
        retryAfter: '5',
        body: { error: { code: 'store_unavailable' } },
      });
      const approve = `${ws}/runs/${parked.runId}/tasks/${parked.key}/approve`;
      const approved = await post(kernel, kernel.tokens.member, approve);
      expect(approved.status).toBe(503);
      expect(approved.body.error?.code).toBe('store_unavailable');
      // Reads, the inbox page and its data, and the probes keep working.
      const task = await member.get(`${ws}/runs/${parked.runId}/tasks/${parked.key}`);
      expect(task.body.state).toBe('needs_approval');
      const decisions = await member.get(`${ws}/decisions`);
      expect(decisions.status).toBe(200);
      expect(JSON.stringify(decisions.body)).toContain(parked.runId);
      expect((await member.get(`${ws}/runs`)).body).toEqual(runsBefore);
      const page = await fetch(`${kernel.url}/`);
      expect(page.status).toBe(200);
      expect((await fetch(`${kernel.url}/healthz`)).status).toBe(200);
      expect((await fetch(`${kernel.url}/readyz`)).status).toBe(200);
    } finally {
      setFileSizeLimit(kernel.pid, 'unlimited');
    }
    // Space is back: the same process takes writes again, and the parked call runs once.
    const approve = `${ws}/runs/${parked.runId}/tasks/${parked.key}/approve`;
    const approved = await waitFor(
      async () => {
        const answer = await post(kernel, kernel.tokens.member, approve);
        return answer.status === 503 ? null : answer;
      },
      { what: 'the kernel to take writes again' },
    );
    expect(approved.status).toBe(200);
    const executor = client(kernel.url, kernel.tokens.executor);
    const task = `/executor_api/v1/runs/${parked.runId}/tasks/${parked.key}`;
    const claim = await waitFor(async () => {
      const answer = await executor.post(`${task}/claim`);
      return answer.status === 200 ? answer : null;
    });
    const committed = await executor.post(`${task}/commit`, {
      claim_id: claim.body.claim_id,
      outcome: 'succeeded',
      result: 'deployed',
    });
    expect(committed.status).toBe(200);
    const ended = await waitFor(async () => {
      const run = await member.get(`${ws}/runs/${parked.runId}`);
      return run.body.state !== 'running' ? run.body : null;
    });
    expect(ended.state).toBe('completed');
    const fresh = await client(kernel.url, kernel.tokens.agent).post(`${ws}/runs`, PARKING_RUN);
    expect(fresh.status).toBe(201);
  }, 60_000);
});
