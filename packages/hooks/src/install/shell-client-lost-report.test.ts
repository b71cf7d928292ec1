import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installHooks } from './install.js';
import { freshHome, runInstalled } from './test-home.js';

/**
 * A stand-in for the kernel's hook endpoint with its 16 MiB body limit: a longer body is
 * answered 413 from its declared length and the connection closed, as the kernel does; any
 * other is answered with `reply`.
 */
const LIMIT = 16 * 1024 * 1024;
let reply = '{}';
const server = createServer((request, response) => {
  if (Number(request.headers['content-length']) > LIMIT) {
    const body = JSON.stringify({
      error: { code: 'payload_too_large', detail: `the body limit is ${LIMIT} bytes` },
    });
    response.writeHead(413, {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(body),
      connection: 'close',
    });
    response.end(body);
    return;
  }
  request.resume();
  request.on('end', () => {
    response.writeHead(200, {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(reply),
    });
    response.end(reply);
  });
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

describe.each(['sh', 'bash'] as const)(
  'a report the kernel cannot record (--client %s)',
  (client) => {
    const command = () =>
      installHooks({
        agent: 'claude-code',
        scope: { kind: 'user' },
        env: freshHome(`lost-${client}`).env,
        url,
        token: 'alk_agent_lost',
        client,
      }).command;

    // Claude Code's PostToolUse of an Edit carries the whole file it edited (originalFile).
    it('a PostToolUse over the body limit passes with a note the user sees, not silently', async () => {
      const payload = JSON.stringify({
        session_id: 's1',
        hook_event_name: 'PostToolUse',
        tool_name: 'Edit',
        tool_input: { file_path: '/repo/big.json', old_string: 'a', new_string: 'b' },
        tool_response: { originalFile: 'x'.repeat(LIMIT + 1024) },
        tool_use_id: 'toolu_1',
      });
      const run = await runInstalled(command(), payload);
      expect(run.status).toBe(0);
      const answer = JSON.parse(run.stdout) as { systemMessage?: string };
      expect(answer.systemMessage).toMatch(/^Airlock could not record this event: .*413/);
    }, 120_000);

    it("the note is a JSON string whatever the kernel's answer held", async () => {
      reply = 'not "json"\\ at all\u0001';
      const run = await runInstalled(
        command(),
        '{"session_id":"s1","hook_event_name":"UserPromptSubmit","prompt":"hi"}',
      );
      expect(run.status).toBe(0);
      const answer = JSON.parse(run.stdout) as { systemMessage?: string };
      expect(answer.systemMessage).toContain("the answer is not the kernel's");
      expect(answer.systemMessage).toContain('not json at all');
      // A tool check is still refused outright, with nothing on stdout for the agent to read.
      const tool = await runInstalled(
        command(),
        '{"session_id":"s1","hook_event_name":"PreToolUse"}',
      );
      expect(tool.status).toBe(2);
      expect(tool.stdout).toBe('');
    });
  },
);
