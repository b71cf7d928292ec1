import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createClient } from '@airlock/sdk';
import { describe, expect, it } from 'vitest';
import { gatewayFixture } from './stdio-gateway.js';

/*
 * A client that closes its input right after a tools/call (it piped one
 * request and closed, or it crashed): the granted call still runs and
 * commits, the client still reads its answer (as from the MCP SDK's own stdio
 * servers), and the session's run gets its final answer, instead of a run left
 * `running` and a claimed row that another executor runs later for nobody.
 */
describe('airlock gateway mcp --stdio: a client that leaves right after a call', () => {
  const fixture = gatewayFixture((dir) => writeFileSync(join(dir, 'a.txt'), 'hello'));

  const workspace = () =>
    createClient({
      url: fixture.kernel.url,
      token: fixture.kernel.workspace.tokens.member,
    }).workspace(fixture.kernel.workspace.id);

  it.each([0, 5, 20])(
    'stdin closed %i ms after the call: the row runs, the client reads the answer, the run completes',
    async (delayMs) => {
      const before = new Set((await workspace().runs.list()).map((run) => run.id));
      const gateway = fixture.start();
      await gateway.initialize();
      gateway.send(
        JSON.stringify({
          jsonrpc: '2.0',
          id: 'r',
          method: 'tools/call',
          params: { name: 'fs__read_text_file', arguments: { path: 'a.txt' } },
        }),
      );
      if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
      gateway.child.stdin.end();
      expect(await gateway.exited).toBe(0);
      const answer = gateway.answers.find((line) => line.id === 'r');
      expect(answer?.result).toMatchObject({ content: [{ type: 'text', text: 'hello' }] });
      const runs = (await workspace().runs.list()).filter((run) => !before.has(run.id));
      expect(runs).toHaveLength(1);
      const run = workspace().runs.run(runs[0]?.id ?? '');
      expect((await run.get()).state).toBe('completed');
      expect((await run.tasks()).map((task) => task.state)).toEqual(['succeeded']);
    },
  );
});
