import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI_NODE_ARGS } from '../testing/cli-entry.js';
import { type Deployment, deploy, waitFor } from '../testing/harness.js';
import { backends } from '../testing/stores.js';

const all = await backends();
const run = promisify(execFile);

// biome-ignore lint/suspicious/noExplicitAny: tests read JSON lines loosely and assert on them.
type Loose = any;

const RULES = [
  { tool: 'bash', path: 'command', match: 'ls*', verdict: 'allow' },
  { tool: 'deploy', verdict: 'ask' },
  { tool: 'bash', path: 'command', match: 'rm*', verdict: 'deny', reason: 'no deleting' },
];

/** Reads a JSON-lines answer. */
async function lines(d: Deployment, path: string, token = d.tokens.member): Promise<Loose[]> {
  const response = await fetch(`${d.url}${path}`, {
    headers: { authorization: `Bearer ${token}` },
  });
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/^application\/x-ndjson/);
  const text = await response.text();
  return text
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line));
}

for (const backend of all) {
  describe.skipIf(backend.skip !== null)(`the audit trail (${backend.name})`, () => {
    let d: Deployment;
    let ruled: string;
    let expired: string;
    let hooked: string;
    beforeAll(async () => {
      d = await deploy(backend, { parkTtlMs: 1500 });
      ruled = (
        await d.agent.post(`${d.ws}/runs`, {
          approval_mode: 'rules',
          approval_rules: RULES,
          provider: {
            kind: 'scripted',
            rounds: [
              {
                tool_calls: [
                  { name: 'bash', input: { command: 'ls -la' } },
                  { name: 'deploy' },
                  { name: 'bash', input: { command: 'rm -rf /' } },
                ],
              },
              { final: 'done' },
            ],
          },
        })
      ).body.id;
      // The park is approved at once, well before its 1.5 s clock.
      const approved = await d.member.post(`${d.ws}/runs/${ruled}/tasks/t2/approve`);
      expect(approved.status).toBe(200);
      expired = (
        await d.agent.post(`${d.ws}/runs`, {
          approval_mode: 'ask',
          provider: { kind: 'scripted', rounds: [{ tool_calls: [{ name: 'x' }] }, { final: 'f' }] },
        })
      ).body.id;
      await waitFor(async () => {
        const task = (await d.member.get(`${d.ws}/runs/${expired}/tasks/t1`)).body;
        return task.state !== 'needs_approval';
      });
      hooked = (
        await d.agent.post(`${d.ws}/runs`, {
          approval_mode: 'bypass',
          lifecycle_hooks: { turn_start: { tool: 'gate', timeout_ms: 5000 } },
          provider: { kind: 'scripted', rounds: [{ final: 'f' }] },
        })
      ).body.id;
      await waitFor(async () => {
        const claim = await d.executor.post('/executor_api/v1/claim', {});
        const item = claim.body?.claim;
        if (!item) return false;
        await d.executor.post(
          `/executor_api/v1/runs/${item.task.run_id}/tasks/${item.task.key}/commit`,
          {
            claim_id: item.claim_id,
            outcome: 'succeeded',
            result: { structured_content: { continue: false } },
          },
        );
        return item.task.run_id === hooked;
      });
      await waitFor(
        async () => (await d.member.get(`${d.ws}/runs/${hooked}`)).body.state !== 'running',
      );
    });
    afterAll(async () => {
      await d.close();
    });

    it("records each rule decision with its principal, layer and the matched rules' indices", async () => {
      const records = await lines(d, `${d.ws}/runs/${ruled}/audit`);
      const byKey = (key: string, decision: string) =>
        records.find((r) => r.task_key === key && r.decision === decision);
      expect(byKey('t1', 'granted')).toMatchObject({
        decider: 'rule',
        principal: 'policy',
        granted_by: 'rule',
        layer: 'approval_rules',
        rule_indices: [0],
        tool_name: 'bash',
      });
      expect(byKey('t2', 'parked')).toMatchObject({ decider: 'rule', rule_indices: [1] });
      expect(byKey('t3', 'denied')).toMatchObject({
        decider: 'rule',
        rule_indices: [2],
        detail: 'no deleting',
      });
      expect(byKey('t2', 'approved')).toMatchObject({
        decider: 'person',
        principal: expect.stringMatching(/^member:cred_/),
      });
      for (let i = 1; i < records.length; i++) {
        expect(records[i].seq).toBeGreaterThan(records[i - 1].seq);
      }
    });

    it('records the clock, a hook and the kernel', async () => {
      const clock = await lines(d, `${d.ws}/runs/${expired}/audit`);
      expect(clock.find((r) => r.decision === 'expired')).toMatchObject({
        decider: 'clock',
        principal: 'kernel',
      });
      const hook = await lines(d, `${d.ws}/runs/${hooked}/audit`);
      expect(hook.find((r) => r.decision === 'hook_passed')).toMatchObject({
        decider: 'hook',
        principal: expect.stringMatching(/^executor:cred_/),
        tool_name: 'gate',
      });
      expect(hook.find((r) => r.event.startsWith('run.'))).toMatchObject({ decider: 'kernel' });
    });

    it('exports the workspace since a time, and the CLI writes the same JSON lines', async () => {
      const all = await lines(d, `${d.ws}/audit`);
      expect(new Set(all.map((r) => r.run_id))).toEqual(new Set([ruled, expired, hooked]));
      const later = await lines(d, `${d.ws}/audit?since=${Date.now() + 60_000}`);
      expect(later).toEqual([]);
      const env = {
        ...process.env,
        AIRLOCK_URL: d.url,
        AIRLOCK_TOKEN: d.tokens.member,
        AIRLOCK_WORKSPACE: d.workspaceId,
      };
      // Both exports at once: each is a CLI process of its own, mostly starting.
      const [{ stdout, stderr }, after] = await Promise.all([
        run(process.execPath, [...CLI_NODE_ARGS, 'audit', 'export', '--since', '1h'], { env }),
        run(
          process.execPath,
          [...CLI_NODE_ARGS, 'audit', 'export', '--after', String(all.at(-2).seq)],
          {
            env,
          },
        ),
      ]);
      const exported = stdout
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line));
      expect(exported).toEqual(all);
      expect(stderr).toBe('');
      expect(after.stdout.trim().split('\n')).toHaveLength(1);
    });

    it('counts what it wrote on a terminal while the lines go to a file, and not in CI', async () => {
      const all = await lines(d, `${d.ws}/audit`);
      const dir = mkdtempSync(join(tmpdir(), 'airlock-audit-tty-'));
      const exportOnTerminal = async (ci: string) => {
        const file = join(dir, `export-${ci || 'local'}.jsonl`);
        // util-linux `script` gives the command a pseudo-terminal, as a person's shell would.
        const { stdout } = await run(
          'script',
          [
            '-qec',
            `"${process.execPath}" ${CLI_NODE_ARGS.map((arg) => `"${arg}"`).join(' ')} audit export > "${file}"`,
            '/dev/null',
          ],
          {
            env: {
              ...process.env,
              CI: ci,
              AIRLOCK_URL: d.url,
              AIRLOCK_TOKEN: d.tokens.member,
              AIRLOCK_WORKSPACE: d.workspaceId,
            },
          },
        );
        const written = readFileSync(file, 'utf8').split('\n').filter(Boolean);
        return { terminal: stdout, written };
      };
      const [local, ci] = await Promise.all([exportOnTerminal(''), exportOnTerminal('true')]);
      expect(local.written).toHaveLength(all.length);
      expect(local.terminal).toContain(`airlock audit export: ${all.length} decisions written`);
      expect(local.terminal).toContain('\u001b[2K');
      expect(ci.written).toHaveLength(all.length);
      expect(ci.terminal).not.toContain('decisions written');
    });

    it('keeps the export to members', async () => {
      const response = await fetch(`${d.url}${d.ws}/audit`, {
        headers: { authorization: `Bearer ${d.tokens.agent}` },
      });
      expect(response.status).toBe(403);
    });
  });
}
