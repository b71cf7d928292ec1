import { readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { doctor } from './doctor.js';
import { installHooks } from './install.js';
import { freshHome, installBasics } from './test-home.js';

/**
 * The agent runs its hooks in its own working directory, not the one
 * install ran in: a configuration or credential file named relative to
 * install's is written whole, or every call would be refused for want of it.
 */
describe('install given relative paths', () => {
  it('writes the configuration and the credential file as absolute paths', () => {
    const { home, env } = freshHome('paths');
    const config = join(home, 'airlock', 'hooks.json');
    const tokenFile = join(home, 'agent.token');
    writeFileSync(tokenFile, 'alk_agent_file\n');
    const { token: _, ...basics } = installBasics(env);
    const result = installHooks({
      agent: 'claude-code',
      ...basics,
      configPath: relative(process.cwd(), config),
      tokenFile: relative(process.cwd(), tokenFile),
    });
    expect(result.configPath).toBe(config);
    expect(result.command).toContain(`--config ${config}`);
    expect(JSON.parse(readFileSync(config, 'utf8'))).toMatchObject({ token_file: tokenFile });
    const settings = readFileSync(join(home, '.claude', 'settings.json'), 'utf8');
    expect(settings).toContain(`--config ${config}`);
  });

  it("a shell client's curl config goes beside the configuration, named whole", () => {
    const { home, env } = freshHome('paths-sh');
    const config = join(home, 'airlock', 'hooks.json');
    const result = installHooks({
      agent: 'codex',
      ...installBasics(env),
      client: 'sh',
      configPath: relative(process.cwd(), config),
    });
    expect(result.command.split(' ').at(-1)).toBe(join(home, 'airlock', 'hooks-codex.curl'));
  });
});

describe('doctor and an entry an earlier install wrote with a relative configuration', () => {
  it('fails the entry: the agent, in its own directory, would not find the file', async () => {
    const { home, env } = freshHome('paths-doctor');
    writeFileSync(join(home, 'airlock-hook.js'), '');
    installHooks({
      agent: 'claude-code',
      ...installBasics(env),
      node: process.execPath,
      hookEntry: join(home, 'airlock-hook.js'),
    });
    const path = join(home, '.claude', 'settings.json');
    const absolute = join(home, '.airlock', 'hooks.json');
    writeFileSync(path, readFileSync(path, 'utf8').replaceAll(absolute, 'hooks.json'));
    const checks = await doctor({
      agents: ['claude-code'],
      scope: { kind: 'user' },
      env,
      binaries: { 'claude-code': '/nonexistent' },
    });
    expect(checks.find((check) => check.check === 'claude-code hooks PreToolUse')).toMatchObject({
      status: 'fail',
      detail: expect.stringContaining(
        'names its configuration hooks.json relative to the directory it runs in',
      ),
    });
  });
});
