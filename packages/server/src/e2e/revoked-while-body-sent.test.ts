import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AUTH_RECHECK_AFTER_MS } from '../api/access.js';
import { type Deployment, deploy } from '../testing/harness.js';
import { backends } from '../testing/stores.js';

/**
 * A request is authenticated before its body is read. A client that sends
 * the body slowly must not act with a credential revoked meanwhile: a
 * revoked admin could otherwise keep a request open and mint itself a new
 * credential once its revocation landed.
 */

const [sqlite] = await backends();

describe.skipIf(sqlite!.skip !== null)('a credential revoked while its request body came', () => {
  let d: Deployment;
  beforeAll(async () => {
    d = await deploy(sqlite!);
  });
  afterAll(async () => {
    await d?.close();
  });

  /** An admin credential of the workspace: its id and token. */
  async function admin(label: string): Promise<{ id: string; token: string }> {
    const made = await d.member.post(`${d.ws}/credentials`, {
      kind: 'member',
      role: 'admin',
      label,
    });
    expect(made.status).toBe(201);
    return { id: made.body.credential_id as string, token: made.body.token as string };
  }

  /**
   * Sends a POST's head and the first bytes of its body, runs `meanwhile`,
   * waits past the recheck bound, sends the rest and answers the status line.
   */
  async function slowPost(
    path: string,
    token: string,
    body: string,
    meanwhile: () => Promise<void>,
  ): Promise<string> {
    const url = new URL(d.url);
    const socket = connect(Number(url.port), url.hostname);
    await new Promise((resolve) => socket.once('connect', resolve));
    let answer = '';
    socket.on('data', (chunk) => {
      answer += chunk.toString();
    });
    const ended = new Promise((resolve) => socket.once('close', resolve));
    socket.write(
      `POST ${path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\nAuthorization: Bearer ${token}\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body.slice(0, 3)}`,
    );
    // Time for the kernel to authenticate the head (it reads no body yet): the revocation
    // must land after that for the request to be the one this test is about.
    await new Promise((resolve) => setTimeout(resolve, 500));
    await meanwhile();
    await new Promise((resolve) => setTimeout(resolve, AUTH_RECHECK_AFTER_MS + 200));
    socket.write(body.slice(3));
    await ended;
    return answer.split('\r\n')[0] ?? '';
  }

  async function applicationNames(): Promise<string[]> {
    const listed = await d.member.get(`${d.ws}/agent_applications`);
    return (listed.body.agent_applications as { name: string }[]).map((a) => a.name);
  }

  it('REST: answers 401 and creates nothing', async () => {
    const cy = await admin('Cy');
    const status = await slowPost(
      `${d.ws}/agent_applications`,
      cy.token,
      JSON.stringify({ name: 'sneaky-rest' }),
      async () => {
        expect((await d.member.post(`${d.ws}/credentials/${cy.id}/revoke`)).status).toBe(200);
      },
    );
    expect(status).toContain(' 401 ');
    expect(await applicationNames()).not.toContain('sneaky-rest');
  });

  it('tRPC: answers 401 and creates nothing', async () => {
    const cy = await admin('Cy2');
    const status = await slowPost(
      '/trpc/agentApplications.create',
      cy.token,
      JSON.stringify({ workspace_id: d.workspaceId, name: 'sneaky-trpc' }),
      async () => {
        expect((await d.member.post(`${d.ws}/credentials/${cy.id}/revoke`)).status).toBe(200);
      },
    );
    expect(status).toContain(' 401 ');
    expect(await applicationNames()).not.toContain('sneaky-trpc');
  });

  it('a slow body of a credential still active is served', async () => {
    const bo = await admin('Bo');
    const status = await slowPost(
      `${d.ws}/agent_applications`,
      bo.token,
      JSON.stringify({ name: 'slow-but-fine' }),
      async () => {},
    );
    expect(status).toContain(' 201 ');
    expect(await applicationNames()).toContain('slow-but-fine');
  });
});
