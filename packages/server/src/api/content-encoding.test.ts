import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Deployment, deploy } from '../testing/harness.js';
import { openRaw } from '../testing/raw-connection.js';
import { makeFixture } from '../testing/run-fixtures.js';
import { backends } from '../testing/stores.js';

/**
 * A body sent with a content coding, or a transfer coding besides chunked:
 * the kernel decodes none, so REST and
 * tRPC refuse it 415 before reading it (never as JSON that is not UTF-8, nor
 * a mislabelled body taken as sent), and change nothing.
 */

const [sqlite] = await backends();

describe('a body sent with Content-Encoding', () => {
  let d: Deployment;
  let task: string;
  beforeAll(async () => {
    d = await deploy(sqlite!);
    const run = await makeFixture(d, 'waiting');
    task = `${d.ws}/runs/${run.runId}/tasks/${run.taskKey}`;
  });
  afterAll(async () => {
    await d.close();
  });

  function post(path: string, body: Buffer | string, encoding: string): Promise<Response> {
    return fetch(`${d.url}${path}`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${d.tokens.member}`,
        'content-type': 'application/json',
        'content-encoding': encoding,
      },
      body: typeof body === 'string' ? body : new Uint8Array(body),
    });
  }

  async function stillParked(): Promise<void> {
    expect((await d.member.get(task)).body.state).toBe('needs_approval');
  }

  it('is refused 415 over REST, compressed or only labelled so, and changes nothing', async () => {
    const deny = JSON.stringify({ reason: 'no' });
    for (const [body, encoding] of [
      [gzipSync(deny), 'gzip'],
      [deny, 'br'],
      [deny, 'identity, gzip'],
    ] as const) {
      const answer = await post(`${task}/deny`, body, encoding);
      expect(answer.status).toBe(415);
      const { error } = (await answer.json()) as { error: { code: string; detail: string } };
      expect(error.code).toBe('unsupported_media_type');
      expect(error.detail).toContain('Content-Encoding');
    }
    await stillParked();
  });

  it('is refused 415 over tRPC, as over REST', async () => {
    const input = JSON.stringify({ workspace_id: d.workspaceId, run_id: 'x', task_key: 't1' });
    const answer = await post('/trpc/decisions.deny', gzipSync(input), 'gzip');
    expect(answer.status).toBe(415);
    const body = (await answer.json()) as { error: { data: { error: { code: string } } } };
    expect(body.error.data.error.code).toBe('unsupported_media_type');
    await stillParked();
  });

  it('is refused 415 when a transfer coding besides chunked (which Node leaves coded) is named', async () => {
    const connection = await openRaw(d.url);
    const body = JSON.stringify({ reason: 'no' });
    connection.socket.write(
      `POST ${task}/deny HTTP/1.1\r\nhost: x\r\nauthorization: Bearer ${d.tokens.member}\r\n` +
        'content-type: application/json\r\ntransfer-encoding: gzip, chunked\r\n\r\n' +
        `${Buffer.byteLength(body).toString(16)}\r\n${body}\r\n0\r\n\r\n`,
    );
    // The answer is read whole (its JSON ends the body), whether or not the connection stays open.
    await new Promise<void>((resolve) => {
      const whole = () => /\r\n\r\n\{.*\}\}$/s.test(connection.received());
      if (whole()) resolve();
      connection.socket.on('data', () => {
        if (whole()) resolve();
      });
      void connection.closed.then(() => resolve());
    });
    connection.socket.destroy();
    const answer = connection.received();
    expect(answer).toMatch(/^HTTP\/1\.1 415/);
    expect(answer).toContain('"code":"unsupported_media_type"');
    expect(answer).toContain('Transfer-Encoding gzip');
    await stillParked();
  });

  it('reads a body whose coding is identity as sent', async () => {
    const answer = await post(`${task}/deny`, JSON.stringify({ reason: 'no' }), 'identity');
    expect(answer.status).toBe(200);
    expect((await d.member.get(task)).body.state).toBe('failed');
  });
});
