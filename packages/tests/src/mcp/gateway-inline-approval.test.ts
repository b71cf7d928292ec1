import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { type Gateway, startGateway } from '@airlock/mcp';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { type CallToolResult, ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startTestKernel, type TestKernel } from '../support/kernel.js';
import { filesystemServer, workFolder } from './servers.js';

/*
 * A member's client asks its own user to approve a parked call inline (MCP
 * elicitation). What that person reads is what runs: the question showed
 * the input's first 500 characters only, so the end of a long input (where
 * a command's `; rm -rf ~` would be) was approved unseen, and it showed
 * bidirectional controls raw, which reorder the text around them.
 */
describe('MCP gateway: the inline approval question', () => {
  let kernel: TestKernel;
  let gateway: Gateway;
  let dir: string;

  beforeAll(async () => {
    kernel = await startTestKernel();
    dir = workFolder();
    gateway = await startGateway({
      url: kernel.url,
      workspaceId: kernel.workspace.id,
      executorToken: kernel.workspace.tokens.executor,
      servers: [filesystemServer(dir)],
      memberPolicy: { approval_mode: 'ask', approval_rules: [] },
      pollMs: 50,
    });
  });
  afterAll(async () => {
    await gateway?.close();
    await kernel?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('shows the end of a long input, says it is cut, and marks the characters that reorder text', async () => {
    const asked: string[] = [];
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await gateway.connect(serverSide, kernel.workspace.tokens.member);
    const client = new Client(
      { name: 'inline', version: '1.0.0' },
      { capabilities: { elicitation: { form: {} } } },
    );
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      asked.push(request.params.message);
      return { action: 'decline' };
    });
    await client.connect(clientSide);
    try {
      const content = `${'harmless '.repeat(400)}\u202eTHE END`;
      const result = (await client.callTool({
        name: 'fs__write_file',
        arguments: { path: 'src/long.txt', content },
      })) as CallToolResult;
      expect(result.isError).toBe(true);
      expect(existsSync(join(dir, 'src/long.txt'))).toBe(false);
      expect(asked).toHaveLength(1);
      const [message = ''] = asked;
      expect(message).toContain('THE END');
      expect(message).toContain('⟨U+202E⟩');
      expect(message).not.toContain('\u202e');
      expect(message).toMatch(/…⟨\d+ more⟩… .*\(the whole input is in Airlock's inbox\)$/);
    } finally {
      await client.close();
    }
  });

  it.each([
    ['over the 4096 characters a reason may have', 'no. '.repeat(2000)],
    ['holding NUL', 'no\u0000 thanks'],
  ])('a deny whose reason is %s still denies the call', async (_, reason) => {
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await gateway.connect(serverSide, kernel.workspace.tokens.member);
    const client = new Client(
      { name: 'inline', version: '1.0.0' },
      { capabilities: { elicitation: { form: {} } } },
    );
    client.setRequestHandler(ElicitRequestSchema, async () => ({
      action: 'accept',
      content: { decision: 'deny', reason },
    }));
    await client.connect(clientSide);
    try {
      const path = `src/denied-${reason.length}.txt`;
      const result = (await client.callTool(
        { name: 'fs__write_file', arguments: { path, content: 'x' } },
        undefined,
        { timeout: 20_000 },
      )) as CallToolResult;
      expect(result.isError).toBe(true);
      const [first] = result.content as { type: 'text'; text: string }[];
      expect(first?.text).toMatch(/^Airlock refused this call: no/);
      expect(existsSync(join(dir, path))).toBe(false);
    } finally {
      await client.close();
    }
  });

  it("says where the gateway's errors go when the kernel refuses the user's inline approve", async () => {
    const errors: string[] = [];
    const own = await startGateway({
      url: kernel.url,
      workspaceId: kernel.workspace.id,
      executorToken: kernel.workspace.tokens.executor,
      servers: [filesystemServer(dir)],
      memberPolicy: { approval_mode: 'ask', approval_rules: [] },
      pollMs: 50,
      onError: (error) => errors.push(error.message),
    });
    const overlay = `${kernel.url}/api/v1/workspaces/${kernel.workspace.id}/overlays/user/me`;
    const headers = {
      authorization: `Bearer ${kernel.workspace.tokens.member}`,
      'content-type': 'application/json',
    };
    const putGroups = async (groups: unknown) => {
      const read = (await (await fetch(overlay, { headers })).json()) as { digest: string | null };
      const put = await fetch(overlay, {
        method: 'PUT',
        headers,
        body: JSON.stringify({ expected_digest: read.digest, groups }),
      });
      expect(put.status).toBe(200);
    };
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await own.connect(serverSide, kernel.workspace.tokens.member);
    const client = new Client(
      { name: 'inline', version: '1.0.0' },
      { capabilities: { elicitation: { form: {} } } },
    );
    // While the user reads the question, an admin freezes writes: the approve is refused.
    client.setRequestHandler(ElicitRequestSchema, async () => {
      await putGroups([
        {
          ruleSetId: 'supervised',
          rules: [
            {
              verdict: 'deny',
              guardrail: true,
              tools: ['fs__write_file'],
              reason: 'writes are frozen',
            },
          ],
        },
      ]);
      return { action: 'accept', content: { decision: 'approve' } };
    });
    await client.connect(clientSide);
    const path = 'src/refused-inline.txt';
    const call = client
      .callTool({ name: 'fs__write_file', arguments: { path, content: 'x' } }, undefined, {
        timeout: 60_000,
      })
      .catch((error: unknown) => error);
    try {
      await eventually(async () => (errors.length > 0 ? true : null), {
        what: 'the refused inline approve to be said',
      });
      expect(errors[0]).toMatch(/call t\d+ was not recorded, and the call still waits: .*frozen/);
      expect(existsSync(join(dir, path))).toBe(false);
    } finally {
      await client.close();
      await call;
      await own.close();
      await putGroups([]);
    }
  });
});
