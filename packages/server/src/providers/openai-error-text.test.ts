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

      /** Serves the endpoint with one answer to every request; resolves with its base URL. */
      async function endpointAnswering(
        answer: (authorization: string) => { status: number; body: string },
      ): Promise<string> {
        server = createServer((req, res) => {
          req.resume();
          req.on('end', () => {
            const { status, body } = answer(req.headers.authorization ?? '');
            res.writeHead(status, { 'content-type': 'text/plain' });
            res.end(body);
          });
        });
        await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
        return `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
      }

      /** Starts an openai run on the deployment's endpoint and answers it once it ended. */
      async function endedOpenaiRun(on: Deployment) {
        const created = await on.member.post(`${on.ws}/runs`, {
          approval_mode: 'bypass',
          input: 'hello',
          provider: { kind: 'openai' },
        });
        return waitFor(async () => {
          const r = (await on.member.get(`${on.ws}/runs/${created.body.id}`)).body;
          return r.state !== 'running' && r;
        });
      }

      it('ends the run failed when the error body holds a NUL, kept as U+FFFD', async () => {
        const url = await endpointAnswering(() => ({ status: 400, body: 'bad \u0000 request' }));
        d = await deploy(backend, { openai: { baseUrl: url, apiKey: 'sk-test', model: 'm' } });
        const run = await endedOpenaiRun(d);
        expect(run).toMatchObject({
          state: 'failed',
          error: { code: 'provider_error', detail: 'HTTP 400: bad \uFFFD request' },
        });
      });

      it('keeps out of run.error a key the deployment gave with surrounding whitespace, echoed without it', async () => {
        const url = await endpointAnswering((authorization) => ({
          status: 401,
          body: `Incorrect API key provided: ${authorization.replace(/^Bearer /, '')}.`,
        }));
        // A key read from a file or a secret store often keeps its final newline.
        d = await deploy(backend, {
          openai: { baseUrl: url, apiKey: ' sk-live-key-1234\n', model: 'm' },
        });
        const run = await endedOpenaiRun(d);
        expect(run).toMatchObject({
          state: 'failed',
          error: {
            code: 'provider_error',
            detail: 'HTTP 401: Incorrect API key provided: [redacted].',
          },
        });
      });

      it('sends nothing and quotes no part of a key holding a line break, which no header carries', async () => {
        let asked = 0;
        const url = await endpointAnswering(() => {
          asked += 1;
          return { status: 200, body: '{}' };
        });
        // A secret file holding the key and a second line: fetch would quote the whole header.
        d = await deploy(backend, {
          openai: { baseUrl: url, apiKey: 'sk-first-part\nsk-second-part', model: 'm' },
        });
        const run = await endedOpenaiRun(d);
        expect(run).toMatchObject({ state: 'failed', error: { code: 'provider_misconfigured' } });
        expect(run.error.detail).not.toContain('first-part');
        expect(run.error.detail).not.toContain('second-part');
        expect(run.error.detail).toContain('OPENAI_API_KEY');
        expect(asked).toBe(0);
      });
    },
  );
}
