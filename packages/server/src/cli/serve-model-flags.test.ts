import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { waitFor } from '../testing/harness.js';
import { type KernelProcess, startKernelProcess } from '../testing/kernel-process.js';

/** A chat-completions endpoint whose every answer asks for two calls of `read`. */
async function startTwoCallModel() {
  const message = {
    role: 'assistant',
    content: null,
    tool_calls: ['a', 'b'].map((id) => ({
      id,
      type: 'function',
      function: { name: 'read', arguments: '{}' },
    })),
  };
  const server: Server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ choices: [{ index: 0, finish_reason: 'tool_calls', message }] }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1` };
}

describe('airlock serve --model-max-calls and --model-base-urls', () => {
  let model: Awaited<ReturnType<typeof startTwoCallModel>> | undefined;
  let kernel: KernelProcess | undefined;
  let root: string | undefined;
  afterEach(async () => {
    model?.server.close();
    await kernel?.stop();
    if (root) rmSync(root, { recursive: true, force: true });
    model = kernel = root = undefined;
  });

  it('reaches the openai provider: an answer asking for more calls fails the run', async () => {
    model = await startTwoCallModel();
    root = mkdtempSync(join(tmpdir(), 'airlock-model-max-calls-'));
    kernel = await startKernelProcess({
      dataDir: join(root, 'store'),
      args: ['--model-max-calls', '1'],
      env: { OPENAI_BASE_URL: model.url, OPENAI_API_KEY: 'sk-test', OPENAI_MODEL: 'm' },
    });
    const runs = `${kernel.url}/api/v1/workspaces/${kernel.workspaceId}/runs`;
    const headers = {
      authorization: `Bearer ${kernel.tokens.member}`,
      'content-type': 'application/json',
    };
    const body = JSON.stringify({
      approval_mode: 'bypass',
      input: 'hi',
      provider: { kind: 'openai' },
    });
    const created = (await (await fetch(runs, { method: 'POST', headers, body })).json()) as {
      id: string;
    };
    const ended = await waitFor(
      async () => {
        const run = (await (await fetch(`${runs}/${created.id}`, { headers })).json()) as {
          state: string;
        };
        return run.state !== 'running' && run;
      },
      { timeoutMs: 60_000 },
    );
    expect(ended).toMatchObject({ state: 'failed', error: { code: 'provider_too_many_calls' } });
  }, 120_000);

  it('AIRLOCK_MODEL_BASE_URLS admits the base URLs it lists and no other', async () => {
    model = await startTwoCallModel();
    root = mkdtempSync(join(tmpdir(), 'airlock-model-base-urls-'));
    kernel = await startKernelProcess({
      dataDir: join(root, 'store'),
      env: {
        OPENAI_BASE_URL: 'http://127.0.0.1:9/v1',
        OPENAI_MODEL: 'm',
        AIRLOCK_MODEL_BASE_URLS: `http://127.0.0.1:1/unused, ${model.url}/`,
      },
    });
    const runs = `${kernel.url}/api/v1/workspaces/${kernel.workspaceId}/runs`;
    const headers = {
      authorization: `Bearer ${kernel.tokens.agent}`,
      'content-type': 'application/json',
    };
    const create = (baseUrl: string) =>
      fetch(runs, {
        method: 'POST',
        headers,
        body: JSON.stringify({
          approval_mode: 'ask',
          input: 'hi',
          provider: { kind: 'openai', base_url: baseUrl },
        }),
      });
    expect((await create(model.url)).status).toBe(201);
    const refused = await create('http://127.0.0.1:2/v1');
    expect(refused.status).toBe(422);
    expect(await refused.json()).toMatchObject({
      error: {
        code: 'invalid_configuration',
        problems: [{ code: 'base_url_not_allowed', pointer: '/provider/base_url' }],
      },
    });
  }, 120_000);
});
