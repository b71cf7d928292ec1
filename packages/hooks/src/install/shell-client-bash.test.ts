import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { type AddressInfo, connect, createServer as createNetServer, type Socket } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { installHooks } from './install.js';
import { freshHome, runInstalled } from './test-home.js';

const sandbox = () => freshHome('bash');

describe('the bash hook client beyond the shared cases', () => {
  /** Installs the bash client for Claude Code against `target`, with its time limit set to `maxTime` s. */
  function installBash(target: string, maxTime: number): string {
    const { home, env } = sandbox();
    const { command } = installHooks({
      agent: 'claude-code',
      scope: { kind: 'user' },
      env,
      url: target,
      token: 'alk_agent_bash',
      client: 'bash',
    });
    const config = join(home, '.airlock', 'hooks-claude-code.curl');
    writeFileSync(
      config,
      readFileSync(config, 'utf8').replace(/max-time = \d+/, `max-time = ${maxTime}`),
    );
    return command;
  }

  /**
   * Runs `use` with the bash client installed against a loopback server whose
   * connections `onConnection` takes, its time limit set to `maxTime` s; the server closes after.
   */
  async function againstServer<T>(
    onConnection: (socket: Socket) => void,
    maxTime: number,
    use: (command: string) => Promise<T>,
  ): Promise<T> {
    const server = createNetServer(onConnection);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const port = (server.address() as AddressInfo).port;
      return await use(installBash(`http://127.0.0.1:${port}`, maxTime));
    } finally {
      server.close();
    }
  }

  it('refuses a tool call when the kernel accepts the connection but never answers', async () => {
    const run = await againstServer(
      (socket) => socket.on('data', () => {}),
      1,
      (command) => runInstalled(command, '{"session_id":"s","hook_event_name":"PreToolUse"}'),
    );
    expect(run.status).toBe(2);
    expect(run.stderr).toContain('the kernel did not answer within 1 s');
  });

  // Its headers were found by a pattern removal over the whole answer, whose time grows with the
  // square of its length: an answer of a few MiB with no blank line held the client for minutes,
  // past its own limit (a signal waits for the removal to end) and the agent's 120 s, after which
  // Codex and Gemini CLI run the call.
  it('refuses at once an answer whose headers do not end within 64 KiB', async () => {
    const endless = (socket: Socket) => {
      socket.on('error', () => {});
      socket.once('data', () => {
        socket.end(`HTTP/1.1 200 OK\r\nX-Pad: ${'x'.repeat(4 << 20)}`);
      });
    };
    const run = await againstServer(endless, 30, (command) =>
      runInstalled(command, '{"session_id":"s","hook_event_name":"PreToolUse"}'),
    );
    expect(run.status).toBe(2);
    expect(run.stderr).toContain("the kernel's headers did not end within 65536 bytes");
  }, 120_000);

  // Reading an answer costs about a second per MiB here: one of hundreds of MiB outlasted the
  // agent's hook timeout. An answer past 8 MiB is refused, a decision in it or not.
  it('refuses an answer longer than 8 MiB, though it holds a decision', async () => {
    const decision = '{"hookSpecificOutput":{"permissionDecision":"allow"},"pad":"';
    const body = `${decision}${'x'.repeat((8 << 20) - decision.length)}"}`;
    const long = (socket: Socket) => {
      // The client stops reading past its limit and closes: the rest of the answer is reset.
      socket.on('error', () => {});
      socket.once('data', () => {
        socket.end(`HTTP/1.1 200 OK\r\nContent-Length: ${body.length}\r\n\r\n${body}`);
      });
    };
    const run = await againstServer(long, 60, (command) =>
      runInstalled(command, '{"session_id":"s","hook_event_name":"PreToolUse"}'),
    );
    expect(run.stderr).toContain("the kernel's answer is longer than 8388608 bytes");
    expect(run.status).toBe(2);
  }, 120_000);

  it('refuses a tool call within its time limit when the connection itself never completes', async () => {
    // A kernel whose listen queue is full (its event loop stuck, here in a child process that spins)
    // drops the next SYN, as a host behind a firewall that drops packets does: connect() waits
    // about two minutes, past the agent's own hook timeout.
    const stuck = spawn(process.execPath, [
      '-e',
      `const server = require('node:net').createServer();
       server.listen({ port: 0, host: '127.0.0.1', backlog: 1 }, () => {
         console.log(server.address().port);
         const until = Date.now() + 120000;
         while (Date.now() < until) {}
       });`,
    ]);
    const fillers: Socket[] = [];
    try {
      const port = Number(
        await new Promise<string>((resolve) => stuck.stdout.once('data', resolve)),
      );
      for (let i = 0; i < 4; i += 1) fillers.push(connect(port, '127.0.0.1').on('error', () => {}));
      const command = installBash(`http://127.0.0.1:${port}`, 1);
      const started = Date.now();
      const run = await runInstalled(command, '{"session_id":"s","hook_event_name":"PreToolUse"}');
      expect(run.status).toBe(2);
      expect(run.stderr).toBe(
        'Airlock could not decide this call, so it was not run: the kernel did not answer within 1 s\n',
      );
      expect(Date.now() - started).toBeLessThan(30_000);
    } finally {
      for (const socket of fillers) socket.destroy();
      stuck.kill('SIGKILL');
    }
  });

  /** Runs the bash client against a loopback server that answers every request with `raw` bytes, then closes. */
  function againstRaw(raw: string) {
    return againstServer(
      (socket) => {
        socket.once('data', () => socket.end(raw));
      },
      5,
      (command) => runInstalled(command, '{"session_id":"s","hook_event_name":"PreToolUse"}'),
    );
  }

  it('refuses a long tool call the kernel cuts off (a 413, then a close) instead of dying of SIGPIPE', async () => {
    const payload = JSON.stringify({
      session_id: 's',
      hook_event_name: 'PreToolUse',
      tool_name: 'Write',
      tool_input: { content: 'x'.repeat(5 << 20) },
    });
    // As a kernel refuses a body past its limit: it answers, closes its side, then drops the rest.
    const cutOff = (socket: Socket) => {
      socket.once('data', () => {
        socket.pause();
        socket.end('HTTP/1.1 413 Payload Too Large\r\n\r\n{"error":{"code":"payload_too_large"}}');
        setTimeout(() => socket.destroy(), 20);
      });
    };
    await againstServer(cutOff, 5, async (command) => {
      for (let i = 0; i < 3; i += 1) {
        const run = await runInstalled(command, payload);
        expect(run.status).toBe(2);
        expect(run.stderr).toContain('Airlock could not decide this call, so it was not run');
      }
    });
  });

  it('refuses a long tool call within its time limit when the kernel never reads it', async () => {
    const payload = JSON.stringify({
      session_id: 's',
      hook_event_name: 'PreToolUse',
      tool_input: { content: 'x'.repeat(10 << 20) },
    });
    const started = Date.now();
    const run = await againstServer(
      (socket) => socket.pause(),
      1,
      (command) => runInstalled(command, payload),
    );
    expect(run.status).toBe(2);
    // Only the reason: killing the background writer prints no job report.
    expect(run.stderr).toBe(
      'Airlock could not decide this call, so it was not run: the kernel did not answer within 1 s\n',
    );
    expect(Date.now() - started).toBeLessThan(30_000);
  });

  it('refuses a tool call when the answer ends before its headers do', async () => {
    const run = await againstRaw('HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n');
    expect(run.status).toBe(2);
    expect(run.stderr).toContain("the kernel's answer ended before its headers did");
  });

  it('refuses a tool call answered in chunks, and reads headers in any case', async () => {
    const chunked = await againstRaw(
      'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: Chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n',
    );
    expect(chunked.status).toBe(2);
    expect(chunked.stderr).toContain('the kernel answered in chunks');
    // A body that names chunks is not a chunked answer.
    const named = '{"decision":"allow","reason":"transfer-encoding: chunked"}';
    const plain = await againstRaw(
      `HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: ${named.length}\r\n\r\n${named}`,
    );
    expect(plain.stderr).toBe('');
    expect(plain.stdout).toBe('{"decision":"allow","reason":"transfer-encoding: chunked"}\n');
  });

  it('refuses an answer cut short, or one that does not say how long it is', async () => {
    const deny = '{"hookSpecificOutput":{"permissionDecision":"deny"}}';
    // The kernel closed the connection partway through the answer it announced.
    const cut = await againstRaw(
      `HTTP/1.1 200 OK\r\nContent-Length: ${deny.length + 40}\r\n\r\n${deny.slice(0, 30)}"}`,
    );
    expect(cut.status).toBe(2);
    expect(cut.stdout).toBe('');
    expect(cut.stderr).toContain("the kernel's answer is");
    const unsaid = await againstRaw(`HTTP/1.0 200 OK\r\n\r\n${deny}`);
    expect(unsaid.status).toBe(2);
    expect(unsaid.stderr).toContain("the kernel's answer has no Content-Length");
  });

  it('refuses a tool call on an error status, with the status and body in the reason', async () => {
    const run = await againstRaw(
      'HTTP/1.1 503 Service Unavailable\r\n\r\n{"code":"store_unavailable"}',
    );
    expect(run.status).toBe(2);
    expect(run.stderr).toContain(
      `the kernel answered 'HTTP/1.1 503 Service Unavailable': {"code":"store_unavailable"}`,
    );
  });

  it('goes through curl for an https:// kernel URL', async () => {
    const command = installBash('https://127.0.0.1:9', 5);
    const run = await runInstalled(command, '{"session_id":"s","hook_event_name":"PreToolUse"}');
    expect(run.status).toBe(2);
    expect(run.stderr).toContain('curl exit 7');
  });
});
