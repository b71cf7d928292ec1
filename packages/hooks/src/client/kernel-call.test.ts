import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { KernelUnavailable, sendEvent } from './kernel-call.js';

/** A loopback port nothing listens on (taken, then released). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('a kernel the hook client cannot reach', () => {
  it('is named in the refusal without the password its URL holds', async () => {
    const url = `http://ci:hunter2@127.0.0.1:${await closedPort()}`;
    const event = { agent: 'claude-code', session_id: 's', event: 'pre_tool' } as const;
    const refused = await sendEvent({ url, token: 'alk_agent_x' }, event, 5_000).catch(
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(KernelUnavailable);
    const message = (refused as KernelUnavailable).message;
    expect(message).toMatch(
      /^cannot reach the kernel at http:\/\/127\.0\.0\.1:\d+ \(ECONNREFUSED\)$/,
    );
    expect(message).not.toContain('hunter2');
  });
});

/** A kernel older than `cwd`: refuses it as an unknown key of the input, answers anything else. */
async function kernelWithoutCwd(): Promise<{ url: string; bodies: string[]; close(): void }> {
  const { createServer: createHttpServer } = await import('node:http');
  const bodies: string[] = [];
  const server = createHttpServer((req, res) => {
    let text = '';
    req.on('data', (chunk: Buffer) => {
      text += chunk.toString('utf8');
    });
    req.on('end', () => {
      bodies.push(text);
      const event = JSON.parse(text) as Record<string, unknown>;
      res.setHeader('content-type', 'application/json');
      if ('cwd' in event || 'other' in event) {
        const key = 'cwd' in event ? 'cwd' : 'other';
        res.statusCode = 400;
        res.end(
          JSON.stringify({
            error: {
              code: 'invalid_input',
              detail: `/input: Unrecognized key: "${key}"`,
              problems: [{ code: 'unrecognized_keys', pointer: '/input', message: key }],
            },
          }),
        );
        return;
      }
      res.end(JSON.stringify({ verdict: 'allow', reason: null, reminders: [] }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}`, bodies, close: () => server.close() };
}

describe('a kernel older than the working directory field', () => {
  it('is asked again without cwd, once, and its answer stands', async () => {
    const kernel = await kernelWithoutCwd();
    try {
      const event = {
        agent: 'claude-code',
        session_id: 's',
        event: 'pre_tool',
        cwd: '/repo/secrets',
      } as const;
      const answer = await sendEvent({ url: kernel.url, token: 'alk_agent_x' }, event, 5_000);
      expect(answer.verdict).toBe('allow');
      expect(kernel.bodies).toHaveLength(2);
      expect(JSON.parse(kernel.bodies[1]!)).not.toHaveProperty('cwd');
    } finally {
      kernel.close();
    }
  });

  it('is not asked again when a kernel that knows cwd refuses its value', async () => {
    const { createServer: createHttpServer } = await import('node:http');
    let requests = 0;
    const server = createHttpServer((req, res) => {
      requests += 1;
      req.resume();
      res.statusCode = 400;
      res.setHeader('content-type', 'application/json');
      res.end(
        JSON.stringify({
          error: {
            code: 'invalid_input',
            detail: '/input/cwd: Too big: expected string to have <=4096 characters',
          },
        }),
      );
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    try {
      const event = {
        agent: 'claude-code',
        session_id: 's',
        event: 'pre_tool',
        cwd: '/x',
      } as const;
      const refused = await sendEvent(
        { url: `http://127.0.0.1:${port}`, token: 'alk_agent_x' },
        event,
        5_000,
      ).catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(KernelUnavailable);
      expect(requests).toBe(1);
    } finally {
      server.close();
    }
  });

  it('is not asked again for another refusal: that one stands', async () => {
    const kernel = await kernelWithoutCwd();
    try {
      const event = { agent: 'claude-code', session_id: 's', event: 'pre_tool', other: 1 };
      const refused = await sendEvent(
        { url: kernel.url, token: 'alk_agent_x' },
        event as never,
        5_000,
      ).catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(KernelUnavailable);
      expect(kernel.bodies).toHaveLength(1);
    } finally {
      kernel.close();
    }
  });
});
