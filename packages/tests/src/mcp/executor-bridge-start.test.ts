import { fileURLToPath } from 'node:url';
import { KernelApi, startExecutorBridge } from '@airlock/mcp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestKernel, type TestKernel } from '../support/kernel.js';
import { slowServer } from './servers.js';

const declaredTools = fileURLToPath(
  new URL('./fixtures/declared-tools-server.mjs', import.meta.url),
);

/*
 * The kernel refuses a claim naming a tool whose name holds NUL or a lone
 * surrogate, or whose names together pass its body limit: one such tool
 * of one server kept the whole bridge (every server's tools) from claiming
 * anything, while it seemed to serve. It now refuses to start, naming it.
 */
describe('executor bridge: a tool name the kernel cannot take', () => {
  let kernel: TestKernel;
  beforeAll(async () => {
    kernel = await startTestKernel();
  });
  afterAll(async () => {
    await kernel?.close();
  });

  const start = (names: string[]) =>
    startExecutorBridge({
      url: kernel.url,
      executorToken: kernel.workspace.tokens.executor,
      servers: [
        {
          name: 'odd',
          spec: {
            command: process.execPath,
            args: [declaredTools],
            env: {
              TOOLS_JSON: JSON.stringify(
                names.map((name) => ({ name, inputSchema: { type: 'object' } })),
              ),
            },
          },
        },
      ],
    });

  it.each([
    ['NUL', 'bad\u0000', 'the tool name "bad⟨U+0000⟩" holds NUL (U+0000) or a lone surrogate'],
    ['a lone surrogate', 'bad\ud800', 'the tool name "bad⟨U+D800⟩" holds NUL (U+0000)'],
    ['2,000 characters', 'x'.repeat(2000), 'is 2005 characters long as odd__…, more than the 512'],
    // The kernel refuses a call by a name past 512 characters: listed, it could never run.
    ['600 characters', 'x'.repeat(600), 'is 605 characters long as odd__…, more than the 512'],
  ])('a name holding %s: the start fails naming the server and the tool', async (_, name, why) => {
    const started = start(['ok', name]);
    await expect(started).rejects.toThrow('the MCP server odd cannot be served: ');
    await expect(started).rejects.toThrow(why);
  });

  it('a tool whose outputSchema does not compile: the bridge starts and calls it', async () => {
    const bridge = await startExecutorBridge({
      url: kernel.url,
      executorToken: kernel.workspace.tokens.executor,
      servers: [
        {
          name: 'odd',
          spec: {
            command: process.execPath,
            args: [declaredTools],
            env: {
              TOOLS_JSON: JSON.stringify([
                { name: 'ok', inputSchema: { type: 'object' } },
                {
                  name: 'shaped',
                  inputSchema: { type: 'object' },
                  outputSchema: { type: 'object', properties: { a: { type: 'nope' } } },
                },
              ]),
            },
          },
        },
      ],
    });
    try {
      expect([...bridge.tools.keys()]).toEqual(['odd__ok', 'odd__shaped']);
      const answer = await bridge.connections
        .get('odd')
        ?.callTool('shaped', {}, new AbortController().signal);
      expect(answer?.content).toEqual([{ type: 'text', text: 'ok' }]);
    } finally {
      await bridge.close();
    }
  });

  it('a name listed twice: the start fails naming it', async () => {
    await expect(start(['ok', 'twice', 'twice'])).rejects.toThrow(
      'the MCP server odd cannot be served: the tool "twice" is listed twice',
    );
  });
});

/*
 * A server that exits at start (a wrong command, a missing dependency): the
 * SDK only says "Connection closed", which with several servers does not say
 * whose. The failure names the server.
 */
describe('executor bridge: a server that does not start', () => {
  it('fails naming the server', async () => {
    const started = startExecutorBridge({
      url: 'http://127.0.0.1:1',
      executorToken: 'alk_executor_unused',
      servers: [
        {
          name: 'fine',
          spec: {
            command: process.execPath,
            args: [declaredTools],
            env: { TOOLS_JSON: JSON.stringify([{ name: 'ok', inputSchema: { type: 'object' } }]) },
          },
        },
        { name: 'broken', spec: { command: process.execPath, args: ['-e', 'process.exit(3)'] } },
      ],
    });
    await expect(started).rejects.toThrow(
      /^the MCP server broken did not start and list its tools: .*Connection closed/,
    );
  });
});

/*
 * A bridge whose executor credential the kernel refuses serves nothing: it
 * ended with that refusal, but only after it had registered its tools in
 * the agent's profile (a new version naming tools no executor serves).
 */
describe('executor bridge: a refused executor credential', () => {
  let kernel: TestKernel;
  beforeAll(async () => {
    kernel = await startTestKernel();
  });
  afterAll(async () => {
    await kernel?.close();
  });

  it('fails before the registration: the profile is left as it was', async () => {
    const agent = new KernelApi({ url: kernel.url, token: kernel.workspace.tokens.agent });
    await agent.putProfile({ approval_mode: 'ask', tool_names: ['ask'] });
    const before = await agent.profile();
    await expect(
      startExecutorBridge({
        url: kernel.url,
        executorToken: 'alk_executor_unknown',
        agentToken: kernel.workspace.tokens.agent,
        servers: [slowServer()],
      }),
    ).rejects.toThrow(/unauthenticated/);
    expect(await agent.profile()).toEqual(before);
  });
});

/*
 * Server names given to startExecutorBridge directly (not from a servers
 * file) went unchecked: `fs` listing `x__y` and `fs__x` listing `y` both
 * served `fs__x__y`, and the second took the first's calls.
 */
describe('executor bridge: server names handed in directly', () => {
  it('refuses a name a servers file could not give, before any server starts', async () => {
    const declaring = (name: string, tool: string) => ({
      name,
      spec: {
        command: process.execPath,
        args: [declaredTools],
        env: { TOOLS_JSON: JSON.stringify([{ name: tool, inputSchema: { type: 'object' } }]) },
      },
    });
    await expect(
      startExecutorBridge({
        url: 'http://127.0.0.1:1',
        executorToken: 'alk_executor_unused',
        servers: [declaring('fs', 'x__y'), declaring('fs__x', 'y')],
      }),
    ).rejects.toThrow('invalid server name "fs__x"');
  });
});
