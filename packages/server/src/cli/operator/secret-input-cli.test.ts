import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI_NODE_ARGS } from '../../testing/cli-entry.js';
import { type Deployment, deploy } from '../../testing/harness.js';
import { operatorCliEnv, sqliteBackend } from '../../testing/operator-cli.js';

const sqlite = await sqliteBackend();

/** Runs the real `airlock` CLI against `d` with `input` on its standard input. */
function airlock(d: Deployment, args: string[], input = '') {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((settle) => {
    const child = spawn(process.execPath, [...CLI_NODE_ARGS, ...args], { env: operatorCliEnv(d) });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    child.on('close', (code) => settle({ code, stdout, stderr }));
    child.stdin.end(input);
  });
}

const WARNING = 'warning: a secret on the command line can be read by other users (ps)';

// Each step starts the CLI in a child process: slow on a loaded machine, so a wide bound.
describe('secrets the operator CLI takes on standard input', { timeout: 180_000 }, () => {
  let d: Deployment;
  beforeAll(async () => {
    d = await deploy(sqlite);
  });
  afterAll(async () => {
    await d?.close();
  });

  async function newMember() {
    const made = await d.member.post(`${d.ws}/credentials`, {
      kind: 'member',
      agent_application_id: null,
      label: 'to revoke',
    });
    return made.body as { credential_id: string; token: string };
  }

  const isRevoked = async (id: string) => {
    const listed = await d.member.get(`${d.ws}/credentials?include_revoked=true`);
    const row = listed.body.credentials.find(
      (c: { credential_id: string }) => c.credential_id === id,
    );
    return row.revoked_at !== null;
  };

  it('tokens revoke - reads the token from standard input, and warns of none', async () => {
    const member = await newMember();
    const revoked = await airlock(d, ['tokens', 'revoke', '-'], `${member.token}\n`);
    expect(revoked).toMatchObject({ code: 0, stderr: '' });
    expect(revoked.stdout).toContain(`revoked member credential ${member.credential_id}`);
    expect(await isRevoked(member.credential_id)).toBe(true);
  });

  it('tokens revoke <token> still revokes, and warns on stderr; a credential id is no secret', async () => {
    const member = await newMember();
    const revoked = await airlock(d, ['tokens', 'revoke', member.token]);
    expect(revoked.code).toBe(0);
    expect(revoked.stderr).toContain(`airlock tokens revoke: ${WARNING}`);
    expect(revoked.stderr).toContain('airlock tokens revoke - < file');
    expect(await isRevoked(member.credential_id)).toBe(true);
    const other = await newMember();
    const byId = await airlock(d, ['tokens', 'revoke', other.credential_id]);
    expect(byId).toMatchObject({ code: 0, stderr: '' });
  });

  it.each([
    ['', 'airlock tokens revoke: no credential id or token on standard input\n'],
    ['\n', 'airlock tokens revoke: no credential id or token on standard input\n'],
    [
      'alk_member_a\nalk_member_b\n',
      'airlock tokens revoke: standard input holds more than one line; give one credential id or token\n',
    ],
  ])('tokens revoke - refuses standard input %j with exit 2', async (input, message) => {
    const refused = await airlock(d, ['tokens', 'revoke', '-'], input);
    expect(refused).toEqual({ code: 2, stdout: '', stderr: message });
  });

  it('decisions answer --resolution-token - reads the token from standard input', async () => {
    const created = await d.member.post(`${d.ws}/runs`, {
      approval_mode: 'ask',
      input: 'ask me',
      provider: {
        kind: 'scripted',
        rounds: [{ tool_calls: [{ name: 'deploy' }] }, { final: 'done' }],
      },
    });
    const runId = created.body.id;
    const ask = async () =>
      (
        await d.member.post(`${d.ws}/runs/${runId}/tasks`, {
          tool_name: 'ask',
          tool_input: { prompt: 'Proceed?', options: ['yes', 'no'] },
        })
      ).body as { key: string; resolution_token: string };
    const first = await ask();
    const answered = await airlock(
      d,
      ['decisions', 'answer', runId, first.key, '--content', 'yes', '--resolution-token', '-'],
      `${first.resolution_token}\n`,
    );
    expect(answered).toMatchObject({ code: 0, stderr: '' });
    const row = (await d.member.get(`${d.ws}/runs/${runId}/tasks/${first.key}`)).body;
    expect(row).toMatchObject({ state: 'succeeded', result: 'yes' });
    const second = await ask();
    const onArgv = await airlock(d, [
      'decisions',
      'answer',
      runId,
      second.key,
      '--content',
      'no',
      '--resolution-token',
      second.resolution_token,
    ]);
    expect(onArgv.code).toBe(0);
    expect(onArgv.stderr).toContain(`airlock decisions answer: ${WARNING}`);
  });

  it('--token on the command line still connects, and warns on stderr; AIRLOCK_TOKEN draws none', async () => {
    const flagged = await airlock(d, ['runs', 'list', '--token', d.tokens.member]);
    expect(flagged.code).toBe(0);
    expect(flagged.stderr).toBe(
      `airlock: ${WARNING} and stays in your shell history; set AIRLOCK_TOKEN instead\n`,
    );
    const fromEnv = await airlock(d, ['runs', 'list']);
    expect(fromEnv).toMatchObject({ code: 0, stderr: '' });
  });
});
