import type { IncomingMessage } from 'node:http';
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Deployment, deploy } from '../testing/harness.js';
import { makeFixture, type RunFixture } from '../testing/run-fixtures.js';
import { backends } from '../testing/stores.js';
import { requestTarget } from './request-target.js';

const [sqlite] = await backends();

const target = (url: string) => requestTarget({ url } as IncomingMessage);

describe('requestTarget', () => {
  it('reads a path as a path, and no path whose first segment is empty as one', () => {
    expect(target('/api/v1/x?limit=1')?.pathname).toBe('/api/v1/x');
    expect(target('/a/../healthz')?.pathname).toBe('/healthz');
    expect(target('http://kernel.example/healthz')?.pathname).toBe('/healthz');
    // Resolved against a base, `//host/api` names the host and routes as `/api`.
    expect(target('//host/api/v1/x')).toBeNull();
    expect(target('//')).toBeNull();
  });
});

/** Sends a request with its target exactly as written (fetch would keep `//`, a proxy might not). */
function send(
  url: string,
  options: { method: string; path: string; token: string },
): Promise<{ status: number; text: string }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        hostname,
        port,
        method: options.method,
        path: options.path,
        headers: { authorization: `Bearer ${options.token}` },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          text += chunk;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

describe('a request target whose path starts with //', () => {
  let d: Deployment;
  let run: RunFixture;
  beforeAll(async () => {
    d = await deploy(sqlite!);
    run = await makeFixture(d, 'waiting');
  }, 60_000);
  afterAll(async () => {
    await d?.close();
  });

  it('is refused 400 rather than routed as the path after its "host", and changes nothing', async () => {
    const cases = [
      { method: 'GET', path: `//proxy${d.ws}/credentials`, token: d.tokens.member },
      { method: 'POST', path: `//proxy${d.ws}/runs/${run.runId}/stop`, token: d.tokens.member },
      { method: 'GET', path: '//proxy/trpc/executor.inbox?input=%7B%7D', token: d.tokens.executor },
      { method: 'GET', path: '//proxy/healthz', token: d.tokens.member },
    ];
    for (const sent of cases) {
      const answer = await send(d.url, sent);
      expect(answer.status, sent.path).toBe(400);
      expect(JSON.parse(answer.text).error.code, sent.path).toBe('invalid_input');
    }
    expect((await d.member.get(`${d.ws}/runs/${run.runId}`)).body.state).toBe('running');
  });
});
