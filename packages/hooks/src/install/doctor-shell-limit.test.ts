import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { doctor } from './doctor.js';
import { installHooks } from './install.js';
import { freshHome } from './test-home.js';

describe("doctor on a shell client's configuration from an earlier install", () => {
  it('warns on the events the agent gives 30 s when the short limit is missing', async () => {
    const { home, env } = freshHome('doctor-short');
    installHooks({
      agent: 'gemini',
      scope: { kind: 'user' },
      env,
      url: 'http://127.0.0.1:9',
      token: 'alk_agent_doctor',
      client: 'sh',
    });
    const checksOf = async () =>
      Object.fromEntries(
        (await doctor({ agents: ['gemini'], scope: { kind: 'user' }, env, binaries: {} })).map(
          (check) => [check.check, check],
        ),
      );
    const fresh = await checksOf();
    expect(fresh['gemini hooks AfterTool']).toMatchObject({ status: 'ok' });
    const config = join(home, '.airlock', 'hooks-gemini.curl');
    writeFileSync(config, readFileSync(config, 'utf8').replace(/^# short-max-time.*\n/m, ''));
    const earlier = await checksOf();
    for (const event of ['AfterTool', 'SessionStart']) {
      expect(earlier[`gemini hooks ${event}`]).toMatchObject({
        status: 'warn',
        detail: expect.stringContaining('no short-max-time'),
        fix: 'airlock hooks install gemini',
      });
    }
    expect(earlier['gemini hooks BeforeTool']).toMatchObject({ status: 'ok' });
  });
});
