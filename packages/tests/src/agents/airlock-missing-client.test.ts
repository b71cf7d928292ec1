import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createAgentSandbox, runAgent } from './agent-sandbox.js';
import { agentTests } from './agent-tests.js';
import { installAirlockHooks, startAirlockKernel } from './airlock-hooks.js';

// The Node.js binary an installed entry starts is gone (a Node.js upgrade, an nvm switch): the
// hook exits 127 before any of Airlock's code runs. Codex runs the call on such an exit; the
// entry's `|| exit 2` ending makes it Codex's refusal instead.
describe('codex with the hook client gone', { timeout: 300_000 }, () => {
  const { missing, hold } = agentTests('codex');

  it.skipIf(missing)('refuses the call: nothing runs', async () => {
    const airlock = hold(await startAirlockKernel());
    await airlock.setProfile({ approval_mode: 'bypass' });
    const sandbox = hold(
      await createAgentSandbox('codex', [{ kind: 'shell', command: 'echo ran >> ran.log' }]),
    );
    installAirlockHooks(sandbox, airlock);
    const config = join(sandbox.codexHome, 'config.toml');
    const installed = readFileSync(config, 'utf8');
    expect(installed).toContain(process.execPath);
    writeFileSync(config, installed.split(process.execPath).join('/nonexistent/node'));
    const run = await runAgent(sandbox);
    expect(run.timedOut, run.stderr).toBe(false);
    expect(existsSync(join(sandbox.project, 'ran.log'))).toBe(false);
  });
});
