import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { type Gateway, startGateway } from '@airlock/mcp';
import { createClient } from '@airlock/sdk';
import { createCredential } from '@airlock/server';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { ElicitRequestSchema, type ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startTestKernel, type TestKernel } from '../support/kernel.js';
import { filesystemServer, workFolder } from './servers.js';

/*
 * A member's client asks its user to decide a parked call inline. The
 * decision is bound to the call as the question showed it: when another
 * member edited the call meanwhile (under a policy that still asks two
 * approvals, the edited call stays parked), the inline approval must not
 * count toward the edited call the user never saw.
 */
describe('MCP gateway: an inline decision is bound to the call it showed', () => {
  let kernel: TestKernel;
  let gateway: Gateway;
  let dir: string;
  let editorToken = '';
  const reported: string[] = [];

  beforeAll(async () => {
    kernel = await startTestKernel();
    dir = workFolder();
    const editor = await createCredential(kernel.airlock.store, {
      workspaceId: kernel.workspace.id,
      kind: 'member',
      role: 'approver',
      label: 'Editor',
    });
    editorToken = editor.token;
    const put = await fetch(
      `${kernel.url}/api/v1/workspaces/${kernel.workspace.id}/approval_policy`,
      {
        method: 'PUT',
        headers: {
          authorization: `Bearer ${kernel.workspace.tokens.member}`,
          'content-type': 'application/json',
        },
        body: JSON.stringify({ policy: { rules: [{ tool: 'fs__write_file', required: 2 }] } }),
      },
    );
    expect(put.status).toBe(200);
    gateway = await startGateway({
      url: kernel.url,
      workspaceId: kernel.workspace.id,
      executorToken: kernel.workspace.tokens.executor,
      servers: [filesystemServer(dir)],
      memberPolicy: { approval_mode: 'ask', approval_rules: [] },
      pollMs: 50,
      onError: (error) => reported.push(error.message),
    });
  });
  afterAll(async () => {
    await gateway?.close();
    await kernel?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('an approval given inline after another member edited the call is not recorded', async () => {
    let answer: (result: ElicitResult) => void = () => {};
    const asked: string[] = [];
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await gateway.connect(serverSide, kernel.workspace.tokens.member);
    const client = new Client(
      { name: 'inline', version: '1.0.0' },
      { capabilities: { elicitation: { form: {} } } },
    );
    client.setRequestHandler(ElicitRequestSchema, (request) => {
      asked.push(request.params.message);
      return new Promise<ElicitResult>((resolve) => {
        answer = resolve;
      });
    });
    await client.connect(clientSide);
    const pending = client.callTool({
      name: 'fs__write_file',
      arguments: { path: 'src/v.txt', content: 'what the user read' },
    });
    await eventually(() => asked.length === 1);
    expect(asked[0]).toContain('what the user read');

    const editor = createClient({ url: kernel.url, token: editorToken }).workspace(
      kernel.workspace.id,
    );
    const decision = await eventually(async () => {
      const found = (await editor.decisions.list()).find((d) => d.isApproval());
      return found?.isApproval() ? found : null;
    });
    const edited = await decision.approve({
      tool_input: { path: 'src/v.txt', content: 'what the editor wrote' },
    });
    expect(edited.state).toBe('needs_approval');

    answer({ action: 'accept', content: { decision: 'approve' } });
    // The gateway says the decision was not recorded, naming why.
    const said = await eventually(() => reported.find((line) => line.includes('not recorded')));
    expect(said).toContain('version_mismatch');
    const row = await editor.runs.run(decision.task.run_id).task(decision.task.key);
    expect(row.state).toBe('needs_approval');
    expect(existsSync(join(dir, 'src/v.txt'))).toBe(false);
    await client.close();
    await expect(pending).rejects.toThrow();
  });
});
