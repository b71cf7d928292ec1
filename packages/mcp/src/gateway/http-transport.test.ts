import { ConnectionError, DeadlineExceededError, ServerError } from '@airlock/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { type HttpGateway, listenHttp } from './http-transport.js';

const initialize = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: {
    protocolVersion: '2025-06-18',
    capabilities: {},
    clientInfo: { name: 't', version: '1' },
  },
};

describe('the HTTP front while the kernel cannot answer', () => {
  let front: HttpGateway | undefined;
  afterEach(async () => {
    await front?.close();
  });

  it.each([
    ['unreachable', new ConnectionError('the kernel at http://127.0.0.1:9 did not answer')],
    ['too slow', new DeadlineExceededError('the kernel did not answer in 30 s', 30_000)],
    ['failing', new ServerError({ code: 'store_unavailable', detail: 'down', status: 503 })],
  ])('answers an initialize 503 when the kernel is %s, opening nothing', async (_, outage) => {
    let opened = 0;
    front = await listenHttp({
      verify: async () => {
        throw outage;
      },
      open: async () => {
        opened += 1;
      },
    });
    const answer = await fetch(front.url, {
      method: 'POST',
      headers: {
        authorization: 'Bearer alk_member_x',
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify(initialize),
    });
    expect(answer.status).toBe(503);
    const body = (await answer.json()) as { error: { code: number; message: string } };
    expect(body.error.code).toBe(-32000);
    expect(body.error.message).toMatch(/^the Airlock kernel cannot answer now \(\w+\); try again$/);
    expect(opened).toBe(0);
    expect(front.sessions).toBe(0);
  });
});

describe('the HTTP front refusing a token before asking the kernel', () => {
  let front: HttpGateway | undefined;
  afterEach(async () => {
    await front?.close();
  });

  const send = (token: string) =>
    fetch(front?.url ?? '', {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify(initialize),
    });

  it.each([
    ['no credential at all', 'hunter2', 401],
    ['a credential cut short', 'alk_', 401],
    ['an executor credential', 'alk_executor_x', 403],
  ])('%s (%s): %i, and the kernel is never asked', async (_, token, status) => {
    let verified = 0;
    front = await listenHttp({
      verify: async () => {
        verified += 1;
      },
      open: async () => {},
    });
    const answer = await send(token);
    expect(answer.status).toBe(status);
    expect(verified).toBe(0);
    expect(front.sessions).toBe(0);
  });
});
