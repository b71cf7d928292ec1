import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/** The built entry an agent runs (`pnpm run build` makes it before the tests run). */
const ENTRY = fileURLToPath(new URL('../../dist/bin/airlock-hook.js', import.meta.url));

const PRE_TOOL = JSON.stringify({
  session_id: 's1',
  hook_event_name: 'PreToolUse',
  tool_name: 'Bash',
  tool_input: { command: 'rm -rf build' },
});

/** A kernel that parks every call for a person, and counts what it was asked. */
let kernel: Server;
let kernelUrl = '';
let asked = 0;

beforeAll(async () => {
  kernel = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      asked += 1;
      response.setHeader('content-type', 'application/json');
      response.end(
        JSON.stringify({
          verdict: 'wait',
          reason: 'waiting for approval',
          run_id: 'run_1',
          conversation_id: 'conv_1',
          task_key: 't1',
          task_state: 'needs_approval',
          requires_user: false,
          reminders: [],
        }),
      );
    });
  });
  await new Promise<void>((resolve) => kernel.listen(0, '127.0.0.1', resolve));
  kernelUrl = `http://127.0.0.1:${(kernel.address() as AddressInfo).port}`;
});

afterAll(() => new Promise<void>((resolve) => kernel.close(() => resolve())));

/** Runs the codex hook with this stored config and flags; kills it after `limitMs` (the agent's timeout, shortened). */
function runCodexHook(
  stored: Record<string, unknown>,
  flags: string[],
  limitMs = 8000,
): Promise<{ stdout: string; exitCode: number | null; killed: boolean; ms: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'airlock-hooks-wait-'));
  const config = join(dir, 'hooks.json');
  writeFileSync(config, JSON.stringify({ url: kernelUrl, token: 'alk_agent_x', ...stored }));
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [ENTRY, 'codex', '--config', config, ...flags], {
      env: { PATH: process.env.PATH ?? '' },
    });
    let stdout = '';
    let killed = false;
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    const timer = setTimeout(() => {
      killed = true;
      child.kill('SIGKILL');
    }, limitMs);
    child.once('error', reject);
    child.once('close', (exitCode) => {
      clearTimeout(timer);
      resolve({ stdout, exitCode, killed, ms: Date.now() - started });
    });
    child.stdin.end(PRE_TOOL);
  });
}

describe('a wait the hook could not keep within the agent timeout', () => {
  it.each([
    ['a stored wait_ms that is text', { wait_ms: '3000' }, [], '"wait_ms" in', '(not "3000")'],
    [
      'a stored wait_ms past the hook timeout',
      { wait_ms: 200_000 },
      [],
      '"wait_ms" in',
      '(not 200000)',
    ],
    [
      'a --wait-ms that is not a number',
      {},
      ['--wait-ms', 'abc'],
      '--wait-ms must be',
      '(not "abc")',
    ],
    [
      'a --wait-ms past the hook timeout',
      {},
      ['--wait-ms', '115000'],
      '--wait-ms must be',
      '(not 115000)',
    ],
  ])(
    '%s: the call is refused at once in Codex format, naming the setting; the kernel is not asked',
    async (_, stored, flags, setting, given) => {
      asked = 0;
      const run = await runCodexHook(stored, flags);
      expect(run.killed).toBe(false);
      expect(run.exitCode).toBe(0);
      const answer = JSON.parse(run.stdout) as {
        hookSpecificOutput: {
          hookEventName: string;
          permissionDecision: string;
          permissionDecisionReason: string;
        };
      };
      expect(answer.hookSpecificOutput).toMatchObject({
        hookEventName: 'PreToolUse',
        permissionDecision: 'deny',
      });
      const reason = answer.hookSpecificOutput.permissionDecisionReason;
      expect(reason).toContain('Airlock could not decide this call, so it was not run');
      expect(reason).toContain(setting);
      expect(reason).toContain(given);
      expect(asked).toBe(0);
    },
  );

  it('a valid wait is kept: the parked call is refused with the waiting reason once it runs out', async () => {
    asked = 0;
    const run = await runCodexHook({ wait_ms: 1000 }, []);
    expect(run.killed).toBe(false);
    const answer = JSON.parse(run.stdout) as {
      hookSpecificOutput: { permissionDecision: string; permissionDecisionReason: string };
    };
    expect(answer.hookSpecificOutput.permissionDecision).toBe('deny');
    expect(answer.hookSpecificOutput.permissionDecisionReason).toContain(
      "this call waits for a person's approval",
    );
    expect(asked).toBeGreaterThan(0);
  });
});
