import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { OWN_WORKSPACE } from '@airlock/core';
import { afterEach, describe, expect, it } from 'vitest';
import { KernelApi } from './kernel-api.js';

describe('KernelApi without a workspace id', () => {
  const paths: string[] = [];
  let close: (() => void) | undefined;
  afterEach(() => {
    close?.();
    paths.length = 0;
  });

  /** A kernel that answers every credentials/self as a member's, keeping the paths asked. */
  async function anyMemberKernel(): Promise<string> {
    const server = createServer((request, response) => {
      paths.push(request.url ?? '');
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(
        JSON.stringify({
          credential_id: 'cred_1',
          kind: 'member',
          agent_application_id: null,
          role: 'admin',
          principal: 'member:cred_1',
        }),
      );
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    close = () => server.close();
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  it('reads its own credential in the credential’s own workspace', async () => {
    const api = new KernelApi({ url: await anyMemberKernel(), token: 'alk_member_x' });
    expect((await api.self()).kind).toBe('member');
    expect(paths).toEqual([`/api/v1/workspaces/${OWN_WORKSPACE}/credentials/self`]);
  });

  it('never verifies a client credential in whatever workspace it is of', async () => {
    const api = new KernelApi({ url: await anyMemberKernel(), token: 'alk_member_x' });
    await expect(api.verify('member', null)).rejects.toMatchObject({ code: 'invalid_input' });
    expect(paths).toEqual([]);
  });
});
