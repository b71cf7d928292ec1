import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claudeCode } from '../agents/claude-code.js';
import { codex } from '../agents/codex.js';
import { gemini } from '../agents/gemini.js';
import { ANSWER_BYTES_MAX, KernelUnavailable, sendEvent } from './kernel-call.js';
import { runHook } from './run-hook.js';

/** An allow whose reason pads it past the cap: a kernel's own answers are a few KiB. */
const OVERSIZED_ALLOW = JSON.stringify({
  verdict: 'allow',
  reason: 'x'.repeat(ANSWER_BYTES_MAX + 1024),
  run_id: 'run_1',
  conversation_id: 'conv_1',
  task_key: null,
  task_state: null,
  requires_user: false,
  reminders: [],
});

/** A kernel that answers an oversized allow on /big, and on /endless 200 with a body that never ends. */
let kernel: Server;
let url = '';
let endlessClosed = 0;

beforeAll(async () => {
  kernel = createServer((request, response) => {
    request.resume();
    response.setHeader('content-type', 'application/json');
    if (request.url?.startsWith('/big/')) {
      response.end(OVERSIZED_ALLOW);
      return;
    }
    // Chunked, no length: the answer goes on for as long as the client reads it.
    const chunk = Buffer.alloc(64 * 1024, ' ');
    response.write('{"verdict":"allow","reason":"');
    const pump = () => {
      while (!response.destroyed && response.write(chunk)) {}
    };
    response.on('drain', pump);
    response.on('close', () => {
      endlessClosed += 1;
    });
    pump();
  });
  await new Promise<void>((resolve) => kernel.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(kernel.address() as AddressInfo).port}`;
});

afterAll(() => {
  kernel.closeAllConnections();
  return new Promise<void>((resolve) => kernel.close(() => resolve()));
});

const preTool = { agent: 'claude-code', session_id: 's', event: 'pre_tool' } as const;

describe('a kernel answer past the cap', () => {
  it('is refused, not read as the allow it holds', async () => {
    const refused = await sendEvent({ url: `${url}/big`, token: 'alk_agent_x' }, preTool, 60_000)
      .then((answer) => answer.verdict)
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(KernelUnavailable);
    expect((refused as KernelUnavailable).code).toBe('answer_too_large');
    expect((refused as KernelUnavailable).message).toContain(`${ANSWER_BYTES_MAX} bytes`);
  });

  // Before the cap, only the request's deadline (a minute here) ended the read.
  it('that never ends is cut at the cap, not read until the deadline', async () => {
    const closedBefore = endlessClosed;
    const refused = await sendEvent(
      { url: `${url}/endless`, token: 'alk_agent_x' },
      preTool,
      600_000,
    ).catch((error: unknown) => error);
    expect((refused as KernelUnavailable).code).toBe('answer_too_large');
    // The connection is dropped, so the kernel stops writing.
    await expect.poll(() => endlessClosed, { timeout: 10_000 }).toBeGreaterThan(closedBefore);
  }, 30_000);

  it.each([
    ['claude-code', claudeCode, 'PreToolUse'],
    ['codex', codex, 'PreToolUse'],
    ['gemini', gemini, 'BeforeTool'],
  ] as const)(
    "%s: the tool call is refused in the agent's own format",
    async (_, protocol, name) => {
      const config = join(mkdtempSync(join(tmpdir(), 'airlock-hooks-cap-')), 'hooks.json');
      writeFileSync(config, JSON.stringify({ url: `${url}/big`, token: 'alk_agent_x' }));
      const output = await runHook({
        protocol,
        input: JSON.stringify({
          session_id: 's1',
          hook_event_name: name,
          tool_name: protocol === gemini ? 'run_shell_command' : 'Bash',
          tool_input: { command: 'make' },
          tool_use_id: 'toolu_1',
        }),
        configPath: config,
        env: { PATH: '/nonexistent' },
      });
      const denied = `${output.stdout}${output.stderr}`;
      expect(denied).toContain('could not decide this call');
      expect(denied).toContain('larger than');
      expect(denied).not.toContain('"allow"');
      expect(denied).toMatch(/"deny"|"block"/);
    },
  );
});
