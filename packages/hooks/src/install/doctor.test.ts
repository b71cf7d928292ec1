import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { HookedAgent } from '@airlock/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DoctorCheck, doctor } from './doctor.js';
import { installHooks } from './install.js';

/** A stand-in kernel on loopback: `airlock` answers as Airlock does; the other modes as other servers. */
let mode:
  | 'airlock'
  | 'older'
  | 'all404'
  | 'health-then-404'
  | 'health-then-hang'
  | 'health-then-reset' = 'airlock';
const server = createServer((request, response) => {
  const health = request.url === '/healthz';
  if (request.method === 'POST' && request.url?.startsWith('/agent_api/v1/hooks/')) {
    // An empty event is refused as Airlock refuses it; an older kernel serves no codex endpoint.
    const served = mode === 'airlock' || (mode === 'older' && !request.url.includes('/codex/'));
    response.writeHead(served ? 400 : 404, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ error: { code: served ? 'invalid_input' : 'not_found' } }));
    return;
  }
  if (mode === 'airlock' || mode === 'older' || (health && mode !== 'all404')) {
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(health ? '{"ok":true}' : '{"version":1,"configuration":{"approval_mode":"ask"}}');
    return;
  }
  if (mode === 'health-then-hang') return;
  if (mode === 'health-then-reset') {
    request.socket.destroy();
    return;
  }
  response.writeHead(404);
  response.end('not found');
});
let url = '';
beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => {
  server.closeAllConnections();
  return new Promise<void>((resolve) => server.close(() => resolve()));
});

/** A HOME with Claude Code's hooks installed against the stand-in kernel, and a hook entry that exists. */
function installed(options: { node?: string; entryDir?: string } = {}) {
  const home = mkdtempSync(join(tmpdir(), 'airlock-hooks-doctor-'));
  const env = { HOME: home, CODEX_HOME: join(home, '.codex') };
  const entryDir = join(home, options.entryDir ?? 'airlock');
  mkdirSync(entryDir, { recursive: true });
  writeFileSync(join(entryDir, 'airlock-hook.js'), '');
  const common = {
    scope: { kind: 'user' } as const,
    env,
    url,
    token: 'alk_agent_doctor',
    node: options.node ?? process.execPath,
    hookEntry: join(entryDir, 'airlock-hook.js'),
  };
  installHooks({ agent: 'claude-code', ...common });
  installHooks({ agent: 'codex', ...common });
  return { home, env, settings: join(home, '.claude', 'settings.json') };
}

async function checksOf(env: { HOME: string }, agents: HookedAgent[] = ['claude-code']) {
  const checks = await doctor({ agents, scope: { kind: 'user' }, env, binaries: {} });
  return Object.fromEntries(checks.map((check) => [check.check, check])) as Record<
    string,
    DoctorCheck
  >;
}

describe('doctor never aborts: what it cannot read is a failed check', () => {
  it.each([
    ['null', 'is not a JSON object'],
    ['{"hooks":{"PreToolUse":"x"}}', '"hooks.PreToolUse" is a string'],
    ['{"hooks":{"Notification":"x"}}', '"hooks.Notification" is a string'],
    ['{"hooks":"x"}', '"hooks" is a string'],
  ])('settings %s', async (content, why) => {
    mode = 'airlock';
    const { env, settings } = installed();
    writeFileSync(settings, content);
    const checks = await checksOf(env);
    expect(checks.configuration?.status).toBe('ok');
    expect(checks['claude-code hooks']).toMatchObject({
      status: 'fail',
      detail: expect.stringContaining(why),
      fix: expect.any(String),
    });
  });

  it('a null group is skipped, not a crash', async () => {
    mode = 'airlock';
    const { env, settings } = installed();
    writeFileSync(settings, '{"hooks":{"PreToolUse":[null]}}');
    expect((await checksOf(env))['claude-code hooks PreToolUse']?.detail).toBe('not registered');
  });

  it('settings it cannot read (a folder)', async () => {
    mode = 'airlock';
    const { home, env } = installed();
    const gemini = join(home, '.gemini', 'settings.json');
    mkdirSync(gemini, { recursive: true });
    const checks = await checksOf(env, ['gemini']);
    expect(checks['gemini hooks']).toMatchObject({
      status: 'fail',
      detail: expect.stringContaining(`cannot use ${gemini}: it is a directory`),
    });
  });

  it.each([
    [
      'health-then-reset',
      /answered \/healthz, then not the agent's profile request \(the connection was closed\)/,
    ],
    ['health-then-hang', /no answer within 5 s/],
  ] as const)(
    'a kernel that answers /healthz, then %s',
    async (kernelMode, why) => {
      mode = kernelMode;
      const { env } = installed();
      const checks = await checksOf(env);
      expect(checks.credential).toMatchObject({
        status: 'fail',
        detail: expect.stringMatching(why),
      });
      expect(checks['claude-code hooks PreToolUse']?.status).toBe('ok');
    },
    15_000,
  );
  it('a credential file that is gone is named', async () => {
    mode = 'airlock';
    const home = mkdtempSync(join(tmpdir(), 'airlock-hooks-doctor-'));
    const env = { HOME: home, CODEX_HOME: join(home, '.codex') };
    mkdirSync(join(home, '.airlock'));
    const tokenFile = join(home, 'gone-token');
    writeFileSync(
      join(home, '.airlock', 'hooks.json'),
      JSON.stringify({ url, token_file: tokenFile }),
    );
    expect((await checksOf(env)).configuration).toMatchObject({
      status: 'fail',
      detail: `cannot use ${tokenFile}: it does not exist`,
    });
  });
});

describe('doctor says ok only where the path protects', () => {
  it('a server that is not Airlock fails the kernel check', async () => {
    mode = 'all404';
    const { env } = installed();
    expect((await checksOf(env))['kernel reachable']).toMatchObject({
      status: 'fail',
      detail: expect.stringContaining("answered 404, not Airlock's"),
    });
  });

  it("a server that answers /healthz but not Airlock's authenticated route fails the credential check", async () => {
    mode = 'health-then-404';
    const { env } = installed();
    const checks = await checksOf(env);
    expect(checks['kernel reachable']?.status).toBe('ok');
    expect(checks.credential).toMatchObject({
      status: 'fail',
      detail: expect.stringContaining('not an Airlock kernel'),
    });
  });

  it('the Node.js binary the entries run is gone', async () => {
    mode = 'airlock';
    const { env } = installed({ node: '/nonexistent/bin/node' });
    const checks = await checksOf(env, ['claude-code', 'codex']);
    expect(checks['claude-code hooks PreToolUse']).toMatchObject({
      status: 'fail',
      detail: expect.stringContaining('/nonexistent/bin/node, is missing or not executable'),
    });
    expect(checks['codex hooks PreToolUse']).toMatchObject({
      status: 'fail',
      detail: expect.stringContaining('/nonexistent/bin/node, is missing'),
    });
  });

  it('a PreToolUse matcher narrowed to one tool, and disableAllHooks', async () => {
    mode = 'airlock';
    const { env, settings } = installed();
    const parsed = JSON.parse(readFileSync(settings, 'utf8'));
    parsed.hooks.PreToolUse[0].matcher = 'Read';
    writeFileSync(settings, JSON.stringify(parsed));
    let checks = await checksOf(env);
    expect(checks['claude-code hooks PreToolUse']).toMatchObject({
      status: 'fail',
      detail: expect.stringContaining('the matcher "Read"'),
    });
    parsed.hooks.PreToolUse[0].matcher = '*';
    parsed.disableAllHooks = true;
    writeFileSync(settings, JSON.stringify(parsed));
    checks = await checksOf(env);
    expect(checks['claude-code hooks PreToolUse']?.status).toBe('ok');
    expect(checks['claude-code hooks']).toMatchObject({
      status: 'fail',
      detail: expect.stringContaining('"disableAllHooks": true'),
    });
  });

  it('a PreToolUse entry made async: the agent would not wait for its answer', async () => {
    mode = 'airlock';
    const { env, settings } = installed();
    const parsed = JSON.parse(readFileSync(settings, 'utf8'));
    parsed.hooks.PreToolUse[0].hooks[0].async = true;
    writeFileSync(settings, JSON.stringify(parsed));
    const checks = await checksOf(env);
    expect(checks['claude-code hooks PreToolUse']).toMatchObject({
      status: 'fail',
      detail: expect.stringContaining('"async": true'),
    });
    // The report of what ran is meant to run in the background.
    expect(checks['claude-code hooks PostToolUse']?.status).toBe('ok');
  });

  it('Gemini CLI settings with comments are read as Gemini CLI reads them', async () => {
    mode = 'airlock';
    const { home, env } = installed();
    installHooks({
      agent: 'gemini',
      scope: { kind: 'user' },
      env,
      url,
      token: 'alk_agent_doctor',
      node: process.execPath,
      hookEntry: join(home, 'airlock', 'airlock-hook.js'),
    });
    const path = join(home, '.gemini', 'settings.json');
    writeFileSync(path, `// managed by hand\n${readFileSync(path, 'utf8')}`);
    const checks = await checksOf(env, ['gemini']);
    expect(checks['gemini hooks']).toBeUndefined();
    expect(checks['gemini hooks BeforeTool']?.status).toBe('ok');
  });

  it('all ok against Airlock, also with the hook entry under a path with a space', async () => {
    mode = 'airlock';
    const { env } = installed({ entryDir: 'Program Files/airlock' });
    const checks = await checksOf(env, ['claude-code', 'codex']);
    const failed = Object.values(checks).filter((check) => check.status === 'fail');
    expect(failed).toEqual([]);
    expect(checks['claude-code hooks PreToolUse']?.detail).toBe('registered');
    expect(checks['hook endpoints']?.status).toBe('ok');
  });

  // Its /healthz and profile answer as Airlock does, but the endpoint Codex's clients post to is
  // missing: every Codex tool call would be refused while doctor said ok.
  it('a kernel of another release, without an endpoint the clients post to, fails naming it', async () => {
    mode = 'older';
    const { env } = installed();
    const checks = await checksOf(env, ['claude-code', 'codex']);
    expect(checks.credential?.status).toBe('ok');
    expect(checks['hook endpoints']).toMatchObject({
      status: 'fail',
      detail: expect.stringContaining('/agent_api/v1/hooks/codex/default answered 404 not_found'),
    });
    expect(checks['hook endpoints']?.detail).not.toContain('claude-code/default');
  });
});

describe("doctor's version check says what to do", () => {
  it('an agent version that was not measured: a warning with a fix', async () => {
    mode = 'airlock';
    const { home, env } = installed();
    const binary = join(home, 'claude');
    writeFileSync(binary, '#!/bin/sh\necho "9.9.9 (Claude Code)"\n', { mode: 0o755 });
    const checks = await doctor({
      agents: ['claude-code'],
      scope: { kind: 'user' },
      env,
      binaries: { 'claude-code': binary },
    });
    expect(checks.find((check) => check.check === 'claude-code version')).toMatchObject({
      status: 'warn',
      detail: expect.stringContaining('9.9.9 was not measured'),
      fix: expect.stringContaining('2.1.295'),
    });
  });
});
