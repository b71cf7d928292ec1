import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { type Deployment, deploy, waitFor } from '../testing/harness.js';
import { backends } from '../testing/stores.js';

for (const backend of await backends()) {
  describe.skipIf(backend.skip !== null)(
    `an endpoint's error text in run.error (${backend.name})`,
    () => {
      let d: Deployment | undefined;
      let server: Server | undefined;
      afterEach(async () => {
        await d?.close();
        server?.close();
        d = server = undefined;
      });

      it('ends the run failed when the error body holds a NUL, kept as U+FFFD', async () => {
        server = createServer((req, res) => {
          req.resume();
          req.on('end', () => {
            res.writeHead(400, { 'content-type': 'text/plain' });
            res.end('bad \u0000 request');
          });
        });
        await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
        const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
        d = await deploy(backend, { openai: { baseUrl: url, apiKey: 'sk-test', model: 'm' } });
        const created = await d.member.post(`${d.ws}/runs`, {
          approval_mode: 'bypass',
          input: 'hello',
          provider: { kind: 'openai' },
        });
        const run = await waitFor(async () => {
          const r = (await d!.member.get(`${d!.ws}/runs/${created.body.id}`)).body;
          return r.state !== 'running' && r;
        });
        expect(run).toMatchObject({
          state: 'failed',
          error: { code: 'provider_error', detail: 'HTTP 400: bad \uFFFD request' },
        });
      });

      it('keeps out of run.error a key the deployment gave with surrounding whitespace, echoed without it', async () => {
        server = createServer((req, res) => {
          req.resume();
          req.on('end', () => {
            const key = (req.headers.authorization ?? '').replace(/^Bearer /, '');
            res.writeHead(401, { 'content-type': 'text/plain' });
            res.end(`Incorrect API key provided: ${key}.`);
          });
        });
        await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
        const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
        // A key read from a file or a secret store often keeps its final newline.
        d = await deploy(backend, {
          openai: { baseUrl: url, apiKey: ' sk-live-key-1234\n', model: 'm' },
        });
        const created = await d.member.post(`${d.ws}/runs`, {
          approval_mode: 'bypass',
          input: 'hello',
          provider: { kind: 'openai' },
        });
        const run = await waitFor(async () => {
          const r = (await d!.member.get(`${d!.ws}/runs/${created.body.id}`)).body;
          return r.state !== 'running' && r;
        });
        expect(run).toMatchObject({
          state: 'failed',
          error: {
            code: 'provider_error',
            detail: 'HTTP 401: Incorrect API key provided: [redacted].',
          },
        });
      });
    },
  );
}
