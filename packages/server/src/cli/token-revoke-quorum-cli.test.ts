import { chmodSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type KernelProcess, startKernelProcess } from '../testing/kernel-process.js';
import { runLocalCli, runOperatorCli } from '../testing/operator-cli.js';

/*
 * Revoking a member an approval policy rule counts on goes ahead, and the kernel names each rule
 * its live members can no longer meet (unreachable_approval_rules). Both revoke commands say so
 * on stderr, one line a rule, and leave stdout as scripts read it; --json carries the field.
 */
const root = mkdtempSync(join(tmpdir(), 'airlock-revoke-quorum-'));
chmodSync(root, 0o755);
const cwd = join(root, 'project');
mkdirSync(cwd);
let kernel: KernelProcess;

async function api(method: string, path: string, body?: unknown) {
  const answer = await fetch(`${kernel.url}/api/v1/workspaces/${kernel.workspaceId}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${kernel.tokens.member}`,
      'content-type': 'application/json',
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: answer.status, body: (await answer.json()) as Record<string, unknown> };
}

async function member(label: string): Promise<string> {
  const made = await api('POST', '/credentials', {
    kind: 'member',
    agent_application_id: null,
    label,
  });
  expect(made.status).toBe(201);
  return made.body.credential_id as string;
}

const target = () => ({
  url: kernel.url,
  workspaceId: kernel.workspaceId,
  tokens: { member: kernel.tokens.member },
});

let ids: Record<'ana' | 'bo' | 'cy' | 'dee' | 'eve', string>;

beforeAll(async () => {
  kernel = await startKernelProcess({ dataDir: join(cwd, '.airlock') });
  ids = {
    ana: await member('Ana'),
    bo: await member('Bo'),
    cy: await member('Cy'),
    dee: await member('Dee'),
    eve: await member('Eve'),
  };
  const put = await api('PUT', '/approval_policy', {
    policy: {
      rules: [
        { actions: ['destructive'], approvers: [ids.ana, ids.bo], required: 2 },
        { tool: 'deploy', approvers: [ids.cy, ids.dee], required: 2 },
      ],
    },
  });
  expect(put.status).toBe(200);
}, 120_000);
afterAll(async () => {
  await kernel?.stop();
  rmSync(root, { recursive: true, force: true });
});

const warning = (index: number) =>
  `warning: approval rule ${index} needs 2 approvals; 1 approver left (calls it covers wait until their deadline unless the approval policy changes)`;

describe('revoking an approver a quorum counts on', { timeout: 60_000 }, () => {
  it('airlock tokens revoke warns on stderr per rule, stdout unchanged, --json has the field', async () => {
    const revoked = await runOperatorCli(target(), ['tokens', 'revoke', ids.bo]);
    expect(revoked.code, revoked.stderr).toBe(0);
    expect(revoked.stdout).toBe(`revoked member credential ${ids.bo}\n`);
    expect(revoked.stderr.split('\n').filter((line) => line.startsWith('warning:'))).toEqual([
      warning(0),
    ]);

    const json = await runOperatorCli(target(), ['tokens', 'revoke', ids.dee, '--json']);
    expect(json.code, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout).unreachable_approval_rules).toEqual([
      { rule_index: 0, required: 2, approvers_left: 1 },
      { rule_index: 1, required: 2, approvers_left: 1 },
    ]);
    expect(json.stderr).toContain(warning(1));
  });

  it('airlock tokens revoke of a member no rule names says again the rules still unmet', async () => {
    const revoked = await runOperatorCli(target(), ['tokens', 'revoke', ids.eve]);
    expect(revoked.code, revoked.stderr).toBe(0);
    expect(revoked.stdout).toBe(`revoked member credential ${ids.eve}\n`);
    expect(revoked.stderr.split('\n').filter((line) => line.startsWith('warning:'))).toEqual([
      warning(0),
      warning(1),
    ]);
  });

  it('the local airlock token revoke warns on stderr per rule, stdout empty', async () => {
    // Mend the policy so that only one rule is left unmeetable by the revoke below.
    const put = await api('PUT', '/approval_policy', {
      policy: { rules: [{ tool: 'deploy', approvers: [ids.ana, ids.cy], required: 2 }] },
    });
    expect(put.status).toBe(200);
    const revoked = await runLocalCli(['token', 'revoke', ids.cy], { cwd });
    expect(revoked.code, revoked.stderr).toBe(0);
    expect(revoked.stdout).toBe('');
    expect(revoked.stderr.split('\n').filter((line) => line.startsWith('warning:'))).toEqual([
      warning(0),
    ]);
  });
});
