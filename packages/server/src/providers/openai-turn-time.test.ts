import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type Deployment, deploy, waitFor } from '../testing/harness.js';
import { type KernelProcess, startKernelProcess } from '../testing/kernel-process.js';
import { backends } from '../testing/stores.js';

const [sqlite] = await backends();

/** A chat-completions endpoint that reads each request and never answers it. */
async function startSilentModel() {
  const held: IncomingMessage[] = [];
  const server: Server = createServer((req) => {
    held.push(req);
    req.resume();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    asked: () => held.length,
    close() {
      server.closeAllConnections();
      server.close();
    },
  };
}

describe("the openai provider's round time limit (--model-timeout)", () => {
  let model: Awaited<ReturnType<typeof startSilentModel>> | undefined;
  let d: Deployment | undefined;
  let kernel: KernelProcess | undefined;
  let root: string | undefined;
  afterEach(async () => {
    // The model first: a kernel's stop waits for the round it holds.
    model?.close();
    await d?.close();
    await kernel?.stop();
    if (root) rmSync(root, { recursive: true, force: true });
    d = kernel = model = root = undefined;
  });

  it("holds the run's model turn past a limit longer than two minutes, so no other process takes it over mid-round", async () => {
    model = await startSilentModel();
    const timeoutMs = 10 * 60_000;
    d = await deploy(sqlite!, {
      openai: { baseUrl: model.url, apiKey: 'sk-test', model: 'm', timeoutMs },
    });
    const created = await d.member.post(`${d.ws}/runs`, {
      approval_mode: 'bypass',
      input: 'hello',
      provider: { kind: 'openai' },
    });
    await waitFor(async () => model!.asked() === 1);
    const askedAt = d.airlock.store.now();
    const run = await d.airlock.store.db
      .selectFrom('runs')
      .select(['model_lease_until', 'state'])
      .where('id', '=', created.body.id)
      .executeTakeFirstOrThrow();
    expect(run.state).toBe('running');
    // Held for the whole limit and then some; before, the lease was two minutes whatever the limit.
    expect(run.model_lease_until! - askedAt).toBeGreaterThan(timeoutMs);
  });

  it('airlock serve --model-timeout 1s fails a round the model does not answer, instead of waiting two minutes', async () => {
    model = await startSilentModel();
    root = mkdtempSync(join(tmpdir(), 'airlock-model-timeout-'));
    kernel = await startKernelProcess({
      dataDir: join(root, 'store'),
      args: ['--model-timeout', '1s'],
      env: { OPENAI_BASE_URL: model.url, OPENAI_API_KEY: 'sk-test', OPENAI_MODEL: 'm' },
    });
    const runs = `${kernel.url}/api/v1/workspaces/${kernel.workspaceId}/runs`;
    const headers = {
      authorization: `Bearer ${kernel.tokens.member}`,
      'content-type': 'application/json',
    };
    const created = (await (
      await fetch(runs, {
        method: 'POST',
        headers,
        body: JSON.stringify({
          approval_mode: 'bypass',
          input: 'hi',
          provider: { kind: 'openai' },
        }),
      })
    ).json()) as { id: string };
    // Well under the two minutes of the default: the flag reached the provider.
    const ended = await waitFor(
      async () => {
        const run = (await (await fetch(`${runs}/${created.id}`, { headers })).json()) as {
          state: string;
          error?: { code: string };
        };
        return run.state !== 'running' && run;
      },
      { timeoutMs: 60_000 },
    );
    expect(model.asked()).toBeGreaterThanOrEqual(1);
    expect(ended).toMatchObject({ state: 'failed', error: { code: 'provider_timeout' } });
  }, 120_000);
});
