import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Deployment, deploy } from '../testing/harness.js';
import { makeFixture } from '../testing/run-fixtures.js';
import { backends } from '../testing/stores.js';

/**
 * A body sent with a content coding: the kernel decodes none, so REST and
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

  it('reads a body whose coding is identity as sent', async () => {
    const answer = await post(`${task}/deny`, JSON.stringify({ reason: 'no' }), 'identity');
    expect(answer.status).toBe(200);
    expect((await d.member.get(task)).body.state).toBe('failed');
  });
});
