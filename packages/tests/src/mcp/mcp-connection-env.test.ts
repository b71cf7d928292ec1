import { fileURLToPath } from 'node:url';
import { McpServerConnection, type NamedServer } from '@airlock/mcp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const entry = fileURLToPath(new URL('./fixtures/env-server.mjs', import.meta.url));

/** The environment the server's process got, as its `env` tool reads it. */
async function serverEnvironment(server: NamedServer): Promise<Record<string, string>> {
  const connection = new McpServerConnection(server);
  try {
    const result = await connection.callTool('env', {}, new AbortController().signal);
    const [block] = result.content;
    if (block?.type !== 'text') throw new Error('expected a text block');
    return JSON.parse(block.text) as Record<string, string>;
  } finally {
    await connection.close();
  }
}

/*
 * An MCP server is someone else's code: it gets the environment its
 * configuration gives it over the few variables every process needs, never
 * the bridge's own (the Airlock credentials the gateway and the bridge read
 * from their environment among them), whether or not the configuration
 * names an `env`.
 */
describe("McpServerConnection: a server's environment", () => {
  const secrets = ['AIRLOCK_EXECUTOR_TOKEN', 'AIRLOCK_AGENT_TOKEN', 'AIRLOCK_TOKEN'];
  const before = new Map(secrets.map((name) => [name, process.env[name]]));
  beforeAll(() => {
    for (const name of secrets) process.env[name] = `alk_probe_${name.toLowerCase()}`;
  });
  afterAll(() => {
    for (const [name, value] of before) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  });

  it('a server with an env gets that env and PATH, not the Airlock credentials', async () => {
    const env = await serverEnvironment({
      name: 'env',
      spec: { command: process.execPath, args: [entry], env: { GREETING: 'hello' } },
    });
    expect(env.GREETING).toBe('hello');
    expect(env.PATH).toBe(process.env.PATH);
    for (const name of secrets) expect(env[name]).toBeUndefined();
  });

  it('a server without an env gets no Airlock credential either', async () => {
    const env = await serverEnvironment({
      name: 'env',
      spec: { command: process.execPath, args: [entry] },
    });
    for (const name of secrets) expect(env[name]).toBeUndefined();
  });
});
