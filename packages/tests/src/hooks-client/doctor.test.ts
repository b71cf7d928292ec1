import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { doctor, installHooks, main } from '@airlock/hooks';
import { afterEach, describe, expect, it } from 'vitest';
import { startTestKernel, type TestKernel } from '../support/kernel.js';

describe('airlock hooks doctor against a real kernel', () => {
  let kernel: TestKernel | undefined;
  afterEach(async () => {
    await kernel?.close();
    kernel = undefined;
  });

  it('checks the whole path and names what to fix', async () => {
    kernel = await startTestKernel();
    const home = mkdtempSync(join(tmpdir(), 'airlock-doctor-'));
    const env = { HOME: home, PATH: '/nonexistent' };
    const scope = { kind: 'user' } as const;
    const status = async () =>
      Object.fromEntries(
        (await doctor({ agents: ['claude-code'], scope, env })).map((c) => [c.check, c.status]),
      );

    expect((await status()).configuration).toBe('fail');

    installHooks({
      agent: 'claude-code',
      scope,
      env,
      url: kernel.url,
      token: kernel.workspace.tokens.member,
    });
    expect(await status()).toMatchObject({
      configuration: 'ok',
      'kernel reachable': 'ok',
      credential: 'fail',
    });

    installHooks({
      agent: 'claude-code',
      scope,
      env,
      url: kernel.url,
      token: kernel.workspace.tokens.agent,
    });
    expect(await status()).toMatchObject({ credential: 'ok', profile: 'fail' });
    await fetch(`${kernel.url}/agent_api/v1/profile/configuration`, {
      method: 'PUT',
      headers: {
        authorization: `Bearer ${kernel.workspace.tokens.agent}`,
        'content-type': 'application/json',
      },
      body: JSON.stringify({ approval_mode: 'ask' }),
    });
    const checks = await doctor({ agents: ['claude-code'], scope, env });
    const byName = Object.fromEntries(checks.map((c) => [c.check, c]));
    expect(byName.profile?.status).toBe('ok');
    // A real kernel refuses doctor's empty event at each hook endpoint, recording nothing.
    expect(byName['hook endpoints']?.status).toBe('ok');
    expect(byName['claude-code hooks PreToolUse']?.status).toBe('ok');
    expect(byName['round trip']?.detail).toMatch(/median \d+\.\d ms/);
    expect(byName['claude-code version']?.status).toBe('warn');

    await kernel.airlock.close();
    expect((await status())['kernel reachable']).toBe('fail');
    await kernel.restart();

    // The CLI: exit 2 on a usage mistake, 1 when doctor finds a failure.
    expect(await main(['install', 'vim'])).toBe(2);
    expect(await main(['doctor', 'gemini', '--config', join(home, 'none.json')])).toBe(1);
  });
});

describe('airlock hooks doctor on a shell client', () => {
  it.each(['sh', 'bash'] as const)(
    'finds the %s client script an entry runs, and names it when it is gone',
    (client) => {
      const home = mkdtempSync(join(tmpdir(), 'airlock-doctor-shell-'));
      const env = { HOME: home, PATH: '/nonexistent' };
      const scope = { kind: 'user' } as const;
      installHooks({
        agent: 'claude-code',
        scope,
        env,
        url: 'http://127.0.0.1:9',
        token: 'alk_agent_doctor',
        client,
      });
      const pre = async () =>
        (await doctor({ agents: ['claude-code'], scope, env })).find(
          (check) => check.check === 'claude-code hooks PreToolUse',
        );
      return (async () => {
        expect((await pre())?.status).toBe('ok');
        // The client's curl config is gone: every tool call would be refused.
        const config = join(home, '.airlock', 'hooks-claude-code.curl');
        const kept = readFileSync(config, 'utf8');
        rmSync(config);
        const missing = await pre();
        expect(missing?.status).toBe('fail');
        expect(missing?.detail).toContain('hooks-claude-code.curl is missing or unreadable');
        writeFileSync(config, kept);
        // The entries now name a script that is not there (a package moved or removed).
        const settings = join(home, '.claude', 'settings.json');
        const moved = readFileSync(settings, 'utf8').replaceAll(
          `/airlock-hook.${client}`,
          `/gone/airlock-hook.${client}`,
        );
        writeFileSync(settings, moved);
        const check = await pre();
        expect(check?.status).toBe('fail');
        expect(check?.detail).toContain(`gone/airlock-hook.${client} is missing`);
      })();
    },
  );
});

describe('airlock hooks doctor on entries an earlier install wrote', () => {
  it('warns of a report hook Claude Code waits for, and of a Gemini CLI PreCompress entry', async () => {
    const home = mkdtempSync(join(tmpdir(), 'airlock-doctor-older-'));
    const env = { HOME: home, PATH: '/nonexistent' };
    const scope = { kind: 'user' } as const;
    const common = { scope, env, url: 'http://127.0.0.1:9', token: 'alk_agent_doctor' };
    installHooks({ agent: 'claude-code', ...common });
    installHooks({ agent: 'gemini', ...common });
    const byName = async () =>
      Object.fromEntries(
        (await doctor({ agents: ['claude-code', 'gemini'], scope, env })).map((c) => [c.check, c]),
      );
    const fresh = await byName();
    expect(fresh['claude-code hooks PostToolUse']?.status).toBe('ok');
    expect(fresh['gemini hooks PreCompress']).toBeUndefined();

    // As an install before Claude Code's reports ran in the background wrote them.
    const claude = join(home, '.claude', 'settings.json');
    writeFileSync(
      claude,
      readFileSync(claude, 'utf8').replaceAll('"async": true', '"async": false'),
    );
    // As an install that still registered Gemini CLI's PreCompress wrote it.
    const gemini = join(home, '.gemini', 'settings.json');
    const settings = JSON.parse(readFileSync(gemini, 'utf8'));
    settings.hooks.PreCompress = [{ hooks: [settings.hooks.BeforeTool[0].hooks[0]] }];
    writeFileSync(gemini, JSON.stringify(settings));

    const older = await byName();
    for (const event of ['PostToolUse', 'PostToolUseFailure']) {
      expect(older[`claude-code hooks ${event}`]).toMatchObject({
        status: 'warn',
        fix: 'airlock hooks install claude-code',
      });
    }
    expect(older['claude-code hooks PreToolUse']?.status).toBe('ok');
    expect(older['gemini hooks PreCompress']).toMatchObject({
      status: 'warn',
      fix: 'airlock hooks install gemini',
    });

    // Installing again writes what this version wants.
    installHooks({ agent: 'claude-code', ...common });
    installHooks({ agent: 'gemini', ...common });
    const again = await byName();
    expect(again['claude-code hooks PostToolUse']?.status).toBe('ok');
    expect(again['gemini hooks PreCompress']).toBeUndefined();
  });
});
