import { KernelApi } from '@airlock/mcp';
import { createClient } from '@airlock/sdk';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { describe, expect, it } from 'vitest';
import { eventually } from '../support/kernel.js';
import { useHttpGateway } from './http-gateway-fixture.js';

/*
 * The MCP SDK's server sends no answer to a request its client cancelled, and
 * its HTTP transport closes a POST's stream only once every answer went out:
 * the POST of a cancelled parked call stayed open for as long as the client
 * ran, so its session counted as busy, never went idle, and its gateway run
 * never ended. The gateway ends that stream once it heard the cancellation.
 */
describe('MCP gateway over HTTP: a client cancels a parked call and goes quiet', () => {
  const g = useHttpGateway({
    beforeGateway: (kernel) =>
      new KernelApi({ url: kernel.url, token: kernel.workspace.tokens.agent })
        .putProfile({ approval_mode: 'ask', approval_rules: [] })
        .then(() => {}),
    listen: { sessionIdleMs: 2_500 },
  });

  it('the session still ends once idle, and its run gets its final answer', async () => {
    const client = new Client({ name: 'quiet-client', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(g.front.url), {
        requestInit: { headers: { authorization: `Bearer ${g.kernel.workspace.tokens.agent}` } },
      }),
    );
    try {
      const stop = new AbortController();
      const calling = client
        .callTool(
          { name: 'fs__write_file', arguments: { path: 'src/never.txt', content: 'x' } },
          undefined,
          { signal: stop.signal },
        )
        .catch((error: unknown) => error);
      const workspace = createClient({
        url: g.kernel.url,
        token: g.kernel.workspace.tokens.member,
      }).workspace(g.kernel.workspace.id);
      const parked = await eventually(async () => {
        const found = (await workspace.decisions.list()).find((d) => d.isApproval());
        return found?.isApproval() ? found : null;
      });
      stop.abort('not needed after all');
      await calling;
      const [run] = await workspace.runs.list();
      await eventually(
        async () =>
          (await workspace.runs.run(parked.run_id).tasks())[0]?.state === 'canceled' || null,
        { what: 'the canceled row' },
      );
      await eventually(() => g.front.sessions === 0, {
        what: 'the idle session to end',
        timeoutMs: 20_000,
      });
      await eventually(
        async () => (await workspace.runs.run(run?.id ?? '').get()).state === 'completed' || null,
        { what: 'the gateway run to end' },
      );
    } finally {
      await client.close();
    }
    expect(g.front.sessions).toBe(0);
  });
});
