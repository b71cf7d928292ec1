import { fileURLToPath } from 'node:url';
import { McpServerConnection } from '@airlock/mcp';
import { describe, expect, it } from 'vitest';

const entry = fileURLToPath(new URL('./fixtures/endless-tools-server.mjs', import.meta.url));

/** Lists the tools of a server whose tools/list never ends, pages as large as given. */
async function listEndless(descriptionBytes: number): Promise<unknown> {
  const connection = new McpServerConnection({
    name: 'endless',
    spec: {
      command: process.execPath,
      args: [entry],
      env: { DESCRIPTION_BYTES: String(descriptionBytes) },
    },
  });
  try {
    return await connection.listTools();
  } finally {
    await connection.close();
  }
}

/*
 * A server whose tools/list hands out a next cursor forever would keep the
 * bridge (and the gateway) from starting, piling up its tools in memory: the
 * listing stops with a clear failure past a bound on its pages and its size.
 */
describe('McpServerConnection: a tools/list without end', () => {
  it('fails past a bound on pages, naming the server', async () => {
    await expect(listEndless(0)).rejects.toThrow(/endless lists tools .*more than \d+ pages/);
  });

  it('fails past a bound on size, naming the server', async () => {
    await expect(listEndless(1024 * 1024)).rejects.toThrow(/endless lists tools .*MiB/);
  });
});
