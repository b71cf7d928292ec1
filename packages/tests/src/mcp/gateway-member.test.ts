import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { useSdkGateway } from './sdk-gateway-fixture.js';

/*
 * A member's MCP session runs under the gateway's member policy, and a
 * member's client that supports elicitation lets its own user decide a
 * parked call inline; an agent's client is never asked.
 */
describe('MCP gateway: a member credential, its policy and inline approval', () => {
  const { g, connect, workspace, parked, text } = useSdkGateway();

  it('a member credential runs under the gateway policy: unmatched calls are refused', async () => {
    const client = await connect(g.kernel.workspace.tokens.member);
    const result = (await client.callTool({
      name: 'fs__read_text_file',
      arguments: { path: 'src/a.txt' },
    })) as CallToolResult;
    expect(result.isError).toBe(true);
    expect(text(result)).toBe(
      'Airlock refused this call: no approval rule allows fs__read_text_file',
    );
  });

  it("a member's client that supports elicitation lets its own user approve inline", async () => {
    const asked: string[] = [];
    const client = await connect(g.kernel.workspace.tokens.member, () => {
      asked.push('approve');
      return { action: 'accept', content: { decision: 'approve' } };
    });
    const result = (await client.callTool({
      name: 'fs__write_file',
      arguments: { path: 'src/inline.txt', content: 'inline' },
    })) as CallToolResult;
    expect(text(result)).toBe('Successfully wrote to src/inline.txt');
    expect(asked).toEqual(['approve']);
    expect(readFileSync(join(g.dir, 'src/inline.txt'), 'utf8')).toBe('inline');
    const runs = await workspace().runs.list();
    const run = runs.find((r) => r.provider === 'gateway' && r.conversation_id === null);
    const [task] = await workspace()
      .runs.run(run?.id ?? '')
      .tasks();
    expect(task?.decided_by).toMatch(/^member:/);
  });

  it('a declined elicitation denies the call; an agent credential is never asked inline', async () => {
    const member = await connect(g.kernel.workspace.tokens.member, () => ({ action: 'decline' }));
    const declined = (await member.callTool({
      name: 'fs__write_file',
      arguments: { path: 'src/declined.txt', content: 'x' },
    })) as CallToolResult;
    expect(declined.isError).toBe(true);
    expect(text(declined)).toBe("Airlock refused this call: the client's user denied this call");
    expect(existsSync(join(g.dir, 'src/declined.txt'))).toBe(false);

    let askedAgent = false;
    const agent = await connect(g.kernel.workspace.tokens.agent, () => {
      askedAgent = true;
      return { action: 'accept', content: { decision: 'approve' } };
    });
    const pending = agent.callTool({
      name: 'fs__write_file',
      arguments: { path: 'src/agent.txt', content: 'y' },
    });
    const decision = await parked('fs__write_file');
    await decision.deny({ reason: 'checked by a person' });
    expect(text((await pending) as CallToolResult)).toContain('checked by a person');
    expect(askedAgent).toBe(false);
  });
});
