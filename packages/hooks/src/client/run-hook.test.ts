import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claudeCode } from '../agents/claude-code.js';
import { codex } from '../agents/codex.js';
import { gemini } from '../agents/gemini.js';
import { runHook } from './run-hook.js';

/** A kernel that acknowledges every event with a reminder, and keeps the bodies it was sent. */
let kernel: Server;
let config = '';
const bodies: Record<string, unknown>[] = [];

beforeAll(async () => {
  kernel = createServer((request, response) => {
    let body = '';
    request.setEncoding('utf8');
    request.on('data', (chunk) => {
      body += chunk;
    });
    request.on('end', () => {
      bodies.push(JSON.parse(body) as Record<string, unknown>);
      response.setHeader('content-type', 'application/json');
      response.end(
        JSON.stringify({
          verdict: 'ack',
          reason: null,
          run_id: 'run_1',
          conversation_id: 'conv_1',
          task_key: null,
          task_state: null,
          requires_user: false,
          reminders: ['Reminder: the build folder is shared'],
        }),
      );
    });
  });
  await new Promise<void>((resolve) => kernel.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(kernel.address() as AddressInfo).port}`;
  config = join(mkdtempSync(join(tmpdir(), 'airlock-hooks-run-')), 'hooks.json');
  writeFileSync(config, JSON.stringify({ url, token: 'alk_agent_x' }));
});

afterAll(() => new Promise<void>((resolve) => kernel.close(() => resolve())));

const report = (eventName: string) =>
  JSON.stringify({
    session_id: 's1',
    hook_event_name: eventName,
    tool_name: 'Bash',
    tool_input: { command: 'make' },
    tool_use_id: 'toolu_1',
    error: 'exit 2',
  });

describe("an answer echoes the agent's own event name", () => {
  it.each([
    ['claude-code', claudeCode, 'PostToolUseFailure'],
    ['claude-code', claudeCode, 'PostToolUse'],
    ['codex', codex, 'PostToolUse'],
  ] as const)(
    '%s %s: answered under the same name; the kernel is sent its own event only',
    async (_, protocol, eventName) => {
      bodies.length = 0;
      const output = await runHook({
        protocol,
        input: report(eventName),
        configPath: config,
        env: { PATH: '/nonexistent' },
      });
      expect(output.exitCode).toBe(0);
      expect(JSON.parse(output.stdout)).toEqual({
        hookSpecificOutput: {
          hookEventName: eventName,
          additionalContext: 'Reminder: the build folder is shared',
        },
      });
      expect(bodies).toHaveLength(1);
      expect(bodies[0]).toMatchObject({ event: 'post_tool', tool_use_id: 'toolu_1' });
      expect(bodies[0]).not.toHaveProperty('hook_event_name');
    },
  );
});

describe('a hooks configuration of the wrong shape', () => {
  it.each([
    [
      'a url that is not text',
      '{"url": 4100, "token": "alk_agent_x"}',
      /"url" in .* is not a string/,
    ],
    [
      'a token that is not text',
      '{"url": "http://127.0.0.1:9", "token": 7}',
      /"token" in .* is not a string/,
    ],
    ['not an object', 'null', /is not a JSON object/],
  ])(
    '%s: a tool call is refused, a stop or a prompt passes (never exit 2)',
    async (_, text, why) => {
      const path = join(mkdtempSync(join(tmpdir(), 'airlock-hooks-badconfig-')), 'hooks.json');
      writeFileSync(path, text);
      const run = (payload: Record<string, unknown>) =>
        runHook({
          protocol: claudeCode,
          input: JSON.stringify({ session_id: 's1', ...payload }),
          configPath: path,
          env: { PATH: '/nonexistent' },
        });
      const pre = await run({ hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: {} });
      expect(pre.exitCode).toBe(0);
      const decision = JSON.parse(pre.stdout).hookSpecificOutput;
      expect(decision.permissionDecision).toBe('deny');
      expect(decision.permissionDecisionReason).toMatch(why);
      for (const hook_event_name of ['Stop', 'UserPromptSubmit']) {
        const passed = await run({ hook_event_name, prompt: 'hi' });
        expect(passed.exitCode).toBe(0);
        expect(JSON.parse(passed.stdout)).toEqual({
          systemMessage: expect.stringMatching(/^Airlock could not record this event: /),
        });
      }
    },
  );
});

// An entry copied from another agent's settings runs the client for that agent: the event is not
// one its protocol handles, and an answer of nothing lets the agent run the call.
describe("another agent's tool check, from an entry copied across agents", () => {
  const payload = (eventName: string) =>
    JSON.stringify({
      session_id: 's1',
      hook_event_name: eventName,
      tool_name: 'run_shell_command',
      tool_input: { command: 'rm -r build' },
    });

  it.each([
    ['claude-code', claudeCode, 'BeforeTool'],
    ['codex', codex, 'BeforeTool'],
    ['gemini', gemini, 'PreToolUse'],
  ] as const)(
    'is refused by the %s client (exit 2), never passed',
    async (_name, protocol, event) => {
      const sent = bodies.length;
      const output = await runHook({ protocol, input: payload(event), configPath: config });
      expect(output.exitCode).toBe(2);
      expect(output.stdout).toBe('');
      expect(output.stderr).toContain(`another agent's tool check (${event})`);
      expect(bodies.length).toBe(sent);
    },
  );

  it.each([
    ['claude-code', claudeCode, 'Notification'],
    ['gemini', gemini, 'AfterModel'],
    ['gemini', gemini, 'Stop'],
  ] as const)(
    'an event of no tool check the %s client does not handle still passes',
    async (_name, protocol, event) => {
      const output = await runHook({ protocol, input: payload(event), configPath: config });
      expect(output).toEqual({ stdout: '', stderr: '', exitCode: 0 });
    },
  );
});
