import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { doctor } from './doctor.js';
import { HEALTH_BYTES_MAX, request } from './doctor-kernels.js';
import { installHooks } from './install.js';

/**
 * A server whose `/healthz` answers 200: `/padded` a `{"ok":true}` padded past
 * doctor's cap, `/endless` a body that goes on for as long as it is read.
 */
let endlessClosed = 0;
const server = createServer((request, response) => {
  const kind = request.url?.split('/')[1];
  response.writeHead(200, { 'content-type': 'application/json' });
  if (kind === 'padded') {
    response.end(`{"ok":true${' '.repeat(HEALTH_BYTES_MAX)}}`);
    return;
  }
  const chunk = Buffer.alloc(64 * 1024, ' ');
  response.write('{"ok":true');
  const pump = () => {
    while (!response.destroyed && response.write(chunk)) {}
  };
  response.on('drain', pump);
  response.on('close', () => {
    endlessClosed += 1;
  });
  pump();
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

async function kernelReachable(kernelUrl: string) {
  const home = mkdtempSync(join(tmpdir(), 'airlock-hooks-doctor-cap-'));
  const env = { HOME: home, CODEX_HOME: join(home, '.codex') };
  mkdirSync(join(home, 'airlock'));
  writeFileSync(join(home, 'airlock', 'airlock-hook.js'), '');
  installHooks({
    agent: 'claude-code',
    scope: { kind: 'user' },
    env,
    url: kernelUrl,
    token: 'alk_agent_doctor',
    node: process.execPath,
    hookEntry: join(home, 'airlock', 'airlock-hook.js'),
  });
  const checks = await doctor({
    agents: ['claude-code'],
    scope: { kind: 'user' },
    env,
    binaries: {},
  });
  return checks.find((check) => check.check === 'kernel reachable');
}

describe("doctor reading a /healthz longer than Airlock's", () => {
  it('fails the check for a padded {"ok":true}, not reading it as the kernel', async () => {
    expect(await kernelReachable(`${url}/padded`)).toMatchObject({
      status: 'fail',
      detail: expect.stringContaining(`an answer over ${HEALTH_BYTES_MAX} bytes`),
    });
  });

  // Before the cap, the body was read into memory until the 5 s timeout, whatever its size.
  it('stops reading an endless answer at the cap and drops the connection', async () => {
    const closedBefore = endlessClosed;
    const failed = await request(`${url}/endless/healthz`).catch((error: unknown) => error);
    expect((failed as Error).name).toBe('AnswerTooLarge');
    await expect.poll(() => endlessClosed, { timeout: 10_000 }).toBeGreaterThan(closedBefore);
    expect(await kernelReachable(`${url}/endless`)).toMatchObject({
      status: 'fail',
      detail: expect.stringContaining('/healthz answered with an answer over'),
    });
  });
});
