import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, onTestFinished } from 'vitest';
import { CLI_NODE_ARGS } from '../testing/cli-entry.js';
import { type Client, client, waitFor } from '../testing/harness.js';
import { type KernelProcess, runCli, startKernelProcess } from '../testing/kernel-process.js';

/**
 * Backs up a real kernel process's SQLite store while clients park and
 * approve calls over HTTP, restores it into a fresh directory, serves it, and
 * finds every answer that was acknowledged before the backup began.
 */

const root = mkdtempSync(join(tmpdir(), 'airlock-backup-'));
const kernels: KernelProcess[] = [];
afterAll(async () => {
  for (const kernel of kernels) await kernel.stop();
  rmSync(root, { recursive: true, force: true });
});

interface Park {
  runId: string;
  deadline: number;
  ackedAt: number;
}

interface Approval {
  runId: string;
  ackedAt: number;
}

const parkOne = (n: number) => ({
  approval_mode: 'ask',
  input: `deploy ${n}`,
  provider: {
    kind: 'scripted',
    rounds: [{ tool_calls: [{ name: 'deploy', input: { n } }] }, { final: 'done' }],
  },
});

/** Parks calls and approves every other one until told to stop; records each acknowledgement. */
async function workload(options: {
  agent: Client;
  member: Client;
  ws: string;
  worker: number;
  stop: () => boolean;
  parks: Park[];
  approvals: Approval[];
}): Promise<void> {
  for (let n = 0; !options.stop(); n += 1) {
    const created = await options.agent.post(
      `${options.ws}/runs`,
      parkOne(options.worker * 1e6 + n),
    );
    if (created.status !== 201) throw new Error(`create answered ${created.status}`);
    const runId = created.body.id as string;
    const task = await waitFor(async () => {
      const got = await options.member.get(`${options.ws}/runs/${runId}/tasks/t1`);
      return got.status === 200 && got.body.state === 'needs_approval' ? got.body : null;
    });
    options.parks.push({ runId, deadline: task.deadline_at, ackedAt: Date.now() });
    if (n % 2 === 0) {
      const approved = await options.member.post(`${options.ws}/runs/${runId}/tasks/t1/approve`);
      if (approved.status !== 200) throw new Error(`approve answered ${approved.status}`);
      options.approvals.push({ runId, ackedAt: Date.now() });
    }
  }
}

/** Runs `airlock backup` as its own process; resolves with its exit code and output. */
function backupProcess(dataDir: string, file: string) {
  return new Promise<{ code: number | null; stderr: string }>((settle) => {
    const child = spawn(
      process.execPath,
      [...CLI_NODE_ARGS, 'backup', file, '--data-dir', dataDir],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stderr = '';
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    child.once('exit', (code) => settle({ code, stderr }));
  });
}

/** The workspace's audit trail (JSON lines, as `airlock audit export` reads it). */
async function auditOf(url: string, token: string, ws: string) {
  const answer = await fetch(`${url}${ws}/audit?after=0&limit=10000`, {
    headers: { authorization: `Bearer ${token}` },
  });
  expect(answer.status).toBe(200);
  const lines = (await answer.text()).split('\n').filter((line) => line !== '');
  return lines.map((line) => JSON.parse(line) as { seq: number; event: string });
}

describe('airlock backup under load, then airlock restore', () => {
  it('keeps every park, clock, approval, overlay, contract and audit record acknowledged before it began', async () => {
    const live = join(root, 'live');
    const kernel = await startKernelProcess({ dataDir: live, args: ['--park-ttl', '2h'] });
    kernels.push(kernel);
    const banner = { workspaceId: kernel.workspaceId, ...kernel.tokens };
    const ws = `/api/v1/workspaces/${banner.workspaceId}`;
    const agent = client(kernel.url, banner.agent);
    const member = client(kernel.url, banner.member);

    // Acknowledged policy: a contract on the profile and a trusted project overlay.
    const profile = await agent.put('/agent_api/v1/profile/configuration', {
      approval_mode: 'ask',
      action_contract: {
        contract_version: 3,
        authorization: { forbidden: ['action:destructive'] },
      },
    });
    expect(profile.status).toBe(200);
    const first = await agent.post(`${ws}/runs`, parkOne(-1));
    const appId = first.body.agent_application_id as string;
    const overlayPath = `${ws}/overlays/project/${appId}`;
    const empty = await member.get(overlayPath);
    const overlay = await member.put(overlayPath, {
      expected_digest: empty.body.digest,
      groups: [{ ruleSetId: 'read_only', rules: [{ verdict: 'allow', tools: ['write_file'] }] }],
    });
    expect(overlay.status).toBe(200);
    const trusted = await member.post(`${overlayPath}/trust`, { digest: overlay.body.digest });
    expect(trusted.status).toBe(200);

    const parks: Park[] = [];
    const approvals: Approval[] = [];
    let stopped = false;
    const workers = [0, 1, 2, 3].map((worker) =>
      workload({ agent, member, ws, worker, stop: () => stopped, parks, approvals }).catch(
        (error: unknown) => {
          // After a failed assertion the kernel is stopped under the workers: only a live failure counts.
          if (!stopped) throw error;
        },
      ),
    );
    onTestFinished(() => {
      stopped = true;
    });
    await waitFor(async () => parks.length >= 40, {
      what: '40 parks before the backup',
      timeoutMs: 60_000,
    });

    const file = join(root, 'backup.sqlite');
    const began = Date.now();
    const audited = await auditOf(kernel.url, banner.member, ws);
    const backedUp = await backupProcess(live, file);
    const parkedDuring = parks.filter((park) => park.ackedAt > began).length;
    // Keep the load on a moment longer, then stop it.
    await new Promise((settle) => setTimeout(settle, 300));
    stopped = true;
    await Promise.all(workers);
    expect(backedUp.stderr).toMatch(/backup: 100%/);
    expect(backedUp.code, backedUp.stderr).toBe(0);
    expect(parks.length).toBeGreaterThan(parkedDuring);

    // A restore refuses while the kernel serves the directory, and changes nothing.
    const refused = await runCli(['restore', file, '--data-dir', live]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^airlock restore: kernel_running: a kernel \(pid \d+\)/);
    expect((await member.get(`${ws}/runs?limit=1`)).status).toBe(200);
    await kernel.stop();

    const fresh = join(root, 'fresh');
    const restored = await runCli(['restore', file, '--data-dir', fresh]);
    expect(restored.code, restored.stderr).toBe(0);
    const again = await startKernelProcess({ dataDir: fresh, args: ['--park-ttl', '2h'] });
    kernels.push(again);
    const member2 = client(again.url, banner.member);
    const agent2 = client(again.url, banner.agent);

    // Acknowledged by the time `began` was read (the same millisecond included): all of it was
    // committed before the backup process started.
    const approved = new Set(approvals.filter((a) => a.ackedAt <= began).map((a) => a.runId));
    const before = parks.filter((park) => park.ackedAt <= began);
    expect(before.length).toBeGreaterThanOrEqual(40);
    for (const park of before) {
      const task = await member2.get(`${ws}/runs/${park.runId}/tasks/t1`);
      expect(task.status, `parked row ${park.runId}`).toBe(200);
      if (approved.has(park.runId)) {
        // Granted at the backup and no executor ran it: the restore fenced it, approver kept.
        expect(task.body, `approved row ${park.runId}`).toMatchObject({
          state: 'failed',
          error: { code: 'outcome_unknown' },
          on_failure: 'hold',
        });
        expect(task.body.decided_by).toMatch(/^member:/);
      } else if (task.body.state === 'needs_approval') {
        expect(task.body.deadline_at, `the clock of ${park.runId}`).toBe(park.deadline);
      }
    }
    const profileAfter = await agent2.get('/agent_api/v1/profile/configuration');
    expect(profileAfter.body.configuration.action_contract).toMatchObject({ contract_version: 3 });
    const overlayAfter = await member2.get(overlayPath);
    expect(overlayAfter.body).toMatchObject({
      digest: overlay.body.digest,
      trusted_digest: overlay.body.digest,
      active: true,
    });
    const auditAfter = new Set(
      (await auditOf(again.url, banner.member, ws)).map(
        (record) => `${record.seq} ${record.event}`,
      ),
    );
    for (const record of audited) {
      expect(auditAfter.has(`${record.seq} ${record.event}`), `audit ${record.seq}`).toBe(true);
    }
    // The restored kernel still decides: a park acknowledged before the backup can be approved now.
    const waiting = before.find((park) => !approved.has(park.runId));
    const approveNow = await member2.post(`${ws}/runs/${waiting!.runId}/tasks/t1/approve`);
    expect(approveNow.status).toBe(200);
  }, 180_000);
});
