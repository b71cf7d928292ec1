import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { HookedAgent } from '@airlock/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { doctor } from './doctor.js';
import { type InstallOptions, installHooks } from './install.js';

/** A kernel that answers as Airlock does, for one credential only. */
const server = createServer((request, response) => {
  if (request.url === '/healthz') {
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end('{"ok":true}');
    return;
  }
  const known = request.headers.authorization === 'Bearer alk_agent_live';
  response.writeHead(known ? 200 : 401, { 'content-type': 'application/json' });
  response.end(known ? '{"configuration":{"approval_mode":"ask"}}' : '{"error":{}}');
});
let live = '';
const DEAD = 'http://127.0.0.1:9';
beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  live = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => {
  server.closeAllConnections();
  return new Promise<void>((resolve) => server.close(() => resolve()));
});

/** A fresh HOME, and install with a hook entry that exists there. */
function sandbox() {
  const home = mkdtempSync(join(tmpdir(), 'airlock-hooks-doctor-kernels-'));
  writeFileSync(join(home, 'airlock-hook.js'), '');
  const env = { HOME: home, CODEX_HOME: join(home, '.codex') };
  const install = (agent: HookedAgent, options: Partial<InstallOptions>) =>
    installHooks({
      agent,
      scope: { kind: 'user' },
      env,
      token: 'alk_agent_live',
      node: process.execPath,
      hookEntry: join(home, 'airlock-hook.js'),
      ...options,
    });
  const kernelChecks = async (agent: HookedAgent) =>
    (await doctor({ agents: [agent], scope: { kind: 'user' }, env, binaries: {} })).filter(
      (check) => check.check.startsWith(`${agent} kernel of `),
    );
  return { home, env, install, kernelChecks };
}

describe('doctor checks the kernel each installed entry calls', () => {
  it('entries that all call the kernel hooks.json names: nothing more to report', async () => {
    const { install, kernelChecks } = sandbox();
    install('codex', { url: live, client: 'sh' });
    expect(await kernelChecks('codex')).toEqual([]);
  });

  it("a shell client's curl config left on a dead kernel after hooks.json moved: fails naming it", async () => {
    const { home, install, kernelChecks } = sandbox();
    install('codex', { url: DEAD, client: 'sh' });
    install('claude-code', { url: live }); // points hooks.json at the live kernel
    const curl = join(home, '.airlock', 'hooks-codex.curl');
    expect(await kernelChecks('codex')).toEqual([
      expect.objectContaining({
        check: `codex kernel of ${curl}`,
        status: 'fail',
        detail: expect.stringMatching(
          new RegExp(
            `^${curl} calls ${DEAD}, not the kernel .*hooks\\.json names \\(${live}\\); and cannot reach ${DEAD}`,
          ),
        ),
      }),
    ]);
  });

  it('a curl config with another credential than hooks.json: fails, also on the same kernel', async () => {
    const { home, install, kernelChecks } = sandbox();
    install('codex', { url: live, token: 'alk_agent_other', client: 'sh' });
    install('claude-code', { url: live });
    expect(await kernelChecks('codex')).toEqual([
      expect.objectContaining({
        status: 'fail',
        detail: expect.stringContaining(
          `${join(home, '.airlock', 'hooks-codex.curl')} presents another credential than`,
        ),
      }),
    ]);
  });

  it('Gemini CLI settings with comments are read as Gemini CLI reads them, entries and all', async () => {
    const { home, install, kernelChecks } = sandbox();
    const other = join(home, 'other-hooks.json');
    install('gemini', { url: DEAD, configPath: other });
    install('claude-code', { url: live });
    const settings = join(home, '.gemini', 'settings.json');
    writeFileSync(settings, `// hooks put in by airlock\n${readFileSync(settings, 'utf8')}`);
    expect(await kernelChecks('gemini')).toEqual([
      expect.objectContaining({
        check: `gemini kernel of ${other}`,
        status: 'fail',
        detail: expect.stringContaining(`cannot reach ${DEAD}`),
      }),
    ]);
  });

  it("a Node.js entry's own --config naming a dead kernel: fails naming that file", async () => {
    const { home, install, kernelChecks } = sandbox();
    const other = join(home, 'other-hooks.json');
    install('gemini', { url: DEAD, configPath: other });
    install('claude-code', { url: live });
    expect(await kernelChecks('gemini')).toEqual([
      expect.objectContaining({
        check: `gemini kernel of ${other}`,
        status: 'fail',
        detail: expect.stringContaining(`cannot reach ${DEAD}`),
      }),
    ]);
  });

  it('HTTP hooks on a dead kernel while hooks.json names the live one: fails naming the settings', async () => {
    const { home, install, kernelChecks } = sandbox();
    install('claude-code', { url: live });
    install('claude-code', { url: DEAD, http: true, token: undefined });
    // The turn's end runs the Node.js client, which reads hooks.json: put it back on the live kernel.
    writeFileSync(
      join(home, '.airlock', 'hooks.json'),
      JSON.stringify({ url: live, token: 'alk_agent_live' }),
    );
    const settings = join(home, '.claude', 'settings.json');
    expect(await kernelChecks('claude-code')).toEqual([
      expect.objectContaining({
        check: `claude-code kernel of ${settings}`,
        status: 'fail',
        detail: expect.stringContaining(`${settings} calls ${DEAD}`),
      }),
    ]);
  });
});
