import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createAgentSandbox, runAgent } from './agent-sandbox.js';
import { agentTests } from './agent-tests.js';
import { installAirlockHooks, startAirlockKernel } from './airlock-hooks.js';

// Gemini CLI's AfterTool report reaches the kernel's own hook endpoint (the sh client) without
// its tool name, so the kernel cannot read it: the call already ran, and the model must still
// read its real result. A refusal there ("Tool result blocked") would tell it the call failed.
describe('gemini with a report the kernel cannot read', { timeout: 300_000 }, () => {
  const { missing, hold } = agentTests('gemini');

  it.skipIf(missing)('the call ran, and the model reads its own output', async () => {
    const airlock = hold(await startAirlockKernel());
    await airlock.setProfile({ approval_mode: 'bypass' });
    const sandbox = hold(
      await createAgentSandbox('gemini', [
        { kind: 'shell', command: 'echo ran >> ran.log; echo output-of-the-call' },
      ]),
    );
    installAirlockHooks(sandbox, airlock, { client: 'sh' });
    const path = join(sandbox.home, '.gemini', 'settings.json');
    const settings = JSON.parse(readFileSync(path, 'utf8'));
    const report = settings.hooks.AfterTool[0].hooks[0];
    // The payload loses its tool name on the way to the hook client.
    report.command = `sed 's/"tool_name":/"tool_nam":/' | ${report.command}`;
    writeFileSync(path, JSON.stringify(settings, null, 2));
    const run = await runAgent(sandbox, { permissionMode: 'yolo' });
    expect(run.timedOut, run.stderr).toBe(false);
    expect(existsSync(join(sandbox.project, 'ran.log'))).toBe(true);
    const [output] = sandbox.server.toolOutputs();
    expect(output).toContain('output-of-the-call');
    expect(output).not.toContain('blocked');
  });
});
